"""`civdsl lsp`: a language server for rulebooks (Language Server Protocol over stdio, pygls).

What an editor gets:

- diagnostics on open and on every change: the same codes, messages and spans as `civdsl check`,
  for any rulebook including house rules (the open buffer is checked; its `extends` chain is read
  from disk, as `check` reads it);
- hover on an advance, calamity, commodity, group, A.S.T. track or epoch name: a one-line summary
  generated from the resolved rules (never the rulebook's prose) and where it is declared across the
  extends chain; on an effect kind, ability, function or player fact: its signature and doc;
- go to definition and find references for every name the index of references knows (advances,
  calamities, commodities, civilizations, groups, constants, tables, options, tracks, epochs,
  editions, and the round rules' stats, flags, choices, thresholds, dice pools, tracks, event
  tables, deck, phases and suit colours), across the extends chain: `civdsl.references`, the index
  the validator uses too; hover on a round name is `civdsl.roundexplain`'s line on it;
- completion of advance, calamity and commodity names inside quotes, of effect kinds, abilities,
  groups, keywords and the other names of the vocabulary: the keywords are the terminals the
  grammar accepts at the cursor (Lark's interactive parser), the names come from the index and the
  resolved rulebook, the kinds from `civdsl.vocabulary`: nothing is listed twice;
- rename of an advance, calamity, commodity, civilization, epoch, group, constant, table, option,
  track or round name: its declarations and uses across the chain, from the same index;
- document formatting through `civdsl.fmt` and an outline (document symbols).

The analysis half of this module does not need pygls: `Engine.analyse` turns a buffer into an
`Analysis` (diagnostics, the resolved edition, the index of references of the chain), and the
benchmark and tests drive it directly as well as over a pipe.

Speed: parsing a large rulebook with Lark takes most of `check`'s time, so the buffer is parsed in
top-level statements (the grammar's `item`s), each parsed on its own and cached by its text. A
statement that moved up or down keeps its parse: its spans are shifted. Any statement that fails
to parse on its own sends the whole buffer through `parser.parse`, so syntax errors are reported
exactly as `check` reports them. The chain's bases are parsed once per change on disk.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple
from urllib.parse import unquote, urlparse

from .. import citations, describe, loader, parser, roundexplain, syntax
from .. import vocabulary as vocab
from .. import fields as item_fields
from ..diagnostics import Diagnostic, Diagnostics, Span, did_you_mean
from ..expressions import unparse
from ..frontend import stopped
from ..gcpause import paused
from ..loader import LoadedFile, display_path
from ..references import ERRATA_TARGETS, NAMING_CALLS, Index, Ref
from ..resolver import resolve
from ..validator import validate

log = logging.getLogger("civdsl.lsp")

# ---------------------------------------------------------------------------------------------
# Tokens: the grammar's own lexer (Lark's, over the grammar's terminals, keywords told from names
# the way the parser tells them), driven line by line so that it works on any text, even text the
# parser rejects: hover, completion and the outline keep working while a file is being typed. No
# token spans a line (strings and comments end at the line's end), so a character no terminal
# matches costs one `error` token and the line goes on; a string still open at the end of its
# line is one `ustring` token.


class Tok(NamedTuple):
    kind: str  # kw, name, string, ustring (unterminated), code, int, op, error
    text: str
    start: int  # offsets into the (normalised) text
    end: int
    type: str = ""  # the grammar's terminal (ADVANCE, NAME, LBRACE, ...); "" for error and ustring


_KINDS = {"NAME": "name", "STRING": "string", "INT": "int", "CODE": "code"}


@functools.lru_cache(maxsize=1)
def _lexer():
    from lark.lexer import BasicLexer

    return BasicLexer(parser._parser().lexer_conf)


def tokenize(text: str, cache: dict | None = None) -> list[Tok]:
    """Every token of the text but whitespace and comments. Lines are lexed one by one; with a
    `cache` (kept by the caller from one edit to the next) only lines that changed are lexed again."""
    out: list[Tok] = []
    append = out.append
    fresh: dict[str, list] = {}
    base = 0
    for line in text.split("\n"):
        entry = fresh.get(line)
        if entry is None:
            entry = cache.get(line) if cache is not None else None
            if entry is None:
                entry = _tokenize_line(line)
            fresh[line] = entry
        for kind, value, start, end, type_ in entry:
            append(Tok(kind, value, base + start, base + end, type_))
        base += len(line) + 1
    if cache is not None:
        cache.clear()
        cache.update(fresh)
    return out


def _tokenize_line(line: str) -> list[tuple[str, str, int, int, str]]:
    from lark.exceptions import UnexpectedCharacters
    from lark.lexer import LexerThread

    keywords = parser.keyword_terminals()
    out: list[tuple[str, str, int, int, str]] = []
    pos = 0
    while pos < len(line):
        try:
            for tok in LexerThread.from_text(_lexer(), line[pos:]).lex(None):
                start = pos + tok.start_pos
                kind = "kw" if tok.type in keywords else _KINDS.get(tok.type, "op")
                out.append((kind, tok.value, start, start + len(tok.value), tok.type))
            break
        except UnexpectedCharacters as exc:
            at = pos + exc.pos_in_stream
            if line[at] == '"':  # a string the line ends inside
                out.append(("ustring", line[at:], at, len(line), ""))
                break
            out.append(("error", line[at], at, at + 1, ""))
            pos = at + 1
    return out


def unquote_string(text: str) -> str:
    body = text[1:-1] if len(text) > 1 and text.endswith('"') and not text.endswith('\\"') else text[1:]

    def unescape(m: re.Match) -> str:
        esc = m.group(1)
        if esc in syntax._ESCAPES:
            return syntax._ESCAPES[esc]
        if esc.startswith("u") and len(esc) == 5:
            return chr(int(esc[1:], 16))
        return esc

    return syntax._ESCAPE_RE.sub(unescape, body)


def quote_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_statements(tokens: list[Tok]) -> list[int]:
    """Token indexes where top-level statements start: a keyword that can begin an `item`, outside
    brackets, after a token that can end one (so `ast track` or `change advance` are not split).
    Index 0 is always included: the header. A wrong guess costs time, never correctness: a piece
    that does not parse on its own sends the text to the whole-file parser."""
    first, last = parser.statement_edges()
    out = [0]
    depth = 0
    prev = None
    for i, t in enumerate(tokens):
        if t.kind == "op":
            depth = max(0, depth + _NESTING.get(t.text, 0))
        elif t.kind == "kw" and depth == 0 and t.type in first and prev is not None and prev.type in last:
            out.append(i)
        prev = t
    return out


# How a bracket changes the depth of nesting.
_NESTING = {"(": 1, "{": 1, ")": -1, "}": -1}


# ---------------------------------------------------------------------------------------------
# Files, positions and the symbol index


@dataclass
class Symbol:
    """A declaration or use of the index of references (references.py), at offsets of its file."""

    kind: str  # advance, calamity, commodity, civilization, group, const, table, option, track, epoch, edition, fact
    name: str
    role: str  # def, ref, change, remove
    start: int  # offsets of the name (a string includes its quotes)
    end: int
    scope: str | None = None  # the track of an epoch
    ref: Ref | None = None


class FileInfo:
    """One file of a chain as the editor sees it: text, line table, tokens and syntax tree."""

    def __init__(self, text: str, display: str, path: Path | None, uri: str | None = None, bom: bool = False,
                 tokens: list[Tok] | None = None, ast: syntax.RulebookAst | None = None):
        self.text = text
        self.display = display
        self.path = path
        self.uri = uri or (path.resolve().as_uri() if path is not None else display)
        self.bom = bom  # the editor's buffer starts with a byte-order mark that the text lacks
        self.lines = text.split("\n")
        starts = [0]
        for line in self.lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        self.line_starts = starts
        self.tokens = tokens if tokens is not None else tokenize(text)
        self.ast = ast  # None while the text does not parse

    @classmethod
    def of(cls, loaded: LoadedFile) -> "FileInfo":
        """A base file of the chain, as loaded from disk."""
        return cls(loaded.text, loaded.display, loaded.path, ast=loaded.ast)

    # positions: (line, column) are 0-based here, columns in code points
    def offset(self, line: int, column: int) -> int:
        if line < 0:
            return 0
        if line >= len(self.lines):
            return len(self.text)
        return self.line_starts[line] + max(0, min(column, len(self.lines[line])))

    def position(self, offset: int) -> tuple[int, int]:
        import bisect

        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line, offset - self.line_starts[line]

    @functools.cached_property
    def _token_starts(self) -> list[int]:
        return [t.start for t in self.tokens]

    def token_at(self, offset: int) -> tuple[int, Tok] | tuple[None, None]:
        """The token under the cursor: the last one starting at or before it, if the cursor is
        inside it or just after it (tokens do not overlap, so no earlier one can hold it)."""
        import bisect

        i = bisect.bisect_right(self._token_starts, offset) - 1
        if i >= 0 and offset <= self.tokens[i].end:
            return i, self.tokens[i]
        return None, None

    def symbol(self, ref: Ref) -> Symbol:
        span = ref.span
        start = self.offset(span.line - 1, span.column - 1)
        end = self.offset(span.line - 1, (span.end_column or span.column) - 1)
        return Symbol(ref.kind, ref.name, ref.role, start, end, ref.scope, ref)


# The kinds of name the editor navigates (a bare name that is none of these is a local: an item
# attribute, a loop variable).
_NAVIGABLE = frozenset({"advance", "calamity", "commodity", "civilization", "group", "const", "table", "option",
                        "track", "epoch", "edition", "fact", "item", *roundexplain.KINDS})


# ---------------------------------------------------------------------------------------------
# Incremental parsing of a buffer

_PREFIX = 'language 1 edition _ ""'  # a header in front of a statement parsed on its own (line 1)


class _Failed(Exception):
    """A statement did not parse on its own; `where` is (offset, line, column, statements before it)."""

    def __init__(self, where: tuple[int, int, int, int] | None = None):
        super().__init__()
        self.where = where


_ATOMS = (str, int, bool, float, type(None))


def _span_refs(root: list) -> list[tuple[Any, Any, tuple[int, ...]]]:
    """Where the spans are inside syntax objects: (container, key, path) with `container[key]` the
    span, or the tuple holding it at `path` (tuples are immutable: their holder is recorded).
    Containers are lists, dicts and the `__dict__` of dataclass objects, which stay put."""
    refs: list = []

    def visit(obj) -> None:
        kind = type(obj)
        if kind is list:
            container, items = obj, enumerate(obj)
        elif kind is dict:
            container, items = obj, obj.items()
        elif hasattr(kind, "__dataclass_fields__"):
            container = obj.__dict__
            items = container.items()
        else:
            return
        for key, value in list(items):
            t = type(value)
            if t is Span:
                refs.append((container, key, ()))
            elif t is tuple:
                visit_tuple(container, key, value, ())
            elif t not in _ATOMS:
                visit(value)

    def visit_tuple(container, key, tup, path) -> None:
        for i, value in enumerate(tup):
            t = type(value)
            if t is Span:
                refs.append((container, key, path + (i,)))
            elif t is tuple:
                visit_tuple(container, key, value, path + (i,))
            elif t not in _ATOMS:
                visit(value)

    visit(root)
    return refs


def _moved(span: Span, delta: int, _new=object.__new__) -> Span:
    """`Span(span.path, span.line + delta, span.column, span.end_column)`, without the cost of a
    frozen dataclass's __init__ (thousands of spans move when a line is inserted)."""
    moved = _new(Span)
    fields = moved.__dict__
    fields.update(span.__dict__)
    fields["line"] = span.line + delta
    return moved


