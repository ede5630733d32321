"""The game file: the edition, the players and the events (schemas/game.schema.json), written in
the one form gametext.py writes (the game page's too, translated) and read by it, a file edited by
hand by the one YAML reader (safeyaml, through state.parse_yaml's limits); checked by hand so that
every problem names its place, and written atomically, one event a line, so that a file written
twice from the same game is the same bytes and a refused event leaves it untouched."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import StateError
from ..sourcemap import rules_of
from ..startcredits import start_credits
from . import eventjson, gametext
from .play import Refused
from .reads import Memo
from .turn import Ledger
from .gamecheck import (FORMAT, MAX_EVENTS, MAX_PLAYERS, PLAYER_KEYS, TOP_KEYS, GameFileError,  # noqa: F401
                        SetupError, check_setup, event_keys, ledger_for, setups_for, top_keys)
from .gamecheck import checked as checked_data
from .gameview import stamped  # noqa: F401  (the event as the file records it)


class NotUtf8(GameFileError):
    """A game file whose bytes are not UTF-8: where the first wrong byte is, by line and column."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message, line)
        self.column = column


def _decoded(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        from ..state import not_utf8_at

        line, column = not_utf8_at(raw, exc)
        raise NotUtf8(f"the game file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})", line, column) from None


@dataclass
class GameFile:
    setup: dict
    events: list[dict]
    lines: list[int | None] = field(default_factory=list)  # the line of each event in the file


def read(path: Path) -> GameFile:
    """The game file at PATH: its text as `write` writes it read by gametext (the page's reader
    too), any other form (a file edited by hand) by the YAML reader, to the same data."""
    from ..state import _parse_text, _read_limited

    try:
        raw = _read_limited(Path(path))
    except StateError as exc:
        raise GameFileError(_reader_words(exc, path)) from None
    text = _decoded(raw)
    try:
        try:
            setup, events, lines = gametext.parse(text, eventjson.event_values)
        except gametext.TextError:
            data = _parse_text(text, Path(path))
        else:
            return checked({**setup, "events": events}, lines)
    except StateError as exc:
        raise GameFileError(_reader_words(exc, path)) from None
    return checked(data if data is not None else {}, _event_lines(text))


def _reader_words(exc: StateError, path: Path) -> str:
    """The reader's limits are a state file's: the words are this file's."""
    message = str(exc).removeprefix(f"{path}: ").replace("state file", "game file")
    return message.replace("mapping of facts (key: value)", "mapping of its keys")


def canonical_error(path: Path) -> gametext.TextError | None:
    """Where the file at PATH departs from the form `write` writes, or None where it has that form."""
    from ..state import _decode, _read_limited

    try:
        gametext.parse(_decode(_read_limited(Path(path)), Path(path)), eventjson.event_values)
    except gametext.TextError as exc:
        return exc
    return None


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
    problem is the error (gamecheck.checked)."""
    setup, events, lines = checked_data(data, lines)
    return GameFile(setup, events, lines)


def start(rulebook, setup: dict) -> Ledger:
    """The game the set-up starts (gamecheck.ledger_for), with the start credits remembered across
    replays and a rule failing in its first steps located at its rulebook line."""
    with rules_of(rulebook.module):
        return ledger_for(rulebook, setup, _start_credits_memo(rulebook.module))


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
    from .gameview import replay_events

    game = start(rulebook, gf.setup)
    try:
        with rules_of(game.module):
            replay_events(game, gf.events[:upto])
    except Refused as refusal:
        raise ReplayError(refusal.index, gf.lines[refusal.index], refusal) from None
    return game


def text(gf: GameFile) -> str:
    """The file's text (gametext.text: the set-up, then one event a line), the format first."""
    setup = {"civdsl_game": FORMAT, **{k: v for k, v in gf.setup.items() if k != "civdsl_game"}}
    return gametext.text(setup, gf.events)


def write(path: Path, gf: GameFile) -> None:
    from ..atomicfile import atomic_write

    atomic_write(Path(path), text(gf))


def new_setup(rulebook_arg: str, rulebook, players: list[tuple[str, str | None]], ast_track: str | None,
              last_turn: int | None, seed: int) -> dict:
    return {"civdsl_game": FORMAT, "edition": rulebook_arg,
            "players": [{"name": n, **({"civilization": c} if c else {})} for n, c in players],
            "ast_track": ast_track, "last_turn": last_turn, "seed": seed}


def player_facts(gf: GameFile, player: str, rulebook) -> dict:
    """A player's state in the game (`read`), now, as the facts a one-turn question reads (`plan`,
    `epoch`, `score` with `--state GAME --player P`)."""
    game = _replayed(rulebook, gf)
    if player not in game.players:
        from ..diagnostics import did_you_mean

        best = did_you_mean(player, list(game.players))
        raise GameFileError(f"no player `{player}` in the game" + (f" (did you mean `{best}`?)" if best else
                                                                    f" (players: {', '.join(game.players)})"))
    from .ending import sole_leaders

    me = game.players[player]
    return game.facts(me, {"sole_leader": sole_leaders(game) == [player], **game.others_hold(me)})


def standings(rulebook, gf: GameFile) -> list[dict]:
    """Every seated player's score in the game now, best first (ending.final_scores; once the
    game is over, its final scores)."""
    from .ending import final_scores

    game = _replayed(rulebook, gf)
    return game.scores if game.ended else final_scores(game)


def _replayed(rulebook, gf: GameFile) -> Ledger:
    """The game replayed for a question: an event the replay refuses is the file's error."""
    try:
        return replay(rulebook, gf)
    except ReplayError as exc:
        raise GameFileError(f"event {exc.index + 1}: {exc.refusal.message}", exc.line, exc.refusal.code) from None


def edition_source(gf: GameFile, game_path) -> str:
    """The rulebook a game is played with: its `edition`, an edition id or a house rule's path
    written relative to the game file."""
    edition = gf.setup["edition"]
    if edition.endswith(".civ"):
        return str(Path(game_path).parent / edition)
    return edition


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
            "properties": {k: {**v, "description": dict(TOP_KEYS)[k]} for k, v in top.items()}}
