"""Round rules in `civdsl diff`: their changes between two editions, compared generically through
the JSON model (civdsl/rounds/serialize.py), item by item (matched by id), so that every kind of
declaration is covered without a comparison written per kind."""

from __future__ import annotations

from ..model import Edition
from .model import rules
from .serialize import to_data


def changes(a: Edition, b: Edition, add) -> None:
    """Report each change with `add(section, op, item, field, old, new, text)`."""
    old = to_data(a) if rules(a).declared else {}
    new = to_data(b) if rules(b).declared else {}
    for kind in dict.fromkeys([*old, *new]):
        _part(kind, old.get(kind), new.get(kind), add)


def _part(kind: str, before, after, add) -> None:
    """One part of the round rules: its declarations matched by id, or the part whole."""
    if isinstance(before, list) or isinstance(after, list):
        before, after = before or [], after or []
    x, y = _keyed(before), _keyed(after)
    if x is None or y is None:
        _whole_part(kind, before, after, add)
    else:
        _items(kind.removesuffix("s"), x, y, add)


_SIGNS = {"added": "+ ", "removed": "- ", "changed": ""}


def _whole_part(kind: str, before, after, add) -> None:
    """A part compared whole (the setup, or a part whose entries have no id)."""
    if _strip_lines(before) == _strip_lines(after):
        return
    op = "added" if not before else "removed" if not after else "changed"
    add("rounds", op, None, kind, None, None, f"{_SIGNS[op]}{kind}" + (" changed" if op == "changed" else ""))


def _items(label: str, x: dict, y: dict, add) -> None:
    """Declarations matched by id: removed, added, and field by field."""
    for k in x:
        if k not in y:
            add("rounds", "removed", k, None, k, None, f"- {label} {k}")
    for k, item in y.items():
        if k in x:
            _fields(label, k, x[k], item, add)
        else:
            add("rounds", "added", k, None, None, k, f"+ {label} {k}")


_SCALARS = (int, str, bool, type(None))


def _fields(label: str, k: str, old: dict, new: dict, add) -> None:
    """One declaration present on both sides, field by field (where it stands left out)."""
    for field in _compared_fields(old, new):
        u, v = _strip_lines(old.get(field)), _strip_lines(new.get(field))
        if u == v:
            continue
        said = f"{_plain(u)} -> {_plain(v)}" if isinstance(u, _SCALARS) and isinstance(v, _SCALARS) else "changed"
        add("rounds", "changed", k, field, u, v, f"{label} {k}: {field} {said}")


def _compared_fields(old: dict, new: dict) -> list[str]:
    return [f for f in dict.fromkeys([*old, *new]) if f not in ("line", "path")]


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
