"""What a Python function's body declares, for the engines' translator (py2es): its locals, the
names it declares `int`, its nested functions, whether it is a generator. The walks stop at
nested functions, lambdas and comprehensions, whose names are their own (Python's scopes)."""

from __future__ import annotations

import ast


def written_names(target) -> set:
    """Every name a target mentions (`self` of `self.a`, `d` and `k` of `d[k]`)."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def plain_path(e) -> bool:
    """A name or a name's attribute (self.stats): reading it twice reads the same."""
    return isinstance(e, ast.Name) or isinstance(e, ast.Attribute) and plain_path(e.value)


def target_names(t) -> set:
    if isinstance(t, ast.Name):
        return {t.id}
    if isinstance(t, (ast.Tuple, ast.List)):
        return set().union(*[target_names(e) for e in t.elts])
    return set()


_NESTED_SCOPES = (ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# each body's nodes, listed once (the translator asks for a function's several times), with the
# body itself: an entry is read only for the very list it was made from
_OWN_NODES: dict[int, tuple[list, tuple]] = {}


def own_nodes(body: list) -> tuple:
    """The nodes of a function's body, not those of the functions, lambdas and comprehensions in it."""
    known = _OWN_NODES.get(id(body))
    if known is not None and known[0] is body:
        return known[1]
    found, stack = [], list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    _OWN_NODES[id(body)] = (body, tuple(found))
    return _OWN_NODES[id(body)][1]


def assigned_names(body: list) -> set:
    names = set()
    for node in own_nodes(body):
        if isinstance(node, (ast.Assign,)):
            for t in node.targets:
                names |= target_names(t)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For)):
            names |= target_names(node.target)
        elif isinstance(node, ast.ImportFrom) and not node.level:  # a civdsl module's names are the module's
            names |= {a.asname or a.name for a in node.names if node.module != "fractions"}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def nested_defs(body: list) -> set:
    return {n.name for n in own_nodes(body) if isinstance(n, ast.FunctionDef)}


def int_declared(body: list) -> set:
    """The names a body declares `int` (`x: int = ...`) or counts with (`for i in range(...)`,
    `for i, x in enumerate(...)`)."""
    names = set()
    for node in own_nodes(body):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and is_int_annotation(node.annotation):
            names.add(node.target.id)
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
            f = ast.unparse(node.iter.func)
            if f == "range" and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif f == "enumerate" and isinstance(node.target, ast.Tuple) and isinstance(node.target.elts[0], ast.Name):
                names.add(node.target.elts[0].id)
    return names


def is_int_annotation(a) -> bool:
    return a is not None and ast.unparse(a) == "int"


def is_generator(fn: ast.FunctionDef) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(fn.body))


def step_value(call: ast.Call):
    if len(call.args) < 3:
        return 1
    s = call.args[2]
    if isinstance(s, ast.Constant) and type(s.value) is int and s.value:
        return s.value
    if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub) and isinstance(s.operand, ast.Constant) \
            and type(s.operand.value) is int and s.operand.value:
        return -s.operand.value
    return None


def comprehension_values(e) -> list:
    return [e.key, e.value] if isinstance(e, ast.DictComp) else [e.elt]
