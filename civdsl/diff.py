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

from collections import Counter
from dataclasses import asdict, dataclass
from operator import attrgetter, methodcaller
from typing import Any

from . import describe
from . import fields as item_fields
from .expressions import quote, unparse
from .model import Advance, Calamity, Commodity, Edition, Effect, EffectBranch, Modifier
from .sublanguages import registered
from .vocabulary import RESOLUTION_SETTINGS

# The main language's sections of a diff, in the order shown; each sub-language's own stands before
# the last, the prose (`_all_sections`).
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
    ("rulings", "Rulings and laws"),
    ("errata", "Errata"),
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
    alias_new = _first_each((a, n) for n, item in new.items() for a in item.aka)  # the newer item of each aka
    pairs = [(o, o) for o in old if o in new]
    used_new = {o for o, _ in pairs}
    removed = []
    for o in (o for o in old if o not in new):
        found = _renamed_to(o, old[o].aka, new, alias_new, used_new)
        if found is None:
            removed.append(o)
        else:
            pairs.append((o, found))
            used_new.add(found)
    return pairs, removed, [n for n in new if n not in used_new]


def _renamed_to(name: str, aka: list[str], new: dict, alias_new: dict[str, str], used: set[str]) -> str | None:
    """The new name of an item the newer rulebook lacks under NAME: one of its own `aka` the newer
    has, else the item of the newer that lists NAME as its `aka`; never one already matched."""
    found = next((a for a in aka if a in new and a not in used), alias_new.get(name))
    return found if found is not None and found not in used else None


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


def _aligned(old: dict, new: dict) -> list[tuple[str, Any, Any]]:
    """(key, old value, new value) over two keyed collections: first the keys only OLD has (new
    value None), then every key of NEW in its order (old value None where OLD lacks it)."""
    return [(k, v, None) for k, v in old.items() if k not in new] + [(k, old.get(k), v) for k, v in new.items()]


def _op(old, new) -> str | None:
    """What happened to one thing between its OLD and NEW value (None where absent)."""
    if old is None:
        return None if new is None else "added"
    if new is None:
        return "removed"
    return "changed" if old != new else None


def _shown(show, value):
    """VALUE in words, or None where the thing is absent."""
    return None if value is None else show(value)


# the words of a thing removed, added or changed, its label and values given (`label`, `x`, `y`)
_SIGNED = {"removed": "- {label} {x}", "added": "+ {label} {y}", "changed": "{label} {x} -> {y}"}


# --- the comparison ---------------------------------------------------------------------------------

