"""Writing Python source safely, for the code generators (civdsl.codegen, civdsl.rounds.codegen).

Every identifier is made from a fixed prefix, a counter and an ASCII `slug`; comments and
docstrings carry only sanitised text; folded constants become values whose repr() is source.
`Writer` collects the lines and the map from generated lines to rulebook lines (`LINES`).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction


def slug(text: str, limit: int = 40) -> str:
    s = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return s[:limit] or "item"


_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")


def comment_text(text: str) -> str:
    """Text safe to put after `#`: printable ASCII only (one regex pass: a per-character loop
    here was a tenth of code generation)."""
    return _NOT_PRINTABLE_ASCII.sub("?", text)


def doc_text(text: str) -> str:
    """Text safe inside a triple-quoted docstring: printable ASCII, with `\\` and `"` escaped
    (so a name cannot close the docstring, nor start an escape such as `\\N{...}`)."""
    return comment_text(text).replace("\\", "\\\\").replace('"', '\\"')


class CodegenError(ValueError):
    """A rule the validator accepted but that cannot be compiled; reported as a diagnostic."""

    def __init__(self, code: str, message: str, span=None):
        super().__init__(message)
        self.code = code
        self.span = span


class _Fraction(Fraction):
    """An exact fraction whose repr() is Python source for it."""

    def __repr__(self) -> str:
        return f"_rt.div({self.numerator!r}, {self.denominator!r})"


class _Float(float):
    """A non-finite float whose repr() is Python source for it (`inf` alone is not)."""

    def __repr__(self) -> str:
        return f"float({float.__repr__(self)!r})"


def literal(value):
    """`value` (a folded constant) in a form whose repr() is valid Python source for it."""
    if isinstance(value, Fraction) and not isinstance(value, _Fraction):
        return int(value) if value.denominator == 1 else _Fraction(value)
    if isinstance(value, float) and not math.isfinite(value):
        return _Float(value)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3000:
        # repr() of an int refuses more than 4300 digits, and nothing on a game board needs it
        raise CodegenError("CIV043", f"the constant {value.bit_length()} bits long is too large to compile")
    return value


class Writer:
    """The lines of a generated module, and its source map: for each line that starts a rule's
    code, the rulebook file, line and column of that rule (a span of an inherited rule names the
    base's file). `at` is a Span, or a line number of the edition's own file."""

    def __init__(self, source_path: str, files: list[str] | None = None):
        self.lines: list[str] = []
        self.map: list[tuple[int, int]] = []  # (generated line, rulebook line): LINES
        self.at: list[tuple] = []  # parallel to map: (index in files, column, end column): LINE_SOURCES
        self.source_path = source_path
        self.files: list[str] = list(files or [source_path])  # LINE_FILES, the extends chain first

    def line(self, text: str = "", at=None) -> None:
        self.lines.append(text)
        if at is None:
            return
        if isinstance(at, int):
            path, line, column, end = self.source_path, at, 1, None
        else:
            path, line, column, end = at.path, at.line, at.column, at.end_column
        if path not in self.files:
            self.files.append(path)
        self.map.append((len(self.lines), line))
        self.at.append((self.files.index(path), column, end))

    def source_map(self) -> list[str]:
        """The module's closing lines: the map from its lines to rulebook files and lines."""
        # strings of `generated:rulebook` and `file:column:end` entries rather than tuple literals:
        # as a tuple literal the line map took a sixth of the time compile() spends on a module
        pairs = " ".join(f"{generated}:{rule}" for generated, rule in self.map)
        sources = " ".join(f"{f}:{column}:{'-' if end is None else end}" for f, column, end in self.at)
        return [f"LINES = _rt.line_map({pairs!r})", f"LINE_FILES = {tuple(self.files)!r}",
                f"LINE_SOURCES = {sources!r}"]
