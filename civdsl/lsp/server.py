"""The language server (pygls): documents in, diagnostics out, each request answered by the
features of this package."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Callable

from .. import loader, parser
from ..diagnostics import Diagnostic, Diagnostics
from .completion import completions
from .engine import Analysis, Engine, Superseded, diagnostic_range, diagnostics_by_file, full_message
from .files import FileInfo, Symbol
from .navigation import definitions, references, rename_edits, target_at
from .hover import hover_text
from .outline import OutlineItem, format_document, outline
from .protocol import framing_tolerant, from_units, to_units
from .tokens import lexer

log = logging.getLogger("civdsl.lsp")


class Session:
    """One editor's session: the engine and its documents, the analyses waiting to run, and the
    answers to the editor's requests in LSP terms (`T` is lsprotocol's types module)."""

    def __init__(self, server, T):
        self.server = server
        self.T = T
        self.engine = Engine()
        self.pending: set[str] = set()  # documents edited since their last analysis
        self.scheduled = False  # an analysis of the pending documents is queued on the event loop

    # --- positions and messages
    def units(self) -> Callable[[str], int]:
        try:
            return self.server.workspace.position_codec.client_num_units
        except Exception:
            return lambda s: len(s.encode("utf-16-le")) // 2

    def rng(self, info: FileInfo, start: int, end: int):
        T, u = self.T, self.units()
        sl, sc = to_units(info, *info.position(start), u)
        el, ec = to_units(info, *info.position(end), u)
        return T.Range(T.Position(sl, sc), T.Position(el, ec))

    def location(self, f: FileInfo, s: Symbol):
        return self.T.Location(uri=f.uri, range=self.rng(f, s.start, s.end))

    def publish(self, uri: str, diagnostics: list, version: int | None = None) -> None:
        self.server.text_document_publish_diagnostics(
            self.T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def lsp_diagnostic(self, d: Diagnostic, info: FileInfo | None, path: Path | None):
        T = self.T
        if info is None and path is not None:
            info = _read_for_positions(d, path)
        line, col, end_line, end_col = diagnostic_range(d, info)
        if info is not None:
            u = self.units()
            line, col = to_units(info, line, col, u)
            end_line, end_col = to_units(info, end_line, end_col, u)
        return T.Diagnostic(range=T.Range(T.Position(line, col), T.Position(end_line, end_col)),
                            message=full_message(d), severity=getattr(T.DiagnosticSeverity, _SEVERITY.get(d.level, "Error")),
                            code=d.code, source="civdsl")

    # --- analyses
    def run(self, uri: str, stale=None) -> None:
        """Analyse a document and publish its diagnostics (and clear those of files no longer
        reported on); given up (`Superseded`) when `stale()` says a newer edit waits."""
        doc = self.engine.documents.get(uri)
        if doc is None:
            return
        try:
            analysis = self.engine.analyse(doc, stale)
        except Superseded:
            # a newer edit waits behind this analysis: its handler schedules the next one, and the
            # document waits for it with the others left
            self.pending.add(uri)
            raise
        except Exception as exc:  # never take the server down: say so in the log
            log.exception("analysing %s failed", uri)
            self.server.window_log_message(self.T.LogMessageParams(
                type=self.T.MessageType.Error, message=f"civdsl: analysing {uri} failed: {exc}"))
            return
        published = set()
        for target_uri, items in diagnostics_by_file(analysis).items():
            if target_uri != uri and target_uri in self.engine.documents:
                continue  # an open base file reports its own buffer's diagnostics
            self.publish(target_uri, [self.lsp_diagnostic(*x) for x in items],
                         doc.version if target_uri == uri else None)
            published.add(target_uri)
        for stale in doc.published - published:
            if stale not in self.engine.documents:
                self.publish(stale, [])
        doc.published = published

    def schedule(self, uri: str) -> None:
        """Analyse `uri` as soon as the server is idle: the event loop runs this callback only
        once no message of the editor is waiting (protocol.handle_messages), so an edit that finds
        the server idle is analysed at once and a burst of edits is analysed once, at its end.
        A request about the document analyses it at once (see `current`)."""
        self.pending.add(uri)
        if self.scheduled:
            return
        try:
            import asyncio

            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self.scheduled = True
        loop.call_soon(self.flush)

    def flush(self) -> None:
        """Analyse the pending documents. One given up for an edit waiting behind it stays pending
        with the rest: the edit's handler schedules them again."""
        self.scheduled = False
        try:
            while self.pending:
                self.run(self.pending.pop(), self.edit_waiting)
        except Superseded:
            pass

    def edit_waiting(self) -> bool:
        """Whether an edit read from the editor waits to be handled (the stdio loop's `Arrivals`):
        the analysis running now answers for a stale text."""
        arrivals = getattr(self.server, "arrivals", None)
        return arrivals is not None and arrivals.edit_waiting()

    def current(self, uri: str) -> Analysis | None:
        if uri in self.pending:
            self.pending.discard(uri)
            self.run(uri)
        return self.engine.current(uri)

    def at_cursor(self, params):
        """(analysis, cursor offset) for a request at a position, or None while the document has no
        analysis yet: the start every position request shares."""
        analysis = self.current(params.text_document.uri)
        if analysis is None:
            return None
        return analysis, from_units(analysis.doc, params.position.line, params.position.character, self.units())

    def target_of(self, params):
        """(analysis, the symbol under the cursor), or None: definition and references start here."""
        found = self.at_cursor(params)
        target = found and target_at(*found)
        return None if target is None else (found[0], target)

    # --- notifications
    def did_open(self, params) -> None:
        self.engine.open(params.text_document.uri, params.text_document.text, params.text_document.version)
        self.schedule(params.text_document.uri)

    def did_change(self, params) -> None:
        uri = params.text_document.uri
        self.engine.update(uri, self.server.workspace.get_text_document(uri).source, params.text_document.version)
        self.schedule(uri)

    def did_change_on_disk(self, params) -> None:
        """A file was saved or changed on disk: a base may have changed, every open rulebook is
        checked again."""
        self.engine.invalidate_disk()
        for uri in list(self.engine.documents):
            self.schedule(uri)

    def did_close(self, params) -> None:
        uri = params.text_document.uri
        doc = self.engine.documents.get(uri)
        self.pending.discard(uri)
        self.engine.close(uri)
        for stale in (doc.published if doc else set()) | {uri}:
            if stale not in self.engine.documents:
                self.publish(stale, [])

    # --- requests
    def hover(self, params):
        found = self.at_cursor(params)
        hovered = hover_text(*found) if found is not None else None
        if hovered is None:
            return None
        text, about = hovered
        T = self.T
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                       range=self.rng(found[0].doc, about.start, about.end))

    def definition(self, params):
        found = self.target_of(params)
        if found is None:
            return None
        return [self.location(f, s) for f, s in definitions(*found)] or None

    def references(self, params):
        found = self.target_of(params)
        if found is None:
            return None
        include = params.context.include_declaration if params.context else True
        return [self.location(f, s) for f, s in references(*found, include)]

    def rename(self, params):
        from pygls.exceptions import JsonRpcInvalidParams

        found = self.at_cursor(params)
        if found is None:
            return None
        try:
            edits = rename_edits(*found, params.new_name)
        except ValueError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        if edits is None:
            return None
        changes: dict[str, list] = {}
        for f, start, end, text in edits:
            changes.setdefault(f.uri, []).append(self.T.TextEdit(range=self.rng(f, start, end), new_text=text))
        return self.T.WorkspaceEdit(changes=changes)

    def completion(self, params):
        found = self.at_cursor(params)
        if found is None:
            return None
        T = self.T
        items = []
        for c in completions(*found):
            kind = _COMPLETION_KINDS.get(c.kind)
            item = T.CompletionItem(label=c.label, kind=getattr(T.CompletionItemKind, kind) if kind else None,
                                    detail=c.detail, documentation=c.doc)
            if c.replace is not None:
                item.text_edit = T.TextEdit(range=self.rng(found[0].doc, *c.replace), new_text=c.insert or c.label)
                item.filter_text = c.label
            elif c.insert is not None:
                item.insert_text = c.insert
            items.append(item)
        return T.CompletionList(is_incomplete=False, items=items)

    def document_symbol(self, params):
        analysis = self.current(params.text_document.uri)
        if analysis is None:
            return None
        return [self._symbol(analysis.doc, o) for o in outline(analysis.doc)]

    def _symbol(self, info: FileInfo, o: OutlineItem):
        T = self.T
        return T.DocumentSymbol(name=o.name or "?", kind=getattr(T.SymbolKind, _SYMBOL_KINDS.get(o.kind, "Object")),
                                range=self.rng(info, o.start, o.end),
                                selection_range=self.rng(info, o.name_start, o.name_end),
                                detail=o.detail or o.kind, children=[self._symbol(info, c) for c in o.children] or None)

    def formatting(self, params):
        doc = self.engine.documents.get(params.text_document.uri)
        if doc is None:
            return None
        raw = doc.text
        formatted = format_document(raw, doc.display)
        if formatted is None or formatted == raw:
            return []
        # the end of the buffer, in client units (the buffer may use \r\n; LSP counts \r\n as one break)
        T = self.T
        buffer_lines = re.split(r"\r\n|\r|\n", raw)
        end = T.Position(len(buffer_lines) - 1, self.units()(buffer_lines[-1]))
        return [T.TextEdit(range=T.Range(T.Position(0, 0), end), new_text=formatted)]


