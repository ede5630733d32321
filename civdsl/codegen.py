"""Pass 5: resolved edition -> one importable, readable Python module.

Safety by construction: every value that comes from a rulebook is emitted with `repr()` (or as
an int), every identifier in the output is made here from a fixed prefix, a counter and an
ASCII slug, and comments carry only sanitised text. The result is compiled with `compile()`
before it is written (a generator bug fails here, and the bytecode is kept for the cache). Each
rule's function records which rulebook line it came from (`LINES`), so that `runtime.located`
can report an error at the rulebook line.
"""

from __future__ import annotations

import hashlib
import math
import re
from fractions import Fraction
from types import CodeType

from . import describe
from .gcpause import paused
from . import vocabulary as vocab
from .expressions import MATH as MATH_FUNCTIONS
from .expressions import EvalError, PythonCompiler, evaluate, unparse
from .model import Calamity, Edition, Effect, EffectBranch
from .syntax import BinOp, Bool, Call, Name, Neg, Not, Num

GENERATOR_VERSION = "1"
_COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")


def slug(text: str, limit: int = 40) -> str:
    s = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return s[:limit] or "item"


_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")


def comment_text(text: str) -> str:
    """Text safe to put after `#`: printable ASCII only."""
    return _NOT_PRINTABLE_ASCII.sub("?", text)


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


class _Writer:
    def __init__(self, source_path: str):
        self.lines: list[str] = []
        self.map: list[tuple[int, int]] = []
        self.source_path = source_path

    def line(self, text: str = "", rule_line: int | None = None) -> None:
        self.lines.append(text)
        if rule_line is not None:
            self.map.append((len(self.lines), rule_line))


def source_hashes(files: dict[str, str]) -> dict[str, str]:
    return {path: hashlib.sha256(text.encode("utf-8")).hexdigest() for path, text in files.items()}


def generate(ed: Edition, files: dict[str, str]) -> str:
    """The Python module for `ed`; `files` maps each file of its extends chain to its text."""
    return generate_module(ed, files)[0]


def generate_module(ed: Edition, files: dict[str, str], filename: str = "effects.py") -> tuple[str, CodeType]:
    """The module's source and its bytecode, compiled as the file `filename`."""
    with paused():
        source = _module_source(ed, files)
        # compile() checks the module (a generator bug must never write an unparsable module)
        # and yields the bytecode in one step; a separate ast.parse cost more than this
        code = compile(source, filename, "exec", dont_inherit=True)
    return source, code


