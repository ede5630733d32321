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
        if _of_the_game(c):
            grouped.setdefault(_place(c, base, house), []).append(c)
    order = {cat: i for i, cat in enumerate(CATEGORIES)}
    changes = [_item_change(cat, key, found, base, house)
               for (cat, key), found in sorted(grouped.items(), key=lambda kv: order[kv[0][0]])]
    return Diff(changes)


def _of_the_game(c: editions_diff.Change) -> bool:
    """The house rule's own name and base, the edition's prose, and its rulings and laws (checks of
    the rules, which the Rulings tables and the impact page show) are no change of the game."""
    return c.section not in ("edition", "rulings") and not (c.section == "prose" and c.item is None)


# the sections of `civdsl diff` whose changes name their item as it is
_ITEM_SECTIONS = ("advances", "calamities", "commodities", "consts", "groups", "tables", "options")


def _place(c: editions_diff.Change, base: Edition, house: Edition) -> tuple[str, str]:
    """(category, key) of the item a change of `civdsl diff` is about."""
    item = c.item or ""
    if c.section in _ITEM_SECTIONS:
        return c.section, item
    if c.section in ("ast", "prose") and "/" in item:
        return "epochs", _epoch_key(item, base, house)
    if _declared(item, "civilizations", base, house):
        return "civilizations", item
    if c.section == "ast":
        return "tracks", item
    owner = _prose_owner(c, base, house)
    return (owner, item) if owner else ("rules", c.field or item or c.section)


def _prose_owner(c: editions_diff.Change, base: Edition, house: Edition) -> str | None:
    """The section of the item whose summary or note a prose change is about; None for the edition's."""
    if c.section != "prose" or not c.item:
        return None
    return next((s for s in ("advances", "calamities", "commodities") if _declared(c.item, s, base, house)), None)


def _declared(name: str, pool: str, base: Edition, house: Edition) -> bool:
    return name in getattr(house, pool) or name in getattr(base, pool)


def _epoch_key(item: str, base: Edition, house: Edition) -> str:
    """"track name / epoch" of `civdsl diff`'s "track/epoch"."""
    track, epoch = item.split("/", 1)
    t = house.asts.get(track) or base.asts.get(track)
    return f"{t.name if t else track} / {epoch}"


def _item_change(cat: str, key: str, found: list, base: Edition, house: Edition) -> Change:
    whole = _whole(found)
    if whole is None:
        return Change(cat, key, "changed", _fields(cat, key, found, base, house))
    if whole.op == "added":
        return Change(cat, key, "added", [("", "", _brief(cat, key, house, whole))])
    return Change(cat, key, "removed", [("", _brief(cat, key, base, whole), "")])


def _whole(found: list) -> editions_diff.Change | None:
    """The change that adds or removes the item itself, if any."""
    return next((c for c in found if c.field is None and c.op in ("added", "removed")), None)


def _fields(cat: str, key: str, found: list, base: Edition, house: Edition) -> list[tuple[str, str, str]]:
    words = _setting_words if cat == "rules" else _words
    out = [(_field_words(_KINDS.get(cat), c), words(c.old), words(c.new)) for c in found if not _in_sentence(cat, c)]
    return _sentence_row(key, found, base, house) + out if any(_in_sentence(cat, c) for c in found) else out


def _sentence_row(key: str, found: list, base: Edition, house: Edition) -> list[tuple[str, str, str]]:
    """The "effect" row of a changed calamity: its whole sentence in the base and in the house rule."""
    return [("effect", describe.calamity(base.calamities[_old_name(key, found)]), describe.calamity(house.calamities[key]))]


def _field_name(c: editions_diff.Change) -> str:
    return (c.field or "name").split(" ")[0]


def _in_sentence(cat: str, c: editions_diff.Change) -> bool:
    """A change of a calamity that its sentence says (the whole sentence shows it)."""
    return cat == "calamities" and _field_name(c) in _SENTENCE


def _field_words(kind: str | None, c: editions_diff.Change) -> str:
    """The changed field's words (fields.py) where it is an item's field, else its name in the diff."""
    spec = item_fields.field(kind, _field_name(c))  # None for a category that is no item kind
    return spec.words if spec is not None else (c.field or "name")


def _old_name(key: str, found: list) -> str:
    return next((c.old for c in found if c.op == "renamed"), key)


def _brief(cat: str, key: str, ed: Edition, c: editions_diff.Change) -> str:
    """An added or removed item in a few words."""
    brief = _BRIEFS.get(cat)
    return brief(ed, key) if brief is not None else _words(c.new if c.op == "added" else c.old)


def _advance_brief(ed: Edition, key: str) -> str:
    a = ed.advances[key]
    bits = [f"cost {_words(a.cost)}", "groups " + (", ".join(a.groups) or "none")]
    bits += ["credits " + _words(a.credits)] if a.credits else []
    bits += ["specific " + "; ".join(f"{s.target} {s.amount}" for s in a.specific)] if a.specific else []
    return "; ".join(bits)


def _calamity_brief(ed: Edition, key: str) -> str:
    cal = ed.calamities[key]
    return f"stack {cal.stack}, {cal.klass}: {describe.calamity(cal)}"


def _commodity_brief(ed: Edition, key: str) -> str:
    com = ed.commodities[key]
    return f"value {com.value}, count {com.count}, stack {_words(com.stack)}"


def _epoch_brief(ed: Edition, key: str) -> str:
    requirements = _requirements(ed, *key.split(" / ", 1))
    return "; ".join(describe.condition(r.expr) for r in requirements) if requirements else "no requirement"


def _requirements(ed: Edition, track: str, epoch: str) -> list:
    """The requirements of the epoch EPOCH on the track named TRACK (none where there is no such epoch)."""
    return next((e.requirements for t in ed.asts.values() if t.name == track for e in t.epochs if e.name == epoch), [])


# an added or removed item of these categories in words of its own (others: its value)
_BRIEFS = {"advances": _advance_brief, "calamities": _calamity_brief, "commodities": _commodity_brief,
           "epochs": _epoch_brief}


def _setting_words(value) -> str:
    """An edition-wide setting in words: its vocabulary words (`best_group`) written apart."""
    return _words(value).replace("_", " ")


def _words(value) -> str:
    """A compact text of a changed value for the summary's before/after columns."""
    say = next((say for kind, say in _VALUE_WORDS if isinstance(value, kind)), str)
    return say(value)


def _listing(values) -> str:
    return "; ".join(_words(v) for v in values) if values else "none"


def _on_off(value: bool) -> str:
    return "on" if value else "off"


def _pairs(value: dict) -> str:
    return ", ".join(f"{k} {_words(x)}" for k, x in value.items())


# how a value of each type is said (in order: a bool is an int too); anything else as it prints
_VALUE_WORDS = ((type(None), lambda v: "none"), (bool, _on_off), (dict, _pairs), ((list, tuple), _listing))
