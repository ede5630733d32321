"""The second code-generation target: an edition's rules as one self-contained JavaScript program.

`engine_script(edition, module)` returns plain ES2017 (no modules, no eval, no Function()) that sets
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

from .. import describe
from .. import vocabulary as vocab
from ..rulewalk import (RequirementWords, RoleWalk, SetValueScope, calamity_variants, call_mapping, conjuncts,
                        constant_literals, constant_value, requirement, score_lines, variant_index, variant_options)
from ..expressions import ExpressionCompiler
from ..model import Edition, Effect, EffectBranch
from ..pysource import CodegenError
from ..escape import js_string
from . import jsops
from .py2es import aliased, engine_name, engine_source

# The runtime files in the order they are concatenated; jscost's and page's files join when present.
RUNTIME_BEFORE = ("core.js", "pylib.js", "resolve.js", "plan.js")
RUNTIME_AFTER = ("api.js",)
# The generated module's own bookkeeping: the source map of its Python lines means nothing here.
_NOT_MODEL = {"LINES", "LINE_FILES", "LINE_SOURCES"}
# the generated standing.py's requirement constructors, which the epochs' rules call
_JS_REQUIREMENT = RequirementWords(engine_name("civdsl.standing", "requirement_any"),
                                   engine_name("civdsl.standing", "requirement"),
                                   engine_name("civdsl.standing", "requirement_bool"), lambda text: js_string(text),
                                   ", true")


# --- literals ------------------------------------------------------------------------------------

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
    fields = _common_fields(records)
    if not fields:
        return None
    spec = []
    for field in fields:
        inner = _shape([record[field] for record in records])
        spec.append(field if inner is None else [field, inner])
    return spec


def _common_fields(records: list) -> tuple | None:
    """The fields every one of two or more mappings has, in the same order (None if they differ)."""
    if len(records) < 2 or not all(isinstance(record, dict) for record in records):
        return None
    shapes = {tuple(record) for record in records}
    return shapes.pop() if len(shapes) == 1 else None


def _record_fields(value) -> list | None:
    """The fields of a table: a mapping of records of one shape (see `_shape`), else None."""
    return _shape(list(value.values())) if isinstance(value, dict) else None


def _row(record: dict, fields: list) -> list:
    return [record[f] if isinstance(f, str) else _row(record[f[0]], f[1]) for f in fields]


def js_value(value) -> str:
    """A compiled module's constant as the engines' values: a dict a PyDict of any keys, a tuple or
    list an array, text an escaped literal, a whole number within 2^53; anything else is refused."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int) and abs(value) < 2 ** 53:
        return str(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(js_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "pyDict([" + ", ".join(f"[{js_value(k)}, {js_value(v)}]" for k, v in value.items()) + "])"
    raise CodegenError("CIV043", f"a value the ledger's data cannot hold: {type(value).__name__}")


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
    for kind, write in _JS_LITERALS:
        if isinstance(value, kind):
            return write(value)
    raise CodegenError("CIV043", f"a value of type {type(value).__name__} cannot be written in JavaScript")


def _js_int(value: int) -> str:
    return str(value) if value >= 0 else f"({value})"


def _js_float(value: float) -> str:
    """A float the runtime keeps a float (`pf`), NaN and the infinities included."""
    if math.isnan(value):
        return "pf(NaN)"
    if math.isinf(value):
        return "pf(Infinity)" if value > 0 else "pf(-Infinity)"
    return f"pf({value!r})"


def _js_array(value) -> str:
    return "[" + ", ".join(js_literal(v) for v in value) + "]"


# each type js_literal writes, in the order tested (a bool is an int too)
_JS_LITERALS = (
    (type(None), lambda value: "null"),
    (bool, lambda value: str(value).lower()),
    (int, _js_int),
    (Fraction, lambda value: f"fr({value.numerator}, {value.denominator})"),
    (float, _js_float),
    (str, js_string),
    ((tuple, list), _js_array),
)


_PLAIN_KEY = re.compile(r"[A-Za-z_$][\w$]*\Z")


def _dict_of(pairs: list) -> str:
    """The dict of PAIRS (a name and the JavaScript of its value, in order): written as a plain
    object the runtime makes a dict (pyFromPlain, shorter than pairs), where every name is a plain
    identifier (so the object keeps the order and no name is special to an object literal)."""
    if all(_PLAIN_KEY.match(k) and k != "__proto__" for k, _ in pairs):
        return "pyFromPlain({" + ", ".join(f"{k}: {v}" for k, v in pairs) + "})"
    return "pyDict([" + ", ".join(f"[{js_string(k)}, {v}]" for k, v in pairs) + "])"


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
    """VALUE as JSON data (see model_data); _NotPlain for a value JSON cannot hold."""
    for kind, convert in _PLAIN:
        if isinstance(value, kind):
            return convert(value)
    if callable(value):
        return None
    raise _NotPlain


def _plain_mapping(value: dict) -> dict:
    if not all(isinstance(k, str) for k in value):
        raise _NotPlain
    return {k: _plain(v) for k, v in value.items()}


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


# each type model_data keeps, in the order tested: JSON's own as they are, a Fraction as the nearest
# float, an infinite float as null, tuples as lists
_PLAIN = (
    ((type(None), bool, str, int), lambda value: value),
    (Fraction, float),
    (float, _finite_or_none),
    ((tuple, list), lambda value: [_plain(v) for v in value]),
    (dict, _plain_mapping),
)


# --- expressions -----------------------------------------------------------------------------------

class JSCompiler(ExpressionCompiler):
    """A player-level expression as JavaScript over `s` (the runtime's PlayerState): expressions'
    shared walk in JavaScript's words. Every operator is a runtime call (add, compare, and_, ...)
    so that Unknown values, Python's int/float/Fraction arithmetic and three-valued logic hold exactly."""

    NOT, NEG = jsops.NOT, jsops.NEG
    LOGIC, THUNK = "{op}_({operands})", "() => "
    BINARY = jsops.BINARY
    MATH_CALLS = jsops.MATH_CALLS
    TABLE = "lookup(RULE_TABLES.get({}), {})"
    HOLDS = "{held}.has({advance})"
    FUNCTION, NO_FUNCTION = "(s) => ", "null"

    def __init__(self, consts: dict, options: dict, tables: set):
        super().__init__(consts, options, tables)
        self.paths: dict[str, str] = {}  # rulebook file -> the constant naming it (written once)
        # data that many rules share (an order of stages, the amounts to floor) -> its uses
        self.shared: dict[str, int] = {}

    @staticmethod
    def literal(value) -> str:
        return js_literal(value)

    def path(self, path: str) -> str:
        """The rulebook file of a rule, as a constant written once at the top of the rules."""
        if path not in self.paths:
            self.paths[path] = f"rulePath{len(self.paths)}"
        return self.paths[path]

    def shared_data(self, literal: str) -> str:
        """A literal many rules repeat, as a constant written once at the top of the rules: a
        lighter page (the rules only read it)."""
        self.shared[literal] = self.shared.get(literal, 0) + 1
        # a mark no escaped literal or comment can hold (a NUL): rules_source writes a name or,
        # for a literal only one rule uses, the literal itself in its place
        return f"\0{list(self.shared).index(literal)}\0"

    def _arguments(self, fn, args: list[str], kwargs: list[tuple[str, str]]) -> str:
        # keyword arguments by position, in the vocabulary's order (the state's method takes them
        # so: playerstate.py); one not given is `undefined`, so the method's default applies
        given = dict(kwargs)
        keywords = [given.get(key, "undefined") for key in fn.kwargs]
        while keywords and keywords[-1] == "undefined":
            keywords.pop()
        return ", ".join(args + keywords)


class _SetValueJS(SetValueScope, JSCompiler):
    """A set's value (`set_value`) in JavaScript: rulewalk.SetValueScope's names in JSCompiler's words."""


# --- the rules -------------------------------------------------------------------------------------

class _Out:
    """Lines of generated JavaScript."""

    def __init__(self):
        self.lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)


# the first line of the rules' part (page.py finds the part by it)
RULES_MARK = "// the rules of this edition, compiled from its rulebook by civdsl (civdsl/companion/jsgen.py)"


def rules_source(ed: Edition) -> str:
    """The JavaScript of one edition's rules: RULE_TABLES and RULES, read by the runtime."""
    consts = constant_literals(ed)
    options = {k: o.on for k, o in ed.options.items()}
    c = JSCompiler(consts, options, set(ed.tables))
    c.const_exprs = {k: cn.expr for k, cn in ed.consts.items() if cn.value is None}
    w = _Out()
    w.line(RULES_MARK)
    _rule_tables(w, ed, consts, options)
    off = _set_value_functions(w, ed, c)
    c.held = "held"  # calamity functions keep the held advances in a local
    calamities = [_calamity_with_variants(w, c, ed, cal, f"rule_calamity_{index}")
                  for index, cal in enumerate(ed.calamities.values())]
    c.held = c.HELD
    tracks = [_track_functions(w, c, ti, track) for ti, track in enumerate(ed.asts.values())]
    _rules_object(w, c, ed, off, calamities, tracks)
    paths = [f"const {name} = {js_string(path)};" for path, name in c.paths.items()]
    names, shared = {}, 0
    for i, (literal, uses) in enumerate(c.shared.items()):
        if uses > 1:
            names[f"\0{i}\0"] = f"ruleData{shared}"
            paths.append(f"const ruleData{shared} = {literal};")
            shared += 1
        else:
            names[f"\0{i}\0"] = literal
    lines = [re.sub(r"\0[0-9]+\0", lambda m: names[m.group()], line) if "\0" in line else line for line in w.lines]
    return "\n".join(lines[:1] + paths + lines[1:]) + "\n"


def _rule_tables(w: _Out, ed: Edition, consts: dict, options: dict) -> None:
    """RULE_TABLES: each rulebook table's bands, their values folded (rulewalk.constant_value)."""
    w.line("const RULE_TABLES = new Map([")
    for t in ed.tables.values():
        bands = [(b.low, b.high, constant_value(consts, options, b.value, t.id)) for b in t.bands]
        w.line(f"  [{js_string(t.id)}, {js_literal(bands)}],")
    w.line("]);")


def _set_value_functions(w: _Out, ed: Edition, c: JSCompiler) -> str:
    """The value of a set of commodity cards, and off its trade block where the edition says:
    returns RULES.offBlock's JavaScript (null without one)."""
    set_value = _SetValueJS(c.consts, {}, set())
    w.line("")
    w.line("function rule_set_value(n, face) {")
    w.line(f"  return {set_value.compile(ed.set_value) if ed.set_value is not None else 'mul(n, face)'};")
    w.line("}")
    if ed.set_value_off_block is None:
        return "null"
    expr, when, span = ed.set_value_off_block
    w.line("")
    w.line("function rule_set_value_off_block(n, face) {")
    w.line(f"  return {set_value.compile(expr)};")
    w.line("}")
    return f"{{value: rule_set_value_off_block, when: {_function_or_null(c, when)}, line: {span.line}}}"


def _function_or_null(c: JSCompiler, expr) -> str:
    """An optional expression of the state, as a function of it (or null)."""
    return f"(s) => {c.compile(expr)}" if expr is not None else "null"


def _track_functions(w: _Out, c: JSCompiler, ti: int, track) -> tuple:
    """One function per epoch's requirements and per backward rule of a track:
    (its id, [(epoch name, function)], [backward functions])."""
    epoch_fns, back_fns = [], []
    for ei, epoch in enumerate(track.epochs):
        fn = f"rule_epoch_{ti}_{ei}"
        epoch_fns.append((epoch.name, fn))
        w.line("")
        w.line(f"function {fn}(s) {{  // {js_comment(epoch.span.path)}:{epoch.span.line}")
        w.line("  return [")
        for req in epoch.requirements:
            for part in conjuncts(req.expr):
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
    return track.id, epoch_fns, back_fns


def _rules_object(w: _Out, c: JSCompiler, ed: Edition, off: str, calamities: list, tracks: list) -> None:
    """RULES: the compiled functions by what they answer, the start credits, the score lines and
    the facts' types and minimums."""
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
    w.line(f"  startCredits: {_start_credits(c, ed.start_credits)},")
    w.line("  score: {")
    for attr, lines in zip(("points", "tiebreaks"), score_lines(ed)):
        w.line(f"    {attr}: [")
        for line in lines:
            w.line(f"      [{js_string(line.label)}, (s) => {c.compile(line.expr)}, {line.span.line}],")
        w.line("    ],")
    w.line("  },")
    facts = {f.name: {"type": f.type, "minimum": f.minimum} for f in vocab.FACTS.values()}
    w.line(f"  facts: {js_json(facts)},")
    w.line("};")


def _start_credits(c: JSCompiler, sc) -> str:
    """The credit tokens every player starts with, as functions of the state (null: none)."""
    if sc is None:
        return "null"
    return f"{{amount: (s) => {c.compile(sc.amount)}, unless: {_function_or_null(c, sc.unless)}}}"


def _requirement(c: JSCompiler, expr, req, line: int | None = None, each_step: bool = False) -> str:
    return requirement(_JS_REQUIREMENT, c, expr, req, line, each_step)


# --- calamities (the twin of codegen._calamity) ----------------------------------------------------

def _calamity_with_variants(w: _Out, c: JSCompiler, ed: Edition, cal, fn: str) -> tuple[str, str]:
    """A calamity's function; where a rule option switches its amounts settings, one function per
    distinct set of settings and FN choosing among them by the question's options (as codegen)."""
    variants, switches = calamity_variants(ed, cal)
    if len(variants) == 1:
        return _calamity(w, c, cal, fn, variants[0][1])
    for i, (_, rules) in enumerate(variants):
        _calamity(w, c, cal, f"{fn}_v{i}", rules)
    table = {"|".join(sorted(on)): variant_index(variants, ed, cal, on) for on in variant_options(ed, cal)}
    w.line("")
    w.line(f"function {fn}(s, role) {{  // {js_comment(cal.span.path)}:{cal.span.line}")
    w.line(f"  const on = {js_literal(list(switches))}.filter((n) => truthy(s.option(n))).sort().join(\"|\");")
    w.line(f"  const variants = [{', '.join(f'{fn}_v{i}' for i in range(len(variants)))}];")
    w.line(f"  return variants[{js_json(table)}[on]](s, role);")
    w.line("}")
    return cal.name, fn


def _calamity(w: _Out, c: JSCompiler, cal, fn: str, rules) -> tuple[str, str]:
    """One function per calamity, straight-line code per role, as codegen._calamity writes it in
    Python: each effect parameter a local variable, each modifier condition evaluated once, the
    modifier operations in their evaluation order. Returns (the calamity's name, the function's)."""
    body = _Out()
    body.line("  if (role === \"primary\") {")
    for expr, span in cal.cancel:
        body.line(f"    if (s.decide({c.compile(expr)}, {span.line}, {c.path(span.path)}, "
                  f"\"whether the calamity is cancelled\")) {{")
        body.line(f"      return cancelled({js_string(cal.name)}, role, s, {span.line}, "
                  f"{js_string('cancelled: ' + describe.condition(expr))}, {c.path(span.path)});")
        body.line("    }")
    _JSRoleBody(body, c, cal, "primary", cal.primary, rules).emit()
    body.line("  }")
    if cal.secondary:
        body.line("  {")
        _JSRoleBody(body, c, cal, "secondary", cal.secondary.effects, rules).emit()
        body.line("  }")
    else:
        body.line("  // only the primary victim suffers this calamity")
        body.line(f"  return resolution({js_string(cal.name)}, role, s, [], null, [], [], false, null, null);")
    names = sorted({m.group(1) for line in body.lines for m in [re.match(r"\s*([A-Za-z_]\w*) = ", line)] if m})
    w.line("")
    w.line(f"function {fn}(s, role) {{  // {js_comment(cal.span.path)}:{cal.span.line}")
    w.line(f"  const held = {c.HELD};")
    if names:
        w.line(f"  let {', '.join(names)};")
    w.lines.extend(body.lines)
    w.line("}")
    return cal.name, fn


def _param_code(c: JSCompiler, p, value) -> str:
    """A parameter's value as JavaScript: a choice is its word, anything else an expression."""
    return js_string(value.parts[0]) if p.kind == "enum" else c.compile(value)


class _JSRoleBody(RoleWalk):
    """One role's branch of a calamity function in JavaScript: the twin of codegen._RoleBody, the
    same walk (rulewalk.RoleWalk) with each statement written for the JavaScript runtime."""

    indent = "    "
    END = ";"
    NONE, TRUE, FALSE, EMPTY = "null", "true", "false", "[]"
    PRESENT = "{} !== null"
    OR, THUNK = "or_", "() => "
    PER = "mul({}, {})"
    literal, param_code = staticmethod(js_literal), staticmethod(_param_code)
    assigned = staticmethod(jsops.bare)

    def __init__(self, w: _Out, c: JSCompiler, cal, role: str, effects: list, rules):
        super().__init__(cal, role, effects, rules, c.compile)
        self.w, self.c = w, c

    def line(self, text: str, where=None) -> None:
        self.w.line(f"{self.indent}{text}")  # WHERE: the Python target's line map; the page keeps none

    def _comment(self, o) -> str:
        return f"// {js_comment(o.span.path)}:{o.span.line}"

    def _locals(self) -> None:
        """The trace, the offered options and each modifier condition used more than once."""
        self.line("trace = [];")
        if self.has_options:
            self.line("options = [];")
        for j, m in self._evaluated_once():
            self.line(f"m{j} = {self.c.compile(m.condition)};")

    def _resolution(self, immune: str) -> None:
        assignment, options, excluded = self._resolution_args()
        self.line(f"return resolution({js_string(self.cal.name)}, role, s, effects, {assignment}, trace, {options}, "
                  f"{immune}, null, {excluded});")

    def _excluded_if(self, ex) -> None:
        c = self.c
        self.line(f"excluded = s.decide({c.compile(ex.condition)}, {ex.span.line}, {c.path(ex.span.path)}, "
                  f"\"whether the victim may be chosen\") ? [{ex.span.line}, "
                  f"{js_string(describe.exclusion(ex))}, {c.path(ex.span.path)}] : null;")

    def _assigned(self) -> None:
        first = next((v for v in self.variables if v.kind.main == "amount" and not v.conditional), None)
        if first is not None:
            self.line("if (s.assigned !== null) {")
            self.line(f"  {first.var('amount')} = {_ASSIGNED}(s, {first.var('amount')}, "
                      f"{js_string(first.effect.kind)});")
            self.line("}")

    def _assignment(self) -> None:
        sec, c = self.cal.secondary, self.c
        count = c.compile(sec.count) if sec.count is not None else "null"
        share = c.compile(sec.share) if sec.share is not None else "null"
        flat = ", ".join(f"[{js_string(e.kind)}, {_call_args(c, e.call)}]" for e in sec.effects if isinstance(e, Effect))
        self.line(f"assignment = [{count}, {share}, [{flat}], {sec.span.line}];")

    # -- the effects: one local variable per parameter ------------------------------------

    def visit_EffectBranch(self, e: EffectBranch, ind: str, variables) -> None:
        w, c = self.w, self.c
        then_vars, else_vars = self._branch_variables(e, variables)
        b = f"b{len(w.lines)}"
        w.line(f"{ind}{b} = {c.compile(e.condition)};")
        w.line(f"{ind}u{b} = {b} instanceof Unknown;")
        w.line(f"{ind}if (u{b}) s.undecided.push([{e.span.line}, {c.path(e.span.path)}, "
               f"\"which effects apply\", {b}.facts]);")
        for test, branch, branch_vars in ((f"truthy({b})", e.then, then_vars), (f"!truthy({b})", e.otherwise, else_vars)):
            w.line(f"{ind}if (u{b} || {test}) {{")
            self.visit_effects(branch, ind + "  ", iter(branch_vars))
            w.line(f"{ind}}}")
        if then_vars or else_vars:
            w.line(f"{ind}if (u{b}) {{")
            for v in then_vars + else_vars:
                w.line(f"{ind}  {v.flag} = null;")
            w.line(f"{ind}}}")

    def _effect_line(self, text: str, e: Effect) -> None:
        self.w.line(f"{text};")

    # -- the modifiers' operations ---------------------------------------------------------

    def _cancel(self, o, j: int, what: str, text: str) -> None:
        path = self.c.path(o.span.path)
        self.line(f"if (s.decide(m{j}, {o.span.line}, {path}, {js_string(what)})) {{")
        self.line(f"  return cancelled({js_string(self.cal.name)}, role, s, {o.span.line}, {js_string(text)}, {path});")
        self.line("}")

    def _offer(self, o, j: int, m, what: str, kind: str, each, targets: list | None) -> None:
        c, rep = self.c, o.replacement
        test = f"s.decide(m{j}, {o.span.line}, {c.path(o.span.path)}, {js_string(what)})"
        if targets is not None:
            test += f" && ({' || '.join(self._present(v) for v in targets)})"
        self.line(f"if ({test}) {{")
        self.line(f"  options.push([{js_string(kind)}, {js_string(rep.name)}, {_call_args(c, rep)}, "
                  f"{js_literal(bool(each))}, {js_literal(list(m.advances))}, {o.span.line}, "
                  f"{c.path(o.span.path)}]);")
        self.line("}")

    def visit_ChangeOp(self, o, j: int, m) -> None:
        targets = self._targets_of(o)
        if not targets:
            return
        param, value = self._change(o)
        by = js_literal(list(m.advances))
        path = self.c.path(o.span.path)
        cond = self._tested(o, j)
        if self._always_decided(m):
            self.line(f"if (truthy({cond})) {{  {self._comment(o)}")
            self._decided(value, o, by, targets, param, path)
            self.line("}")
            return
        self._undecided(cond, m, o, by, targets, param, path, value)
        self.line(f"}} else if (truthy({cond})) {{  {self._comment(o)}")
        self._decided(value, o, by, targets, param, path)
        self.line("}")

    def _undecided(self, cond: str, m, o, by: str, targets: list, param: str, path: str, value: str) -> None:
        """A modifier whose condition depends on a missing fact leaves the amount unknown."""
        self.line(f"if ({cond} instanceof Unknown) {{")
        what = f"whether {', '.join(m.advances) or 'a modifier'} changes {o.kind.replace('_', ' ')}"
        self.line(f"  s.undecided.push([{o.span.line}, {path}, {js_string(what)}, {cond}.facts]);")
        self.line(f"  v = {value};")
        for var, inner, close in self._targets(targets, param):
            self.w.line(f"{inner}u = unknownOf({cond}, {var}, v);")
            self.w.line(f"{inner}trace.push([\"undecided\", {js_string(o.kind)}, {js_string(param)}, v, {var}, u, "
                        f"{by}, {o.span.line}, {path}]);")
            self.w.line(f"{inner}{var} = u;")
            close()

    def _decided(self, value: str, o, by: str, targets: list, param: str, path: str) -> None:
        if not re.fullmatch(r"\(?-?\d+\)?", value):
            self.line(f"  v = {value};")
            value = "v"
        unselected = {v.var("amount") for v in self.unselecting} if o.op == "prevent" else set()
        for var, inner, close in self._targets(targets, param):
            self.w.line(f"{inner}{var} = {_CHANGE}(trace, {js_string(o.op)}, {js_string(o.kind)}, {js_string(param)}, "
                        f"{value}, {var}, {by}, {o.span.line}, {path});")
            if var in unselected:
                self.w.line(f"{inner}{var}_unselected = add({var}_unselected, {value});")
            close()

    def _targets(self, targets: list, param: str):
        """Each effect a modifier changes: (its variable, the indent of its body, a function closing
        the body): one `if`/`else if` per target when there are several or it may be absent."""
        if len(targets) == 1 and not targets[0].conditional:
            yield targets[0].var(param), self.indent + "  ", lambda: None
            return
        keyword = "if"
        for i, t in enumerate(targets):
            self.line(f"  {keyword} ({self._present(t)}) {{")
            keyword = "} else if"
            # the next branch opens with "} else if", which closes this body; the last closes itself
            last = i == len(targets) - 1
            yield t.var(param), self.indent + "    ", (lambda: self.line("  }")) if last else (lambda: None)

    # -- the resolution's effect list and the runtime's passes over it ---------------------

    def _effect_list(self, immune: bool) -> None:
        items = [(v, self._item(v, immune)) for v in self.variables]
        self.line("effects = [];")
        for v, item in items:
            if v.conditional:
                self.line(f"if ({self._present(v)}) effects.push({item});")
            else:
                self.line(f"effects.push({item});")

    def _item(self, v, immune: bool) -> str:
        """One effect of the resolution's list: its kind, its parameters (a dict, as the translated
        passes over the list read them: civdsl/effectlist.py), its rulebook line."""
        pairs = []
        for p in v.kind.params:
            value = v.var(p.name)
            if p.name == v.kind.main:
                value = self._amount(v, value, immune)
                if v in self.unselecting:
                    raw = v.var(p.name)
                    pairs += [("selected", f"add({raw}, {raw}_unselected)"), ("unselected", f"{raw}_unselected")]
            pairs.append((p.name, value))
        return f"[{js_string(v.effect.kind)}, {_dict_of(pairs)}, {v.effect.span.line}]"

    STAGE_INDENT = "  "

    def _stage_loop_start(self, switches: tuple, orders: dict) -> None:
        table = {"|".join(on): list(order) for on, order in orders.items()}
        self.line(f"for (const stage of stageOrder(s, {self.c.shared_data(js_json([list(switches), table]))})) {{")
        self.indent += "  "

    def _stage_start(self, k: int, stages: tuple) -> None:
        test = " || ".join(f"stage === {js_string(x)}" for x in stages)
        self.line(f"{'if' if k == 0 else '} else if'} ({test}) {{")

    def _stage_guard(self, skipped: str) -> None:
        self.line(f"if (stage !== {js_string(skipped)}) {{")

    def _guard_end(self) -> None:
        self.line("}")

    def _stage_loop_end(self) -> None:
        self.line("}")
        self.indent = self.indent[:-2]
        self.line("}")

    def _floor_line(self, v) -> None:
        var, (line, path) = v.var(v.kind.main), self.rules.floor_at
        self.line(f"{var} = ls_floor_step(trace, {js_string(v.effect.kind)}, {js_string(v.kind.main)}, {var}, "
                  f"{line}, {self.c.path(path)});")

    def _amount(self, v, value: str, immune: bool) -> str:
        """An effect's main amount as it leaves the function: never below zero where the edition
        declares a floor (traced where a prevention took it there), nothing where the victim is immune."""
        return f"ls_unless_immune(immune, {value})" if immune else value

    def _after(self) -> None:
        # the calamity's file is named once in the rules' constants, in the order first used
        self.path = self.c.path(self.cal.span.path)
        super()._after()

    def _city(self) -> str:
        """A city's unit points where the calamity declares its own (`amounts { city_points ... }`)."""
        return f", {js_literal(self.rules.city_points)}" if self.rules.city_points is not None else ""

    def _after_floor(self) -> str:
        line, path = self.rules.floor_at
        return (f"{_PASSES['floor_effects']}(effects, trace, pyFromPlain({self.c.shared_data(js_json(self.floor_kinds()))}), "
                f"{line}, {self.c.path(path)});")

    def _after_bound(self) -> str:
        return f"{_PASSES['bound_effects']}(s, effects, trace, s.module.BOUNDS, {self.path}{self._city()});"

    def _after_unselect(self) -> str:
        return f"{_PASSES['unselect']}(s, effects, trace, s.module.BOUNDS, {self.path});"

    def _after_discard_by_value(self) -> str:
        return f"{_PASSES['discard_by_value']}(s, effects, {js_literal(list(vocab.VALUE_DISCARD_KINDS))});"

    def _after_reduce_until_supported(self) -> str:
        return f"{_PASSES['reduce_until_supported']}(s, effects, pyFromPlain({js_json(vocab.SUPPORT_KINDS)}));"

    def _after_least_over(self) -> str:
        return f"{_PASSES['least_over']}(s, effects, {js_literal(list(vocab.LOSS_SPLIT_KINDS))}{self._city()});"


# the passes over a calamity's effect list: civdsl/effectlist.py translated (their page names)
_ASSIGNED = engine_name("civdsl.losses", "assigned")
_CHANGE = engine_name("civdsl.losses", "change")
_PASSES = {name: engine_name("civdsl.effectlist", name) for name in
           ("floor_effects", "bound_effects", "unselect", "discard_by_value", "reduce_until_supported", "least_over")}


def _call_args(c: JSCompiler, call) -> str:
    return call_mapping(call, str, lambda p, value: _param_code(c, p, value), js_literal)


# --- the program ----------------------------------------------------------------------------------

def _runtime_file(name: str) -> str | None:
    path = resources.files("civdsl.companion").joinpath("runtime", name)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def engine_script(ed: Edition, module, ledger: bool = False) -> str:
    """The edition's engine: one self-contained ES2017 program that sets `globalThis.civdsl`
    (see docs/companion.md). `ed` is the checked edition and `module` the module compiled from it
    (`codegen.generate_module`), both handed down by the build: the engine is never compiled from
    anything but what its caller compiled. LEDGER: with the game ledger's modules."""
    return checked_engine("\n".join(engine_parts(ed, module, ledger=ledger)) + "\n")


def engine_parts(ed: Edition, module, short_names: bool = False, ledger: bool = False) -> list[str]:
    """The engine's text in the parts it is joined from (with line breaks): the runtime files,
    the same in every page, and this edition's data and rules (page.py minifies the runtime
    files once per process); with LEDGER, the game ledger's modules too (LEDGER_MODULES)."""
    parts = ["(function () {", '"use strict";']
    for name in RUNTIME_BEFORE:
        text = _runtime_file(name)
        if text is not None:
            parts.append(f"// ---- runtime/{name}")
            parts.append(text)
    parts.append(engine_source(short_names, ledger=ledger))  # the companion page keeps no games
    parts.append("// ---- the data of this edition (the compiled module's constants)")
    parts.append(MODEL_ROWS_JS)
    parts.append(f"const MODEL = {js_model(model_data(module))};")
    if ledger:  # the trade decks (their stacks are keyed by number, which MODEL's JSON cannot hold)
        parts.append(f"const LEDGER_TRADE_DECKS = {js_value(getattr(module, 'TRADE_DECKS', ()))};")
    # the page's copy calls the engines' commonest helpers by their aliases, as the engines do
    parts.append(aliased(rules_source(ed)) if short_names else rules_source(ed))
    for name in RUNTIME_AFTER:
        parts.append(f"// ---- runtime/{name}")
        parts.append(_runtime_file(name))
    parts.append("})();")
    return parts


def checked_engine(script: str) -> str:
    """The engine's text, refused if it could close or open an inline script."""
    # no rulebook text can close or nest an inline <script> (every `<` of it is escaped); the
    # runtime files are ours and must not either (checked always, not as an `assert`)
    lowered = script.lower()
    if "</script" in lowered or "<script" in lowered or "<!--" in script:
        raise CodegenError("CIV043", "the companion engine would hold `<script`, `</script` or `<!--`")
    return script
