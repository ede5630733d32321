"""The game file: the edition, the players and the events, in YAML (schemas/game.schema.json),
read by the one YAML reader (safeyaml, through state.parse_yaml's limits), checked by hand so that
every problem names its place, and written atomically, one event a line, so that a file written
twice from the same game is the same bytes and a refused event leaves it untouched."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import StateError
from ..sourcemap import rules_of
from ..startcredits import start_credits
from .events import EVENT_FIELDS
from .play import Refused
from .turn import Ledger
from .players import Player
from .reads import Memo

FORMAT = 1
TOP_KEYS = {
    "civdsl_game": "the game file format (1)",
    "edition": "the rulebook: a shipped edition id or a path to a house rule",
    "players": "the players in seat order: name and civilization",
    "options": "rule switches the rulebook declares, on or off",
    "ast_track": "the A.S.T. track played, where the rulebook has several",
    "last_turn": "the last turn the players agreed, where the edition lets the game end on one",
    "seed": "the seed of every random choice the rules make (calamities discarded at random)",
    "events": "the events in order, each with its turn, step and what happened",
}
PLAYER_KEYS = ("name", "civilization")
EVENT_KEYS = {k for k, _ in EVENT_FIELDS}  # every key an event may have (events.EVENT_FIELDS)
MAX_PLAYERS = 64
MAX_EVENTS = 100_000


class GameFileError(StateError):
    """A game file that cannot be read: `line` is where in the file, when known."""

    def __init__(self, message: str, line: int | None = None, code: str = "CIV144"):
        super().__init__(message)
        self.line = line
        self.code = code


@dataclass
class GameFile:
    setup: dict
    events: list[dict]
    lines: list[int | None] = field(default_factory=list)  # the line of each event in the file


def read(path: Path) -> GameFile:
    from ..state import _decode, _parse_text, _read_limited

    try:
        text = _decode(_read_limited(Path(path)), Path(path))
        written = _as_written(text, path)
        data = _parse_text(text, Path(path)) if written is None else None
    except StateError as exc:  # the reader's limits are a state file's: the words are this file's
        message = str(exc).removeprefix(f"{path}: ").replace("state file", "game file")
        raise GameFileError(message.replace("mapping of facts (key: value)", "mapping of its keys")) from None
    if written is not None:
        return checked(*written)
    return checked(data if data is not None else {}, _event_lines(text))


_EVENTS_HEAD = "\nevents:\n"


def _as_written(text: str, path) -> tuple[dict, list[int]] | None:
    """A file as `write` lays it out, read fast: the set-up by the YAML reader, each event line
    (`  - {...}`, JSON, which YAML reads alike) by the JSON reader; None when the file has any
    other form (then the YAML reader reads all of it). A number JSON and YAML could read apart
    (a float, NaN) sends the file to the YAML reader too."""
    head, sep, tail = text.partition(_EVENTS_HEAD)
    if not sep:
        return None
    events = []
    decode = _EVENT_READER.decode
    for line in tail.splitlines():
        if not (line.startswith("  - {") and line.endswith("}")):
            return None
        try:
            events.append(decode(line[4:]))
        except (ValueError, RecursionError):
            return None
    from ..state import _parse_text

    data = _parse_text(head, Path(path))
    if not isinstance(data, dict) or "events" in data:
        return None
    first = head.count("\n") + 3  # the line after `events:`
    return {**data, "events": events}, list(range(first, first + len(events)))


def _not_here(text):
    raise ValueError(text)


# one reader for every event line (json.loads with these hooks would build a new one per line)
_EVENT_READER = json.JSONDecoder(parse_float=_not_here, parse_constant=_not_here)


def _event_lines(text: str) -> list[int]:
    """The line where each event starts (the text was already read within the limits)."""
    import yaml

    from .. import safeyaml

    try:
        node = safeyaml.compose(text)
    except (yaml.YAMLError, safeyaml.YAMLLimitError):
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if getattr(key, "value", None) == "events" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def checked(data, lines: list[int] | None = None) -> GameFile:
    """The game file's data checked, key by key, in the order a reader meets them: the first
    problem is the error."""
    _check_top(data)
    _check_players(data.get("players"))
    _check_setup_values(data)
    events = data.get("events") or []
    if not isinstance(events, list) or len(events) > MAX_EVENTS:
        raise GameFileError(f"`events` is a list of at most {MAX_EVENTS:,} events")
    lines = list(lines or []) + [None] * (len(events) - len(lines or []))
    for i, e in enumerate(events):
        _check_event(i, e, lines[i])
    setup = {k: data.get(k) for k in TOP_KEYS if k != "events"}
    return GameFile(setup, events, lines)


def _check_top(data) -> None:
    if not isinstance(data, dict):
        raise GameFileError(f"a game file is a mapping of {', '.join(TOP_KEYS)}, not {type(data).__name__}")
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        from ..diagnostics import did_you_mean

        best = did_you_mean(str(unknown[0]), list(TOP_KEYS))
        raise GameFileError(f"unknown key `{unknown[0]}`" + (f" (did you mean `{best}`?)" if best else ""))
    if data.get("civdsl_game") != FORMAT:
        raise GameFileError(f"`civdsl_game` must be {FORMAT} (the game file format this civdsl reads)")
    if not isinstance(data.get("edition"), str):
        raise GameFileError("`edition` names the rulebook (a shipped edition id or a path)")


def _check_players(players) -> None:
    if not isinstance(players, list) or not players or len(players) > MAX_PLAYERS:
        raise GameFileError(f"`players` is a list of 1 to {MAX_PLAYERS} players, each with a name")
    names = set()
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
            raise GameFileError(f"players[{i}]: a mapping with a `name` (text)")
        bad = [k for k in p if k not in PLAYER_KEYS]
        if bad:
            raise GameFileError(f"players[{i}]: unknown key `{bad[0]}` (keys: {', '.join(PLAYER_KEYS)})")
        if p.get("civilization") is not None and not isinstance(p["civilization"], str):
            raise GameFileError(f"players[{i}]: `civilization` is a name")
        if p["name"] in names:
            raise GameFileError(f"players[{i}]: a second player named `{p['name']}`")
        names.add(p["name"])


# the set-up's other keys, each with its type and that type in words
_SETUP_VALUES = (("options", dict, "a mapping"), ("ast_track", str, "text"), ("last_turn", int, "a whole number"),
                 ("seed", int, "a whole number"))


def _check_setup_values(data: dict) -> None:
    for key, kind, words in _SETUP_VALUES:
        if data.get(key) is not None and (not isinstance(data[key], kind) or isinstance(data[key], bool)):
            raise GameFileError(f"`{key}` must be {words}")


def _check_event(i: int, e, line: int | None) -> None:
    """An event's shape (what each key holds is the ledger's check, when it is applied)."""
    if not isinstance(e, dict) or not isinstance(e.get("do"), str):
        raise GameFileError(f"events[{i}]: a mapping with `do` (what happened)", line)
    bad = [k for k in e if k not in EVENT_KEYS]
    if bad:
        raise GameFileError(f"events[{i}]: unknown key `{bad[0]}`", line)
    for k in ("turn", "step"):
        if not isinstance(e.get(k), int) or isinstance(e.get(k), bool) or e[k] < 0:
            raise GameFileError(f"events[{i}]: `{k}` is a whole number", line)


class SetupError(GameFileError):
    """Civilizations that no declared set-up for the player count uses: `civilization` is the
    first one out of place (None when the player count has no set-up at all)."""

    def __init__(self, message: str, civilization: str | None, notes: list[str]):
        super().__init__(message, None, "CIV145")
        self.civilization = civilization
        self.notes = notes


def setups_for(civs: dict, players: int, declared: dict | None = None) -> dict[str, list[str]]:
    """The edition's set-ups for a player count, each with its civilizations in rulebook order: a
    set-up is for as many players as civilizations name it (`setups` of each civilization), or
    for the counts `setups "NAME" for LOW..HIGH` declares (`declared`: the module's SETUP_PLAYERS),
    when the players choose among its civilizations (none named: the rules do not give them)."""
    declared = declared or {}
    named: dict[str, list[str]] = {name: [] for name in declared}
    for name, civ in civs.items():
        for s in civ.get("setups", ()):
            named.setdefault(s, []).append(name)
    return {s: names for s, names in named.items()
            if (declared[s][0] <= players <= declared[s][1] if s in declared else len(names) == players)}


def check_setup(civs: dict, chosen: list[str | None], declared: dict | None = None) -> str | None:
    """The set-up the chosen civilizations play, where the edition declares set-ups: civilizations
    of one set-up for this many players, each once. A seat without a civilization leaves the
    set-up open (None); an edition without set-ups checks nothing; a set-up whose civilizations
    the rules do not give takes any."""
    if not any(c.get("setups") for c in civs.values()) and not declared:
        return None
    n = len(chosen)
    fits = setups_for(civs, n, declared)
    if not fits:
        counts = sorted({k for k in range(1, 65) if setups_for(civs, k, declared)})
        raise SetupError(f"no set-up for {n} players: the edition's set-ups are for {_counts(counts)} players",
                         None, [])
    listing = _listing(fits, n, declared or {})
    _check_once_each(chosen, listing)
    given = [c for c in chosen if c is not None]
    found = _set_up_of(fits, given, n, listing)
    return found if len(given) == n else None


def _listing(fits: dict, n: int, declared: dict) -> list[str]:
    """The set-ups for N players in words, for an error's notes."""
    return [f"set-up {s}: {', '.join(names)}" + (f" (choose {n})" if s in declared else "")
            for s, names in fits.items() if names]


def _set_up_of(fits: dict, given: list[str], n: int, listing: list[str]) -> str:
    """The first set-up holding every civilization given; none is an error naming the first one
    out of the set-up closest to them."""
    ok = [s for s, names in fits.items() if not names or all(c in names for c in given)]
    if ok:
        return ok[0]
    best = max(fits.values(), key=lambda names: sum(c in names for c in given))
    out = next(c for c in given if c not in best)
    raise SetupError(f"`{out}` is in no set-up for {n} players with "
                     + ", ".join(f"`{c}`" for c in given if c in best), out, listing)


def _check_once_each(chosen: list[str | None], listing: list[str]) -> None:
    seen = set()
    for c in chosen:
        if c is not None and c in seen:
            raise SetupError(f"`{c}` is chosen twice: each player plays his own civilization", c, listing)
        seen.add(c)


def _counts(counts: list[int]) -> str:
    runs, start = [], None
    for i, k in enumerate(counts):
        if start is None:
            start = k
        if i + 1 == len(counts) or counts[i + 1] != k + 1:
            runs.append(str(start) if start == k else f"{start}-{k}")
            start = None
    return ", ".join(runs)


def start(rulebook, setup: dict) -> Ledger:
    players = {}
    civs = getattr(rulebook.module, "CIVILIZATIONS", {})
    for p in setup["players"]:
        civ = p.get("civilization")
        if civ is not None and civs and civ not in civs:
            from ..diagnostics import did_you_mean

            best = did_you_mean(civ, list(civs))
            raise GameFileError(f"player `{p['name']}`: no civilization `{civ}` in this edition"
                                + (f" (did you mean `{best}`?)" if best else ""))
        players[p["name"]] = Player(p["name"], civ)
    chosen = check_setup(civs, [p.get("civilization") for p in setup["players"]],
                         getattr(rulebook.module, "SETUP_PLAYERS", {}))
    track = setup.get("ast_track")
    if track is not None and track not in rulebook.module.AST:
        raise GameFileError(f"`ast_track`: no A.S.T. track `{track}` (tracks: {', '.join(rulebook.module.AST)})")
    if not getattr(rulebook.module, "TURN", ()):
        raise GameFileError(f"{rulebook.name} declares no sequence of play (`turn`), so it has no game to keep")
    game = Ledger(rulebook, players, dict(setup.get("options") or {}), track, setup.get("last_turn"),
                  setup.get("seed") or 0, start_credits_of=_start_credits_memo(rulebook.module))
    game.setup = chosen
    with rules_of(rulebook.module):  # a rule failing in the game's bookkeeping is located at its rulebook line
        game.start()
    return game


def apply(game: Ledger, event: dict, keep_on_refusal: bool = True) -> None:
    """The event applied to the game (Ledger.apply), a rule failing while it runs located at its
    rulebook line (CIV130)."""
    with rules_of(game.module):
        game.apply(event, keep_on_refusal)


# module -> the start credits of a state, kept by the facts the start-credit rule reads (in a game,
# the player count and the scenario): a change of hand or treasury keeps them, and so does the
# next replay of a game of the same edition
_START_CREDITS: dict = {}


def _start_credits_memo(module) -> Memo:
    memo = _START_CREDITS.get(module)
    if memo is None:
        memo = _START_CREDITS[module] = Memo(functools.partial(start_credits, module))
    return memo


class ReplayError(Exception):
    def __init__(self, index: int, line: int | None, refusal: Refused):
        super().__init__(refusal.message)
        self.index, self.line, self.refusal = index, line, refusal


def replay(rulebook, gf: GameFile, upto: int | None = None) -> Ledger:
    """The game after its first `upto` events (all by default); an event the rules refuse, or
    recorded at another turn or step than the game is in, raises ReplayError with its line."""
    game = start(rulebook, gf.setup)
    for i, event in enumerate(gf.events[:upto]):
        if (event["turn"], event["step"]) != (game.turn, game.step + 1):
            at = f"turn {game.turn}, step {game.step + 1} ({game.current['name']})"
            raise ReplayError(i, gf.lines[i], Refused("CIV142", f"the event is recorded at turn {event['turn']}, "
                                                      f"step {event['step']}, but the game is at {at}"))
        try:
            apply(game, event, keep_on_refusal=False)  # a refusal ends the replay: no copy to restore
        except Refused as refusal:
            raise ReplayError(i, gf.lines[i], refusal) from None
    return game


def stamped(game: Ledger, event: dict) -> dict:
    """The event as the file records it: the turn and step (1 = the turn's first) it happened in first."""
    return {"turn": game.turn, "step": game.step + 1, **{k: v for k, v in event.items() if k not in ("turn", "step")}}


def text(gf: GameFile) -> str:
    """The file's text: the set-up as YAML, then one event a line (JSON, which YAML reads)."""
    import yaml

    setup = {"civdsl_game": FORMAT, **{k: v for k, v in gf.setup.items() if v is not None and k != "civdsl_game"}}
    head = yaml.safe_dump(setup, sort_keys=False, allow_unicode=True, default_flow_style=None, width=100)
    events = "".join(f"  - {json.dumps(e, ensure_ascii=False)}\n" for e in gf.events)
    return "# a civdsl game file: `civdsl game show` replays it\n" + head + ("events:\n" + events if events else "events: []\n")


def write(path: Path, gf: GameFile) -> None:
    from ..atomicfile import atomic_write

    atomic_write(Path(path), text(gf))


def new_setup(rulebook_arg: str, rulebook, players: list[tuple[str, str | None]], ast_track: str | None,
              last_turn: int | None, seed: int) -> dict:
    return {"civdsl_game": FORMAT, "edition": rulebook_arg,
            "players": [{"name": n, **({"civilization": c} if c else {})} for n, c in players],
            "ast_track": ast_track, "last_turn": last_turn, "seed": seed}


def player_facts(path: Path, player: str, rulebook) -> dict:
    """A player's state in the game file, now, as the facts a one-turn question reads (`plan`,
    `epoch`, `score` with `--state GAME --player P`)."""
    gf = read(Path(path))
    try:
        game = replay(rulebook, gf)
    except ReplayError as exc:
        raise GameFileError(f"event {exc.index + 1}: {exc.refusal.message}", exc.line, exc.refusal.code) from None
    if player not in game.players:
        from ..diagnostics import did_you_mean

        best = did_you_mean(player, list(game.players))
        raise GameFileError(f"no player `{player}` in the game" + (f" (did you mean `{best}`?)" if best else ""))
    from .ending import sole_leaders

    return game.facts(game.players[player], {"sole_leader": sole_leaders(game) == [player]})


def is_game_file(path) -> bool:
    """Whether a YAML file is a game file (its first key says so), read no further than needed."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return "\ncivdsl_game:" in "\n" + head


def game_schema() -> dict:
    """The JSON Schema of a game file (schemas/game.schema.json), derived from the keys this module
    and events.EVENT_FIELDS declare (a test keeps the file equal to it)."""
    from .events import EVENT_FIELDS

    kinds = {"a name": {"type": "string"}, "a list of names": {"type": "array", "items": {"type": "string"}},
             "a whole number": {"type": "integer", "minimum": 0}, "a mapping": {"type": "object"},
             "a list of at most 100 whole numbers": {"type": "array", "maxItems": 100, "items": {"type": "integer", "minimum": 0}},
             "a mapping of player: the cards he is given": {"type": "object", "additionalProperties": {
                 "type": "array", "items": {"type": "string"}}}}
    secondary = {"oneOf": [kinds["a list of names"], {"type": "object", "additionalProperties": kinds["a whole number"]}]}
    event = {"type": "object", "additionalProperties": False, "required": ["turn", "step", "do"],
             "properties": {k: {**kinds.get(v, secondary), "description": v} for k, v in EVENT_FIELDS}}
    player = {"type": "object", "additionalProperties": False, "required": ["name"],
              "properties": {"name": {"type": "string", "minLength": 1, "description": "the player's name"},
                             "civilization": {"type": "string", "description": "his civilization"}}}
    top = {"civdsl_game": {"const": FORMAT}, "edition": {"type": "string"},
           "players": {"type": "array", "minItems": 1, "maxItems": MAX_PLAYERS, "items": player},
           "options": {"type": "object"}, "ast_track": {"type": "string"},
           "last_turn": {"type": "integer", "minimum": 1}, "seed": {"type": "integer", "minimum": 0},
           "events": {"type": "array", "maxItems": MAX_EVENTS, "items": event}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://civdsl.invalid/schemas/game.schema.json", "title": "civdsl game",
            "description": "A whole game for `civdsl game`: the edition, the players and the events in order.",
            "type": "object", "additionalProperties": False, "required": ["civdsl_game", "edition", "players"],
            "properties": {k: {**v, "description": TOP_KEYS[k]} for k, v in top.items()}}