def _module_source(ed: Edition, files: dict[str, str]) -> str:
    consts = {}
    for k, c in ed.consts.items():
        if c.value is not None:
            try:
                consts[k] = literal(c.value)
            except CodegenError as exc:
                raise CodegenError(exc.code, f"constant `{k}` is too large to compile", c.span) from None
    options = {k: o.on for k, o in ed.options.items()}
    compiler = PythonCompiler(consts, options, set(ed.tables))
    compiler.const_exprs = {k: c.expr for k, c in ed.consts.items() if c.value is None}
    w = _Writer(ed.files[-1])
    main_path = ed.files[-1]

    w.line(f'"""Compiled rules of {doc_text(ed.name)} (edition `{doc_text(ed.id)}`).')
    w.line("")
    w.line(f"Generated by civdsl from {doc_text(main_path)}; do not edit: change the rulebook and rebuild.")
    w.line('"""')
    w.line("# fmt: off")
    w.line("from __future__ import annotations")
    w.line("")
    w.line("from civdsl import runtime as _rt")
    w.line("from civdsl.runtime import PlayerState, Resolution")
    w.line("")
    w.line("_MODULE = _rt.this_module(__name__)")
    w.line(f"GENERATOR_VERSION = {GENERATOR_VERSION!r}")
    w.line(f"EDITION = {{'id': {ed.id!r}, 'name': {ed.name!r}, 'language': {ed.language!r}, 'bases': {tuple(ed.bases)!r}}}")
    w.line(f"SOURCE_PATH = {main_path!r}")
    w.line(f"SOURCES = {source_hashes(files)!r}")
    w.line(f"CREDIT_POLICY = {ed.credit_policy!r}")
    city = consts.get("city_points", 5)
    token = consts.get("token_points", 1)
    w.line(f"UNIT_POINTS = {{'token': {token!r}, 'city': {city!r}}}")
    w.line(f"CONSTS = {consts!r}")
    w.line("GROUPS = {")
    for g in ed.groups.values():
        w.line(f"    {g.id!r}: {{'name': {g.name!r}, 'color': {g.color!r}, 'symbol': {g.symbol!r}}},")
    w.line("}")
    w.line("ADVANCES = {")
    for a in ed.advances.values():
        data = {
            "cost": a.cost, "groups": tuple(a.groups), "vp": a.vp, "credits": dict(a.credits),
            "specific": {s.target: s.amount for s in a.specific}, "requires": tuple(a.requires),
            "supply": a.supply, "abilities": tuple((ab.kind, {k: v for k, v in ab.args.items()}) for ab in a.abilities),
            "line": a.span.line,
        }
        w.line(f"    {a.name!r}: {data!r},")
    w.line("}")
    w.line("COMMODITIES = {")
    for c in ed.commodities.values():
        w.line(f"    {c.name!r}: {{'value': {c.value!r}, 'count': {c.count!r}, 'stack': {c.stack!r}, 'block': {c.block!r}}},")
    w.line("}")
    w.line("TABLES = {")
    for t in ed.tables.values():
        bands = tuple((b.low, b.high, _const_value(consts, options, b.value, t.id)) for b in t.bands)
        w.line(f"    {t.id!r}: {bands!r},")
    w.line("}")
    w.line("")
    w.line("")
    w.line("def set_value(n: int, face: int):")
    w.line('    """The value of n identical commodity cards of this face value."""')
    if ed.set_value is not None:
        w.line(f"    return {_set_value_expr(ed.set_value, consts)}", ed.set_value and _line_of(ed.set_value))
    else:
        w.line("    return n * face")

    names: dict[str, str] = {}
    compiler.held = "held"  # calamity functions keep the held advances in a local
    for index, cal in enumerate(ed.calamities.values()):
        fn = f"calamity_{index}_{slug(cal.name)}"
        names[cal.name] = fn
        _calamity(w, compiler, cal, fn)
    compiler.held = "s.held_set"

    w.line("")
    w.line("")
    w.line("CALAMITIES = {")
    for cal in ed.calamities.values():
        data = {"stack": cal.stack, "class": cal.klass, "beneficiary": cal.beneficiary, "line": cal.span.line,
                "summary": describe.calamity(cal)}
        w.line(f"    {cal.name!r}: {data!r},")
    w.line("}")
    w.line("CALAMITY_FUNCTIONS = {")
    for name, fn in names.items():
        w.line(f"    {name!r}: {fn},")
    w.line("}")

    tracks = {}
    for ti, track in enumerate(ed.asts.values()):
        epoch_fns = []
        for ei, epoch in enumerate(track.epochs):
            fn = f"epoch_{ti}_{ei}_{slug(epoch.name)}"
            epoch_fns.append((epoch.name, fn))
            w.line("")
            w.line("")
            w.line(f"def {fn}(s: PlayerState) -> list:", epoch.span.line)
            w.line(f"    {('Requirements of ' + epoch.name + ' on ' + track.name)!r}")
            w.line(f"    # {comment_text(main_path)}:{epoch.span.line}")
            w.line("    return [")
            for req in epoch.requirements:
                for part in _conjuncts(req.expr):
                    w.line(f"        {_requirement(compiler, part, req)},", req.span.line)
            w.line("    ]")
        back_fns = []
        for bi, (expr, span) in enumerate(track.backward):
            fn = f"backward_{ti}_{bi}"
            back_fns.append(fn)
            w.line("")
            w.line("")
            w.line(f"def {fn}(s: PlayerState) -> dict:", span.line)
            w.line(f"    # {comment_text(main_path)}:{span.line}")
            w.line(f"    return {_requirement(compiler, expr, None, span.line)}", span.line)
        tracks[track.id] = (track.name, epoch_fns, back_fns)
    w.line("")
    w.line("")
    w.line("AST = {")
    for tid, (tname, epoch_fns, back_fns) in tracks.items():
        epochs_src = ", ".join(f"({n!r}, {fn})" for n, fn in epoch_fns)
        w.line(f"    {tid!r}: {{'name': {tname!r}, 'epochs': [{epochs_src}], 'backward': [{', '.join(back_fns)}]}},")
    w.line("}")

    w.line("")
    for attr, lines in (("SCORE_POINTS", ed.score.points if ed.score else []),
                        ("SCORE_TIEBREAKS", ed.score.tiebreaks if ed.score else [])):
        w.line(f"{attr} = [")
        for line in lines:
            w.line(f"    ({line.label!r}, lambda s: {compiler.compile(line.expr)}, {line.span.line!r}),", line.span.line)
        w.line("]")
    if ed.has_rounds:
        _rounds(w, consts, options, ed)
    w.line("")
    # a string of `generated:rulebook` pairs, read at import: as a tuple literal this one line
    # took a sixth of the time compile() spends on the whole module
    pairs = " ".join(f"{generated}:{rule}" for generated, rule in w.map)
    w.line(f"LINES = _rt.line_map({pairs!r})")
    w.line("# fmt: on")
    return "\n".join(w.lines) + "\n"


def _line_of(expr) -> int | None:
    return getattr(getattr(expr, "span", None), "line", None)


def _const_value(consts: dict, options: dict, expr, table: str = ""):
    """A table value: a constant expression, folded now (its repr() is Python source)."""

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


