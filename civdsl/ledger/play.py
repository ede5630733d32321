"""A game's state and the events that change it. Each event is checked against the rules and the
state before anything changes: a refused event raises `Refused` and leaves the game as it was.
What each step does comes from the rulebook (steps.py); nothing here names an edition or a phase.
An engine module (py2es): the game page keeps its games with this code."""

from __future__ import annotations

from ..diagnostics import did_you_mean
from ..handvalue import player_block
from ..playerstate import PlayerState
from ..pricing import supply_limited
from ..standing import _goes_back, all_met, ast_counted, marker, step_needs, steps_possible
from ..startcredits import apply_start_credits, start_credits
from .quantities import pieces, quantity
from .steps import actions, steps
from .players import Player, share_tally
from .refusals import CHOICE, ILLEGAL, Refused  # noqa: F401 (the verdicts, read through this module too)

_STATES_KEPT = 4096  # the states a game keeps (Game.state) at most, then its store starts again


class _EpochsOnDemand(dict):
    """Each epoch's requirements for one state, computed when the marker reads them."""

    def __init__(self, epochs: list, state):
        super().__init__()
        self.epochs, self.state = epochs, state

    def __missing__(self, i: int) -> dict:
        requirements = self.epochs[i][1]
        return {"requirements": requirements(self.state)}


class Entry:
    """One line of the log: what changed, in words, and the rulebook line behind it."""

    __slots__ = ("turn", "step", "text", "line", "event")  # a game's log holds thousands

    def __init__(self, turn: int, step: str, text: str, line: int | None = None, event: int | None = None):
        self.turn = turn
        self.step = step
        self.text = text
        self.line = line
        self.event = event  # the index of the event that caused it (None: the game's own bookkeeping)

    def to_data(self) -> dict:
        return {"turn": self.turn, "step": self.step, "text": self.text, "rule_line": self.line, "event": self.event}


