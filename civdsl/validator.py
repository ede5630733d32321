"""Pass 4: is the resolved edition right? Each check reports a stable code (see codes.py).

Checks read the model only; they never stop at the first problem. Errata lines in the rulebook
acknowledge specific diagnostics on specific items (a deliberate or printed departure), turning
them into notes; an errata line that excuses nothing is itself reported.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from . import invariants, vocabulary as vocab
from .bounds import FIELDS
from .cardchecks import CardChecks
from .diagnostics import Diagnostics, Span, suggestion
from .expressions import EvalError, Scope, check, evaluate, unparse, walk
from .invariants import InvariantChecks, typed_value
from .model import Advance, Calamity, Edition, EffectBranch
from .parser import unknown_field_help
from .references import Index
from .statecheck import whole_number
from .sublanguages import used_by
from .texts import value_text
from .syntax import Call, CancelOp, ChangeOp, ImmuneOp, Name, Neg, NodeVisitor, Num, OptionOp, StopOp, Str

# how a declaration of each kind is called in messages
_DECLARED_AS = {"const": "constant", "table": "table"}
STACKS = range(FIELDS["stack"].low, FIELDS["stack"].high + 1)
ROLES = ("primary", "secondary", "any")
# what a `resolution` setting that ranks players may name: a whole-number player fact or a derived name
_NUMBER_FACTS = [f.name for f in vocab.FACTS.values() if f.type == "int"] + list(vocab.DERIVED_NAMES)


def validate(ed: Edition, diags: Diagnostics, refs: Index, memo: dict | None = None) -> None:
    """Check the resolved edition; `refs` is the index of references of the chain it was resolved
    from (references.index_chain), whose uses of names are checked against it. `memo`, kept by a
    caller that checks one buffer again and again (the language server) or the editions of one
    build in turn (the front end: a house rule's edition shares its base's items), keeps what
    each advance, calamity and commodity reported (`_Validator._item`)."""
    first = len(diags.items)
    v = _Validator(ed, diags, refs, memo)
    v.run()
    if memo is not None:
        memo.clear()
        memo.update(v.checked)
    _apply_errata(ed, diags, first)


# A use of a name that names nothing, by what it should name and where it stands (references.Ref
# `via`): the one place unknown advances (CIV010) and commodities (CIV018) are reported.
_UNKNOWN = {
    ("advance", "credit"): ("CIV010", "credit to unknown advance `{}`"),
    ("advance", "requires"): ("CIV010", "unknown prerequisite `{}`"),
    ("advance", "holds"): ("CIV010", "unknown advance `{}`"),
    ("commodity", "cards"): ("CIV018", "unknown commodity `{}`"),
    ("group", "groups"): ("CIV012", "unknown group `{}`"),
    ("group", "credits"): ("CIV012", "credits to unknown group `{}`"),
    ("group", "group="): ("CIV012", "unknown group `{}`"),
}


class _Validator(CardChecks, InvariantChecks, NodeVisitor):
    def __init__(self, ed: Edition, diags: Diagnostics, refs: Index, memo: dict | None = None):
        self.ed = ed
        self.d = diags
        self.refs = refs
        self.scope = Scope(consts=ed.consts, options=ed.options, tables=ed.tables, groups=ed.groups)
        # fields the parser reported misspelt in an item (CIV135 with did-you-mean): one mistake
        # gets one diagnostic, so such a field is not reported missing too
        self.misspelt = {(d.span.path, d.item, d.help) for d in diags.items
                         if d.code == "CIV135" and d.span is not None and d.help}
        context = self._item_context() if memo is not None else None
        # the items checked before under the same context, and those checked now (`_item`)
        self.before = memo if memo is not None and context is not None and memo.get("context") == context else {}
        self.checked: dict = {"context": context} if context is not None else {}

    def _item_context(self) -> tuple | None:
        """Everything an advance's, calamity's or commodity's own checks read besides the item
        (and the costs of the advances an advance credits, `_item`): the names expressions may
        read, the constants' values (set values read them), the misspelt fields, the tier rule
        and the set-value rule. None where a value cannot be hashed (nothing is kept)."""
        ed = self.ed
        context = (tuple((name, typed_value(c.value)) for name, c in ed.consts.items()), tuple(ed.tables),
                   tuple(ed.options), tuple(ed.groups), frozenset(self.misspelt), tuple(ed.vp_tiers),
                   unparse(ed.set_value) if ed.set_value is not None else None)
        try:
            hash(context)
        except TypeError:
            return None
        return context

    def _item(self, obj, check) -> None:
        """An advance's, calamity's or commodity's own checks (`check`): an item object checked
        before under the same context (_item_context) reports again what it reported then."""
        if "context" not in self.checked:
            check(obj)
            return
        specific = getattr(obj, "specific", None)
        costs = tuple((sc.target, typed_value(getattr(self.ed.advances.get(sc.target), "cost", None)))
                      for sc in specific) if specific else ()
        known = self.before.get(id(obj))
        # an item that moved (lsp.incremental.AnchoredSpan) is checked again only if it reported
        # something: a note may name one of its lines
        if known is not None and known[0] is obj and known[1] == costs and (not known[2] or known[3] == obj.span.line):
            if known[2]:
                self.d.items.extend(copy.copy(d) for d in known[2])
        else:
            first = len(self.d.items)
            check(obj)
            known = (obj, costs, [copy.copy(d) for d in self.d.items[first:]], obj.span.line)
        self.checked[id(obj)] = known

    def _edition_wide(self, check, names: tuple, objects: tuple, reads: tuple) -> None:
        """An edition-wide check that reads only `reads` (values) of the model objects `objects`
        under the names `names`: with the same names and values as last time, it reports again
        what it reported then (when it reported something, only for the same objects: a report
        shows a place in one). Its reports name no line in a note, so a moved object's still hold."""
        key = ("edition-wide", check.__name__)
        if "context" not in self.checked:
            check()
            return
        known = self.before.get(key)
        if (known is not None and known[0] == names and known[3] == reads
                and (not known[2] or (len(known[1]) == len(objects)
                                      and all(a is b for a, b in zip(known[1], objects))))):
            self.d.items.extend(copy.copy(d) for d in known[2])
        else:
            first = len(self.d.items)
            check()
            known = (names, objects, [copy.copy(d) for d in self.d.items[first:]], reads)
        self.checked[key] = known

    def _missing(self, span: Span, name: str, word: str, message: str, help: str | None = None) -> None:
        """CIV022: item `name` lacks field `word`, unless it is there but misspelt (CIV135)."""
        if (span.path, name, unknown_field_help(word)) not in self.misspelt:
            self.d.error("CIV022", message, span, item=name, help=help)

    def run(self) -> None:
        self._unknown_names()
        self._vp_tiers()
        self._consts_tables()
        self._engine_names()
        for adv in self.ed.advances.values():
            self._item(adv, self._advance)
        self._edition_wide(self._prerequisite_cycles, tuple(self.ed.advances), tuple(self.ed.advances.values()),
                           tuple(adv.requires for adv in self.ed.advances.values()))
        for cal in self.ed.calamities.values():
            self._item(cal, self._calamity)
        self._resolution()
        self._epochs()
        self._score()
        self._turn()
        self._commodities()
        self._decks()
        self._trade_decks()
        self._civilization_blocks()
        self._setup_players()
        self._asserts()
        for sub in used_by(self.ed):
            sub.check(self.ed, self.d)
        self._amount_switches()
        self._unread_options()

    def _amount_switches(self) -> None:
        """`amounts { SETTING ... when OPTION }` names a declared option (CIV080)."""
        for item, scope in [(None, self.ed)] + [(c.name, c) for c in self.ed.calamities.values()]:
            for option, span in scope.amounts_when_spans.items():
                if option not in self.ed.options:
                    self.d.error("CIV080", f"`amounts ... when {option}` names no declared option", span, item=item,
                                 help=suggestion(option, self.ed.options) or f"declare it: `option {option} \"why\" off`")

    def _unknown_names(self) -> None:
        pools = {"advance": self.ed.advances, "commodity": self.ed.commodities, "group": self.ed.groups}
        for kind, pool in pools.items():
            for ref in self.refs.unknown(kind, pool):
                code, message = _UNKNOWN[(kind, ref.via)]
                self.d.error(code, message.format(ref.name), ref.span, item=ref.label, help=suggestion(ref.name, pool))

    def _unread_options(self) -> None:
        """An option no rule reads switches nothing: a warning (CIV081). Every expression of the
        model is searched (calamities, epochs, score, constants, tables, round rules, ...), by
        walking the model's objects rather than listing where expressions may stand, so that a
        new construct cannot be forgotten here."""
        if not self.ed.options:
            return
        read = {o for scope in [self.ed, *self.ed.calamities.values()] for o in scope.amounts_when}
        read |= set(self.ed.vp_tiers_when)
        wanted = set(self.ed.options) - read
        roots = [v for k, v in vars(self.ed).items() if k != "options"]
        # the model's objects whose statements name a wanted option are walked first (last on the
        # stack): the walk stops as soon as every option is found read
        read |= _names_read(roots + self._likely_readers(wanted), wanted)
        for name, opt in self.ed.options.items():
            if name not in read:
                self.d.warning("CIV081", f"option `{name}` is declared but no rule reads it", opt.span, item=name,
                               help="read it in a rule (`when " + name + " { ... }`, `if " + name + " { ... }`), "
                                    "or remove it: switching it would change nothing")

    def _likely_readers(self, options: set[str]) -> list:
        """The model's objects holding the statements that name the options (by the index of
        references): an item of the advances, calamities or commodities, or the edition's
        attribute named like the statement (a root of the walk). Only an order for the walk:
        what it finds is what it would find anyway."""
        collections = {"advance": self.ed.advances, "calamity": self.ed.calamities, "commodity": self.ed.commodities}
        found = []
        for option in options:
            for ref in self.refs.uses("option", option):
                kind, name = ref.owner
                if kind in collections:
                    found.append(collections[kind].get(name))
                elif kind != "options":
                    found.append(vars(self.ed).get(kind))  # one of the walk's roots, or nothing
        return found

    # --- edition-wide
    def _resolution(self) -> None:
        """`resolution` values that name declarations: limits name whole-number constants, a
        beneficiary ranking names player facts or derived names (CIV086), `nominee_forced_if` an
        advance (CIV116)."""
        self._amount_constants()
        for item, settings, spans in self._settings("resolution"):
            for name, values in settings.items():
                check_name = self._NAMING_SETTINGS.get(vocab.RESOLUTION_SETTINGS[name].values)
                if check_name is None:
                    continue  # a setting of fixed words, which the resolver checked
                for v, span in zip(values, spans.get(name, ())):
                    getattr(self, check_name)(f"`{name}`", v, span, item)

    # the check of a `resolution` setting whose values name declarations, by what they name
    _NAMING_SETTINGS = {"const": "_whole_constant", "facts": "_resolution_facts", "advance": "_resolution_advance"}

    def _settings(self, block: str) -> list[tuple[str | None, dict, dict]]:
        """(item, settings, their spans) of a settings block (`resolution`, `amounts`): the
        edition's (item None), then each calamity's own."""
        spans = f"{block}_spans"
        return [(None, getattr(self.ed, block), getattr(self.ed, spans))] + [
            (c.name, getattr(c, block), getattr(c, spans)) for c in self.ed.calamities.values()]

    def _whole_constant(self, setting: str, v: str, span: Span | None, item: str | None) -> None:
        """A setting that names a constant must name a whole-number one (CIV086)."""
        const = self.ed.consts.get(v)
        if const is None or not whole_number(const.value):
            self.d.error("CIV086", f"{setting} names `{v}`, which is not a whole-number constant",
                         span, item=item, help=suggestion(v, self.ed.consts) or "declare it: `const NAME = N`")

    def _resolution_facts(self, setting: str, v: str, span: Span, item: str | None) -> None:
        if v not in _NUMBER_FACTS:
            self.d.error("CIV086", f"{setting} names `{v}`, which is not a player number",
                         span, item=item, help=suggestion(v, _NUMBER_FACTS) or "see `civdsl vocab` for the facts")

    def _resolution_advance(self, setting: str, v: str, span: Span, item: str | None) -> None:
        if v not in self.ed.advances:
            self.d.error("CIV116", f"{setting} names `{v}`, which is not an advance of this edition",
                         span, item=item, help=suggestion(v, self.ed.advances)
                         or "name a one-word advance the edition declares")

    def _amount_constants(self) -> None:
        """`amounts` settings whose value is a constant's name (`city_points`): a whole number (CIV086)."""
        for item, settings, spans in self._settings("amounts"):
            for name, values in settings.items():
                if vocab.AMOUNT_SETTINGS[name][0] == "const":
                    self._whole_constant(f"`amounts {name}`", values[0], spans.get(name), item)

    def _vp_tiers(self) -> None:
        readings = [(self.ed.vp_tiers, self.ed.vp_tiers_span)] + [(t, s) for t, s, _ in self.ed.vp_tiers_when.values()]
        for tiers, span in readings:
            bounds = [b for b, _ in tiers if b is not None]
            if bounds != sorted(bounds) or len(set(bounds)) != len(bounds) or any(b is None for b, _ in tiers[:-1]):
                self.d.error("CIV032", "vp tiers must rise in cost, with `else` last", span)
        for option, (_tiers, _span, named) in self.ed.vp_tiers_when.items():
            if option not in self.ed.options:
                self.d.error("CIV013", f"unknown option `{option}` in `vp tiers when`", named,
                             help=suggestion(option, list(self.ed.options)) or f"declare it: `option {option} \"why\" off`")

    def _consts_tables(self) -> None:
        declared: set[str] = set()
        for const in self.ed.consts.values():
            check(const.expr, self.scope, self.d, const.id)
            # a constant reads only constants declared before it, so none is defined through itself
            for node in walk(const.expr):
                if isinstance(node, Name) and node.parts[0] in self.ed.consts and node.parts[0] not in declared:
                    self.d.error("CIV052", f"constant `{const.id}` reads `{node.parts[0]}`, which is not declared before it",
                                 node.span, item=const.id, help="declare a constant before the constants that use it")
            declared.add(const.id)
        for table in self.ed.tables.values():
            self._bands(table)

    def _bands(self, table) -> None:
        """A table's bands: values that fold to numbers, none empty, none overlapping the one below."""
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

    # a near miss of a name the engine reads: closer than this difflib ratio (so `card_limt` and
    # `hand_limits` are caught, but `epidemic_city_points`, a rulebook's own name, is not)
    NEAR_MISS = 0.85

    def _engine_names(self) -> None:
        """Constants and tables the engine reads by name (vocabulary.ENGINE_NAMES) are checked like
        facts: declared as the right kind with the right type (CIV134); a name close to one but
        not equal would be silently ignored, so it is a warning with did-you-mean (CIV133)."""
        declared = [("const", c.id, c.span) for c in self.ed.consts.values()]
        declared += [("table", t.id, t.span) for t in self.ed.tables.values()]
        for kind, name, span in declared:
            if name in vocab.ENGINE_NAMES:
                self._engine_name(vocab.ENGINE_NAMES[name], kind, span)
                continue
            e = self._near_engine_name(name)
            if e is not None:
                self.d.warning("CIV133", f"{_DECLARED_AS[kind]} `{name}` is not read by the "
                               f"engine, but `{e.name}` is", span, item=name,
                               notes=[f"the engine reads `{e.name}`: {e.doc}"], help=f"did you mean `{e.name}`?")

    def _near_engine_name(self, name: str) -> vocab.EngineName | None:
        """The name the engine reads that `name` is a near miss of, or None."""
        return _near_engine_name(name, self.NEAR_MISS)

    def _engine_name(self, e: vocab.EngineName, kind: str, span: Span) -> None:
        wanted = "a whole number" + (f" of at least {e.minimum}" if e.minimum else " (0 or more)")
        if kind != e.declared_as:
            self.d.error("CIV134", f"the engine reads `{e.name}` as a {_DECLARED_AS[e.declared_as]}, "
                         f"not a {_DECLARED_AS[kind]}", span, item=e.name,
                         help=f"declare it with `{e.declared_as} {e.name}`: {e.doc}")
            return
        for value, where in self._engine_values(e.name, kind):
            if value is None:
                self.d.error("CIV134", f"`{e.name}` must be a constant: the engine reads it before any player "
                             "state is known", where, item=e.name, help=f"give it {wanted}: {e.doc}")
            elif not whole_number(value) or value < e.minimum:
                # the engine still reads the number (a fraction of a card limit compares, a
                # fraction of a unit point multiplies), so this is a warning, not an error
                what = f"`{e.name}`" if kind == "const" else f"a value of table `{e.name}`"
                self.d.warning("CIV134", f"{what} should be {wanted}, not {value}", where, item=e.name,
                               notes=[f"the engine reads `{e.name}`: {e.doc}"])

    def _engine_values(self, name: str, kind: str) -> list[tuple[Any, Span]]:
        """(value, where it is written) of a constant, or of each band of a table whose value
        folds to a number: None for a constant that has no value before play."""
        if kind == "const":
            const = self.ed.consts[name]
            return [(const.value, const.span)]
        values = []
        for band in self.ed.tables[name].bands:
            try:
                values.append((evaluate(band.value, self._const_value), band.span))
            except EvalError:
                pass  # reported by _table_value (CIV043)
        return values

    def _const_value(self, name: Name):
        const = self.ed.consts.get(name.parts[0])
        if const is not None and const.value is not None and len(name.parts) == 1:
            return const.value
        raise EvalError(f"`{name.dotted}` is not a constant", name.span)

    def _table_value(self, table: str, expr) -> None:
        """Table values are data in the compiled module: they must fold to a number now."""
        try:
            evaluate(expr, self._const_value)
        except EvalError as exc:
            self.d.error("CIV043", f"a value of table `{table}` must be a constant: {exc}", exc.span, item=table)

    # --- advances
    def _advance(self, adv: Advance) -> None:
        name = adv.name
        self._advance_cost(adv)
        self._advance_groups(adv)
        self._advance_credits(adv)
        if adv.supply is not None and adv.supply < 0:
            self.d.error("CIV025", "negative supply", adv.field_spans["supply"], item=name)
        if adv.supply_table is not None:
            self._supply_table(adv)
        self._advance_vp(adv)
        for ability in adv.abilities:
            self._call(ability.call, vocab.ABILITY_KINDS, "CIV016", "ability", name, literal_only=True)

    def _supply_table(self, adv: Advance) -> None:
        """The table of the cards in use by players is declared, and each of its bands gives a
        whole number no greater than the box's `supply`."""
        span = adv.field_spans["supply_table"]
        if adv.supply_table not in self.ed.tables:
            self.d.error("CIV013", f"`supply` of `{adv.name}` names no table: `{adv.supply_table}`", span, item=adv.name,
                         help=suggestion(adv.supply_table, list(self.ed.tables)))
            return
        for value, where in self._engine_values(adv.supply_table, "table"):
            if not whole_number(value) or value < 0:
                self.d.error("CIV112", f"the cards of `{adv.name}` in use must be a whole number from 0, not {value_text(value)}",
                             where, item=adv.name, notes=[f"`supply table {adv.supply_table}` reads this table"])
            elif adv.supply is not None and value > adv.supply:
                self.d.error("CIV112", f"{value} cards of `{adv.name}` in use, but the box has {adv.supply} (`supply`)",
                             where, item=adv.name, notes=[f"`supply table {adv.supply_table}` reads this table"])

    def _advance_cost(self, adv: Advance) -> None:
        """A cost, given (`unknown` counts), and not negative."""
        if "cost" not in adv.field_spans:
            self._missing(adv.span, adv.name, "cost", f"advance `{adv.name}` has no cost",
                          help="add `cost N` (or `cost unknown`)")
        elif adv.cost is not None and adv.cost < 0:
            self.d.error("CIV025", f"advance `{adv.name}` has a negative cost", adv.field_spans["cost"], item=adv.name)

    def _advance_groups(self, adv: Advance) -> None:
        """One group or two different ones, each declared."""
        name = adv.name
        if not adv.groups:
            self._missing(adv.span, name, "groups", f"advance `{name}` belongs to no group", help="add `groups ID`")
        if len(adv.groups) > 2:
            self.d.error("CIV024", f"advance `{name}` names {len(adv.groups)} groups; at most two", adv.field_spans["groups"], item=name)
        if len(adv.groups) == 2 and adv.groups[0] == adv.groups[1]:
            self.d.error("CIV024", f"advance `{name}` names group `{adv.groups[0]}` twice", adv.field_spans["groups"],
                         item=name, help="a dual-group advance needs two different groups")

    def _advance_credits(self, adv: Advance) -> None:
        """Credits to declared groups and to other advances, none negative."""
        name = adv.name
        for g, amount in adv.credits.items():
            span = adv.field_spans.get(f"credit:{g}", adv.span)
            if amount < 0:
                self.d.error("CIV025", f"negative credit to `{g}`", span, item=name)
        for sc in adv.specific:
            if sc.target == name:
                self.d.error("CIV026", f"advance `{name}` gives a credit to itself", sc.span, item=name)
            if sc.amount < 0:
                self.d.error("CIV025", "negative specific credit", sc.span, item=name)
            target = self.ed.advances.get(sc.target)
            cost = target.cost if target is not None else None
            if isinstance(cost, (int, float)) and not isinstance(cost, bool) and sc.amount > cost:
                self.d.error("CIV136", f"a credit of {sc.amount} to `{sc.target}`, which costs only {cost}",
                             sc.span, item=name, notes=[f"`{sc.target}` would cost nothing, whatever else is held"],
                             help=f"a credit to one advance is at most its cost ({cost}): check both figures")

    def _advance_vp(self, adv: Advance) -> None:
        """An explicit figure of victory points agrees with the tier rule (the resolver gives the
        others theirs)."""
        tier = self.ed.tier_vp(adv.cost)
        if adv.vp_explicit and tier is not None and adv.vp != tier:
            self.d.error("CIV030", f"`{adv.name}` is worth {adv.vp} VP, but the tier rule gives {tier} "
                         f"for cost {adv.cost}",
                         adv.field_spans["vp"], item=adv.name)

    def _prerequisite_cycles(self) -> None:
        """Depth-first, with an explicit stack: a chain of thousands of prerequisites is fine."""
        state: dict[str, int] = {}  # 1: on the current path, 2: done
        for root in self.ed.advances:
            if root not in state:
                self._cycles_from(root, state)

    def _cycles_from(self, root: str, state: dict[str, int]) -> None:
        """Every prerequisite cycle reached from `root` through advances not yet searched (CIV050)."""
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
        given = self._arguments(call, [p.name for p in kind.params], item)
        for p in kind.params:
            value = given.get(p.name)
            if value is not None:
                check_argument = self._ARGUMENT_CHECKS.get(p.kind)
                if check_argument:
                    getattr(self, check_argument)(call, p, value, item, literal_only)
            elif p.required:
                self.d.error("CIV017", f"`{call.name}` needs `{p.name}` ({p.doc or p.kind})", call.span, item=item)

    def _arguments(self, call: Call, names: list[str], item: str) -> dict:
        """{parameter: the value given}, positional arguments first; too many of them, an unknown
        parameter or one given twice is reported (CIV017)."""
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
        return given

    # the check of an argument, by the kind of its parameter (vocabulary.Param.kind); a kind
    # without one here is not checked
    _ARGUMENT_CHECKS = {"enum": "_enum_argument", "str": "_str_argument", "int": "_int_argument",
                        "quantity": "_quantity_argument", "option": "_option_argument"}

    def _option_argument(self, call: Call, p: vocab.Param, value, item: str, literal_only: bool) -> None:
        """The name of a rule option the rulebook declares (the ledger reads its setting in each game)."""
        word = value.parts[0] if isinstance(value, Name) and len(value.parts) == 1 else None
        if word not in self.ed.options:
            self.d.error("CIV017", f"`{p.name}` of `{call.name}` must name a rule option of the rulebook", value.span,
                         item=item, help=suggestion(unparse(value), list(self.ed.options)) if word else None)

    def _quantity_argument(self, call: Call, p: vocab.Param, value, item: str, literal_only: bool) -> None:
        """A whole number written out, or the name of a constant or of a table (read at the number
        of players): what the ledger can read before any player state."""
        if isinstance(value, Num) and whole_number(value.value) and value.value >= 0:
            return
        word = value.parts[0] if isinstance(value, Name) and len(value.parts) == 1 else None
        if word is None or (word not in self.ed.consts and word not in self.ed.tables):
            known = list(self.ed.consts) + list(self.ed.tables)
            self.d.error("CIV017", f"`{p.name}` of `{call.name}` must be a whole number, a constant or a table",
                         value.span, item=item, help=suggestion(unparse(value), known) if word else None)

    def _enum_argument(self, call: Call, p: vocab.Param, value, item: str, literal_only: bool) -> None:
        """One of the parameter's words."""
        word = value.parts[0] if isinstance(value, Name) and len(value.parts) == 1 else None
        if word not in p.choices:
            self.d.error("CIV017", f"`{p.name}` of `{call.name}` must be one of {', '.join(p.choices)}", value.span,
                         item=item, help=suggestion(unparse(value), p.choices))

    def _str_argument(self, call: Call, p: vocab.Param, value, item: str, literal_only: bool) -> None:
        """A name (or a string)."""
        if not isinstance(value, (Str, Name)):
            self.d.error("CIV017", f"`{p.name}` of `{call.name}` must be a name", value.span, item=item)

    def _int_argument(self, call: Call, p: vocab.Param, value, item: str, literal_only: bool) -> None:
        """A number written out (`literal_only`, an ability), else an expression; never a negative one."""
        if literal_only:
            if not (isinstance(value, Num) or _negative_literal(value)):
                self.d.error("CIV017", f"`{p.name}` of `{call.name}` must be a number", value.span, item=item)
            return
        check(value, self.scope, self.d, item)
        if _negative_literal(value):
            self.d.error("CIV025", f"`{p.name}` of `{call.name}` cannot be negative", value.span, item=item)

    # --- calamities
    def _calamity(self, cal: Calamity) -> None:
        name = cal.name
        self._calamity_fields(cal)
        kinds: set[str] = set()  # the effect kinds the calamity causes, which its modifiers may change
        self._effects(cal.primary, name, kinds)
        if cal.secondary:
            self._secondary(cal.secondary, name, kinds)
        for ex in cal.exclusions:
            self._exclusion(ex, name)
        for expr, _ in cal.cancel:
            check(expr, self.scope, self.d, name)
        for m in cal.modifiers:
            check(m.condition, self.scope, self.d, name)
            for op in m.ops:
                self.visit(op, name, kinds)

    def _exclusion(self, ex, item: str) -> None:
        """An `exclude`: a role the language knows, or a condition."""
        if ex.role is not None and ex.role not in vocab.EXCLUDE_ROLES:
            self.d.error("CIV019", f"unknown exclusion `{ex.role}`", ex.span, item=item,
                         help=suggestion(ex.role, vocab.EXCLUDE_ROLES) or "use `exclude when CONDITION`")
        if ex.condition is not None:
            check(ex.condition, self.scope, self.d, item)

    def _calamity_fields(self, cal: Calamity) -> None:
        """Stack, class, beneficiary and a primary effect: given, and words the language knows."""
        name = cal.name
        if cal.stack is None:
            self._missing(cal.span, name, "stack", f"calamity `{name}` has no stack", help="add `stack N`")
        self._stack_exists(cal)
        if cal.klass is None:
            self._missing(cal.span, name, "class", f"calamity `{name}` has no class",
                          help="add `class minor`, `class major tradable` or `class major nontradable`")
        if cal.beneficiary not in vocab.BENEFICIARIES:
            self.d.error("CIV019", f"unknown beneficiary `{cal.beneficiary}`", cal.field_spans.get("beneficiary_name", cal.span),
                         item=name, help=suggestion(cal.beneficiary, vocab.BENEFICIARIES))
        if not cal.primary:
            self._missing(cal.span, name, "primary", f"calamity `{name}` has no primary effect",
                          help="add `primary { ... }`")

    def _secondary(self, sec, name: str, kinds: set) -> None:
        if sec.count is None and sec.share is None:
            self.d.error("CIV022", "a secondary block needs `count N` or `share N`", sec.span, item=name)
        for e in (sec.count, sec.share):
            if e is not None:
                check(e, self.scope, self.d, name)
                self._non_negative(e, name)
        self._effects(sec.effects, name, kinds)

    def _effects(self, effects: list, item: str, kinds: set) -> None:
        for e in effects:
            if isinstance(e, EffectBranch):
                check(e.condition, self.scope, self.d, item)
                self._effects(e.then, item, kinds)
                self._effects(e.otherwise, item, kinds)
            else:
                kinds.add(e.kind)
                self._call(e.call, vocab.EFFECT_KINDS, "CIV015", "effect kind", item)

    # -- modifier operations: one `visit_<Op>` each ------------------------------------------

    def visit_ImmuneOp(self, op: ImmuneOp, item: str, kinds: set) -> None:
        pass  # nothing to check: the operation has no arguments

    visit_CancelOp = visit_ImmuneOp

    def visit_StopOp(self, op: StopOp, item: str, kinds: set) -> None:
        # the price of stopping the calamity: an effect the victim suffers instead
        self._call(op.replacement, vocab.EFFECT_KINDS, "CIV015", "effect kind", item)

    def _changed_kind(self, op, item: str, kinds: set):
        """The effect kind an operation changes, or None (reported) when there is no such kind."""
        kind = vocab.EFFECT_KINDS.get(op.kind)
        if kind is None:
            self.d.error("CIV015", f"unknown effect kind `{op.kind}`", op.span, item=item,
                         help=suggestion(op.kind, vocab.EFFECT_KINDS))
            return None
        if op.kind not in kinds:
            self.d.warning("CIV036", f"this modifier changes `{op.kind}`, which `{item}` never causes", op.span, item=item,
                           help=f"effects of `{item}`: {', '.join(sorted(kinds)) or 'none'}")
        return kind

    def visit_OptionOp(self, op: OptionOp, item: str, kinds: set) -> None:
        if self._changed_kind(op, item, kinds) is not None:
            self._call(op.replacement, vocab.EFFECT_KINDS, "CIV015", "effect kind", item)

    def visit_ChangeOp(self, op: ChangeOp, item: str, kinds: set) -> None:
        kind = self._changed_kind(op, item, kinds)
        if kind is None:
            return
        param = op.param or kind.main
        p = kind.param(param) if param else None
        if p is None:
            self.d.error("CIV017", f"`{op.kind}` has no parameter `{op.param or 'amount'}` to {op.op}", op.span, item=item,
                         help=suggestion(op.param or "", [x.name for x in kind.params]))
        elif p.kind == "enum":
            self._choice(op, param, p, item)
        else:
            self._changed_amount(op, item)

    def _changed_amount(self, op: ChangeOp, item: str) -> None:
        """The amount a number parameter changes by (never a negative one), and its `per`."""
        check(op.amount, self.scope, self.d, item)
        self._non_negative(op.amount, item)
        if op.per is not None:
            check(op.per, self.scope, self.d, item)

    def _choice(self, op: ChangeOp, param: str, p, item: str) -> None:
        """A choice parameter (an enum) can only be `set`, and only to one of its words."""
        if op.op != "set":
            self.d.error("CIV017", f"`{op.kind}.{param}` is a choice; only `set` can change it", op.span, item=item)
        elif not (isinstance(op.amount, Name) and op.amount.parts[0] in p.choices):
            self.d.error("CIV017", f"`{op.kind}.{param}` must be one of {', '.join(p.choices)}", op.amount.span,
                         item=item, help=suggestion(unparse(op.amount), p.choices))

    def _non_negative(self, e, item: str) -> None:
        if _negative_literal(e) and e.operand.value:
            self.d.error("CIV025", "a quantity here cannot be negative", e.span, item=item,
                         help="use `prevent` to lower a value and `add` to raise it")

    # --- the sequence of play and what its steps do to the ledger
    def _turn(self) -> None:
        seen: dict[str, str] = {}
        for step in self.ed.turn:
            for call in step.actions:
                self._call(call, vocab.PHASE_ACTIONS, "CIV140", "phase action", step.name, literal_only=True)
                track = call.kwargs.get("track")
                if call.name == "end_game" and isinstance(track, Name) and track.dotted not in self.ed.asts:
                    self.d.error("CIV017", f"`track` of `end_game` names no A.S.T. track: `{track.dotted}`", track.span,
                                 item=step.name, help=suggestion(track.dotted, self.ed.asts))
                if call.name in seen and call.name not in _REPEATABLE_ACTIONS:
                    self.d.error("CIV141", f"`{call.name}` is already done by step \"{seen[call.name]}\"", call.span,
                                 item=step.name, help="a turn does this once: keep it in one step")
                seen.setdefault(call.name, step.name)

    # --- epochs, score
    def _epochs(self) -> None:
        for track in self.ed.asts.values():
            self._track(track)
        self._civilizations()
        for ability, _ in self.ed.abilities:
            self._call(ability.call, vocab.ABILITY_KINDS, "CIV016", "ability", self.ed.id, literal_only=True)
        sc = self.ed.start_credits
        if sc is not None:
            for expr in (sc.amount, sc.unless):
                if expr is not None:
                    check(expr, self.scope, self.d, "start credits")

    def _track(self, track) -> None:
        """An A.S.T. track: some epochs, their requirements, and the epochs `backward except` names."""
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
                self.d.error("CIV093", f"`except` names `{name}`, which is no epoch of track `{track.id}`", span,
                             item=track.id, help=suggestion(name, names) or f"the epochs of `{track.id}`: {', '.join(names)}")

    def _civilizations(self) -> None:
        """Each row must fit its track: one first space per epoch after the first, rising, on the track."""
        ranks: dict[int, str] = {}
        for civ in self.ed.civilizations.values():
            self._rank(civ, ranks)
            for row in civ.rows.values():
                track = self.ed.asts.get(row.track)
                if track is None:
                    self.d.error("CIV091", f"`{civ.name}` has a row on `{row.track}`, which is no A.S.T. track",
                                 row.track_span, item=civ.name, help=suggestion(row.track, self.ed.asts)
                                 or f"declared tracks: {', '.join(self.ed.asts) or 'none'}")
                    continue
                self._row(civ, row, track)

    def _rank(self, civ, ranks: dict[int, str]) -> None:
        """A civilization's A.S.T. ranking, if it has one, is no other's (`ranks`: those seen so far)."""
        if civ.rank in ranks:
            self.d.error("CIV094", f"A.S.T. ranking {civ.rank} is given to both `{ranks[civ.rank]}` and "
                         f"`{civ.name}`", civ.field_spans.get("rank", civ.span), item=civ.name)
        if civ.rank is not None:
            ranks.setdefault(civ.rank, civ.name)

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
        misplaced = _misplaced_start(row.starts, track.epochs[1:], spaces)
        if misplaced is not None:
            start, epoch = misplaced
            self.d.error("CIV092", f"{where}: `{epoch.name}` starts on space {start}; each epoch must start after "
                         f"the one before it (from space 2) and on the track (spaces 1-{spaces})", row.span,
                         item=civ.name)

    def _score(self) -> None:
        if self.ed.score:
            for line in self.ed.score.points + self.ed.score.tiebreaks:
                check(line.expr, self.scope, self.d, line.label)

    def _stack_exists(self, item) -> None:
        """The trade stack a calamity or commodity card is in, if given, is one of the game's."""
        if item.stack is not None and item.stack not in STACKS:
            self.d.error("CIV023", f"stack {item.stack} does not exist; trade stacks run from 1 to 9",
                         item.field_spans["stack"], item=item.name)