def _set_value_expr(expr, consts: dict | None = None) -> str:
    """set_value reads only n, face, constants and numbers; compile it with those names."""
    consts = consts or {}
    sub = lambda e: _set_value_expr(e, consts)  # noqa: E731
    if isinstance(expr, (Num, Bool)):
        return repr(expr.value)
    if isinstance(expr, Name) and len(expr.parts) == 1:
        if expr.parts[0] in ("n", "face"):
            return expr.parts[0]
        if expr.parts[0] in consts:
            return repr(consts[expr.parts[0]])
    if isinstance(expr, Neg):
        return f"(-{sub(expr.operand)})"
    if isinstance(expr, Not):
        return f"(not {sub(expr.operand)})"
    if isinstance(expr, BinOp) and expr.op in ("/", "//"):
        fn = "div" if expr.op == "/" else "floordiv"
        return f"_rt.{fn}({sub(expr.left)}, {sub(expr.right)})"
    if isinstance(expr, BinOp) and expr.op in ("+", "-", "*", "and", "or") + _COMPARE_OPS:
        return f"({sub(expr.left)} {expr.op} {sub(expr.right)})"
    if isinstance(expr, Call) and not expr.kwargs and expr.name in MATH_FUNCTIONS:
        return f"_rt.{expr.name}({', '.join(sub(a) for a in expr.args)})"
    raise CodegenError("CIV043", f"set_value cannot use `{unparse(expr)}`", getattr(expr, "span", None))


def _conjuncts(expr) -> list:
    if isinstance(expr, BinOp) and expr.op == "and":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]


def _requirement(compiler: PythonCompiler, expr, req, line: int | None = None) -> str:
    line = line if line is not None else req.span.line
    text = req.why if (req is not None and req.why and _conjuncts(req.expr) == [expr]) else describe.condition(expr)
    if isinstance(expr, BinOp) and expr.op in _COMPARE_OPS:
        return (f"_rt.requirement({text!r}, {compiler.compile(expr.left)}, {expr.op!r}, "
                f"{compiler.compile(expr.right)}, {line!r})")
    return f"_rt.requirement_bool({text!r}, {compiler.compile(expr)}, {line!r})"


def _calamity(w: _Writer, c: PythonCompiler, cal: Calamity, fn: str) -> None:
    """One function per calamity, in straight-line code: each effect parameter is a local
    variable, each modifier condition is evaluated once, and the modifier operations are
    emitted in their evaluation order (add/prevent, then set by priority, then cap), once for
    each role, so that no rule is interpreted at run time."""
    path = comment_text(w.source_path)
    w.line("")
    w.line("")
    w.line(f"def {fn}(s: PlayerState, role: str) -> Resolution:", cal.span.line)
    doc = f"{cal.name} (stack {cal.stack}, {cal.klass}). {describe.calamity(cal)}"
    mods = [describe.modifier(m) for m in cal.modifiers]
    if mods:
        doc += " Modifiers: " + "; ".join(mods) + "."
    w.line(f"    {doc!r}")
    w.line(f"    # {path}:{cal.span.line}")
    w.line("    held = s.held_set")
    w.line("    if role == 'primary':")
    for expr, span in cal.cancel:
        w.line(f"        if {c.compile(expr)}:  # {path}:{span.line}", span.line)
        w.line(f"            return _rt.cancelled(_MODULE, {cal.name!r}, role, s, {span.line!r}, "
               f"{('cancelled: ' + describe.condition(expr))!r}, {span.path!r})", span.line)
    _role_body(w, c, cal, "primary", cal.primary)
    if cal.secondary:
        _role_body(w, c, cal, "secondary", cal.secondary.effects)
    else:
        w.line("    # only the primary victim suffers this calamity")
        w.line(f"    return Resolution((_MODULE, {cal.name!r}, role, s, [], None, (), (), False, None, None))")


class _EffectVar:
    """An effect of one role's list and the local variables holding its parameters."""

    def __init__(self, index: int, effect: Effect, conditional: bool):
        self.index = index
        self.effect = effect
        self.kind = vocab.EFFECT_KINDS[effect.kind]
        self.conditional = conditional

    def var(self, param: str | None) -> str:
        return f"e{self.index}_{param or 'active'}"

    @property
    def flag(self) -> str:
        """The variable that is None while this effect's branch was not taken."""
        return self.var(self.kind.main)