class Differ:
    def __init__(self, a: Edition, b: Edition):
        self.a, self.b = a, b
        self.changes: list[Change] = []
        self.renames = _Renames()

    def add(self, section, op, item, field, old, new, text) -> None:
        self.changes.append(Change(section, op, item, field, old, new, text))

    def reporter(self, section: str, item, prefix: str = ""):
        """A function reporting the changes of one item of SECTION: (field, old, new, text, op)."""
        def report(field, x, y, text, op="changed"):
            self.add(section, op, item, field, x, y, prefix + text)
        return report

    def run(self) -> list[Change]:
        # renames first: every later comparison reads old names under their new ones
        matches = {kind: _match(getattr(self.a, kind), getattr(self.b, kind)) for kind in _KINDS}
        self.renames.map.update((o, n) for pairs, _, _ in matches.values() for o, n in pairs if o != n)
        self.edition()
        self.rules()
        self.consts()
        self.tables()
        self.options()
        self.groups()
        for kind, summary in (("advances", self.advance_summary), ("calamities", self.calamity_summary),
                              ("commodities", self.commodity_summary)):
            self.items(kind, summary, *matches[kind])
        self.decks()
        self.asts()
        self.civilizations()
        self.score()
        self.asserts()
        self.rulings()
        self.errata()
        self.sublanguages()
        self.edition_notes()
        return self.changes

    def items(self, kind: str, summary, pairs: list[tuple[str, str]], removed: list[str], added: list[str]) -> None:
        """The items of one kind: each matched pair field by field, then the removed and the added."""
        old, new = getattr(self.a, kind), getattr(self.b, kind)
        for o, n in pairs:
            if o != n:
                self.add(kind, "renamed", n, "name", o, n, f'{o} is now called {n} (aka)')
            self.item(_KINDS[kind], kind, old[o], new[n])
        for o in removed:
            self.add(kind, "removed", o, None, o, None, f"- {o}")
        for n in added:
            self.add(kind, "added", n, None, None, n, f"+ {n}: {summary(new[n])}")

    def whole(self, section: str, key: str, old, new, texts: dict, field: str) -> bool:
        """One keyed thing removed, added or changed (OLD and NEW in words, None where absent), in
        the words of TEXTS (`label` the key, `x` and `y` the words); a change names FIELD.
        Whether it differs."""
        op = _op(old, new)
        if op is not None:
            self.add(section, op, key, field if op == "changed" else None, old, new,
                     texts[op].format(label=key, x=old, y=new))
        return op is not None

    def one_side(self, section: str, item, value, x, y, words: str) -> None:
        """A thing only one side has (X or Y None): removed or added, VALUE standing for it."""
        op = _op(x, y)
        self.add(section, op, item, None, value if op == "removed" else None, value if op == "added" else None,
                 f"{_SIGN[op]} {words}")

    def attrs(self, section: str, key: str, old, new, names: tuple[str, ...], label: str, show=str) -> None:
        """The attributes NAMES of one thing present on both sides, each that differs."""
        for attr in names:
            u, v = getattr(old, attr), getattr(new, attr)
            if u != v:
                self.add(section, "changed", key, attr, u, v, f"{label}: {attr} {show(u)} -> {show(v)}")

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
        """The edition-wide settings of _RULE_SETTINGS, each compared whole."""
        for field, value, show, label in _RULE_SETTINGS:
            va, vb = value(self.a), value(self.b)
            if va != vb:
                self.add("rules", "changed", None, field, va, vb, f"{label} {show(va)} -> {show(vb)}")

    def consts(self):
        for k, x, y in _aligned(self.a.consts, self.b.consts):
            if not self.whole("consts", k, _shown(_const, x), _shown(_const, y), _CONST_TEXTS, "value") \
                    and (x.doc or "") != (y.doc or ""):
                self.add("prose", "changed", k, "doc", x.doc, y.doc, f"const {k}: description reworded")

    def tables(self):
        for k, x, y in _aligned(self.a.tables, self.b.tables):
            self.whole("tables", k, _shown(_bands, x), _shown(_bands, y), _TABLE_TEXTS, "bands")

    def options(self):
        for k, x, y in _aligned(self.a.options, self.b.options):
            self.whole("options", k, _shown(_on_off, x), _shown(_on_off, y), _OPTION_TEXTS, "on")

    def groups(self):
        for k, x, y in _aligned(self.a.groups, self.b.groups):
            if x is not None and y is not None:
                self.attrs("groups", k, x, y, ("name", "color", "symbol"), f"group {k}", _q)
            else:
                name = (x or y).name
                self.one_side("groups", k, name, x, y, f"group {k} {quote(name)}")

    # --- advances
    def advance_summary(self, adv: Advance) -> str:
        bits = [f"cost {_num(adv.cost)}", ", ".join(adv.groups) or "no group"]
        bits += [f"{adv.vp} VP"] if adv.vp is not None else []
        bits += ["credits " + ", ".join(f"{g} {n}" for g, n in adv.credits.items())] if adv.credits else []
        bits += [f"credit {quote(s.target)} {s.amount}" for s in adv.specific]
        return "; ".join(bits + (["requires " + ", ".join(map(quote, adv.requires))] if adv.requires else []))

    # --- items, field by field in the order of fields.ITEM_FIELDS: a field with a comparer of its
    # own (`_<kind>_<key>`; a test checks each field has one or compares as a plain value) uses
    # it, the others compare their value
    def item(self, kind: str, section: str, old, new) -> None:
        ch = self.reporter(section, new.name, f"{new.name}: ")
        for spec in item_fields.ITEM_FIELDS[kind]:
            if not spec.prose and not spec.change_only:
                getattr(self, f"_{kind}_{spec.key}", self._plain)(ch, spec, old, new)
        self._prose(new.name, old, new)

    @staticmethod
    def _plain(ch, spec: item_fields.FieldSpec, old, new) -> None:
        x, y = getattr(old, spec.model_attr), getattr(new, spec.model_attr)
        if x != y:
            # a field sharing its keyword with another (`supply table`, `block ID when`) by its words
            label = spec.word if spec.key == spec.word else spec.words
            ch(spec.key, x, y, f"{label} {_show(spec, x)} -> {_show(spec, y)}")

    def _advance_credits(self, ch, spec, old: Advance, new: Advance) -> None:
        self._amounts(ch, "credits", old.credits, new.credits, str)

    def _advance_credit(self, ch, spec, old: Advance, new: Advance) -> None:
        self._amounts(ch, "credit", {self.renames.name(s.target): s.amount for s in old.specific},
                      {s.target: s.amount for s in new.specific}, quote)

    @staticmethod
    def _amounts(ch, field: str, before: dict, after: dict, show) -> None:
        """Amounts keyed by what they go to (credits by group, by advance): each removed, added or changed."""
        for k, x, y in _aligned(before, after):
            op = _op(x, y)
            if op is not None:
                ch(field, _entry(k, x), _entry(k, y), _SIGNED[op].format(label=f"{field} {show(k)}", x=x, y=y), op)

    def _advance_requires(self, ch, spec, old: Advance, new: Advance) -> None:
        self._listed(ch, "requires", [self.renames.name(r) for r in old.requires], new.requires, quote)

    def _advance_ability(self, ch, spec, old: Advance, new: Advance) -> None:
        self._listed(ch, "ability", [_ability(x) for x in old.abilities], [_ability(x) for x in new.abilities])

    @staticmethod
    def _listed(ch, field: str | None, old: list, new: list, show=str, word: str | None = None) -> None:
        """Repeated lines as a multiset: each line gone and each line come."""
        gone, come = _diff_lists(old, new)
        for x in gone:
            ch(field, x, None, f"- {word or field} {show(x)}", "removed")
        for x in come:
            ch(field, None, x, f"+ {word or field} {show(x)}", "added")

    def _prose(self, name: str, old, new) -> None:
        op = _op(old.summary or None, new.summary or None)
        if op is not None:
            self.add("prose", op, name, "summary", old.summary, new.summary,
                     f"{name}: summary {_q(old.summary)} -> {_q(new.summary)}")
        self._listed(self.reporter("prose", name, f"{name}: "), "note", old.notes, new.notes, quote)

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
        elif so is not None:
            self._victims(ch, so, sn)
            self._effects(ch, "secondary", so.effects, sn.effects)

    def _victims(self, ch, so, sn) -> None:
        """How many secondary victims: `count` or `share`, one changed, or one given instead of the other."""
        for attr in ("count", "share"):
            x, y = self.renames.expr(_u(getattr(so, attr))), _u(getattr(sn, attr))
            if x != y and (x is None or y is None):
                ch(f"secondary {attr}", x, y, f"secondary {_spec(so)} -> {_spec(sn)}")
                return
            if x != y:
                ch(f"secondary {attr}", x, y, f"secondary {attr} {x} -> {y}")

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
        if _same_kinds(old, new):
            for x, y in zip(old, new):
                self._arguments(ch, where, x, y)
            return
        text_old, text_new = _effects_words(old), _effects_words(new)
        ch(where, text_old, text_new, f"{where}: {text_old} -> {text_new}")

    def _arguments(self, ch, where: str, x: Effect, y: Effect) -> None:
        """Two effects of one kind, argument by argument (a missing one is its default)."""
        for param in dict.fromkeys([*x.args, *y.args]):
            u, v = self.renames.expr(_u(x.args.get(param))), _u(y.args.get(param))
            if u != v:
                label = x.kind if param in ("amount", "#0") else f"{x.kind} {param}"
                ch(f"{where} {x.kind}.{param}", u, v, f"{where} {label} {u or 'default'} -> {v or 'default'}")

    def _modifiers(self, ch, old: list[Modifier], new: list[Modifier]) -> None:
        pairs, gone, remaining = self._paired(old, new)
        for m in gone:
            ch("modifier", describe.modifier(m), None, f"- modifier {describe.modifier(m)}", "removed")
        for m, x in pairs:
            self._modifier(ch, m, x)
        for m in remaining:
            ch("modifier", None, describe.modifier(m), f"+ modifier {describe.modifier(m)}", "added")

    def _paired(self, old: list[Modifier], new: list[Modifier]):
        """(pairs, gone, new ones left): modifiers matched by condition and role, the old
        condition read under the new names."""
        remaining = list(new)
        pairs, gone = [], []
        for m in old:
            key = (self.renames.expr(unparse(m.condition)), m.role)
            match = next((x for x in remaining if (unparse(x.condition), x.role) == key), None)
            if match is None:
                gone.append(m)
            else:
                remaining.remove(match)
                pairs.append((m, match))
        return pairs, gone, remaining

    def _modifier(self, ch, m: Modifier, x: Modifier) -> None:
        """One modifier kept: its operations and its priority, where they changed."""
        bits = [f"{'; '.join(map(describe.op, m.ops))} -> {'; '.join(map(describe.op, x.ops))}"] \
            if self.renames.expr(_ops(m)) != _ops(x) else []
        bits += [f"priority {m.priority} -> {x.priority}"] if m.priority != x.priority else []
        if bits:
            head = describe.condition(x.condition) + describe.ROLE_TEXT[x.role]
            ch("modifier", describe.modifier(m), describe.modifier(x), f"modifier {head}: {'; '.join(bits)}")

    # --- commodities
    def commodity_summary(self, c: Commodity) -> str:
        bits = [f"value {_num(c.value)}", f"count {_num(c.count)}", f"stack {_num(c.stack)}"]
        return ", ".join(bits + ([f"block {c.block}"] if c.block else []))

    def decks(self):
        a, b = self.a.decks, self.b.decks
        for s in sorted(set(a) | set(b)):
            x, y = _shown(_size, a.get(s)), _shown(_size, b.get(s))
            op = _op(x, y)
            if op is not None:
                self.add("decks", op, f"stack {s}", "size", x, y, _DECK_TEXTS[op].format(s=s, x=x, y=y))
        a, b = self.a.trade_decks, self.b.trade_decks
        for name in list(a) + [n for n in b if n not in a]:
            x, y = _shown(_trade_deck, a.get(name)), _shown(_trade_deck, b.get(name))
            op = _op(x, y)
            if op is not None:
                self.add("decks", op, f"trade_deck {quote(name)}", "stacks", x, y,
                         _SIGNED[op].format(label=f"trade_deck {quote(name)}", x=x, y=y))

    # --- A.S.T.
    def civilizations(self):
        """Civilizations added or removed, and each one's rank, block and rows."""
        for k, x, y in _aligned(self.a.civilizations, self.b.civilizations):
            if x is not None and y is not None:
                self.civilization(k, x, y)
            else:
                self.one_side("ast", k, k, x, y, f"civilization {quote(k)}")

    def civilization(self, k: str, old, new) -> None:
        self.attrs("ast", k, old, new, ("rank", "block"), f"civilization {quote(k)}")
        self.attrs("ast", k, old, new, ("setups",), f"civilization {quote(k)}",
                   show=lambda names: ", ".join(names) or "none")
        self.attrs("ast", k, old, new, ("block_for",), f"civilization {quote(k)}",
                   show=lambda pairs: "; ".join(f"{b} for {', '.join(s)}" for b, s in pairs) or "none")
        rows_a = {t: (r.spaces, r.starts) for t, r in old.rows.items()}
        rows_b = {t: (r.spaces, r.starts) for t, r in new.rows.items()}
        for t in sorted(set(rows_a) | set(rows_b)):
            x, y = rows_a.get(t), rows_b.get(t)
            if x != y:
                self.add("ast", "changed", k, f"row {t}", x, y,
                         f"civilization {quote(k)}: row on {t} {_row(x)} -> {_row(y)}")

    def asts(self):
        for k, x, y in _aligned(self.a.asts, self.b.asts):
            if y is None:
                self.add("ast", "removed", k, None, x.name, None, f"- track {k} {quote(x.name)}")
            elif x is None:
                self.add("ast", "added", k, None, None, y.name,
                         f"+ track {k} {quote(y.name)}: {', '.join(e.name for e in y.epochs)}")
            else:
                self.track(k, x, y)

    def track(self, k: str, old, t) -> None:
        if old.name != t.name:
            self.add("ast", "changed", k, "name", old.name, t.name, f"track {k}: name {quote(old.name)} -> {quote(t.name)}")
        before = {e.name: e for e in old.epochs}
        after = {e.name: e for e in t.epochs}
        renamed = self._epoch_renames(k, old, t, before, after)
        self._epochs_gone(k, old, after, renamed)
        for i, e in enumerate(t.epochs):
            self._epoch(k, i, e, before.get(e.name) or renamed.get(e.name))
        self._epoch_order(k, old, t, {**before, **renamed}, after, renamed)
        self._listed(self.reporter("ast", k, f"{k}: "), "backward",
                     [self.renames.expr(unparse(x)) for x, _ in old.backward], [unparse(x) for x, _ in t.backward],
                     word="backward when")

    def _epochs_gone(self, k: str, old, after: dict, renamed: dict) -> None:
        """The epochs of the older track that the newer has under no name."""
        gone_names = {e.name for e in renamed.values()}
        for e in (e for e in old.epochs if e.name not in after and e.name not in gone_names):
            self.add("ast", "removed", f"{k}/{e.name}", None, e.name, None, f"{k}: - epoch {quote(e.name)}")

    def _epoch(self, k: str, i: int, e, prior) -> None:
        """An epoch of the newer track: added at its position, or its requirements compared with PRIOR's."""
        if prior is not None:
            self._requirements(k, e, prior)
            return
        reqs = "; ".join(_req(r) for r in e.requirements) or "no requirement"
        self.add("ast", "added", f"{k}/{e.name}", None, None, e.name,
                 f"{k}: + epoch {quote(e.name)} (position {i + 1}): {reqs}")

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
        both = {**old_reqs, **new_reqs}  # a requirement gone is only in the old, one come only in the new
        self._listed(self.reporter("ast", f"{k}/{e.name}", f"{k} / {e.name}: "), "require", list(old_reqs),
                     list(new_reqs), lambda r: _req(both[r]))
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
            for label, x, y in _aligned(_score_lines(a, attr, self.renames.expr), _score_lines(b, attr, str)):
                op = _op(x, y)
                if op is not None:
                    self.add("score", op, label, kind, x, y, _SIGNED[op].format(label=f"{kind} {quote(label)}", x=x, y=y))
        self._tiebreak_order(list(_score_lines(a, "tiebreaks", str)), list(_score_lines(b, "tiebreaks", str)))

    def _tiebreak_order(self, old: list[str], new: list[str]) -> None:
        """The tie-breakers both have, in another order."""
        common_old, common_new = [x for x in old if x in new], [x for x in new if x in old]
        if common_old != common_new:
            self.add("score", "changed", None, "tiebreak order", common_old, common_new,
                     "tie-breakers reordered: " + ", ".join(common_new))

    def asserts(self):
        old = _first_each((self.renames.expr(unparse(x.expr)), x) for x in self.a.asserts)
        new = _first_each((unparse(x.expr), x) for x in self.b.asserts)
        for e, x, y in _aligned(old, new):
            if x is None or y is None:
                self.one_side("asserts", None, e, x, y, f"assert {e} {quote((x or y).message)}")
            elif x.message != y.message:
                self.add("prose", "changed", None, "assert message", x.message, y.message,
                         f"assert {e}: message {quote(x.message)} -> {quote(y.message)}")

    def rulings(self):
        """Rulings added, removed or asked or answered otherwise; the overrules lines; laws and drop law lines."""
        old, new = self.a.rulings, self.b.rulings
        for name in [*old, *(n for n in new if n not in old)]:
            x, y = old.get(name), new.get(name)
            if x is None or y is None:
                self.one_side("rulings", name, name, x, y, f"ruling {name} {quote((x or y).question)}")
            elif [unparse(c) for c in x.calls] != [unparse(c) for c in y.calls]:
                self.add("rulings", "changed", name, "calls", [unparse(c) for c in x.calls],
                         [unparse(c) for c in y.calls], f"ruling {name}: " + "; ".join(
                             unparse(c) for c in y.calls if unparse(c) not in {unparse(d) for d in x.calls}))
        self._listed(self.reporter("rulings", None), None, [self._overrule(x) for x in self.a.overrules.values()],
                     [self._overrule(x) for x in self.b.overrules.values()], word="overrules")
        self._listed(self.reporter("rulings", None), None, [f"{n} {quote(x.text)}" for n, x in self.a.laws.items()],
                     [f"{n} {quote(x.text)}" for n, x in self.b.laws.items()], word="law")
        self._listed(self.reporter("rulings", None), None, list(self.a.dropped_laws), list(self.b.dropped_laws),
                     word="drop law")

    def _overrule(self, x) -> str:
        """An overrules line with the ruling's question (where the rulebook holds it) and the why."""
        ruling = self.b.rulings.get(x.name) or self.a.rulings.get(x.name)
        asked = f" ({quote(ruling.question)})" if ruling is not None else ""
        return f"ruling {x.name}{asked}: {quote(x.why)}"

    def errata(self):
        self._listed(self.reporter("errata", None), None, [f"{e.code} {quote(self.renames.name(e.item))}" for e in self.a.errata],
                     [f"{e.code} {quote(e.item)}" for e in self.b.errata], word="errata")

    def sublanguages(self):
        """Each sub-language's changes, in its own section (civdsl/sublanguages.py)."""
        for sub in registered():
            sub.changes(self.a, self.b, self.add)

    def edition_notes(self):
        self._listed(self.reporter("prose", None), "note", [t for t, _ in self.a.notes], [t for t, _ in self.b.notes],
                     quote)


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


