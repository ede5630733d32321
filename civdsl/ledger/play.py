"""A game's state and the events that change it. Each event is checked against the rules and the
state before anything changes: a refused event raises `Refused` and leaves the game as it was.
What each step does comes from the rulebook (steps.py); nothing here names an edition or a phase."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .. import handvalue, sourcemap, standing, startcredits
from ..runtime import PlayerState
from . import steps as turn_steps
from .players import Player
from .reads import Memo
from .refusals import CHOICE, ILLEGAL, Refused  # noqa: F401 (the verdicts, read through this module too)

_PIECES: dict[int, dict[int, dict]] = {}  # module -> players -> the pieces each has (steps.pieces)
_BLOCKS: dict[tuple, str | None] = {}  # (module, set-up, civilization) -> the trade block played
_UNSET = object()
# module -> the start credits of a state, kept by the facts the start-credit rule reads (in a game,
# the player count and the scenario): a change of hand or treasury keeps them
_START_CREDITS: dict[object, Memo] = {}
_STATES_KEPT = 4096  # the states a game keeps (Game.state) at most, then its store starts again


class _EpochsOnDemand:
    """Each epoch's requirements for one state, computed when the marker reads them."""

    def __init__(self, epochs: list, state):
        self.epochs, self.state = epochs, state

    def __getitem__(self, i: int) -> dict:
        return {"requirements": self.epochs[i][1](self.state)}


@dataclass
class Entry:
    """One line of the log: what changed, in words, and the rulebook line behind it."""

    turn: int
    step: str
    text: str
    line: int | None = None
    event: int | None = None  # the index of the event that caused it (None: the game's own bookkeeping)

    def to_data(self) -> dict:
        return {"turn": self.turn, "step": self.step, "text": self.text, "rule_line": self.line, "event": self.event}


