"""What both code generators read the same way from a resolved edition, whatever the target:
the constants folded to literals, a requirement split into its parts, a calamity's `amounts`
settings and the variants rule options switch, and the walk of one role's branch of a calamity
function (`RoleWalk`: which effects, modifiers and operations, in what order). `codegen.py`
writes it all as Python and `companion/jsgen.py` as JavaScript; each target supplies only its
words, so a rule is read once and printed twice.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import NamedTuple

from . import describe
from . import vocabulary as vocab
from .expressions import MATH as MATH_FUNCTIONS
from .expressions import COMPARE_OPS, EvalError, evaluate, unparse, walk
from .model import Calamity, Edition, Effect, EffectBranch
from .pysource import CodegenError, literal
from .syntax import BinOp, Call, CancelOp, ChangeOp, ImmuneOp, Name, NodeVisitor, Num, OptionOp, StopOp

# What the code generators use: a target imports these names only (tests/test_layering.py fails
# if companion/ takes an underscore name).
__all__ = ["AmountRules", "EffectVar", "FloorStep", "RequirementWords", "RoleWalk", "SetValueScope", "calamity_variants",
           "call_mapping", "conjuncts", "constant_literals", "constant_value", "requirement", "score_lines",
           "variant_index", "variant_options"]


def constant_literals(ed: Edition) -> dict[str, str]:
    """Each constant with a value, as the Python literal the module holds."""
    consts = {}
    for k, c in ed.consts.items():
        if c.value is not None:
            try:
                consts[k] = literal(c.value)
            except CodegenError as exc:
                raise CodegenError(exc.code, f"constant `{k}` is too large to compile", c.span) from None
    return consts


def score_lines(ed: Edition) -> tuple[list, list]:
    """The edition's score lines: (those that count points, the tie-breaks), empty without a score."""
    return (ed.score.points, ed.score.tiebreaks) if ed.score else ([], [])


def constant_value(consts: dict, options: dict, expr, table: str = ""):
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


class SetValueScope:
    """What a set's value (`set_value`) may read, whatever the target: `n`, `face`, constants and
    numbers, and math functions; anything else is refused here. Mixed into a target's expression
    compiler (expressions.ExpressionCompiler), whose words write the rest."""

    def visit_Name(self, e: Name) -> str:
        head = e.parts[0]
        if len(e.parts) == 1 and head in ("n", "face"):
            return head
        if len(e.parts) == 1 and head in self.consts:
            return self.literal(self.consts[head])
        return self._refused(e)

    def visit_Call(self, e: Call) -> str:
        if e.kwargs or e.name not in MATH_FUNCTIONS:
            return self._refused(e)
        return self._math(e)

    def _refused(self, e) -> str:
        raise CodegenError("CIV043", f"set_value cannot use `{unparse(e)}`", getattr(e, "span", None))

    visit_Str = visit_Unknown = visit_Where = _refused


def conjuncts(expr) -> list:
    if isinstance(expr, BinOp) and expr.op == "and":
        return conjuncts(expr.left) + conjuncts(expr.right)
    return [expr]


def _disjuncts(expr) -> list:
    if isinstance(expr, BinOp) and expr.op == "or":
        return _disjuncts(expr.left) + _disjuncts(expr.right)
    return [expr]


class RequirementWords(NamedTuple):
    """How a target writes a requirement: its runtime's three constructors, a text literal, and
    the argument marking a requirement checked at each step."""
    any: str
    one: str
    bool: str
    text: Callable[[str], str]
    each_step: str


