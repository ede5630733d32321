"""`civdsl diff A B`: what changes between two rulebooks, in the rules' own terms.

Both sides are checked and resolved (a house rule is compared with everything it inherits),
then compared item by item: advances, calamities and commodities field by field, and the
edition-wide rules (constants, tables, options, groups, credit policy, vp tiers, set values,
decks, A.S.T. tracks and their epochs, score lines, asserts, errata). An item renamed between
editions is followed through `aka` (never by similar spelling), and every name in the older
rulebook is read under its newer name, so that a renamed advance does not make every credit
and modifier that mentions it look changed.

Effects and modifiers are shown in words (`describe`), the same phrases the charts use.
Summaries and notes are prose: `--prose` lists their changes, otherwise they are only counted.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from . import describe
from . import fields as item_fields
from .expressions import quote, unparse
from .model import Advance, Calamity, Commodity, Edition, Effect, EffectBranch, Modifier
from .rounds import diff as rounds_diff

SECTIONS = [
    ("edition", "Edition"),
    ("rules", "Edition-wide rules"),
    ("consts", "Constants"),
    ("tables", "Tables"),
    ("options", "Options"),
    ("groups", "Groups"),
    ("advances", "Advances"),
    ("calamities", "Calamities"),
    ("commodities", "Commodities"),
    ("decks", "Decks"),
    ("ast", "A.S.T."),
    ("score", "Score"),
    ("asserts", "Asserts"),
    ("errata", "Errata"),
    ("rounds", "Round rules"),
    ("prose", "Summaries and notes"),
]


@dataclass
class Change:
    section: str
    op: str  # added | removed | changed | renamed
    item: str | None
    field: str | None
    old: Any
    new: Any
    text: str


# --- loading ---------------------------------------------------------------------------------

def load_edition(name: str) -> Edition:
    """An edition id or a path, checked and resolved. Raises RulebookError on errors."""
    from pathlib import Path

    from .api import RulebookError, locate
    from .frontend import check_file

    path = locate(name)
    checked = check_file(Path(path))
    if not checked.ok:
        raise RulebookError(f"{name} has errors", checked.diagnostics)
    return checked.edition


# --- helpers ------------------------------------------------------------------------------------

def _u(e) -> str | None:
    return None if e is None else unparse(e)


def _num(v) -> str:
    return "unknown" if v is None else str(v)


def _listing(values) -> str:
    return ", ".join(str(v) for v in values) if values else "none"


class _Renames:
    """Names of the old rulebook under their new names (advances, calamities, commodities)."""

    def __init__(self):
        self.map: dict[str, str] = {}

    def name(self, old: str) -> str:
        return self.map.get(old, old)

    def expr(self, text: str | None) -> str | None:
        if text is None:
            return None
        for old, new in self.map.items():
            text = text.replace(quote(old), quote(new))
        return text


def _match(old: dict, new: dict) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """Pairs (old name, new name) matched by name or `aka`; then the removed and the added."""
    pairs: list[tuple[str, str]] = []
    used_new: set[str] = set()
    alias_new: dict[str, str] = {}
    for n, item in new.items():
        for a in item.aka:
            alias_new.setdefault(a, n)
    pending = []
    for o in old:
        if o in new:
            pairs.append((o, o))
            used_new.add(o)
        else:
            pending.append(o)
    removed = []
    for o in pending:
        candidates = [a for a in old[o].aka if a in new and a not in used_new]
        if not candidates and o in alias_new and alias_new[o] not in used_new:
            candidates = [alias_new[o]]
        if candidates:
            pairs.append((o, candidates[0]))
            used_new.add(candidates[0])
        else:
            removed.append(o)
    added = [n for n in new if n not in used_new]
    return pairs, removed, added


def _diff_lists(old: list[str], new: list[str]) -> tuple[list[str], list[str]]:
    """Multiset difference, in order."""
    rest = list(new)
    gone = []
    for x in old:
        if x in rest:
            rest.remove(x)
        else:
            gone.append(x)
    return gone, rest


# --- the comparison ---------------------------------------------------------------------------------

class Differ:
    def __init__(self, a: Edition, b: Edition):
        self.a, self.b = a, b
        self.changes: list[Change] = []
        self.renames = _Renames()

    def add(self, section, op, item, field, old, new, text) -> None:
        self.changes.append(Change(section, op, item, field, old, new, text))

    def run(self) -> list[Change]:
        a, b = self.a, self.b
        # renames first: every later comparison reads old names under their new ones
        matches = {}
        for kind in ("advances", "calamities", "commodities"):
            pairs, removed, added = _match(getattr(a, kind), getattr(b, kind))
            matches[kind] = (pairs, removed, added)
            for o, n in pairs:
                if o != n:
                    self.renames.map[o] = n
        self.edition()
        self.rules()
        self.consts()
        self.tables()
        self.options()
        self.groups()
        for kind, summary in (("advances", self.advance_summary), ("calamities", self.calamity_summary),
                              ("commodities", self.commodity_summary)):
            pairs, removed, added = matches[kind]
            old, new = getattr(a, kind), getattr(b, kind)
            for o, n in pairs:
                if o != n:
                    self.add(kind, "renamed", n, "name", o, n, f'{o} is now called {n} (aka)')
                self.item(_KINDS[kind], kind, old[o], new[n])
            for o in removed:
                self.add(kind, "removed", o, None, o, None, f"- {o}")
            for n in added:
                self.add(kind, "added", n, None, None, n, f"+ {n}: {summary(new[n])}")
        self.decks()
        self.asts()
        self.civilizations()
        self.score()
        self.asserts()
        self.errata()
        self.rounds()
        self.edition_notes()
        return self.changes

    # --- edition-wide
    def edition(self):
        a, b = self.a, self.b
        if a.name != b.name:
            self.add("edition", "changed", None, "name", a.name, b.name, f"name {quote(a.name)} -> {quote(b.name)}")
        if a.bases != b.bases:
            self.add("edition", "changed", None, "bases", a.bases, b.bases,
                     f"extends {' -> '.join(a.bases) or 'nothing'} -> {' -> '.join(b.bases) or 'nothing'}")
        if a.source != b.source:
            self.add("prose", "changed", None, "source", a.source, b.source, "source reworded")

    def rules(self):
        a, b = self.a, self.b
        if a.credit_policy != b.credit_policy:
            self.add("rules", "changed", None, "credit policy", a.credit_policy, b.credit_policy,
                     f"credit policy {a.credit_policy} -> {b.credit_policy}")
        from .vocabulary import RESOLUTION_SETTINGS

        for name in RESOLUTION_SETTINGS:  # the calamity phase of the table (`resolution { ... }`)
            va, vb = a.resolution_setting(name), b.resolution_setting(name)
            if va != vb:
                self.add("rules", "changed", None, f"resolution {name}", va, vb,
                         f"resolution {name} {', '.join(va) or 'none'} -> {', '.join(vb) or 'none'}")
        if a.vp_tiers != b.vp_tiers:
            self.add("rules", "changed", None, "vp tiers", a.vp_tiers, b.vp_tiers,
                     f"vp tiers {_tiers(a.vp_tiers)} -> {_tiers(b.vp_tiers)}")
        sa, sb = _u(a.set_value), _u(b.set_value)
        if sa != sb:
            self.add("rules", "changed", None, "set_value", sa, sb, f"set_value {sa or 'none'} -> {sb or 'none'}")
        if a.credit_variants != b.credit_variants:
            self.add("rules", "changed", None, "credit variants", a.credit_variants, b.credit_variants,
                     f"credit policy variants {', '.join(a.credit_variants) or 'none'} -> "
                     f"{', '.join(b.credit_variants) or 'none'}")
        ca, cb = (None if x.start_credits is None else (_u(x.start_credits.amount), _u(x.start_credits.unless),
                                                          x.start_credits.once) for x in (a, b))
        if ca != cb:
            self.add("rules", "changed", None, "start credits", ca, cb, f"start credits {_start(ca)} -> {_start(cb)}")

    def consts(self):
        a, b = self.a.consts, self.b.consts
        for k in a:
            if k not in b:
                self.add("consts", "removed", k, None, _const(a[k]), None, f"- const {k} = {_const(a[k])}")
        for k, c in b.items():
            if k not in a:
                self.add("consts", "added", k, None, None, _const(c), f"+ const {k} = {_const(c)}")
            elif _const(a[k]) != _const(c):
                self.add("consts", "changed", k, "value", _const(a[k]), _const(c), f"const {k} {_const(a[k])} -> {_const(c)}")
            elif (a[k].doc or "") != (c.doc or ""):
                self.add("prose", "changed", k, "doc", a[k].doc, c.doc, f"const {k}: description reworded")

    def tables(self):
        a, b = self.a.tables, self.b.tables
        for k in a:
            if k not in b:
                self.add("tables", "removed", k, None, _bands(a[k]), None, f"- table {k} {_bands(a[k])}")
        for k, t in b.items():
            if k not in a:
                self.add("tables", "added", k, None, None, _bands(t), f"+ table {k} {_bands(t)}")
            elif _bands(a[k]) != _bands(t):
                self.add("tables", "changed", k, "bands", _bands(a[k]), _bands(t),
                         f"table {k} {_bands(a[k])} -> {_bands(t)}")

    def options(self):
        a, b = self.a.options, self.b.options
        onoff = {True: "on", False: "off"}
        for k in a:
            if k not in b:
                self.add("options", "removed", k, None, onoff[a[k].on], None, f"- option {k} ({onoff[a[k].on]})")
        for k, o in b.items():
            if k not in a:
                self.add("options", "added", k, None, None, onoff[o.on], f"+ option {k} {onoff[o.on]}")
            elif a[k].on != o.on:
                self.add("options", "changed", k, "on", onoff[a[k].on], onoff[o.on],
                         f"option {k} {onoff[a[k].on]} -> {onoff[o.on]}")

    def groups(self):
        a, b = self.a.groups, self.b.groups
        for k in a:
            if k not in b:
                self.add("groups", "removed", k, None, a[k].name, None, f"- group {k} {quote(a[k].name)}")
        for k, g in b.items():
            if k not in a:
                self.add("groups", "added", k, None, None, g.name, f"+ group {k} {quote(g.name)}")
                continue
            for attr in ("name", "color", "symbol"):
                x, y = getattr(a[k], attr), getattr(g, attr)
                if x != y:
                    self.add("groups", "changed", k, attr, x, y, f"group {k}: {attr} {_q(x)} -> {_q(y)}")

    # --- advances
    def advance_summary(self, adv: Advance) -> str:
        bits = [f"cost {_num(adv.cost)}", ", ".join(adv.groups) or "no group"]
        if adv.vp is not None:
            bits.append(f"{adv.vp} VP")
        if adv.credits:
            bits.append("credits " + ", ".join(f"{g} {n}" for g, n in adv.credits.items()))
        for s in adv.specific:
            bits.append(f"credit {quote(s.target)} {s.amount}")
        if adv.requires:
            bits.append("requires " + ", ".join(quote(r) for r in adv.requires))
        return "; ".join(bits)

    # --- items, field by field in the order of fields.ITEM_FIELDS: a field with a comparer of its
    # own (`_<kind>_<key>`; a test checks each field has one or compares as a plain value) uses
    # it, the others compare their value
    def item(self, kind: str, section: str, old, new) -> None:
        n = new.name

        def ch(field, x, y, text, op="changed"):
            self.add(section, op, n, field, x, y, f"{n}: {text}")

        for spec in item_fields.ITEM_FIELDS[kind]:
            if not spec.prose and not spec.change_only:
                getattr(self, f"_{kind}_{spec.key}", self._plain)(ch, spec, old, new)
        self._prose(n, old, new)

    @staticmethod
    def _plain(ch, spec: item_fields.FieldSpec, old, new) -> None:
        x, y = getattr(old, spec.model_attr), getattr(new, spec.model_attr)
        if x != y:
            ch(spec.key, x, y, f"{spec.key} {_show(spec, x)} -> {_show(spec, y)}")

    def _advance_credits(self, ch, spec, old: Advance, new: Advance) -> None:
        for g in old.credits:
            if g not in new.credits:
                ch("credits", {g: old.credits[g]}, None, f"- credits {g} {old.credits[g]}", "removed")
        for g, amount in new.credits.items():
            if g not in old.credits:
                ch("credits", None, {g: amount}, f"+ credits {g} {amount}", "added")
            elif old.credits[g] != amount:
                ch("credits", {g: old.credits[g]}, {g: amount}, f"credits {g} {old.credits[g]} -> {amount}")

    def _advance_credit(self, ch, spec, old: Advance, new: Advance) -> None:
        before = {self.renames.name(s.target): s.amount for s in old.specific}
        after = {s.target: s.amount for s in new.specific}
        for t, amount in before.items():
            if t not in after:
                ch("credit", {t: amount}, None, f"- credit {quote(t)} {amount}", "removed")
        for t, amount in after.items():
            if t not in before:
                ch("credit", None, {t: amount}, f"+ credit {quote(t)} {amount}", "added")
            elif before[t] != amount:
                ch("credit", {t: before[t]}, {t: amount}, f"credit {quote(t)} {before[t]} -> {amount}")

    def _advance_requires(self, ch, spec, old: Advance, new: Advance) -> None:
        self._listed(ch, "requires", [self.renames.name(r) for r in old.requires], new.requires, quote)

    def _advance_ability(self, ch, spec, old: Advance, new: Advance) -> None:
        self._listed(ch, "ability", [_ability(x) for x in old.abilities], [_ability(x) for x in new.abilities])

    @staticmethod
    def _listed(ch, field: str, old: list, new: list, show=str, word: str | None = None) -> None:
        """A repeatable field as a multiset: each line gone and each line come."""
        gone, come = _diff_lists(old, new)
        for x in gone:
            ch(field, x, None, f"- {word or field} {show(x)}", "removed")
        for x in come:
            ch(field, None, x, f"+ {word or field} {show(x)}", "added")

    def _prose(self, name: str, old, new) -> None:
        if (old.summary or None) != (new.summary or None):
            op = "added" if not old.summary else "removed" if not new.summary else "changed"
            self.add("prose", op, name, "summary", old.summary, new.summary,
                     f"{name}: summary {_q(old.summary)} -> {_q(new.summary)}")
        gone, come = _diff_lists(old.notes, new.notes)
        for x in gone:
            self.add("prose", "removed", name, "note", x, None, f"{name}: - note {quote(x)}")
        for x in come:
            self.add("prose", "added", name, "note", None, x, f"{name}: + note {quote(x)}")

    # --- calamities
    def calamity_summary(self, cal: Calamity) -> str:
        return f"stack {_num(cal.stack)}, {cal.klass or 'no class'}; {describe.calamity(cal)}"

    def _calamity_primary(self, ch, spec, old: Calamity, new: Calamity) -> None:
        self._effects(ch, "primary", old.primary, new.primary)

    def _calamity_secondary(self, ch, spec, old: Calamity, new: Calamity) -> None:
        so, sn = old.secondary, new.secondary
        if so is None and sn is not None:
            ch("secondary", None, describe.secondary(new), f"+ secondary victims: {describe.secondary(new)}", "added")
        elif so is not None and sn is None:
            ch("secondary", describe.secondary(old), None, "- secondary victims", "removed")
        elif so is not None and sn is not None:
            for attr in ("count", "share"):
                x, y = self.renames.expr(_u(getattr(so, attr))), _u(getattr(sn, attr))
                if x != y:
                    if x is None or y is None:
                        ch(f"secondary {attr}", x, y, f"secondary {_spec(so)} -> {_spec(sn)}")
                        break
                    ch(f"secondary {attr}", x, y, f"secondary {attr} {x} -> {y}")
            self._effects(ch, "secondary", so.effects, sn.effects)

    def _calamity_exclude(self, ch, spec, old: Calamity, new: Calamity) -> None:
        self._listed(ch, "exclude", [self.renames.expr(_exclusion(x)) for x in old.exclusions],
                     [_exclusion(x) for x in new.exclusions])

    def _calamity_cancel(self, ch, spec, old: Calamity, new: Calamity) -> None:
        self._listed(ch, "cancel", [self.renames.expr(unparse(c)) for c, _ in old.cancel],
                     [unparse(c) for c, _ in new.cancel], word="cancel when")

    def _calamity_modifier(self, ch, spec, old: Calamity, new: Calamity) -> None:
        self._modifiers(ch, old.modifiers, new.modifiers)

    def _calamity_amounts(self, ch, spec, old: Calamity, new: Calamity) -> None:
        if old.amounts != new.amounts:
            ch("amounts", old.amounts, new.amounts, f"amounts {_amounts(old.amounts)} -> {_amounts(new.amounts)}")

    def _calamity_resolution(self, ch, spec, old: Calamity, new: Calamity) -> None:
        if old.resolution != new.resolution:
            ch("resolution", old.resolution, new.resolution,
               f"resolution {_amounts(old.resolution)} -> {_amounts(new.resolution)}")

    def _effects(self, ch, where: str, old: list, new: list) -> None:
        if [_effect_key(e) for e in old] == [_effect_key(e) for e in new]:
            return
        if len(old) == len(new) and all(isinstance(x, Effect) and isinstance(y, Effect) and x.kind == y.kind
                                        for x, y in zip(old, new)):
            for x, y in zip(old, new):
                for param in list(dict.fromkeys(list(x.args) + list(y.args))):
                    u, v = self.renames.expr(_u(x.args.get(param))), _u(y.args.get(param))
                    if u != v:
                        label = x.kind if param in ("amount", "#0") else f"{x.kind} {param}"
                        ch(f"{where} {x.kind}.{param}", u, v, f"{where} {label} {u or 'default'} -> {v or 'default'}")
            return
        text_old = "; ".join(describe.effect(e) for e in old) or "nothing"
        text_new = "; ".join(describe.effect(e) for e in new) or "nothing"
        ch(where, text_old, text_new, f"{where}: {text_old} -> {text_new}")

    def _modifiers(self, ch, old: list[Modifier], new: list[Modifier]) -> None:
        def key(m: Modifier, renamed: bool) -> tuple[str, str]:
            cond = unparse(m.condition)
            return (self.renames.expr(cond) if renamed else cond, m.role)

        remaining = list(new)
        pairs, gone = [], []
        for m in old:
            k = key(m, True)
            match = next((x for x in remaining if key(x, False) == k), None)
            if match is None:
                gone.append(m)
            else:
                remaining.remove(match)
                pairs.append((m, match))
        for m in gone:
            ch("modifier", describe.modifier(m), None, f"- modifier {describe.modifier(m)}", "removed")
        for m, x in pairs:
            before, after = self.renames.expr(_ops(m)), _ops(x)
            if before != after or m.priority != x.priority:
                head = describe.condition(x.condition) + describe.ROLE_TEXT[x.role]
                ops_old = "; ".join(describe.op(o) for o in m.ops)
                ops_new = "; ".join(describe.op(o) for o in x.ops)
                bits = []
                if before != after:
                    bits.append(f"{ops_old} -> {ops_new}")
                if m.priority != x.priority:
                    bits.append(f"priority {m.priority} -> {x.priority}")
                ch("modifier", describe.modifier(m), describe.modifier(x), f"modifier {head}: {'; '.join(bits)}")
        for m in remaining:
            ch("modifier", None, describe.modifier(m), f"+ modifier {describe.modifier(m)}", "added")

    # --- commodities
    def commodity_summary(self, c: Commodity) -> str:
        bits = [f"value {_num(c.value)}", f"count {_num(c.count)}", f"stack {_num(c.stack)}"]
        if c.block:
            bits.append(f"block {c.block}")
        return ", ".join(bits)

    def decks(self):
        a, b = self.a.decks, self.b.decks
        for s in sorted(set(a) | set(b)):
            x = a[s].size if s in a else None
            y = b[s].size if s in b else None
            if x != y:
                op = "added" if x is None else "removed" if y is None else "changed"
                text = {"added": f"+ deck stack {s} size {y}", "removed": f"- deck stack {s} (size {x})",
                        "changed": f"deck stack {s} size {x} -> {y}"}[op]
                self.add("decks", op, f"stack {s}", "size", x, y, text)

    # --- A.S.T.
    def civilizations(self):
        """Civilizations added or removed, and each one's rank, block and rows."""
        a, b = self.a.civilizations, self.b.civilizations
        for k in a:
            if k not in b:
                self.add("ast", "removed", k, None, k, None, f"- civilization {quote(k)}")
        for k, c in b.items():
            if k not in a:
                self.add("ast", "added", k, None, None, k, f"+ civilization {quote(k)}")
                continue
            old = a[k]
            for attr in ("rank", "block"):
                if getattr(old, attr) != getattr(c, attr):
                    self.add("ast", "changed", k, attr, getattr(old, attr), getattr(c, attr),
                             f"civilization {quote(k)}: {attr} {getattr(old, attr)} -> {getattr(c, attr)}")
            rows_a = {t: (r.spaces, r.starts) for t, r in old.rows.items()}
            rows_b = {t: (r.spaces, r.starts) for t, r in c.rows.items()}
            for t in sorted(set(rows_a) | set(rows_b)):
                if rows_a.get(t) != rows_b.get(t):
                    show = lambda r: "no row" if r is None else ", ".join(map(str, r[1]))  # noqa: E731
                    self.add("ast", "changed", k, f"row {t}", rows_a.get(t), rows_b.get(t),
                             f"civilization {quote(k)}: row on {t} {show(rows_a.get(t))} -> {show(rows_b.get(t))}")

    def asts(self):
        a, b = self.a.asts, self.b.asts
        for k in a:
            if k not in b:
                self.add("ast", "removed", k, None, a[k].name, None, f"- track {k} {quote(a[k].name)}")
        for k, t in b.items():
            if k not in a:
                names = ", ".join(e.name for e in t.epochs)
                self.add("ast", "added", k, None, None, t.name, f"+ track {k} {quote(t.name)}: {names}")
            else:
                self.track(k, a[k], t)

    def track(self, k: str, old, t) -> None:
        if old.name != t.name:
            self.add("ast", "changed", k, "name", old.name, t.name, f"track {k}: name {quote(old.name)} -> {quote(t.name)}")
        before = {e.name: e for e in old.epochs}
        after = {e.name: e for e in t.epochs}
        renamed = self._epoch_renames(k, old, t, before, after)
        gone_names = {e.name for e in renamed.values()}
        for e in old.epochs:
            if e.name not in after and e.name not in gone_names:
                self.add("ast", "removed", f"{k}/{e.name}", None, e.name, None, f"{k}: - epoch {quote(e.name)}")
        for i, e in enumerate(t.epochs):
            if e.name not in before and e.name not in renamed:
                reqs = "; ".join(_req(r) for r in e.requirements) or "no requirement"
                self.add("ast", "added", f"{k}/{e.name}", None, None, e.name,
                         f"{k}: + epoch {quote(e.name)} (position {i + 1}): {reqs}")
            else:
                self._requirements(k, e, before.get(e.name) or renamed[e.name])
        self._epoch_order(k, old, t, {**before, **renamed}, after, renamed)
        gone, come = _diff_lists([self.renames.expr(unparse(x)) for x, _ in old.backward],
                                 [unparse(x) for x, _ in t.backward])
        for x in gone:
            self.add("ast", "removed", k, "backward", x, None, f"{k}: - backward when {x}")
        for x in come:
            self.add("ast", "added", k, "backward", None, x, f"{k}: + backward when {x}")

    def _epoch_renames(self, k: str, old, t, before: dict, after: dict) -> dict:
        """Epochs have no `aka`: one that left a place another took is read as renamed."""
        renamed = {}
        for i, e in enumerate(t.epochs):
            if e.name not in before and i < len(old.epochs) and old.epochs[i].name not in after:
                renamed[e.name] = old.epochs[i]
                self.add("ast", "renamed", f"{k}/{e.name}", "name", old.epochs[i].name, e.name,
                         f"{k}: epoch {i + 1} {quote(old.epochs[i].name)} is now called {quote(e.name)}")
        return renamed

    def _requirements(self, k: str, e, prior) -> None:
        old_reqs = {self.renames.expr(unparse(r.expr)): r for r in prior.requirements}
        new_reqs = {unparse(r.expr): r for r in e.requirements}
        gone, come = _diff_lists(list(old_reqs), list(new_reqs))
        for r in gone:
            self.add("ast", "removed", f"{k}/{e.name}", "require", r, None,
                     f"{k} / {e.name}: - require {_req(old_reqs[r])}")
        for r in come:
            self.add("ast", "added", f"{k}/{e.name}", "require", None, r,
                     f"{k} / {e.name}: + require {_req(new_reqs[r])}")
        for r in new_reqs:
            if r in old_reqs and (old_reqs[r].why or None) != (new_reqs[r].why or None):
                self.add("prose", "changed", f"{k}/{e.name}", "require why", old_reqs[r].why, new_reqs[r].why,
                         f"{k} / {e.name}: require {r}: {_q(old_reqs[r].why)} -> {_q(new_reqs[r].why)}")

    def _epoch_order(self, k: str, old, t, before: dict, after: dict, renamed: dict) -> None:
        back = {e.name: n for n, e in renamed.items()}
        common_old = [back.get(e.name, e.name) for e in old.epochs if e.name in after or e.name in back]
        common_new = [e.name for e in t.epochs if e.name in before]
        if common_old != common_new:
            self.add("ast", "changed", k, "order", common_old, common_new, f"{k}: epochs reordered: {', '.join(common_new)}")

    # --- score
    def score(self):
        a, b = self.a.score, self.b.score
        if a is None and b is None:
            return
        for kind, attr in (("points", "points"), ("tiebreak", "tiebreaks")):
            old = {p.label: self.renames.expr(unparse(p.expr)) for p in (getattr(a, attr) if a else [])}
            new = {p.label: unparse(p.expr) for p in (getattr(b, attr) if b else [])}
            for label, expr in old.items():
                if label not in new:
                    self.add("score", "removed", label, kind, expr, None, f"- {kind} {quote(label)} {expr}")
            for label, expr in new.items():
                if label not in old:
                    self.add("score", "added", label, kind, None, expr, f"+ {kind} {quote(label)} {expr}")
                elif old[label] != expr:
                    self.add("score", "changed", label, kind, old[label], expr,
                             f"{kind} {quote(label)} {old[label]} -> {expr}")
            if kind == "tiebreak":
                common_old = [x for x in old if x in new]
                common_new = [x for x in new if x in old]
                if common_old != common_new:
                    self.add("score", "changed", None, "tiebreak order", common_old, common_new,
                             "tie-breakers reordered: " + ", ".join(common_new))

    def asserts(self):
        old = {}
        for x in self.a.asserts:
            old.setdefault(self.renames.expr(unparse(x.expr)), x)
        new = {}
        for x in self.b.asserts:
            new.setdefault(unparse(x.expr), x)
        for e, x in old.items():
            if e not in new:
                self.add("asserts", "removed", None, None, e, None, f"- assert {e} {quote(x.message)}")
        for e, x in new.items():
            if e not in old:
                self.add("asserts", "added", None, None, None, e, f"+ assert {e} {quote(x.message)}")
            elif old[e].message != x.message:
                self.add("prose", "changed", None, "assert message", old[e].message, x.message,
                         f"assert {e}: message {quote(old[e].message)} -> {quote(x.message)}")

    def errata(self):
        old = [f"{e.code} {quote(self.renames.name(e.item))}" for e in self.a.errata]
        new = [f"{e.code} {quote(e.item)}" for e in self.b.errata]
        gone, come = _diff_lists(old, new)
        for x in gone:
            self.add("errata", "removed", None, None, x, None, f"- errata {x}")
        for x in come:
            self.add("errata", "added", None, None, None, x, f"+ errata {x}")

    def rounds(self):
        rounds_diff.changes(self.a, self.b, self.add)

    def edition_notes(self):
        gone, come = _diff_lists([t for t, _ in self.a.notes], [t for t, _ in self.b.notes])
        for x in gone:
            self.add("prose", "removed", None, "note", x, None, f"- note {quote(x)}")
        for x in come:
            self.add("prose", "added", None, "note", None, x, f"+ note {quote(x)}")


