"""`repr()` of the values the engines hold and `json.dumps(value, indent=2, ensure_ascii=False,
default=str)` (the command line's --json), written in the engine subset: the page writes a
message's value and an answer's text with these, translated (tests/test_pystd.py checks them
against Python's `repr` and `json.dumps`).

What the page cannot tell apart is written one way: a tuple is a list there (`[1, 2]`), and a
set's members come sorted by their text (Python's order is its hash order). A character is
escaped where Python's `str.isprintable()` refuses it among the ones a state file may plausibly
hold: controls, separators other than the space, format characters (bidi marks), lone surrogates.
"""

from __future__ import annotations

from fractions import Fraction

_HEX_DIGITS = "0123456789abcdef"
# json.dumps' escapes of a text: each character of _JSON_ESCAPED written as the same place of _JSON_WRITTEN
_JSON_ESCAPED = ('"', "\\", "\n", "\r", "\t", "\b", "\f")
_JSON_WRITTEN = ('\\"', "\\\\", "\\n", "\\r", "\\t", "\\b", "\\f")


def repr_of(value) -> str:
    """Python's repr() of VALUE (a tuple written as a list, a set's members sorted)."""
    if isinstance(value, str):
        return text_repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join([repr_of(x) for x in value]) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join([repr_of(k) + ": " + repr_of(v) for k, v in value.items()]) + "}"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(repr_of(x) for x in value)) + "}" if value else "set()"
    if isinstance(value, Fraction):
        return f"Fraction({value.numerator}, {value.denominator})"
    return str(value)


def text_repr(text: str) -> str:
    """repr() of a text: single quotes unless it holds one and no double quote."""
    quote = '"' if "'" in text and '"' not in text else "'"
    out = [quote]
    for ch in text:
        code: int = ord(ch)
        if ch == quote or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif _unprintable(code):
            out.append(_escape(code))
        else:
            out.append(ch)
    out.append(quote)
    return "".join(out)


def _escape(code: int) -> str:
    if code < 0x100:
        return "\\x" + _hex(code, 2)
    return "\\u" + _hex(code, 4) if code < 0x10000 else "\\U" + _hex(code, 8)


def _unprintable(code: int) -> bool:
    """Whether str.isprintable() refuses the character CODE (among those named in the docstring)."""
    return (code < 0x20 or 0x7F <= code <= 0xA0 or code == 0xAD or 0x2000 <= code <= 0x200F
            or 0x2028 <= code <= 0x202F or 0x205F <= code <= 0x206F or code == 0x3000 or code == 0xFEFF
            or 0xD800 <= code <= 0xDFFF or code == 0x1680 or code == 0x180E or 0xFFF9 <= code <= 0xFFFB)


def _hex(code: int, width: int) -> str:
    """CODE in lower-case hexadecimal, at least WIDTH digits."""
    digits = ""
    while code > 0 or len(digits) < width:
        digits = _HEX_DIGITS[code % 16] + digits
        code = code // 16
    return digits


def dumps(value, indent: int = 2) -> str:
    """json.dumps(VALUE, indent=INDENT, ensure_ascii=False, default=str)."""
    return _dumped(value, indent, 0)


def _dumped(value, step: int, depth: int) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _json_text(value)
    if isinstance(value, float):
        return _json_float(value)
    if isinstance(value, int):
        return str(value)
    pad = "\n" + " " * (step * (depth + 1))
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        return "[" + pad + ("," + pad).join([_dumped(x, step, depth + 1) for x in value]) + "\n" + " " * (step * depth) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [_json_text(str(k)) + ": " + _dumped(v, step, depth + 1) for k, v in value.items()]
        return "{" + pad + ("," + pad).join(items) + "\n" + " " * (step * depth) + "}"
    return _json_text(str(value))


def _json_float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    return "-Infinity" if value == float("-inf") else str(value)


def _json_text(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch in _JSON_ESCAPED:
            out.append(_JSON_WRITTEN[_JSON_ESCAPED.index(ch)])
        elif ord(ch) < 0x20:
            out.append("\\u" + _hex(ord(ch), 4))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)
