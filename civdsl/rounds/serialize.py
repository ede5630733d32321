"""Round rules as JSON-ready data: the `rounds` part of the model (see civdsl/serialize.py)."""

from __future__ import annotations

from ..expressions import unparse
from ..model import Edition
from .model import rules


def _stmts(stmts) -> list:
    """Statements as data: the keyword, the line, and whichever parts the statement has."""
    out = []
    for s in stmts or []:
        d = {"op": s.keyword, "line": s.span.line}
        for key, attr, convert in _PARTS:
            value = getattr(s, attr, None)
            if value is not None and value != []:
                d[key] = convert(value)
        out.append(d)
    return out


# key in the JSON model, the statement's attribute, how it is written (in this order)
_PARTS = (("target", "target", str), ("source", "source", str), ("expr", "expr", unparse), ("text", "text", str),
          ("body", "body", _stmts), ("else", "otherwise", _stmts))


def _text(e) -> str | None:
    return unparse(e) if e is not None else None


def _common(x) -> dict:
    """The fields every round item may carry, as an advance or a calamity does."""
    return {"summary": x.summary, "aka": x.aka, "notes": x.notes}


def _pool(p) -> dict:
    return {"id": p.id, "name": p.name, "sides": _text(p.sides), "base": _text(p.base),
            "terms": [{"amount": unparse(x.amount), "when": _text(x.condition), "label": x.label} for x in p.terms],
            "success": list(p.success) if p.success is not None else None, **_common(p), "line": p.span.line}


def _track(t) -> dict:
    return {"id": t.id, "name": t.name, "start": t.start, "low": t.low, "high": t.high,
            "stages": [{"low": s.low, "high": s.high, "name": s.name} for s in t.stages],
            "marks": [{"position": m.position, "label": m.label, "effects": _stmts(m.body)} for m in t.marks],
            **_common(t), "line": t.span.line}


def _event_table(t) -> dict:
    return {"id": t.id, "name": t.name, "die": t.die,
            "rows": [{"low": r.low, "high": r.high, "label": r.label, "effects": _stmts(r.body)} for r in t.rows],
            **_common(t), "line": t.span.line}


def _deck(d) -> dict:
    return {"id": d.id, "name": d.name, "suits": [{"name": s.name, "color": s.color} for s in d.suits],
            "ranks": [{"name": r.name, "value": r.value} for r in d.ranks], "hand_limit": d.hand_limit,
            **_common(d), "line": d.span.line}


def to_data(ed: Edition) -> dict:
    """The `rounds` part of the JSON model (schemas/model.schema.json)."""
    r = rules(ed)
    return {
        "stats": [{"id": s.id, "name": s.name, "initial": s.initial_value, "low": s.low, "high": s.high,
                   "line": s.span.line} for s in r.stats.values()],
        "flags": [{"id": f.id, "name": f.name, "initial": f.on, "line": f.span.line} for f in r.flags.values()],
        "choices": [{"id": c.id, "name": c.name, "default": unparse(c.default), "line": c.span.line}
                    for c in r.choices.values()],
        "thresholds": [{"id": t.id, "name": t.name, "when": unparse(t.condition), "effects": _stmts(t.body),
                        "line": t.span.line} for t in r.thresholds.values()],
        "pools": [_pool(p) for p in r.pools.values()],
        "tracks": [_track(t) for t in r.tracks.values()],
        "event_tables": [_event_table(t) for t in r.event_tables.values()],
        "decks": [_deck(d) for d in r.card_decks.values()],
        "setup": _stmts(r.setup.body) if r.setup is not None else None,
        "phases": [{"id": p.id, "name": p.name, "statements": _stmts(p.body), "line": p.span.line}
                   for p in r.phases.values()],
        "ends": [{"when": unparse(e.condition), "text": e.text, "line": e.span.line} for e in r.ends],
    }
