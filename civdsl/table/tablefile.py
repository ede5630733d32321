"""The table: every player at once, for the calamity phase (`civdsl table`).

A table file (YAML, schema `schemas/table.schema.json`) names the players, each with the same
facts as a player state (loaded by `Rulebook.state`, so start credits, hand limits and every
check behave as in a one-player question), who borders whom, and this turn's calamities: who
holds which at the end of trading, who traded it to him, and the primary victim's choices
(secondary victims, a beneficiary he picks). Checked by hand, like the state file, so that
answering does not import jsonschema; every problem names the place in the file and the
closest valid name.
"""

from __future__ import annotations

from pathlib import Path

from .. import vocabulary as vocab
from ..errors import StateError
from ..state import hint_text, short_text, value_text, parse_yaml
from ..statecheck import first_problems, key_text, whole_number
from .seating import Table

TABLE_KEYS = {
    "players": "the players: a name each and the facts of a player state",
    "borders": "who borders whom, by relation (land, water, near): a list of pairs of player names",
    "calamities": "this turn's calamities: calamity, victim (who holds it), traded_by, secondary, beneficiary",
    "options": "rule switches the rulebook declares, on or off, for every player",
}
PLAYER_KEYS = {
    "name": "the player's name, unique at the table",
    "ast_rank": "the player's place in the A.S.T. ranking (1 first); else the rank of the player's civilization",
}
CALAMITY_KEYS = {
    "calamity": "the calamity's name (any name the rulebook declares for it)",
    "victim": "the player who holds it at the end of trading: its primary victim",
    "traded_by": "the player who last traded it to the victim (absent: the victim drew it)",
    "secondary": "the primary victim's secondary victims: a list of names, or name: amount assigned",
    "beneficiary": "the player the victim names where the rules let him choose (a nominee, a tie he breaks)",
}
# these need no list: `others` and `everyone` are every player, fact relations come from the players' facts
RELATIONS = tuple(r for r in vocab.RELATIONS if r not in ("others", "everyone") and r not in vocab.FACT_RELATIONS)


def load_table(rulebook, path: str | Path | None = None, data: dict | None = None,
               options: tuple[str, ...] | list[str] = ()) -> Table:
    """A table file (or its data), checked against the rulebook: every problem at once, each
    located as `FILE: players[2] (bob): ...`, like a state file's."""
    source = str(path) if path is not None else "table"
    if data is None:
        data = parse_yaml(Path(path))
    problems = _unknown_keys(data, TABLE_KEYS, source)
    table_options = _table_options(rulebook, data.get("options") or {}, options, source, problems)
    players, ranks = _players(rulebook, data.get("players"), source, table_options, problems)
    named = _names_given(data.get("players"))
    borders = _borders(data.get("borders"), named, source, problems)
    calamities = _calamities(rulebook, data.get("calamities"), named, source, problems)
    if problems:
        raise StateError("\n".join(first_problems(problems)))
    return Table(rulebook, players, ranks, borders, calamities, table_options)


def _names_given(players) -> list[str]:
    """Every name the table file gives a player (his facts wrong or not), so that one mistake is
    reported once, not again wherever the player is named."""
    if not isinstance(players, list):
        return []
    return [p["name"] for p in players if isinstance(p, dict) and isinstance(p.get("name"), str)]


def _unknown_keys(mapping: dict, known: dict, where: str) -> list[str]:
    """A problem for each key of MAPPING that is not one of KNOWN, with the closest known one."""
    out = []
    for key in mapping:
        if isinstance(key, str) and key in known:
            continue
        out.append(f"{where}: unknown key `{key_text(key)}`{hint_text(key, known)}")
    return out


def _table_options(rulebook, given, switched, source: str, problems: list) -> dict:
    """The rule switches of the whole table: the file's `options`, overridden by the command
    line's `--option` ones (SWITCHED), checked against the rulebook's declared options."""
    if switched:
        from ..state import facts_from

        given = {**(given if isinstance(given, dict) else {}), **facts_from(None, (), switched)["options"]}
    try:
        rulebook.options(given, f"{source}: options")
    except StateError as exc:
        problems.append(str(exc))
        return {}
    return given


def _name_problem(name, players: list, where: str, what: str = "player") -> str | None:
    if not isinstance(name, str) or not name:
        return f"{where}: a {what} is named by text, not {value_text(name)}"
    if name not in players:
        return f"{where}: unknown player `{short_text(name)}`{hint_text(name, players)}"
    return None


def _whole(value, least: int) -> bool:
    """VALUE is a whole number (not a yes/no) of at least LEAST."""
    return whole_number(value) and value >= least