@dataclass
class Game:
    """The ledger: the players' states, where the game stands in the turn, and the log."""

    rulebook: object
    players: dict[str, Player]
    options: dict = field(default_factory=dict)
    ast_track: str | None = None
    last_turn: int | None = None  # an agreed last turn, where the edition's end_game allows one
    seed: int = 0
    turn: int = 1
    step: int = 0
    ended: bool = False
    final_turn: int | None = None
    log: list[Entry] = field(default_factory=list)
    done: dict = field(default_factory=dict)  # (what, player) -> True: what each player did this step
    choices: dict = field(default_factory=dict)  # (calamity, victim, occurrence) -> the victim's choices this turn
    turn_facts: dict = field(default_factory=dict)  # player -> facts given for this turn's calamities
    borders: dict = field(default_factory=dict)  # relation -> pairs of players bordering this turn
    ast_moves: dict = field(default_factory=dict)  # player -> the move entered where the rules cannot tell
    events: int = 0  # events applied
    scores: list | None = None
    stacks: object = None  # decks.Stacks: the trade-card stacks, where a `trade_deck` covers the player count
    setup: str | None = None  # the set-up the civilizations play, where the edition declares set-ups
    # the states built (Game.state), by everything each is built from: a replay asks for the same
    # player's state many times between two changes of his (every calamity of a step reads every
    # player); a copy of the game shares them, since a key says all a state is built from
    states_built: dict = field(default_factory=dict, repr=False, compare=False)
    # the players still at the table, in seat order: every rule reads the player count, and only
    # a player leaving (Game.leaves) changes it
    _seated: list | None = field(default=None, repr=False, compare=False)
    module: object = field(init=False, repr=False, compare=False)  # the rulebook's compiled module, read by every rule
    step_actions: list = field(init=False, repr=False, compare=False)
    # what every player's state reads of the game (its key's part, and the pieces and game facts),
    # fixed once play starts until a player leaves
    _table_key: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _table_facts: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        self.module = self.rulebook.module
        # each step's actions by kind, read at every event: the module's TURN never changes
        self.step_actions = [turn_steps.actions(s) for s in turn_steps.steps(self.module)]

    # --- reading the state -------------------------------------------------------------------
    @property
    def steps(self) -> tuple:
        return self.rulebook.module.TURN

    @property
    def current(self) -> dict:
        return self.rulebook.module.TURN[self.step]

    def current_actions(self) -> dict:
        """The current step's actions by kind (steps.actions)."""
        return self.step_actions[self.step]

    def seated(self) -> list[Player]:
        return list(self._at_table())

    def _at_table(self) -> list[Player]:
        """The seated players, kept (not a copy: for reading only)."""
        if self._seated is None:
            self._seated = [p for p in self.players.values() if not p.left]
        return self._seated

    def leaves(self, player: Player) -> None:
        """The player leaves the table."""
        player.left = True
        self._seated = None
        self._table_key = self._table_facts = None

    @property
    def pieces(self) -> dict:
        count = len(self._at_table())
        if count not in _PIECES.setdefault(id(self.module), {}):
            _PIECES[id(self.module)][count] = turn_steps.pieces(self.module, count)
        return _PIECES[id(self.module)][count]

    def game_facts(self) -> dict:
        out = {"players": len(self._at_table())}
        if self.ast_track:
            out["ast_track"] = self.ast_track
        if self.options:
            out["options"] = dict(self.options)
        return out

    def facts(self, player: Player, **extra) -> dict:
        if self._table_facts is None:  # the game's part, the same for every player until one leaves
            self._table_facts = (self.pieces, self.game_facts())
        out = player.facts(*self._table_facts)
        if "options" in out:  # each state's own: the kept game facts are never handed out
            out["options"] = dict(out["options"])
        if extra:
            out.update(extra)
        block = self.setup_block(player)
        if block is not None:
            out.setdefault("block", block)
        return out

    def setup_block(self, player: Player) -> str | None:
        """The block the player's civilization plays in this game's set-up where it is not its
        printed one (`block ID for "SETUP"`); None: its printed block."""
        civ = getattr(self.module, "CIVILIZATIONS", {}).get(player.civilization)
        return civ.get("block_for", {}).get(self.setup) if civ and self.setup else None

    def state(self, player: Player, **extra):
        """The player's state for a rule, built without the checks a state file needs: the
        ledger's facts are already the rulebook's own names and whole numbers. A state answers
        one question (it records the facts that question lacked), so each call gets its own copy
        of the state built once for what the player has now."""
        return self.base_state(player, **extra).for_question()

    def base_state(self, player: Player, **extra):
        """The state `state` copies, built once for what the player has now and shared: for a
        reader that copies it for each question itself (the calamity phase's table), never changed."""
        key = self._state_key(player, extra)
        base = self.states_built.get(key) if key is not None else None
        if base is None:
            base = self._build_state(player, extra)
            if key is not None:
                if len(self.states_built) >= _STATES_KEPT:
                    self.states_built.clear()
                self.states_built[key] = base
        return base

    def _state_key(self, player: Player, extra: dict) -> tuple | None:
        """Everything a player's state is built from (his pieces, hand and advances, the game's
        facts), or None when a given fact cannot be part of a key."""
        if self._table_key is None:
            self._table_key = (self.module, len(self._at_table()), self.ast_track, tuple(sorted(self.options.items())),
                               self.setup)
        key = (player.name, player.civilization, player.cities, player.tokens, player.ships, player.treasury,
               player.ast_position, tuple(player.advances), tuple(sorted(player.cards.items())), self._table_key)
        if not extra:
            return key
        key += (tuple(sorted(extra.items())),)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _build_state(self, player: Player, extra: dict):
        facts = self.facts(player, **extra)
        held = facts.pop("holds")
        options = facts.pop("options", {})
        st = PlayerState(self.module, held, facts, options)
        memo = _START_CREDITS.get(self.module)
        if memo is None:
            memo = _START_CREDITS[self.module] = Memo(functools.partial(startcredits.start_credits, self.module))
        startcredits.apply_start_credits(self.module, st, memo(st))
        return st

    def marker(self, player: Player, track: str) -> dict:
        """The player's marker as `civdsl epoch` answers it (where it is, what the next space needs,
        and whether it moves), evaluating the requirements of the next space's epoch only."""
        t = self.module.AST[track]
        st = self.state(player)
        with sourcemap.rules_of(self.module):
            backward = [b(st) for b in t["backward"]]
            # what standing.epochs does before it places the marker, without every epoch's requirements
            goes_back = standing._goes_back(self.module, track, st, st.fact("ast_position"), backward)
            # the requirements count what held advances add (standing.ast_counted), the backward rule does not
            counted, _ = standing.ast_counted(self.module, st)
            return standing.marker(self.module, track, st, _EpochsOnDemand(t["epochs"], counted), backward, goes_back)

    def note(self, text: str, line: int | None = None) -> None:
        self.log.append(Entry(self.turn, self.current["name"], text, line, self.events))

    def quantity(self, value) -> int | None:
        return turn_steps.quantity(self.module, value, len(self._at_table()))

    def copy(self) -> "Game":
        g = type(self)(self.rulebook, {n: p.copy() for n, p in self.players.items()}, dict(self.options),
                 self.ast_track, self.last_turn, self.seed, self.turn, self.step, self.ended, self.final_turn,
                 list(self.log), dict(self.done), dict(self.choices), {k: dict(v) for k, v in self.turn_facts.items()},
                 {k: set(v) for k, v in self.borders.items()}, dict(self.ast_moves), self.events, self.scores,
                 self.stacks.copy() if self.stacks is not None else None, self.setup, self.states_built)
        return g

    def player(self, name) -> Player:
        p = self.players.get(name)
        if p is None or p.left:
            from ..diagnostics import did_you_mean

            best = did_you_mean(str(name), list(self.players))
            raise Refused(ILLEGAL, f"no player `{name}` at the table" + (f" (did you mean `{best}`?)" if best else ""),
                          field="player")
        return p

    def block(self, player: Player) -> str | None:
        """The player's trade block (his civilization's in the game's set-up, as the rulebook
        declares it): fixed for the game, so it is worked out once per player."""
        known = _BLOCKS.get((id(self.module), self.setup, player.civilization), _UNSET)
        if known is _UNSET:
            known = _BLOCKS[(id(self.module), self.setup, player.civilization)] = handvalue.player_block(
                self.module, self.state(player))
        return known

    def discarded(self, player: Player, cards) -> None:
        """Cards leaving a player's hand for the discard pile (spent, discarded, lost or a calamity
        resolved): with stacks kept, they go under their stack at the end of the turn."""
        if self.stacks is None:
            return
        own = self.block(player)
        for card in cards:
            item = self.module.COMMODITIES.get(card) or self.module.CALAMITIES.get(card)
            if item is not None and item.get("stack") is not None:
                self.stacks.give_back(card, item["stack"], item.get("class") == "major nontradable", own)
