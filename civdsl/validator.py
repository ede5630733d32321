"""Pass 4: is the resolved edition right? Each check reports a stable code (see codes.py).

Checks read the model only; they never stop at the first problem. Errata lines in the rulebook
acknowledge specific diagnostics on specific items (a deliberate or printed departure), turning
them into notes; an errata line that excuses nothing is itself reported.
"""

from __future__ import annotations

from typing import Any

from . import vocabulary as vocab
from .diagnostics import Diagnostics, Span, did_you_mean, suggestion
from .expressions import EvalError, Scope, check, evaluate, quote, unparse, walk
from .model import Advance, Calamity, Edition, EffectBranch
from .syntax import Call, Name, Neg, Num, Str

STACKS = range(1, 10)
ROLES = ("primary", "secondary", "any")


def validate(ed: Edition, diags: Diagnostics) -> None:
    first = len(diags.items)
    v = _Validator(ed, diags)
    v.run()
    _apply_errata(ed, diags, first)


class _Validator:
    def __init__(self, ed: Edition, diags: Diagnostics):
        self.ed = ed
        self.d = diags
        self.scope = Scope(consts=ed.consts, options=ed.options, tables=ed.tables, advances=ed.advances,
                           commodities=ed.commodities, groups=ed.groups)

    def run(self) -> None:
        self._vp_tiers()
        self._consts_tables()
        for adv in self.ed.advances.values():
            self._advance(adv)
        self._prerequisite_cycles()
        for cal in self.ed.calamities.values():
            self._calamity(cal)
        self._epochs()
        self._score()
        self._commodities()
        self._decks()
        self._asserts()
        if self.ed.has_rounds:
            _RoundChecker(self.ed, self.d).run()

    # --- edition-wide
    def _vp_tiers(self) -> None:
        tiers = self.ed.vp_tiers
        bounds = [b for b, _ in tiers if b is not None]
        if bounds != sorted(bounds) or len(set(bounds)) != len(bounds) or any(b is None for b, _ in tiers[:-1]):
            self.d.error("CIV032", "vp tiers must rise in cost, with `else` last", self.ed.vp_tiers_span)

    def _consts_tables(self) -> None:
        declared: list[str] = []
        for const in self.ed.consts.values():
            check(const.expr, self.scope, self.d, const.id)
            # a constant reads only constants declared before it, so none is defined through itself
            for node in walk(const.expr):
                if isinstance(node, Name) and node.parts[0] in self.ed.consts and node.parts[0] not in declared:
                    self.d.error("CIV052", f"constant `{const.id}` reads `{node.parts[0]}`, which is not declared before it",
                                 node.span, item=const.id, help="declare a constant before the constants that use it")
            declared.append(const.id)
        for table in self.ed.tables.values():
            previous = None
            for band in sorted(table.bands, key=lambda b: b.low):
                before = len(self.d.errors)
                check(band.value, self.scope, self.d, table.id)
                if len(self.d.errors) == before:
                    self._table_value(table.id, band.value)
                if band.high is not None and band.high < band.low:
                    self.d.error("CIV051", f"band {band.low}..{band.high} of `{table.id}` is empty", band.span, item=table.id)
                if previous is not None and (previous.high is None or previous.high >= band.low):
                    self.d.error("CIV051", f"bands of `{table.id}` overlap at {band.low}", band.span, item=table.id)
                previous = band

    def _table_value(self, table: str, expr) -> None:
        """Table values are data in the compiled module: they must fold to a number now."""
        def lookup(name: Name):
            const = self.ed.consts.get(name.parts[0])
            if const is not None and const.value is not None and len(name.parts) == 1:
                return const.value
            raise EvalError(f"`{name.dotted}` is not a constant", name.span)

        try:
            evaluate(expr, lookup)
        except EvalError as exc:
            self.d.error("CIV043", f"a value of table `{table}` must be a constant: {exc}", exc.span, item=table)

    # --- advances
    def _advance(self, adv: Advance) -> None:
        name = adv.name
        if "cost" not in adv.field_spans:
            self.d.error("CIV022", f"advance `{name}` has no cost", adv.span, item=name, help="add `cost N` (or `cost unknown`)")
        elif adv.cost is not None and adv.cost < 0:
            self.d.error("CIV025", f"advance `{name}` has a negative cost", adv.field_spans["cost"], item=name)
        if not adv.groups:
            self.d.error("CIV022", f"advance `{name}` belongs to no group", adv.span, item=name, help="add `groups ID`")
        group_spans = adv.field_spans.get("group_spans", [])
        for i, g in enumerate(adv.groups):
            if g not in self.ed.groups:
                self.d.error("CIV012", f"unknown group `{g}`", group_spans[i] if i < len(group_spans) else adv.span,
                             item=name, help=suggestion(g, self.ed.groups))
        if len(adv.groups) > 2:
            self.d.error("CIV024", f"advance `{name}` names {len(adv.groups)} groups; at most two", adv.field_spans["groups"], item=name)
        if len(adv.groups) == 2 and adv.groups[0] == adv.groups[1]:
            self.d.error("CIV024", f"advance `{name}` names group `{adv.groups[0]}` twice", adv.field_spans["groups"],
                         item=name, help="a dual-group advance needs two different groups")
        for g, amount in adv.credits.items():
            span = adv.field_spans.get(f"credit:{g}", adv.span)
            if g not in self.ed.groups:
                self.d.error("CIV012", f"credits to unknown group `{g}`", span, item=name, help=suggestion(g, self.ed.groups))
            if amount < 0:
                self.d.error("CIV025", f"negative credit to `{g}`", span, item=name)
        for sc in adv.specific:
            if sc.target == name:
                self.d.error("CIV026", f"advance `{name}` gives a credit to itself", sc.span, item=name)
            elif sc.target not in self.ed.advances:
                self.d.error("CIV010", f"credit to unknown advance `{sc.target}`", sc.span, item=name,
                             help=suggestion(sc.target, self.ed.advances))
            if sc.amount < 0:
                self.d.error("CIV025", "negative specific credit", sc.span, item=name)
        for req in adv.requires:
            if req not in self.ed.advances:
                self.d.error("CIV010", f"unknown prerequisite `{req}`", adv.field_spans.get(f"requires:{req}", adv.span),
                             item=name, help=suggestion(req, self.ed.advances))
        if adv.supply is not None and adv.supply < 0:
            self.d.error("CIV025", "negative supply", adv.field_spans["supply"], item=name)
        tier = self.ed.tier_vp(adv.cost)
        if adv.vp_explicit:
            if tier is not None and adv.vp != tier:
                self.d.error("CIV030", f"`{name}` is worth {adv.vp} VP, but the tier rule gives {tier} for cost {adv.cost}",
                             adv.field_spans["vp"], item=name)
        elif self.ed.vp_tiers:
            adv.vp = tier
        for ability in adv.abilities:
            self._call(ability.call, vocab.ABILITY_KINDS, "CIV016", "ability", name, literal_only=True)

    def _prerequisite_cycles(self) -> None:
        """Depth-first, with an explicit stack: a chain of thousands of prerequisites is fine."""
        state: dict[str, int] = {}  # 1: on the current path, 2: done
        for root in self.ed.advances:
            if root in state:
                continue
            state[root] = 1
            path = [root]
            pending = [iter(self.ed.advances[root].requires)]
            while pending:
                name = path[-1]
                req = next(pending[-1], None)
                if req is None:
                    state[name] = 2
                    path.pop()
                    pending.pop()
                elif req not in self.ed.advances:
                    continue
                elif state.get(req) == 1:
                    cycle = path[path.index(req):] + [req]
                    adv = self.ed.advances[name]
                    self.d.error("CIV050", f"prerequisites form a cycle: {' -> '.join(cycle)}",
                                 adv.field_spans.get(f"requires:{req}", adv.span), item=name)
                elif req not in state:
                    state[req] = 1
                    path.append(req)
                    pending.append(iter(self.ed.advances[req].requires))

    # --- calls to the vocabulary (effects and abilities)
    def _call(self, call: Call, table: dict, code: str, what: str, item: str, literal_only: bool = False) -> None:
        kind = table.get(call.name)
        if kind is None:
            self.d.error(code, f"unknown {what} `{call.name}`", call.span, item=item,
                         help=suggestion(call.name, table) or f"see `civdsl vocab` for every {what}")
            return
        names = [p.name for p in kind.params]
        if len(call.args) > len(names):
            self.d.error("CIV017", f"`{call.name}` takes at most {len(names)} positional argument"
                                   f"{'s' if len(names) != 1 else ''}", call.span, item=item)
        given = dict(zip(names, call.args))
        for key, value in call.kwargs.items():
            span = call.kwarg_spans.get(key, call.span)
            if key not in names:
                self.d.error("CIV017", f"`{call.name}` has no parameter `{key}`", span, item=item,
                             help=suggestion(key, names) or f"parameters: {', '.join(names) or 'none'}")
                continue
            if key in given:
                self.d.error("CIV017", f"parameter `{key}` of `{call.name}` given twice", span, item=item)
            given[key] = value
        for p in kind.params:
            value = given.get(p.name)
            if value is None:
                if p.required:
                    self.d.error("CIV017", f"`{call.name}` needs `{p.name}` ({p.doc or p.kind})", call.span, item=item)
                continue
            self._param(call, p, value, item, literal_only)

    def _param(self, call: Call, p: vocab.Param, value, item: str, literal_only: bool) -> None:
        if p.kind == "enum":
            word = value.parts[0] if isinstance(value, Name) and len(value.parts) == 1 else None
            if word not in p.choices:
                self.d.error("CIV017", f"`{p.name}` of `{call.name}` must be one of {', '.join(p.choices)}", value.span,
                             item=item, help=suggestion(unparse(value), p.choices))
        elif p.kind == "str":
            if not isinstance(value, (Str, Name)):
                self.d.error("CIV017", f"`{p.name}` of `{call.name}` must be a name", value.span, item=item)
            elif p.name == "group" and _word(value) not in self.ed.groups:
                self.d.error("CIV012", f"unknown group `{_word(value)}`", value.span, item=item,
                             help=suggestion(_word(value), self.ed.groups))
        elif p.kind == "int":
            if literal_only:
                if not (isinstance(value, Num) or (isinstance(value, Neg) and isinstance(value.operand, Num))):
                    self.d.error("CIV017", f"`{p.name}` of `{call.name}` must be a number", value.span, item=item)
            else:
                check(value, self.scope, self.d, item)
                if isinstance(value, Neg) and isinstance(value.operand, Num):
                    self.d.error("CIV025", f"`{p.name}` of `{call.name}` cannot be negative", value.span, item=item)

    # --- calamities
    def _calamity(self, cal: Calamity) -> None:
        name = cal.name
        if cal.stack is None:
            self.d.error("CIV022", f"calamity `{name}` has no stack", cal.span, item=name, help="add `stack N`")
        elif cal.stack not in STACKS:
            self.d.error("CIV023", f"stack {cal.stack} does not exist; trade stacks run from 1 to 9",
                         cal.field_spans["stack"], item=name)
        if cal.klass is None:
            self.d.error("CIV022", f"calamity `{name}` has no class", cal.span, item=name,
                         help="add `class minor`, `class major tradable` or `class major nontradable`")
        if cal.beneficiary not in vocab.BENEFICIARIES:
            self.d.error("CIV019", f"unknown beneficiary `{cal.beneficiary}`", cal.field_spans.get("beneficiary_name", cal.span),
                         item=name, help=suggestion(cal.beneficiary, vocab.BENEFICIARIES))
        if not cal.primary:
            self.d.error("CIV022", f"calamity `{name}` has no primary effect", cal.span, item=name,
                         help="add `primary { ... }`")
        kinds = set()
        self._effects(cal.primary, name, kinds)
        if cal.secondary:
            sec = cal.secondary
            if sec.count is None and sec.share is None:
                self.d.error("CIV022", "a secondary block needs `count N` or `share N`", sec.span, item=name)
            for e in (sec.count, sec.share):
                if e is not None:
                    check(e, self.scope, self.d, name)
                    self._non_negative(e, name)
            self._effects(sec.effects, name, kinds)
        for ex in cal.exclusions:
            if ex.role is not None and ex.role not in vocab.EXCLUDE_ROLES:
                self.d.error("CIV019", f"unknown exclusion `{ex.role}`", ex.span, item=name,
                             help=suggestion(ex.role, vocab.EXCLUDE_ROLES) or "use `exclude when CONDITION`")
            if ex.condition is not None:
                check(ex.condition, self.scope, self.d, name)
        for expr, _ in cal.cancel:
            check(expr, self.scope, self.d, name)
        for m in cal.modifiers:
            check(m.condition, self.scope, self.d, name)
            for op in m.ops:
                self._op(op, name, kinds)

    def _effects(self, effects: list, item: str, kinds: set) -> None:
        for e in effects:
            if isinstance(e, EffectBranch):
                check(e.condition, self.scope, self.d, item)
                self._effects(e.then, item, kinds)
                self._effects(e.otherwise, item, kinds)
            else:
                kinds.add(e.kind)
                self._call(e.call, vocab.EFFECT_KINDS, "CIV015", "effect kind", item)

    def _op(self, op, item: str, kinds: set) -> None:
        if op.op in ("immune", "cancel"):
            return
        kind = vocab.EFFECT_KINDS.get(op.kind)
        if kind is None:
            self.d.error("CIV015", f"unknown effect kind `{op.kind}`", op.span, item=item,
                         help=suggestion(op.kind, vocab.EFFECT_KINDS))
            return
        if op.kind not in kinds:
            self.d.warning("CIV036", f"this modifier changes `{op.kind}`, which `{item}` never causes", op.span, item=item,
                           help=f"effects of `{item}`: {', '.join(sorted(kinds)) or 'none'}")
        if op.op == "option":
            self._call(op.replacement, vocab.EFFECT_KINDS, "CIV015", "effect kind", item)
            return
        param = op.param or kind.main
        p = kind.param(param) if param else None
        if p is None:
            self.d.error("CIV017", f"`{op.kind}` has no parameter `{op.param or 'amount'}` to {op.op}", op.span, item=item,
                         help=suggestion(op.param or "", [x.name for x in kind.params]))
            return
        if p.kind == "enum":
            if op.op != "set":
                self.d.error("CIV017", f"`{op.kind}.{param}` is a choice; only `set` can change it", op.span, item=item)
            elif not (isinstance(op.amount, Name) and op.amount.parts[0] in p.choices):
                self.d.error("CIV017", f"`{op.kind}.{param}` must be one of {', '.join(p.choices)}", op.amount.span,
                             item=item, help=suggestion(unparse(op.amount), p.choices))
            return
        check(op.amount, self.scope, self.d, item)
        self._non_negative(op.amount, item)
        if op.per is not None:
            check(op.per, self.scope, self.d, item)

    def _non_negative(self, e, item: str) -> None:
        if isinstance(e, Neg) and isinstance(e.operand, Num) and e.operand.value:
            self.d.error("CIV025", "a quantity here cannot be negative", e.span, item=item,
                         help="use `prevent` to lower a value and `add` to raise it")

    # --- epochs, score
    def _epochs(self) -> None:
        for track in self.ed.asts.values():
            if not track.epochs:
                self.d.error("CIV022", f"A.S.T. track `{track.id}` has no epochs", track.span, item=track.id)
            for epoch in track.epochs:
                for req in epoch.requirements:
                    check(req.expr, self.scope, self.d, epoch.name)
            for expr, _ in track.backward:
                check(expr, self.scope, self.d, track.id)
            names = [e.name for e in track.epochs]
            for name, span in track.backward_except:
                if name not in names:
                    best = did_you_mean(name, names)
                    self.d.error("CIV093", f"`except` names `{name}`, which is no epoch of track `{track.id}`", span,
                                 item=track.id, help=f"did you mean `{best}`?" if best else
                                 f"the epochs of `{track.id}`: {', '.join(names)}")
        self._civilizations()
        sc = self.ed.start_credits
        if sc is not None:
            check(sc.amount, self.scope, self.d, "start credits")
            if sc.unless is not None:
                check(sc.unless, self.scope, self.d, "start credits")

    def _civilizations(self) -> None:
        """Each row must fit its track: one first space per epoch after the first, rising, on the track."""
        ranks: dict[int, str] = {}
        for civ in self.ed.civilizations.values():
            if civ.rank is not None:
                if civ.rank in ranks:
                    self.d.error("CIV094", f"A.S.T. ranking {civ.rank} is given to both `{ranks[civ.rank]}` and "
                                 f"`{civ.name}`", civ.field_spans.get("rank", civ.span), item=civ.name)
                ranks.setdefault(civ.rank, civ.name)
            for row in civ.rows.values():
                track = self.ed.asts.get(row.track)
                if track is None:
                    best = did_you_mean(row.track, self.ed.asts)
                    self.d.error("CIV091", f"`{civ.name}` has a row on `{row.track}`, which is no A.S.T. track",
                                 row.track_span, item=civ.name,
                                 help=f"did you mean `{best}`?" if best else
                                 f"declared tracks: {', '.join(self.ed.asts) or 'none'}")
                    continue
                self._row(civ, row, track)

    def _row(self, civ, row, track) -> None:
        spaces = row.spaces if row.spaces is not None else track.spaces
        where = f"`{civ.name}` on `{track.id}`"
        if spaces is None:
            self.d.error("CIV092", f"{where}: the number of spaces is not known", row.span, item=civ.name,
                         help=f"write `spaces N` in the row or in track `{track.id}`")
            return
        want = len(track.epochs) - 1
        if len(row.starts) != want:
            self.d.error("CIV092", f"{where}: {len(row.starts)} first space{'' if len(row.starts) == 1 else 's'} given, but the track has {want} epochs "
                         f"after the first", row.span, item=civ.name,
                         help="give the first space of each epoch after the first, in order: "
                              + ", ".join(e.name for e in track.epochs[1:]))
            return
        previous = 1  # the first epoch starts on space 1 (space 0 is the start arrow)
        for start, epoch in zip(row.starts, track.epochs[1:]):
            if start <= previous or start > spaces:
                self.d.error("CIV092", f"{where}: `{epoch.name}` starts on space {start}; each epoch must start after "
                             f"the one before it (from space 2) and on the track (spaces 1-{spaces})", row.span,
                             item=civ.name)
                return
            previous = start

    def _score(self) -> None:
        if self.ed.score:
            for line in self.ed.score.points + self.ed.score.tiebreaks:
                check(line.expr, self.scope, self.d, line.label)

    # --- commodities and the deck
    def _commodities(self) -> None:
        if self.ed.set_value is not None:
            check(self.ed.set_value, Scope(consts=self.ed.consts, player=False, extra_names=("n", "face")), self.d, "set_value")
        for com in self.ed.commodities.values():
            for key in ("value", "count"):
                if getattr(com, key) is None:
                    self.d.error("CIV022", f"commodity `{com.name}` has no {key}", com.span, item=com.name)
                elif getattr(com, key) < 0:
                    self.d.error("CIV025", f"commodity `{com.name}` has a negative {key}", com.field_spans[key], item=com.name)
            if com.stack is not None and com.stack not in STACKS:
                self.d.error("CIV023", f"stack {com.stack} does not exist; trade stacks run from 1 to 9",
                             com.field_spans["stack"], item=com.name)
            if com.printed and com.value is not None and self.ed.set_value is not None:
                expected = []
                try:
                    for n in range(1, len(com.printed) + 1):
                        expected.append(set_value(self.ed, n, com.value))
                except EvalError as exc:
                    self.d.error("CIV043", f"set_value cannot be evaluated: {exc}", exc.span, item="set_value")
                    continue
                wrong = [(n + 1, p, x) for n, (p, x) in enumerate(zip(com.printed, expected)) if p != x]
                if wrong:
                    n, printed, want = wrong[0]
                    more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
                    self.d.error("CIV040", f"`{com.name}` prints {printed} for {n} cards; the set-value rule gives {want}{more}",
                                 com.field_spans["printed"], item=com.name,
                                 notes=[f"set_value is {unparse(self.ed.set_value)}"],
                                 help=f'fix the number, or record the printed mistake: errata CIV040 "{com.name}" "why"')
            if com.printed and com.count is not None and len(com.printed) > com.count:
                self.d.error("CIV040", f"`{com.name}` prints {len(com.printed)} set values but there are only {com.count} cards",
                             com.field_spans["printed"], item=com.name)

    def _decks(self) -> None:
        for stack, deck in sorted(self.ed.decks.items()):
            commodities = [c for c in self.ed.commodities.values() if c.stack == stack]
            calamities = [c for c in self.ed.calamities.values() if c.stack == stack]
            total = sum(c.count or 0 for c in commodities) + len(calamities)
            if total != deck.size:
                parts = [f"{c.count} {c.name}" for c in commodities] + [f"1 {c.name}" for c in calamities]
                self.d.error("CIV041", f"stack {stack} should hold {deck.size} cards, but its parts add up to {total}",
                             deck.span, item=f"stack {stack}", notes=[" + ".join(parts) or "no cards"],
                             help=f'fix a count, or record the printed mistake: errata CIV041 "stack {stack}" "why"')

    # --- author invariants
    def _asserts(self) -> None:
        model_scope = Scope(consts=self.ed.consts, options=self.ed.options, tables=self.ed.tables,
                            advances=self.ed.advances, commodities=self.ed.commodities, groups=self.ed.groups,
                            player=False, model=True)
        for a in self.ed.asserts:
            before = len(self.d.errors)
            check(a.expr, model_scope, self.d, a.message)
            if len(self.d.errors) > before:
                continue
            try:
                ok = ModelEvaluator(self.ed).evaluate(a.expr)
            except EvalError as exc:
                self.d.error("CIV043", f"assertion cannot be evaluated: {exc}", exc.span, item=a.message)
                continue
            if ok is not True:
                detail = ModelEvaluator(self.ed).explain(a.expr)
                hint = None
                if self.ed.bases and a.span.path != self.ed.files[-1]:
                    hint = (f"a house rule may depart from its base: acknowledge it with "
                            f"errata CIV042 {quote(a.message)} \"why\"")
                self.d.error("CIV042", f"assertion failed: {a.message}", a.span, item=a.message,
                             notes=[f"{unparse(a.expr)}"] + ([detail] if detail else []), help=hint)


