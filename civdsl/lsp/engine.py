"""The analysis engine (no pygls here): every open document, its extends chain and its latest
`Analysis` (diagnostics, the resolved edition, the index of references of the chain), and where
each diagnostic is shown. The benchmark and the tests drive it directly as well as over a pipe."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from .. import citations, loader, parser
from ..diagnostics import Diagnostic, Diagnostics, Span
from ..frontend import stopped
from ..gcpause import paused
from ..loader import LoadedFile, display_path
from ..references import Index, Ref
from ..validator import validate
from .files import NAVIGABLE, FileInfo, Symbol
from .incremental import IncrementalParser, TextState
from .splice import resolve_edit
from .tokens import Tok, unquote_string

@dataclass
class Analysis:
    uri: str
    version: int | None
    doc: FileInfo  # the open buffer, normalised
    bases: list[FileInfo]  # the chain's bases, base first
    diagnostics: Diagnostics
    edition: Any  # model.Edition or None
    last_edition: Any = None  # this edition, or the last one that resolved (for hover while typing)
    seconds: float = 0.0
    index: Index | None = None  # the index of references of `files` (a file that does not parse: none of its)
    _symbols: dict = field(default_factory=dict, repr=False)

    @property
    def files(self) -> list[FileInfo]:
        return self.bases + [self.doc]

    def refs(self) -> Index:
        if self.index is None:
            self.index = Index(f.ast for f in self.files)
        return self.index

    def located(self, ref: Ref) -> tuple[FileInfo, Symbol]:
        f = self.files[ref.file]
        return f, f.symbol(ref)

    def symbols(self, f: FileInfo) -> list[Symbol]:
        """The declarations and uses in one file of the chain, at offsets (computed when first asked)."""
        at = next(i for i, g in enumerate(self.files) if g is f)
        if at not in self._symbols:
            self._symbols[at] = [f.symbol(r) for r in self.refs().refs if r.file == at and r.kind in NAVIGABLE]
        return self._symbols[at]

    def symbol_at(self, offset: int) -> Symbol | None:
        """The innermost declaration or use of the open document at the offset."""
        return max((s for s in self.symbols(self.doc) if s.start <= offset <= s.end), key=lambda s: s.start,
                   default=None)


@dataclass
class Document:
    uri: str
    path: Path | None
    display: str
    text: str = ""
    version: int | None = None
    analysis: Analysis | None = None
    last_edition: Any = None
    last_bases: list[FileInfo] = field(default_factory=list)
    parser: IncrementalParser = field(default_factory=IncrementalParser)
    state: TextState = field(default_factory=TextState)  # its lines, tokens and statements
    refs_memo: dict = field(default_factory=dict)  # references.Index's, per statement
    last_index: Index | None = None  # the index `refs_memo` holds the statements of
    resolve_memo: dict = field(default_factory=dict)  # splice.resolve_edit's: resolver.resolve's, the last edition
    validate_memo: dict = field(default_factory=dict)  # validator.validate's, per advance, calamity, commodity
    published: set[str] = field(default_factory=set)
    stats: dict = field(default_factory=dict)  # how its analyses were made ("spliced": splice.resolve_edit)


class Superseded(Exception):
    """An analysis given up between passes: a newer edit of the text is waiting."""


def _unless(stale) -> None:
    if stale is not None and stale():
        raise Superseded


def _checked(chain: list[LoadedFile], diags: Diagnostics, doc: "Document", stale=None) -> tuple[Any, Index | None]:
    """Passes 3 and 4 on a chain that loaded: (the edition, the index of references), or
    (None, None) when it does not resolve; each pass reuses what it kept for the document's
    unchanged statements. Superseded between passes when `stale()` says so (each pass's memo
    holds what that pass last did, whichever passes ran)."""
    edition = resolve_edit(chain, diags, doc.resolve_memo, doc.stats)
    if edition is None:
        return None, None
    _unless(stale)
    asts = [f.ast for f in chain]
    index = doc.last_index.after_edit(asts, doc.refs_memo) if doc.last_index is not None else None
    doc.stats["indexed whole" if index is None else "index spliced"] = doc.stats.get(
        "indexed whole" if index is None else "index spliced", 0) + 1
    index = doc.last_index = index or Index(asts, doc.refs_memo)
    _unless(stale)
    validate(edition, diags, index, doc.validate_memo)
    citations.check(edition, chain, diags)
    return edition, index


def _stamp(path: Path, resolved: Path) -> tuple | None:
    """What says a base file changed on disk (times, size, name); None when it cannot be read."""
    try:
        st = resolved.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, display_path(path)


def _extended(toks: list[Tok]) -> Tok | None:
    """The name or path after `extends` among a header's tokens."""
    at = next((i for i, t in enumerate(toks) if t.kind == "kw" and t.text == "extends"), len(toks))
    named = toks[at + 1] if at + 1 < len(toks) else None
    return named if named is not None and named.kind in ("name", "string") else None


