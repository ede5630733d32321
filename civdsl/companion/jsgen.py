"""The second code-generation target: an edition's rules as one self-contained JavaScript program.

`engine_script(module)` returns plain ES2017 (no modules, no eval, no Function()) that sets
`globalThis.civdsl` in a browser or in Node: the generic runtime (runtime/*.js, the twin of
civdsl/runtime.py), then `const MODEL = ...` (the compiled module's data, `model_data`), then the
rules of this edition compiled from the same resolved model as codegen.py compiles them to Python
(calamity functions per role, epoch requirements, score lines, tables, start credits), then the
wiring (api.js), all inside one strict IIFE.

Safety by construction, as in codegen.py: every value from a rulebook is written by `js_literal`
(strings as JSON string literals with every non-ASCII character and `<`, `>`, `&` escaped, so the
text is safe in JavaScript and inside an inline HTML <script>), every identifier is made here from
a fixed prefix and a counter, and comments carry only letters, digits and a few punctuation marks.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from importlib import resources
from pathlib import Path

from .. import describe
from .. import vocabulary as vocab
from ..codegen import (_AmountRules, _collect, _conjuncts, _count_effects, _disjuncts, _never_unknown,
                       _reads_ast, source_hashes)
from ..expressions import MATH as MATH_FUNCTIONS
from ..expressions import EvalError, evaluate, unparse
from ..model import Edition, Effect, EffectBranch
from ..pysource import CodegenError, literal
from ..syntax import BinOp, Bool, Call, Name, Neg, Not, Num, Str, Unknown

# The runtime files in the order they are concatenated; jscost's and page's files join when present.
RUNTIME_BEFORE = ("core.js", "resolve.js", "epoch.js", "score.js", "credits.js", "plan.js")
RUNTIME_AFTER = ("api.js",)
# The generated module's own bookkeeping: the source map of its Python lines means nothing here.
_NOT_MODEL = {"LINES", "LINE_FILES", "LINE_SOURCES"}
_COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")
_COMPARE_FN = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_ARITH_FN = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv"}


# --- literals ------------------------------------------------------------------------------------

def js_string(text: str) -> str:
    """A JavaScript string literal for `text`: JSON with every non-ASCII character escaped (U+2028,
    U+2029 and lone surrogates included) and `<`, `>`, `&` escaped, so that neither `</script` nor
    `<!--` can appear, whatever the rulebook says."""
    out = json.dumps(text, ensure_ascii=True)
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def js_json(value) -> str:
    """JSON text of plain data as a JavaScript expression that builds it: `JSON.parse('...')`, so a
    key such as `__proto__` is an own key like any other (an object literal would set the prototype).
    The literal is single-quoted (JSON's own quotes then need no escape: a fifth smaller); the JSON
    text is ASCII, and its backslashes, single quotes and `<`, `>`, `&` are escaped."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))  # no spaces: page weight
    text = text.replace("\\", "\\\\").replace("'", "\\'")
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"JSON.parse('{text}')"


# MODEL's tables of records (ADVANCES, COMMODITIES, CALAMITIES, ...) travel as rows of values
# with their field names once, a fifth of the page's data less; `modelRows` rebuilds the same
# objects (fields in the same order; defineProperty, so a name such as `__proto__` stays an own
# key as JSON.parse makes it). Which constants are tables is said apart from the data, so no
# rulebook name can be mistaken for the encoding.
MODEL_ROWS_JS = """function modelRows(tables, model) {
  function define(obj, key, value) {
    Object.defineProperty(obj, key, {value: value, writable: true, enumerable: true, configurable: true});
  }
  function record(fields, row) {
    const out = {};
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (typeof field === "string") define(out, field, row[i]);
      else define(out, field[0], record(field[1], row[i]));
    }
    return out;
  }
  for (const name of Object.keys(tables)) {
    const rows = model[name], table = {};
    for (const key of Object.keys(rows)) define(table, key, record(tables[name], rows[key]));
    model[name] = table;
  }
  return model;
}"""


def _shape(records: list) -> list | None:
    """The fields of RECORDS, two or more mappings with the same fields in the same order (else
    None); a field whose values are again such records is [its name, their fields]."""
    if len(records) < 2 or not all(isinstance(record, dict) for record in records):
        return None
    shapes = {tuple(record) for record in records}
    if len(shapes) != 1:
        return None
    fields = shapes.pop()
    if not fields:
        return None
    spec = []
    for field in fields:
        inner = _shape([record[field] for record in records])
        spec.append(field if inner is None else [field, inner])
    return spec


def _record_fields(value) -> list | None:
    """The fields of a table: a mapping of records of one shape (see `_shape`), else None."""
    return _shape(list(value.values())) if isinstance(value, dict) else None


def _row(record: dict, fields: list) -> list:
    return [record[f] if isinstance(f, str) else _row(record[f[0]], f[1]) for f in fields]


def js_model(data: dict) -> str:
    """MODEL (`model_data`'s mapping) as a JavaScript expression that builds it, its tables of
    records as rows (see MODEL_ROWS_JS)."""
    tables, rows = {}, {}
    for name, value in data.items():
        fields = _record_fields(value)
        if fields is None:
            rows[name] = value
        else:
            tables[name] = fields
            rows[name] = {key: _row(record, fields) for key, record in value.items()}
    return f"modelRows({js_json(tables)}, {js_json(rows)})"


def js_literal(value) -> str:
    """A folded value (int, bool, float, Fraction, str, None, tuple, list) as JavaScript that makes
    the runtime's value of the same Python type (a float stays a float, a Fraction exact)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value >= 0 else f"({value})"
    if isinstance(value, Fraction):
        return f"fr({value.numerator}, {value.denominator})"
    if isinstance(value, float):
        if math.isnan(value):
            return "pf(NaN)"
        if math.isinf(value):
            return "pf(Infinity)" if value > 0 else "pf(-Infinity)"
        return f"pf({value!r})"
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(js_literal(v) for v in value) + "]"
    raise CodegenError("CIV043", f"a value of type {type(value).__name__} cannot be written in JavaScript")


def js_comment(text: str) -> str:
    """Text safe after `//` in a script that may sit in HTML: letters, digits and `._/:-` only."""
    return re.sub(r"[^A-Za-z0-9_./:\- ]", "?", text)


# --- MODEL ---------------------------------------------------------------------------------------

def model_data(module) -> dict:
    """`{NAME: value}` for every public UPPER_CASE data constant of a compiled module: tuples become
    lists, records plain objects; a rule function inside a constant becomes null (its JavaScript twin
    is generated into RULES); a Fraction becomes the nearest float and an infinite float null (JSON
    holds neither; the generated rules keep both exact). A constant keyed by something other than
    text (the card game's card table) is left out."""
    out = {}
    for name, value in vars(module).items():
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name) or name in _NOT_MODEL:
            continue
        try:
            out[name] = _plain(value)
        except _NotPlain:
            continue
    return out


class _NotPlain(Exception):
    pass


def _plain(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _NotPlain
        return {k: _plain(v) for k, v in value.items()}
    if callable(value):
        return None
    raise _NotPlain


# --- expressions -----------------------------------------------------------------------------------

class JSCompiler:
    """A player-level expression as JavaScript over `s` (the runtime's PlayerState): the twin of
    expressions.PythonCompiler. Every operator is a runtime call (add, compare, and_, ...) so that
    Unknown values, Python's int/float/Fraction arithmetic and three-valued logic hold exactly."""

    def __init__(self, consts: dict, options: dict, tables: set):
        self.consts = consts
        self.options = options
        self.tables = tables
        self.held = "s.heldSet"
        self.const_exprs: dict = {}
        self._expanding: set = set()
        self.paths: dict[str, str] = {}  # rulebook file -> the constant naming it (written once)

    def path(self, path: str) -> str:
        """The rulebook file of a rule, as a constant written once at the top of the rules."""
        if path not in self.paths:
            self.paths[path] = f"rulePath{len(self.paths)}"
        return self.paths[path]

    def compile(self, e) -> str:
        if isinstance(e, (Num, Str, Bool)):
            return js_literal(e.value)
        if isinstance(e, Unknown):
            return "null"
        if isinstance(e, Name):
            head = e.parts[0]
            if head in self.consts:
                return js_literal(self.consts[head])
            if head in self.const_exprs:
                if head in self._expanding:
                    raise ValueError(f"constant `{head}` is defined in terms of itself")
                self._expanding.add(head)
                try:
                    return f"({self.compile(self.const_exprs[head])})"
                finally:
                    self._expanding.discard(head)
            if head in self.options:
                return f"s.option({js_string(head)})"
            if head in vocab.DERIVED_NAMES:
                return f"s.derived({js_string(head)})"
            return f"s.fact({js_string(head)})"
        if isinstance(e, Not):
            return f"not_({self.compile(e.operand)})"
        if isinstance(e, Neg):
            return f"neg({self.compile(e.operand)})"
        if isinstance(e, BinOp) and e.op in ("and", "or"):
            parts = [self.compile(x) for x in _chain(e, e.op)]
            return f"{e.op}_({parts[0]}, {', '.join('() => ' + x for x in parts[1:])})"
        if isinstance(e, BinOp):
            left, right = self.compile(e.left), self.compile(e.right)
            fn = _COMPARE_FN.get(e.op) or _ARITH_FN[e.op]
            return f"{fn}({left}, {right})"
        if isinstance(e, Call):
            return self._call(e)
        raise TypeError(type(e))

    def _table_query(self, e: Call) -> str:
        """A question about other players (expressions.PythonCompiler._table_query): its argument is
        compiled as a function of that player's state."""
        relation = next((v.parts[0] for k, v in e.kwargs.items() if k in ("by", "among")), None)
        inner = "null"
        if e.args:
            held, self.held = self.held, "s.heldSet"  # the other player's advances, not the victim's
            try:
                inner = f"(s) => {self.compile(e.args[0])}"
            finally:
                self.held = held
        if e.name == "neighbours":
            return f"s.neighbours({js_string(relation or 'land')})"
        if e.name == "most_among":
            return f"s.most_among({inner}, {js_string(relation or 'others')})"
        return f"s.of_role({js_string(e.name.removeprefix('of_'))}, {inner})"

    def _call(self, e: Call) -> str:
        if e.name in vocab.FUNCTIONS and vocab.FUNCTIONS[e.name].scope == "table":
            return self._table_query(e)
        args = [self.compile(a) for a in e.args]
        if e.name in self.tables:
            return f"lookup(RULE_TABLES.get({js_string(e.name)}), {args[0]})"
        fn = vocab.FUNCTIONS[e.name]
        if fn.scope == "math":
            name = {"min": "min_", "max": "max_", "abs": "abs_"}.get(e.name, e.name)
            return f"{name}({', '.join(args)})"
        if e.name == "holds":
            return f"{self.held}.has({args[0]})"
        kwargs = []
        for key, value in e.kwargs.items():
            assert key in fn.kwargs, key
            compiled = js_string(value.parts[0]) if key == "group" and isinstance(value, Name) else self.compile(value)
            kwargs.append(f"{js_string(key)}: {compiled}")
        if fn.kwargs:
            args.append("{" + ", ".join(kwargs) + "}")
        return f"s.{fn.name}({', '.join(args)})"


def _chain(e, op: str) -> list:
    out, stack = [], [e]
    while stack:
        node = stack.pop()
        if isinstance(node, BinOp) and node.op == op:
            stack.extend([node.right, node.left])
        else:
            out.append(node)
    return out


def _set_value_expr(expr, consts: dict) -> str:
    """set_value reads only n, face, constants and numbers (codegen._set_value_expr)."""
    sub = lambda e: _set_value_expr(e, consts)  # noqa: E731
    if isinstance(expr, (Num, Bool)):
        return js_literal(expr.value)
    if isinstance(expr, Name) and len(expr.parts) == 1:
        if expr.parts[0] in ("n", "face"):
            return expr.parts[0]
        if expr.parts[0] in consts:
            return js_literal(consts[expr.parts[0]])
    if isinstance(expr, Neg):
        return f"neg({sub(expr.operand)})"
    if isinstance(expr, Not):
        return f"not_({sub(expr.operand)})"
    if isinstance(expr, BinOp) and expr.op in ("and", "or"):
        return f"{expr.op}_({sub(expr.left)}, () => {sub(expr.right)})"
    if isinstance(expr, BinOp) and expr.op in tuple(_ARITH_FN) + _COMPARE_OPS:
        fn = _COMPARE_FN.get(expr.op) or _ARITH_FN[expr.op]
        return f"{fn}({sub(expr.left)}, {sub(expr.right)})"
    if isinstance(expr, Call) and not expr.kwargs and expr.name in MATH_FUNCTIONS:
        name = {"min": "min_", "max": "max_", "abs": "abs_"}.get(expr.name, expr.name)
        return f"{name}({', '.join(sub(a) for a in expr.args)})"
    raise CodegenError("CIV043", f"set_value cannot use `{unparse(expr)}`", getattr(expr, "span", None))


def _const_value(consts: dict, options: dict, expr, table: str):
    def lookup(name: Name):
        head = name.parts[0]
        if len(name.parts) == 1 and head in consts:
            return consts[head]
        if len(name.parts) == 1 and head in options:
            return options[head]
        raise EvalError(f"`{name.dotted}` is not a constant", name.span)

    try:
        return literal(evaluate(expr, lookup))
    except (EvalError, ArithmeticError, ValueError, TypeError) as exc:
        raise CodegenError("CIV043", f"a value of table `{table}` must be a constant: {exc}",
                           getattr(expr, "span", None)) from None


# --- the rules -------------------------------------------------------------------------------------

class _Out:
    """Lines of generated JavaScript."""

    def __init__(self):
        self.lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)


def rules_source(ed: Edition) -> str:
    """The JavaScript of one edition's rules: RULE_TABLES and RULES, read by the runtime."""
    consts = {}
    for k, c in ed.consts.items():
        if c.value is not None:
            consts[k] = literal(c.value)
    options = {k: o.on for k, o in ed.options.items()}
    c = JSCompiler(consts, options, set(ed.tables))
    c.const_exprs = {k: cn.expr for k, cn in ed.consts.items() if cn.value is None}
    w = _Out()
    w.line("// the rules of this edition, compiled from its rulebook by civdsl (civdsl/companion/jsgen.py)")
    w.line("const RULE_TABLES = new Map([")
    for t in ed.tables.values():
        bands = [(b.low, b.high, _const_value(consts, options, b.value, t.id)) for b in t.bands]
        w.line(f"  [{js_string(t.id)}, {js_literal(bands)}],")
    w.line("]);")
    w.line("")
    w.line("function rule_set_value(n, face) {")
    w.line(f"  return {_set_value_expr(ed.set_value, consts) if ed.set_value is not None else 'mul(n, face)'};")
    w.line("}")
    off = "null"
    if ed.set_value_off_block is not None:
        expr, when, span = ed.set_value_off_block
        w.line("")
        w.line("function rule_set_value_off_block(n, face) {")
        w.line(f"  return {_set_value_expr(expr, consts)};")
        w.line("}")
        cond = f"(s) => {c.compile(when)}" if when is not None else "null"
        off = f"{{value: rule_set_value_off_block, when: {cond}, line: {span.line}}}"

    calamities = []
    c.held = "held"
    for index, cal in enumerate(ed.calamities.values()):
        fn = f"rule_calamity_{index}"
        calamities.append((cal.name, fn))
        _calamity(w, c, cal, fn, _AmountRules(ed, cal))
    c.held = "s.heldSet"

    tracks = []
    for ti, track in enumerate(ed.asts.values()):
        epoch_fns, back_fns = [], []
        for ei, epoch in enumerate(track.epochs):
            fn = f"rule_epoch_{ti}_{ei}"
            epoch_fns.append((epoch.name, fn))
            w.line("")
            w.line(f"function {fn}(s) {{  // {js_comment(epoch.span.path)}:{epoch.span.line}")
            w.line("  return [")
            for req in epoch.requirements:
                for part in _conjuncts(req.expr):
                    w.line(f"    {_requirement(c, part, req, each_step=req.each_step)},")
            w.line("  ];")
            w.line("}")
        for bi, (expr, span) in enumerate(track.backward):
            fn = f"rule_backward_{ti}_{bi}"
            back_fns.append(fn)
            w.line("")
            w.line(f"function {fn}(s) {{  // {js_comment(span.path)}:{span.line}")
            w.line(f"  return {_requirement(c, expr, None, span.line)};")
            w.line("}")
        tracks.append((track.id, epoch_fns, back_fns))

    sc = ed.start_credits
    start = "null"
    if sc is not None:
        unless = f"(s) => {c.compile(sc.unless)}" if sc.unless is not None else "null"
        start = f"{{amount: (s) => {c.compile(sc.amount)}, unless: {unless}}}"
    score = {}
    for attr, lines in (("points", ed.score.points if ed.score else []),
                        ("tiebreaks", ed.score.tiebreaks if ed.score else [])):
        score[attr] = [f"[{js_string(line.label)}, (s) => {c.compile(line.expr)}, {line.span.line}]" for line in lines]
    facts = {f.name: {"type": f.type, "minimum": f.minimum} for f in vocab.FACTS.values()}

    w.line("")
    w.line("const RULES = {")
    w.line("  setValue: rule_set_value,")
    w.line(f"  offBlock: {off},")
    w.line("  calamities: new Map([")
    for name, fn in calamities:
        w.line(f"    [{js_string(name)}, {fn}],")
    w.line("  ]),")
    w.line("  ast: new Map([")
    for tid, epoch_fns, back_fns in tracks:
        epochs = ", ".join(f"[{js_string(n)}, {fn}]" for n, fn in epoch_fns)
        w.line(f"    [{js_string(tid)}, {{epochs: [{epochs}], backward: [{', '.join(back_fns)}]}}],")
    w.line("  ]),")
    w.line(f"  startCredits: {start},")
    w.line("  score: {")
    for attr, items in score.items():
        w.line(f"    {attr}: [")
        for item in items:
            w.line(f"      {item},")
        w.line("    ],")
    w.line("  },")
    w.line(f"  facts: {js_json(facts)},")
    w.line("};")
    paths = [f"const {name} = {js_string(path)};" for path, name in c.paths.items()]
    return "\n".join(w.lines[:1] + paths + w.lines[1:]) + "\n"


def _requirement(c: JSCompiler, expr, req, line: int | None = None, each_step: bool = False) -> str:
    line = line if line is not None else req.span.line
    text = req.why if (req is not None and req.why and _conjuncts(req.expr) == [expr]) else describe.condition(expr)
    step = ", true" if each_step else ""
    alternatives = _disjuncts(expr)
    if len(alternatives) > 1:
        parts = ", ".join("[" + ", ".join(_requirement_part(c, p, line) for p in _conjuncts(alt)) + "]"
                          for alt in alternatives)
        return f"requirementAny({js_string(text)}, [{parts}], {line}{step})"
    if isinstance(expr, BinOp) and expr.op in _COMPARE_OPS:
        return (f"requirement({js_string(text)}, {c.compile(expr.left)}, {js_string(expr.op)}, "
                f"{c.compile(expr.right)}, {line}{step})")
    return f"requirementBool({js_string(text)}, {c.compile(expr)}, {line}{step})"


def _requirement_part(c: JSCompiler, expr, line: int) -> str:
    if isinstance(expr, BinOp) and expr.op in _COMPARE_OPS:
        return (f"requirement({js_string(describe.quantity(expr.left))}, {c.compile(expr.left)}, "
                f"{js_string(expr.op)}, {c.compile(expr.right)}, {line})")
    return f"requirementBool({js_string(describe.condition(expr))}, {c.compile(expr)}, {line})"


# --- calamities (the twin of codegen._calamity) ----------------------------------------------------

def _calamity(w: _Out, c: JSCompiler, cal, fn: str, rules) -> None:
    """One function per calamity, straight-line code per role, as codegen._calamity writes it in
    Python: each effect parameter a local variable, each modifier condition evaluated once, the
    modifier operations in their evaluation order."""
    body = _Out()
    body.line("  if (role === \"primary\") {")
    for expr, span in cal.cancel:
        body.line(f"    if (s.decide({c.compile(expr)}, {span.line}, {c.path(span.path)}, "
                  f"\"whether the calamity is cancelled\")) {{")
        body.line(f"      return cancelled({js_string(cal.name)}, role, s, {span.line}, "
                  f"{js_string('cancelled: ' + describe.condition(expr))}, {c.path(span.path)});")
        body.line("    }")
    _role_body(body, c, cal, "primary", cal.primary, rules)
    body.line("  }")
    if cal.secondary:
        body.line("  {")
        _role_body(body, c, cal, "secondary", cal.secondary.effects, rules)
        body.line("  }")
    else:
        body.line("  // only the primary victim suffers this calamity")
        body.line(f"  return resolution({js_string(cal.name)}, role, s, [], null, [], [], false, null, null);")
    names = sorted({m.group(1) for line in body.lines for m in [re.match(r"\s*([A-Za-z_]\w*) = ", line)] if m})
    w.line("")
    w.line(f"function {fn}(s, role) {{  // {js_comment(cal.span.path)}:{cal.span.line}")
    w.line("  const held = s.heldSet;")
    if names:
        w.line(f"  let {', '.join(names)};")
    w.lines.extend(body.lines)
    w.line("}")


def _role_body(w: _Out, c: JSCompiler, cal, role: str, effects: list, rules) -> None:
    ind = "    "
    if role == "secondary":
        for ex in cal.exclusions:
            if ex.condition is not None:
                w.line(f"{ind}excluded = s.decide({c.compile(ex.condition)}, {ex.span.line}, {c.path(ex.span.path)}, "
                       f"\"whether the victim may be chosen\") ? [{ex.span.line}, "
                       f"{js_string(describe.exclusion(ex))}, {c.path(ex.span.path)}] : null;")
                break
        else:
            w.line(f"{ind}excluded = null;")
    variables: list = []
    _collect(effects, False, variables)
    for v in variables:
        if v.conditional:
            w.line(f"{ind}{v.flag} = null;")
    _emit_effects(w, c, effects, ind, iter(variables))
    if role == "secondary":
        first = next((v for v in variables if v.kind.main == "amount" and not v.conditional), None)
        if first is not None:
            w.line(f"{ind}if (s.assigned !== null) {{")
            w.line(f"{ind}  {first.var('amount')} = assignedAmount(s, {first.var('amount')}, "
                   f"{js_string(first.effect.kind)});")
            w.line(f"{ind}}}")
    if role == "primary" and cal.secondary:
        sec = cal.secondary
        count = c.compile(sec.count) if sec.count is not None else "null"
        share = c.compile(sec.share) if sec.share is not None else "null"
        flat = ", ".join(f"[{js_string(e.kind)}, {_call_args(c, e.call)}]" for e in sec.effects if isinstance(e, Effect))
        w.line(f"{ind}assignment = [{count}, {share}, [{flat}], {sec.span.line}];")
    mods = [(j, m) for j, m in enumerate(cal.modifiers) if m.role in ("any", role)]
    bounded = rules.bound and any(v.effect.kind in vocab.BOUNDS for v in variables)
    has_options = any(o.op in ("option", "stop") for _, m in mods for o in m.ops)
    has_immune = any(o.op == "immune" for _, m in mods for o in m.ops)
    w.line(f"{ind}trace = [];")
    if has_options:
        w.line(f"{ind}options = [];")
    inline = {j for j, m in mods if len(m.ops) == 1 and m.ops[0].op in ("add", "prevent", "set", "cap")}
    conds = {j: f"({c.compile(m.condition)})" if j in inline else f"m{j}" for j, m in mods}
    for j, m in mods:
        if j not in inline:
            w.line(f"{ind}m{j} = {c.compile(m.condition)};")
    for j, m in mods:
        for o in m.ops:
            if o.op == "cancel":
                by = ", ".join(m.advances) or "a modifier"
                w.line(f"{ind}if (s.decide(m{j}, {o.span.line}, {c.path(o.span.path)}, "
                       f"{js_string('whether ' + by + ' cancels the calamity')})) {{")
                w.line(f"{ind}  return cancelled({js_string(cal.name)}, role, s, {o.span.line}, "
                       f"{js_string('cancelled by ' + by)}, {c.path(o.span.path)});")
                w.line(f"{ind}}}")
    stages = {
        "add_prevent": [(j, m, o) for j, m in mods for o in m.ops if o.op in ("add", "prevent")],
        "set": sorted(((j, m, o) for j, m in mods for o in m.ops if o.op == "set"), key=lambda t: t[1].priority),
        "cap": [(j, m, o) for j, m in mods for o in m.ops if o.op == "cap"],
    }
    ordered = [op for stage in rules.order for op in stages[stage]]
    unselecting = [v for v in variables if rules.unselect and v.effect.kind in vocab.UNSELECT_KINDS
                   and any(o.op == "prevent" and o.kind == v.effect.kind and (o.param or v.kind.main) == "amount"
                           for _, _, o in ordered)]
    for v in unselecting:
        w.line(f"{ind}{v.var('amount')}_unselected = 0;")
    for j, m, o in ordered:
        _emit_op(w, c, conds[j], m, o, variables, ind, unselecting)
    for j, m in mods:
        for o in m.ops:
            if o.op == "stop":
                rep = o.replacement
                what = f"whether the option to stop the calamity ({rep.name.replace('_', ' ')}) is offered"
                w.line(f"{ind}if (s.decide(m{j}, {o.span.line}, {c.path(o.span.path)}, {js_string(what)})) {{")
                w.line(f"{ind}  options.push([\"calamity\", {js_string(rep.name)}, {_call_args(c, rep)}, false, "
                       f"{js_literal(list(m.advances))}, {o.span.line}, {c.path(o.span.path)}]);")
                w.line(f"{ind}}}")
                continue
            if o.op == "option":
                targets = [v for v in variables if v.effect.kind == o.kind]
                if not targets:
                    continue
                active = " || ".join(f"{v.flag} !== null" if v.conditional else "true" for v in targets)
                rep = o.replacement
                what = f"whether the option to {rep.name.replace('_', ' ')} is offered"
                w.line(f"{ind}if (s.decide(m{j}, {o.span.line}, {c.path(o.span.path)}, {js_string(what)}) "
                       f"&& ({active})) {{")
                w.line(f"{ind}  options.push([{js_string(o.kind)}, {js_string(rep.name)}, {_call_args(c, rep)}, "
                       f"{js_literal(bool(o.each))}, {js_literal(list(m.advances))}, {o.span.line}, "
                       f"{c.path(o.span.path)}]);")
                w.line(f"{ind}}}")
    immune = "false"
    if has_immune:
        flags = [f"m{j}" for j, m in mods if any(o.op == "immune" for o in m.ops)]
        immune = flags[0] if len(flags) == 1 else f"or_({flags[0]}, {', '.join('() => ' + f for f in flags[1:])})"
        w.line(f"{ind}immune = {immune};")
        immune = "immune"
    items = []
    for v in variables:
        args = []
        for p in v.kind.params:
            value = v.var(p.name)
            if p.name == v.kind.main:
                clamped = f"floorZero({value})" if rules.floor else value
                value = f"unlessImmune(immune, {clamped})" if has_immune else clamped
                if v in unselecting:
                    raw = v.var(p.name)
                    args.append(f"selected: add({raw}, {raw}_unselected), unselected: {raw}_unselected")
            args.append(f"{p.name}: {value}")
        items.append((v, f"[{js_string(v.effect.kind)}, {{{', '.join(args)}}}, {v.effect.span.line}]"))
    w.line(f"{ind}effects = [];")
    for v, item in items:
        if v.conditional:
            w.line(f"{ind}if ({v.flag} !== null) effects.push({item});")
        else:
            w.line(f"{ind}effects.push({item});")
    path = c.path(cal.span.path)
    # a city's unit points where the calamity declares its own (`amounts { city_points ... }`)
    city = f", {js_literal(rules.city_points)}" if rules.city_points is not None else ""
    if bounded:
        w.line(f"{ind}boundEffects(s, effects, trace, MODEL.BOUNDS, {path}{city});")
    if unselecting:
        w.line(f"{ind}unselect(s, effects, trace, MODEL.BOUNDS, {path});")
    if any(v.effect.kind in vocab.VALUE_DISCARD_KINDS for v in variables):
        w.line(f"{ind}discardByValue(s, effects, {js_literal(list(vocab.VALUE_DISCARD_KINDS))});")
    if any(v.effect.kind in vocab.SUPPORT_KINDS for v in variables):
        w.line(f"{ind}reduceUntilSupported(s, effects, {js_json(vocab.SUPPORT_KINDS)});")
    if rules.least_over and any(v.effect.kind in vocab.LOSS_SPLIT_KINDS for v in variables):
        w.line(f"{ind}leastOver(s, effects, {js_literal(list(vocab.LOSS_SPLIT_KINDS))}{city});")
    assignment = "assignment" if role == "primary" and cal.secondary else "null"
    opts = "options" if has_options else "[]"
    excluded = "excluded" if role == "secondary" else "null"
    w.line(f"{ind}return resolution({js_string(cal.name)}, role, s, effects, {assignment}, trace, {opts}, "
           f"{immune}, null, {excluded});")


def _emit_effects(w: _Out, c: JSCompiler, effects: list, ind: str, variables) -> None:
    for e in effects:
        if isinstance(e, EffectBranch):
            then_vars = [next(variables) for _ in range(_count_effects(e.then))]
            else_vars = [next(variables) for _ in range(_count_effects(e.otherwise))]
            b = f"b{len(w.lines)}"
            w.line(f"{ind}{b} = {c.compile(e.condition)};")
            w.line(f"{ind}u{b} = {b} instanceof Unknown;")
            w.line(f"{ind}if (u{b}) s.undecided.push([{e.span.line}, {c.path(e.span.path)}, "
                   f"\"which effects apply\", {b}.facts]);")
            w.line(f"{ind}if (u{b} || truthy({b})) {{")
            _emit_effects(w, c, e.then, ind + "  ", iter(then_vars))
            w.line(f"{ind}}}")
            w.line(f"{ind}if (u{b} || !truthy({b})) {{")
            _emit_effects(w, c, e.otherwise, ind + "  ", iter(else_vars))
            w.line(f"{ind}}}")
            if then_vars or else_vars:
                w.line(f"{ind}if (u{b}) {{")
                for v in then_vars + else_vars:
                    w.line(f"{ind}  {v.flag} = null;")
                w.line(f"{ind}}}")
        else:
            v = next(variables)
            given = dict(zip([p.name for p in v.kind.params], e.call.args))
            given.update(e.call.kwargs)
            for p in v.kind.params:
                if p.name in given:
                    value = given[p.name]
                    code = js_string(value.parts[0]) if p.kind == "enum" else c.compile(value)
                elif p.name == v.kind.main or p.name == "active":
                    code = "true"
                else:
                    code = js_literal(p.default)
                w.line(f"{ind}{v.var(p.name)} = {code};")
            if v.kind.main is None:
                w.line(f"{ind}{v.flag} = true;")


def _emit_op(w: _Out, c: JSCompiler, cond: str, m, o, variables: list, ind: str, unselecting: list) -> None:
    targets = [v for v in variables if v.effect.kind == o.kind]
    if not targets:
        return
    kind = vocab.EFFECT_KINDS[o.kind]
    param = o.param or kind.main
    p = kind.param(param)
    if p is not None and p.kind == "enum":
        value = js_string(o.amount.parts[0])
    else:
        value = c.compile(o.amount)
        if o.per is not None:
            value = f"mul({value}, {c.compile(o.per)})"
    by = js_literal(list(m.advances))
    where = f"{js_comment(o.span.path)}:{o.span.line}"
    path = c.path(o.span.path)
    if not cond.startswith("m"):
        w.line(f"{ind}c = {cond};  // {where}")
        cond = "c"
    if m.condition is not None and _never_unknown(c, m.condition):
        w.line(f"{ind}if (truthy({cond})) {{  // {where}")
        _emit_decided(w, value, o, by, targets, param, ind, unselecting, path)
        w.line(f"{ind}}}")
        return
    w.line(f"{ind}if ({cond} instanceof Unknown) {{")
    what = f"whether {', '.join(m.advances) or 'a modifier'} changes {o.kind.replace('_', ' ')}"
    w.line(f"{ind}  s.undecided.push([{o.span.line}, {path}, {js_string(what)}, {cond}.facts]);")
    w.line(f"{ind}  v = {value};")
    for var, inner, close in _target_branches(w, targets, param, ind):
        w.line(f"{inner}u = unknownOf({cond}, {var}, v);")
        w.line(f"{inner}trace.push([\"undecided\", {js_string(o.kind)}, {js_string(param)}, v, {var}, u, {by}, "
               f"{o.span.line}, {path}]);")
        w.line(f"{inner}{var} = u;")
        close()
    w.line(f"{ind}}} else if (truthy({cond})) {{  // {where}")
    _emit_decided(w, value, o, by, targets, param, ind, unselecting, path)
    w.line(f"{ind}}}")


def _emit_decided(w: _Out, value: str, o, by: str, targets: list, param: str, ind: str, unselecting: list,
                  path: str) -> None:
    if not re.fullmatch(r"\(?-?\d+\)?", value):
        w.line(f"{ind}  v = {value};")
        value = "v"
    for var, inner, close in _target_branches(w, targets, param, ind):
        w.line(f"{inner}{var} = change(trace, {js_string(o.op)}, {js_string(o.kind)}, {js_string(param)}, {value}, "
               f"{var}, {by}, {o.span.line}, {path});")
        if o.op == "prevent" and any(var == v.var("amount") for v in unselecting):
            w.line(f"{inner}{var}_unselected = add({var}_unselected, {value});")
        close()


def _target_branches(w: _Out, targets: list, param: str, ind: str):
    """Each effect a modifier changes: (its variable, the indent of its body, a function closing
    the body): one `if`/`else if` per target when there are several or it may be absent."""
    if len(targets) == 1 and not targets[0].conditional:
        yield targets[0].var(param), ind + "  ", lambda: None
        return
    keyword = "if"
    for i, t in enumerate(targets):
        test = f"{t.flag} !== null" if t.conditional else "true"
        w.line(f"{ind}  {keyword} ({test}) {{")
        keyword = "} else if"
        # the next branch opens with "} else if", which closes this body; the last closes itself
        last = i == len(targets) - 1
        yield t.var(param), ind + "    ", (lambda: w.line(f"{ind}  }}")) if last else (lambda: None)


def _call_args(c: JSCompiler, call) -> str:
    kind = vocab.EFFECT_KINDS[call.name]
    given = dict(zip([p.name for p in kind.params], call.args))
    given.update(call.kwargs)
    parts = []
    for p in kind.params:
        if p.name in given:
            value = given[p.name]
            parts.append(f"{p.name}: {js_string(value.parts[0]) if p.kind == 'enum' else c.compile(value)}")
        elif p.default is not None:
            parts.append(f"{p.name}: {js_literal(p.default)}")
    return "{" + ", ".join(parts) + "}"


# --- the program ----------------------------------------------------------------------------------

def _runtime_file(name: str) -> str | None:
    path = resources.files("civdsl.companion").joinpath("runtime", name)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def edition_of(module) -> Edition:
    """The resolved model a compiled module was made from: its rulebook checked again (from the
    compiler's own cache when current), and refused if its files are not the bytes compiled."""
    from ..frontend import check_file
    from ..errors import RulebookError

    path = _main_file(module)
    checked = check_file(path, reuse=True)
    if not checked.ok:
        raise RulebookError(f"{path} has errors", checked.diagnostics)
    texts = {f.display: f.text for f in checked.chain}
    if source_hashes(texts) != dict(module.SOURCES):
        raise RulebookError(f"{path} changed since it was compiled: load it again")
    return checked.edition


def _main_file(module) -> Path:
    from .. import api

    for path, (files, rulebook) in api._LOADED.items():
        if rulebook.module is module:
            return path
    path = Path(module.SOURCE_PATH)
    if path.is_file():
        return path
    from ..resources import rulebook_argument

    return rulebook_argument(module.EDITION["id"])


def engine_script(module) -> str:
    """The edition's engine: one self-contained ES2017 program that sets `globalThis.civdsl`
    (see docs/companion.md). `module` is a compiled rulebook module (`civdsl.load(...).module`)."""
    return engine_for(edition_of(module), module)


def engine_for(ed: Edition, module) -> str:
    """The engine of a resolved edition and the module compiled from it."""
    parts = ["(function () {", '"use strict";']
    for name in RUNTIME_BEFORE:
        text = _runtime_file(name)
        if text is not None:
            parts.append(f"// ---- runtime/{name}")
            parts.append(text)
    parts.append("// ---- the data of this edition (the compiled module's constants)")
    parts.append(MODEL_ROWS_JS)
    parts.append(f"const MODEL = {js_model(model_data(module))};")
    parts.append(rules_source(ed))
    for name in RUNTIME_AFTER:
        parts.append(f"// ---- runtime/{name}")
        parts.append(_runtime_file(name))
    parts.append("})();")
    script = "\n".join(parts) + "\n"
    # no rulebook text can close or nest an inline <script> (every `<` of it is escaped); the
    # runtime files are ours and must not either (checked always, not as an `assert`)
    lowered = script.lower()
    if "</script" in lowered or "<script" in lowered or "<!--" in script:
        raise CodegenError("CIV043", "the companion engine would hold `<script`, `</script` or `<!--`")
    return script
