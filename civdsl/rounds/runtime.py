"""Round rules at run time: what compiled phase functions call, and how rounds are played.

A generated module of an edition with round rules imports this module as `_rr`; it has STATS,
FLAGS, TRACKS, CHOICES, THRESHOLDS, THRESHOLD_WATCH, POOLS, EVENT_TABLES, CARD_DECK, CARDS,
ENDS, SETUP and PHASES. Each phase function maps (GameState, random.Random) to (next GameState,
trace); the trace lists every rule application that fired, with the rulebook line that states
it. Like the main runtime, it imports nothing from the compiler.
"""

from __future__ import annotations

import sys
from fractions import Fraction

from ..bounds import FIELDS
# lookup and number are re-exported: scripts and tests of round rules read them here too
from ..errors import RulebookRuntimeError  # noqa: F401
from ..runtime import floordiv, lookup  # noqa: F401
from ..sourcemap import located, source_entries, source_of
from ..unknown import number  # noqa: F401


class GameState:
    """One player's situation between phases: stat, flag and track values, the cards (hand, draw
    pile top first, discard pile), the thresholds switched on, the choices decided in advance
    (choice -> value; the rest follow the rulebook's default policy), the round, and why the game
    ended (None while it goes on). Phase functions never change the state they are given."""

    __slots__ = ("values", "hand", "deck", "discard", "on", "choices", "round", "ended", "settled")

    def __init__(self, values: dict, hand=(), deck=(), discard=(), on=(), choices=None, round: int = 0,
                 ended: str | None = None, settled: bool = False):
        self.values = dict(values)
        self.hand = list(hand)
        self.deck = list(deck)
        self.discard = list(discard)
        self.on = set(on)
        self.choices = dict(choices or {})
        self.round = round
        self.ended = ended
        # True when a phase function produced this state, so its thresholds agree with its values;
        # a state built or edited by hand has its thresholds checked at the start of the next phase
        self.settled = settled

    def copy(self) -> "GameState":
        return GameState(self.values, self.hand, self.deck, self.discard, self.on, self.choices, self.round, self.ended,
                         self.settled)

    def __getitem__(self, name: str):
        return self.values[name]

    def to_dict(self) -> dict:
        return {"round": self.round, "stats": dict(self.values), "hand": [card_text(c) for c in self.hand],
                "deck": [card_text(c) for c in self.deck], "discard": [card_text(c) for c in self.discard],
                "thresholds_on": sorted(self.on), "choices": dict(self.choices), "ended": self.ended}


def round_div(a, b):
    """`/` of round rules: exact (a Fraction) for whole numbers and fractions; real (a float) as
    soon as one side is real, dividing by a fraction as a multiplication and a division by whole
    numbers so that an exact quotient stays exact."""
    if type(a) is float or type(b) is float:
        if b == 0:
            raise ZeroDivisionError("division by zero")
        if isinstance(b, Fraction):
            return (a * b.denominator) / b.numerator
        if isinstance(a, Fraction):
            return a.numerator / (a.denominator * b)
        return a / b
    if type(a) is int and type(b) is int:
        return Fraction(a, b)
    return Fraction(a) / Fraction(b)


def round_floordiv(a, b):
    """`//` of round rules: whole numbers divide directly; anything else exactly, then down."""
    if type(a) is int and type(b) is int:
        return a // b
    return floordiv(a, b)


def card_text(card) -> str:
    return f"{card[0]} of {card[1]}"


def new_state(module) -> GameState:
    """The state before setup: every value at its initial value, the whole deck in order, no hand."""
    values = {name: s["initial"] for name, s in module.STATS.items()}
    values.update({name: f["initial"] for name, f in module.FLAGS.items()})
    values.update({name: t["start"] for name, t in module.TRACKS.items()})
    deck = []
    if module.CARD_DECK is not None:
        deck = [(rank, suit) for suit, _ in module.CARD_DECK["suits"] for rank, _ in module.CARD_DECK["ranks"]]
    return GameState(values, deck=deck)


def new_game(module, rng) -> tuple[GameState, list]:
    """A fresh game: the initial state after the rulebook's setup (which may shuffle and deal)."""
    state = new_state(module)
    if module.SETUP is None:
        return state, []
    return run_phase(module, "setup", state, rng)