def _role_body(w: _Writer, c: PythonCompiler, cal: Calamity, role: str, effects: list) -> None:
    path = comment_text(w.source_path)
    indent = "        "
    if role == "secondary":
        w.line("    else:")
        for ex in cal.exclusions:
            if ex.condition is not None:
                w.line(f"        excluded = ({ex.span.line!r}, {describe.exclusion(ex)!r}, {ex.span.path!r}) "
                       f"if {c.compile(ex.condition)} else None", ex.span.line)
                break
        else:
            w.line("        excluded = None")
    variables: list[_EffectVar] = []
    _collect(effects, False, variables)
    for v in variables:
        if v.conditional:
            w.line(f"{indent}{v.flag} = None")
    _emit_effects(w, c, effects, indent, iter(variables))
    if role == "primary" and cal.secondary:
        sec = cal.secondary
        count = c.compile(sec.count) if sec.count is not None else "None"
        share = c.compile(sec.share) if sec.share is not None else "None"
        flat = ", ".join(f"({e.kind!r}, {_call_args(c, e.call)})" for e in sec.effects if isinstance(e, Effect))
        w.line(f"{indent}assignment = ({count}, {share}, [{flat}], {sec.span.line!r})", sec.span.line)
    mods = [(j, m) for j, m in enumerate(cal.modifiers) if m.role in ("any", role)]
    has_trace = any(o.op in ("add", "prevent", "set", "cap") for _, m in mods for o in m.ops)
    has_options = any(o.op == "option" for _, m in mods for o in m.ops)
    has_immune = any(o.op == "immune" for _, m in mods for o in m.ops)
    w.line(f"{indent}trace = []" if has_trace else f"{indent}trace = ()")
    if has_options:
        w.line(f"{indent}options = []")
    # a condition used by one operation only is tested in place; others are evaluated once
    inline = {j for j, m in mods if len(m.ops) == 1 and m.ops[0].op in ("add", "prevent", "set", "cap")}
    conds = {j: f"({c.compile(m.condition)})" if j in inline else f"m{j}" for j, m in mods}
    for j, m in mods:
        if j not in inline:
            w.line(f"{indent}m{j} = {c.compile(m.condition)}  # {path}:{m.span.line}", m.span.line)
    for j, m in mods:
        for o in m.ops:
            if o.op == "cancel":
                w.line(f"{indent}if m{j}:  # {path}:{o.span.line}", o.span.line)
                by = ", ".join(m.advances) or "a modifier"
                w.line(f"{indent}    return _rt.cancelled(_MODULE, {cal.name!r}, role, s, {o.span.line!r}, "
                       f"{('cancelled by ' + by)!r}, {o.span.path!r})", o.span.line)
    ordered = [(j, m, o) for j, m in mods for o in m.ops if o.op in ("add", "prevent")]
    ordered += sorted(((j, m, o) for j, m in mods for o in m.ops if o.op == "set"), key=lambda t: t[1].priority)
    ordered += [(j, m, o) for j, m in mods for o in m.ops if o.op == "cap"]
    for j, m, o in ordered:
        _emit_op(w, c, conds[j], m, o, variables, indent)
    for j, m in mods:
        for o in m.ops:
            if o.op == "option":
                targets = [v for v in variables if v.effect.kind == o.kind]
                if not targets:
                    continue
                active = " or ".join(f"{v.flag} is not None" if v.conditional else "True" for v in targets)
                rep = o.replacement
                w.line(f"{indent}if m{j} and ({active}):  # {path}:{o.span.line}", o.span.line)
                w.line(f"{indent}    options.append(({o.kind!r}, {rep.name!r}, {_call_args(c, rep)}, {o.each!r}, "
                       f"{tuple(m.advances)!r}, {o.span.line!r}, {o.span.path!r}))", o.span.line)
    immune = "False"
    if has_immune:
        immune = " or ".join(f"m{j}" for j, m in mods if any(o.op == "immune" for o in m.ops))
        w.line(f"{indent}immune = {immune}")
        immune = "immune"
    items = []
    for v in variables:
        args = []
        for p in v.kind.params:
            value = v.var(p.name)
            if p.name == v.kind.main:
                # never below zero (inline: this is the hot path of every resolution)
                clamped = (f"({value} if {value} is None or {value} > 0 else 0)" if v.conditional
                           else f"({value} if {value} > 0 else 0)")
                value = f"0 if {immune} else {clamped}" if has_immune else clamped
            args.append(f"{p.name!r}: {value}")
        items.append((v, f"({v.effect.kind!r}, {{{', '.join(args)}}}, {v.effect.span.line!r})"))
    if any(v.conditional for v in variables):
        w.line(f"{indent}effects = []")
        for v, item in items:
            if v.conditional:
                w.line(f"{indent}if {v.flag} is not None:")
                w.line(f"{indent}    effects.append({item})")
            else:
                w.line(f"{indent}effects.append({item})")
    else:
        w.line(f"{indent}effects = [{', '.join(item for _, item in items)}]")
    extra = []
    if role == "primary" and cal.secondary:
        extra.append("assignment")
    else:
        extra.append("None")
    extra.append("trace")
    extra.append("options" if has_options else "()")
    extra.append(immune)
    tail = ", ".join(extra)
    tail += ", None, excluded" if role == "secondary" else ", None, None"
    w.line(f"{indent}return Resolution((_MODULE, {cal.name!r}, role, s, effects, {tail}))")