def _word(value) -> str:
    return value.value if isinstance(value, Str) else value.parts[0]


def set_value(ed: Edition, n: int, face: int):
    def lookup(name: Name):
        if name.parts[0] == "n":
            return n
        if name.parts[0] == "face":
            return face
        const = ed.consts.get(name.parts[0])
        if const is not None and const.value is not None:
            return const.value
        raise EvalError(f"`{name.dotted}` has no value here", name.span)
    return evaluate(ed.set_value, lookup)


class ModelEvaluator:
    """Evaluates author invariants over the rulebook's own data."""

    def __init__(self, ed: Edition):
        self.ed = ed

    def collection(self, name: str, context: dict | None) -> list[dict]:
        if name == "advances":
            return [self.advance_view(a) for a in self.ed.advances.values()]
        if name == "calamities":
            return [{"name": c.name, "stack": c.stack, "tradable": c.tradable, "major": c.major,
                     "modifier_count": len(c.modifiers)} for c in self.ed.calamities.values()]
        if name == "commodities":
            return [{"name": c.name, "value": c.value, "count": c.count, "stack": c.stack}
                    for c in self.ed.commodities.values()]
        if name == "specific_credits":
            if context is not None and "specific_credits" in context:
                return context["specific_credits"]
            return [sc for a in self.ed.advances.values() for sc in self.advance_view(a)["specific_credits"]]
        raise KeyError(name)

    def advance_view(self, adv: Advance, depth: int = 0) -> dict:
        view: dict[str, Any] = {"name": adv.name, "cost": adv.cost, "vp": adv.vp, "groups": list(adv.groups),
                                "supply": adv.supply, "credit_total": sum(adv.credits.values()),
                                "group_count": len(adv.groups)}
        if depth == 0:
            view["specific_credits"] = [
                {"target": self.advance_view(self.ed.advances[sc.target], 1) if sc.target in self.ed.advances else None,
                 "amount": sc.amount, "source": view} for sc in adv.specific]
        return view

    def evaluate(self, expr, context: dict | None = None):
        def lookup(name: Name):
            head = name.parts[0]
            if context is not None and head in context and head != "specific_credits":
                value: Any = context[head]
            elif head in vocab.MODEL_COLLECTIONS:
                value = self.collection(head, context)
            elif head in self.ed.consts and self.ed.consts[head].value is not None:
                value = self.ed.consts[head].value
            elif head in self.ed.options:
                value = self.ed.options[head].on
            elif head in self.ed.groups:
                value = head
            else:
                raise EvalError(f"`{name.dotted}` has no value here", name.span)
            for part in name.parts[1:]:
                if not isinstance(value, dict) or part not in value:
                    raise EvalError(f"`{name.dotted}`: no attribute `{part}`", name.span)
                value = value[part]
            return value

        def call(c: Call, ev):
            if c.name in self.ed.tables:
                raise EvalError("tables read player state; they cannot appear in an assert", c.span)
            items = self.items(c.args[0], context)
            if c.name == "count":
                return len(items)
            if c.name == "sum":
                field = c.args[1]
                return sum(self.evaluate(field, item) or 0 for item in items)
            if c.name == "all":
                return all(self.evaluate(c.args[1], item) is True for item in items)
            if c.name == "any":
                return any(self.evaluate(c.args[1], item) is True for item in items)
            raise EvalError(f"`{c.name}` cannot be used in an assert", c.span)

        return evaluate(expr, lookup, call)

    def items(self, expr, context) -> list:
        from .syntax import Where
        if isinstance(expr, Where):
            return [i for i in self.items(expr.items, context) if self.evaluate(expr.condition, i) is True]
        value = self.evaluate(expr, context)
        if not isinstance(value, list):
            raise EvalError("expected a collection (advances, calamities, commodities, specific_credits)", expr.span)
        return value

    def explain(self, expr) -> str | None:
        """For a failed `all(...)`, name the items that break it; for a comparison, show both sides."""
        from .syntax import BinOp
        try:
            if isinstance(expr, Call) and expr.name == "all":
                bad = [i.get("name", "?") for i in self.items(expr.args[0], None)
                       if self.evaluate(expr.args[1], i) is not True]
                return "fails for: " + ", ".join(map(str, bad[:10])) + (f" and {len(bad) - 10} more" if len(bad) > 10 else "")
            if isinstance(expr, BinOp) and expr.op in ("==", "!=", "<", "<=", ">", ">="):
                return f"left side is {self.evaluate(expr.left)}, right side is {self.evaluate(expr.right)}"
        except EvalError:
            return None
        return None