# The item kinds of fields.py, by their section.
_KINDS = {"advances": "advance", "calamities": "calamity", "commodities": "commodity"}


def _show(spec: item_fields.FieldSpec, v) -> str:
    """A field's value in a line of the diff: a list, a number (`unknown` when not known) or a word."""
    if isinstance(v, list) or spec.type.startswith("numbers"):
        return _listing(v or [])
    if spec.type.startswith("number"):
        return _num(v)
    return "none" if v is None else str(v)


def _amounts(settings: dict) -> str:
    return "; ".join(f"{k} {', '.join(v)}" for k, v in settings.items()) or "the edition's"


def _q(v) -> str:
    return "none" if v is None else quote(str(v))


def _start(c) -> str:
    if c is None:
        return "none"
    amount, unless, once = c
    return amount + (f" unless {unless}" if unless else "") + (" once" if once else "")


def _tiers(tiers) -> str:
    if not tiers:
        return "none"
    return "{ " + ", ".join(f"below {b}: {v}" if b is not None else f"else: {v}" for b, v in tiers) + " }"


def _const(c) -> str:
    return str(c.value) if c.value is not None else unparse(c.expr)


def _bands(t) -> str:
    return "{ " + ", ".join(f"{b.low}..{'' if b.high is None else b.high}: {unparse(b.value)}" for b in t.bands) + " }"


