"""What a house rule changes against its base, for the charts: the changes `civdsl diff` finds
(civdsl/diff.py, the one comparison of two editions) grouped by item, each item marked added,
removed or changed, with its changed fields in words.

Only the grouping and the words are the charts' own: a calamity whose effects changed shows its
whole sentence before and after (the parts would repeat it), an added or removed item a line
of what it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import describe
from .. import diff as editions_diff
from .. import fields as item_fields
from ..model import Edition

CATEGORIES = ("advances", "calamities", "commodities", "civilizations", "epochs", "tracks", "consts", "groups",
              "tables", "options", "rules")
CATEGORY_TITLES = {"advances": "Advances", "calamities": "Calamities", "commodities": "Commodities",
                   "civilizations": "Civilizations", "epochs": "Epochs (A.S.T.)", "tracks": "A.S.T. tracks",
                   "consts": "Constants", "groups": "Groups", "tables": "Tables", "options": "Options",
                   "rules": "Edition rules"}
# The item kinds of fields.py, by the section `civdsl diff` reports them in.
_KINDS = {"advances": "advance", "calamities": "calamity", "commodities": "commodity",
          "civilizations": "civilization"}
# A calamity's fields that its sentence (describe.calamity) says: one "effect" row covers them.
_SENTENCE = ("primary", "secondary", "exclude", "cancel")


@dataclass
class Change:
    category: str
    key: str  # the item's name (for epochs: "track / epoch")
    status: str  # "added", "removed", "changed"
    fields: list[tuple[str, str, str]] = field(default_factory=list)  # (field, base, house) in words


@dataclass
class Diff:
    changes: list[Change]

    def marks(self, category: str) -> dict[str, str]:
        return {c.key: c.status for c in self.changes if c.category == category}

    def of(self, category: str) -> list[Change]:
        return [c for c in self.changes if c.category == category]


def compute(base: Edition, house: Edition) -> Diff:
    grouped: dict[tuple[str, str], list[editions_diff.Change]] = {}
    for c in editions_diff.diff(base, house):
        # the house rule's own name and base, and the edition's prose, are no change of the game
        if c.section != "edition" and not (c.section == "prose" and c.item is None):
            grouped.setdefault(_place(c, base, house), []).append(c)
    order = {cat: i for i, cat in enumerate(CATEGORIES)}
    changes = [_item_change(cat, key, found, base, house)
               for (cat, key), found in sorted(grouped.items(), key=lambda kv: order[kv[0][0]])]
    return Diff(changes)


def _place(c: editions_diff.Change, base: Edition, house: Edition) -> tuple[str, str]:
    """(category, key) of the item a change of `civdsl diff` is about."""
    item = c.item or ""
    if c.section in ("advances", "calamities", "commodities", "consts", "groups", "tables", "options"):
        return c.section, item
    if c.section in ("ast", "prose") and "/" in item:
        track, epoch = item.split("/", 1)
        t = house.asts.get(track) or base.asts.get(track)
        return "epochs", f"{t.name if t else track} / {epoch}"
    if item in house.civilizations or item in base.civilizations:
        return "civilizations", item
    if c.section == "ast":
        return "tracks", item
    for section in ("advances", "calamities", "commodities"):  # a summary or note of an item
        if c.section == "prose" and item and (item in getattr(house, section) or item in getattr(base, section)):
            return section, item
    return "rules", c.field or item or c.section


def _item_change(cat: str, key: str, found: list, base: Edition, house: Edition) -> Change:
    whole = [c for c in found if c.field is None and c.op in ("added", "removed")]
    if whole:
        status = whole[0].op
        ed = house if status == "added" else base
        brief = _brief(cat, key, ed, whole[0])
        return Change(cat, key, status, [("", "", brief)] if status == "added" else [("", brief, "")])
    return Change(cat, key, "changed", _fields(cat, key, found, base, house))


def _fields(cat: str, key: str, found: list, base: Edition, house: Edition) -> list[tuple[str, str, str]]:
    kind = _KINDS.get(cat)
    out = []
    sentence = False
    for c in found:
        name = (c.field or "name").split(" ")[0]
        if cat == "calamities" and name in _SENTENCE:
            sentence = True
            continue
        spec = item_fields.field(kind, name) if kind else None
        words = _setting_words if cat == "rules" else _words
        out.append((spec.words if spec is not None else (c.field or "name"), words(c.old), words(c.new)))
    if sentence:
        out.insert(0, ("effect", describe.calamity(base.calamities[_old_name(key, found)]),
                       describe.calamity(house.calamities[key])))
    return out


def _old_name(key: str, found: list) -> str:
    return next((c.old for c in found if c.op == "renamed"), key)


def _brief(cat: str, key: str, ed: Edition, c: editions_diff.Change) -> str:
    """An added or removed item in a few words."""
    if cat == "advances":
        a = ed.advances[key]
        bits = [f"cost {_words(a.cost)}", "groups " + (", ".join(a.groups) or "none")]
        if a.credits:
            bits.append("credits " + _words(a.credits))
        if a.specific:
            bits.append("specific " + "; ".join(f"{s.target} {s.amount}" for s in a.specific))
        return "; ".join(bits)
    if cat == "calamities":
        cal = ed.calamities[key]
        return f"stack {cal.stack}, {cal.klass}: {describe.calamity(cal)}"
    if cat == "commodities":
        com = ed.commodities[key]
        return f"value {com.value}, count {com.count}, stack {_words(com.stack)}"
    if cat == "epochs":
        track, epoch = key.split(" / ", 1)
        e = next((e for t in ed.asts.values() if t.name == track for e in t.epochs if e.name == epoch), None)
        return "; ".join(describe.condition(r.expr) for r in e.requirements) if e and e.requirements \
            else "no requirement"
    return _words(c.new if c.op == "added" else c.old)


def _setting_words(value) -> str:
    """An edition-wide setting in words: its vocabulary words (`best_group`) written apart."""
    return _words(value).replace("_", " ")


def _words(value) -> str:
    """A compact text of a changed value for the summary's before/after columns."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(_words(v) for v in value) if value else "none"
    return str(value)
