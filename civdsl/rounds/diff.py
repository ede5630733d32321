"""Round rules in `civdsl diff`: their changes between two editions, compared generically through
the JSON model (civdsl/rounds/serialize.py), item by item (matched by id), so that every kind of
declaration is covered without a comparison written per kind."""

from __future__ import annotations

from ..model import Edition
from ..serialize import to_data


def changes(a: Edition, b: Edition, add) -> None:
    """Report each change with `add(section, op, item, field, old, new, text)`."""
    try:
        old = to_data(a).get("rounds") or {}
        new = to_data(b).get("rounds") or {}
    except Exception:  # the model serializer is another module's: never let it break a diff
        return
    for kind in list(dict.fromkeys(list(old) + list(new))):
        before, after = old.get(kind), new.get(kind)
        if isinstance(before, list) or isinstance(after, list):
            before, after = before or [], after or []
        x, y = _keyed(before), _keyed(after)
        if x is None or y is None:
            _whole_part(kind, before, after, add)
        else:
            _items(kind[:-1] if kind.endswith("s") else kind, x, y, add)


def _whole_part(kind: str, before, after, add) -> None:
    """A part compared whole (the setup, or a part whose entries have no id)."""
    if _strip_lines(before) == _strip_lines(after):
        return
    op = "added" if not before else "removed" if not after else "changed"
    sign = {"added": "+ ", "removed": "- ", "changed": ""}[op]
    add("rounds", op, None, kind, None, None, f"{sign}{kind}" + (" changed" if op == "changed" else ""))


def _items(label: str, x: dict, y: dict, add) -> None:
    """Declarations matched by id: removed, added, and field by field."""
    for k in x:
        if k not in y:
            add("rounds", "removed", k, None, k, None, f"- {label} {k}")
    for k, item in y.items():
        if k not in x:
            add("rounds", "added", k, None, None, k, f"+ {label} {k}")
            continue
        for field in dict.fromkeys(list(x[k]) + list(item)):
            if field in ("line", "path"):
                continue
            u, v = _strip_lines(x[k].get(field)), _strip_lines(item.get(field))
            if u == v:
                continue
            if isinstance(u, (int, str, bool, type(None))) and isinstance(v, (int, str, bool, type(None))):
                add("rounds", "changed", k, field, u, v, f"{label} {k}: {field} {_plain(u)} -> {_plain(v)}")
            else:
                add("rounds", "changed", k, field, u, v, f"{label} {k}: {field} changed")


def _keyed(items) -> dict | None:
    if not isinstance(items, list):
        return None
    out = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return None
        key = item.get("id", item.get("name", f"#{i + 1}"))
        out[str(key)] = item
    return out


def _strip_lines(data):
    if isinstance(data, dict):
        return {k: _strip_lines(v) for k, v in data.items() if k not in ("line", "path")}
    if isinstance(data, list):
        return [_strip_lines(x) for x in data]
    return data


def _plain(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)
