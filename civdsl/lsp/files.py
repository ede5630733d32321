"""Files, positions and the symbol index: one file of a chain as the editor sees it (text, line
table, tokens, syntax tree), and the declarations and uses of the index of references placed at
offsets of its text."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .. import roundexplain, syntax
from ..loader import LoadedFile
from ..references import Ref
from .tokens import Tok, tokenize, tokens_of_lines

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
                 state=None, ast: syntax.RulebookAst | None = None):
        self.text = text
        self.display = display
        self.path = path
        self.uri = uri or (path.resolve().as_uri() if path is not None else display)
        self.bom = bom  # the editor's buffer starts with a byte-order mark that the text lacks
        # an open buffer's lines and their tokens are its `incremental.TextState`'s, kept from edit to edit
        self._entries = state.entries if state is not None else None
        if state is not None:
            self.lines, self.line_starts = state.lines, state.line_starts
        else:
            self.lines = text.split("\n")
            starts = [0]
            for line in self.lines[:-1]:
                starts.append(starts[-1] + len(line) + 1)
            self.line_starts = starts
        self.ast = ast  # None while the text does not parse

    @functools.cached_property
    def tokens(self) -> list[Tok]:
        """Every token of the text but whitespace and comments (made when a feature first asks)."""
        if self._entries is None:
            return tokenize(self.text)
        return tokens_of_lines(self._entries, self.line_starts)

    def first_tokens(self, count: int) -> list[Tok]:
        """The first `count` tokens (fewer in a shorter text), made from the first lines alone
        where the lines are kept lexed (a header is read without tokenizing the whole buffer)."""
        if self._entries is None or "tokens" in self.__dict__:
            return self.tokens[:count]
        out: list[Tok] = []
        line = 0
        while len(out) < count and line < len(self._entries):
            out += tokens_of_lines(self._entries, self.line_starts, line, line + 1)
            line += 1
        return out[:count]

    def token_starting(self, offset: int) -> Tok | None:
        """The token starting at the offset, found in its line alone."""
        line, column = self.position(offset)
        if self._entries is None:
            _, tok = self.token_at(offset)
            return tok if tok is not None and tok.start == offset else None
        found = next((e for e in self._entries[line] if e[2] == column), None)
        return None if found is None else Tok(found[0], found[1], offset, offset + found[3] - found[2], found[4])

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
NAVIGABLE = frozenset({"advance", "calamity", "commodity", "civilization", "group", "const", "table", "option",
                        "track", "epoch", "edition", "fact", "item", *roundexplain.KINDS})