def requirement(words: RequirementWords, compiler, expr, req, line: int | None = None, each_step: bool = False) -> str:
    """A requirement (REQ, or an epoch's backward condition when None) in a target's WORDS: an
    "or" of alternatives evaluates every part, so the answer shows the player's count in each."""
    line = line if line is not None else req.span.line
    text = _requirement_text(expr, req)
    step = words.each_step if each_step else ""
    alternatives = _disjuncts(expr)
    if len(alternatives) > 1:
        # "A or B and C": every part is evaluated, so the answer shows the player's count in each
        parts = ", ".join("[" + ", ".join(_requirement_part(compiler, c, line, words) for c in conjuncts(alt)) + "]"
                          for alt in alternatives)
        return f"{words.any}({words.text(text)}, [{parts}], {line!r}{step})"
    return _requirement_part(compiler, expr, line, words, text, step)


def _requirement_text(expr, req) -> str:
    """What a requirement says: the rulebook's words (`why`) for a whole requirement, else its condition described."""
    if req is not None and req.why and conjuncts(req.expr) == [expr]:
        return req.why
    return describe.condition(expr)


def _requirement_part(compiler, expr, line: int, words: RequirementWords, text: str | None = None,
                      step: str = "") -> str:
    """A requirement, or one part of an "or" requirement (TEXT None): a part is named by what it
    counts ("cities"), since the whole requirement carries the rulebook's words."""
    if isinstance(expr, BinOp) and expr.op in COMPARE_OPS:
        text = describe.quantity(expr.left) if text is None else text
        return (f"{words.one}({words.text(text)}, {compiler.compile(expr.left)}, {words.text(expr.op)}, "
                f"{compiler.compile(expr.right)}, {line!r}{step})")
    text = describe.condition(expr) if text is None else text
    return f"{words.bool}({words.text(text)}, {compiler.compile(expr)}, {line!r}{step})"


class AmountRules:
    """The edition's `amounts` settings as they apply to one calamity (its exceptions first)."""

    def __init__(self, ed: Edition, cal: Calamity, on: frozenset[str] = frozenset()):
        self.bound = ed.amount_setting("bound", cal, on) == ("holdings",)
        self.floor = ed.amount_setting("floor", cal, on) == ("zero",)
        self.order = _effective_order(ed.amount_setting("order", cal, on), cal, self.floor)
        self.least_over = ed.amount_setting("losses", cal, on) == ("least_over",)
        self.unselect = ed.amount_setting("prevention", cal, on) == ("unselect",)
        self.city_points = city_points(ed, cal, on)
        # where a floor step of the trace cites its rule: the calamity (the settings may be the edition's)
        self.floor_at = (cal.span.line, cal.span.path)
        # where rule options switch the order: ((the switches on, in `switches` order), order) for each
        # combination, read at run time (calamity_variants)
        self.orders: tuple | None = None
        self.switches: tuple[str, ...] = ()

    def stage(self, op: str) -> str:
        """The stage of `order` an add or prevent operation belongs to: together or apart."""
        return "add_prevent" if "add_prevent" in self.order and op in ("add", "prevent") else op

    def city_arg(self) -> str:
        return f", city={self.city_points!r}" if self.city_points is not None else ""


def city_points(ed: Edition, cal: Calamity, on: frozenset[str] = frozenset()):
    """A city's unit points for this calamity where its text declares another value (None: the edition's)."""
    named = ed.amount_setting("city_points", cal, on)
    return ed.consts[named[0]].value if named and named[0] in ed.consts else None


def _effective_order(order: tuple[str, ...], cal: Calamity, floor_at_end: bool) -> tuple[str, ...]:
    """The `order` as it bears on this calamity's operations: add and prevent as one stage unless
    both change one amount; a floor step only where something is prevented, and not right after
    the additions and preventions when the amount is floored at the end anyway (set replaces, cap
    never raises). Equal for orders that cannot differ here, so that a rule option switching the
    order writes no second, identical function."""
    changes = {(o.op, o.kind, o.param) for m in cal.modifiers for o in m.ops if isinstance(o, ChangeOp)}
    if not any(("add", k, p) in changes for op, k, p in changes if op == "prevent"):
        first = next(i for i, x in enumerate(order) if x in ("add", "prevent", "add_prevent"))
        order = tuple("add_prevent" if i == first else x for i, x in enumerate(order)
                      if i == first or x not in ("add", "prevent", "add_prevent"))
    if not any(op == "prevent" for op, _, _ in changes) or (floor_at_end and "add_prevent" in order):
        order = tuple(x for x in order if x != "floor")
    return order


