"""The resolved model as JSON-ready data (validated against schemas/model.schema.json).

Expressions are written in their canonical text form; every item carries the file and line
that defined it, so tools reading the JSON can point back at the rulebook.
"""

from __future__ import annotations

from . import describe
from . import fields as item_fields
from .expressions import unparse
from .model import Calamity, Edition, EffectBranch
from .sublanguages import used_by


def _where(span) -> dict:
    return {"path": span.path, "line": span.line}


def _plain(items, *attrs: str) -> list[dict]:
    """Items whose fields are written as they are: {attr: value} for each."""
    return [{a: getattr(x, a) for a in attrs} for x in items]


def _text(expr) -> str | None:
    """An optional expression in its canonical text form (None stays None)."""
    return None if expr is None else unparse(expr)


def _effect(e) -> dict:
    if isinstance(e, EffectBranch):
        return {"if": unparse(e.condition), "then": [_effect(x) for x in e.then],
                "else": [_effect(x) for x in e.otherwise], "line": e.span.line}
    return {"kind": e.kind, "args": {k: unparse(v) for k, v in e.args.items()}, "text": describe.effect(e),
            "line": e.span.line}


def _item(kind: str, obj, encode: dict) -> dict:
    """An item's fields, in the order and under the names of fields.ITEM_FIELDS; `encode` turns
    the fields whose model value is no plain data into data."""
    out = {"name": obj.name}
    for spec in item_fields.ITEM_FIELDS[kind]:
        if not spec.change_only:
            value = getattr(obj, spec.model_attr)
            out[spec.data_key] = encode[spec.key](value) if spec.key in encode else value
    return out


def _secondary(s) -> dict | None:
    return None if not s else {"count": _text(s.count), "share": _text(s.share),
                               "effects": [_effect(e) for e in s.effects], "line": s.span.line}


def _modifier(m) -> dict:
    return {"when": unparse(m.condition), "role": m.role, "priority": m.priority, "advances": m.advances,
            "text": describe.modifier(m), "line": m.span.line,
            "ops": [{"op": o.op, "kind": o.kind, "param": o.param, "amount": _text(o.amount), "per": _text(o.per),
                     "replacement": _text(o.replacement), "each": o.each} for o in m.ops]}


_CALAMITY = {
    "primary": lambda effects: [_effect(e) for e in effects],
    "secondary": _secondary,
    "exclude": lambda xs: [{"role": x.role, "when": _text(x.condition), "line": x.span.line} for x in xs],
    "cancel": lambda cs: [{"when": unparse(e), "line": s.line} for e, s in cs],
    "modifier": lambda ms: [_modifier(m) for m in ms],
    "amounts": lambda a: {k: list(v) for k, v in a.items()},  # this calamity's exceptions
    "resolution": lambda r: {k: list(v) for k, v in r.items()},  # and to the edition's resolution
}


def calamity_data(c: Calamity) -> dict:
    return {**_item("calamity", c, _CALAMITY), "text": describe.calamity(c), **_where(c.span)}


def vocab_amount_settings():
    from .vocabulary import AMOUNT_SETTINGS

    return AMOUNT_SETTINGS


_ADVANCE = {
    "credit": lambda specific: [{"target": s.target, "amount": s.amount} for s in specific],
    "ability": lambda abilities: [{"kind": ab.kind, "args": {k: (v if isinstance(v, (int, str)) else unparse(v))
                                                            for k, v in ab.args.items()},
                                   "text": describe.ability(ab.kind, ab.args)} for ab in abilities],
}


def advance_data(a) -> dict:
    return {**_item("advance", a, _ADVANCE), **_where(a.span)}


def ast_data(t) -> dict:
    return {"id": t.id, "name": t.name, "epochs": [{
        "name": e.name, "requirements": [{"expr": unparse(r.expr), "why": r.why, "line": r.span.line,
                                          "each_step": r.each_step} for r in e.requirements]} for e in t.epochs],
        "backward": [unparse(b) for b, _ in t.backward], "backward_except": [n for n, _ in t.backward_except],
        "spaces": t.spaces, "step_points": t.step_points, "notes": t.notes}


def _civilization(c, ed: Edition) -> dict:
    rows = {"row": lambda rows: {k: {"spaces": r.spaces if r.spaces is not None else ed.asts[k].spaces,
                                     "starts": r.starts} for k, r in rows.items() if k in ed.asts},
            "block_for": lambda pairs: [[block, list(setups)] for block, setups in pairs]}
    return _item("civilization", c, rows)


def _labelled(lines) -> list[dict]:
    return [{"label": p.label, "expr": unparse(p.expr)} for p in lines]


def _start_credits(sc) -> dict | None:
    return None if sc is None else {"amount": unparse(sc.amount), "unless": _text(sc.unless), "once": sc.once,
                                    "doc": sc.doc}


