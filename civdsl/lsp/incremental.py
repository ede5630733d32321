"""Incremental parsing of a buffer: parsing a large rulebook with Lark takes most of `check`'s
time, so the buffer is parsed in top-level statements (the grammar's `item`s), each parsed on its
own and cached by its text. A statement that moved up or down keeps its parse: its spans are
anchored to its first line (`AnchoredSpan`), so moving it moves one number, and what the later
passes kept for it (model objects, reports, references) stays valid. Any statement that fails
to parse on its own sends the whole buffer through `parser.parse`, so syntax errors are
reported exactly as `check` reports them."""

from __future__ import annotations

import bisect
import itertools
import operator
from dataclasses import dataclass
from typing import Any

from .. import loader, parser, syntax
from ..diagnostics import Diagnostic, Diagnostics, Span
from .tokens import NESTING, Tok, lex_line, scan_statements, split_statements

PREFIX = 'language 1 edition _ ""'  # a header in front of a statement parsed on its own (line 1)


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


class _Anchor:
    """Where a kept statement now starts (1-based line): moving the statement moves every span
    anchored to it at once."""

    __slots__ = ("line",)

    def __init__(self, line: int):
        self.line = line


class AnchoredSpan(Span):
    """A span inside a statement the incremental parser keeps: its line is the statement's line
    (its `_Anchor`) plus its own distance from it, so a statement that moves keeps its syntax
    objects, and every model object, report and reference made from them, without one of its
    spans being touched. Equal to (and hashed as) the `Span` at the same place."""

    line = property(lambda self: self._anchor.line + self._below)

    def __eq__(self, other):
        if not isinstance(other, Span):
            return NotImplemented
        return (self.path, self.line, self.column, self.end_column) == (
            other.path, other.line, other.column, other.end_column)

    def __hash__(self):
        return hash((self.path, self.line, self.column, self.end_column))

    def __repr__(self):
        return f"Span(path={self.path!r}, line={self.line!r}, column={self.column!r}, end_column={self.end_column!r})"


def _anchored(span: Span, anchor: _Anchor, _new=object.__new__) -> AnchoredSpan:
    """`span`, at the same place, anchored to its statement's line."""
    moved = _new(AnchoredSpan)
    fields = moved.__dict__
    fields.update(path=span.path, column=span.column, end_column=span.end_column, _anchor=anchor,
                  _below=span.line - anchor.line)
    return moved


def _retuple(tup: tuple, path: tuple[int, ...], anchor: _Anchor) -> tuple:
    i = path[0]
    inner = _anchored(tup[i], anchor) if len(path) == 1 else _retuple(tup[i], path[1:], anchor)
    return tup[:i] + (inner,) + tup[i + 1:]


def _anchor_spans(root: list, anchor: _Anchor) -> None:
    """Anchor every span found by `_span_refs` under `root` to `anchor`, in place."""
    for container, key, path in _span_refs(root):
        value = container[key]
        container[key] = _anchored(value, anchor) if not path else _retuple(value, path, anchor)


@dataclass
class _Chunk:
    anchor: _Anchor  # the line where the statement starts now; every span of it is anchored there
    items: list  # syntax Items
    diags: list[Diagnostic]
    key: tuple  # (display, column, text): what a statement must be to take this parse


# statements parsed by attempts that failed, kept for the attempt after (typing in a statement
# that does not parse yet parses the statements around it once, not on every keystroke)
_SPARE = 256