# where add and prevent are stages apart, the stage that skips each of them
_SKIPPED_IN = {"add": "prevent", "prevent": "add"}


class FloorStep:
    """A `floor` step of `amounts { order ... }`: every amount a prevention lowered becomes zero
    there if it went below (then additions may raise it again: "prevent, floor, then add")."""

    op, kind = "floor", None


def variant_options(ed: Edition, cal: Calamity) -> list[frozenset[str]]:
    """Every combination of the rule options that switch this calamity's amounts settings
    (the empty one first): one function is written per distinct set of settings."""
    names = ed.amount_options(cal)
    return [frozenset(n for i, n in enumerate(names) if mask >> i & 1) for mask in range(1 << len(names))]


def _settings_but_order(rules: AmountRules) -> dict:
    return {k: v for k, v in vars(rules).items() if k not in ("order", "orders", "switches")}


def calamity_variants(ed: Edition, cal: Calamity) -> tuple[list[tuple[frozenset, AmountRules]], tuple[str, ...]]:
    """([(options on, its amount rules)], the options that switch them): one function per
    distinct set of settings but the order, which one function follows as the question's options
    say (`rules.orders`: (options on, order) where options switch it); one entry, and no options,
    where no rule option changes this calamity's amounts."""
    groups: list[tuple[AmountRules, list]] = []
    for on in variant_options(ed, cal):
        rules = AmountRules(ed, cal, on)
        group = next((g for g in groups if _settings_but_order(g[0]) == _settings_but_order(rules)), None)
        if group is None:
            groups.append((rules, [(on, rules.order)]))
        else:
            group[1].append((on, rules.order))
    switches = ed.amount_options(cal)
    for rules, orders in groups:
        if len({order for _, order in orders}) > 1:
            rules.orders = tuple((tuple(n for n in switches if n in on), order) for on, order in orders)
            rules.switches = switches
    changed = len(groups) > 1 or any(r.orders for r, _ in groups)
    return [(orders[0][0], rules) for rules, orders in groups], switches if changed else ()


def variant_index(variants: list[tuple[frozenset, AmountRules]], ed: Edition, cal: Calamity,
                  on: frozenset) -> int:
    """Which written variant answers when the options ON are switched on."""
    rules = _settings_but_order(AmountRules(ed, cal, on))
    return next(i for i, (_, r) in enumerate(variants) if _settings_but_order(r) == rules)


class EffectVar:
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


# the runtime's passes over the finished effect list, in order: (the pass, whether it applies to a
# role); a target writes each pass's call with its `_after_<pass>`
_AFTER = (
    # never below zero (`amounts { floor zero }`): traced where an amount went below
    ("floor", lambda r: bool(r.floor_kinds())),
    # nothing beyond what the player has: the taken amount beside the demanded one
    ("bound", lambda r: r.bounded),
    # select (never more than held), then unselect what prevention allows
    ("unselect", lambda r: bool(r.unselecting)),
    # discard by value: which cards, from the hand the state gives
    ("discard_by_value", lambda r: r.causes(vocab.VALUE_DISCARD_KINDS)),
    # reduce until supported: how many cities the support check reduces
    ("reduce_until_supported", lambda r: r.causes(vocab.SUPPORT_KINDS)),
    # losses met exactly or exceeded by as little as possible: which cities and tokens go
    ("least_over", lambda r: r.rules.least_over and r.causes(vocab.LOSS_SPLIT_KINDS)),
)