def forget_held() -> None:
    """Forget the invariants found to hold and the near misses of engine names (frontend.forget)."""
    invariants.forget_held()
    _near_engine_name.cache_clear()


@functools.lru_cache(maxsize=1024)  # a house rule declares its base's names again
def _near_engine_name(name: str, cutoff: float) -> vocab.EngineName | None:
    import difflib

    # only names whose lengths allow the ratio (difflib's real_quick_ratio, the same
    # arithmetic) go to difflib: most constants are far from every engine name
    near = difflib.get_close_matches(name, [n for n in vocab.ENGINE_NAMES if 2.0 * min(len(n), len(name))
                                            / (len(n) + len(name)) >= cutoff],
                                     n=1, cutoff=cutoff)
    return vocab.ENGINE_NAMES[near[0]] if near else None


def _misplaced_start(starts: list[int], epochs: list, spaces: int) -> tuple | None:
    """(first space, epoch) of the first epoch of a row that does not start after the one before
    it or that starts past the track's end, or None. The first epoch starts on space 1 (space 0 is
    the start arrow)."""
    previous = [1] + list(starts)
    return next(((start, epoch) for before, start, epoch in zip(previous, starts, epochs)
                 if start <= before or start > spaces), None)


# phase actions a turn may do in several steps (players enter map outcomes after each map phase;
# an edition may end the game by a different rule on each A.S.T. track)
_REPEATABLE_ACTIONS = ("census", "end_game")