def _apply_errata(ed: Edition, diags: Diagnostics, first: int) -> None:
    for e in ed.errata:
        for d in diags.items[first:]:
            if d.code == e.code and d.item == e.item and d.level == "error":
                d.level = "note"
                d.message = f"{d.message} (acknowledged by errata at {e.span}: {e.reason})"
                d.help = None
                e.used = True
        if not e.used:
            diags.warning("CIV044", f"errata {e.code} for `{e.item}` matches no diagnostic", e.span, item=e.item,
                          help="remove it, or check the item name and code")


# --- round rules: stats, phases, dice, tracks and cards ---------------------------------------

_NUMBER_RANK = {"int": 0, "rational": 1, "real": 2}
_KIND_WORDS = {"int": "a whole number", "rational": "an exact fraction", "real": "a real number",
               "bool": "true/false", "text": "text"}
_MATH_ARITY = {"floor": 1, "ceil": 1, "sqrt": 1, "abs": 1, "min": 2, "max": 2}


def _join_numbers(a: str, b: str) -> str:
    return a if _NUMBER_RANK[a] >= _NUMBER_RANK[b] else b


def _value_kind(value) -> str:
    from fractions import Fraction

    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, Fraction):
        return "int" if value.denominator == 1 else "rational"
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "text"
    return "any"


