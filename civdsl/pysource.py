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


def comment_text(text: str) -> str:
    """Text safe to put after `#`: printable ASCII only."""
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)


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
    """The lines of a generated module, and which rulebook line each rule's code came from."""

    def __init__(self, source_path: str):
        self.lines: list[str] = []
        self.map: list[tuple[int, int]] = []
        self.source_path = source_path

    def line(self, text: str = "", rule_line: int | None = None) -> None:
        self.lines.append(text)
        if rule_line is not None:
            self.map.append((len(self.lines), rule_line))
