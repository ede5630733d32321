"""The ABI of generated code: what compiled rulebook modules call, and nothing else.

Generated modules hold an edition's data as literals and its rules as plain functions; this
module supplies the arithmetic over unknown values their expressions use, the player state they
read, the `Resolution` they build, the effect-list passes a calamity's rules run (effectlist.py), the epoch
requirements they state, and the readers of their data tables and line maps. The engines that
interpret the policies a rulebook declares live in their own modules below it (`pricing`,
`handvalue`, `standing`): the player state derives a few facts from them. It imports nothing
from the compiler, so answering a question never loads the parser.
"""

from __future__ import annotations

import functools
import math
import operator
from operator import itemgetter

from . import playerfacts
from .calamity_answer import option_dicts, resolution_dict, trace_dicts
from .effectlist import bound_effects, discard_by_value, floor_effects, least_over  # noqa: F401 (ABI)
from .effectlist import reduce_until_supported, unselect  # noqa: F401 (ABI: generated calamities call them)
from .losses import floor_step, unless_immune  # noqa: F401 (ABI: generated calamities call them)
from .standing import NOT_GIVEN_POSITION, epochs_possible
from .standing import requirement, requirement_any, requirement_bool  # noqa: F401 (ABI: generated epochs call them)
from .unknown import Unknown, unknown_of

# The ABI of generated code: exactly the names that compiled rulebook modules call (as
# `_rt.NAME` or imported by name), checked against every code generator path by
# tests/test_runtime_abi.py. Everything else here serves these names; the engines live in their
# own modules (pricing, handvalue, standing), and callers import them from there.
__all__ = [
    "PlayerState", "Resolution", "Unknown",
    "this_module", "records", "line_map", "unknown_of",
    "not_", "and_", "or_", "div", "floordiv", "floor", "ceil", "sqrt", "abs", "min_", "max_", "lookup",
    "requirement", "requirement_any", "requirement_bool",
    "change", "assigned", "cancelled", "bound_effects", "discard_by_value", "least_over",
    "reduce_until_supported", "unless_immune", "unselect", "floor_effects", "floor_step",
    "trade_decks",
]


def this_module(name: str):
    """The generated module itself, which its rule functions hand to `Resolution`."""
    import sys
    return sys.modules[name]


# --- arithmetic helpers used by compiled expressions -----------------------------------------

def div(a, b):
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    from fractions import Fraction  # here, not at the top: most answers never divide (start-up)

    return Fraction(a) / Fraction(b)


def floordiv(a, b):
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    from fractions import Fraction

    return math.floor(Fraction(a) / Fraction(b))


def floor(x):
    return math.floor(x)


def ceil(x):
    return math.ceil(x)


def sqrt(x):
    return x if x.__class__ is Unknown else math.sqrt(x)


def min_(a, b):
    """The rulebook's `min` (two values; unknown if either is)."""
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return b if b < a else a


def max_(a, b):
    """The rulebook's `max`."""
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return b if b > a else a


def change(trace: list, op: str, kind: str, param: str, value, old, by: tuple, line: int, path: str):
    """A modifier operation whose condition held: the parameter's new value, traced.

    One call in the generated module instead of a trace tuple and an assignment per operation:
    the module is shorter, and compile() (a large part of building a rulebook) has less to do."""
    new = _CHANGES[op](old, value)
    trace.append((op, kind, param, value, old, new, by, line, path))
    return new


# each changing modifier operation (syntax.ChangeOp's word): (the old value, the operation's value) -> new
_CHANGES = {"add": operator.add, "prevent": operator.sub, "cap": min_, "set": lambda old, v: v}


abs = abs  # noqa: A001 - re-exported under the rulebook's name; Unknown answers abs() itself


# Kleene's three-valued logic for `and`, `or` and `not`: a known answer wherever the known part
# decides it ("false and unknown" is false), unknown otherwise. The right side is a thunk so that
# it is evaluated only when Python's own short-circuit would evaluate it, or when the left side
# is unknown (then its facts are needed too).

def not_(x):
    return x if x.__class__ is Unknown else not x


def _kleene(decisive: bool, a, *rights):
    """`a and r1 and r2 ...` (DECISIVE False) or `a or r1 or r2 ...` (True): the first known value
    whose truth is DECISIVE ends the chain; else the unknown ones joined, else the last value (a
    chain is one call: deep nesting would strain Python's parser)."""
    unknown = None
    for right in (None, *rights):
        v = a if right is None else right()
        if v.__class__ is Unknown:
            unknown = v if unknown is None else unknown_of(unknown, v)
        elif bool(v) is decisive:
            return v
    return unknown if unknown is not None else v


and_ = functools.partial(_kleene, False)
or_ = functools.partial(_kleene, True)