class IncrementalParser:
    """Parses one buffer again and again, reusing the parse of every unchanged statement."""

    def __init__(self):
        self.chunks: list[_Chunk] = []  # the last parse's statements, in order
        self.chunks_of: tuple | None = None  # (the marks, the display) they were parsed at
        self.spare: list[_Chunk] = []  # statements parsed by an attempt that failed, for the next
        self.header: tuple[str, Any] | None = None
        self.stats = {"parsed": 0, "reused": 0, "shifted": 0, "full": 0, "suffix": 0, "looked up": 0}

    def parse(self, text: str, display: str, state: TextState, diags: Diagnostics) -> syntax.RulebookAst | None:
        """As `parser.parse` then `syntax.to_syntax` (see `loader.parse_file`), with the same
        diagnostics; `state` is the text's `TextState`."""
        if not parser.check_limits(text, display, diags, state.token_count(), state.brackets(), state.lines):
            return None
        try:
            return self._incremental(text, display, state, diags)
        except _Failed as exc:
            if exc.where is not None and self._errors_from(text, display, diags, *exc.where):
                self.stats["suffix"] += 1
                return None
        except RecursionError:
            pass
        self.stats["full"] += 1
        return loader.parse_text(text, display, diags)

    def relaid(self, state: TextState, display: str) -> None:
        """The last update changed only comments and spaces after tokens (the engine keeps the last
        analysis): every statement's parse holds at the new marks."""
        if self._parsed_before(state, display):
            self.chunks_of = (state.marks, display)

    def _parsed_before(self, state: TextState, display: str) -> bool:
        """Whether the chunks are the parse of the text before the state's last update (the very
        marks: an attempt that failed since may have moved some of their anchors)."""
        return self.chunks_of is not None and self.chunks_of[0] is state.previous_marks and self.chunks_of[1] == display

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
        padded = PREFIX + (' note ""' if before else "") + "\n" * (line - 1) + " " * (col - 1) + text[start:]
        # the padded text is within the limits the whole text was found within (the header it
        # stands for has as many tokens; the rest is the text's own lines from depth 0)
        found = _syntax_errors(padded, display)
        diags.items.extend(found)
        return bool(found)

    def _incremental(self, text: str, display: str, state: TextState, diags: Diagnostics):
        """The statements the text state marks, each parsed or reused. When the last parse was of
        the text before the state's last update, the statements the update kept (`TextState.kept`)
        are taken by place, those after the change moved with their anchors; only the statements
        between are looked up by their text among the ones they replace, or parsed."""
        marks = state.marks[1:]
        starts = state.line_starts
        count = len(marks)
        old = self.chunks
        head = tail = moved = 0
        if self._parsed_before(state, display) and len(old) == len(state.previous_marks) - 1:
            head, tail, moved = state.kept
            head = max(head - 1, 0)  # the header is the state's first mark
            head, tail = min(head, count, len(old)), min(tail, count - min(head, count), len(old) - head)
        head_end = starts[marks[0][0]] + marks[0][1] if marks else len(text)
        head_text, header, head_diags = self._header(text[:head_end], display)  # all before the first statement
        pool: dict[tuple, list[_Chunk]] = {}
        for chunk in reversed(self.spare + old[head:len(old) - tail]):  # popped from the end: first first
            pool.setdefault(chunk.key, []).append(chunk)
        chunks = old[:head]
        parsed: list[_Chunk] = []
        for k in range(head, count - tail):
            line, column = marks[k]
            start = starts[line] + column
            end = starts[marks[k + 1][0]] + marks[k + 1][1] if k + 1 < count else len(text)
            chunks.append(self._statement(text[start:end], start, k, display, line + 1, column + 1, pool, parsed))
        if tail:
            first = count - tail
            kept = old[len(old) - tail:]
            if moved:  # each anchor set, not moved by `moved`: whatever an attempt that failed left
                for k, chunk in enumerate(kept, first):
                    chunk.anchor.line = marks[k][0] + 1
                self.stats["shifted"] += tail
            chunks += kept
        self.stats["reused"] += head + (0 if moved else tail)
        self.chunks, self.chunks_of, self.spare = chunks, (state.marks, display), []
        items: list = []
        found: list[Diagnostic] = list(head_diags)
        for chunk in chunks:
            items += chunk.items
            if chunk.diags:
                found += chunk.diags
        diags.items.extend(found)
        return syntax.rulebook_ast(display, head_text, header, items)

    def _header(self, head_text: str, display: str) -> tuple[Any, Any, list[Diagnostic]]:
        """The `language` line and the header, parsed (or as parsed last time): the language,
        the header and their diagnostics."""
        if self.header is None or self.header[0] != head_text + "\0" + display:
            d = Diagnostics()
            head, header, _ = syntax.transformer(display, d).transform(_lark_tree(head_text))
            self.header = (head_text + "\0" + display, (head, header, d.items))
        return self.header[1]

    def _statement(self, chunk_text: str, start: int, before: int, display: str, line: int, col: int,
                   pool: dict, parsed: list) -> _Chunk:
        """The parse of one top-level statement (at offset `start`, 1-based `line` and `col`, `before`
        statements before it): one of the same text in `pool` (statements the last parse had and
        this one has not placed yet; the same statement twice takes them in order), else parsed now
        (added to `parsed`). When one fails, what this attempt parsed is kept for the next."""
        self.stats["looked up"] += 1
        same = pool.get((display, col, chunk_text))
        if same:
            chunk = same.pop()
            self._reuse(chunk, line)
            return chunk
        try:
            chunk = self._parse_chunk(chunk_text, line, col, display)
        except _Failed:
            self.spare = (self.spare + parsed)[-_SPARE:]
            raise _Failed((start, line, col, before))
        parsed.append(chunk)
        return chunk

    def _reuse(self, chunk: _Chunk, line: int) -> None:
        """A statement parsed before, now at `line`: when it moved, its anchor moves there, and with
        it every span of its syntax objects (this document's own) and of what was made from them."""
        if chunk.anchor.line == line:
            self.stats["reused"] += 1
            return
        chunk.anchor.line = line
        self.stats["shifted"] += 1

    def _parse_chunk(self, chunk_text: str, line: int, col: int, display: str) -> _Chunk:
        if line < 2:
            raise _Failed
        tree = _lark_tree(PREFIX + "\n" * (line - 1) + " " * (col - 1) + chunk_text)
        d = Diagnostics()
        _, _, items = syntax.transformer(display, d).transform(tree)
        self.stats["parsed"] += 1
        anchor = _Anchor(line)
        _anchor_spans([items, d.items], anchor)
        return _Chunk(anchor, items, d.items, (display, col, chunk_text))