def _read_for_positions(d: Diagnostic, path: Path) -> FileInfo | None:
    """A file the diagnostic is about that is not part of the analysis, read as the compiler reads a
    rulebook (a regular file, never past the size limit, never blocking on a FIFO): a huge or odd
    base file places its diagnostic at 1:1."""
    display = d.span.path if d.span else ""
    data = loader.read_bytes(path, display, Diagnostics())
    if data is None:
        return None
    return FileInfo(parser.normalise(data.decode("utf-8", errors="replace")), display, path)


# lsprotocol's names for a diagnostic's level, a completion's kind and an outline entry's kind.
_SEVERITY = {"error": "Error", "warning": "Warning", "note": "Information"}
_COMPLETION_KINDS = {"keyword": "Keyword", "effect": "Function", "ability": "Method", "function": "Function",
                     "fact": "Variable", "name": "Constant", "group": "EnumMember", "advance": "Class",
                     "calamity": "Event", "commodity": "Struct", "value": "Value", "edition": "Module"}
_SYMBOL_KINDS = {"advance": "Class", "calamity": "Event", "commodity": "Struct", "track": "Namespace",
                 "epoch": "EnumMember", "group": "Enum", "const": "Constant", "table": "Array", "option": "Boolean",
                 "score": "Object", "change": "Property", "remove": "Property", "stat": "Variable", "flag": "Boolean",
                 "choice": "TypeParameter", "threshold": "Event", "pool": "Array", "round_track": "Namespace",
                 "event_table": "Array", "deck": "Struct", "phase": "Function"}

