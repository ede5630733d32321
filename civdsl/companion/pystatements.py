"""How py2es writes a statement: a block, a return, an expression statement (a list's or dict's
method), try and raise, if, while and for, assignments (to names, tuples, items and fields) and
augmented assignments. `StatementTranslation` is a part of py2es's `_Module`, which supplies
`expr`, `test`, `line`, `declare`, `refuse` and the module's scopes, functions and classes.
"""

from __future__ import annotations

import ast

from . import jsops, pynumbers, pyscopes

# Python's arithmetic operators written with the runtime's operator table (jsops.BINARY)
BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//"}
AUGMENTED = {op: f"{sign}=" for op, sign in {**BINARY, ast.Div: "/", ast.Mod: "%", ast.BitOr: "|",
                                               ast.BitAnd: "&", ast.BitXor: "^", ast.LShift: "<<",
                                               ast.RShift: ">>", ast.Pow: "**", ast.MatMult: "@"}.items()}


def is_super_init(call, any_arguments: bool = False) -> bool:
    """`super().__init__(message)`: one positional argument (ANY_ARGUMENTS: any positional ones,
    for an exception based on one of the module's with fields)."""
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"
            and isinstance(call.func.value, ast.Call) and ast.unparse(call.func.value) == "super()"
            and (len(call.args) == 1 or (any_arguments and call.args)) and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args))