def lookup(bands, x):
    if x.__class__ is Unknown:
        return x
    for low, high, value in bands:
        if x >= low and (high is None or x <= high):
            return value
    raise ValueError(f"no band of the table covers {x}")


# --- the player's situation ---------------------------------------------------------------

class PlayerState:
    """Facts about one player. Missing facts are recorded, not guessed: see `missing`."""

    def __init__(self, module, holds=(), facts: dict | None = None, options: dict | None = None):
        self.module = module
        self.held = tuple(holds)
        self.held_set = frozenset(holds)
        # the rule switches the user set (`--option NAME=on|off`); the others keep the rulebook's
        self.options = dict(options or {})
        # the amount the primary victim assigned to this secondary victim (`--assigned N`)
        self.assigned: int | None = None
        self.facts = dict(facts or {})
        self.missing: list[str] = []
        self.start_credits: dict | None = None  # what `start_credits` gave, once applied to `credits`
        # decisions a rule could not take because they depend on missing facts:
        # (rulebook line, path, what was left undecided, the facts it needs)
        self.undecided: list[tuple] = []
        # the player's seat at a table (`civdsl table`): who the others are, how they border this
        # player, and who the beneficiary and trader of the calamity resolved are. None for a
        # question about one player: table queries then read as unknown (missing `other_players`)
        self.seat = None

    @property
    def complete(self) -> bool:
        return not self.missing

    def holds(self, name: str) -> bool:
        return name in self.held_set

    def given(self, name: str):
        """The fact NAME as the state gives it, or None (nothing derived or recorded missing)."""
        return self.facts.get(name)

    def gives(self, name: str) -> bool:
        return name in self.facts

    def probe(self) -> "PlayerState":
        """A state of the same holdings and facts that records what it lacks on its own (whether
        a condition can be decided at all)."""
        return type(self)(self.module, self.held, self.facts)

    def for_question(self, facts: dict | None = None) -> "PlayerState":
        """A copy for one question: the same holdings, facts (and FACTS over them), options and
        start credits, with its own record of what it lacks and leaves undecided, and no seat.
        Built without __init__'s copies of the holdings, which never change."""
        copy = object.__new__(type(self))
        copy.__dict__.update(vars(self))
        copy.facts = {**self.facts, **facts} if facts else dict(self.facts)
        copy.options = dict(self.options)
        copy.missing, copy.undecided, copy.assigned, copy.seat = [], [], None, None
        return copy

    def with_fact(self, name: str, value) -> "PlayerState":
        """A copy reading VALUE for the fact NAME; it shares what is missing and undecided with
        this state, so what its readers lack is recorded here too."""
        copy = object.__new__(type(self))
        copy.__dict__.update(vars(self))
        copy.facts = {**self.facts, name: value}
        return copy

    def _missing(self, name: str) -> Unknown:
        if name not in self.missing:
            self.missing.append(name)
        return Unknown((name,))

    def fact(self, name: str):
        if name in self.facts:
            return self.facts[name]
        if name == "unit_points" and self._counts_units():
            return self._unit_points()
        defaults = getattr(self.module, "FACT_DEFAULTS", {})
        if name in defaults:  # an absent fact with a meaning of its own (no scenario: the full game)
            return defaults[name]
        if name in getattr(self.module, "LAST_EPOCH_FACTS", ()) and not self.may_be_in_last_epoch():
            return False
        field = getattr(self.module, "CIVILIZATION_FACTS", {}).get(name)
        if field is not None:
            return self._of_civilization(name, field)
        return self._missing(name)

    def _of_civilization(self, name: str, field: str):
        """An absent fact that is the civilization's declaration (vocabulary.CIVILIZATION_FACTS): its
        value where the rulebook gives one; else missing, named as the civilization when it is not
        given and the fact itself when the rulebook declares no value for it."""
        civ = self.facts.get("civilization")
        if civ is None:
            return self._missing("civilization")
        value = getattr(self.module, "CIVILIZATIONS", {}).get(civ, {}).get(field)
        return self._missing(name) if value is None else value

    def may_be_in_last_epoch(self) -> bool:
        """Whether the marker may be in the last epoch of the track in play (the state's
        `ast_track`, else any track): false only where its position (or `ast_epoch`) rules it out."""
        position = self.facts.get("ast_position")
        if position is None and "ast_epoch" not in self.facts:
            return True
        chosen = self.facts.get("ast_track")
        tracks = [chosen] if chosen in self.module.AST else list(self.module.AST)
        for track in tracks:
            possible, _ = epochs_possible(self.module, track, self, NOT_GIVEN_POSITION if position is None else position)
            if len(self.module.AST[track]["epochs"]) - 1 in possible:
                return True
        return False

    def _counts_units(self) -> bool:
        """Whether unit points can be derived: the state gives tokens and cities."""
        return "tokens" in self.facts and "cities" in self.facts

    def _unit_points(self, city=None):
        """`unit_points` derived from tokens and cities, each counted as the rulebook's
        `token_points` and `city_points` constants say (vocabulary.ENGINE_NAMES), or a city as
        CITY where a calamity declares its own value."""
        points = self.module.UNIT_POINTS
        city = points["city"] if city is None else city
        return self.facts["tokens"] * points["token"] + self.facts["cities"] * city

    def holding(self, name: str, city=None):
        """What the player has of a bounding fact (vocabulary.BOUNDS), or None when the state does
        not say: a bound is applied only to a holding the user gave. `city`: a city's unit points
        where a calamity declares its own (unit points then count from tokens and cities)."""
        if name == "unit_points":
            return self._unit_holding(city)
        if name in self.facts:
            return self.facts[name]
        hand = self.facts.get("commodities")
        of_hand = _HAND_HOLDINGS.get(name)
        return None if hand is None or of_hand is None else of_hand(self.module, hand)

    def _unit_holding(self, city):
        """The unit points held: counted from tokens and cities where a calamity values a city its
        own way (CITY), else as the state gives them, else counted from tokens and cities."""
        if city is not None and self._counts_units():
            return self._unit_points(city)
        if "unit_points" in self.facts:
            return self.facts["unit_points"]
        return self._unit_points() if self._counts_units() else None

    # --- table queries (vocabulary.FUNCTIONS of scope "table"; issue 13 §3) ---------------------
    def _others_fact(self, value, who: str):
        """A value computed from another player's facts: what it lacks is missing here too, named
        by that player (`players.bob.cities_in_stock`)."""
        if value.__class__ is Unknown:
            named = tuple(f"players.{who}.{f}" for f in value.facts)
            for f in named:
                self._missing(f)
            return Unknown(named)
        return value

    def neighbours(self, by: str):
        """How many other players border this one by the relation (land, water, near)."""
        related = self._related(by)
        return related if related.__class__ is Unknown else len(related)

    def _related(self, relation: str):
        """The (name, state) of the players related to this one, or Unknown when the table does
        not give the relation (no table: `other_players`; no `borders.land`: that)."""
        if self.seat is None:
            return self._missing("other_players")
        related = self.seat.related(relation)
        return self._missing(self.seat.missing(relation)) if related is None else related

    def most_among(self, value, among: str):
        """The largest value of `value` (a function of a player's state) among the related players."""
        related = self._related(among)
        if related.__class__ is Unknown:
            return related
        best = 0
        for name, other in related:
            best = max_(best, self._others_fact(value(other), name))
        return best

    def of_role(self, role: str, value):
        """`value` for the beneficiary or the trader of the calamity resolved (unknown when there
        is none: the rule cannot be decided)."""
        if self.seat is None:
            return self._missing("other_players")
        found = self.seat.role(role)
        if found is None:
            return self._missing(role)
        name, other = found
        return self._others_fact(value(other), name)

    def option(self, name: str) -> bool:
        value = self.options.get(name)
        return self.module.OPTIONS[name] if value is None else value

    def decide(self, value, line: int, path: str, what: str) -> bool:
        """Whether a rule applies: never guessed when its condition is unknown (recorded instead)."""
        if value.__class__ is Unknown:
            self.undecided.append((line, path, what, value.facts))
            return False
        return bool(value)

    def cards(self, name: str):
        hand = self.facts.get("commodities")
        if hand is None:
            return self._missing("commodities")
        return int(hand.get(name, 0))

    def advance_vp(self, name: str):
        return playerfacts.advance_vp(self, name)

    def count_advances(self, cost_at_least=None, cost_below=None, vp=None, group=None) -> int:
        return playerfacts.count_advances(self, cost_at_least, cost_below, vp, group)

    def derived(self, name: str):
        """A name of vocabulary.DERIVED_NAMES (playerfacts.derived)."""
        return playerfacts.derived(self, name)