class RoleWalk(NodeVisitor):
    """What one role's branch of a calamity function does, whatever the language it is written in
    (codegen.py's Python, companion/jsgen.py's JavaScript): which effects it has and which of
    them a branch makes conditional, which modifiers apply and which of their conditions are
    tested in place, the changing operations in the edition's stage order, and the order the
    operations are visited in. A target says how each statement is written: `line`, `END` (what
    closes a statement), its words for none/true/false, an empty list, a lazy `or` and a change's
    amount per unit, `literal` and `param_code` (a default and a given parameter value),
    `_comment`, `_effect_line`, `_excluded_if`, `_assigned`, `_assignment`, `_locals`,
    `_effect_list`, `_resolution`, `_cancel` and `_offer` (what a cancelling modifier and an
    offered option write), an `_after_<pass>` for each of `_AFTER`, and `visit_ChangeOp` and
    `visit_EffectBranch`."""

    END: str
    NONE: str
    TRUE: str
    FALSE: str
    EMPTY: str
    PRESENT: str  # an effect of a branch was taken
    OR: str  # three-valued `or` of the immunity flags
    THUNK: str  # its lazy operands
    PER: str  # a change's amount times its `per` expression
    floored_inline = False  # a target that floors the effects' locals before the list sets it
    assigned = staticmethod(lambda condition: condition)  # a condition's text as an assigned value

    def __init__(self, cal: Calamity, role: str, effects: list, rules: AmountRules, compile_expr):
        self.cal, self.role, self.effects, self.rules = cal, role, effects, rules
        self.variables: list[EffectVar] = []
        _collect(effects, False, self.variables)
        self.mods = [(j, m) for j, m in enumerate(cal.modifiers) if m.role in ("any", role)]
        self.ops = [(j, m, o) for j, m in self.mods for o in m.ops]
        self.bounded = rules.bound and self.causes(vocab.BOUNDS)
        self.has_options = bool(self._ops((OptionOp, StopOp)))
        self.immune_flags: list[str] = []
        self.inline = self._inline()
        self.conds = self._conditions(compile_expr)
        self.ordered = self._ordered()
        self.unselecting = self._unselecting()

    def _inline(self) -> set[int]:
        """The modifiers whose condition only one operation tests, a change: tested in place."""
        return {j for j, m in self.mods if len(m.ops) == 1 and isinstance(m.ops[0], ChangeOp)}

    def _conditions(self, compile_expr) -> dict[int, str]:
        """Each modifier's condition as its operations test it: a condition used by one operation
        only is tested in place (`inline`); the others are evaluated once, into `m<j>`."""
        return {j: f"({compile_expr(m.condition)})" if j in self.inline else f"m{j}" for j, m in self.mods}

    def causes(self, kinds) -> bool:
        return any(v.effect.kind in kinds for v in self.variables)

    def _ops(self, types) -> list:
        """The operations of these node types, in the modifiers' order."""
        return [(j, m, o) for j, m, o in self.ops if isinstance(o, types)]

    def _ordered(self) -> list:
        """The changing operations in the order the edition declares (`amounts { order ... }`),
        with its `floor` step where it stands (when some operation prevents)."""
        stages: dict[str, list] = {stage: [] for stage in self.rules.order}
        for t in self._ops(ChangeOp):
            stages[self.rules.stage(t[2].op)].append(t)
        stages["set"].sort(key=lambda t: t[1].priority)
        if "floor" in stages and self._floored():
            stages["floor"].append((None, None, FloorStep()))
        return [t for stage in self.rules.order for t in stages[stage]]

    def _floored(self) -> list[EffectVar]:
        """The effects some operation prevents part of: the only amounts a floor step can raise."""
        prevented = {(o.kind, o.param) for _, _, o in self._ops(ChangeOp) if o.op == "prevent"}
        return [v for v in self.variables if v.kind.main is not None
                and ((v.effect.kind, None) in prevented or (v.effect.kind, v.kind.main) in prevented)
                # select, then unselect: what prevention spares is counted apart (runtime.unselect)
                and not (self.rules.unselect and v.effect.kind in vocab.UNSELECT_KINDS)]

    def visit_FloorStep(self, o: FloorStep, j, m) -> None:
        for v in self._floored():
            self._floor_line(v)

    def _stage_ops(self, stage: str) -> list:
        """The changing operations of one stage of `order` (a floor step: its pseudo-operation)."""
        if stage == "floor":
            return [(None, None, FloorStep())] if self._floored() else []
        ops = [t for t in self._ops(ChangeOp)
               if stage == t[2].op or (stage == "add_prevent" and t[2].op in ("add", "prevent"))]
        return sorted(ops, key=lambda t: t[1].priority) if stage == "set" else ops

    def _switched_order(self) -> None:
        """The operations where rule options switch their order: a loop over the stages of the
        order the question's options choose, each operation written once (the additions skipped
        in a `prevent` stage, the preventions in an `add` stage; a stage without operations not
        written)."""
        changes = ("add_prevent", "add", "prevent")
        stages = [stage for stage in dict.fromkeys("add_prevent" if stage in changes else stage
                                                   for _, order in self.rules.orders for stage in order)
                  if self._stage_ops(stage)]
        self._stage_loop_start(self.rules.switches, {on: order for on, order in self.rules.orders})
        outer = self.indent
        for k, stage in enumerate(stages):
            self._stage_start(k, changes if stage == "add_prevent" else (stage,))
            self.indent = outer + self.STAGE_INDENT
            ops = self._stage_ops(stage)
            for skip, run in itertools.groupby(ops, key=lambda t: _SKIPPED_IN.get(t[2].op) if stage == "add_prevent" else None):
                if skip is not None:
                    self._stage_guard(skip)
                    self.indent = outer + self.STAGE_INDENT * 2
                for j, m, o in run:
                    self.visit(o, j, m)
                self.indent = outer + self.STAGE_INDENT
                if skip is not None:
                    self._guard_end()
            self.indent = outer
        self._stage_loop_end()

    def floor_kinds(self) -> dict[str, str]:
        """The effect kinds whose main amount the edition's `floor zero` may raise, with that
        parameter: where a prevention or a replacement changes it, or its own expression is no
        plain number (an amount written as a number and only added to cannot go below zero)."""
        if not self.rules.floor:
            return {}
        changed = {o.kind for _, _, o in self._ops(ChangeOp) if o.op in ("set", "prevent")}
        out = {}
        for v in self.variables:
            given = _given(v.kind, v.effect.call).get(v.kind.main)
            plain = given is None or (isinstance(given, Num) and given.value >= 0)
            if v.kind.main is not None and (v.effect.kind in changed or not plain) and _numeric(v.kind):
                out[v.effect.kind] = v.kind.main
        return out

    def _unselecting(self) -> list[EffectVar]:
        """The effects whose prevented amount is counted apart: select, then unselect (runtime.unselect)."""
        if not self.rules.unselect:
            return []
        return [v for v in self.variables if v.effect.kind in vocab.UNSELECT_KINDS and self._prevented(v)]

    def _prevented(self, v: EffectVar) -> bool:
        """Some changing operation prevents part of this effect's amount."""
        return any(o.op == "prevent" and o.kind == v.effect.kind and (o.param or v.kind.main) == "amount"
                   for _, _, o in self.ordered)

    def _targets_of(self, o) -> list[EffectVar]:
        """The effects of this role an operation changes or offers to replace (none: the validator
        warned, CIV036, the calamity never causes that effect)."""
        return [v for v in self.variables if v.effect.kind == o.kind]

    def visit_ops(self) -> None:
        """Cancellations first, then the changes in their stages, then the offers and immunity."""
        for j, m, o in self._ops(CancelOp):
            self.visit(o, j, m)
        for v in self.unselecting:
            self.line(f"{v.var('amount')}_unselected = 0{self.END}")
        if self.rules.orders:
            self._switched_order()
        else:
            for j, m, o in self.ordered:
                self.visit(o, j, m)
        for j, m, o in self._ops((StopOp, OptionOp, ImmuneOp)):
            self.visit(o, j, m)

    def _effect_locals(self) -> None:
        """Each effect's parameters as locals (a branch's effects start absent), then what the
        primary victim assigns to the secondary ones or what was assigned to this one."""
        for v in self.variables:
            if v.conditional:
                self.line(f"{v.flag} = {self.NONE}{self.END}")
        self.visit_effects(self.effects, self.indent, iter(self.variables))
        if self.role == "secondary":
            self._assigned()
        elif self.cal.secondary:
            self._assignment()

    def _exclusion(self) -> None:
        ex = next((ex for ex in self.cal.exclusions if ex.condition is not None), None)
        if ex is None:
            self.line(f"excluded = {self.NONE}{self.END}")
        else:
            self._excluded_if(ex)

    def emit(self) -> None:
        """The role's branch: its effects' parameters as locals, the modifiers' operations (one
        `visit_<Op>` each), the effect list and the runtime's passes over it, then the resolution."""
        if self.role == "secondary":
            self._exclusion()
        self._effect_locals()
        self._locals()
        self.visit_ops()
        immune = self._immune()
        self._effect_list(immune != self.FALSE)
        self._after()
        self._resolution(immune)

    def _after(self) -> None:
        """The runtime's passes over the finished effect list that this role needs, in order (the
        floor is no pass where the target took it on the effects' locals: `floored_inline`)."""
        for name, applies in _AFTER:
            if applies(self) and not (name == "floor" and self.floored_inline):
                self.line(getattr(self, f"_after_{name}")())

    def _resolution_args(self) -> tuple[str, str, str]:
        """What the resolution is given beside its effects, in the target's words: the assignment
        to the secondary victims, the options offered, the exclusion of this victim."""
        assignment = "assignment" if self.role == "primary" and self.cal.secondary else self.NONE
        options = "options" if self.has_options else self.EMPTY
        excluded = "excluded" if self.role == "secondary" else self.NONE
        return assignment, options, excluded

    def _evaluated_once(self) -> list:
        """The modifiers whose condition is evaluated once, into `m<j>`, before the operations."""
        return [(j, m) for j, m in self.mods if j not in self.inline]

    def _change(self, o: ChangeOp) -> tuple[str, str]:
        """A changing operation's parameter and its amount as code: a choice is its word; a number
        may be per unit of another expression (`per`)."""
        kind = vocab.EFFECT_KINDS[o.kind]
        param = o.param or kind.main
        p = kind.param(param)
        if p is not None and p.kind == "enum":
            return param, self.param_code(self.c, p, o.amount)
        value = self.c.compile(o.amount)
        return param, value if o.per is None else self.PER.format(value, self.c.compile(o.per))

    def _tested(self, o: ChangeOp, j: int) -> str:
        """The condition an operation of modifier j tests: an inline one is evaluated once here, into `c`."""
        if j not in self.inline:
            return self.conds[j]
        self.line(f"c = {self.assigned(self.conds[j])}{self.END}  {self._comment(o)}", o.span)
        return "c"

    def _present(self, v: EffectVar) -> str:
        """Whether an effect is present: always, unless a branch makes it conditional."""
        return self.PRESENT.format(v.flag) if v.conditional else self.TRUE

    def visit_CancelOp(self, o: CancelOp, j: int, m) -> None:
        by = ", ".join(m.advances) or "a modifier"
        self._cancel(o, j, f"whether {by} cancels the calamity", f"cancelled by {by}")

    def visit_StopOp(self, o: StopOp, j: int, m) -> None:
        # the victim may pay the price to stop the whole calamity for everyone
        what = f"whether the option to stop the calamity ({o.replacement.name.replace('_', ' ')}) is offered"
        self._offer(o, j, m, what, "calamity", False, None)

    def visit_OptionOp(self, o: OptionOp, j: int, m) -> None:
        targets = self._targets_of(o)
        if not targets:
            return
        what = f"whether the option to {o.replacement.name.replace('_', ' ')} is offered"
        self._offer(o, j, m, what, o.kind, o.each, targets)

    def _always_decided(self, m) -> bool:
        """A condition on held advances, constants and options is a plain bool: the branch for an
        undecided condition could never run (and was a third of the module's compile time)."""
        return m.condition is not None and _never_unknown(self.c, m.condition)

    def _branch_variables(self, e: EffectBranch, variables) -> tuple[list, list]:
        """The variables of a branch's effects, taken in order: (those of `then`, those of `otherwise`)."""
        return ([next(variables) for _ in range(_count_effects(e.then))],
                [next(variables) for _ in range(_count_effects(e.otherwise))])

    def visit_effects(self, effects: list, indent: str, variables) -> None:
        for e in effects:
            self.visit(e, indent, variables)

    def visit_Effect(self, e: Effect, indent: str, variables) -> None:
        v = next(variables)
        given = _given(v.kind, e.call)
        for p in v.kind.params:
            if p.name in given:
                code = self.param_code(self.c, p, given[p.name])
            elif p.name == v.kind.main or p.name == "active":
                code = self.TRUE
            else:
                code = self.literal(p.default)
            self._effect_line(f"{indent}{v.var(p.name)} = {code}", e)
        if v.kind.main is None:
            self.w.line(f"{indent}{v.flag} = {self.TRUE}{self.END}")

    def visit_ImmuneOp(self, o: ImmuneOp, j: int, m) -> None:
        if f"m{j}" not in self.immune_flags:
            self.immune_flags.append(f"m{j}")

    def _immune(self) -> str:
        """The resolution's immunity: FALSE, or the local holding whether a modifier grants it."""
        flags = self.immune_flags
        if not flags:
            return self.FALSE
        either = flags[0] if len(flags) == 1 else f"{self.OR}({flags[0]}, {', '.join(self.THUNK + f for f in flags[1:])})"
        self.line(f"immune = {either}{self.END}")
        return "immune"