def _retuple(tup: tuple, path: tuple[int, ...], delta: int) -> tuple:
    i = path[0]
    inner = _moved(tup[i], delta) if len(path) == 1 else _retuple(tup[i], path[1:], delta)
    return tup[:i] + (inner,) + tup[i + 1:]


def _shift(refs: list, delta: int) -> None:
    """Move every span found by `_span_refs` `delta` lines, in place."""
    for container, key, path in refs:
        value = container[key]
        container[key] = _moved(value, delta) if not path else _retuple(value, path, delta)


@dataclass
class _Chunk:
    line: int  # 1-based line where the statement was parsed
    items: list  # syntax Items
    diags: list[Diagnostic]
    refs: list | None = None  # where its spans are, found on its first move


class IncrementalParser:
    """Parses one buffer again and again, reusing the parse of every unchanged statement."""

    def __init__(self):
        self.cache: dict[tuple[str, int, str, int], _Chunk] = {}
        self.header: tuple[str, Any] | None = None
        self.stats = {"parsed": 0, "reused": 0, "shifted": 0, "full": 0, "suffix": 0}

    def parse(self, text: str, display: str, tokens: list[Tok], diags: Diagnostics) -> syntax.RulebookAst | None:
        """As `parser.parse` then `syntax.to_syntax` (see `loader.parse_file`), with the same diagnostics."""
        if not parser._check_limits(text, display, diags):
            return None
        try:
            return self._incremental(text, display, tokens, diags)
        except _Failed as exc:
            if exc.where is not None and self._errors_from(text, display, diags, *exc.where):
                self.stats["suffix"] += 1
                return None
        except RecursionError:
            pass
        self.stats["full"] += 1
        return loader.parse_text(text, display, diags)

    @staticmethod
    def _errors_from(text: str, display: str, diags: Diagnostics, start: int, line: int, col: int,
                     before: int) -> bool:
        """Report the syntax error of the text from a statement boundary on, as `parser.parse` reports
        it for the whole text, when everything before the boundary is known to parse.

        Between two statements the LALR parser is in one of two states (no statement yet, or some),
        so a header (and one note, when statements precede) padded with blank lines to the same line
        and column, followed by the rest of the text, replays the whole file's parse from that point:
        the same first error at the same position. False when that parse finds no syntax error."""
        if line < 2:
            return False
        padded = _PREFIX + (' note ""' if before else "") + "\n" * (line - 1) + " " * (col - 1) + text[start:]
        found = _syntax_errors(padded, display)
        diags.items.extend(found)
        return bool(found)

    def _incremental(self, text, display, tokens, diags):
        marks = split_statements(tokens)
        bounds = [tokens[m].start for m in marks[1:]] + [len(text)]
        head, header, head_diags = self._header(text[: bounds[0]], display)  # all before the first statement
        items: list = []
        found: list[Diagnostic] = list(head_diags)
        fresh: dict[tuple[str, int, str, int], _Chunk] = {}
        copies: dict[tuple[str, int, str], int] = {}  # the copies of each statement's text so far
        line_of = _LineCounter(text)
        for k in range(1, len(marks)):
            chunk = self._statement(text[tokens[marks[k]].start:bounds[k]], tokens[marks[k]].start, k - 1, display,
                                    line_of, fresh, copies)
            items.extend(chunk.items)
            found.extend(chunk.diags)
        self.cache = fresh
        diags.items.extend(found)
        return syntax.rulebook_ast(display, head, header, items)

    def _header(self, head_text: str, display: str) -> tuple[Any, Any, list[Diagnostic]]:
        """The `language` line and the header, parsed (or as parsed last time): the language,
        the header and their diagnostics."""
        if self.header is None or self.header[0] != head_text + "\0" + display:
            d = Diagnostics()
            head, header, _ = syntax._ToSyntax(display, d).transform(_lark_tree(head_text))
            self.header = (head_text + "\0" + display, (head, header, d.items))
        return self.header[1]

    def _statement(self, chunk_text: str, start: int, before: int, display: str, line_of: "_LineCounter",
                   fresh: dict, copies: dict) -> _Chunk:
        """The parse of one top-level statement (at offset `start`, `before` statements before it),
        reused from the last edit when its text is the same, else parsed now; kept in `fresh`."""
        line, col = line_of(start)
        # the same statement twice: each copy has its own syntax objects, numbered by a count kept
        # per text (probing 0, 1, 2, ... would make N copies cost N^2 / 2 probes)
        same = (display, col, chunk_text)
        key = same + (copies.get(same, 0),)
        copies[same] = key[3] + 1
        chunk = self.cache.get(key)
        if chunk is None:
            try:
                chunk = self._parse_chunk(chunk_text, line, col, display)
            except _Failed:
                self.cache.update(fresh)  # keep what did parse, for the next edit
                raise _Failed((start, line, col, before))
        else:
            self._reuse(chunk, line)
        fresh[key] = chunk
        return chunk

    def _reuse(self, chunk: _Chunk, line: int) -> None:
        """A statement parsed before, now at `line`: when it moved, its cached syntax objects (this
        document's own) are shifted there."""
        if chunk.line == line:
            self.stats["reused"] += 1
            return
        if chunk.refs is None:
            chunk.refs = _span_refs([chunk.items, chunk.diags])
        _shift(chunk.refs, line - chunk.line)
        chunk.line = line
        self.stats["shifted"] += 1

    def _parse_chunk(self, chunk_text: str, line: int, col: int, display: str) -> _Chunk:
        if line < 2:
            raise _Failed
        tree = _lark_tree(_PREFIX + "\n" * (line - 1) + " " * (col - 1) + chunk_text)
        d = Diagnostics()
        _, _, items = syntax._ToSyntax(display, d).transform(tree)
        self.stats["parsed"] += 1
        return _Chunk(line, items, d.items)


def _syntax_errors(text: str, display: str) -> list[Diagnostic]:
    """The diagnostics of the whole-file parse of `text` when it fails with syntax errors only
    (CIV001, CIV002); else none."""
    scratch = Diagnostics()
    try:
        tree = parser.parse(text, display, scratch)
    except RecursionError:
        return []
    found = [d for d in scratch.items if d.code in ("CIV001", "CIV002")]
    return found if tree is None and len(found) == len(scratch.items) else []


def _lark_tree(text: str):
    """Lark's tree of a piece of a buffer; _Failed when it does not parse, or when `parser.parse`
    would refuse it as nested too deeply (that is reported from the whole file's tree)."""
    try:
        tree = parser._parser().parse(text)
    except Exception:
        raise _Failed
    if _too_deep(tree):
        raise _Failed
    return tree


def _too_deep(tree) -> bool:
    """Whether `parser.parse` would refuse this tree as nested too deeply. A statement parsed under a
    header is refused here when it, or the file's root above it, would be refused in the whole file."""
    check = getattr(parser, "_too_deep", None)
    return check is not None and check(tree) is not None


class _LineCounter:
    """1-based (line, column) of increasing offsets, in one pass over the text."""

    def __init__(self, text: str):
        self.text = text
        self.offset = 0
        self.line = 1
        self.line_start = 0

    def __call__(self, offset: int) -> tuple[int, int]:
        if offset < self.offset:
            self.offset, self.line, self.line_start = 0, 1, 0
        count = self.text.count("\n", self.offset, offset)
        if count:
            self.line += count
            self.line_start = self.text.rfind("\n", self.offset, offset) + 1
        self.offset = offset
        return self.line, offset - self.line_start + 1