# The LSP methods the session answers: (lsprotocol's name of the method, the Session method).
_NOTIFICATIONS = (("TEXT_DOCUMENT_DID_OPEN", "did_open"), ("TEXT_DOCUMENT_DID_CHANGE", "did_change"),
                  ("TEXT_DOCUMENT_DID_SAVE", "did_change_on_disk"),
                  ("WORKSPACE_DID_CHANGE_WATCHED_FILES", "did_change_on_disk"), ("TEXT_DOCUMENT_DID_CLOSE", "did_close"))
_REQUESTS = (("TEXT_DOCUMENT_HOVER", "hover"), ("TEXT_DOCUMENT_DEFINITION", "definition"),
             ("TEXT_DOCUMENT_REFERENCES", "references"), ("TEXT_DOCUMENT_RENAME", "rename"),
             ("TEXT_DOCUMENT_DOCUMENT_SYMBOL", "document_symbol"), ("TEXT_DOCUMENT_FORMATTING", "formatting"))


def build_server():
    """The pygls LanguageServer with every feature registered."""
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer

    try:
        from importlib.metadata import version as _version

        server_version = _version("civdsl")
    except Exception:
        server_version = "0"

    server = framing_tolerant(LanguageServer)("civdsl", server_version,
                                              text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
    session = Session(server, T)
    server.civdsl_engine = session.engine  # type: ignore[attr-defined]
    for method, handler in _NOTIFICATIONS + _REQUESTS:
        server.feature(getattr(T, method))(_handler(getattr(session, handler)))
    server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=['"', "(", "="]))(
        _handler(session.completion))
    return server


def _handler(method: Callable):
    """A function calling a session's method (pygls marks the functions it registers, which a
    bound method does not allow)."""
    def handle(params):
        return method(params)

    handle.__name__ = method.__name__
    return handle


def warm_up() -> None:
    """Build the Lark parser and the keyword tables before the first document arrives."""
    try:
        parser.statement_edges()
        parser.keyword_terminals()
        lexer()
    except Exception:  # reported again, properly, on first use
        pass