def _collect(effects: list, conditional: bool, out: list) -> None:
    for e in effects:
        if isinstance(e, EffectBranch):
            _collect(e.then, True, out)
            _collect(e.otherwise, True, out)
        else:
            out.append(_EffectVar(len(out), e, conditional))


def _emit_effects(w: _Writer, c: PythonCompiler, effects: list, indent: str, variables) -> None:
    path = comment_text(w.source_path)
    for e in effects:
        if isinstance(e, EffectBranch):
            w.line(f"{indent}if {c.compile(e.condition)}:  # {path}:{e.span.line}", e.span.line)
            _emit_branch(w, c, e.then, indent + "    ", variables)
            w.line(f"{indent}else:")
            _emit_branch(w, c, e.otherwise, indent + "    ", variables)
        else:
            v = next(variables)
            given = dict(zip([p.name for p in v.kind.params], e.call.args))
            given.update(e.call.kwargs)
            for p in v.kind.params:
                if p.name in given:
                    value = given[p.name]
                    code = repr(value.parts[0]) if p.kind == "enum" else c.compile(value)
                elif p.name == v.kind.main or p.name == "active":
                    code = "True"
                else:
                    code = repr(p.default)
                w.line(f"{indent}{v.var(p.name)} = {code}  # {path}:{e.span.line}", e.span.line)
            if v.kind.main is None:
                w.line(f"{indent}{v.flag} = True")


def _emit_branch(w: _Writer, c: PythonCompiler, effects: list, indent: str, variables) -> None:
    if not effects:
        w.line(f"{indent}pass")
        return
    _emit_effects(w, c, effects, indent, variables)


def _emit_op(w: _Writer, c: PythonCompiler, cond: str, m, o, variables: list, indent: str) -> None:
    path = comment_text(w.source_path)
    targets = [v for v in variables if v.effect.kind == o.kind]
    if not targets:
        return  # the validator warned (CIV036): the calamity never causes this effect
    kind = vocab.EFFECT_KINDS[o.kind]
    param = o.param or kind.main
    p = kind.param(param)
    if p is not None and p.kind == "enum":
        value = repr(o.amount.parts[0])
    else:
        value = c.compile(o.amount)
        if o.per is not None:
            value = f"({value}) * ({c.compile(o.per)})"
    by = tuple(m.advances)
    w.line(f"{indent}if {cond}:  # {path}:{o.span.line}", o.span.line)
    if not value.lstrip("-").isdigit():  # constants are used in place; expressions evaluated once
        w.line(f"{indent}    v = {value}", o.span.line)
        value = "v"
    keyword = "if"
    for t in targets:
        var = t.var(param)
        inner = indent + "    "
        if t.conditional or len(targets) > 1:
            test = f"{t.flag} is not None" if t.conditional else "True"
            w.line(f"{inner}{keyword} {test}:")
            inner += "    "
            keyword = "elif"
        new = {"add": f"{var} + {value}", "prevent": f"{var} - {value}", "set": value,
               "cap": f"min({var}, {value})"}[o.op]
        w.line(f"{inner}trace.append(({o.op!r}, {o.kind!r}, {param!r}, {value}, {var}, {new}, {by!r}, {o.span.line!r}, "
               f"{o.span.path!r}))", o.span.line)
        w.line(f"{inner}{var} = {new}", o.span.line)
        if not (t.conditional or len(targets) > 1):
            break


def _call_args(c: PythonCompiler, call) -> str:
    kind = vocab.EFFECT_KINDS[call.name]
    given = dict(zip([p.name for p in kind.params], call.args))
    given.update(call.kwargs)
    parts = []
    for p in kind.params:
        if p.name in given:
            value = given[p.name]
            parts.append(f"{p.name!r}: {repr(value.parts[0]) if p.kind == 'enum' else c.compile(value)}")
        elif p.default is not None:
            parts.append(f"{p.name!r}: {p.default!r}")
    return "{" + ", ".join(parts) + "}"


# --- round rules: stats, phases, dice, tracks and cards ----------------------------------------
# Emitted only for editions that declare them. Every identifier below is a fixed prefix, a
# counter and an ASCII slug; every rulebook value is written with repr().