def _or_none(text: str | None) -> str:
    return text or "none"


def _joined(values) -> str:
    return _or_none(", ".join(values))


def _start_credits(ed: Edition):
    c = ed.start_credits
    return None if c is None else (_u(c.amount), _u(c.unless), c.once)


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
    return " | ".join(" ".join(str(x) for x in (o.op, o.kind, o.param, _u(o.amount), _u(o.per), _u(o.replacement), o.each))
                      for o in m.ops)


def _effects_words(effects: list) -> str:
    return "; ".join(describe.effect(e) for e in effects) or "nothing"


def _same_kinds(old: list, new: list) -> bool:
    """Two effect lists of the same kinds in the same order (no branches): compared argument by argument."""
    return len(old) == len(new) and all(isinstance(x, Effect) and isinstance(y, Effect) and x.kind == y.kind
                                        for x, y in zip(old, new))


def _score_lines(score, attr: str, read) -> dict[str, str]:
    """The `points` or `tiebreak` lines of a score block by label, each expression READ (under new names)."""
    return {p.label: read(unparse(p.expr)) for p in (getattr(score, attr) if score else [])}


def _first_each(pairs) -> dict:
    """The first value of each key."""
    out: dict = {}
    for k, v in pairs:
        out.setdefault(k, v)
    return out