def _ability(a) -> str:
    args = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in a.args.items()
                     if isinstance(v, (int, str)))
    return f"{a.kind}({args}): {describe.ability(a.kind, a.args)}"


def _exclusion(x) -> str:
    return x.role if x.role else f"when {unparse(x.condition)}"


def _spec(sec) -> str:
    if sec.share is not None:
        return f"share {unparse(sec.share)}"
    return f"count {_u(sec.count)}"


def _req(r) -> str:
    return unparse(r.expr) + (f" {quote(r.why)}" if r.why else "")


def _ops(m: Modifier) -> str:
    parts = []
    for o in m.ops:
        parts.append(" ".join(str(x) for x in (o.op, o.kind, o.param, _u(o.amount), _u(o.per), _u(o.replacement), o.each)))
    return " | ".join(parts)


def _effect_key(e) -> str:
    if isinstance(e, EffectBranch):
        return f"if {unparse(e.condition)} {{{' '.join(_effect_key(x) for x in e.then)}}} else {{{' '.join(_effect_key(x) for x in e.otherwise)}}}"
    return f"{e.kind}({', '.join(f'{k}={unparse(v)}' for k, v in e.args.items())})"


def diff(a: Edition, b: Edition) -> list[Change]:
    return Differ(a, b).run()


# --- output -----------------------------------------------------------------------------------------