class _RoundCompiler(PythonCompiler):
    """Compiles round expressions over `s` (a runtime.RoundState): stats, flags and tracks are
    `s.v[...]`, thresholds and choices are computed on reading, `let`/`roll` names are locals."""

    def __init__(self, consts, options, ed: Edition):
        super().__init__(consts, options, set(ed.tables))
        self.ed = ed
        self.locals: dict[str, str] = {}

    def compile(self, e) -> str:
        from .syntax import Call

        if isinstance(e, Name):
            head = e.parts[0]
            if head in self.locals:
                return self.locals[head]
            if head in self.ed.stats or head in self.ed.flags or head in self.ed.tracks:
                return f"s.v[{head!r}]"
            if head in self.ed.thresholds:
                return f"s.threshold({head!r})"
            if head in self.ed.choices:
                return f"s.choice({head!r})"
            return super().compile(e)
        if isinstance(e, BinOp) and e.op == "//":
            return f"_rt.round_floordiv({self.compile(e.left)}, {self.compile(e.right)})"
        if isinstance(e, BinOp) and e.op == "/":
            return f"_rt.round_div({self.compile(e.left)}, {self.compile(e.right)})"
        if isinstance(e, Call) and e.name in vocab.ROUND_FUNCTIONS and e.name not in self.tables:
            color = e.kwargs.get("color")
            if e.name == "hand_limit":
                return "s.hand_limit()"
            word = repr(color.parts[0]) if isinstance(color, Name) else "None"
            return f"s.{e.name}({word})"
        return super().compile(e)


class _Block:
    """Emits the statements of one Python function body, with fresh local names."""

    def __init__(self, w: _Writer, c: _RoundCompiler):
        self.w = w
        self.c = c
        self.counter = 0

    def fresh(self, prefix: str, name: str = "") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}_{slug(name, 24)}" if name else f"{prefix}{self.counter}"

    def body(self, stmts: list, indent: str) -> None:
        saved = dict(self.c.locals)
        before = len(self.w.lines)
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if s.op == "if" and not s.otherwise and i + 1 < len(stmts) and stmts[i + 1].op == "instead":
                j = i + 1
                while j < len(stmts) and stmts[j].op == "instead":
                    j += 1
                self.chain(stmts[i:j], indent)
                i = j
                continue
            self.stmt(s, indent)
            i += 1
        if len(self.w.lines) == before:
            self.w.line(f"{indent}pass")
        self.c.locals = saved

    def chain(self, chain: list, indent: str) -> None:
        """`if A {..} instead if B {..}`: the last rule whose condition holds replaces the others."""
        w, c = self.w, self.c
        conds = []
        for s in chain:
            var = self.fresh("c")
            conds.append((var, s))
            w.line(f"{indent}{var} = bool({c.compile(s.expr)})", s.span.line)
        for k in range(len(conds) - 1, -1, -1):
            var, s = conds[k]
            keyword = "if" if k == len(conds) - 1 else "elif"
            w.line(f"{indent}{keyword} {var}:", s.span.line)
            if k > 0:
                earlier = ", ".join(f"({e.span.line!r}, {v})" for v, e in conds[:k])
                w.line(f"{indent}    s.instead({s.span.line!r}, [l for l, held in ({earlier},) if held])", s.span.line)
            self.body(s.body, indent + "    ")

    def stmt(self, s, indent: str) -> None:
        w, c = self.w, self.c
        line = s.span.line
        op = s.op
        if op == "note":
            return
        if op in ("set", "add", "move"):
            w.line(f"{indent}s.{op}({s.target!r}, {c.compile(s.expr)}, {line!r})", line)
        elif op == "reset":
            w.line(f"{indent}s.reset({s.target!r}, {line!r})", line)
        elif op == "let":
            value = c.compile(s.expr)
            var = self.fresh("l", s.target)
            c.locals[s.target] = var
            w.line(f"{indent}{var} = {value}", line)
        elif op in ("if", "instead"):
            w.line(f"{indent}if {c.compile(s.expr)}:", line)
            self.body(s.body, indent + "    ")
            if s.otherwise:
                w.line(f"{indent}else:")
                self.body(s.otherwise, indent + "    ")
        elif op == "rule":
            w.line(f"{indent}s.rules.append({s.text!r})", line)
            self.body(s.body, indent)
            w.line(f"{indent}s.rules.pop()", line)
        elif op == "roll":
            call = (f"s.roll({s.source!r}, {line!r})" if s.source in c.ed.pools
                    else f"s.roll_table({s.source!r}, {line!r})")
            if s.target is not None:
                var = self.fresh("r", s.target)
                c.locals[s.target] = var
                w.line(f"{indent}{var} = {call}", line)
            else:
                w.line(f"{indent}{call}", line)
        elif op == "shuffle":
            w.line(f"{indent}s.shuffle({line!r})", line)
        elif op == "draw":
            w.line(f"{indent}s.draw({c.compile(s.expr)}, {line!r})", line)
        elif op == "discard":
            w.line(f"{indent}s.discard_to({c.compile(s.expr)}, {line!r})", line)
        else:  # pragma: no cover - the grammar has no other statement
            raise ValueError(f"unknown statement {op}")


