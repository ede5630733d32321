"""Which values of an engine function are surely numbers, for the engines' translator (py2es): an
augmented assignment is translated as `x = x op v`, the same as Python's only where the value is a
number (Python changes a list, set or dict in place). OWN is the module's own functions and
classes: one of a built-in's name is not the built-in."""

from __future__ import annotations

import ast

from . import pyscopes

# the calls whose value is a number whatever they are given (or an error)
_NUMBER_CALLS = {"len", "int", "float", "abs", "round", "math.floor", "math.ceil", "Fraction"}


def number_locals(body: list, params: set, ints: set, own: set) -> set:
    """The locals every binding of which is a number, given that those are (the largest such
    set): a parameter, a loop target or an unpacked name holds what it is given, so is none."""
    bindings: dict[str, list] = {}
    plain = set()  # the Name nodes bound by `x = v`, `x: t = v` and `x op= v`
    for node in pyscopes.own_nodes(body):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bindings.setdefault(t.id, []).append(node.value)
                    plain.add(id(t))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            value = node.value if isinstance(node, ast.AnnAssign) else \
                ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
            bindings.setdefault(node.target.id, []).append(value)
            plain.add(id(node.target))
    bound_otherwise = {n.id for n in pyscopes.own_nodes(body)
                       if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and id(n) not in plain}
    numbers = set(bindings) - bound_otherwise - params
    while True:
        kept = {n for n in numbers
                if all(is_number(v, numbers | ints, own) for v in bindings[n] if v is not None)}
        if kept == numbers:
            return numbers | ints
        numbers = kept


def is_number(e, numbers: set, own: set) -> bool:
    """Whether E is surely a number (never a list, set, dict or text), NUMBERS the names that are:
    a number's + - / // % with anything is a number or an error, and so is anything's - / // a
    number; `*` only of two numbers (a whole number times a list is a list). No engine class
    defines an operator (special methods are outside the subset), so none can answer otherwise."""
    if isinstance(e, ast.Constant):
        return type(e.value) in (int, float, bool)
    if isinstance(e, ast.Name):
        return e.id in numbers
    if isinstance(e, ast.Call):  # (the module's own function of a built-in's name is not it)
        f = ast.unparse(e.func)
        return f in _NUMBER_CALLS and f not in own
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return is_number(e.operand, numbers, own)
    if isinstance(e, ast.IfExp):
        return is_number(e.body, numbers, own) and is_number(e.orelse, numbers, own)
    if isinstance(e, ast.BinOp):
        left, right = is_number(e.left, numbers, own), is_number(e.right, numbers, own)
        if isinstance(e.op, ast.Mult):
            return left and right
        return (left and isinstance(e.op, (ast.Add, ast.Sub, ast.Div, ast.FloorDiv, ast.Mod))) or \
            (right and isinstance(e.op, (ast.Sub, ast.Div, ast.FloorDiv)))
    return False