def _counts(changes: list[Change], section: str) -> str:
    items_added = sum(1 for c in changes if c.section == section and c.op == "added" and c.field is None)
    items_removed = sum(1 for c in changes if c.section == section and c.op == "removed" and c.field is None)
    touched = {c.item for c in changes if c.section == section and (c.field is not None or c.op == "renamed")}
    bits = []
    if items_added:
        bits.append(f"{items_added} added")
    if items_removed:
        bits.append(f"{items_removed} removed")
    if touched and section in ("advances", "calamities", "commodities"):
        bits.append(f"{len(touched)} changed")
    return ", ".join(bits)


def _title(ed: Edition) -> str:
    return f"{ed.id} ({ed.name})"


_ANSI = {"green": "\x1b[32m", "red": "\x1b[31m", "yellow": "\x1b[33m", "bold": "\x1b[1m", "reset": "\x1b[0m"}


def render_text(a: Edition, b: Edition, changes: list[Change], *, color: bool = False, prose: bool = False) -> str:
    def paint(text: str, op: str) -> str:
        if not color:
            return text
        return _ANSI[{"added": "green", "removed": "red"}.get(op, "yellow")] + text + _ANSI["reset"]

    head = f"{_title(a)} -> {_title(b)}"
    lines = [_ANSI["bold"] + head + _ANSI["reset"] if color else head]
    shown = [c for c in changes if prose or c.section != "prose"]
    if not shown:
        lines.append("no differences in the rules")
    for key, title in SECTIONS:
        section = [c for c in shown if c.section == key]
        if not section:
            continue
        counts = _counts(section, key)
        label = f"{title}" + (f" ({counts})" if counts else "")
        lines.append("")
        lines.append(_ANSI["bold"] + label + _ANSI["reset"] if color else label)
        for c in section:
            lines.append("  " + paint(c.text, c.op))
    hidden = [c for c in changes if c.section == "prose"]
    if hidden and not prose:
        lines.append("")
        lines.append(f"({len(hidden)} change{'s' if len(hidden) != 1 else ''} to summaries, notes or descriptions "
                     f"not shown; --prose lists them)")
    return "\n".join(lines)