def _function(w: _Writer, c: _RoundCompiler, name: str, params: str, doc: str, line: int, stmts: list,
              wrap: str | None = None) -> None:
    """A function whose body is a block of statements; `wrap` names a phase (state in, state out)."""
    w.line("")
    w.line("")
    w.line(f"def {name}({params}):", line)
    w.line(f"    {doc!r}")
    w.line(f"    # {comment_text(w.source_path)}:{line}")
    c.locals = {}
    if wrap is not None:
        w.line(f"    s = _rt.RoundState(_MODULE, state, rng, {wrap!r})")
    _Block(w, c).body(stmts, "    ")
    if wrap is not None:
        w.line("    return s.finish()")


def _names_read(ed: Edition, expr, seen: set | None = None) -> set[str]:
    """Values a computed name depends on: stats, flags, tracks, and '@hand' for the cards."""
    from .expressions import walk
    from .syntax import Call

    seen = set() if seen is None else seen
    out: set[str] = set()
    for node in walk(expr):
        if isinstance(node, Name):
            head = node.parts[0]
            if head in ed.thresholds or head in ed.choices:
                if head not in seen:
                    seen.add(head)
                    inner = ed.thresholds[head].condition if head in ed.thresholds else ed.choices[head].default
                    out |= _names_read(ed, inner, seen)
            elif head in ed.stats or head in ed.flags or head in ed.tracks:
                out.add(head)
        elif isinstance(node, Call) and node.name in vocab.ROUND_FUNCTIONS:
            out.add("@hand")
    return out