def _players(rulebook, given, source: str, options: dict, problems: list) -> tuple[dict, dict]:
    if not isinstance(given, list) or not given:
        problems.append(f"{source}: `players` must be a list of players, each a mapping with a `name`")
        return {}, {}
    players, ranks = {}, {}
    for i, entry in enumerate(given):
        where = f"{source}: players[{i}]"
        problem = _player_entry_problem(entry, players, where)
        if problem:
            problems.append(problem)
            continue
        where = f"{where} ({short_text(entry['name'])})"
        try:
            players[entry["name"]] = _player_state(rulebook, entry, len(given), options, where)
        except StateError as exc:
            problems.append(str(exc))
            continue
        ranks[entry["name"]] = _rank(rulebook, entry, players[entry["name"]], where, problems)
    return players, ranks


def _player_entry_problem(entry, players: dict, where: str) -> str | None:
    """What is wrong with a player's entry before his facts are read: not a mapping, no name, or
    the name of a player before him."""
    if not isinstance(entry, dict):
        return f"{where}: a player is a mapping of facts with a `name`, not {value_text(entry)}"
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        return f"{where}: every player needs a `name` (text)"
    if name in players:
        return f"{where} ({short_text(name)}): a second player named `{short_text(name)}`"
    return None


def _player_state(rulebook, entry: dict, count: int, options: dict, where: str):
    """A player's state, loaded as a one-player state is: his facts, the table's player COUNT
    unless he says otherwise, and the table's OPTIONS under his own."""
    facts = {k: v for k, v in entry.items() if k not in PLAYER_KEYS}
    facts.setdefault("players", count)
    own = facts.get("options")
    facts["options"] = {**options, **own} if isinstance(own, dict) else options if own is None else own
    return rulebook.state((), facts, where)


def _rank(rulebook, entry: dict, state, where: str, problems: list) -> int | None:
    """A player's A.S.T. rank: the table's `ast_rank`, else his civilization's, else None."""
    rank = entry.get("ast_rank")
    if rank is not None and not _whole(rank, 1):
        problems.append(f"{where}: `ast_rank` must be a whole number from 1, not {value_text(rank)}")
        rank = None
    if rank is not None:
        return rank
    civ = state.facts.get("civilization")
    return getattr(rulebook.module, "CIVILIZATIONS", {}).get(civ, {}).get("rank") if civ else None


def _borders(given, players: list, source: str, problems: list) -> dict:
    if given is None:
        return {}
    if not isinstance(given, dict):
        problems.append(f"{source}: `borders` must be a mapping of relation: list of [player, player] pairs")
        return {}
    out: dict = {}
    for relation, pairs in given.items():
        where = f"{source}: borders.{key_text(relation)}"
        if relation not in RELATIONS:
            problems.append(f"{where}: unknown relation{hint_text(relation, RELATIONS)} (relations: {', '.join(RELATIONS)})")
        elif not isinstance(pairs, list):
            problems.append(f"{where}: a list of [player, player] pairs")
        else:
            out[relation] = _links(pairs, players, where, problems)
    return out


def _links(pairs: list, players: list, where: str, problems: list) -> dict[str, set]:
    """One relation's pairs of players, both ways: name -> the names it borders."""
    links: dict[str, set] = {}
    for j, pair in enumerate(pairs):
        bad = _pair_problems(pair, players, f"{where}[{j}]")
        if bad:
            problems.extend(bad)
            continue
        a, b = pair
        links.setdefault(a, set()).add(b)
        links.setdefault(b, set()).add(a)
    return links


def _pair_problems(pair, players: list, where: str) -> list[str]:
    """What is wrong with one border: not a pair, an unknown name, a player bordering himself."""
    if not (isinstance(pair, list) and len(pair) == 2):
        return [f"{where}: a pair of player names, not {value_text(pair)}"]
    bad = [p for p in (_name_problem(n, players, where) for n in pair) if p]
    if not bad and pair[0] == pair[1]:
        bad.append(f"{where}: a player does not border himself")
    return bad


def _calamities(rulebook, given, players: list, source: str, problems: list) -> list:
    if given is None:
        return []
    if not isinstance(given, list):
        problems.append(f"{source}: `calamities` must be a list of calamities, each a mapping with "
                        "`calamity` and `victim`")
        return []
    out = []
    for i, entry in enumerate(given):
        where = f"{source}: calamities[{i}]"
        if not isinstance(entry, dict):
            problems.append(f"{where}: a mapping with `calamity` and `victim`, not {value_text(entry)}")
            continue
        problems += _unknown_keys(entry, CALAMITY_KEYS, where)
        name = _calamity_name(rulebook, entry.get("calamity"), where, problems)
        if name is not None:
            out.append(_calamity(rulebook, i, name, entry, players, f"{where} ({name})", problems))
    return out


def _calamity_name(rulebook, name, where: str, problems: list) -> str | None:
    """The calamity's own name for any name the rulebook declares for it; None (and a problem)
    for anything else."""
    if not isinstance(name, str):
        problems.append(f"{where}: `calamity` names the calamity (text)")
        return None
    try:
        return rulebook.calamity_name(name)
    except StateError as exc:
        problems.append(f"{where}: {exc}")
        return None


