"""The player's situation: reading a state file, `--holds` and `--set` values, and the texts its
messages are made of. The facts are checked against vocabulary.FACTS (the same table
schemas/state.schema.json is derived from) by statecheck.py, which the page runs too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from . import vocabulary as vocab
from .errors import StateError  # re-exported: `civdsl.state.StateError`
from .texts import casefolded, hint_text, nfc, short_text, split_names, value_text  # re-exported

MAX_STATE_BYTES = 1_000_000


def _shown(path) -> str:
    """A state file's name in a message, quoted as git quotes names (escape.shown_name); loaded only
    for a message, so answering a question never imports the escaping of the output formats."""
    from .escape import shown_name

    return shown_name(path)


def parse_yaml(path: Path) -> dict:
    """A state (or table) file's mapping: read within the limits, decoded, parsed by the one
    YAML reader; every problem a StateError located in the file."""
    data = _parse_text(_decode(_read_limited(path), path), path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise StateError(f"{_shown(path)}: a state file is a mapping of facts (key: value), not a {type(data).__name__}")
    return data


def _read_limited(path: Path) -> bytes:
    """The bytes of a regular file, never more than the limit read (and no blocking on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise StateError(f"{_shown(path)}: cannot read the state file: not a regular file")
            raw = fh.read(MAX_STATE_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise StateError(f"{_shown(path)}: cannot read the state file: {getattr(exc, 'strerror', None) or exc}") from None
    if len(raw) > MAX_STATE_BYTES:
        raise StateError(f"{_shown(path)}: the state file is larger than {MAX_STATE_BYTES:,} bytes")
    return raw


def not_utf8_at(raw: bytes, exc: UnicodeDecodeError) -> tuple[int, int]:
    """The line and column of the first byte of RAW that is not UTF-8 (EXC, its decoding error)."""
    before = raw[: exc.start].decode("utf-8", errors="replace")
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def _decode(raw: bytes, path: Path) -> str:
    """The file's text; a byte that is not UTF-8 is located by line and column."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = not_utf8_at(raw, exc)
        raise StateError(f"{_shown(path)}:{line}:{column}: the state file is not valid UTF-8 "
                         f"(byte 0x{raw[exc.start]:02x})") from None


def _parse_text(text: str, path: Path):
    """The YAML value of the file's text, read by `safeyaml` (the one way YAML is read), or the
    value kept in the cache folder for the same text by the same compiler, as JSON in the same
    order: a question asked again of an unchanged state or table file does not load the YAML
    reader."""
    import json

    from . import cache

    name = f"yaml-{cache.text_key(text)}.json"
    kept = cache.read_json(name)
    if isinstance(kept, dict) and "value" in kept:
        return kept["value"]
    value = _read_yaml(text, path)
    if len(text) <= KEPT_TEXT and _json_exact(value):
        cache.write(name, json.dumps({"value": value}).encode("utf-8"))  # keys in the file's order
    return value


# The longest text whose YAML value is kept: state and table files are a few hundred bytes; a game
# file read whole (not as the ledger writes it) changes every turn, and a copy of each version
# would make the cache folder grow with the square of the game.
KEPT_TEXT = 64 * 1024


def _json_exact(value, depth: int = 0) -> bool:
    """Whether JSON gives back exactly this value (mappings with text keys, lists, text, whole
    numbers, finite numbers, true/false, null): a date, a number key or an infinity is not kept.
    A value nested deeper than a state file needs is not kept either (it is read again)."""
    if depth > 50:
        return False
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if type(value) is list:
        return all(_json_exact(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _json_exact(v, depth + 1) for k, v in value.items())
    return False


def _read_yaml(text: str, path: Path):
    """The file's text read by `safeyaml`, every problem a StateError located in the file."""
    import yaml  # only when a state file is read afresh

    from . import safeyaml

    try:
        return safeyaml.load(text)
    except safeyaml.YAMLLimitError as exc:
        raise StateError(f"{_shown(path)}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{_shown(path)}:{mark.line + 1}:{mark.column + 1}" if mark else _shown(path)
        raise StateError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    except RecursionError:
        raise StateError(f"{_shown(path)}: the state file is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise StateError(f"{_shown(path)}: not a usable value: {short_text(str(exc))}") from None


def facts_from(state_file: str | Path | None, sets: tuple[str, ...] | list[str] = (),
               options: tuple[str, ...] | list[str] = ()) -> dict:
    """The facts of a state file (if any) overridden by `--set key=value` assignments; rule
    switches (`options:` in the file, `--option NAME=on|off`) under "options"."""
    facts: dict = parse_yaml(Path(state_file)) if state_file else {}
    for item in sets:
        _set_fact(facts, item)
    if options:
        facts["options"] = _switched(facts.get("options"), options)
    return facts


def _set_fact(facts: dict, item: str) -> None:
    """One `--set NAME=VALUE`, or `--set commodities.Grain=2`: one entry of a map fact, the rest
    of the map kept."""
    key, value = parse_assignment(item)
    head, dot, entry = key.partition(".")
    if not dot:
        facts[key] = value
        return
    if not head or not entry:
        raise StateError(f"--set {item!r}: write NAME=VALUE, or NAME.KEY=VALUE for an entry of a map")
    current = facts.get(head, {})
    if not isinstance(current, dict):
        raise StateError(f"--set {item!r}: `{head}` is not a map (it is {value_text(current)})")
    facts[head] = {**current, entry: value}


def _switched(given, options) -> dict:
    """The rule switches of the state file (GIVEN) with `--option NAME=on|off` ones over them."""
    chosen = dict(given) if isinstance(given, dict) else {}
    for item in options:
        name, sep, value = item.partition("=")
        if not sep or value.strip().lower() not in ("on", "off"):
            raise StateError(f"--option {item!r}: write NAME=on or NAME=off")
        chosen[name.strip()] = value.strip().lower() == "on"
    return chosen


def parse_assignment(text: str) -> tuple[str, object]:
    """`--set key=value`: integers, true/false, or text."""
    if "=" not in text:
        raise StateError(f"--set {text!r}: write key=value")
    key, value = text.split("=", 1)
    key, value = key.strip(), value.strip()
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    try:
        return key, int(value)
    except ValueError:
        return key, value


# the JSON Schema of a fact's value, by its vocabulary type
_FACT_SCHEMAS = {
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "list": {"type": "array", "items": {"type": "string"}},
    "map": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
}


def state_schema() -> dict:
    """JSON Schema of a player state file, derived from vocabulary.FACTS."""
    props = {}
    for f in vocab.FACTS.values():
        p = dict(_FACT_SCHEMAS[f.type])
        if f.type == "int" and f.minimum is not None:
            p["minimum"] = f.minimum
        p["description"] = f.doc
        props[f.name] = p
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://civdsl.invalid/schemas/state.schema.json",
        "title": "civdsl player state",
        "description": "The facts about one player that calamities, epochs and scoring read.",
        "type": "object",
        "additionalProperties": False,
        "properties": props,
    }