def _negative_literal(e) -> bool:
    """Whether an expression is a number written with a minus (`-3`)."""
    return isinstance(e, Neg) and isinstance(e.operand, Num)


def _names_read(roots: list, wanted: set[str]) -> set[str]:
    """The first parts of the names (`Name` nodes) that the objects reachable from `roots` hold;
    the walk stops once every name of `wanted` was seen."""
    read: set[str] = set()
    unread = set(wanted)
    seen: set[int] = set()
    stack = list(roots)
    kinds = _HELD_KINDS
    while stack and unread:
        x = stack.pop()
        kind = kinds.get(type(x)) or _held_kind(x)
        if kind is _LEAF or id(x) in seen:
            continue
        seen.add(id(x))
        if kind is _NAME:
            read.add(x.parts[0])
            unread.discard(x.parts[0])
        else:
            stack.extend(kind(x))
    return read


_LEAVES = (str, int, float, bool, Span, type(None))


# what the walk does with an object of a type: nothing (a leaf), note a name, or call the function
# that gives the objects it holds (_held_kind), asked once per type, not once per object
_LEAF, _NAME = object(), object()
_HELD_KINDS: dict[type, Any] = {}


def _held_kind(x) -> Any:
    """How to find the objects `x` holds (a function of it), or _LEAF, or _NAME; kept by type."""
    t = type(x)
    if isinstance(x, _LEAVES):
        kind = _LEAF
    elif isinstance(x, Name):
        kind = _NAME
    elif isinstance(x, dict):
        kind = dict.values
    elif isinstance(x, (list, tuple, set, frozenset)):
        kind = iter
    elif hasattr(x, "__dict__"):
        kind = _attribute_values
    else:
        slots = tuple(a for c in t.__mro__ for a in getattr(c, "__slots__", ()))
        kind = functools.partial(_slot_values, slots)
    _HELD_KINDS[t] = kind
    return kind


def _attribute_values(x) -> Any:
    return vars(x).values()


def _slot_values(slots: tuple, x) -> list:
    return [getattr(x, a, None) for a in slots]




def _apply_errata(ed: Edition, diags: Diagnostics, first: int) -> None:
    for e in ed.errata:
        if not _acknowledge(e, diags.items[first:]):
            diags.warning("CIV044", f"errata {e.code} for `{e.item}` matches no diagnostic", e.span, item=e.item,
                          help="remove it, or check the item name and code")


def _acknowledge(e, diagnostics: list) -> bool:
    """Turn the diagnostics an errata line names (its code, on its item) into notes; whether it
    named any (the edition is not marked: a house rule's edition may share its base's errata)."""
    used = False
    for d in diagnostics:
        # an error or a warning (e.g. CIV081, an option deliberately inert) becomes a note
        if d.code == e.code and d.item == e.item and d.level in ("error", "warning"):
            d.level = "note"
            d.message = f"{d.message} (acknowledged by errata at {e.span}: {e.reason})"
            d.help = None
            used = True
    return used