class _RoundChecker:
    """Checks round rules: one namespace of readable names, statement targets, the kinds of
    values (whole numbers, fractions, reals, true/false), and the shape of tracks, pools, event
    tables and decks. Codes CIV070-CIV074."""

    def __init__(self, ed: Edition, diags: Diagnostics):
        self.ed = ed
        self.d = diags
        self.kinds: dict[str, str] = {}  # readable name -> what it is
        self._choice_kinds: dict[str, str] = {}
        self._resolving: list[str] = []

    # --- names
    def run(self) -> None:
        self._namespace()
        for stat in self.ed.stats.values():
            self._stat(stat)
        for track in self.ed.tracks.values():
            self._track(track)
        if len(self.ed.card_decks) > 1:
            extra = list(self.ed.card_decks.values())[1]
            self.d.error("CIV073", "an edition has at most one deck of playing cards", extra.span, item=extra.id,
                         help="hand functions and `draw` read the one deck")
        for deck in self.ed.card_decks.values():
            self._deck(deck)
        for choice in self.ed.choices.values():
            self._choice_kind(choice.id)
        self._dependency_cycles()
        for th in self.ed.thresholds.values():
            self._condition(th.condition, {}, th.id)
            if th.body:
                self._block(th.body, {}, th.id)
        for pool in self.ed.pools.values():
            self._pool(pool)
        for table in self.ed.event_tables.values():
            self._event_table(table)
        for end in self.ed.ends:
            self._condition(end.condition, {}, "end")
        if self.ed.setup is not None:
            self._block(self.ed.setup.body, {}, "setup")
        for phase in self.ed.phases.values():
            self._block(phase.body, {}, phase.id)

    def _namespace(self) -> None:
        groups = [("constant", self.ed.consts), ("option", self.ed.options), ("table", self.ed.tables),
                  ("stat", self.ed.stats), ("flag", self.ed.flags), ("track", self.ed.tracks),
                  ("threshold", self.ed.thresholds), ("choice", self.ed.choices), ("dice pool", self.ed.pools),
                  ("event table", self.ed.event_tables)]
        spans: dict[str, Span] = {}
        for kind, items in groups:
            for name, obj in items.items():
                if name in self.kinds:
                    self.d.error("CIV074", f"`{name}` is both a {self.kinds[name]} and a {kind}", obj.span, item=name,
                                 notes=[f"the {self.kinds[name]} is declared at {spans[name]}"],
                                 help="stats, flags, tracks, thresholds, choices, pools, event tables, constants, "
                                      "tables and options share one namespace: rename one")
                    continue
                self.kinds[name] = kind
                spans[name] = obj.span

    def _name_kind(self, name: str, env: dict, span: Span, item: str) -> str | None:
        """The value kind a bare name reads, or None after reporting it."""
        if name in env:
            return env[name]
        kind = self.kinds.get(name)
        if kind in ("stat", "track"):
            return "int"
        if kind in ("flag", "threshold", "option"):
            return "bool"
        if kind == "choice":
            return self._choice_kind(name)
        if kind == "constant":
            const = self.ed.consts[name]
            if const.value is None:
                self.d.error("CIV013", f"constant `{name}` reads player facts; round rules cannot use it", span, item=item)
                return None
            return _value_kind(const.value)
        if kind in ("table", "dice pool", "event table"):
            how = "call it: `{0}(x)`" if kind == "table" else "roll it: `roll x = {0}`"
            self.d.error("CIV072", f"`{name}` is a {kind}, not a value", span, item=item, help=how.format(name))
            return None
        candidates = list(env) + [n for n, k in self.kinds.items() if k not in ("dice pool", "event table")]
        self.d.error("CIV013", f"unknown name `{name}`", span, item=item,
                     help=suggestion(name, candidates) or "round rules read stats, flags, tracks, thresholds, choices, "
                                                          "constants and options")
        return None

    def _choice_kind(self, name: str) -> str | None:
        if name in self._choice_kinds:
            return self._choice_kinds[name]
        if name in self._resolving:
            return "any"  # a cycle: reported by _dependency_cycles
        self._resolving.append(name)
        choice = self.ed.choices[name]
        kind = self._expr(choice.default, {}, name) or "any"
        self._resolving.pop()
        self._choice_kinds[name] = kind
        return kind

    def _dependency_cycles(self) -> None:
        """Thresholds and choices are computed on reading: one that reads itself never ends."""
        from .expressions import walk

        computed = {**self.ed.thresholds, **self.ed.choices}

        def reads(name: str) -> list[str]:
            obj = computed[name]
            expr = obj.condition if name in self.ed.thresholds else obj.default
            out = []
            for node in walk(expr):
                if isinstance(node, Name) and node.parts[0] in computed and node.parts[0] not in out:
                    out.append(node.parts[0])
            return out

        state: dict[str, int] = {}
        for start in computed:
            if start in state:
                continue
            stack = [(start, [start])]
            while stack:
                name, path = stack.pop()
                state[name] = 1
                for nxt in reads(name):
                    if nxt in path:
                        cycle = path[path.index(nxt):] + [nxt]
                        self.d.error("CIV073", f"`{nxt}` depends on itself: {' -> '.join(cycle)}", computed[nxt].span,
                                     item=nxt, help="a threshold or choice may not read itself, directly or through others")
                        continue
                    if nxt not in state:
                        stack.append((nxt, path + [nxt]))

    # --- declarations
    def _stat(self, stat) -> None:
        if stat.low is not None and stat.high is not None and stat.high < stat.low:
            self.d.error("CIV073", f"bounds {stat.low}..{stat.high} of stat `{stat.id}` are empty",
                         stat.field_spans.get("bounds", stat.span), item=stat.id)
        if stat.initial is None:
            return
        kind = self._expr(stat.initial, {}, stat.id)
        if kind is None:
            return
        try:
            value = evaluate(stat.initial, lambda n: self._const(n))
        except EvalError as exc:
            self.d.error("CIV073", f"the initial value of stat `{stat.id}` must be a constant: {exc}",
                         stat.field_spans.get("initial", stat.span), item=stat.id)
            return
        if _value_kind(value) != "int":
            self.d.error("CIV071", f"stat `{stat.id}` holds a whole number; its initial value is "
                                   f"{_KIND_WORDS.get(_value_kind(value), 'not a number')}",
                         stat.field_spans.get("initial", stat.span), item=stat.id, help="round it with floor() or ceil()")
            return
        if (stat.low is not None and value < stat.low) or (stat.high is not None and value > stat.high):
            self.d.error("CIV073", f"the initial value {value} of stat `{stat.id}` is outside its bounds",
                         stat.field_spans.get("initial", stat.span), item=stat.id)

    def _const(self, name: Name):
        const = self.ed.consts.get(name.parts[0])
        if const is not None and const.value is not None:
            return const.value
        raise EvalError(f"`{name.dotted}` is not a constant", name.span)

    def _track(self, track) -> None:
        if track.low is None or track.high is None:
            self.d.error("CIV022", f"track `{track.id}` has no bounds", track.span, item=track.id,
                         help="add `bounds LOW..HIGH`")
            return
        if track.high < track.low:
            self.d.error("CIV073", f"bounds {track.low}..{track.high} of track `{track.id}` are empty",
                         track.field_spans.get("bounds", track.span), item=track.id)
            return
        inside = range(track.low, track.high + 1)
        if track.start not in inside:
            self.d.error("CIV073", f"track `{track.id}` starts at {track.start}, outside {track.low}..{track.high}",
                         track.field_spans.get("start", track.span), item=track.id)
        previous = None
        for stage in sorted(track.stages, key=lambda s: s.low):
            if stage.high < stage.low or stage.low not in inside or stage.high not in inside:
                self.d.error("CIV073", f"stage `{stage.name}` ({stage.low}..{stage.high}) is not a range of positions "
                                       f"of track `{track.id}` ({track.low}..{track.high})", stage.span, item=track.id)
            elif previous is not None and previous.high >= stage.low:
                self.d.error("CIV073", f"stages `{previous.name}` and `{stage.name}` of track `{track.id}` overlap",
                             stage.span, item=track.id)
            previous = stage
        seen: dict[int, Span] = {}
        for mark in track.marks:
            if mark.position not in inside:
                self.d.error("CIV073", f"position {mark.position} is not on track `{track.id}` "
                                       f"({track.low}..{track.high})", mark.span, item=track.id)
            elif mark.position in seen:
                self.d.error("CIV073", f"position {mark.position} of track `{track.id}` is marked twice", mark.span,
                             item=track.id, notes=[f"first marked at {seen[mark.position]}"])
            seen.setdefault(mark.position, mark.span)
            if mark.body:
                self._block(mark.body, {}, track.id)

    def _deck(self, deck) -> None:
        if not deck.suits or not deck.ranks:
            self.d.error("CIV022", f"deck `{deck.id}` needs at least one `suit` and one `rank`", deck.span, item=deck.id)
        for what, entries in (("suit", deck.suits), ("rank", deck.ranks)):
            seen: dict[str, Span] = {}
            for entry in entries:
                if entry.name in seen:
                    self.d.error("CIV073", f"{what} `{entry.name}` of deck `{deck.id}` is declared twice", entry.span,
                                 item=deck.id, notes=[f"first declared at {seen[entry.name]}"])
                seen.setdefault(entry.name, entry.span)
        if deck.hand_limit is not None and deck.hand_limit < 1:
            self.d.error("CIV073", "a hand limit must be at least 1", deck.field_spans.get("hand_limit", deck.span),
                         item=deck.id)

    def _pool(self, pool) -> None:
        if pool.sides is None:
            self.d.error("CIV022", f"dice pool `{pool.id}` has no `sides`", pool.span, item=pool.id,
                         help="add `sides 6`")
        else:
            self._number(pool.sides, {}, pool.id, whole=True, what="the number of sides")
        if pool.base is not None:
            self._number(pool.base, {}, pool.id, whole=True, what="the number of dice")
        for term in pool.terms:
            self._number(term.amount, {}, pool.id, whole=True, what="the number of dice")
            if term.condition is not None:
                self._condition(term.condition, {}, pool.id)
        if pool.success is not None:
            low, high = pool.success
            sides = self._fold(pool.sides) if pool.sides is not None else None
            top = high if high is not None else sides
            if low < 1 or (top is not None and top < low) or (isinstance(sides, int) and top is not None and top > sides):
                self.d.error("CIV073", f"success {low}..{high if high is not None else ''} is not a range of faces "
                                       f"of pool `{pool.id}`", pool.field_spans.get("success", pool.span), item=pool.id)

    def _fold(self, expr):
        try:
            return evaluate(expr, lambda n: self._const(n))
        except EvalError:
            return None

    def _event_table(self, table) -> None:
        if table.die < 1:
            self.d.error("CIV073", f"event table `{table.id}` rolls a die of {table.die} sides", table.span,
                         item=table.id)
            return
        covered: dict[int, object] = {}
        for row in table.rows:
            if row.high < row.low or row.low < 1 or row.high > table.die:
                self.d.error("CIV073", f"row {row.low}..{row.high} of `{table.id}` is not a range of faces of a "
                                       f"{table.die}-sided die", row.span, item=table.id)
            else:
                twice = [face for face in range(row.low, row.high + 1) if face in covered]
                if twice:
                    self.d.error("CIV073", f"face {twice[0]} of `{table.id}` is in two rows", row.span, item=table.id,
                                 notes=[f"also in the row at {covered[twice[0]].span}"])
                for face in range(row.low, row.high + 1):
                    covered.setdefault(face, row)
            self._block(row.body, {}, table.id)
        missing = [f for f in range(1, table.die + 1) if f not in covered]
        if missing and len(missing) < table.die + 1:
            faces = ", ".join(map(str, missing[:10]))
            self.d.error("CIV073", f"no row of `{table.id}` covers face{'s' if len(missing) > 1 else ''} {faces}",
                         table.span, item=table.id, help="give every face of the die a row (an empty `{ }` for no effect)")

    # --- statements
    def _block(self, stmts: list, env: dict, item: str) -> None:
        env = dict(env)
        previous = None
        for s in stmts:
            self._stmt(s, env, item, previous)
            previous = s

    def _stmt(self, s, env: dict, item: str, previous) -> None:
        op = s.op
        if op == "note":
            return
        if op == "set":
            kind = self._target(s, env, item, ("stat", "flag", "track"))
            if kind == "flag":
                self._condition(s.expr, env, item)
            elif kind is not None:
                self._number(s.expr, env, item, whole=True, what=f"the value of {kind} `{s.target}`")
            else:
                self._expr(s.expr, env, item)
        elif op == "add":
            kind = self._target(s, env, item, ("stat",))
            self._number(s.expr, env, item, whole=kind is not None, what=f"the amount added to `{s.target}`")
        elif op == "move":
            self._target(s, env, item, ("track",))
            self._number(s.expr, env, item, whole=True, what="the number of steps")
        elif op == "reset":
            self._target(s, env, item, ("track", "stat", "flag"))
        elif op == "let":
            kind = self._expr(s.expr, env, item)
            self._bind(s.target, s.target_span or s.span, env, item, kind or "any")
        elif op in ("if", "instead"):
            if op == "instead" and (previous is None or previous.op not in ("if", "instead")
                                    or (previous.op == "if" and previous.otherwise)):
                self.d.error("CIV070", "`instead if` must follow an `if` (or another `instead if`) in the same block",
                             s.span, item=item, help="write the rule it replaces first: `if A { ... } instead if B { ... }`")
            self._condition(s.expr, env, item)
            self._block(s.body, env, item)
            if s.otherwise:
                self._block(s.otherwise, env, item)
        elif op == "rule":
            self._block(s.body, env, item)
        elif op == "roll":
            self._roll(s, env, item)
        elif op in ("shuffle", "draw", "discard"):
            if not self.ed.card_decks:
                self.d.error("CIV072", f"`{op}` needs a deck of cards, and the edition declares none", s.span, item=item,
                             help='declare one: `deck ID "Name" { suit "Hearts" red ... }`')
            if s.expr is not None:
                self._number(s.expr, env, item, whole=True, what="the number of cards")

    def _target(self, s, env: dict, item: str, allowed: tuple[str, ...]) -> str | None:
        name = s.target
        span = s.target_span or s.span
        kind = "local name" if name in env else self.kinds.get(name)
        if kind in allowed:
            return kind
        verb = {"set": "set", "add": "add to", "move": "move", "reset": "reset"}[s.op]
        wanted = allowed[0] if len(allowed) == 1 else ", ".join(allowed[:-1]) + " or " + allowed[-1]
        if kind is None:
            candidates = [n for n, k in self.kinds.items() if k in allowed]
            self.d.error("CIV072", f"there is no {wanted} `{name}` to {verb}", span, item=item,
                         help=suggestion(name, candidates) or f"declare it: `{allowed[0]} {name} \"...\"`")
        else:
            hint = {"track": "move a track with `move`", "local name": "a `let` name is fixed; use a stat"}.get(kind)
            self.d.error("CIV072", f"`{name}` is a {kind}; `{s.op}` works on a {wanted}", span, item=item, help=hint)
        return None

    def _bind(self, name: str, span: Span, env: dict, item: str, kind: str) -> None:
        if name in self.kinds or name in env:
            what = self.kinds.get(name) or "local name"
            self.d.error("CIV074", f"`{name}` is already a {what}; a local name must be new", span, item=item)
        env[name] = kind

    def _roll(self, s, env: dict, item: str) -> None:
        source = s.source
        span = s.source_span or s.span
        if source in self.ed.pools:
            if s.target is None:
                self.d.error("CIV072", f"rolling pool `{source}` needs a name for the result", s.span, item=item,
                             help=f"write `roll result = {source}`")
        elif source not in self.ed.event_tables:
            what = self.kinds.get(source)
            candidates = list(self.ed.pools) + list(self.ed.event_tables)
            message = (f"`{source}` is a {what}, not a dice pool or event table" if what
                       else f"there is no dice pool or event table `{source}`")
            self.d.error("CIV072", message, span, item=item, help=suggestion(source, candidates))
        if s.target is not None:
            self._bind(s.target, s.target_span or s.span, env, item, "int")

    # --- expressions
    def _condition(self, e, env: dict, item: str) -> None:
        kind = self._expr(e, env, item)
        if kind is not None and kind not in ("bool", "any"):
            self.d.error("CIV071", f"a condition must be true/false; this is {_KIND_WORDS[kind]}", e.span, item=item,
                         help="compare it: `x > 0`")

    def _number(self, e, env: dict, item: str, whole: bool, what: str) -> None:
        kind = self._expr(e, env, item)
        if kind in (None, "any"):
            return
        if kind in ("bool", "text"):
            self.d.error("CIV071", f"{what} must be a number; this is {_KIND_WORDS[kind]}", e.span, item=item)
        elif whole and kind != "int":
            how = "exact division `/` can leave a fraction: use `//` or floor()" if kind == "rational" else \
                "sqrt gives a real number: round it with floor() or ceil()"
            self.d.error("CIV071", f"{what} must be a whole number; this is {_KIND_WORDS[kind]}", e.span, item=item,
                         help=how)

    def _numeric(self, e, env: dict, item: str) -> str | None:
        kind = self._expr(e, env, item)
        if kind in ("bool", "text"):
            self.d.error("CIV071", f"expected a number, got {_KIND_WORDS[kind]}", e.span, item=item)
            return None
        return kind

    def _expr(self, e, env: dict, item: str) -> str | None:
        from .syntax import BinOp, Bool, Neg, Not, Unknown, Where

        if isinstance(e, Num):
            return "int"
        if isinstance(e, Str):
            return "text"
        if isinstance(e, Bool):
            return "bool"
        if isinstance(e, Unknown):
            self.d.error("CIV071", "`unknown` has no value in round rules", e.span, item=item)
            return None
        if isinstance(e, Name):
            if len(e.parts) > 1:
                self.d.error("CIV013", f"unknown name `{e.dotted}`", e.span, item=item,
                             help="round rules read plain names (stats, flags, tracks, ...)")
                return None
            return self._name_kind(e.parts[0], env, e.span, item)
        if isinstance(e, Not):
            self._condition(e.operand, env, item)
            return "bool"
        if isinstance(e, Neg):
            return self._numeric(e.operand, env, item)
        if isinstance(e, BinOp):
            if e.op in ("and", "or"):
                self._condition(e.left, env, item)
                self._condition(e.right, env, item)
                return "bool"
            if e.op in ("==", "!="):
                a, b = self._expr(e.left, env, item), self._expr(e.right, env, item)
                if a and b and "any" not in (a, b) and (a in _NUMBER_RANK) != (b in _NUMBER_RANK):
                    self.d.error("CIV071", f"`{e.op}` compares {_KIND_WORDS[a]} with {_KIND_WORDS[b]}", e.span, item=item)
                return "bool"
            a, b = self._numeric(e.left, env, item), self._numeric(e.right, env, item)
            if e.op in ("<", "<=", ">", ">="):
                return "bool"
            if a is None or b is None:
                return None
            if "any" in (a, b):
                return "any"
            if e.op == "//":
                return "int"
            joined = _join_numbers(a, b)
            if e.op == "/":
                return _join_numbers(joined, "rational")
            return joined
        if isinstance(e, Call):
            return self._call_kind(e, env, item)
        if isinstance(e, Where):
            self.d.error("CIV014", "`where` filters only work in asserts", e.span, item=item)
            return None
        return None

    def _call_kind(self, e: Call, env: dict, item: str) -> str | None:
        if e.name in self.ed.tables:
            if len(e.args) != 1 or e.kwargs:
                self.d.error("CIV014", f"table `{e.name}` takes exactly one argument", e.span, item=item)
            for a in e.args:
                self._number(a, env, item, whole=False, what="a table's argument")
            kinds = {self._value_kind_of_band(b.value) for b in self.ed.tables[e.name].bands}
            numbers = [k for k in kinds if k in _NUMBER_RANK]
            if numbers and len(numbers) == len(kinds):
                out = numbers[0]
                for k in numbers[1:]:
                    out = _join_numbers(out, k)
                return out
            return "any"
        if e.name in _MATH_ARITY:
            if len(e.args) != _MATH_ARITY[e.name] or e.kwargs:
                n = _MATH_ARITY[e.name]
                self.d.error("CIV014", f"`{e.name}` takes {n} argument{'s' if n != 1 else ''}, got {len(e.args)}",
                             e.span, item=item)
            kinds = [self._numeric(a, env, item) for a in e.args]
            if any(k is None for k in kinds):
                return None
            if "any" in kinds:
                return "int" if e.name in ("floor", "ceil") else "any"
            if e.name in ("floor", "ceil"):
                return "int"
            if e.name == "sqrt":
                return "real"
            out = kinds[0] if kinds else "int"
            for k in kinds[1:]:
                out = _join_numbers(out, k)
            return out
        fn = vocab.ROUND_FUNCTIONS.get(e.name)
        if fn is None:
            known = sorted(_MATH_ARITY) + sorted(vocab.ROUND_FUNCTIONS) + sorted(self.ed.tables)
            other = vocab.FUNCTIONS.get(e.name)
            message = (f"`{e.name}` reads {'a player of the map game' if other.scope == 'player' else 'the rulebook'}; "
                       f"round rules cannot use it") if other else f"unknown function `{e.name}`"
            self.d.error("CIV014", message, e.span, item=item, help=suggestion(e.name, known))
            return None
        if e.args:
            self.d.error("CIV014", f"`{e.name}` takes no positional arguments", e.span, item=item,
                         help="name the colour: `hand_value(color=red)`" if fn.kwargs else None)
        if not self.ed.card_decks:
            self.d.error("CIV072", f"`{e.name}` reads the hand, and the edition declares no deck of cards", e.span,
                         item=item)
            return "int"
        colors = [c for deck in self.ed.card_decks.values() for c in deck.colors]
        for key, value in e.kwargs.items():
            span = e.kwarg_spans.get(key, e.span)
            if key not in fn.kwargs:
                self.d.error("CIV014", f"`{e.name}` has no parameter `{key}`", span, item=item,
                             help=suggestion(key, fn.kwargs) or f"parameters: {', '.join(fn.kwargs) or 'none'}")
            elif not (isinstance(value, Name) and len(value.parts) == 1 and value.parts[0] in colors):
                self.d.error("CIV072", f"unknown colour `{unparse(value)}`", value.span, item=item,
                             help=suggestion(unparse(value), colors) or f"colours of the deck: {', '.join(colors)}")
        return "int"

    def _value_kind_of_band(self, expr) -> str:
        value = self._fold(expr)
        return _value_kind(value) if value is not None else "any"