# ---------------------------------------------------------------------------------------------
# The engine: documents, the extends chain, analyses


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
            self._symbols[at] = [f.symbol(r) for r in self.refs().refs if r.file == at and r.kind in _NAVIGABLE]
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
    line_tokens: dict = field(default_factory=dict)  # tokenize()'s cache
    refs_memo: dict = field(default_factory=dict)  # references.Index's, per statement
    published: set[str] = field(default_factory=set)


def _checked(chain: list[LoadedFile], diags: Diagnostics, memo: dict) -> tuple[Any, Index | None]:
    """Passes 3 and 4 on a chain that loaded: (the edition, the index of references), or
    (None, None) when it does not resolve; `memo` is the document's index memo."""
    edition = resolve(chain, diags)
    if edition is None:
        return None, None
    index = Index((f.ast for f in chain), memo)
    validate(edition, diags, index)
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
    def analyse(self, doc: Document) -> Analysis:
        with self.lock, paused():  # see gcpause: the collector finds nothing here but costs time
            started = time.perf_counter()
            diags = Diagnostics()
            raw = doc.text
            text, doc_info, chain = self._load_chain(doc, raw, diags)
            edition, index = _checked(chain, diags, doc.refs_memo) if chain and not stopped(diags) else (None, None)
            if chain:
                bases = doc.last_bases = [self._base_info(f) for f in chain[:-1]]
            else:
                bases = doc.last_bases or self._navigation_bases(doc, doc_info)
            doc.last_edition = edition or doc.last_edition
            analysis = Analysis(doc.uri, doc.version, doc_info, bases, diags, edition, doc.last_edition, index=index)
            analysis.seconds = time.perf_counter() - started
            doc.analysis = analysis
            return analysis

    def _load_chain(self, doc: Document, raw: str, diags: Diagnostics) -> tuple[str, FileInfo, list[LoadedFile]]:
        """As `loader.load_chain`, with the first file read from the editor's buffer."""
        display = doc.display
        bom = raw.startswith("\ufeff")
        text = parser.normalise(raw)
        tokens = tokenize(text, doc.line_tokens)
        info = FileInfo(text, display, doc.path, doc.uri, bom, tokens)
        chain: list[LoadedFile] = []
        size = len(raw.encode("utf-8", errors="surrogatepass"))
        if size > parser.MAX_BYTES:
            diags.error("CIV005", f"{display} is {size:,} bytes; the limit is {parser.MAX_BYTES:,}",
                        Span(display, 1, 1))
            return text, info, chain
        if "\0" in text:
            prefix = text[: text.index("\0")]
            line = prefix.count("\n") + 1
            diags.error("CIV004", "the file contains a NUL character",
                        Span(display, line, len(prefix) - (prefix.rfind("\n") + 1) + 1))
            return text, info, chain
        diags.add_source(display, text)
        ast = info.ast = doc.parser.parse(text, display, tokens, diags)
        if ast is None:
            return text, info, chain
        loader.check_language(ast, diags)
        here = doc.path if doc.path is not None else Path.cwd() / (Path(display).name or "untitled.civ")
        loaded = LoadedFile(here, display, text, ast)
        chain.append(loaded)
        chain += self._follow_bases(loaded, [here.resolve()], 1, diags)
        chain.reverse()
        return text, info, chain

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

        target = _extended(info.tokens[:12])
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


# ---------------------------------------------------------------------------------------------
# Features, as plain data: the server turns these into LSP messages.


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
    _, tok = info.token_at(offset)
    if tok is not None and tok.start == offset and info.position(tok.end)[0] == line:
        return info.position(tok.end)[1]
    return max(col, min(col + 1, len(info.lines[line])))


def full_message(d: Diagnostic) -> str:
    lines = [d.message] + [f"note: {n}" for n in d.notes]
    if d.help:
        lines.append(f"help: {d.help}")
    return "\n".join(lines)


# --- finding things: the index of references answers, across the chain


@dataclass
class Target:
    kind: str
    name: str
    scope: str | None
    symbol: Symbol


def target_at(analysis: Analysis, offset: int) -> Target | None:
    sym = analysis.symbol_at(offset)
    return None if sym is None else Target(sym.kind, sym.name, sym.scope, sym)


def definitions(analysis: Analysis, target: Target) -> list[tuple[FileInfo, Symbol]]:
    """Where the thing is declared, the declaration in force first (the nearest file of the chain)."""
    if target.kind == "edition" and target.symbol.role == "ref":
        return _base_header(analysis)
    if target.kind == "edition":
        return [(analysis.doc, target.symbol)]
    return [analysis.located(r) for r in analysis.refs().declarations(target.kind, target.name, target.scope)]


def _base_header(analysis: Analysis) -> list[tuple[FileInfo, Symbol]]:
    """What `extends X` names: the header of the base file (X may be a path)."""
    return [(f, s) for f in analysis.bases[-1:] for s in analysis.symbols(f) if s.kind == "edition" and s.role == "def"]


def references(analysis: Analysis, target: Target, include_declaration: bool = True) -> list[tuple[FileInfo, Symbol]]:
    if target.kind == "edition":  # an edition: its header (see definitions)
        return definitions(analysis, target) if include_declaration else []
    return [analysis.located(r) for r in analysis.refs().named(target.kind, target.name, target.scope)
            if include_declaration or r.role != "def"]


# Names written as strings (their span holds the quotes) and as bare identifiers; the others (player
# facts, editions) are not the rulebook's to rename.
_STRING_NAMED = frozenset({"advance", "calamity", "commodity", "civilization", "epoch"})
_WORD_NAMED = frozenset({"group", "const", "table", "option", "track", *roundexplain.KINDS})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def rename_edits(analysis: Analysis, offset: int, new_name: str) -> list[tuple[FileInfo, int, int, str]] | None:
    """Every declaration and use of the name under the cursor, across the chain, written anew:
    (file, start, end, new text). None where nothing renamable is; ValueError for a new name that
    cannot stand where the old one does (a constant's must be an identifier and no keyword)."""
    target = target_at(analysis, offset)
    if target is None or target.kind not in _STRING_NAMED | _WORD_NAMED:
        return None
    _check_new_name(analysis, target, new_name)
    text = _written(target.kind, new_name)
    if len(text) > parser.MAX_LINE:
        raise ValueError(f"a name of {len(new_name):,} characters is longer than a line may be "
                         f"({parser.MAX_LINE:,} characters)")
    return [(f, s.start, s.end, text) for f, s in references(analysis, target)]