def _entry(key: str, value) -> dict | None:
    return None if value is None else {key: value}


def _row(r) -> str:
    return "no row" if r is None else ", ".join(map(str, r[1]))


def _on_off(option) -> str:
    return "on" if option.on else "off"


_size = attrgetter("size")

_SIGN = {"added": "+", "removed": "-"}
_CONST_TEXTS = {"removed": "- const {label} = {x}", "added": "+ const {label} = {y}", "changed": "const {label} {x} -> {y}"}
_TABLE_TEXTS = {"removed": "- table {label} {x}", "added": "+ table {label} {y}", "changed": "table {label} {x} -> {y}"}
_OPTION_TEXTS = {"removed": "- option {label} ({x})", "added": "+ option {label} {y}",
                 "changed": "option {label} {x} -> {y}"}
def _trade_deck(d) -> str:
    """A trade deck in words: its players and block, and each stack's layers (`then` between)."""
    head = f"for {d.low}..{d.high if d.high is not None else ''}" + (f" block {d.block}" if d.block else "")
    stacks = "; ".join(f"stack {n}: " + " then ".join(
        ", ".join(f"{c} {k}" for c, k, _ in layer.cards) + (f" clear {layer.clear}" if layer.clear else "")
        for layer in layers) for n, layers in d.stacks.items())
    return f"{head} ({stacks})"


