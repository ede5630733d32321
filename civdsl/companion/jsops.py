"""The JavaScript runtime's operators, named once: the rules' expression compiler (jsgen.JSCompiler)
and the engines' translator (py2es) write every operator through this table, so both targets of a
rule and of an engine mean the same thing by `+`, `<` or `//` (core.js: exact ints below 2^53,
exact fractions, Python's order)."""

from __future__ import annotations

from ..expressions import MATH as MATH_FUNCTIONS

BINARY = {op: f"{fn}({{}}, {{}})" for op, fn in {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt",
                                                    ">=": "ge", "+": "add", "-": "sub", "*": "mul", "/": "div",
                                                    "//": "floordiv"}.items()}
MATH_CALLS = {**{name: name for name in MATH_FUNCTIONS}, "min": "min_", "max": "max_", "abs": "abs_"}
NOT, NEG = "not_({})", "neg({})"


def bare(text: str) -> str:
    """TEXT without the parentheses around the whole of it, where they only group: the place it goes
    (a condition, a returned or assigned value, an argument) is a whole expression already. Kept
    where the inside has a comma outside brackets (a sequence expression would read differently)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i += 1
            while text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0 and i < len(text) - 1:
                return text
        elif c == "," and depth == 1:
            return text
        i += 1
    return text[1:-1]