def _syntax_errors(text: str, display: str) -> list[Diagnostic]:
    """The diagnostics of the whole-file parse of `text` when it fails with syntax errors only
    (CIV001, CIV002); else none."""
    scratch = Diagnostics()
    try:
        tree = parser.parse(text, display, scratch, within_limits=True)
    except RecursionError:
        return []
    found = [d for d in scratch.items if d.code in ("CIV001", "CIV002")]
    return found if tree is None and len(found) == len(scratch.items) else []


def _lark_tree(text: str):
    """Lark's tree of a piece of a buffer; _Failed when it does not parse, or when `parser.parse`
    would refuse it as nested too deeply (that is reported from the whole file's tree)."""
    try:
        tree = parser.lark_parser().parse(text)
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


class TextState:
    """A buffer's text as the last edit left it: its lines, each line's tokens as `tokenize` lexes
    them and its count of the matches the size limit counts (`parser.count_tokens`), and where
    its top-level statements start. An edit lexes again only the lines it changed, and finds the
    statements again only from the statement before the change to the first statement after it
    that still starts where it did: a statement starts at a keyword outside brackets after a token
    that can end one (`split_statements`), so one that starts after the change at nesting depth 0,
    as before, is followed by the same statements as before."""

    def __init__(self):
        self.lines: list[str] = []
        self.text = ""  # the text the lines are of
        self.previous: list[str] = []  # the lines before the last update (`layout_only` compares with them)
        self.line_starts: list[int] = []
        self.entries: list[list[tuple]] = []  # per line: `lex_line`'s entries
        self.counts: list[int] = []  # per line: the matches the token limit counts
        self.skeletons: list[str] = []  # per line: its brackets outside strings and comments
        self.marks: list[tuple[int, int]] = []  # (line, column), 0-based, of each statement's start
        self.previous_marks: list[tuple[int, int]] = []  # the marks before the last update
        # (head, tail, moved): the first `head` statements have the text and place they had before
        # the last update, the last `tail` the text of the last `tail` before it, `moved` lines
        # down (the statements around the change are found again, `_marks`; the rest are not)
        self.kept: tuple[int, int, int] = (0, 0, 0)
        self.lexed: dict[str, list] = {}  # a line's text -> [entries, count, skeleton]
        self.summaries: dict[str, tuple] = {}  # a line's text -> its brackets (`_summary`)
        self.stats = {"lines lexed": 0, "windows": 0, "full scans": 0, "reached on": 0, "layout only": 0}
        # whether the last edit changed only comments and spaces after a line's last token: every
        # token of the text is where it was, so the parse, and every later pass, is as before
        self.layout_only = False

    def update(self, text: str) -> None:
        old = self.lines
        same = len(old) > 0
        if same:
            new, head, old_end, new_end = self._changed_lines(text)
        else:
            new, head, old_end, new_end = text.split("\n"), 0, 0, text.count("\n") + 1
        fresh = [self._lex(line) for line in new[head:new_end]]
        self.layout_only = same and len(old) == len(new) and all(
            _significant(line, entries) == _significant(new[n], fresh[n - head][0])
            for n, (line, entries) in enumerate(zip(old[head:old_end], self.entries[head:old_end]), head))
        # new lists, not changed in place: the analyses made before keep the lines they were made of
        self.entries = self.entries[:head] + [f[0] for f in fresh] + self.entries[old_end:]
        self.counts = self.counts[:head] + [f[1] for f in fresh] + self.counts[old_end:]
        self.skeletons = self.skeletons[:head] + [f[2] for f in fresh] + self.skeletons[old_end:]
        self.previous = old
        self.previous_marks = self.marks
        self.lines, self.text = new, text
        self.line_starts = _line_starts_after(self.line_starts, new, head, old_end, new_end) if same else _line_starts(new)
        self.kept = (0, 0, 0)
        self.marks = self._marks(head, old_end, new_end) if same else self._all_marks()
        self.stats["lines lexed"] += len(fresh)
        if len(self.lexed) > 2 * len(new) + 1_000:
            # forget the lines edits left behind (each keystroke leaves one): the cache stays
            # within a few times the buffer's own lines
            self.lexed = {line: found for line, *found in zip(new, self.entries, self.counts, self.skeletons)}
            self.summaries.clear()

    def _changed_lines(self, text: str) -> tuple[list[str], int, int, int]:
        """The new text's lines, and the lines the change since the last text spans: lines
        head..old_end-1 of the old text became head..new_end-1. Only those are split from the
        text (found from the characters the two texts share at each end); the others are the
        old lines, the same strings."""
        before = self.text
        start = _common_start(before, text)
        end = _common_end(before, text, min(len(before), len(text)) - start)
        head = before.count("\n", 0, start)
        old_end = before.count("\n", 0, len(before) - end) + 1
        new_end = text.count("\n", 0, len(text) - end) + 1
        first = self.line_starts[head]
        stop = text.find("\n", len(text) - end)
        middle = text[first:stop if stop >= 0 else len(text)].split("\n")
        return self.lines[:head] + middle + self.lines[old_end:], head, old_end, new_end

    def token_count(self) -> int:
        """`parser.count_tokens` of the text."""
        return sum(self.counts)

    def brackets(self) -> str:
        """`parser.bracket_skeleton` of the text."""
        return "".join(self.skeletons)

    def starts(self) -> list[int]:
        """The offsets where the statements after the header start."""
        starts = self.line_starts
        return [starts[line] + column for line, column in self.marks[1:]]

    def _lex(self, line: str) -> list:
        found = self.lexed.get(line)
        if found is None:
            found = self.lexed[line] = [lex_line(line), parser.count_tokens(line), parser.bracket_skeleton(line)]
        return found

    def _marks(self, head: int, old_end: int, new_end: int) -> list[tuple[int, int]]:
        """The statements' starts after lines head..old_end-1 became head..new_end-1."""
        marks = self.marks
        first = bisect.bisect_left(marks, (head, 0)) - 1  # the last statement starting before the change
        after = bisect.bisect_left(marks, (old_end, 0))  # the first starting after it
        moved = new_end - old_end
        if first < 0:
            return self._all_marks()
        line, column = marks[first]
        end_line, end_column = marks[after] if after < len(marks) else (len(self.lines), 0)
        end_line += moved if after < len(marks) else 0
        window, lines = self._window(line, column, end_line, end_column)
        found, depth = scan_statements(window)
        if not window and after < len(marks):
            return self._all_marks()
        if after < len(marks) and (depth != 0 or window[-1].type not in parser.statement_edges()[1]):
            # the change reaches past the next statement's start (a bracket left open, say)
            rest, tail = self._rest(end_line, end_column, depth, window[-1].type, after, moved)
            self.stats["reached on"] += 1
        else:
            rest, tail = [(ln + moved, col) for ln, col in marks[after:]], len(marks) - after
        self.stats["windows"] += 1
        again = [(lines[i], window[i].start) for i in found]
        # the statement before `first` ends where `first` starts: kept when that start is found again
        self.kept = (first if again[:1] == [marks[first]] else max(first - 1, 0), tail, moved)
        return marks[:first] + again + rest

    def _rest(self, line: int, column: int, depth: int, prev: str, after: int,
              moved: int) -> tuple[list[tuple[int, int]], int]:
        """The statements' starts from (line, column) on, where the scan (`scan_statements`) is at
        `depth` after a token of type `prev`, and the old marks from `after` on are `moved` lines
        off, with how many of them are old marks taken again. A line whose tokens all stay inside
        brackets is passed over whole (`_summary`); the old marks are taken again from the first
        one at a line's start that the scan reaches at depth 0 after a token that can end a
        statement: the scan from there is the old one."""
        first, last = parser.statement_edges()
        marks, found = self.marks, []
        entries = [e for e in self.entries[line] if e[2] >= column]
        n = line
        while True:
            for kind, value, start, _, type_ in entries:
                if kind == "op":
                    depth = max(0, depth + NESTING.get(value, 0))
                elif kind == "kw" and depth == 0 and type_ in first and prev in last:
                    found.append((n, start))
                prev = type_
            n += 1
            if n >= len(self.lines):
                return found, 0
            if depth == 0 and prev in last:
                k = bisect.bisect_left(marks, (n - moved, 0), after)
                if k < len(marks) and marks[k] == (n - moved, 0):
                    return found + [(ln + moved, col) for ln, col in marks[k:]], len(marks) - k
            net, low, last_type = self._summary(n)
            if depth + low > 0:  # no token of the line is at depth 0, none closes past it
                depth += net
                prev = last_type or prev
                entries = []
            else:
                entries = self.entries[n]

    def _summary(self, n: int) -> tuple[int, int, str | None]:
        """Line n's brackets: (the change of depth across it, the lowest depth relative to its
        start before or after any token, the type of its last token), kept by the line's text."""
        text = self.lines[n]
        found = self.summaries.get(text)
        if found is None:
            depth = low = 0
            for kind, value, _, _, _ in self.entries[n]:
                if kind == "op":
                    depth += NESTING.get(value, 0)
                    low = min(low, depth)
            entries = self.entries[n]
            found = self.summaries[text] = (depth, low, entries[-1][4] if entries else None)
        return found

    def _window(self, line: int, column: int, end_line: int, end_column: int) -> tuple[list[Tok], list[int]]:
        """The tokens from (line, column) to before (end_line, end_column), with line-relative
        offsets, and the line of each."""
        toks: list[Tok] = []
        lines: list[int] = []
        for n in range(line, min(end_line + 1, len(self.lines))):
            for kind, value, start, end, type_ in self.entries[n]:
                if (n, start) < (line, column):
                    continue
                if (n, start) >= (end_line, end_column):
                    break
                toks.append(Tok(kind, value, start, end, type_))
                lines.append(n)
        return toks, lines

    def _all_marks(self) -> list[tuple[int, int]]:
        self.stats["full scans"] += 1
        toks, lines = self._window(0, 0, len(self.lines), 0)
        return [(lines[i], toks[i].start) if toks else (0, 0) for i in split_statements(toks)]


