"""What a house rule changes against its base: items added, removed or changed.

Items are compared as compiled data (serialize.to_data) without their source locations, so
a row is marked exactly when what it means differs, never because a line moved.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Edition
from ..serialize import to_data

CATEGORIES = ("advances", "calamities", "commodities", "epochs", "tracks", "consts", "groups", "tables",
              "options", "rules")
CATEGORY_TITLES = {"advances": "Advances", "calamities": "Calamities", "commodities": "Commodities",
                   "epochs": "Epochs (A.S.T.)", "tracks": "A.S.T. tracks", "consts": "Constants",
                   "groups": "Groups", "tables": "Tables", "options": "Options", "rules": "Edition rules"}


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


def _strip(value):
    """Drop source locations (and the derived full-sentence text, which other fields carry)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in ("path", "line")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _items(data: dict, ed: Edition) -> dict[str, dict[str, dict]]:
    out: dict[str, dict[str, dict]] = {c: {} for c in CATEGORIES}
    for a in data["advances"]:
        out["advances"][a["name"]] = a
    for c in data["calamities"]:
        out["calamities"][c["name"]] = c
    for c in data["commodities"]:
        out["commodities"][c["name"]] = c
    for t in data["asts"]:
        out["tracks"][t["name"]] = {"epochs": [e["name"] for e in t["epochs"]], "backward": t["backward"],
                                    "backward_except": t.get("backward_except"), "spaces": t.get("spaces"),
                                    "step_points": t.get("step_points"), "notes": t["notes"]}
        for e in t["epochs"]:
            out["epochs"][f"{t['name']} / {e['name']}"] = e
    # constants, tables and options are compared by what they are worth, not by their doc strings
    for c in data["consts"]:
        out["consts"][c["id"]] = {"value": c["value"] if c["value"] is not None else c["expr"]}
    for g in data["groups"]:
        out["groups"][g["id"]] = g
    for t in data["tables"]:
        out["tables"][t["id"]] = {"bands": t["bands"]}
    for o in data["options"]:
        out["options"][o["id"]] = {"on": o["on"]}
    rules = out["rules"]
    # the policy and its variants in words ("best group, single use"), compared together
    policy = [data["credit_policy"] or "none", *data.get("credit_variants", [])]
    rules["credit policy"] = {"value": ", ".join(p.replace("_", " ") for p in policy)}
    rules["start credits"] = {"value": data.get("start_credits")}
    rules["set value off block"] = {"value": data.get("set_value_off_block")}
    rules["abilities of every player"] = {"value": data.get("abilities") or None}
    rules["VP tiers"] = {"value": data["vp_tiers"]}
    rules["set value"] = {"value": data["set_value"]}
    rules["score"] = {"value": data["score"]}
    rules["decks"] = {"value": data["decks"]}
    return out


def _words(value) -> str:
    """A compact text of a data value for the summary's before/after columns."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict):
        if "text" in value:
            return str(value["text"])
        if set(value) == {"target", "amount"}:
            return f"{value['target']} {value['amount']}"
        if set(value) == {"low", "high", "value"}:
            return f"{value['low']}..{'' if value['high'] is None else value['high']}: {value['value']}"
        if set(value) == {"below", "vp"}:
            return f"{'else' if value['below'] is None else 'below ' + str(value['below'])}: {value['vp']}"
        if "expr" in value and "requirements" not in value:
            return str(value["expr"])
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items() if v not in (None, [], {}))
    if isinstance(value, list):
        # sentences (notes) follow each other; phrases are separated by semicolons
        texts = [_words(v) for v in value]
        return "".join(t + ("" if i == len(texts) - 1 else " " if t.endswith(".") else "; ")
                       for i, t in enumerate(texts)) if texts else "none"
    return str(value)


_LABELS = {"text": "effect", "klass": "class", "vp": "VP"}

# Fields whose words would repeat another field's (the calamity sentence covers its parts).
_SHADOWED = {"calamities": {"primary", "secondary", "exclusions", "cancel"}}


def _fields(category: str, old: dict, new: dict) -> list[tuple[str, str, str]]:
    out = []
    skip = _SHADOWED.get(category, set())
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key), new.get(key)
        if _strip(a) == _strip(b) or key in skip:
            continue
        if key == "modifiers":
            olds = [m["text"] for m in a or []]
            news = [m["text"] for m in b or []]
            dropped = [t for t in olds if t not in news]
            added = [t for t in news if t not in olds]
            if dropped or added:
                out.append(("modifiers", "; ".join(dropped) or "-", "; ".join(added) or "-"))
            else:
                out.append(("modifiers", "same modifiers, other order or role", ""))
            continue
        out.append((_LABELS.get(key, key.replace("_", " ")), _words(a), _words(b)))
    if not out:  # differs only in fields shadowed by the sentence: say which
        keys = [k for k in skip if _strip(old.get(k)) != _strip(new.get(k))]
        out.append((", ".join(sorted(keys)) or "data", "", ""))
    return out


def _brief(category: str, item: dict) -> str:
    """An added or removed item in a few words."""
    if category == "advances":
        bits = [f"cost {_words(item.get('cost'))}", "groups " + ", ".join(item.get("groups") or []) or "none"]
        if item.get("credits"):
            bits.append("credits " + _words(item["credits"]))
        if item.get("specific_credits"):
            bits.append("specific " + _words(item["specific_credits"]))
        return "; ".join(bits)
    if category == "calamities":
        return f"stack {item.get('stack')}, {item.get('class')}: {item.get('text')}"
    if category == "commodities":
        return f"value {item.get('value')}, count {item.get('count')}, stack {_words(item.get('stack'))}"
    if category == "epochs":
        return _words(item.get("requirements")) if item.get("requirements") else "no requirement"
    if category == "consts":
        return _words(item.get("value") if item.get("value") is not None else item.get("expr"))
    return _words({k: v for k, v in item.items() if k not in ("id", "name", "doc", "path", "line")})


def compute(base: Edition, house: Edition) -> Diff:
    old, new = _items(to_data(base), base), _items(to_data(house), house)
    changes: list[Change] = []
    for cat in CATEGORIES:
        a, b = old[cat], new[cat]
        for key, item in b.items():
            if key not in a:
                changes.append(Change(cat, key, "added", [("", "", _brief(cat, item))]))
            elif _strip(a[key]) != _strip(item):
                changes.append(Change(cat, key, "changed", _fields(cat, a[key], item)))
        for key in a:
            if key not in b:
                changes.append(Change(cat, key, "removed", [("", _brief(cat, a[key]), "")]))
    return Diff(changes)
