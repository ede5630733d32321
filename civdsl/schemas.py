"""JSON Schemas: the compiled model (schemas/model.schema.json) and the player state
(schemas/state.schema.json, derived from vocabulary.FACTS and kept in sync by a test), and the table
of `civdsl table` (schemas/table.schema.json: players are player states)."""

from __future__ import annotations

import json
from functools import lru_cache

from .resources import schemas_dir


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    return json.loads((schemas_dir() / name).read_text(encoding="utf-8"))


def validate_model(edition) -> list[str]:
    """Problems found validating the serialised model against its schema (empty when valid)."""
    import jsonschema

    from .serialize import to_data

    validator = jsonschema.Draft202012Validator(load_schema("model.schema.json"))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in sorted(validator.iter_errors(to_data(edition)), key=lambda e: list(map(str, e.absolute_path)))]


def validate_state(data: dict) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema("state.schema.json"))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(data)]


def validate_table(data: dict) -> list[str]:
    """Problems found validating a table file's data against schemas/table.schema.json."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema("table.schema.json"))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(data)]