def _significant(line: str, entries: list[tuple]) -> str:
    """A line up to the end of its last token (what follows is spaces and a comment)."""
    return line[:entries[-1][3]] if entries else ""


def _common_start(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share (a binary search comparing pieces in place)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a.startswith(b[low:mid], low):
            low = mid
        else:
            high = mid - 1
    return low


def _common_end(a: str, b: str, limit: int) -> int:
    """How many trailing characters `a` and `b` share, at most `limit`."""
    low, high = 0, max(limit, 0)
    while low < high:
        mid = (low + high + 1) // 2
        if a.endswith(b[len(b) - mid:len(b) - low], 0, len(a) - low):
            low = mid
        else:
            high = mid - 1
    return low


def _line_starts_after(starts: list[int], lines: list[str], head: int, old_end: int, new_end: int) -> list[int]:
    """`_line_starts(lines)` from the old lines' `starts` after lines head..old_end-1 became
    head..new_end-1: those before are where they were, those after moved by one difference."""
    middle = list(itertools.accumulate(map(len, lines[head:new_end]), lambda at, n: at + n + 1, initial=starts[head]))
    if old_end >= len(starts):  # the change reaches the last line
        return starts[:head] + middle[:-1]
    return starts[:head] + middle + list(map((middle[-1] - starts[old_end]).__add__, starts[old_end + 1:]))


def _line_starts(lines: list[str]) -> list[int]:
    """The offset where each line starts (each line ends with one break)."""
    return list(map(operator.add, itertools.accumulate(map(len, lines[:-1]), initial=0), range(len(lines))))