class Game:
    """The ledger: the players' states, where the game stands in the turn, and the log.

    `kept` holds what the game works out once and its copies share: the states built (Game.state),
    by everything each is built from (a replay asks for the same player's state many times between
    two changes of his: every calamity of a step reads every player), the pieces by player count,
    each civilization's trade block. `start_credits` is the rule that gives a state's start
    credits (startcredits.start_credits for the game's module), which a host may remember."""

    def __init__(self, rulebook, players: dict, options: dict | None = None, ast_track: str | None = None,
                 last_turn: int | None = None, seed: int = 0, kept: dict | None = None, start_credits_of=None):
        self.rulebook = rulebook
        self.module = rulebook.module  # the rulebook's compiled module, read by every rule
        self.players = players
        share_tally(players)
        self.options = options if options is not None else {}
        self.ast_track = ast_track
        self.last_turn = last_turn  # an agreed last turn, where the edition's end_game allows one
        self.seed = seed
        self.turn = 1
        self.step = 0
        self.ended = False
        self.final_turn = None
        self.log = []
        self.done = {}  # (what, player) -> True: what each player did this step
        self.choices = {}  # (calamity, victim, occurrence) -> the victim's choices this turn
        self.turn_facts = {}  # player -> facts given for this turn's calamities
        self.borders = {}  # relation -> pairs of players bordering this turn
        self.ast_moves = {}  # player -> the move entered where the rules cannot tell
        self.waiting = []  # the automatic actions of this step that wait for the players' choices
        self.tax_rates = {}  # player -> the tax rate he chose this step
        self.events = 0  # events applied
        self.scores = None
        self.stacks = None  # decks.Stacks: the trade-card stacks, where a `trade_deck` covers the player count
        self.setup = None  # the set-up the civilizations play, where the edition declares set-ups
        self.kept = kept if kept is not None else {}
        self.start_credits_of = start_credits_of
        # each step's actions by kind, read at every event: the module's TURN never changes
        self.step_actions = [actions(s) for s in steps(self.module)]
        # the players still at the table, in seat order: every rule reads the player count, and only
        # a player leaving (Game.leaves) changes it; what every player's state reads of the game
        # (its key's part, and the pieces and game facts) is fixed until then
        self.seated_kept = None
        self.table_key = None
        self.table_facts = None

    # --- reading the state -------------------------------------------------------------------
    @property
    def steps(self) -> tuple:
        return self.module.TURN

    @property
    def current(self) -> dict:
        return self.module.TURN[self.step]

    def current_actions(self) -> dict:
        """The current step's actions by kind (steps.actions)."""
        return self.step_actions[self.step]

    def option(self, name: str) -> bool:
        """A rule option's setting in this game: the game file's, else the rulebook's."""
        value = self.options.get(name)
        return self.module.OPTIONS[name] if value is None else value

    def ast_order(self, p) -> int:
        """The player's place in A.S.T. order; players without one after all who have, by seat."""
        place = self.ast_place(p)
        return place if place is not None else 10_000 + list(self.players).index(p.name)

    def ast_place(self, p) -> int | None:
        """The place of the player's civilization in A.S.T. order, or None where it has none."""
        civ = getattr(self.module, "CIVILIZATIONS", {}).get(p.civilization)
        return civ["rank"] if civ else None

    def seated(self) -> list:
        return list(self._at_table())

    def _at_table(self) -> list:
        """The seated players, kept (not a copy: for reading only)."""
        if self.seated_kept is None:
            self.seated_kept = [p for p in self.players.values() if not p.left]
        return self.seated_kept

    def leaves(self, player: Player) -> None:
        """The player leaves the table."""
        player.left = True
        self.seated_kept = None
        self.table_key = None
        self.table_facts = None

    @property
    def pieces(self) -> dict:
        count = len(self._at_table())
        key = ("pieces", count)
        if key not in self.kept:
            self.kept[key] = pieces(self.module, count)
        return self.kept[key]

    def track(self) -> str | None:
        """The A.S.T. track the game plays: the one chosen, else the rulebook's first."""
        if self.ast_track:
            return self.ast_track
        for name in self.module.AST:
            return name
        return None

    def game_facts(self) -> dict:
        out = {"players": len(self._at_table())}
        if self.ast_track:
            out["ast_track"] = self.ast_track
        if self.options:
            out["options"] = dict(self.options)
        return out

    def facts(self, player: Player, extra: dict | None = None) -> dict:
        """The facts a rule reads of the player in this game; EXTRA: facts given for one question."""
        if self.table_facts is None:  # the game's part, the same for every player until one leaves
            self.table_facts = (self.pieces, self.game_facts())
        pieces, game = self.table_facts
        out = player.facts(pieces, game)
        if "options" in out:  # each state's own: the kept game facts are never handed out
            out["options"] = dict(out["options"])
        if extra:
            out.update(extra)
        block = self.setup_block(player)
        if block is not None and "block" not in out:
            out["block"] = block
        return out

    def others_hold(self, player: Player) -> dict:
        """Facts of a purchase: the cards of each advance the players other than PLAYER hold
        (`others_hold`), where the rulebook limits an advance's supply; none where it limits none."""
        limited = self.kept.get(("supply limited",))
        if limited is None:  # asked at every purchase; the rulebook's advances never change
            limited = self.kept[("supply limited",)] = len(supply_limited(self.module)) > 0
        if not limited:
            return {}
        taken: dict[str, int] = {}
        for other in self.players.values():
            if other.name != player.name:
                for a in other.advances:
                    taken[a] = taken.get(a, 0) + 1
        return {"others_hold": taken}

    def setup_block(self, player: Player) -> str | None:
        """The block the player's civilization plays in this game's set-up where it is not its
        printed one (`block ID for "SETUP"`); None: its printed block."""
        civ = getattr(self.module, "CIVILIZATIONS", {}).get(player.civilization)
        return civ.get("block_for", {}).get(self.setup) if civ and self.setup else None

    def state(self, player: Player, extra: dict | None = None):
        """The player's state for a rule, built without the checks a state file needs: the
        ledger's facts are already the rulebook's own names and whole numbers. A state answers
        one question (it records the facts that question lacked), so each call gets its own copy
        of the state built once for what the player has now."""
        return self.base_state(player, extra).for_question()

    def base_state(self, player: Player, extra: dict | None = None):
        """The state `state` copies, built once for what the player has now and shared: for a
        reader that copies it for each question itself (the calamity phase's table), never changed."""
        key = self._state_key(player, extra)
        base = self.kept.get(key) if key is not None else None
        if base is None:
            base = self._build_state(player, extra)
            if key is not None:
                if len(self.kept) >= _STATES_KEPT:
                    self.kept.clear()
                self.kept[key] = base
        return base

    def _state_key(self, player: Player, extra: dict | None) -> tuple | None:
        """Everything a player's state is built from (his pieces, hand and advances, the game's
        facts), or None when a given fact cannot be part of a key (one that is not a name, a
        number or a truth value)."""
        if self.table_key is None:
            self.table_key = (len(self._at_table()), self.ast_track, tuple(sorted(self.options.items())), self.setup)
        key = ("state", player.name, player.civilization, player.cities, player.tokens, player.ships,
               player.treasury, player.ast_position, tuple(player.advances), tuple(sorted(player.cards.items())),
               self.table_key)
        if not extra:
            return key
        given = tuple(sorted(extra.items()))
        for _, value in given:
            if not (value is None or isinstance(value, (str, int, bool))):
                return None
        return key + (given,)

    def _build_state(self, player: Player, extra: dict | None):
        facts = self.facts(player, extra)
        held = facts.pop("holds")
        options = facts.pop("options", {})
        st = PlayerState(self.module, held, facts, options)
        rule = self.start_credits_of
        apply_start_credits(self.module, st, rule(st) if rule is not None else start_credits(self.module, st))
        return st

    def marker(self, player: Player, track: str) -> dict:
        """The player's marker as `civdsl epoch` answers it (where it is, what the next space needs,
        and whether it moves), evaluating the requirements of the next space's epoch only."""
        t = self.module.AST[track]
        st = self.state(player, self.turn_facts.get(player.name))  # with the map facts entered this turn
        backward = [b(st) for b in t["backward"]]
        # what standing.epochs does before it places the marker, without every epoch's requirements
        goes_back = _goes_back(self.module, track, st, st.fact("ast_position"), backward)
        # the requirements count what held advances add (standing.ast_counted), the backward rule does not
        counted, _ = ast_counted(self.module, st)
        return marker(self.module, track, st, _EpochsOnDemand(t["epochs"], counted), backward, goes_back)

    def forward_steps(self, player: Player, track: str) -> list:
        """Each step forward the marker may take where the rulebook cannot place it on its row: the
        epoch of the next space, whether the step enters it, what it needs and whether that is met
        (a step inside an epoch needs its `each step` requirements, entering one all of them)."""
        t = self.module.AST[track]
        st = self.state(player, self.turn_facts.get(player.name))
        counted, _ = ast_counted(self.module, st)
        epochs = _EpochsOnDemand(t["epochs"], counted)
        names = [name for name, _ in t["epochs"]]
        out = []
        for here, there in sorted(steps_possible(self.module, track, st, player.ast_position)):
            reqs = step_needs(epochs[there]["requirements"], here == there)
            out.append({"epoch": names[there], "enters": here != there, "needs": reqs,
                        "met": all_met(r["met"] for r in reqs)})
        return out

    def note(self, text: str, line: int | None = None) -> None:
        self.log.append(Entry(self.turn, self.current["name"], text, line, self.events))

    def quantity(self, value) -> int | None:
        return quantity(self.module, value, len(self._at_table()))

    def copy(self):
        """The game as it is now, to change apart (what it keeps is shared: a key says all a
        state is built from)."""
        g = self.made_like()
        g.restore(self)
        g.players = {n: p.copy() for n, p in self.players.items()}
        share_tally(g.players)
        g.stacks = self.stacks.copy() if self.stacks is not None else None
        return g

    def made_like(self):
        """A game of this kind with the same rules, set-up and store, and no players yet (a
        subclass makes one of its own kind)."""
        return Game(self.rulebook, {}, dict(self.options), self.ast_track, self.last_turn, self.seed, self.kept,
                    self.start_credits_of)

    def restore(self, saved) -> None:
        """Everything that changes in play as SAVED has it (its own copies of the turn's records,
        its players and stacks themselves)."""
        self.players = saved.players
        self.stacks = saved.stacks
        self.turn = saved.turn
        self.step = saved.step
        self.ended = saved.ended
        self.final_turn = saved.final_turn
        self.log = list(saved.log)
        self.done = dict(saved.done)
        self.choices = dict(saved.choices)
        self.turn_facts = {k: dict(v) for k, v in saved.turn_facts.items()}
        self.borders = {k: set(v) for k, v in saved.borders.items()}
        self.ast_moves = dict(saved.ast_moves)
        self.waiting = list(saved.waiting)
        self.tax_rates = dict(saved.tax_rates)
        self.events = saved.events
        self.scores = saved.scores
        self.setup = saved.setup
        self.options = dict(saved.options)
        self.seated_kept = None
        self.table_key = None
        self.table_facts = None

    def player(self, name) -> Player:
        p = self.players.get(name)
        if p is None or p.left:
            best = did_you_mean(str(name), list(self.players))
            raise Refused(ILLEGAL, f"no player `{name}` at the table" + (f" (did you mean `{best}`?)" if best else ""),
                          field="player")
        return p

    def block(self, player: Player) -> str | None:
        """The player's trade block (his civilization's in the game's set-up, as the rulebook
        declares it): fixed for the game, so it is worked out once per player."""
        key = ("block", self.setup, player.civilization)
        if key not in self.kept:
            self.kept[key] = player_block(self.module, self.state(player))
        return self.kept[key]

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