def _hand_cards(module, hand: dict) -> int:
    return sum(hand.values())


def _hand_face_value(module, hand: dict) -> int:
    return sum(n * module.COMMODITIES[c]["value"] for c, n in hand.items())


# the holdings (vocabulary.BOUNDS) counted from the hand of commodity cards the state gives
_HAND_HOLDINGS = {"commodity_cards": _hand_cards, "commodity_face_value": _hand_face_value}


# --- calamity resolution ------------------------------------------------------------------

class EffectResult:
    """One effect a victim suffers, with its final parameters."""

    __slots__ = ("kind", "args", "line")

    def __init__(self, kind: str, args: dict, line: int):
        self.kind = kind
        self.args = args
        self.line = line

    @property
    def amount(self):
        return self.args.get("amount", True)


class Resolution(tuple):
    """What one victim suffers from one calamity, with a trace of every rule that changed it.

    Compiled calamity functions compute everything in straight-line code and build one of
    these at the end, as a single tuple (module, calamity, role, state, effects, assignment,
    trace, options, immune, cancel_reason, excluded): creating it costs next to nothing, and
    the readable views below are computed only when asked for. Effects are (kind, args, line),
    trace entries (op, kind, param, value, before, after, by, line), options (instead_of, kind,
    args, each, by, line), the assignment (count, share, [(kind, args)], line).
    """

    __slots__ = ()

    module = property(itemgetter(0))
    calamity = property(itemgetter(1))
    role = property(itemgetter(2))
    state = property(itemgetter(3))
    _effects = property(itemgetter(4))
    assignment = property(itemgetter(5))
    _trace = property(itemgetter(6))
    _options = property(itemgetter(7))
    immune = property(itemgetter(8))
    cancel_reason = property(itemgetter(9))  # (line, why, path)
    excluded = property(itemgetter(10))  # (line, why, path)

    @classmethod
    def make(cls, module, calamity: str, role: str, state: "PlayerState", effects: list, assignment=None, trace=(),
             options=(), immune: bool = False, cancel_reason=None, excluded=None) -> "Resolution":
        return cls((module, calamity, role, state, effects, assignment, trace, options, immune, cancel_reason, excluded))

    @property
    def is_cancelled(self) -> bool:
        return self.cancel_reason is not None

    @property
    def effects(self) -> list[EffectResult]:
        return [EffectResult(kind, args, line) for kind, args, line in self._effects]

    @property
    def trace(self) -> list[dict]:
        return trace_dicts(self._trace)

    @property
    def options(self) -> list[dict]:
        return option_dicts(self._options)

    def amount(self, kind: str):
        """The amount the rule demands (see `taken` for what the player actually loses)."""
        for k, args, _line in self._effects:
            if k == kind:
                return args.get("amount", True)
        return None

    def taken(self, kind: str):
        """The amount actually taken: the demanded one, bounded by the player's holding where
        the edition bounds amounts and the state gives the holding."""
        for k, args, _line in self._effects:
            if k == kind:
                return args.get("taken", args.get("amount", True))
        return None

    @property
    def complete(self) -> bool:
        """False when the answer depends on a fact the user did not give (see `missing_facts`)."""
        return self.state.complete

    def to_dict(self) -> dict:
        return resolution_dict(self.calamity, self.role, self.state, self._effects, self.assignment, self._trace,
                               self._options, self.immune, self.cancel_reason, self.excluded)


