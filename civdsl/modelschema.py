"""The JSON Schema of the compiled model (schemas/model.schema.json), as `civdsl build` writes it.

Each item kind's part derives from its rows in fields.ITEM_FIELDS (a field's value shape, range,
or declared `schema`; null allowed where the model's attribute is None until an item gives it),
and the `amounts` settings and credit policies from vocabulary.py. The rest of the edition's
keys are written here, in the order serialize.py writes them; tests validate every shipped
rulebook's model against the result.
"""

from __future__ import annotations

import dataclasses

from . import fields as item_fields
from .model import ITEM_CLASSES
from .vocabulary import AMOUNT_SETTINGS, CREDIT_POLICIES, CREDIT_VARIANTS

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}
MAYBE_STRING = {"type": ["string", "null"]}
MAYBE_INTEGER = {"type": ["integer", "null"]}


def _record(properties: dict, optional=(), **extra) -> dict:
    """An object with exactly these keys, every one present unless `optional`."""
    return {"type": "object", **extra, "properties": properties,
            "required": [k for k in properties if k not in optional], "additionalProperties": False}


def _list(items: dict, **extra) -> dict:
    return {"type": "array", "items": items, **extra}


# Each item kind's key in the model's data, and what serialize.py writes for an item besides its
# fields (its name first; where it is declared; a calamity's text).
ITEM_KEYS = {"advance": "advances", "calamity": "calamities", "civilization": "civilizations",
             "commodity": "commodities"}
_BEFORE = {"name": STRING}
_AFTER = {
    "advance": {"path": STRING, "line": INTEGER},
    "calamity": {"text": STRING, "path": STRING, "line": INTEGER},
    "civilization": {},
    "commodity": {},
}

# The parts of items that fields.ITEM_FIELDS rows refer to (`{"$ref": "#/$defs/..."}`).
_ITEM_DEFS = {
    "ability": _record({"kind": STRING, "args": {"type": "object"}, "text": STRING}),
    "secondary": _record({"count": MAYBE_STRING, "share": MAYBE_STRING, "effects": _list({"$ref": "#/$defs/effect"}),
                          "line": INTEGER}),
    "modifier": _record({
        "when": STRING,
        "role": {"enum": ["any", "primary", "secondary"]},
        "priority": INTEGER,
        "advances": _list(STRING),
        "text": STRING,
        "line": INTEGER,
        "ops": _list(_record({
            "op": {"enum": ["add", "prevent", "set", "cap", "immune", "cancel", "option", "stop"]},
            "kind": MAYBE_STRING, "param": MAYBE_STRING, "amount": MAYBE_STRING, "per": MAYBE_STRING,
            "replacement": MAYBE_STRING, "each": BOOLEAN})),
    }),
}

