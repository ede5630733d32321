"""The game file's data checked (the set-up, the players, each event's shape) and the game its
set-up starts: plain data in, a refusal naming its place out. An engine module (py2es): the game
page reads a game file with the same checks and errors; gamefile.py reads and writes the file."""

from __future__ import annotations

from ..diagnostics import did_you_mean
from ..errors import StateError
from .events import EVENT_FIELDS
from .players import Player
from .turn import Ledger
from .words import thousands

FORMAT = 1
TOP_KEYS = (
    ("civdsl_game", "the game file format (1)"),
    ("edition", "the rulebook: a shipped edition id or a path to a house rule"),
    ("players", "the players in seat order: name and civilization"),
    ("options", "rule switches the rulebook declares, on or off"),
    ("ast_track", "the A.S.T. track played, where the rulebook has several"),
    ("last_turn", "the last turn the players agreed, where the edition lets the game end on one"),
    ("seed", "the seed of every random choice the rules make (calamities discarded at random)"),
    ("events", "the events in order, each with its turn, step and what happened"),
)
PLAYER_KEYS = ("name", "civilization")
MAX_PLAYERS = 64
MAX_EVENTS = 100_000
# what str.strip() takes away (str.isspace): a name of these only is no name
_WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
               "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def top_keys() -> list:
    return [k for k, _ in TOP_KEYS]


def event_keys() -> list:
    """Every key an event may have (events.EVENT_FIELDS)."""
    return [k for k, _ in EVENT_FIELDS]


class GameFileError(StateError):
    """A game file that cannot be read: `line` is where in the file, when known."""

    def __init__(self, message: str, line: int | None = None, code: str = "CIV144"):
        super().__init__(message)
        self.line = line
        self.code = code


def checked(data, lines: list | None = None) -> tuple:
    """The game file's data checked, key by key, in the order a reader meets them: the first
    problem is the error."""
    _check_top(data)
    _check_players(data.get("players"))
    _check_setup_values(data)
    events = data.get("events") or []
    if not isinstance(events, list) or len(events) > MAX_EVENTS:
        raise GameFileError(f"`events` is a list of at most {thousands(MAX_EVENTS)} events")
    lines = list(lines or []) + [None] * (len(events) - len(lines or []))
    keys = set(event_keys())
    for i, e in enumerate(events):
        _check_event(i, e, lines[i], keys)
    setup = {k: data.get(k) for k in top_keys() if k != "events"}
    return setup, events, lines


def _check_top(data) -> None:
    if not isinstance(data, dict):
        raise GameFileError(f"a game file is a mapping of {', '.join(top_keys())}, not {_kind(data)}")
    unknown = [k for k in data if k not in top_keys()]
    if unknown:
        best = did_you_mean(str(unknown[0]), top_keys())
        raise GameFileError(f"unknown key `{unknown[0]}`" + (f" (did you mean `{best}`?)" if best else ""))
    if data.get("civdsl_game") != FORMAT:
        raise GameFileError(f"`civdsl_game` must be {FORMAT} (the game file format this civdsl reads)")
    if not isinstance(data.get("edition"), str):
        raise GameFileError("`edition` names the rulebook (a shipped edition id or a path)")


def _kind(value) -> str:
    """What a value of a YAML document is, in words."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _blank(text: str) -> bool:
    return all(c in _WHITESPACE for c in text)


def _check_players(players) -> None:
    if not isinstance(players, list) or not players or len(players) > MAX_PLAYERS:
        raise GameFileError(f"`players` is a list of 1 to {MAX_PLAYERS} players, each with a name")
    names = set()
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or _blank(p["name"]):
            raise GameFileError(f"players[{i}]: a mapping with a `name` (text)")
        bad = [k for k in p if k not in PLAYER_KEYS]
        if bad:
            raise GameFileError(f"players[{i}]: unknown key `{bad[0]}` (keys: {', '.join(PLAYER_KEYS)})")
        if p.get("civilization") is not None and not isinstance(p["civilization"], str):
            raise GameFileError(f"players[{i}]: `civilization` is a name")
        if p["name"] in names:
            raise GameFileError(f"players[{i}]: a second player named `{p['name']}`")
        names.add(p["name"])


def _check_setup_values(data: dict) -> None:
    """The set-up's other keys, each of its type."""
    if data.get("options") is not None and not isinstance(data["options"], dict):
        raise GameFileError("`options` must be a mapping")
    if data.get("ast_track") is not None and not isinstance(data["ast_track"], str):
        raise GameFileError("`ast_track` must be text")
    for key in ("last_turn", "seed"):
        if data.get(key) is not None and (not isinstance(data[key], int) or isinstance(data[key], bool)):
            raise GameFileError(f"`{key}` must be a whole number")