def uri_to_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if "\0" in path or "\0" in parsed.netloc:
        # no file can have this name (the system refuses it): analyse the buffer as an untitled one
        return None
    if re.match(r"^/[A-Za-z]:", path):  # file:///c:/x on Windows
        path = path[1:]
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    return Path(path)


class Engine:
    """Every open document and its latest analysis. No pygls here."""

    def __init__(self):
        self.documents: dict[str, Document] = {}
        self._bases: dict[Path, tuple[tuple, LoadedFile | None, list[Diagnostic], dict[str, str], FileInfo | None]] = {}
        self.lock = threading.RLock()

    # --- documents
    def open(self, uri: str, text: str, version: int | None = None) -> Document:
        path = uri_to_path(uri)
        display = display_path(path) if path is not None else (urlparse(uri).path or uri).replace("\0", "\\0")
        doc = Document(uri, path, display, text, version)
        self.documents[uri] = doc
        return doc

    def update(self, uri: str, text: str, version: int | None = None) -> Document:
        doc = self.documents.get(uri) or self.open(uri, text, version)
        doc.text, doc.version = text, version
        return doc

    def close(self, uri: str) -> None:
        self.documents.pop(uri, None)

    def current(self, uri: str) -> Analysis | None:
        """The analysis of a document's latest text (analysing it now if it is stale)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        analysis = doc.analysis
        if analysis is None or analysis.version != doc.version or analysis.doc.text != parser.normalise(doc.text):
            self.analyse(doc)
        return doc.analysis

    # --- analysis
    def analyse(self, doc: Document, stale=None) -> Analysis:
        """The analysis of the document's text, kept as its latest. With `stale` (a callable), an
        analysis whose text is already out of date when `stale()` is true between passes is given
        up (`Superseded`) and the last one kept: the newer text is analysed next."""
        with self.lock, paused():  # see gcpause: the collector finds nothing here but costs time
            started = time.perf_counter()
            diags = Diagnostics()
            raw = doc.text
            text, doc_info, chain = self._load_chain(doc, raw, diags)
            if chain is None:
                return self._relaid(doc, doc_info, started)
            _unless(stale)
            edition, index = _checked(chain, diags, doc, stale) if chain and not stopped(diags) else (None, None)
            if chain:
                bases = doc.last_bases = [self._base_info(f) for f in chain[:-1]]
            else:
                bases = doc.last_bases or self._navigation_bases(doc, doc_info)
            doc.last_edition = edition or doc.last_edition
            analysis = Analysis(doc.uri, doc.version, doc_info, bases, diags, edition, doc.last_edition, index=index)
            analysis.seconds = time.perf_counter() - started
            doc.analysis = analysis
            return analysis

    def _load_chain(self, doc: Document, raw: str, diags: Diagnostics) -> tuple[str, FileInfo, list[LoadedFile] | None]:
        """As `loader.load_chain`, with the first file read from the editor's buffer; None for the
        chain when the last analysis holds for the text (`_layout_only`)."""
        display = doc.display
        bom = raw.startswith("\ufeff")
        text = parser.normalise(raw)
        chain: list[LoadedFile] = []
        size = len(raw) if raw.isascii() else len(raw.encode("utf-8", errors="surrogatepass"))
        if size > parser.MAX_BYTES:  # refused before any of it is lexed
            diags.error("CIV005", f"{display} is {size:,} bytes; the limit is {parser.MAX_BYTES:,}",
                        Span(display, 1, 1))
            return text, FileInfo(text, display, doc.path, doc.uri, bom), chain
        doc.state.update(text)
        info = FileInfo(text, display, doc.path, doc.uri, bom, doc.state)
        if "\0" in text:
            prefix = text[: text.index("\0")]
            line = prefix.count("\n") + 1
            diags.error("CIV004", "the file contains a NUL character",
                        Span(display, line, len(prefix) - (prefix.rfind("\n") + 1) + 1))
            return text, info, chain
        if self._layout_only(doc, text, display):
            return text, info, None
        diags.add_source(display, text)
        ast = info.ast = doc.parser.parse(text, display, doc.state, diags)
        if ast is None:
            return text, info, chain
        loader.check_language(ast, diags)
        here = doc.path if doc.path is not None else Path.cwd() / (Path(display).name or "untitled.civ")
        loaded = LoadedFile(here, display, text, ast)
        chain.append(loaded)
        chain += self._follow_bases(loaded, [here.resolve()], 1, diags)
        chain.reverse()
        return text, info, chain

    def _layout_only(self, doc: Document, text: str, display: str) -> bool:
        """Whether the edit since the last analysis changed only comments and spaces after the
        tokens of lines (TextState.layout_only), within the limits, with the same bases: its rules,
        and so its diagnostics, edition and index, are the last analysis's. Only when the last
        analysis is of the text before the edit (one given up, `Superseded`, left it older)."""
        previous = doc.analysis
        if (previous is None or previous.doc.ast is None or not doc.state.layout_only
                or previous.doc.lines is not doc.state.previous):
            return False
        if not parser.check_limits(text, display, Diagnostics(), doc.state.token_count(), doc.state.brackets(),
                                    doc.state.lines):
            return False
        here = doc.path if doc.path is not None else Path.cwd() / (Path(display).name or "untitled.civ")
        bases = self._follow_bases(LoadedFile(here, display, text, previous.doc.ast), [here.resolve()], 1,
                                   Diagnostics())
        return len(bases) == len(previous.bases) and all(
            a.ast is b.ast for a, b in zip(reversed(bases), previous.bases))

    def _relaid(self, doc: Document, info: FileInfo, started: float) -> Analysis:
        """The last analysis, on the new text."""
        previous = doc.analysis
        info.ast = previous.doc.ast
        doc.parser.relaid(doc.state, doc.display)
        doc.state.stats["layout only"] += 1
        analysis = Analysis(doc.uri, doc.version, info, previous.bases, previous.diagnostics, previous.edition,
                            previous.last_edition, index=previous.index)
        analysis.seconds = time.perf_counter() - started
        doc.analysis = analysis
        return analysis

    def _follow_bases(self, loaded, seen: list[Path], files: int, diags: Diagnostics) -> list[LoadedFile]:
        """The bases `loaded` extends, nearest first, as `loader.load_chain` follows them (`files`
        of the chain are read already, `seen` their real paths), each parsed through the cache."""
        bases: list[LoadedFile] = []
        base = loader.next_base(loaded, files, diags)
        while base is not None and not loader.extends_cycle(seen, base.resolve(), loaded, diags):
            loaded = self._parse_base(base, diags)
            if loaded is None:
                break
            bases.append(loaded)
            base = loader.next_base(loaded, files + len(bases), diags)
        return bases

    def _navigation_bases(self, doc: Document, info: FileInfo) -> list[FileInfo]:
        """The bases named in the header of a buffer that does not parse (yet), for hover and go to
        definition only: nothing here is reported."""
        from types import SimpleNamespace

        target = _extended(info.first_tokens(12))
        if target is None:
            return []
        here = doc.path if doc.path is not None else Path.cwd() / "untitled.civ"
        loaded = SimpleNamespace(path=here, ast=SimpleNamespace(
            extends=unquote_string(target.text) if target.kind == "string" else target.text,
            extends_is_path=target.kind == "string", extends_span=None))
        chain = self._follow_bases(loaded, [here.resolve()], 0, Diagnostics())
        return [self._base_info(f) for f in reversed(chain)]

    def _parse_base(self, path: Path, diags: Diagnostics) -> LoadedFile | None:
        """`loader.parse_file`, cached until the file changes on disk."""
        resolved = path.resolve()
        stamp = _stamp(path, resolved)
        hit = self._bases.get(resolved)
        if stamp is None or hit is None or hit[0] != stamp:
            d = Diagnostics()
            loaded = loader.parse_file(path, d)
            info = None
            hit = (stamp, loaded, d.items, d.sources, info)
            if stamp is not None:
                self._bases[resolved] = hit
        _, loaded, items, sources, _ = hit
        diags.items.extend(items)
        diags.sources.update(sources)
        return loaded

    def _base_info(self, loaded: LoadedFile) -> FileInfo:
        resolved = loaded.path.resolve()
        hit = self._bases.get(resolved)
        if hit is None or hit[1] is not loaded:
            return FileInfo.of(loaded)
        if hit[4] is None:  # made once per parse of the base
            hit = self._bases[resolved] = hit[:4] + (FileInfo.of(loaded),)
        return hit[4]

    def invalidate_disk(self) -> None:
        """Forget cached bases (a file was saved or changed on disk)."""
        self._bases.clear()


# --- where each diagnostic is shown


def diagnostics_by_file(analysis: Analysis) -> dict[str, list[tuple[Diagnostic, FileInfo | None, Path | None]]]:
    """Diagnostics grouped by the URI of the file they are about."""
    out: dict[str, list] = {analysis.uri: []}
    by_display = {f.display: f for f in analysis.files}
    for d in analysis.diagnostics.sorted():
        uri, entry = _shown_on(analysis, by_display, d)
        out.setdefault(uri, []).append(entry)
    return out


def _shown_on(analysis: Analysis, by_display: dict[str, FileInfo], d: Diagnostic) -> tuple[str, tuple]:
    """(the URI of the file a diagnostic is shown on, (the diagnostic, its FileInfo, its path)):
    a file of the chain, another file on disk, or the buffer (no span, or no usable file name)."""
    info = by_display.get(d.span.path) if d.span else analysis.doc
    if info is not None and info is not analysis.doc:
        return info.uri, (d, info, info.path)
    uri, path = _file_uri(d.span.path) if info is None else (None, None)
    return (uri, (d, None, path)) if uri else (analysis.uri, (d, analysis.doc, None))


def _file_uri(display: str) -> tuple[str | None, Path]:
    """The URI of a file named in a diagnostic but not open (None: not a usable file name, the
    diagnostic is shown on the buffer), and its path."""
    path = Path(display)
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        return path.resolve().as_uri(), path
    except (OSError, RuntimeError, ValueError):
        return None, path


def diagnostic_range(d: Diagnostic, info: FileInfo | None, text: str | None = None) -> tuple[int, int, int, int]:
    """0-based (line, column, end line, end column) in code points of the file's normalised text."""
    if d.span is None:
        return 0, 0, 0, 0
    line, col = d.span.line - 1, d.span.column - 1
    if d.span.end_column is not None and d.span.end_column > d.span.column:
        return line, col, line, d.span.end_column - 1
    if info is None and text is not None:
        info = FileInfo(text, d.span.path, None)
    if info is not None and 0 <= line < len(info.lines):
        return line, col, line, _end_of_word(info, line, col)
    return line, col, line, col + 1


def _end_of_word(info: FileInfo, line: int, col: int) -> int:
    """Where a diagnostic at (line, col) without an end column ends: with the token starting
    there (on one line), else one character on, not past the line's end (a column already past
    it stays)."""
    offset = info.offset(line, col)
    tok = info.token_starting(offset)
    if tok is not None and info.position(tok.end)[0] == line:
        return info.position(tok.end)[1]
    return max(col, min(col + 1, len(info.lines[line])))


def full_message(d: Diagnostic) -> str:
    lines = [d.message] + [f"note: {n}" for n in d.notes]
    if d.help:
        lines.append(f"help: {d.help}")
    return "\n".join(lines)