_DECK_TEXTS = {"added": "+ deck stack {s} size {y}", "removed": "- deck stack {s} (size {x})",
               "changed": "deck stack {s} size {x} -> {y}"}

# the edition-wide settings compared whole: (field, its value in an edition, its words, its label)
_RULE_SETTINGS = (
    ("credit policy", attrgetter("credit_policy"), str, "credit policy"),
    # the calamity phase of the table (`resolution { ... }`)
    *((f"resolution {name}", methodcaller("resolution_setting", name), _joined, f"resolution {name}")
      for name in RESOLUTION_SETTINGS),
    ("vp tiers", attrgetter("vp_tiers"), _tiers, "vp tiers"),
    ("vp tiers when", lambda ed: {o: t for o, (t, _, _) in ed.vp_tiers_when.items()},
     lambda readings: "; ".join(f"{o} {_tiers(t)}" for o, t in readings.items()) or "none", "vp tiers when"),
    ("set_value", lambda ed: _u(ed.set_value), _or_none, "set_value"),
    ("credit variants", attrgetter("credit_variants"), _joined, "credit policy variants"),
    ("start credits", _start_credits, _start, "start credits"),
)


def _effect_key(e) -> str:
    if isinstance(e, EffectBranch):
        return f"if {unparse(e.condition)} {{{' '.join(_effect_key(x) for x in e.then)}}} else {{{' '.join(_effect_key(x) for x in e.otherwise)}}}"
    return f"{e.kind}({', '.join(f'{k}={unparse(v)}' for k, v in e.args.items())})"