def _off_block(off) -> dict | None:
    return None if off is None else {"value": unparse(off[0]), "when": _text(off[1])}


def to_data(ed: Edition) -> dict:
    """The whole model as JSON-ready data, its parts in a fixed order: the edition, its settings,
    its declarations, its cards and decks, what is asserted and ruled, and each sub-language's part."""
    return {
        "format": "civdsl-model/1",
        "id": ed.id, "name": ed.name, "language": ed.language, "source": ed.source,
        "files": ed.files, "bases": ed.bases,
        **_settings(ed),
        **_declarations(ed),
        **_cards(ed),
        **_rulings(ed),
        "notes": [text for text, _ in ed.notes],
        **{sub.name: sub.to_data(ed) for sub in used_by(ed)},
    }


def _settings(ed: Edition) -> dict:
    return {
        "credit_policy": ed.credit_policy,
        "credit_variants": list(ed.credit_variants),
        # how amounts are bounded and combined (undeclared settings: the language default)
        "amounts": {k: list(ed.amount_setting(k)) for k in vocab_amount_settings()},
        "scenarios": [{"name": n, "doc": d} for n, (d, _) in ed.scenarios.items()],
        "start_credits": _start_credits(ed.start_credits),
        "vp_tiers": _tiers(ed.vp_tiers),
        "vp_tiers_when": {o: _tiers(t) for o, (t, _, _) in ed.vp_tiers_when.items()},
    }


def _tiers(tiers) -> list[dict]:
    return [{"below": b, "vp": v} for b, v in tiers]


def _declarations(ed: Edition) -> dict:
    return {
        "groups": _plain(ed.groups.values(), "id", "name", "color", "symbol"),
        "consts": [{"id": c.id, "value": c.value, "expr": unparse(c.expr), "doc": c.doc} for c in ed.consts.values()],
        "tables": [_table(t) for t in ed.tables.values()],
        "options": _plain(ed.options.values(), "id", "doc", "on"),
        "advances": [advance_data(a) for a in ed.advances.values()],
        "calamities": [calamity_data(c) for c in ed.calamities.values()],
        "asts": [ast_data(t) for t in ed.asts.values()],
        "civilizations": [_civilization(c, ed) for c in ed.civilizations.values()],
        "score": _score(ed.score),
    }


def _table(t) -> dict:
    return {"id": t.id, "doc": t.doc, "bands": [{"low": b.low, "high": b.high, "value": unparse(b.value)}
                                                for b in t.bands]}


def _score(score) -> dict | None:
    return None if score is None else {"points": _labelled(score.points), "tiebreaks": _labelled(score.tiebreaks)}


def _cards(ed: Edition) -> dict:
    """The commodities, the values of sets, abilities, the decks and their set-ups."""
    return {
        "commodities": [_item("commodity", c, {"block_when": lambda v: [{"when": o.dotted, "block": b} for o, b in v]})
                        for c in ed.commodities.values()],
        "set_value": _text(ed.set_value),
        "set_value_off_block": _off_block(ed.set_value_off_block),
        "abilities": [{"kind": ab.kind, "args": dict(ab.args), "doc": doc} for ab, doc in ed.abilities],
        "decks": _plain(sorted(ed.decks.values(), key=lambda d: d.stack), "stack", "size"),
        "setup_players": [{"setup": n, "low": lo, "high": hi, "doc": doc}
                          for n, (lo, hi, doc, _) in ed.setup_players.items()],
        "trade_decks": [_trade_deck(d) for d in ed.trade_decks.values()],
    }


def _trade_deck(d) -> dict:
    return {"name": d.name, "players": {"low": d.low, "high": d.high}, "block": d.block,
            "stacks": [{"stack": n, "layers": [{"cards": [{"card": c, "count": k} for c, k, _ in layer.cards],
                                                "clear": layer.clear} for layer in layers]}
                       for n, layers in d.stacks.items()]}


def _rulings(ed: Edition) -> dict:
    """What the rulebook asserts, corrects, rules, overrules and holds as laws."""
    return {
        "asserts": [{"expr": unparse(a.expr), "message": a.message} for a in ed.asserts],
        "errata": _plain(ed.errata, "code", "item", "reason"),
        "rulings": [{"name": r.name, "question": r.question, "calls": [unparse(c) for c in r.calls]}
                    for r in ed.rulings.values()],
        "overrules": [{"name": o.name, "why": o.why} for o in ed.overrules.values()],
        "laws": [{"name": x.name, "text": x.text, "calls": [unparse(c) for c in x.calls]} for x in ed.laws.values()],
        "dropped_laws": [{"name": d.name, "why": d.why} for d in ed.dropped_laws.values()],
    }