def _check_new_name(analysis: Analysis, target: Target, new_name: str) -> None:
    """ValueError for a new name no rulebook should hold: empty, with a control character (a line
    break, NUL or ESC would be written raw into every file renamed), or another item's name."""
    import unicodedata

    if not new_name.strip():
        raise ValueError("a new name cannot be empty")
    bad = next((c for c in new_name if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp")), None)
    if bad is not None:
        raise ValueError(f"a name cannot hold the control character U+{ord(bad):04X}")
    if new_name != target.name and analysis.index is not None and new_name in analysis.index.names(target.kind):
        article = "an" if target.kind[0] in "aeiou" else "a"
        raise ValueError(f"there is already {article} {target.kind} named `{new_name}`")


def _written(kind: str, new_name: str) -> str:
    """A new name as a rulebook writes a name of this kind: quoted, or as it is when it is an
    identifier and no keyword (ValueError otherwise)."""
    if kind in _STRING_NAMED:
        return quote_string(new_name)
    if _IDENTIFIER.fullmatch(new_name) and new_name not in parser.keywords():
        return new_name
    raise ValueError(f"`{new_name}` cannot name a {kind}: write a name of letters, digits and `_` that is no keyword")


def _where(f: FileInfo, s: Symbol) -> str:
    return f"{f.display}:{f.position(s.start)[0] + 1}"


def advance_summary(adv, edition) -> str:
    vp = adv.vp if adv.vp is not None else edition.tier_vp(adv.cost)
    bits = ["cost unknown" if adv.cost is None else f"cost {adv.cost}",
            _listed("groups" if len(adv.groups) > 1 else "group", adv.groups),
            f"{vp} VP" if vp is not None else "",
            _listed("credits", [f"{g} {n}" for g, n in adv.credits.items()]),
            *[f"credit {sc.amount} to {sc.target}" for sc in adv.specific],
            _listed("requires", adv.requires),
            f"supply {adv.supply}" if adv.supply is not None else "",
            *[describe.ability(ab.kind, ab.args) for ab in adv.abilities]]
    return "; ".join(b for b in bits if b)


def _listed(head: str, items) -> str:
    """`head a, b, c`; nothing for no items."""
    return f"{head} {', '.join(items)}" if items else ""


def calamity_summary(cal, edition=None) -> str:
    head = ", ".join(x for x in (f"stack {cal.stack}" if cal.stack is not None else None, cal.klass,
                                 f"beneficiary: {describe.beneficiary(cal, edition)}"
                                 if cal.beneficiary and cal.beneficiary != "none" else None) if x)
    return f"({head}) {describe.calamity(cal)}" if head else describe.calamity(cal)


def hover_text(analysis: Analysis, offset: int) -> tuple[str, Symbol | Tok] | None:
    """Markdown for the thing under the cursor, and the token it is about."""
    target = target_at(analysis, offset)
    if target is not None and target.kind == "edition":
        return _edition_hover(analysis, target)
    if target is not None:
        return _target_hover(analysis, target), target.symbol
    return _word_hover(analysis, offset)


def _edition_hover(analysis: Analysis, target: Target) -> tuple[str, Symbol] | None:
    defs = definitions(analysis, target)
    if not defs:
        return None
    info, sym = defs[0]
    tokens = [t for t in info.tokens if t.start > sym.start][:1]
    title = unquote_string(tokens[0].text) if tokens and tokens[0].kind == "string" else ""
    return f"**{sym.name}** (edition) {title}".rstrip() + f"\n\n`{info.display}`", target.symbol


# Names the vocabulary or the rulebook's header statements declare, hovered with their own text.
_WORD_KINDS = ("const", "table", "option", "fact")
# A kind of name in words, where it is not its own word.
_KIND_WORDS = {"track": "A.S.T. track", **roundexplain.KIND_WORDS}


def _target_hover(analysis: Analysis, target: Target) -> str:
    """What the thing is (from the resolved rules or the vocabulary), then where the chain declares
    it, or that nothing does."""
    edition = analysis.edition or analysis.last_edition
    if target.kind in _WORD_KINDS:
        lines = [vocabulary_hover(target.name, edition) or f"**{target.name}** ({target.kind})"]
    else:
        lines = [f"**{target.name}** ({_KIND_WORDS.get(target.kind, target.kind)})"]
        lines += _describe_target(edition, target)
    defs = definitions(analysis, target)
    if defs:
        lines.append(_declared_where(analysis, target, defs))
    elif target.kind not in ("track", "epoch", "fact"):
        best = did_you_mean(target.name, analysis.refs().names(target.kind))
        lines.append(f"no {target.kind} `{target.name}` is declared in this rulebook or its bases"
                     + (f"; did you mean `{best}`?" if best else ""))
    return "\n\n".join(lines)


def _declared_where(analysis: Analysis, target: Target, defs: list[tuple[FileInfo, Symbol]]) -> str:
    """Where the declaration in force is, the declarations of earlier files it replaces, the others
    of its own file (a colour of two suits) and the `change`s of the chain."""
    def places(found) -> str:
        return ", ".join(f"`{_where(f, s)}`" for f, s in found)

    here = defs[0][0]
    changes = [analysis.located(r) for r in analysis.refs().named(target.kind, target.name, target.scope)
               if r.role == "change"]
    parts = (("defined at", defs[:1]), ("also at", [d for d in defs[1:] if d[0] is here]),
             ("replacing", [d for d in defs[1:] if d[0] is not here]), ("changed at", changes))
    return "; ".join(f"{words} {places(found)}" for words, found in parts if found)


def _word_hover(analysis: Analysis, offset: int) -> tuple[str, Tok] | None:
    """A keyword (a field of the enclosing item: what fields.ITEM_FIELDS says of it) or a word
    of the vocabulary."""
    i, tok = analysis.doc.token_at(offset)
    if tok is None or tok.kind not in ("name", "kw"):
        return None
    found = _field_at(analysis.doc.tokens, i) if tok.kind == "kw" else None
    if found is not None:
        return field_hover(*found), tok
    text = vocabulary_hover(tok.text, analysis.edition or analysis.last_edition)
    return (text, tok) if text else None


def _field_at(toks: list[Tok], i: int) -> tuple[str, Any] | None:
    """(item kind, field) of the keyword at token i when it is a field (fields.ITEM_FIELDS) of the
    item whose block it stands in."""
    kind = next((t.text for t in _block_opener(toks, i) if t.kind == "kw" and t.text in item_fields.ITEM_FIELDS), "")
    spec = next((f for f in item_fields.ITEM_FIELDS.get(kind, ()) if f.word == toks[i].text), None)
    return (kind, spec) if spec is not None else None


def field_hover(kind: str, spec) -> str:
    """A field's hover: its meaning, what it holds and names, and what a house rule's `change` does."""
    lines = [f"**{spec.word}** ({kind} field: {spec.words})", spec.doc,
             f"holds {spec.type}" + (f", naming {spec.references}" if spec.references else "")
             + ("; may be given more than once" if spec.repeatable else "; given at most once")]
    if spec.change is not None:
        lines.append(f"in a `change`: {item_fields.CHANGES[spec.change]}")
    return "\n\n".join(lines)


def _describe_target(edition, target: Target) -> list[str]:
    describe_kind = _DESCRIBE.get(target.kind)
    return describe_kind(edition, target) if edition is not None and describe_kind is not None else []


def _describe_advance(edition, target: Target) -> list[str]:
    adv = edition.advances.get(target.name)
    if adv is None:
        return []
    return [advance_summary(adv, edition)] + ([f"*{adv.summary}*"] if adv.summary else []) + _rulings_hover(edition,
                                                                                                       adv.name)


def _describe_calamity(edition, target: Target) -> list[str]:
    cal = edition.calamities.get(target.name)
    if cal is None:
        return []
    modifiers = ["\n".join(f"- {describe.modifier(m)}" for m in cal.modifiers)] if cal.modifiers else []
    return [calamity_summary(cal, edition)] + modifiers + _rulings_hover(edition, cal.name)


def _rulings_hover(edition, name: str) -> list[str]:
    """The rulings about an item, a line each: question, expected answer, citation."""
    from .. import escape, rulings

    found = [rulings.summary(r) for r in rulings.rulings_of(edition, name)]
    if not found:
        return []
    return ["Rulings:\n" + "\n".join(f"- {escape.markdown(s['question'])} {escape.markdown(s['answer'])} "
                                     f"({escape.markdown(s['cited'])})" for s in found)]


def _describe_commodity(edition, target: Target) -> list[str]:
    com = edition.commodities.get(target.name)
    if com is None:
        return []
    bits = [words.format(getattr(com, attr)) for attr, words in _COMMODITY_WORDS if getattr(com, attr) is not None]
    if com.block:
        bits.append(f"block {com.block}")
    return ["; ".join(bits)]


# What hover says of a commodity's fields that it has, in order.
_COMMODITY_WORDS = (("value", "value {}"), ("count", "{} cards"), ("stack", "stack {}"))


def _describe_group(edition, target: Target) -> list[str]:
    g = edition.groups.get(target.name)
    if g is None:
        return []
    members = [a.name for a in edition.advances.values() if target.name in a.groups]
    deco = " ".join(x for x in (g.symbol, f"`{g.color}`" if g.color else None) if x)
    return [f"\"{g.name}\" {deco}".rstrip() + f"; {len(members)} advance{'s' if len(members) != 1 else ''}"]


def _describe_track(edition, target: Target) -> list[str]:
    t = edition.asts.get(target.name)
    return [f"\"{t.name}\": " + " → ".join(e.name for e in t.epochs)] if t is not None else []


def _describe_epoch(edition, target: Target) -> list[str]:
    t = edition.asts.get(target.scope)
    names = [e.name for e in t.epochs] if t is not None else []
    if target.name not in names:
        return []
    at = names.index(target.name)
    reqs = "; ".join(r.why or describe.condition(r.expr) for r in t.epochs[at].requirements) or "no requirements"
    return [f"epoch {at + 1} of {len(t.epochs)} on `{t.id}`: {reqs}"]


def _describe_round(edition, target: Target) -> list[str]:
    line = roundexplain.summary(edition, target.kind, target.name)
    return [line] if line is not None else []


_DESCRIBE = {"advance": _describe_advance, "calamity": _describe_calamity, "commodity": _describe_commodity,
             "group": _describe_group, "track": _describe_track, "epoch": _describe_epoch,
             **dict.fromkeys(roundexplain.KINDS, _describe_round)}


def _signature(kind: vocab.Kind) -> str:
    params = ", ".join(p.name if p.required else f"{p.name}={p.default}" for p in kind.params)
    return f"{kind.name}({params})"


def _call_signature(f) -> str:
    """A function of the vocabulary as it is called: `count(items, group=)`."""
    return f"{f.name}({', '.join(list(f.args) + [k + '=' for k in f.kwargs])})"


# What hover says about a word of the language, by the vocabulary table that declares it (the
# first table holding the word wins, in this order).
_VOCABULARY_HOVERS = (
    (vocab.EFFECT_KINDS, lambda word, k: f"**{_signature(k)}** (effect kind)\n\n{k.doc}"),
    (vocab.ABILITY_KINDS, lambda word, k: f"**{_signature(k)}** (ability)\n\n{k.doc}"),
    (vocab.FUNCTIONS, lambda word, f: f"**{_call_signature(f)}** (function)\n\n{f.doc}"),
    (vocab.FACTS, lambda word, f: f"**{f.name}** (player fact, {f.type})\n\n{f.doc}"),
    (vocab.DERIVED_NAMES, lambda word, doc: f"**{word}** (derived name)\n\n{doc}"),
    (vocab.CREDIT_POLICIES, lambda word, doc: f"**{word}** (credit policy)\n\n{doc}"),
    (vocab.BENEFICIARIES, lambda word, doc: f"**{word}** (beneficiary)\n\n{doc}"),
)


def vocabulary_hover(word: str, edition=None) -> str | None:
    for table, say in _VOCABULARY_HOVERS:
        if word in table:
            return say(word, table[word])
    return _edition_word_hover(word, edition) if edition is not None else None


def _edition_word_hover(word: str, edition) -> str | None:
    """A constant, table or option the rulebook declares, with its value and doc."""
    for pool, say in _EDITION_WORDS:
        declared = getattr(edition, pool).get(word)
        if declared is not None:
            return say(word, declared)
    return None


def _paragraphs(*texts: str | None) -> str:
    return "\n\n".join(t for t in texts if t)


def _const_hover(word: str, c) -> str:
    value = c.value if c.value is not None else unparse(c.expr)
    engine = vocab.ENGINE_NAMES.get(word)
    return _paragraphs(f"**{word}** = {value} (constant)", c.doc,
                       f"read by the engine: {engine.doc}" if engine is not None else None)


def _table_hover(word: str, t) -> str:
    bands = ", ".join(f"{b.low}..{'' if b.high is None else b.high}: {unparse(b.value)}" for b in t.bands)
    return _paragraphs(f"**{word}** (table) {{ {bands} }}", t.doc)


def _option_hover(word: str, o) -> str:
    return _paragraphs(f"**{word}** (option, {'on' if o.on else 'off'})", o.doc)


# The rulebook's own words hover shows, by the edition's pool declaring them (first match first).
_EDITION_WORDS = (("consts", _const_hover), ("tables", _table_hover), ("options", _option_hover))


# --- completion


@dataclass
class Completion:
    label: str
    kind: str  # keyword, effect, ability, function, fact, name, group, advance, calamity, commodity, value, edition
    detail: str | None = None
    doc: str | None = None
    insert: str | None = None
    replace: tuple[int, int] | None = None  # offsets in the document replaced by `insert`


# What a string names, by the word before it (or before the list `"A", "B", ` it ends): an item
# kind's own keyword (`change advance "`), a field whose value names an advance (fields.ITEM_FIELDS
# `references`), a call whose argument names an item (references.py), an errata's target.
_STRING_NAMES = {**{k: k for k in ERRATA_TARGETS},
                 **{f.word: f.references for fs in item_fields.ITEM_FIELDS.values() for f in fs
                    if f.references == "advance"}}


def string_context(toks: list[Tok], i: int) -> str | None:
    """What the string token at index i names, from the tokens before it."""
    j = _before_strings(toks, i - 1)
    if j < 0:
        return None
    prev, before = toks[j], toks[j - 1].text if j >= 1 else ""
    if prev.text == "(":
        return NAMING_CALLS.get(before)
    if prev.kind == "code":
        return "item" if before == "errata" else None
    return _STRING_NAMES.get(prev.text) if prev.kind == "kw" else None


def _before_strings(toks: list[Tok], j: int) -> int:
    """The token before a list `"A", "B", ` ending at token j (j itself when there is none)."""
    while j >= 1 and toks[j].text == "," and toks[j - 1].kind == "string":
        j -= 2
    return j


def _pool(edition, kind: str) -> dict:
    if edition is None:
        return {}
    return {"advance": edition.advances, "calamity": edition.calamities, "commodity": edition.commodities,
            "group": edition.groups}.get(kind, {})


def _known_names(analysis: Analysis, kind: str) -> dict[str, str | None]:
    """Declared names of a kind across the chain (the index of references, and the resolved
    rulebook), less those a house rule removed, with a detail line."""
    edition = analysis.edition or analysis.last_edition
    names: dict[str, str | None] = {}
    for k in (ERRATA_TARGETS if kind == "item" else (kind,)):
        for name, detail in _names_of_kind(analysis.refs(), edition, k).items():
            names.setdefault(name, detail)
    return names


def _names_of_kind(index: Index, edition, kind: str) -> dict[str, str]:
    """The names of one kind the chain declares and the rulebook still holds, with a detail line
    (without a resolved rulebook: every name declared)."""
    pool = _pool(edition, kind)
    removed = {r.name for r in index.of_kind(kind, role="remove")} if edition is not None else set()
    return {name: _detail(kind, pool.get(name), edition) for name in index.names(kind) | set(pool)
            if name in pool or name not in removed}


def _detail(kind: str, obj, edition) -> str:
    """The detail line of a completed name: an advance's summary, a calamity's stack and class."""
    say = _DETAILS.get(kind)
    return say(obj, edition) if obj is not None and say is not None else kind


def _advance_detail(adv, edition) -> str:
    return f"advance: {advance_summary(adv, edition)}"


def _calamity_detail(cal, edition) -> str:
    return f"calamity: {', '.join(x for x in (f'stack {cal.stack}', cal.klass) if x)}"


_DETAILS = {"advance": _advance_detail, "calamity": _calamity_detail}


def _effect_word(word: str) -> Completion:
    k = vocab.EFFECT_KINDS[word]
    return Completion(word, "effect", _signature(k), k.doc)


def _ability_word(word: str) -> Completion:
    k = vocab.ABILITY_KINDS[word]
    return Completion(word, "ability", _signature(k), k.doc)


def _function_word(word: str) -> Completion:
    f = vocab.FUNCTIONS[word]
    return Completion(word, "function", _call_signature(f), f.doc)


def _fact_word(word: str) -> Completion:
    """A player fact, or a name derived from the facts."""
    f = vocab.FACTS.get(word)
    if f is None:
        return Completion(word, "fact", "derived name", vocab.DERIVED_NAMES.get(word))
    return Completion(word, "fact", f"player fact ({f.type})", f.doc)


# How each kind of word of the vocabulary is offered: its signature or type, and its doc.
_WORD_COMPLETIONS = {"effect": _effect_word, "ability": _ability_word, "function": _function_word, "fact": _fact_word}


def _vocab_completions(words: Iterable[str], kind: str) -> list[Completion]:
    return [_WORD_COMPLETIONS[kind](w) for w in words]


def _block_opener(toks: list[Tok], upto: int) -> list[Tok]:
    """The tokens that open the innermost `{` enclosing token index `upto`: from the statement
    keyword owning the block (_BLOCK_OWNERS), not past another brace."""
    j = _open_brace(toks, upto)
    if j is None:
        return []
    k = j - 1
    while k >= 0 and not (toks[k].kind == "kw" and toks[k].text in _BLOCK_OWNERS):
        if toks[k].kind == "op" and toks[k].text in "{}":
            break
        k -= 1
    return toks[max(k, 0): j]


def _open_brace(toks: list[Tok], upto: int) -> int | None:
    """The index of the innermost `{` before token `upto` that is still open there."""
    depth = 0
    for j in range(upto - 1, -1, -1):
        t = toks[j]
        if t.kind != "op":
            continue
        if t.text == "{" and depth == 0:
            return j
        depth += _BRACES_BACKWARDS.get(t.text, 0)
    return None


# Walking back: a `}` opens a block to skip, its `{` closes it.
_BRACES_BACKWARDS = {"}": 1, "{": -1}


# The keywords whose statement owns a block that completion and hover look into.
_BLOCK_OWNERS = frozenset({"primary", "secondary", "if", "else", "when", "advance", "calamity", "commodity", "ast",
                           "epoch", "score", "tiers", "table", "change"})


# The field words whose values name a group (`groups`, `credits`): from fields.ITEM_FIELDS.
_GROUP_FIELDS = frozenset(f.word for fs in item_fields.ITEM_FIELDS.values() for f in fs if f.references == "group")
_EFFECT_WORDS = ("add", "prevent", "set", "cap", "replace", "with")  # an effect kind comes next
_DECLARING = ("group", "ast", "const", "table", "option", "edition")  # a new name comes next


def _groups(analysis: Analysis) -> list[Completion]:
    return [Completion(g, "group") for g in sorted(_known_names(analysis, "group"))]


def _round_names(*kinds: str) -> Callable[[Analysis], list[Completion]]:
    """The names of these kinds the round rules declare (the index of references), in words."""
    def names(analysis: Analysis) -> list[Completion]:
        index = analysis.refs()
        return [Completion(n, "name", roundexplain.KIND_WORDS[k]) for k in kinds for n in sorted(index.names(k))]
    return names


# The round rules' names an expression reads (dice pools and event tables are rolled, not read).
_ROUND_VALUES = _round_names("stat", "flag", "choice", "threshold", "round_track")


def _editions(analysis: Analysis) -> list[Completion]:
    from ..resources import shipped_rulebooks

    return [Completion(e, "edition") for e in shipped_rulebooks()]


# Where the grammar accepts a name, the word before it says which names: {word: completions}.
_AFTER_KEYWORD: dict[str, Callable[[Analysis], list[Completion]]] = {
    "ability": lambda a: _vocab_completions(vocab.ABILITY_KINDS, "ability"),
    **{w: (lambda a: _vocab_completions(vocab.EFFECT_KINDS, "effect")) for w in _EFFECT_WORDS},
    **{w: _groups for w in _GROUP_FIELDS},
    "beneficiary": lambda a: [Completion(b, "value", d) for b, d in vocab.BENEFICIARIES.items()],
    "policy": lambda a: [Completion(b, "value", d) for b, d in vocab.CREDIT_POLICIES.items()],
    "exclude": lambda a: [Completion(r, "value") for r in vocab.EXCLUDE_ROLES] + [Completion("when", "keyword")],
    "extends": _editions,
    **{w: (lambda a: []) for w in _DECLARING},
}
# A round statement's target (rounds/grammar.lark), by its keyword: inside the round rules `set`
# and `add` name a stat, flag or track (elsewhere an effect kind follows them).
_ROUND_TARGETS: dict[str, Callable[[Analysis], list[Completion]]] = {
    "set": _round_names("stat", "flag", "round_track"), "add": _round_names("stat"),
    "roll": _round_names("pool", "event_table"), "move": _round_names("round_track"),
    "reset": _round_names("round_track", "stat", "flag")}
# The top-level statements that hold round statements.
_ROUND_BLOCKS = frozenset({"phase", "setup", "threshold", "track", "event_table"})
# After `key =` in a call: the values that parameter takes.
_AFTER_EQUALS: dict[str, Callable[[Analysis], list[Completion]]] = {
    "group": _groups,
    "color": _round_names("color"),
    "roll x =": _round_names("pool"),
    "area": lambda a: [Completion(x, "value") for x in vocab.AREAS],
    "chooser": lambda a: [Completion(x, "value") for x in vocab.CHOOSERS],
    "to": lambda a: [Completion(x, "value") for x in vocab.EFFECT_KINDS["give_cards"].param("to").choices],
}


def completions(analysis: Analysis, offset: int) -> list[Completion]:
    """What may be written at the cursor: keywords are the terminals the grammar accepts there
    (Lark's interactive parser, run over the statement up to the cursor), names come from the
    index of references and the resolved rulebook, words of the vocabulary from vocabulary.py."""
    doc = analysis.doc
    i, tok = doc.token_at(offset)
    if _in_string(tok, offset):
        return _string_completions(analysis, i, tok, offset)
    prev_i, cut = _before_word(doc, i, tok, offset)
    named = _names_after(analysis, doc.tokens, prev_i)
    if named is not None:
        return named
    accepted = _acceptable(doc, prev_i, cut)
    if accepted is None:  # the statement does not parse up to here: everything that could be meant
        return _everything(analysis)
    return _from_grammar(analysis, doc.tokens, prev_i, accepted)


def _in_string(tok: Tok | None, offset: int) -> bool:
    """Whether the cursor is inside a string: after its opening quote, before its closing one."""
    return tok is not None and tok.kind in ("string", "ustring") and tok.start < offset and (
        tok.kind == "ustring" or offset < tok.end)


def _string_completions(analysis: Analysis, i: int, tok: Tok, offset: int) -> list[Completion]:
    what = string_context(analysis.doc.tokens, i)
    if what is None:
        return []
    closed = tok.kind == "string"
    replace = (tok.start + 1, tok.end - 1 if closed else max(offset, tok.end))
    return [Completion(name, what if what != "item" else "advance", detail, None,
                       name.replace("\\", "\\\\").replace('"', '\\"') + ("" if closed else '"'), replace)
            for name, detail in sorted(_known_names(analysis, what).items())]


def _before_word(doc: FileInfo, i: int | None, tok: Tok | None, offset: int) -> tuple[int, int]:
    """(the token before the word being written at the cursor, where that word starts): the word
    is the name or keyword the cursor is in or at the end of, else nothing yet."""
    if tok is not None and tok.kind in ("name", "kw") and tok.start < offset <= tok.end:
        return i - 1, tok.start
    return _token_before(doc, i, tok, offset), offset


def _token_before(doc: FileInfo, i: int | None, tok: Tok | None, offset: int) -> int:
    import bisect

    if tok is not None and tok.end <= offset:
        return i
    return bisect.bisect_left([t.start for t in doc.tokens], offset) - 1


def _names_after(analysis: Analysis, toks: list[Tok], prev_i: int) -> list[Completion] | None:
    """The names a word before the cursor calls for (the grammar says only "a name" there)."""
    names = _names_called_for(toks, prev_i) if prev_i >= 0 else None
    return names(analysis) if names is not None else None


def _names_called_for(toks: list[Tok], j: int) -> Callable[[Analysis], list[Completion]] | None:
    """What lists the names token j calls for: a keyword (_keyword_names), the comma of a list
    of groups (`groups a, b`, `credits a 5, b 10`), the `=` of a parameter or of a roll's result."""
    prev = toks[j]
    if prev.kind == "kw":
        return _keyword_names(toks, j)
    if prev.text == ",":
        return _groups if _list_head(toks, j) in _GROUP_FIELDS else None
    return _AFTER_EQUALS.get(_assigned(toks, j)) if prev.text == "=" else None


def _keyword_names(toks: list[Tok], j: int) -> Callable[[Analysis], list[Completion]] | None:
    """What a keyword calls for: inside the round rules a statement's target, else _AFTER_KEYWORD's."""
    word = toks[j].text
    if word in _ROUND_TARGETS and _in_round_rules(toks, j):
        return _ROUND_TARGETS[word]
    return _AFTER_KEYWORD.get(word)


def _in_round_rules(toks: list[Tok], i: int) -> bool:
    """Whether token i stands in a top-level statement of the round rules (a phase, the setup, a
    threshold, a track or an event table)."""
    start = max((m for m in split_statements(toks) if m <= i), default=0)
    return toks[start].text in _ROUND_BLOCKS


def _assigned(toks: list[Tok], j: int) -> str:
    """What the `=` at token j gives a value to: a call's parameter (`group=`), or the result of a
    roll (`roll x =`, which a dice pool's name follows)."""
    if j >= 2 and toks[j - 2].kind == "kw" and toks[j - 2].text == "roll":
        return "roll x ="
    return toks[j - 1].text if j >= 1 else ""


def _list_head(toks: list[Tok], j: int) -> str | None:
    """The keyword a comma-separated list of names and numbers ending at token j follows."""
    while j >= 0 and (toks[j].kind in ("name", "int") or toks[j].text == ","):
        j -= 1
    return toks[j].text if j >= 0 and toks[j].kind == "kw" else None


def _acceptable(doc: FileInfo, prev_i: int, cut: int) -> set[str] | None:
    """The grammar's terminals acceptable at `cut`, from Lark's interactive parser run over the
    top-level statement the cursor is in (under a header, as the incremental parser parses it),
    or None when that text does not parse."""
    from lark.exceptions import LarkError

    marks = split_statements(doc.tokens)
    start = max((m for m in marks if m <= prev_i), default=0)
    head = doc.tokens[start].start if start > 0 else 0
    text = (_PREFIX + "\n" if start > 0 else "") + doc.text[head:cut]
    try:
        interactive = parser._parser().parse_interactive(text)
        interactive.exhaust_lexer()
        return set(interactive.accepts())
    except LarkError:
        return None


def _from_grammar(analysis: Analysis, toks: list[Tok], prev_i: int, accepted: set[str]) -> list[Completion]:
    keywords = parser.keyword_terminals()
    words = {keywords[t] for t in accepted if t in keywords}
    kind = _fields_kind(words)
    if kind is not None:
        return _field_completions(kind, words)
    out = [Completion(w, "keyword") for w in sorted(words)]
    if "NAME" in accepted:
        out += _names_here(analysis, toks, prev_i)
    return out


def _field_completions(kind: str, words: set[str]) -> list[Completion]:
    """A field of an item comes next: the kind's fields the grammar accepts, with their meaning
    (fields.py)."""
    return [Completion(f.word, "keyword", f.words, f.doc) for f in item_fields.ITEM_FIELDS[kind] if f.word in words]


def _fields_kind(words: set[str]) -> str | None:
    """The item kind all of whose fields (but those only a `change` gives) the words include."""
    kinds = [k for k, fs in item_fields.ITEM_FIELDS.items() if {f.word for f in fs if not f.change_only} <= words]
    return max(kinds, key=lambda k: len(item_fields.ITEM_FIELDS[k]), default=None)


def _names_here(analysis: Analysis, toks: list[Tok], prev_i: int) -> list[Completion]:
    """Where the grammar accepts a name: an effect kind inside an effect block, else a name an
    expression may read."""
    opener = [t.text for t in _block_opener(toks, prev_i + 1) if t.kind == "kw"]
    if opener and opener[0] in ("primary", "secondary", "if", "else") and toks[prev_i].text not in ("if", "when"):
        return _vocab_completions(vocab.EFFECT_KINDS, "effect")
    return _expression_names(analysis)


def _expression_names(analysis: Analysis) -> list[Completion]:
    out = _vocab_completions(vocab.FUNCTIONS, "function")
    out += _vocab_completions(list(vocab.FACTS) + list(vocab.DERIVED_NAMES), "fact")
    edition = analysis.edition or analysis.last_edition
    if edition is not None:
        out += [Completion(name, "name", "constant", c.doc) for name, c in edition.consts.items()]
        out += [Completion(name, "function", "table", t.doc) for name, t in edition.tables.items()]
        out += [Completion(name, "name", "option", o.doc) for name, o in edition.options.items()]
    return out + _ROUND_VALUES(analysis) + _groups(analysis)


def _everything(analysis: Analysis) -> list[Completion]:
    """Keywords, the vocabulary and the rulebook's own names, each once."""
    out = [Completion(k, "keyword") for k in parser.keywords()] + _vocab_completions(vocab.EFFECT_KINDS, "effect")
    seen: set[str] = set()
    return [c for c in out + _expression_names(analysis) if not (c.label in seen or seen.add(c.label))]


# --- outline


@dataclass
class OutlineItem:
    name: str
    kind: str  # advance, calamity, commodity, track, epoch, group, const, table, option, score, change, remove
    start: int
    end: int
    name_start: int
    name_end: int
    detail: str | None = None
    children: list["OutlineItem"] = field(default_factory=list)


def outline(info: FileInfo) -> list[OutlineItem]:
    """The document's top-level statements, from its tokens (so it works while the text does not
    parse), tracks with their epochs."""
    toks = info.tokens
    marks = split_statements(toks)
    ends = [m - 1 for m in marks[1:]] + [len(toks) - 1]
    found = [_outline_item(toks, m, end) for m, end in list(zip(marks, ends))[_first_statement(toks):] if end >= m]
    return [o for o in found if o is not None]


def _first_statement(toks: list[Tok]) -> int:
    """Which piece of split_statements is the first statement: the first piece is the header,
    unless the text starts with a statement."""
    return 0 if toks and toks[0].kind == "kw" and toks[0].text in parser.item_starters() else 1


class _Statement(NamedTuple):
    """The tokens m..end of one top-level statement, as the outline reads them."""

    toks: list[Tok]
    m: int
    end: int

    def token(self, k: int, kind: str) -> Tok | None:
        """Its k-th token, if it is of `kind` (name, string, ...)."""
        return self.toks[self.m + k] if self.m + k <= self.end and self.toks[self.m + k].kind == kind else None

    def entry(self, name: str, kind: str, name_tok: Tok, detail: str | None = None) -> OutlineItem:
        return OutlineItem(name, kind, self.toks[self.m].start, self.toks[self.end].end, name_tok.start, name_tok.end,
                           detail)


def _outline_item(toks: list[Tok], m: int, end_i: int) -> OutlineItem | None:
    """The outline entry of the statement of tokens m..end_i, or None for one the outline skips."""
    statement = _Statement(toks, m, end_i)
    keyword = toks[m].text
    if keyword in _OUTLINE_WORDS:
        return _named_entry(statement, *_OUTLINE_WORDS[keyword])
    outlined = _OUTLINE.get(keyword)
    return outlined(statement) if outlined is not None else None


def _item_entry(st: _Statement) -> OutlineItem | None:
    """`advance "Pottery" { ... }` (a calamity, a commodity)."""
    name = st.token(1, "string")
    return st.entry(unquote_string(name.text), st.toks[st.m].text, name) if name is not None else None


def _edit_entry(st: _Statement) -> OutlineItem | None:
    """`change advance "Pottery" { ... }`, `remove calamity "Flood"`."""
    name = st.token(2, "string")
    if name is None:
        return None
    keyword = st.toks[st.m].text
    return st.entry(f"{keyword} {st.toks[st.m + 1].text} {unquote_string(name.text)}", keyword, name)


def _ast_entry(st: _Statement) -> OutlineItem | None:
    """An A.S.T. track, with its epochs."""
    track = _named_entry(st, "track", True)
    if track is not None:
        track.children = [_epoch_entry(st.toks, j, st.end) for j in range(st.m, st.end)
                          if st.toks[j].kind == "kw" and st.toks[j].text == "epoch" and st.toks[j + 1].kind == "string"]
    return track


def _named_entry(st: _Statement, kind: str, titled: bool) -> OutlineItem | None:
    """A statement declaring a bare name (`group arts "Arts"`, `stat food "Food"`), its title the
    detail when `titled`."""
    name = st.token(1, "name")
    if name is None:
        return None
    title = st.token(2, "string") if titled else None
    return st.entry(name.text, kind, name, unquote_string(title.text) if title is not None else None)


# The statements the outline lists, by keyword: those declaring a bare name, (their kind, whether
# their title is the detail) (a round track is `round_track`, as in the index of references), and
# the others, each with its own reading.
_OUTLINE_WORDS = {"group": ("group", True), "const": ("const", False), "table": ("table", False),
                  "option": ("option", False), "deck": ("deck", True), "track": ("round_track", True),
                  **{w: (w, True) for w in ("stat", "flag", "choice", "threshold", "pool", "event_table", "phase")}}
_OUTLINE: dict[str, Callable[[_Statement], OutlineItem | None]] = {
    **{k: _item_entry for k in ERRATA_TARGETS}, "change": _edit_entry, "remove": _edit_entry, "ast": _ast_entry,
    "score": lambda st: st.entry("score", "score", st.toks[st.m])}


def _epoch_entry(toks: list[Tok], j: int, end_i: int) -> OutlineItem:
    """An epoch of a track: from its keyword to the `}` closing its block."""
    close, depth = j + 1, 0
    for c in range(j + 1, end_i + 1):
        depth += {"{": 1, "}": -1}.get(toks[c].text, 0)
        if toks[c].text == "}" and depth == 0:
            close = c
            break
    return OutlineItem(unquote_string(toks[j + 1].text), "epoch", toks[j].start, toks[close].end, toks[j + 1].start,
                       toks[j + 1].end)


# --- formatting


def format_document(text: str, display: str) -> str | None:
    """The formatted text (`civdsl.fmt`), or None when it cannot be formatted."""
    from .. import fmt

    try:
        return fmt.format_text(text, display)
    except Exception as exc:  # a file with syntax errors is left alone; diagnostics say why
        log.info("formatting %s failed: %s", display, exc)
        return None


# ---------------------------------------------------------------------------------------------
# The language server (pygls)


def _to_units(info: FileInfo, line: int, column: int, units: Callable[[str], int]) -> tuple[int, int]:
    """(line, code-point column) of the normalised text -> (line, client units) of the buffer."""
    if 0 <= line < len(info.lines):
        n = units(info.lines[line][:column])
        if line == 0 and info.bom:
            n += units("\ufeff")
        return line, n
    return line, column


def _from_units(info: FileInfo, line: int, character: int, units: Callable[[str], int]) -> int:
    """A client position -> an offset in the normalised text."""
    if line >= len(info.lines):
        return len(info.text)
    text = info.lines[line]
    if line == 0 and info.bom:
        character = max(0, character - units("\ufeff"))
    count = 0
    col = 0
    for ch in text:
        if count >= character:
            break
        count += units(ch)
        col += 1
    return info.offset(line, col)


# Seconds without an edit before a changed document is analysed.
EDIT_DEBOUNCE = 0.1
# A message longer than this is not one an editor sends (a rulebook is at most 2 MB, 12 MB as
# JSON-escaped UTF-16 at worst): its header is dropped like a malformed one.
MAX_MESSAGE = 64 * 1024 * 1024
_CONTENT_LENGTH = re.compile(rb"content-length:[ \t]*(\d{1,12})[ \t]*\r?\n\Z", re.IGNORECASE)


async def read_messages(stop_event, reader, protocol, on_error=None) -> None:
    """pygls's message loop, made to survive malformed framing.

    pygls reads header lines until an empty one and then a body of Content-Length bytes. A
    header block without Content-Length made it skip the empty line and read the body and every
    later message as header lines, so that no request was ever answered again (`exit`
    included). Here such a message is dropped: its body (which cannot be delimited) runs into
    the next message's header line, and a line that *ends* with a Content-Length header starts
    a new message, so the stream is back in step at the next message. A body that is not JSON,
    or not a message, is logged and dropped as pygls does."""
    length = None
    while not stop_event.is_set():
        line = await reader.readline()
        if not line:
            break
        header = _CONTENT_LENGTH.search(line)
        if header is not None:
            length = _announced(int(header.group(1)))
            continue
        if line.strip():
            continue  # another header (Content-Type), or what is left of a dropped message
        if length is None:
            log.warning("dropped a message without Content-Length")
            continue
        body = await reader.readexactly(length)
        length = None
        if not body:
            break
        _handle(body, protocol, on_error)


def _announced(length: int) -> int | None:
    """A message's announced length; None (the message is dropped) for one no editor sends."""
    if length > MAX_MESSAGE:
        log.warning("dropped a message announcing %d bytes", length)
        return None
    return length


def _handle(body: bytes, protocol, on_error) -> None:
    """Hand one message to pygls; one that is not JSON, or not a message, is logged and dropped,
    and a request among them answered with a JSON-RPC error (the editor would wait for ever)."""
    try:
        protocol.handle_message(json.loads(body, object_hook=protocol.structure_message))
    except Exception as exc:
        log.exception("dropped a message that could not be handled")
        _refuse_request(body, exc, protocol)
        if on_error is not None:
            on_error(exc, None)


def _refuse_request(body: bytes, exc: Exception, protocol) -> None:
    """Answer a request that could not be handled: -32602 (invalid params) when its params do not
    validate, -32600 (invalid request) when it is not a request pygls can read."""
    from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest

    try:
        message = json.loads(body)
    except ValueError:
        return
    if not isinstance(message, dict) or "method" not in message or not isinstance(message.get("id"), (int, str)):
        return  # a notification, or not a message: nothing to answer
    if not isinstance(exc, JsonRpcException):
        exc = JsonRpcInvalidRequest()
    if isinstance(exc, JsonRpcInvalidParams):
        exc = JsonRpcInvalidParams(f"the params of `{str(message['method'])[:80]}` do not validate")
    try:
        protocol._send_response(message["id"], error=exc.to_response_error())
    except Exception:
        log.exception("could not answer the refused request")


def _framing_tolerant(server_class):
    """`server_class` whose stdio loop is `read_messages` (pygls 2; pygls 1 keeps its own)."""
    try:
        from pygls.io_ import StdinAsyncReader, StdoutWriter
    except ImportError:
        return server_class

    class Server(server_class):
        def start_io(self, stdin=None, stdout=None):
            import asyncio
            import threading

            self._stop_event = threading.Event()
            reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
            self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
            try:
                asyncio.run(read_messages(self._stop_event, reader, self.protocol,
                                          lambda exc, _kind: log.error("%s", exc)))
            except BrokenPipeError:
                log.error("the connection to the editor is lost: shutting down")
            except (KeyboardInterrupt, SystemExit):
                pass
            finally:
                self.shutdown()

    return Server


def build_server():
    """The pygls LanguageServer with every feature registered."""
    from lsprotocol import types as T
    from pygls.exceptions import JsonRpcInvalidParams

    try:  # pygls 2
        from pygls.lsp.server import LanguageServer
    except ImportError:  # pygls 1
        from pygls.server import LanguageServer  # type: ignore[no-redef]

    try:
        from importlib.metadata import version as _version

        server_version = _version("civdsl")
    except Exception:
        server_version = "0"

    server = _framing_tolerant(LanguageServer)("civdsl", server_version,
                                               text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
    engine = Engine()
    server.civdsl_engine = engine  # type: ignore[attr-defined]
    pending: set[str] = set()
    timers: dict[str, Any] = {}

    def units() -> Callable[[str], int]:
        try:
            codec = server.workspace.position_codec
            return codec.client_num_units
        except Exception:
            return lambda s: len(s.encode("utf-16-le")) // 2

    def publish(uri: str, diagnostics: list, version: int | None = None) -> None:
        params = T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        if hasattr(server, "text_document_publish_diagnostics"):
            server.text_document_publish_diagnostics(params)
        else:  # pygls 1
            server.publish_diagnostics(uri, diagnostics, version)  # type: ignore[attr-defined]

    def rng(info: FileInfo, start: int, end: int) -> T.Range:
        u = units()
        sl, sc = _to_units(info, *info.position(start), u)
        el, ec = _to_units(info, *info.position(end), u)
        return T.Range(T.Position(sl, sc), T.Position(el, ec))

    severity = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
                "note": T.DiagnosticSeverity.Information}

    def lsp_diagnostic(d: Diagnostic, info: FileInfo | None, path: Path | None) -> T.Diagnostic:
        text = None
        if info is None and path is not None:
            # read as the compiler reads a rulebook (a regular file, never past the size limit,
            # never blocking on a FIFO): a huge or odd base file places its diagnostic at 1:1
            data = loader.read_bytes(path, d.span.path if d.span else "", Diagnostics())
            if data is not None:
                text = parser.normalise(data.decode("utf-8", errors="replace"))
                info = FileInfo(text, d.span.path if d.span else "", path)
        line, col, end_line, end_col = diagnostic_range(d, info)
        if info is not None:
            u = units()
            line, col = _to_units(info, line, col, u)
            end_line, end_col = _to_units(info, end_line, end_col, u)
        return T.Diagnostic(range=T.Range(T.Position(line, col), T.Position(end_line, end_col)),
                            message=full_message(d), severity=severity.get(d.level, T.DiagnosticSeverity.Error),
                            code=d.code, source="civdsl")

    def run(uri: str) -> None:
        doc = engine.documents.get(uri)
        if doc is None:
            return
        try:
            analysis = engine.analyse(doc)
        except Exception as exc:  # never take the server down: say so in the log
            log.exception("analysing %s failed", uri)
            if hasattr(server, "window_log_message"):
                server.window_log_message(T.LogMessageParams(type=T.MessageType.Error,
                                                             message=f"civdsl: analysing {uri} failed: {exc}"))
            return
        grouped = diagnostics_by_file(analysis)
        published = set()
        for target_uri, items in grouped.items():
            if target_uri != uri and target_uri in engine.documents:
                continue  # an open base file reports its own buffer's diagnostics
            publish(target_uri, [lsp_diagnostic(*x) for x in items], doc.version if target_uri == uri else None)
            published.add(target_uri)
        for stale in doc.published - published:
            if stale not in engine.documents:
                publish(stale, [])
        doc.published = published

    def flush(uri: str) -> None:
        timers.pop(uri, None)
        if uri in pending:
            pending.discard(uri)
            run(uri)

    def schedule(uri: str, delay: float = EDIT_DEBOUNCE) -> None:
        """Analyse `uri` once no edit has come for `delay` seconds: a burst of edits (typing,
        a paste, a find-and-replace) is analysed once, at its end, instead of edit by edit while
        the edits wait. A request about the document analyses it at once (see `current`)."""
        pending.add(uri)
        try:
            import asyncio

            loop = asyncio.get_running_loop()
        except RuntimeError:
            flush(uri)
            return
        earlier = timers.pop(uri, None)
        if earlier is not None:
            earlier.cancel()
        timers[uri] = loop.call_later(delay, flush, uri)

    def current(uri: str) -> Analysis | None:
        if uri in pending:
            earlier = timers.pop(uri, None)
            if earlier is not None:
                earlier.cancel()
            pending.discard(uri)
            run(uri)
        return engine.current(uri)

    def buffer_text(uri: str) -> str:
        return server.workspace.get_text_document(uri).source

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: T.DidOpenTextDocumentParams):
        engine.open(params.text_document.uri, params.text_document.text, params.text_document.version)
        schedule(params.text_document.uri, 0)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: T.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        engine.update(uri, buffer_text(uri), params.text_document.version)
        schedule(uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: T.DidSaveTextDocumentParams):
        engine.invalidate_disk()  # a base may have changed: check every open rulebook again
        for uri in list(engine.documents):
            schedule(uri, 0)

    @server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(params: T.DidChangeWatchedFilesParams):
        engine.invalidate_disk()
        for uri in list(engine.documents):
            schedule(uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: T.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        doc = engine.documents.get(uri)
        pending.discard(uri)
        engine.close(uri)
        for stale in (doc.published if doc else set()) | {uri}:
            if stale not in engine.documents:
                publish(stale, [])

    def at_cursor(params):
        """(analysis, cursor offset) for a request at a position, or None while the document has no
        analysis yet: the start every position request shares."""
        analysis = current(params.text_document.uri)
        if analysis is None:
            return None
        return analysis, _from_units(analysis.doc, params.position.line, params.position.character, units())

    def target_of(params):
        """(analysis, the symbol under the cursor), or None: definition and references start here."""
        found = at_cursor(params)
        target = found and target_at(*found)
        return None if target is None else (found[0], target)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(params: T.HoverParams):
        found = at_cursor(params)
        if found is None:
            return None
        analysis, offset = found
        hovered = hover_text(analysis, offset)
        if hovered is None:
            return None
        text, about = hovered
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                       range=rng(analysis.doc, about.start, about.end))

    def location(f: FileInfo, s: Symbol) -> T.Location:
        return T.Location(uri=f.uri, range=rng(f, s.start, s.end))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(params: T.DefinitionParams):
        found = target_of(params)
        if found is None:
            return None
        return [location(f, s) for f, s in definitions(*found)] or None

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def find_references(params: T.ReferenceParams):
        found = target_of(params)
        if found is None:
            return None
        include = params.context.include_declaration if params.context else True
        return [location(f, s) for f, s in references(*found, include)]

    @server.feature(T.TEXT_DOCUMENT_RENAME)
    def rename(params: T.RenameParams):
        found = at_cursor(params)
        if found is None:
            return None
        analysis, offset = found
        try:
            edits = rename_edits(analysis, offset, params.new_name)
        except ValueError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        if edits is None:
            return None
        changes: dict[str, list] = {}
        for f, start, end, text in edits:
            changes.setdefault(f.uri, []).append(T.TextEdit(range=rng(f, start, end), new_text=text))
        return T.WorkspaceEdit(changes=changes)

    kinds = {"keyword": T.CompletionItemKind.Keyword, "effect": T.CompletionItemKind.Function,
             "ability": T.CompletionItemKind.Method, "function": T.CompletionItemKind.Function,
             "fact": T.CompletionItemKind.Variable, "name": T.CompletionItemKind.Constant,
             "group": T.CompletionItemKind.EnumMember, "advance": T.CompletionItemKind.Class,
             "calamity": T.CompletionItemKind.Event, "commodity": T.CompletionItemKind.Struct,
             "value": T.CompletionItemKind.Value, "edition": T.CompletionItemKind.Module}

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=['"', "(", "="]))
    def completion(params: T.CompletionParams):
        found = at_cursor(params)
        if found is None:
            return None
        analysis, offset = found
        items = []
        for c in completions(analysis, offset):
            item = T.CompletionItem(label=c.label, kind=kinds.get(c.kind), detail=c.detail,
                                    documentation=c.doc)
            if c.replace is not None:
                item.text_edit = T.TextEdit(range=rng(analysis.doc, *c.replace), new_text=c.insert or c.label)
                item.filter_text = c.label
            elif c.insert is not None:
                item.insert_text = c.insert
            items.append(item)
        return T.CompletionList(is_incomplete=False, items=items)

    symbol_kinds = {"advance": T.SymbolKind.Class, "calamity": T.SymbolKind.Event, "commodity": T.SymbolKind.Struct,
                    "track": T.SymbolKind.Namespace, "epoch": T.SymbolKind.EnumMember, "group": T.SymbolKind.Enum,
                    "const": T.SymbolKind.Constant, "table": T.SymbolKind.Array, "option": T.SymbolKind.Boolean,
                    "score": T.SymbolKind.Object, "change": T.SymbolKind.Property, "remove": T.SymbolKind.Property,
                    "stat": T.SymbolKind.Variable, "flag": T.SymbolKind.Boolean, "choice": T.SymbolKind.TypeParameter,
                    "threshold": T.SymbolKind.Event, "pool": T.SymbolKind.Array, "round_track": T.SymbolKind.Namespace,
                    "event_table": T.SymbolKind.Array, "deck": T.SymbolKind.Struct, "phase": T.SymbolKind.Function}

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(params: T.DocumentSymbolParams):
        analysis = current(params.text_document.uri)
        if analysis is None:
            return None
        info = analysis.doc

        def convert(o: OutlineItem) -> T.DocumentSymbol:
            return T.DocumentSymbol(name=o.name or "?", kind=symbol_kinds.get(o.kind, T.SymbolKind.Object),
                                    range=rng(info, o.start, o.end),
                                    selection_range=rng(info, o.name_start, o.name_end),
                                    detail=o.detail or o.kind, children=[convert(c) for c in o.children] or None)

        return [convert(o) for o in outline(info)]

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    def formatting(params: T.DocumentFormattingParams):
        doc = engine.documents.get(params.text_document.uri)
        if doc is None:
            return None
        raw = doc.text
        formatted = format_document(raw, doc.display)
        if formatted is None or formatted == raw:
            return []
        # the end of the buffer, in client units (the buffer may use \r\n; LSP counts \r\n as one break)
        buffer_lines = re.split(r"\r\n|\r|\n", raw)
        end = T.Position(len(buffer_lines) - 1, units()(buffer_lines[-1]))
        return [T.TextEdit(range=T.Range(T.Position(0, 0), end), new_text=formatted)]

    return server


def warm_up() -> None:
    """Build the Lark parser and the keyword tables before the first document arrives."""
    try:
        parser.statement_edges()
        parser.keyword_terminals()
        _lexer()
    except Exception:  # reported again, properly, on first use
        pass


__all__ = ["Engine", "Analysis", "IncrementalParser", "tokenize", "hover_text", "completions", "outline",
           "definitions", "references", "target_at", "build_server", "format_document", "warm_up"]