def _check_event(i: int, e, line: int | None, keys: set) -> None:
    """An event's shape (what each key holds is the ledger's check, when it is applied); KEYS:
    every key an event may have (event_keys)."""
    if not isinstance(e, dict) or not isinstance(e.get("do"), str):
        raise GameFileError(f"events[{i}]: a mapping with `do` (what happened)", line)
    for k in e:
        if k not in keys:
            raise GameFileError(f"events[{i}]: unknown key `{k}`", line)
    for k in ("turn", "step"):
        value = e.get(k)
        if value is True or value is False or not isinstance(value, int) or value < 0:
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
    named = {name: [] for name in declared}
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
    out = [c for c in given if c not in best][0]
    raise SetupError(f"`{out}` is in no set-up for {n} players with "
                     + ", ".join(f"`{c}`" for c in given if c in best), out, listing)


def _check_once_each(chosen: list[str | None], listing: list[str]) -> None:
    seen = set()
    for c in chosen:
        if c is not None and c in seen:
            raise SetupError(f"`{c}` is chosen twice: each player plays his own civilization", c, listing)
        seen.add(c)


def _counts(counts: list[int]) -> str:
    runs = []
    start = None
    for i, k in enumerate(counts):
        if start is None:
            start = k
        if i + 1 == len(counts) or counts[i + 1] != k + 1:
            runs.append(str(start) if start == k else f"{start}-{k}")
            start = None
    return ", ".join(runs)


def _ends_on_an_agreed_turn(module) -> bool:
    for step in getattr(module, "TURN", ()):
        for kind, args, _ in step["actions"]:
            if kind == "end_game" and dict(args).get("turn_limit") == "agreed":
                return True
    return False


def ledger_for(rulebook, setup: dict, start_credits_of=None) -> Ledger:
    """The game a checked set-up starts: its players seated with their civilizations (known to the
    edition, of one set-up for the player count where the edition declares set-ups), the A.S.T.
    track, and the game's first steps run."""
    players = {}
    civs = getattr(rulebook.module, "CIVILIZATIONS", {})
    for p in setup["players"]:
        civ = p.get("civilization")
        if civ is not None and civs and civ not in civs:
            best = did_you_mean(civ, list(civs))
            raise GameFileError(f"player `{p['name']}`: no civilization `{civ}` in this edition"
                                + (f" (did you mean `{best}`?)" if best else ""))
        players[p["name"]] = Player(p["name"], civ)
    chosen = check_setup(civs, [p.get("civilization") for p in setup["players"]],
                         getattr(rulebook.module, "SETUP_PLAYERS", {}))
    track = setup.get("ast_track")
    if track is not None and track not in rulebook.module.AST:
        raise GameFileError(f"`ast_track`: no A.S.T. track `{track}` (tracks: {', '.join(list(rulebook.module.AST))})")
    if not getattr(rulebook.module, "TURN", ()):
        raise GameFileError(f"{rulebook.name} declares no sequence of play (`turn`), so it has no game to keep")
    if setup.get("last_turn") is not None and not _ends_on_an_agreed_turn(rulebook.module):
        raise GameFileError(f"`last_turn`: {rulebook.name} does not end on a last turn the players agree: "
                            "its game ends only as its rules say")
    game = Ledger(rulebook, players, dict(setup.get("options") or {}), track, setup.get("last_turn"),
                  setup.get("seed") or 0, start_credits_of=start_credits_of)
    game.setup = chosen
    game.start()
    return game