def render_md(a: Edition, b: Edition, changes: list[Change], *, prose: bool = False) -> str:
    from .escape import markdown as esc

    lines = [f"# {esc(a.name)} → {esc(b.name)}", "", f"`{a.id}` compared with `{b.id}`.", ""]
    shown = [c for c in changes if prose or c.section != "prose"]
    if not shown:
        lines.append("No differences in the rules.")
    for key, title in SECTIONS:
        section = [c for c in shown if c.section == key]
        if not section:
            continue
        counts = _counts(section, key)
        lines.append(f"## {title}" + (f" ({counts})" if counts else ""))
        lines.append("")
        for c in section:
            lines.append(f"- {esc(c.text)}")
        lines.append("")
    hidden = [c for c in changes if c.section == "prose"]
    if hidden and not prose:
        lines.append(f"_{len(hidden)} change{'s' if len(hidden) != 1 else ''} to summaries, notes or descriptions "
                     f"not shown._")
    return "\n".join(lines).rstrip() + "\n"


def to_json(a: Edition, b: Edition, changes: list[Change]) -> dict:
    summary: dict[str, dict[str, int]] = {}
    for c in changes:
        s = summary.setdefault(c.section, {"added": 0, "removed": 0, "changed": 0, "renamed": 0})
        s[c.op] += 1
    return {
        "format": "civdsl-diff/1",
        "from": {"id": a.id, "name": a.name, "files": a.files},
        "to": {"id": b.id, "name": b.name, "files": b.files},
        "changes": [asdict(c) for c in changes],
        "summary": summary,
    }