def _calamity(rulebook, i: int, name: str, entry: dict, players: list, where: str, problems: list) -> dict:
    """One calamity drawn this turn: its players checked (the victim, the trader, the beneficiary
    named, the secondary victims)."""
    victim, trader = entry.get("victim"), entry.get("traded_by")
    named_badly = _role_problems(entry, players, where)
    problems += named_badly.values()
    if not ({"victim", "traded_by"} & named_badly.keys()) and trader is not None and trader == victim:
        problems.append(f"{where}: `traded_by` is the victim himself (leave it out for a card he drew)")
    klass = rulebook.calamities[name]["class"]
    if trader is not None and not klass.endswith(" tradable") and klass != "minor":
        problems.append(f"{where}: `traded_by` is given, but {name} is not tradable")
    secondary = _secondary(entry.get("secondary"), players, victim, where, problems)
    return {"index": i, "calamity": name, "victim": victim, "traded_by": trader,
            "secondary": secondary, "beneficiary": entry.get("beneficiary")}


def _role_problems(entry: dict, players: list, where: str) -> dict[str, str]:
    """The players a calamity names (its victim always, the trader and beneficiary if given) that
    are not the table's: role -> problem."""
    out = {}
    for key in ("victim", "traded_by", "beneficiary"):
        value = entry.get(key)
        if value is None and key != "victim":
            continue
        problem = _name_problem(value, players, f"{where}: `{key}`")
        if problem:
            out[key] = problem
    return out


def _secondary(given, players: list, victim, where: str, problems: list):
    """The victim's assignment: None (not given), or [(name, amount or None)] in the file's order."""
    if given is None:
        return None
    given = _as_mapping(given)
    if not isinstance(given, dict):
        problems.append(f"{where}: `secondary` is a list of player names, or a mapping of name: amount assigned")
        return None
    out = []
    for name, amount in given.items():
        problem = _secondary_problem(name, amount, players, victim, where)
        if problem:
            problems.append(problem)
        else:
            out.append((name, amount))
    return out


def _as_mapping(given):
    """A list of distinct names as the mapping name: None (no amount said); anything else as it is."""
    if isinstance(given, list) and all(isinstance(n, str) for n in given) and len(set(given)) == len(given):
        return dict.fromkeys(given)
    return given


def _secondary_problem(name, amount, players: list, victim, where: str) -> str | None:
    """What is wrong with one secondary victim named by the table: not a player, the primary
    victim himself, or an amount that is not a whole number."""
    problem = _name_problem(name, players, f"{where}: `secondary`")
    if problem:
        return problem
    if name == victim:
        return f"{where}: `secondary` names the primary victim `{name}`"
    if amount is not None and not _whole(amount, 0):
        return f"{where}: `secondary.{name}` must be a whole number from 0, not {value_text(amount)}"
    return None


def table_schema() -> dict:
    """JSON Schema of a table file: a player is a player state (schemas/state.schema.json, derived
    from vocabulary.FACTS) with a name and an A.S.T. rank."""
    from ..state import state_schema

    player = state_schema()
    props = {"name": {"type": "string", "minLength": 1, "description": PLAYER_KEYS["name"]},
             "ast_rank": {"type": "integer", "minimum": 1, "description": PLAYER_KEYS["ast_rank"]},
             **player["properties"],
             "options": {"type": "object", "additionalProperties": {"enum": [True, False, "on", "off"]},
                         "description": "rule switches for this player (the table's `options` apply to everyone)"}}
    pair = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://civdsl.invalid/schemas/table.schema.json",
        "title": "civdsl table",
        "description": "Every player at the table and this turn's calamities, for `civdsl table`.",
        "type": "object",
        "additionalProperties": False,
        "required": ["players"],
        "properties": {
            "players": {"type": "array", "minItems": 1, "description": TABLE_KEYS["players"],
                        "items": {"type": "object", "additionalProperties": False, "required": ["name"],
                                  "properties": props}},
            "borders": {"type": "object", "additionalProperties": False, "description": TABLE_KEYS["borders"],
                        "properties": {r: {"type": "array", "items": pair, "description": vocab.RELATIONS[r]}
                                       for r in RELATIONS}},
            "calamities": {"type": "array", "description": TABLE_KEYS["calamities"], "items": {
                "type": "object", "additionalProperties": False, "required": ["calamity", "victim"],
                "properties": {
                    "calamity": {"type": "string", "description": CALAMITY_KEYS["calamity"]},
                    "victim": {"type": "string", "description": CALAMITY_KEYS["victim"]},
                    "traded_by": {"type": "string", "description": CALAMITY_KEYS["traded_by"]},
                    "beneficiary": {"type": "string", "description": CALAMITY_KEYS["beneficiary"]},
                    "secondary": {"description": CALAMITY_KEYS["secondary"], "oneOf": [
                        {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}]},
                }}},
            "options": {"type": "object", "description": TABLE_KEYS["options"],
                        "additionalProperties": {"enum": [True, False, "on", "off"]}},
        },
    }