class StatementTranslation:
    """The statements of an engine module's functions, written as JavaScript."""

    def block(self, body: list) -> None:
        for stmt in body:
            handler = getattr(self, f"stmt_{type(stmt).__name__}", None)
            if handler is None:
                self.refuse(stmt, f"the statement {type(stmt).__name__}")
            handler(stmt)

    def stmt_Pass(self, node) -> None:
        pass

    def stmt_Break(self, node) -> None:
        self.line("break;")

    def stmt_Continue(self, node) -> None:
        self.line("continue;")

    def stmt_ImportFrom(self, node) -> None:
        self._import(node)  # a late import (start-up time): the runtime has the names already

    stmt_Import = stmt_ImportFrom

    def stmt_FunctionDef(self, node) -> None:
        self._function(node, self.js_name(node.name))

    def stmt_Return(self, node) -> None:
        if node.value is None:
            self.line("return null;" if not self._in_generator else "return;")
        elif self._in_generator:
            self.refuse(node, "a generator returning a value")
        else:
            self.line(f"return {jsops.bare(self.expr(node.value))};")

    _in_generator = False
    _self_is_this = False

    def stmt_Expr(self, node) -> None:
        v = node.value
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return  # a comment in the form of a string
        if isinstance(v, ast.Yield):
            self.line(f"yield {self.expr(v.value) if v.value else 'null'};")
        elif isinstance(v, ast.YieldFrom):
            self.line(f"yield* pyIter({self.expr(v.value)});")
        elif getattr(self, "_exception_init", False) and is_super_init(v, True):
            self.line(f"super({', '.join(jsops.bare(self.expr(a)) for a in v.args)});")
        elif isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("append", "sort"):
            self.line(self._list_statement(v) + ";")
        elif isinstance(v, ast.Call):
            self.line(self.expr(v) + ";")
        else:
            self.refuse(node, f"an expression statement of {type(v).__name__}")

    def _list_statement(self, call: ast.Call) -> str:
        target = self.expr(call.func.value)
        if call.func.attr == "append":
            if len(call.args) != 1 or call.keywords:
                self.refuse(call, "append of other than one value")
            return f"{target}.push({self.expr(call.args[0])})"
        kw = self._keywords(call, {"key", "reverse"})
        if call.args:
            self.refuse(call, "sort with positional arguments")
        return f"pySort({target}, {kw.get('key', 'null')}, {kw.get('reverse', 'false')})"

    def stmt_Try(self, node) -> None:
        if node.orelse or node.finalbody:
            self.refuse(node, "try ... else or finally")
        caught = self.temp()
        self.line("try {")
        self._indented(node.body)
        self.line(f"}} catch ({caught}) {{")
        self.depth += 1
        for i, handler in enumerate(node.handlers):
            if handler.type is None or isinstance(handler.type, ast.Tuple):
                self.refuse(handler, "an except of other than one exception class")
            self.line(f"{'} else ' if i else ''}if ({self._caught(handler.type, caught)}) {{")
            self.depth += 1
            if handler.name:
                self.line(f"{self.js_name(handler.name)} = {caught};")
            self._handling.append(caught)  # a bare `raise` in the handler raises it again
            self.block(handler.body)
            self._handling.pop()
            self.depth -= 1
        self.line("} else {")
        self.line(f"  throw {caught};")
        self.line("}")
        self.depth -= 1
        self.line("}")

    def stmt_Raise(self, node) -> None:
        if node.exc is None and node.cause is None and self._handling:
            self.line(f"throw {self._handling[-1]};")
            return
        if node.cause is not None or not isinstance(node.exc, ast.Call):
            self.refuse(node, "a raise of other than an exception class with its message")
        kind = self._builtin_exception(node.exc.func)
        if kind is not None:
            if node.exc.keywords or len(node.exc.args) != 1:
                self.refuse(node, "a raise of other than an exception class with its message")
            self.line(f"throw new RuleError({kind}, {self.expr(node.exc.args[0])});")
            return
        cls = self._exception(node.exc.func)
        if self._has_fields(node.exc.func):
            self.line(f"throw {self.expr(node.exc)};")  # its __init__'s parameters, as any class call
            return
        if node.exc.keywords or len(node.exc.args) != 1:
            self.refuse(node, "a raise of other than an exception class with its message")
        self.line(f"throw new {cls}({self.expr(node.exc.args[0])});")

    def _has_fields(self, node) -> bool:
        """Whether the exception class is one with fields (made by its own __init__)."""
        name = ast.unparse(node)
        cls = self.classes.get(name) or self._imported_class(name)
        return cls is not None and any(isinstance(item, ast.FunctionDef) for item in cls.body)

    def stmt_If(self, node) -> None:
        self.line(f"if ({jsops.bare(self.test(node.test))}) {{")
        self._indented(node.body)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            self.line(f"}} else if ({jsops.bare(self.test(node.test))}) {{")
            self._indented(node.body)
        if node.orelse:
            self.line("} else {")
            self._indented(node.orelse)
        self.line("}")

    def _indented(self, body: list) -> None:
        self.depth += 1
        self.block(body)
        self.depth -= 1

    def stmt_While(self, node) -> None:
        if node.orelse:
            self.refuse(node, "while ... else")
        self.line(f"while ({jsops.bare(self.test(node.test))}) {{")
        self._indented(node.body)
        self.line("}")

    def stmt_For(self, node) -> None:
        if node.orelse:
            self.refuse(node, "for ... else")
        it = node.iter
        if isinstance(it, ast.Call) and ast.unparse(it.func) == "range" and isinstance(node.target, ast.Name) \
                and not it.keywords and 1 <= len(it.args) <= 3 and self._constant_step(it):
            # a counted loop; the counter is a hidden one, as changing the name in the body does not
            # change the walk in Python
            args = [self.expr(a) for a in it.args]
            start, stop = (args[0], args[1]) if len(args) > 1 else ("0", args[0])
            step = pyscopes.step_value(it)
            counter, end = self.temp(), self.temp()
            self.line(f"for (let {counter} = {start}, {end} = {stop}; {counter} {'<' if step > 0 else '>'} {end}; "
                      f"{counter} += {step}) {{")
            self.depth += 1
            self.line(f"{self.js_name(node.target.id)} = {counter};")
            self.block(node.body)
            self.depth -= 1
            self.line("}")
            return
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items" \
                and not it.args and not it.keywords:
            # a dict's items walked in place (Python forbids changing a dict's size while walking it)
            self.line(f"for ({self.target(node.target)} of pyItems({self.expr(it.func.value)})) {{")
        else:
            self.line(f"for ({self.target(node.target)} of pyIter({self.expr(it)})) {{")
        self._indented(node.body)
        self.line("}")

    def _constant_step(self, call: ast.Call) -> bool:
        return len(call.args) < 3 or pyscopes.step_value(call) is not None

    def target(self, t, last: dict | None = None) -> str:
        """A loop or comprehension target: a name or (nested) tuples of names. A name bound twice
        in one pattern (`for k, _, _ in ...`) keeps the last value, as in Python: its earlier places
        are holes (a declaration may not bind one name twice in JavaScript)."""
        if last is None:
            names = [n for n in ast.walk(t) if isinstance(n, ast.Name)]
            names.sort(key=lambda n: (n.lineno, n.col_offset))
            last = {n.id: n for n in names}
        if isinstance(t, ast.Name):
            if not self.is_local(t.id):
                self.refuse(t, f"the name {t.id}")
            return self.js_name(t.id) if last.get(t.id) is t else ""
        if isinstance(t, (ast.Tuple, ast.List)):
            return "[" + ", ".join(self.target(e, last) for e in t.elts) + "]"
        self.refuse(t, "a loop target other than names")

    def stmt_Assign(self, node) -> None:
        if len(node.targets) == 1:
            self.assign(node.targets[0], node.value)
            return
        t = self.temp()
        self.line(f"const {t} = {self.expr(node.value)};")
        for target in node.targets:
            self.assign_text(target, t)

    def stmt_AnnAssign(self, node) -> None:
        if node.value is not None:
            self.assign(node.target, node.value)

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) \
                and all(isinstance(e, ast.Name) for e in target.elts):
            self.line(f"{self.target(target)} = {self.expr(value)};")
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) \
                and all(isinstance(v, (ast.Name, ast.Constant)) for v in value.elts) \
                and not {v.id for v in value.elts if isinstance(v, ast.Name)} & pyscopes.written_names(target):
            # `self.a, self.b = a, b`: nothing assigned is read after, so one at a time is the same
            for e, v in zip(target.elts, value.elts):
                self.assign_text(e, self.expr(v))
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
            self.line(f"{self.target(target)} = {self._unpacked(value, len(target.elts))};")
        elif isinstance(target, (ast.Tuple, ast.List)):
            t = self.temp()
            self.line(f"const {t} = {self._unpacked(value, len(target.elts))};")
            for i, e in enumerate(target.elts):
                self.assign_text(e, f"{t}[{i}]")
        else:
            self.assign_text(target, jsops.bare(self.expr(value)))

    def _unpacked(self, value, n: int) -> str:
        if isinstance(value, ast.Tuple) and len(value.elts) == n:
            return self.expr(value)
        return f"pyUnpack({self.expr(value)}, {n})"

    def assign_text(self, target, text: str) -> None:
        if isinstance(target, ast.Name):
            self.line(f"{self.name(target)} = {text};")
        elif isinstance(target, ast.Attribute):
            self.line(f"{self.expr(target.value)}.{self.attribute(target)} = {text};")
        elif isinstance(target, ast.Subscript):
            if isinstance(target.slice, ast.Slice):
                self.refuse(target, "assignment to a slice")
            self.line(f"pySetItem({self.expr(target.value)}, {self.expr(target.slice)}, {text});")
        elif isinstance(target, (ast.Tuple, ast.List)):
            t = self.temp()
            self.line(f"const {t} = pyUnpack({text}, {len(target.elts)});")
            for i, e in enumerate(target.elts):
                self.assign_text(e, f"{t}[{i}]")
        else:
            self.refuse(target, f"assignment to {type(target).__name__}")

    def stmt_AugAssign(self, node) -> None:
        # Python changes a list, set or dict in place (another name holding it sees the change),
        # where `x = x op v` (the translation) makes a new one: only a number is sure to be alike
        numbers = self.scopes[-1].numbers if self.scopes else set()
        own = self._own_names()
        if not pynumbers.is_number(node.target, numbers, own) and \
                (isinstance(node.op, ast.Mult) or not pynumbers.is_number(node.value, numbers, own)):
            self.refuse(node, f"`{ast.unparse(node.target)} {AUGMENTED[type(node.op)]}` on a value not surely a "
                              "number (Python changes a list, set or dict in place: write `.extend(...)`, "
                              "`.update(...)` or `x = x + ...`)")
        t = node.target
        if isinstance(t, ast.Name):
            current = ast.Name(t.id, ast.Load(), lineno=t.lineno)
        elif isinstance(t, ast.Attribute):
            current = ast.Attribute(t.value, t.attr, ast.Load(), lineno=t.lineno)
        elif isinstance(t, ast.Subscript) and pyscopes.plain_path(t.value) and not isinstance(t.slice, ast.Slice):
            current = ast.Subscript(t.value, t.slice, ast.Load(), lineno=t.lineno)
        else:
            self.refuse(node, "augmented assignment to other than a name, attribute or item of a name")
        value = ast.BinOp(current, node.op, node.value, lineno=node.lineno)
        self.assign_text(t, self.expr(value))

    def stmt_Delete(self, node) -> None:
        for t in node.targets:
            if not isinstance(t, ast.Subscript) or isinstance(t.slice, ast.Slice):
                self.refuse(node, "del of other than one item")
            self.line(f"pyDelItem({self.expr(t.value)}, {self.expr(t.slice)});")