def diff(a: Edition, b: Edition) -> list[Change]:
    return Differ(a, b).run()


# --- output -----------------------------------------------------------------------------------------

def _counts(changes: list[Change], section: str) -> str:
    """"2 added, 1 removed, 3 changed": the items of one section's changes."""
    whole = Counter(c.op for c in changes if c.field is None)
    bits = [f"{whole[op]} {op}" for op in ("added", "removed") if whole[op]]
    touched = _touched(changes) if section in _KINDS else 0
    return ", ".join(bits + ([f"{touched} changed"] if touched else []))


def _touched(changes: list[Change]) -> int:
    """How many items have a field changed, or a new name."""
    return len({c.item for c in changes if c.field is not None or c.op == "renamed"})


def _all_sections() -> list[tuple[str, str]]:
    """SECTIONS with each sub-language's own section before the last (the prose)."""
    return [*SECTIONS[:-1], *((s.name, s.title) for s in registered()), SECTIONS[-1]]


def _sections(changes: list[Change], prose: bool) -> list[tuple[str, list[Change]]]:
    """(title with counts, changes) of each section with something to show (prose only with PROSE)."""
    shown = [c for c in changes if prose or c.section != "prose"]
    out = []
    for key, title in _all_sections():
        section = [c for c in shown if c.section == key]
        out += [(_label(title, _counts(section, key)), section)] if section else []
    return out