_SKELETON = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://civdsl.invalid/schemas/model.schema.json",
    "title": "civdsl compiled rulebook model",
    "description": "A rulebook after name resolution and validation (civdsl build writes it as "
                   "generated/<id>/model.json).",
    "$defs": {
        "effect": {
            "oneOf": [
                _record(
                    {
                        "kind": STRING,
                        "args": {"type": "object", "additionalProperties": STRING},
                        "text": STRING,
                        "line": INTEGER,
                    },
                ),
                _record(
                    {
                        "if": STRING,
                        "then": _list({"$ref": "#/$defs/effect"}),
                        "else": _list({"$ref": "#/$defs/effect"}),
                        "line": INTEGER,
                    },
                ),
            ],
        },
    },
    "type": "object",
    "properties": {
        "format": {"const": "civdsl-model/1"},
        "id": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        "name": STRING,
        "language": INTEGER,
        "source": MAYBE_STRING,
        "files": _list(STRING),
        "bases": _list(STRING),
        "credit_policy": {"enum": [*CREDIT_POLICIES, None]},
        "credit_variants": _list({"enum": list(CREDIT_VARIANTS)}),
        "amounts": None,
        "scenarios": _list(_record({"name": STRING, "doc": MAYBE_STRING})),
        "start_credits": {
            "oneOf": [
                {"type": "null"},
                _record({"amount": STRING, "unless": MAYBE_STRING, "once": BOOLEAN, "doc": MAYBE_STRING}),
            ],
        },
        "vp_tiers": _list(_record({"below": MAYBE_INTEGER, "vp": INTEGER})),
        "vp_tiers_when": {
            "description": "`vp tiers when OPTION`: the tiers while each rule option is on",
            "type": "object",
            "additionalProperties": _list(_record({"below": MAYBE_INTEGER, "vp": INTEGER})),
        },
        "groups": _list(_record({"id": STRING, "name": STRING, "color": MAYBE_STRING, "symbol": MAYBE_STRING})),
        "consts": _list(_record({"id": STRING, "value": {}, "expr": STRING, "doc": MAYBE_STRING})),
        "tables": _list(
            _record(
                {
                    "id": STRING,
                    "doc": MAYBE_STRING,
                    "bands": _list(_record({"low": INTEGER, "high": MAYBE_INTEGER, "value": STRING})),
                },
            ),
        ),
        "options": _list(_record({"id": STRING, "doc": MAYBE_STRING, "on": BOOLEAN})),
        "advances": None,
        "calamities": None,
        "asts": _list(
            _record(
                {
                    "id": STRING,
                    "name": STRING,
                    "epochs": _list(
                        _record(
                            {
                                "name": STRING,
                                "requirements": _list(
                                    _record(
                                        {
                                            "expr": STRING,
                                            "why": MAYBE_STRING,
                                            "line": INTEGER,
                                            "each_step": BOOLEAN,
                                        },
                                    ),
                                ),
                            },
                        ),
                    ),
                    "backward": _list(STRING),
                    "notes": _list(STRING),
                    "backward_except": _list(STRING),
                    "spaces": MAYBE_INTEGER,
                    "step_points": MAYBE_INTEGER,
                },
            ),
        ),
        "civilizations": None,
        "score": {
            "oneOf": [
                {"type": "null"},
                _record(
                    {
                        "points": _list(_record({"label": STRING, "expr": STRING})),
                        "tiebreaks": _list(_record({"label": STRING, "expr": STRING})),
                    },
                ),
            ],
        },
        "commodities": None,
        "set_value": MAYBE_STRING,
        "set_value_off_block": {"oneOf": [{"type": "null"}, _record({"value": STRING, "when": MAYBE_STRING})]},
        "abilities": _list(_record({"kind": STRING, "args": {"type": "object"}, "doc": MAYBE_STRING})),
        "decks": _list(_record({"stack": INTEGER, "size": INTEGER})),
        "trade_decks": _list(
            _record(
                {
                    "name": STRING,
                    "players": _record({"low": INTEGER, "high": MAYBE_INTEGER}),
                    "block": MAYBE_STRING,
                    "stacks": _list(
                        _record(
                            {
                                "stack": INTEGER,
                                "layers": _list(
                                    _record(
                                        {
                                            "cards": _list(_record({"card": STRING, "count": INTEGER})),
                                            "clear": {"type": ["integer", "string", "null"]},
                                        },
                                    ),
                                ),
                            },
                        ),
                    ),
                },
            ),
            description="trade-card decks by player count (`trade_deck`): each stack's layers from the top",
        ),
        "setup_players": _list(
            _record({"setup": STRING, "low": INTEGER, "high": INTEGER, "doc": MAYBE_STRING}),
            description="set-ups whose player counts are declared (`setups \"NAME\" for LOW..HIGH`)",
        ),
        "asserts": _list(_record({"expr": STRING, "message": STRING})),
        "errata": _list(
            _record({"code": {"type": "string", "pattern": "^CIV[0-9]{3}$"}, "item": STRING, "reason": STRING}),
        ),
        "notes": _list(STRING),
        "rulings": _list(
            _record({"name": STRING, "question": STRING, "calls": _list(STRING)}),
            description="Worked examples and community answers (`ruling`), each the calls of its block as written.",
        ),
        "laws": _list(
            _record({"name": STRING, "text": STRING, "calls": _list(STRING)}),
            description="Properties of the rules over every situation (`law`), each the calls of its block as written.",
        ),
        "dropped_laws": _list(
            _record({"name": STRING, "why": STRING}),
            description="Inherited laws a house rule breaks on purpose (`drop law`).",
        ),
        "overrules": _list(
            _record({"name": STRING, "why": STRING}),
            description="Inherited rulings whose answer a house rule changes on purpose (`overrules`).",
        ),
    },
    "required": [
        "format",
        "id",
        "name",
        "language",
        "source",
        "files",
        "bases",
        "credit_policy",
        "credit_variants",
        "scenarios",
        "start_credits",
        "vp_tiers",
        "groups",
        "consts",
        "tables",
        "options",
        "advances",
        "calamities",
        "asts",
        "civilizations",
        "score",
        "commodities",
        "set_value",
        "set_value_off_block",
        "abilities",
        "decks",
        "asserts",
        "errata",
        "notes",
    ],
    "additionalProperties": True,
}



def _amounts() -> dict:
    """The `amounts { ... }` settings, edition-wide or a calamity's own: each setting's values."""
    properties = {}
    for name, (allowed, _default, doc) in AMOUNT_SETTINGS.items():
        if allowed == "const":
            properties[name] = _list(STRING, maxItems=1, description=doc)
        else:
            properties[name] = _list({"enum": list(allowed)})
    words = ", ".join(f"{name} ({'|'.join(allowed) if allowed != 'const' else 'a constant'})"
                      for name, (allowed, _default, _doc) in AMOUNT_SETTINGS.items())
    return {"type": "object", "description": f"amounts settings: {words}", "properties": properties,
            "additionalProperties": False}


def _nullable(kind: str, attr: str) -> bool:
    """Whether the model holds None in `attr` for an item that does not give the field."""
    found = next(f for f in dataclasses.fields(ITEM_CLASSES[kind]) if f.name == attr)
    return found.default is None


def item_schema(kind: str) -> dict:
    """The JSON Schema of one item of `kind` in the model's data."""
    properties = dict(_BEFORE)
    for spec in item_fields.ITEM_FIELDS[kind]:
        if not spec.change_only:
            properties[spec.data_key] = spec.schema_fragment(_nullable(kind, spec.model_attr))
    properties.update(_AFTER[kind])
    return _record(properties)


def model_schema() -> dict:
    """schemas/model.schema.json."""
    schema = {**_SKELETON, "$defs": {**_SKELETON["$defs"], **_ITEM_DEFS, "amounts": _amounts()},
              "properties": dict(_SKELETON["properties"])}
    schema["properties"]["amounts"] = {"$ref": "#/$defs/amounts"}
    for kind, key in ITEM_KEYS.items():
        schema["properties"][key] = _list(item_schema(kind))
    return schema