def _numeric(kind) -> bool:
    """Whether an effect kind's main parameter is a number (a choice is never floored)."""
    p = kind.param(kind.main)
    return p is not None and p.kind != "enum"


def _collect(effects: list, conditional: bool, out: list) -> None:
    for e in effects:
        if isinstance(e, EffectBranch):
            _collect(e.then, True, out)
            _collect(e.otherwise, True, out)
        else:
            out.append(EffectVar(len(out), e, conditional))


def _count_effects(effects: list) -> int:
    return sum(_count_effects(e.then) + _count_effects(e.otherwise) if isinstance(e, EffectBranch) else 1
               for e in effects)


def _given(kind, call) -> dict:
    """An effect call's arguments by parameter name, positional and keyword alike."""
    given = dict(zip([p.name for p in kind.params], call.args))
    given.update(call.kwargs)
    return given


def _never_unknown(c, expr) -> bool:
    """`expr` reads no player fact (only held advances, folded constants and options), so its
    value is never runtime.Unknown."""
    return not any(_reads_a_fact(c, node) for node in walk(expr))


def _reads_a_fact(c, node) -> bool:
    """The node itself reads the player's state: a call but `holds`, a name that is not folded."""
    if isinstance(node, Call):
        return node.name != "holds"
    return isinstance(node, Name) and node.parts[0] not in c.consts and node.parts[0] not in c.options


def call_mapping(call, key, code, literal) -> str:
    """An effect call (a replacement's, an assigned effect's) as a mapping literal of its parameters,
    given or defaulted, in the target's words: `key` writes a name, `code` a given value, `literal`
    a default (a parameter without either is left out)."""
    kind = vocab.EFFECT_KINDS[call.name]
    given = _given(kind, call)
    parts = []
    for p in kind.params:
        if p.name in given:
            parts.append(f"{key(p.name)}: {code(p, given[p.name])}")
        elif p.default is not None:
            parts.append(f"{key(p.name)}: {literal(p.default)}")
    return "{" + ", ".join(parts) + "}"