def assigned(s: PlayerState, most, kind: str):
    """The amount assigned to a secondary victim: at most the per-player amount the rule allows."""
    if type(most) is not Unknown and s.assigned > most:
        from .errors import StateError

        raise StateError(f"--assigned {s.assigned}: a secondary victim of this calamity suffers at most {most} "
                         f"({kind.replace('_', ' ')})")
    return s.assigned


def cancelled(module, calamity: str, role: str, state: PlayerState, line: int, why: str, path: str) -> Resolution:
    return Resolution.make(module, calamity, role, state, [("cancelled", {}, line)], cancel_reason=(line, why, path))


def records(lines: tuple[str, ...]) -> dict:
    """A generated module's data table: each line the JSON text of [name, data]; every JSON
    array is read as a tuple (the tables hold tuples, never lists)."""
    import json

    out = {}
    for line in lines:
        key, data = json.loads(line, object_pairs_hook=_json_object, parse_constant=_no_constant)
        out[key] = _tuples(data)
    return out


def trade_decks(lines: tuple[str, ...]) -> tuple[dict, ...]:
    """A generated module's TRADE_DECKS: each line the JSON text of a deck whose `stacks` are
    [number, layers] pairs (a stack's number is an int, which a JSON key cannot be), every JSON
    array read as a tuple."""
    import json

    decks = []
    for line in lines:
        deck = json.loads(line, object_pairs_hook=_json_object, parse_constant=_no_constant)
        deck["stacks"] = dict(deck["stacks"])
        decks.append(deck)
    return tuple(decks)


def _json_object(pairs: list) -> dict:
    return {k: _tuples(v) for k, v in pairs}


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _no_constant(name: str):
    raise ValueError(f"{name} is not a value of a rulebook table")


def line_map(pairs: str) -> tuple[tuple[int, int], ...]:
    """A generated module's LINES: `"12:40 15:41"` -> ((12, 40), (15, 41)), generated line first."""
    out = []
    for pair in pairs.split():
        generated, rule = pair.split(":")
        out.append((int(generated), int(rule)))
    return tuple(out)