def run_phase(module, phase: str, state: GameState, rng) -> tuple[GameState, list]:
    """Apply one phase (or "setup"); errors are reported at the rulebook line that caused them."""
    if phase == "setup":
        fn = module.SETUP
    else:
        fn = _phase_functions(module).get(phase)
    if fn is None:
        raise KeyError(phase)
    try:
        return fn(state, rng)
    except RulebookRuntimeError:
        raise
    except (ArithmeticError, TypeError, ValueError, KeyError, RecursionError) as exc:
        raise located(exc, module) from exc


def _phase_functions(module) -> dict:
    table = module.__dict__.get("_PHASE_FUNCTIONS")
    if table is None:
        table = {pid: fn for pid, _, fn in module.PHASES}
        module._PHASE_FUNCTIONS = table
    return table


def ended_by(module, state: GameState) -> str | None:
    """The text of the first `end when` condition that holds, or None."""
    if not module.ENDS:
        return None
    s = RoundState.view(module, state)
    for fn, text, _line in module.ENDS:
        if fn(s):
            return text
    return None


def play_round(module, state: GameState, rng) -> tuple[GameState, list]:
    """One round: every phase in order; stops after a phase that ends the game."""
    state = state.copy()
    state.round += 1
    trace: list = []
    for pid, _name, _fn in module.PHASES:
        state, entries = run_phase(module, pid, state, rng)
        trace.extend(entries)
        why = ended_by(module, state)
        if why is not None:
            state.ended = why
            trace.append({"round": state.round, "phase": pid, "rule": None, "line": None, "op": "end", "why": why})
            break
    return state, trace


