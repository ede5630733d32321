"""Prototype of route (a) (docs/engine-route.md; a measurement, not part of the package): a translator from a declared Python subset to ES2017 that writes every
operator through the JavaScript expression compiler's own templates (civdsl JSCompiler.BINARY,
MATH_CALLS, NOT), so engine code and rule code share one operator table and one exact runtime
(core.js: integers checked safe, fractions exact, Python ordering). Anything outside the subset
is refused with the line, never translated approximately."""
import ast
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from civdsl.companion.jsgen import JSCompiler  # noqa: E402

class Refused(Exception):
    pass

OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//"}
CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
# calls of the subset: Python name -> the runtime's (an exact Fraction is what div already makes)
CALLS = {"math.floor": JSCompiler.MATH_CALLS["floor"], "Fraction": "", "len": "pyLen",
         "sorted": "pySorted", "max": "pyMax", "enumerate": "pyEnumerate"}
PRELUDE = """
function pyCmp(a, b) {  // Python's order: numbers exactly, strings by code point, tuples lexicographically
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length && i < b.length; i++) { const c = pyCmp(a[i], b[i]); if (c) return c; }
    return a.length - b.length;
  }
  return order(a, b);
}
function pySorted(xs, key, reverse) {  // stable both ways, as Python's sorted
  const keyed = xs.map((x, i) => [key ? key(x) : x, i, x]);
  keyed.sort((p, q) => (reverse ? pyCmp(q[0], p[0]) : pyCmp(p[0], q[0])) || p[1] - q[1]);
  return keyed.map((p) => p[2]);
}
function pyLen(x) { return x instanceof Map ? x.size : x.length; }
function pyEnumerate(xs) { return xs.map((x, i) => [i, x]); }
function pyMax(xs, dflt) { let best; let first = true; for (const x of xs) { if (first || pyCmp(x, best) > 0) best = x; first = false; } return first ? dflt : best; }
"""

class Translator(ast.NodeVisitor):
    def __init__(self):
        self.out, self.depth, self.locals = [], 0, set()

    def refuse(self, node, why):
        raise Refused(f"line {getattr(node, 'lineno', '?')}: {why}")

    def line(self, text):
        self.out.append("  " * self.depth + text)

    def generic_visit(self, node):
        self.refuse(node, f"{type(node).__name__} is outside the subset")

    def visit_FunctionDef(self, node):
        if node.decorator_list or node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.defaults:
            self.refuse(node, "only plain positional parameters")
        self.locals = {a.arg for a in node.args.args}
        self.line(f"function {node.name}({', '.join(a.arg for a in node.args.args)}) {{")
        self.block(node.body)
        self.line("}")

    def block(self, body):
        self.depth += 1
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                continue  # docstring
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "fractions":
                continue  # exact division is the runtime's own
            self.visit(stmt)
        self.depth -= 1

    def visit_If(self, node):
        self.line(f"if (truthy({self.expr(node.test)})) {{")
        self.block(node.body)
        if node.orelse:
            self.line("} else {")
            self.block(node.orelse)
        self.line("}")

    def visit_For(self, node):
        target = self.target(node.target)
        self.line(f"for (const {target} of {self.expr(node.iter)}) {{")
        self.block(node.body)
        self.line("}")

    def target(self, t):
        if isinstance(t, ast.Name):
            return t.id
        if isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts):
            return "[" + ", ".join(e.id for e in t.elts) + "]"
        self.refuse(t, "a loop target is a name or a tuple of names")

    def visit_Return(self, node):
        self.line(f"return {self.expr(node.value) if node.value else 'null'};")

    def visit_Assign(self, node):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            self.refuse(node, "one name assigned at a time")
        name = node.targets[0].id
        decl = "" if name in self.locals else "let "
        self.locals.add(name)
        self.line(f"{decl}{name} = {self.expr(node.value)};")

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name) or type(node.op) not in OPS:
            self.refuse(node, "augmented assignment of a name with + - * / //")
        n = node.target.id
        self.line(f"{n} = {JSCompiler.BINARY[OPS[type(node.op)]].format(n, self.expr(node.value))};")

    def expr(self, e):
        if isinstance(e, ast.Constant):
            if e.value is None:
                return "null"
            if isinstance(e.value, bool):
                return "true" if e.value else "false"
            if isinstance(e.value, int):
                if abs(e.value) > 2**53 - 1:
                    self.refuse(e, "a whole number beyond 2^53")
                return str(e.value)
            if isinstance(e.value, str):
                return json.dumps(e.value)
            self.refuse(e, "a float literal (floats are not exact in both targets)")
        if isinstance(e, ast.Name):
            return e.id
        if isinstance(e, ast.BinOp) and type(e.op) in OPS:
            return JSCompiler.BINARY[OPS[type(e.op)]].format(self.expr(e.left), self.expr(e.right))
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return JSCompiler.NEG.format(self.expr(e.operand))
        if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in CMP:
            left, right = self.expr(e.left), self.expr(e.comparators[0])
            if self.is_tuple(e.left) or self.is_tuple(e.comparators[0]):
                return f"(pyCmp({left}, {right}) {CMP[type(e.ops[0])].replace('==', '===').replace('!=', '!==')} 0)"
            return JSCompiler.BINARY[CMP[type(e.ops[0])]].format(left, right)
        if isinstance(e, ast.Tuple):
            return "[" + ", ".join(self.expr(x) for x in e.elts) + "]"
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id not in ("math",):
            return f"{self.expr(e.value)}.{e.attr}"
        if isinstance(e, ast.Lambda):
            if len(e.args.args) != 1:
                self.refuse(e, "a key function of one parameter")
            return f"(({e.args.args[0].arg}) => {self.expr(e.body)})"
        if isinstance(e, ast.Call):
            return self.call(e)
        self.refuse(e, f"{type(e).__name__} is outside the subset")

    def is_tuple(self, e):
        return isinstance(e, ast.Tuple)

    def call(self, e):
        f = ast.unparse(e.func)
        if f not in CALLS:
            self.refuse(e, f"{f}() is not a function of the subset")
        args = [self.expr(a) for a in e.args]
        kw = {k.arg: self.expr(k.value) for k in e.keywords}
        if f == "Fraction":
            return args[0]
        if f == "sorted":
            return f"pySorted({args[0]}, {kw.pop('key', 'null')}, {kw.pop('reverse', 'false')})"
        if f == "max":
            return f"pyMax({args[0]}, {kw.pop('default', 'undefined')})"
        if kw:
            self.refuse(e, f"keyword arguments of {f}()")
        return f"{CALLS[f]}({', '.join(args)})"


def translate(source: str) -> str:
    t = Translator()
    for node in ast.parse(source).body:
        t.visit(node)
    return "\n".join(t.out) + "\n"