def _label(title: str, counts: str) -> str:
    return title + (f" ({counts})" if counts else "")


def _hidden(changes: list[Change], prose: bool) -> str:
    """How many changes of prose are left out (without PROSE), in words; "" when none."""
    n = 0 if prose else sum(c.section == "prose" for c in changes)
    return f"{n} change{'s' if n != 1 else ''} to summaries, notes or descriptions not shown" if n else ""


def _title(ed: Edition) -> str:
    return f"{ed.id} ({ed.name})"


_ANSI = {"green": "\x1b[32m", "red": "\x1b[31m", "yellow": "\x1b[33m", "bold": "\x1b[1m", "reset": "\x1b[0m"}
_PLAIN = dict.fromkeys(_ANSI, "")
_OP_COLORS = {"added": "green", "removed": "red"}


def render_text(a: Edition, b: Edition, changes: list[Change], *, color: bool = False, prose: bool = False) -> str:
    style = _ANSI if color else _PLAIN
    sections = _sections(changes, prose)
    lines = [style["bold"] + f"{_title(a)} -> {_title(b)}" + style["reset"]]
    lines += [] if sections else ["no differences in the rules"]
    for label, section in sections:
        lines += ["", style["bold"] + label + style["reset"]]
        lines += ["  " + style[_OP_COLORS.get(c.op, "yellow")] + c.text + style["reset"] for c in section]
    hidden = _hidden(changes, prose)
    return "\n".join(lines + (["", f"({hidden}; --prose lists them)"] if hidden else []))


def render_md(a: Edition, b: Edition, changes: list[Change], *, prose: bool = False) -> str:
    from .escape import markdown as esc

    sections = _sections(changes, prose)
    lines = [f"# {esc(a.name)} → {esc(b.name)}", "", f"`{a.id}` compared with `{b.id}`.", ""]
    lines += [] if sections else ["No differences in the rules."]
    for label, section in sections:
        lines += [f"## {label}", ""] + [f"- {esc(c.text)}" for c in section] + [""]
    hidden = _hidden(changes, prose)
    lines += [f"_{hidden}._"] if hidden else []
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