class RoundState:
    """The working state inside one phase function: what compiled statements read and change."""

    def __init__(self, module, state: GameState, rng, phase: str | None, check: bool = True):
        self.m = module
        self.v = dict(state.values)
        # the card piles are shared with the given state until a statement changes them
        self.hand, self.deck, self.discard = state.hand, state.deck, state.discard
        self._own_cards = False
        self.on = set(state.on)
        self.choices = state.choices
        self.round = state.round
        self.ended = state.ended
        self.rng = rng
        self.phase = phase
        self.trace: list[dict] = []
        self.rules: list[str] = []
        self._checking = False
        self._pending: set = set()
        if check and module.THRESHOLDS and not state.settled:
            self._check(set(module.THRESHOLDS))  # thresholds switched on by changes made outside a phase

    @classmethod
    def view(cls, module, state: GameState) -> "RoundState":
        """A read-only view of a state, for evaluating conditions between phases (nothing copied)."""
        s = cls.__new__(cls)
        s.m, s.v, s.hand, s.deck, s.discard = module, state.values, state.hand, state.deck, state.discard
        s.on, s.choices, s.round, s.ended = state.on, state.choices, state.round, state.ended
        s.rng, s.phase, s.trace, s.rules, s._checking, s._pending = None, None, [], [], False, set()
        s._own_cards = False
        return s

    # --- reading
    def threshold(self, name: str) -> bool:
        return self.m.THRESHOLDS[name]["test"](self)

    def choice(self, name: str):
        if name in self.choices:
            return self.choices[name]
        return self.m.CHOICES[name]["default"](self)

    def hand_value(self, color=None) -> int:
        cards = self.m.CARDS
        return sum(cards[c][0] for c in self.hand if color is None or cards[c][1] == color)

    def hand_cards(self, color=None) -> int:
        if color is None:
            return len(self.hand)
        cards = self.m.CARDS
        return sum(1 for c in self.hand if cards[c][1] == color)

    def hand_limit(self) -> int:
        deck = self.m.CARD_DECK
        limit = deck["hand_limit"] if deck else None
        return limit if limit is not None else 10 ** 6

    # --- the trace
    def _entry(self, op: str, line, **data) -> dict:
        entry = {"round": self.round, "phase": self.phase, "rule": self.rules[-1] if self.rules else None,
                 "line": line, "op": op}
        entry.update(data)
        self.trace.append(entry)
        return entry

    def push_rule(self, label: str, line: int) -> None:
        self.rules.append(label)

    def pop_rule(self) -> None:
        self.rules.pop()

    def instead(self, line: int, replaced: list) -> None:
        if replaced:
            self._entry("instead", line, replaces=list(replaced))

    def _fail(self, line, message: str):
        path, column, end = self._source(line)
        raise RulebookRuntimeError(f"{path}:{line}: {message}", path, line, column, message, end)

    def _source(self, line) -> tuple:
        """The rulebook file (and column) of the rule at `line` that is running now: the generated
        code passes the line; the file comes from the source map at the innermost generated frame
        (a rule inherited from a base is in the base's file), else from the line alone."""
        filename = getattr(self.m, "__file__", None)
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == filename:
                where = source_of(self.m, frame.f_lineno)
                if where is not None and where[1] == line:
                    return where[0], where[2], where[3]
                break
            frame = frame.f_back
        sources = source_entries(getattr(self.m, "LINE_SOURCES", ""))
        files = {self.m.LINE_FILES[s[0]] for (_, rl), s in zip(self.m.LINES, sources) if rl == line}
        return (files.pop() if len(files) == 1 else self.m.SOURCE_PATH), None, None

    # --- changing values
    def _whole(self, name: str, value, line):
        if type(value) is int:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
            what = "true/false" if isinstance(value, bool) else ("a real number" if isinstance(value, float)
                                                                else type(value).__name__)
            self._fail(line, f"`{name}` holds a whole number; got {what} ({value!r})")
        if isinstance(value, Fraction):
            if value.denominator != 1:
                self._fail(line, f"`{name}` holds a whole number; got the fraction {value}")
            value = int(value)
        return value

    def _store(self, name: str, value, line):
        """Clamp into bounds, store, and return the value before."""
        spec = self.m.STATS.get(name) or self.m.TRACKS.get(name)
        if spec is not None:
            value = self._whole(name, value, line)
            if spec["low"] is not None and value < spec["low"]:
                value = spec["low"]
            if spec["high"] is not None and value > spec["high"]:
                value = spec["high"]
        elif name in self.m.FLAGS:
            if not isinstance(value, bool):
                self._fail(line, f"`{name}` is a flag: it holds true or false, not {value!r}")
        else:
            self._fail(line, f"`{name}` is not a stat, flag or track")
        before = self.v[name]
        self.v[name] = value
        return before, value

    def _after(self, name: str, before, after) -> None:
        if before == after:
            return
        track = self.m.TRACKS.get(name)
        if track is not None and after in track["marks"]:
            label, fn, mark_line = track["marks"][after]
            self._entry("reached", mark_line, track=name, position=after, label=label)
            if fn is not None:
                self.rules.append(label)
                fn(self)
                self.rules.pop()
        watch = self.m.THRESHOLD_WATCH.get(name)
        if watch:
            self._check(watch)

    def set(self, name: str, value, line: int) -> None:
        before, after = self._store(name, value, line)
        rules = self.rules
        self.trace.append({"round": self.round, "phase": self.phase, "rule": rules[-1] if rules else None,
                           "line": line, "op": "set", "name": name, "before": before, "after": after})
        if before != after:
            self._after(name, before, after)

    def add(self, name: str, delta, line: int) -> None:
        if type(delta) is not int:
            delta = self._whole(name, delta, line)
        before, after = self._store(name, self.v[name] + delta, line)
        rules = self.rules
        self.trace.append({"round": self.round, "phase": self.phase, "rule": rules[-1] if rules else None,
                           "line": line, "op": "add", "name": name, "by": delta, "before": before, "after": after})
        if before != after:
            self._after(name, before, after)

    def move(self, name: str, steps, line: int) -> None:
        steps = self._whole(name, steps, line)
        before, after = self._store(name, self.v[name] + steps, line)
        self._entry("move", line, name=name, by=steps, before=before, after=after, stage=self.stage(name, after))
        self._after(name, before, after)

    def reset(self, name: str, line: int) -> None:
        if name in self.m.TRACKS:
            value = self.m.TRACKS[name]["start"]
        elif name in self.m.STATS:
            value = self.m.STATS[name]["initial"]
        else:
            value = self.m.FLAGS[name]["initial"]
        before, after = self._store(name, value, line)
        self._entry("reset", line, name=name, before=before, after=after)
        self._after(name, before, after)

    def stage(self, track: str, position: int | None = None) -> str | None:
        position = self.v[track] if position is None else position
        for low, high, label in self.m.TRACKS[track]["stages"]:
            if low <= position <= high:
                return label
        return None

    # --- thresholds
    def _check(self, names) -> None:
        if self._checking:
            self._pending.update(names)
            return
        self._checking = True
        try:
            pending = set(names)
            for _ in range(100):
                if not pending:
                    return
                current, pending = pending, set()
                self._pending = pending
                self._switch(current)
            if pending:
                self._fail(self.m.THRESHOLDS[next(iter(pending))]["line"], "thresholds keep switching each other")
        finally:
            self._checking = False
            self._pending = set()

    def _switch(self, names) -> None:
        """Test the thresholds named, in their declared order; one whose test changed switches,
        and one that switches on runs its rule (which may make more thresholds pending)."""
        for name, th in self.m.THRESHOLDS.items():
            if name not in names:
                continue
            now = bool(th["test"](self))
            if now == (name in self.on):
                continue
            (self.on.add if now else self.on.discard)(name)
            self._entry("threshold", th["line"], name=name, label=th["name"], state="on" if now else "off")
            if now and th["body"] is not None:
                self.rules.append(th["name"])
                th["body"](self)
                self.rules.pop()

    # --- dice
    def roll(self, pool: str, line: int):
        spec = self.m.POOLS[pool]
        sides, terms, size = self._pool_dice(pool, spec, line)
        randint = self.rng.randint
        dice = [randint(1, sides) for _ in range(size)]
        success = spec["success"]
        if success is None:
            result = sum(dice)
        else:
            low, high = success
            high = sides if high is None else high
            result = sum(1 for d in dice if low <= d <= high)
        self._entry("roll", line, pool=pool, sides=sides, terms=[{"label": lb, "dice": n} for lb, n in terms if n],
                    dice=dice, result=result)
        return result

    def _pool_dice(self, pool: str, spec: dict, line: int) -> tuple[int, list, int]:
        """(sides, (label, dice) of each term, dice in all) of a pool in the state now."""
        sides, terms = spec["dice"](self)
        sides = self._whole(f"{pool}.sides", sides, line)
        if sides < 1:
            self._fail(line, f"pool `{pool}` has {sides} sides")
        terms = [(label, self._whole(pool, n, line)) for label, n in terms]
        size = max(0, sum(n for _, n in terms))
        # The pool's size and sides come from the state, known only now: held to the same bounds
        # as numbers written in a rulebook, so that no state makes a roll allocate without end.
        for field, value in (("dice", size), ("die sides", sides)):
            if value not in FIELDS[field]:
                self._fail(line, f"pool `{pool}`: {FIELDS[field].message(value)}")
        return sides, terms, size

    def roll_table(self, table: str, line: int) -> int:
        spec = self.m.EVENT_TABLES[table]
        face = self.rng.randint(1, spec["die"])
        for low, high, label, fn, row_line in spec["rows"]:
            if low <= face <= high:
                self._entry("event", row_line, table=table, face=face, row=label)
                self.rules.append(label)
                fn(self)
                self.rules.pop()
                return face
        self._fail(line, f"no row of `{table}` covers {face}")

    # --- cards
    def _cards(self) -> None:
        if not self._own_cards:
            self.hand, self.deck, self.discard = list(self.hand), list(self.deck), list(self.discard)
            self._own_cards = True

    def shuffle(self, line: int) -> None:
        self._cards()
        self.rng.shuffle(self.deck)
        self._entry("shuffle", line, cards=len(self.deck))

    def draw(self, n, line: int) -> None:
        n = self._whole("draw", n, line)
        self._cards()
        drawn = []
        limit = self.hand_limit()
        for _ in range(max(0, n)):
            if len(self.hand) >= limit:
                break
            if not self.deck:
                if not self.discard:
                    break
                self.deck, self.discard = self.discard, []
                self.rng.shuffle(self.deck)
                self._entry("reshuffle", line, cards=len(self.deck))
            card = self.deck.pop(0)
            self.hand.append(card)
            drawn.append(card_text(card))
        self._entry("draw", line, asked=n, cards=drawn)
        if drawn and "@hand" in self.m.THRESHOLD_WATCH:
            self._check(self.m.THRESHOLD_WATCH["@hand"])

    def discard_to(self, n, line: int) -> None:
        """Discard down to n cards, the lowest-valued first (among equals, the earliest held)."""
        n = max(0, self._whole("discard", n, line))
        self._cards()
        gone = []
        cards = self.m.CARDS
        while len(self.hand) > n:
            i = min(range(len(self.hand)), key=lambda k: (cards[self.hand[k]][0], k))
            card = self.hand.pop(i)
            self.discard.append(card)
            gone.append(card_text(card))
        self._entry("discard", line, to=n, cards=gone)
        if gone and "@hand" in self.m.THRESHOLD_WATCH:
            self._check(self.m.THRESHOLD_WATCH["@hand"])

    def finish(self) -> tuple[GameState, list]:
        state = GameState.__new__(GameState)  # hands over this phase's values without copying them again
        state.values, state.on, state.choices = self.v, self.on, self.choices
        state.hand, state.deck, state.discard = self.hand, self.deck, self.discard
        state.round, state.ended, state.settled = self.round, self.ended, True
        return state, self.trace