def _rounds(w: _Writer, consts: dict, options: dict, ed: Edition) -> None:
    c = _RoundCompiler(consts, options, ed)
    path = comment_text(w.source_path)
    w.line("")
    w.line("")
    w.line("# --- round rules ---------------------------------------------------------------------")
    w.line("STATS = {")
    for st in ed.stats.values():
        data = {"name": st.name, "initial": st.initial_value, "low": st.low, "high": st.high, "line": st.span.line}
        w.line(f"    {st.id!r}: {data!r},", st.span.line)
    w.line("}")
    w.line("FLAGS = {")
    for fl in ed.flags.values():
        w.line(f"    {fl.id!r}: {{'name': {fl.name!r}, 'initial': {fl.on!r}, 'line': {fl.span.line!r}}},", fl.span.line)
    w.line("}")

    deck = next(iter(ed.card_decks.values()), None)
    if deck is not None:
        cards = {(r.name, s.name): (r.value, s.color) for s in deck.suits for r in deck.ranks}
        data = {"id": deck.id, "name": deck.name, "suits": tuple((s.name, s.color) for s in deck.suits),
                "ranks": tuple((r.name, r.value) for r in deck.ranks), "hand_limit": deck.hand_limit,
                "line": deck.span.line}
        w.line(f"CARD_DECK = {data!r}", deck.span.line)
        w.line(f"CARDS = {cards!r}")
    else:
        w.line("CARD_DECK = None")
        w.line("CARDS = {}")

    # choices and thresholds: computed when read
    choice_fns = {}
    for i, ch in enumerate(ed.choices.values()):
        fn = f"choice_{i}_{slug(ch.id)}"
        choice_fns[ch.id] = fn
        c.locals = {}
        w.line("")
        w.line("")
        w.line(f"def {fn}(s):", ch.span.line)
        w.line(f"    {('Default policy for the choice: ' + ch.name)!r}")
        w.line(f"    return {c.compile(ch.default)}  # {path}:{ch.span.line}", ch.span.line)
    threshold_fns = {}
    for i, th in enumerate(ed.thresholds.values()):
        fn = f"threshold_{i}_{slug(th.id)}"
        c.locals = {}
        w.line("")
        w.line("")
        w.line(f"def {fn}(s):", th.span.line)
        w.line(f"    {th.name!r}")
        w.line(f"    return bool({c.compile(th.condition)})  # {path}:{th.span.line}", th.span.line)
        body = None
        if th.body:
            body = f"{fn}_on"
            _function(w, c, body, "s", f"When {th.name} switches on", th.span.line, th.body)
        threshold_fns[th.id] = (fn, body)

    pool_fns = {}
    for i, pool in enumerate(ed.pools.values()):
        fn = f"pool_{i}_{slug(pool.id)}"
        pool_fns[pool.id] = fn
        c.locals = {}
        w.line("")
        w.line("")
        w.line(f"def {fn}(s):", pool.span.line)
        w.line(f"    {('Sides and dice of ' + pool.name)!r}")
        base = c.compile(pool.base) if pool.base is not None else "0"
        w.line(f"    terms = [('base', {base})]", pool.span.line)
        for term in pool.terms:
            label = term.label or (describe_condition(term.condition) if term.condition is not None else unparse(term.amount))
            if term.condition is not None:
                w.line(f"    if {c.compile(term.condition)}:", term.span.line)
                w.line(f"        terms.append(({label!r}, {c.compile(term.amount)}))", term.span.line)
            else:
                w.line(f"    terms.append(({label!r}, {c.compile(term.amount)}))", term.span.line)
        sides = c.compile(pool.sides) if pool.sides is not None else "6"
        w.line(f"    return {sides}, terms", pool.span.line)

    track_marks = {}
    for i, track in enumerate(ed.tracks.values()):
        marks = {}
        for mark in track.marks:
            fn = None
            if mark.body:
                fn = f"track_{i}_{slug(track.id)}_at_{mark.position if mark.position >= 0 else 'm' + str(-mark.position)}"
                _function(w, c, fn, "s", f"{track.name}: {mark.label}", mark.span.line, mark.body)
            marks[mark.position] = (mark.label, fn, mark.span.line)
        track_marks[track.id] = marks

    event_fns = {}
    for i, table in enumerate(ed.event_tables.values()):
        rows = []
        for j, row in enumerate(table.rows):
            fn = f"event_{i}_{j}_{slug(row.label)}"
            _function(w, c, fn, "s", f"{table.name}, {row.low}..{row.high}: {row.label}", row.span.line, row.body)
            rows.append((row.low, row.high, row.label, fn, row.span.line))
        event_fns[table.id] = rows

    end_fns = []
    for i, end in enumerate(ed.ends):
        fn = f"end_{i}"
        c.locals = {}
        w.line("")
        w.line("")
        w.line(f"def {fn}(s):", end.span.line)
        w.line(f"    return bool({c.compile(end.condition)})  # {path}:{end.span.line}", end.span.line)
        end_fns.append((fn, end.text, end.span.line))

    setup_fn = None
    if ed.setup is not None:
        setup_fn = "phase_setup"
        _function(w, c, setup_fn, "state, rng", "Setup: run once to start a game", ed.setup.span.line,
                  ed.setup.body, wrap="setup")
    phase_fns = []
    for i, phase in enumerate(ed.phases.values()):
        fn = f"phase_{i}_{slug(phase.id)}"
        phase_fns.append((phase.id, phase.name, fn))
        _function(w, c, fn, "state, rng", f"{phase.name}: maps a state to (next state, trace)", phase.span.line,
                  phase.body, wrap=phase.id)

    w.line("")
    w.line("")
    w.line("CHOICES = {")
    for ch in ed.choices.values():
        w.line(f"    {ch.id!r}: {{'name': {ch.name!r}, 'default': {choice_fns[ch.id]}, 'line': {ch.span.line!r}}},")
    w.line("}")
    w.line("THRESHOLDS = {")
    for th in ed.thresholds.values():
        test, body = threshold_fns[th.id]
        w.line(f"    {th.id!r}: {{'name': {th.name!r}, 'test': {test}, 'body': {body or 'None'}, "
               f"'line': {th.span.line!r}}},")
    w.line("}")
    watch: dict[str, list[str]] = {}
    for th in ed.thresholds.values():
        for name in sorted(_names_read(ed, th.condition)):
            watch.setdefault(name, []).append(th.id)
    w.line(f"THRESHOLD_WATCH = {({k: tuple(v) for k, v in sorted(watch.items())})!r}")
    w.line("POOLS = {")
    for pool in ed.pools.values():
        success = None
        if pool.success is not None:
            success = pool.success
        w.line(f"    {pool.id!r}: {{'name': {pool.name!r}, 'dice': {pool_fns[pool.id]}, 'success': {success!r}, "
               f"'line': {pool.span.line!r}}},")
    w.line("}")
    w.line("TRACKS = {")
    for track in ed.tracks.values():
        stages = tuple((s.low, s.high, s.name) for s in track.stages)
        marks = ", ".join(f"{pos!r}: ({label!r}, {fn or 'None'}, {ln!r})"
                          for pos, (label, fn, ln) in track_marks[track.id].items())
        w.line(f"    {track.id!r}: {{'name': {track.name!r}, 'start': {track.start!r}, 'low': {track.low!r}, "
               f"'high': {track.high!r}, 'stages': {stages!r}, 'marks': {{{marks}}}, 'line': {track.span.line!r}}},")
    w.line("}")
    w.line("EVENT_TABLES = {")
    for table in ed.event_tables.values():
        rows = "".join(f"({lo!r}, {hi!r}, {label!r}, {fn}, {ln!r}), " for lo, hi, label, fn, ln in event_fns[table.id])
        w.line(f"    {table.id!r}: {{'name': {table.name!r}, 'die': {table.die!r}, 'rows': ({rows}), "
               f"'line': {table.span.line!r}}},")
    w.line("}")
    w.line(f"ENDS = ({''.join(f'({fn}, {text!r}, {ln!r}), ' for fn, text, ln in end_fns)})")
    w.line(f"SETUP = {setup_fn or 'None'}")
    w.line("PHASES = (")
    for pid, name, fn in phase_fns:
        w.line(f"    ({pid!r}, {name!r}, {fn}),")
    w.line(")")


def describe_condition(expr) -> str:
    return describe.condition(expr)
