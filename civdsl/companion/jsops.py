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
