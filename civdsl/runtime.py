"""The small runtime that compiled rulebook modules call.

Generated modules hold an edition's data as literals and its rules as plain functions; this
module supplies the player state they read, the `Resolution` they build, and the generic
engines (credits, epochs, scoring) that interpret the policies a rulebook declares. It imports
nothing from the compiler, so answering a question never loads the parser.
"""

from __future__ import annotations

import functools
import math
import sys
import operator
from operator import itemgetter

from .errors import RulebookRuntimeError  # noqa: F401 (raised here; re-exported for callers)

# The ABI of generated code: exactly the names that compiled rulebook modules call (as
# `_rt.NAME` or imported by name), checked against every code generator path by
# tests/test_runtime_abi.py. Everything else here is an engine that callers import by name and
# that is due to move to its own module (docs/architecture.md, "runtime.py as an ABI").
__all__ = [
    "PlayerState", "Resolution", "Unknown",
    "this_module", "records", "line_map", "unknown_of",
    "not_", "and_", "or_", "div", "floordiv", "floor", "ceil", "sqrt", "abs", "min_", "max_", "lookup",
    "requirement", "requirement_any", "requirement_bool",
    "change", "assigned", "cancelled", "bound_effects", "discard_by_value", "least_over",
    "reduce_until_supported", "unless_immune", "unselect", "floor_effects", "floor_step",
]


class MissingFact(Exception):
    pass




def this_module(name: str):
    """The generated module itself, which its rule functions hand to `Resolution`."""
    import sys
    return sys.modules[name]


# --- arithmetic helpers used by compiled expressions -----------------------------------------

class Unknown:
    """A value the answer cannot know because it depends on facts the user did not give.

    A missing fact is never read as 0 (that could cancel a calamity or make a negative count):
    it reads as an Unknown naming the fact, and everything computed from it is Unknown too,
    naming every fact it depends on. An Unknown has no truth value: each place where a rule
    decides (a cancel condition, a modifier, a branch) asks `PlayerState.decide`, which records
    the decision as undecided instead of guessing either way.
    """

    __slots__ = ("facts",)

    def __init__(self, facts: tuple[str, ...]):
        self.facts = facts

    def __repr__(self) -> str:
        return f"unknown({', '.join(self.facts)})"

    def __bool__(self):
        raise TypeError(f"a rule decided on an unknown value (it needs {', '.join(self.facts)})")

    def _join(self, *others) -> "Unknown":
        return unknown_of(self, *others)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _join
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _join
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _join  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __neg__(self):
        return self

    __pos__ = __abs__ = __floor__ = __ceil__ = __neg__


def unknown_of(*values) -> Unknown:
    """The Unknown that depends on every fact any of `values` depends on (in first-seen order)."""
    facts: list[str] = []
    for v in values:
        if v.__class__ is Unknown:
            facts.extend(f for f in v.facts if f not in facts)
    return Unknown(tuple(facts))


def known(v) -> bool:
    return v.__class__ is not Unknown


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


def floor_step(trace: list, kind: str, param: str, old, line: int, path: str):
    """An amount below zero becomes zero here (`amounts { floor zero }`, or the `floor` step of
    its `order`), traced; an absent or unknown amount stays as it is."""
    if old is None or old.__class__ is Unknown or old >= 0:
        return old
    trace.append(("floor", kind, param, 0, old, 0, (), line, path))
    return 0


def floor_effects(effects: list, trace: list, mains: dict, line: int, path: str) -> None:
    """The edition's `floor zero` over a finished effect list: each main amount of the kinds in
    MAINS (kind -> its main parameter) that went below zero becomes zero, traced."""
    for kind, args, _ in effects:
        param = mains.get(kind)
        if param is not None:
            args[param] = floor_step(trace, kind, param, args[param], line, path)


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


def number(v):
    """Integral Fractions print as integers; an unknown value prints as None (null in JSON)."""
    # a Fraction exists only once `fractions` is imported (by div), so an answer that never
    # divided need not import it to ask
    fractions = sys.modules.get("fractions")
    if fractions is not None and isinstance(v, fractions.Fraction) and v.denominator == 1:
        return int(v)
    if v.__class__ is Unknown:
        return None
    return v


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
            possible, _ = epochs_possible(self.module, track, self, _NOT_GIVEN if position is None else position)
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
        """An advance's victory points under the question's rule options: the first `vp tiers
        when OPTION` reading switched on that gives it another figure, else the rulebook's."""
        adv = self.module.ADVANCES[name]
        for option, vp in adv.get("vp_when", ()):
            if self.option(option):
                return vp
        return adv["vp"]

    def count_advances(self, cost_at_least=None, cost_below=None, vp=None, group=None) -> int:
        n = 0
        for name in self.held:
            adv = self.module.ADVANCES[name]
            cost = adv["cost"]
            if cost_at_least is not None and (cost is None or cost < cost_at_least):
                continue
            if cost_below is not None and (cost is None or cost >= cost_below):
                continue
            if vp is not None and self.advance_vp(name) != vp:
                continue
            if group is not None and group not in adv["groups"]:
                continue
            n += 1
        return n

    def derived(self, name: str):
        """A name of vocabulary.DERIVED_NAMES, computed from the state by its `_derived_<name>`."""
        compute = getattr(self, f"_derived_{name}", None)
        if compute is None:
            raise KeyError(name)
        return compute()

    def _held_records(self) -> list[dict]:
        return [self.module.ADVANCES[n] for n in self.held]

    def _derived_advances(self):
        return len(self.held)

    def _derived_advance_vp(self):
        return sum(self.advance_vp(n) or 0 for n in self.held)

    def _derived_advance_points(self):
        return sum(a["cost"] or 0 for a in self._held_records())

    def _derived_groups_held(self):
        return len({g for a in self._held_records() for g in a["groups"]})

    def _credits(self) -> dict[str, int]:
        return group_credits(self.module, self.held, self.facts.get("credits", {}))

    def _derived_credit_max_group(self):
        credits = self._credits()
        return max(credits.values()) if credits else 0

    def _derived_credit_total(self):
        return sum(self._credits().values())

    def _derived_commodity_cards(self):
        if "commodities" not in self.facts:
            return self._missing("commodities")
        return sum(self.facts["commodities"].values())

    def _derived_hand_value(self):
        if "commodities" not in self.facts:
            return self._missing("commodities")
        return hand_value(self.module, self.facts["commodities"])["total"]

    def _derived_ast_points(self):
        standing = ast_standing(self.module, self)
        return standing["points"] if standing else 0

    def _derived_stock_points(self):  # cities and tokens in stock, in unit points (Expansion 30.4112)
        points = self.module.UNIT_POINTS
        return self.fact("cities_in_stock") * points["city"] + self.fact("tokens_in_stock") * points["token"]


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
        out = []
        for op, kind, param, value, before, after, by, line, path in self._trace:
            entry = {"op": op, "kind": kind, "param": param, "value": number(value), "before": number(before),
                     "after": number(after), "by": list(by), "path": path, "line": line}
            needs = unknown_of(value, before, after).facts
            if needs:
                entry["depends_on"] = list(needs)
            out.append(entry)
        return out

    @property
    def options(self) -> list[dict]:
        return [{"instead_of": instead, "kind": kind, "args": {k: number(v) for k, v in args.items()}, "each": each,
                 "by": list(by), "path": path, "line": line} for instead, kind, args, each, by, line, path in self._options]

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
        out = {
            "calamity": self.calamity,
            "role": self.role,
            "complete": self.state.complete,
            "cancelled": self.is_cancelled,
            "immune": number(self.immune),
            "effects": [effect_dict(kind, args) for kind, args, _ in self._effects],
            "trace": self.trace,
            "options": self.options,
            "missing_facts": list(self.state.missing),
            "undecided": undecided(self.state),
        }
        for key, reason in (("cancel_reason", self.cancel_reason), ("excluded", self.excluded)):
            if reason:
                line, why, where = reason
                out[key] = {"line": line, "path": where, "why": why}
        if self.assignment:
            count, share, effects, line = self.assignment
            out["secondary"] = {"count": number(count), "share": number(share), "line": line,
                                "effects": [effect_dict(k, args) for k, args in effects]}
            needs = unknown_of(count, share).facts
            if needs:
                out["secondary"]["depends_on"] = list(needs)
        return out


def effect_dict(kind: str, args: dict) -> dict:
    """An effect as data; a parameter that depends on missing facts is null, and `depends_on`
    names those facts."""
    out = {"kind": kind, **{k: number(v) for k, v in args.items()}}
    needs = unknown_of(*args.values()).facts
    if needs:
        out["depends_on"] = list(needs)
    return out


def undecided(state: "PlayerState") -> list[dict]:
    return [{"line": line, "path": path, "what": what, "depends_on": list(facts)}
            for line, path, what, facts in state.undecided]


def bound_effects(s: PlayerState, effects: list, trace: list, bounds: dict, path: str, city=None) -> None:
    """Nothing beyond what the player has: each effect whose kind a holding bounds gets `bound`
    (the fact) and, when the state gives it, `taken` = the smaller of the demanded amount and the
    holding; the trace says when the bound applied. `amount` stays the amount the rule demands.
    `city`: a city's unit points for this calamity (`amounts { city_points ... }`)."""
    for i, (kind, args, line) in enumerate(effects):
        fact = _bounding_fact(bounds, kind, args)
        demanded = args.get("amount")
        if fact is None or demanded is None or type(demanded) is Unknown:
            continue
        have = s.holding(fact, city)
        new = dict(args)
        new["bound"] = fact
        if have is not None:
            taken = demanded if demanded <= have else have
            new["taken"] = taken
            if taken < demanded and "unselected" not in args:  # a selection is bounded by unselect
                trace.append(("bound", kind, "amount", have, demanded, taken, (fact,), line, path))
        effects[i] = (kind, new, line)


def _bounding_fact(bounds: dict, kind: str, args: dict) -> str | None:
    """The holding that bounds an effect of KIND in its area (BOUNDS: the rulebook's reading of
    vocabulary.BOUNDS, kind -> area or "*" -> fact), or None when none does."""
    by_area = bounds.get(kind)
    if not by_area:
        return None
    return by_area.get(args.get("area", "any"), by_area.get("*"))


def unselect(s: PlayerState, effects: list, trace: list, bounds: dict, path: str) -> None:
    """Select, then unselect: an effect carrying `unselected` (the prevention declared for it) first
    selects `selected` (its amount before prevention, never more than the bounding holding when the
    state gives it), then unselects up to that many; the rest are taken. `selected`, `unselected` and
    `taken` replace the plain bound of such an effect."""
    for i, (kind, args, line) in enumerate(effects):
        if "unselected" not in args:
            continue
        new = dict(args)
        wanted, prevented = new.pop("selected"), new.pop("unselected")
        if type(wanted) is Unknown or type(prevented) is Unknown:
            effects[i] = (kind, new, line)
            continue
        fact = _bounding_fact(bounds, kind, args)
        have = s.holding(fact) if fact is not None else None
        selected = max(wanted, 0) if have is None else max(min(wanted, have), 0)
        unselected = min(max(prevented, 0), selected)
        new.pop("taken", None)
        new["select"] = {"selected": selected, "unselected": unselected}
        new["taken"] = selected - unselected
        if have is not None and wanted > have:
            trace.append(("bound", kind, "amount", have, wanted, selected, (fact,), line, path))
        effects[i] = (kind, new, line)


def reduce_until_supported(s: PlayerState, effects: list, kinds: dict) -> None:
    """Reduce until supported: with the cities, tokens and reduced_city_tokens the state gives, the
    support check at the changed rate (or with tokens withheld) reduces one city at a time, the
    tokens it leaves counting at once, until the rest are supported; adds `support` = {rate,
    withheld, reduced, cities_left} to each such effect. Withheld tokens are never more than the
    tokens on the board; the tokens a reduced city leaves always count. Without
    reduced_city_tokens the procedure still runs where its result does not depend on it (every
    city supported, or reduced alike whether a city leaves none or enough for the rest); a fact
    the result depends on is recorded missing, so the answer says it is incomplete."""
    for i, (kind, args, line) in enumerate(effects):
        what = kinds.get(kind)
        amount = args.get("amount")
        if what is None or amount is None or type(amount) is Unknown:
            continue
        cities, tokens = s.fact("cities"), s.fact("tokens")
        if type(cities) is Unknown or type(tokens) is Unknown:
            continue
        rate = _city_support(s) + amount if what == "rate" else _city_support(s)
        withheld = min(amount, tokens) if what == "withheld" else 0
        left = _cities_left(s, cities, tokens - withheld, rate)
        if left is None:
            continue
        effects[i] = (kind, {**args, "support": {"rate": rate, "withheld": withheld, "reduced": cities - left,
                                                 "cities_left": left}}, line)


def _cities_left(s: PlayerState, cities: int, available: int, rate: int) -> int | None:
    """The cities the support check leaves; without reduced_city_tokens, the same count whether a
    reduced city leaves no token or enough to support every other city, else None (the fact
    recorded missing)."""
    leave = s.facts.get("reduced_city_tokens")
    if leave is not None:
        return _cities_supported(cities, available, rate, leave)
    fewest = _cities_supported(cities, available, rate, 0)
    if fewest == _cities_supported(cities, available, rate, max(rate, 0) * cities):
        return fewest
    s.fact("reduced_city_tokens")  # recorded as missing: the count depends on it
    return None


def _city_support(s: PlayerState) -> int:
    """The tokens a city needs: the `city_support` constant changed by the held advances'
    `city_support` abilities."""
    base = s.module.CONSTS.get("city_support", 2)
    for name in sorted(s.held_set):
        if name in s.module.ADVANCES:
            base += sum(a.get("delta", 0) for a in ability(s.module, name, "city_support"))
    return base


def _cities_supported(cities: int, available: int, rate: int, leave: int) -> int:
    """The cities left once reduced one at a time, the tokens each leaves counting at once, until
    the AVAILABLE tokens support the rest at RATE."""
    left = cities
    while left > 0 and available < rate * left:
        left -= 1
        available += leave
    return left


def least_over(s: PlayerState, effects: list, kinds: tuple, city=None) -> None:
    """A loss of unit points met exactly, or exceeded by as little as possible (1981 22.2.12.2,
    Expansion 29.64), from the cities and tokens the state gives: adds `loss` = {cities, tokens,
    over} to each such effect. Among equally small excesses the fewest cities go (our reading:
    a player keeps his cities where he can)."""
    cities, tokens = s.facts.get("cities"), s.facts.get("tokens")
    if None in (cities, tokens):
        return
    value = s.module.UNIT_POINTS["city"] if city is None else city  # a calamity's own city value
    for i, (kind, args, line) in enumerate(effects):
        if kind not in kinds or args.get("area", "any") != "any":
            continue
        need = args.get("taken", args.get("amount"))
        if need is None or type(need) is Unknown or need <= 0:
            continue
        effects[i] = (kind, {**args, "loss": _least_loss(need, cities, tokens, value)}, line)


def _least_loss(need: int, cities: int, tokens: int, value: int) -> dict:
    """The cities (each worth VALUE) and tokens that meet NEED with the least excess, then the
    fewest cities; everything when the player has less."""
    best = None
    for k in range(cities + 1):
        t = max(need - k * value, 0)
        key = (k * value + t - need, k)
        if t <= tokens and (best is None or key < best[0]):
            best = (key, k, t)
    if best is None:  # more than he has: everything goes (what the bound takes)
        return {"cities": cities, "tokens": tokens, "over": 0}
    (over, _), k, t = best
    return {"cities": k, "tokens": t, "over": over}


def discard_by_value(s: PlayerState, effects: list, kinds: tuple) -> None:
    """Commodity cards worth at least the amount in face value, from the hand the state gives: the
    selection with the least excess, then the fewest cards (the victim's best choice; any other
    meeting the amount is legal), or the whole hand when it is worth less. Adds `discard` =
    {cards: {name: n}, face_value, over} to each such effect."""
    hand = s.facts.get("commodities")
    if hand is None:
        return
    faces = s.module.COMMODITIES
    cards = [name for name in sorted(hand) for _ in range(hand[name])]
    for i, (kind, args, line) in enumerate(effects):
        need = args.get("taken", args.get("amount"))
        if kind not in kinds or need is None or type(need) is Unknown:
            continue
        chosen, value = _cheapest_discard(cards, faces, need)
        effects[i] = (kind, {**args, "discard": {"cards": chosen, "face_value": value,
                                                 "over": max(0, value - need)}}, line)


def _cheapest_discard(cards: list[str], faces: dict, need) -> tuple[dict, int]:
    """({card: n}, face value) of the cards worth at least `need` with the least excess, then the
    fewest cards; the whole hand when it is worth less."""
    best = _fewest_cards_by_value(cards, faces)
    enough = [v for v in best if v >= need]
    if enough:
        value = min(enough, key=lambda v: (v, len(best[v])))
        picked = best[value]
    else:
        value, picked = sum(faces[c]["value"] for c in cards), range(len(cards))
    chosen: dict = {}
    for index in picked:
        chosen[cards[index]] = chosen.get(cards[index], 0) + 1
    return chosen, value


def _fewest_cards_by_value(cards: list[str], faces: dict) -> dict[int, tuple]:
    """Face value -> the fewest cards (their indices in CARDS) worth exactly that much, for every
    value up to the whole hand's worth."""
    best: dict = {0: ()}
    for index, name in enumerate(cards):
        face = faces[name]["value"]
        for v, picked in list(best.items()):
            w = v + face
            if w not in best or len(best[w]) > len(picked) + 1:
                best[w] = picked + (index,)
    return best


def assigned(s: PlayerState, most, kind: str):
    """The amount assigned to a secondary victim: at most the per-player amount the rule allows."""
    if type(most) is not Unknown and s.assigned > most:
        from .errors import StateError

        raise StateError(f"--assigned {s.assigned}: a secondary victim of this calamity suffers at most {most} "
                         f"({kind.replace('_', ' ')})")
    return s.assigned


def unless_immune(immune, value):
    """An effect's amount for a victim who may be immune (an unknown immunity: an unknown amount)."""
    if value is None or immune is False:
        return value
    if immune.__class__ is Unknown:
        return unknown_of(immune, value)
    return 0 if immune else value


def cancelled(module, calamity: str, role: str, state: PlayerState, line: int, why: str, path: str) -> Resolution:
    return Resolution.make(module, calamity, role, state, [("cancelled", {}, line)], cancel_reason=(line, why, path))


def clamp(value):
    """Effects never go below zero (prevention cannot make a victim gain anything)."""
    if value is None or isinstance(value, bool) or value.__class__ is Unknown:
        return value
    return 0 if value < 0 else value


def resolve(module, calamity: str, role: str, state: PlayerState) -> Resolution:
    fn = module.CALAMITY_FUNCTIONS[calamity]
    try:
        return fn(state, role)
    except (ArithmeticError, TypeError, ValueError, KeyError) as exc:
        raise located(exc, module) from exc


def records(lines: tuple[str, ...]) -> dict:
    """A generated module's data table: each line the JSON text of [name, data]; every JSON
    array is read as a tuple (the tables hold tuples, never lists)."""
    import json

    out = {}
    for line in lines:
        key, data = json.loads(line, object_pairs_hook=_json_object, parse_constant=_no_constant)
        out[key] = _tuples(data)
    return out


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


def source_of(module, generated_line: int) -> tuple[str, int, int, int | None] | None:
    """The rulebook file, line, column and end column of the rule whose code is at this line of
    a generated module (the last rule line at or before it), from its source map (`LINES`,
    `LINE_FILES`, `LINE_SOURCES`), or None when no rule's code comes before it."""
    found = None
    for index, (pl, rl) in enumerate(module.LINES):
        if pl > generated_line:
            break
        found = (index, rl)
    if found is None:
        return None
    index, line = found
    sources = getattr(module, "LINE_SOURCES", None)
    if sources is None:  # a module built before the map recorded files
        return module.SOURCE_PATH, line, 1, None
    file_index, column, end = source_entries(sources)[index]
    return module.LINE_FILES[file_index], line, column, end


def source_entries(sources: str) -> list[tuple[int, int, int | None]]:
    """A generated module's LINE_SOURCES, parallel to LINES: `"0:3:14 1:5:-"` -> (index in
    LINE_FILES, column, end column or None). Kept a string (read only when an error is located),
    so that compiling the module stays cheap."""
    out = []
    for entry in sources.split():
        file_index, column, end = entry.split(":")
        out.append((int(file_index), int(column), None if end == "-" else int(end)))
    return out


_REASONS = {ZeroDivisionError: "a division by zero"}


class rules_of:
    """`with rules_of(module): ...` re-states an error that one of the module's rules raised (a
    division by zero, a value outside every band of a table) at the rulebook file and line of
    that rule; errors raised elsewhere pass unchanged."""

    def __init__(self, module):
        self.module = module

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or isinstance(exc, RulebookRuntimeError) or not isinstance(exc, _RULE_ERRORS):
            return False
        if _rule_line(tb, self.module) is not None:
            raise located(exc, self.module) from exc
        return False


_RULE_ERRORS = (ArithmeticError, TypeError, ValueError, KeyError, RecursionError)


def _rule_line(tb, module) -> int | None:
    """The line of the generated module that raised, the innermost of its frames in the traceback
    TB; None when the error did not pass through the module's code."""
    line = None
    filename = getattr(module, "__file__", None)
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def located(exc: Exception, module) -> RulebookRuntimeError:
    """Re-state an error from generated code at the rulebook file and line that produced it."""
    line = _rule_line(exc.__traceback__, module)
    where = source_of(module, line) if line is not None else None
    reason = _REASONS.get(type(exc), f"{type(exc).__name__}: {exc}")
    if where is None:
        return RulebookRuntimeError(f"{module.SOURCE_PATH}: {type(exc).__name__}: {exc}", module.SOURCE_PATH,
                                    reason=reason)
    path, rule_line, column, end = where
    return RulebookRuntimeError(f"{path}:{rule_line}: {type(exc).__name__}: {exc}", path, rule_line, column, reason,
                                end)


# --- credits and prices -------------------------------------------------------------------

def group_credits(module, holds, extra: dict | None = None) -> dict[str, int]:
    credits: dict[str, int] = {g: 0 for g in module.GROUPS}
    for name in holds:
        for g, amount in module.ADVANCES[name]["credits"].items():
            credits[g] = credits.get(g, 0) + amount
    for g, amount in (extra or {}).items():
        credits[g] = credits.get(g, 0) + int(amount)
    return credits


def ability(module, name: str, kind: str) -> list[dict]:
    return [args for k, args in module.ADVANCES[name]["abilities"] if k == kind]


def prices(module, holds, buys, extra_credits: dict | None = None, work: list | None = None) -> dict:
    """Price of each advance bought this turn after credits, with a breakdown.

    Credits come only from `holds` (advances held before this turn); the policy is the
    rulebook's declared one. One-time discounts and free advances carried by an advance bought
    this turn apply to one other advance of the same purchase: the dearest eligible one. WORK,
    if given ([n]), counts the states the single-use placement makes (the planner's budget).
    """
    policy = module.CREDIT_POLICY
    holds = list(holds)
    single_use = "single_use" in getattr(module, "CREDIT_VARIANTS", ())
    if single_use:
        rows, gap = _single_use_rows(module, holds, list(buys), extra_credits or {}, work)
    else:
        rows, gap = _policy_rows(module, holds, list(buys), extra_credits or {}), None
    # after the credits, before what follows (only a capped placement's least price reads it)
    placed = _total(r["price"] for r in rows) if gap is not None else None
    # what follows may take more off another placement than off the one found (it lands on the
    # dearest advance): where the placement stopped at its cap, the least price allows for it
    taken = 0 if gap is None else _most_taken(module, [r["advance"] for r in rows if r["price"] is not None],
                                              holds, list(buys))
    # an advance a held or bought card acquires automatically costs nothing; this comes first, so
    # a one-time discount of the same purchase goes to an advance that is still paid for
    _acquired_automatically(module, rows, holds + list(buys))
    _same_turn_abilities(module, rows)
    for row in rows:
        if row["price"] is not None:
            row["price"] = max(0, row["price"])
    total = _total(r["price"] for r in rows)
    return {
        "policy": policy,
        "variants": list(getattr(module, "CREDIT_VARIANTS", ())),
        "items": rows,
        "acquired": acquired_with(module, holds, buys),
        "total": total,
        # False where the single-use placement stopped at SINGLE_USE_PLACEMENT_CAP short of a
        # proof: the prices are a real placement's (payable), and no placement pays less than
        # total_at_least, the total less what the best placement could save more (gap) and,
        # where same-turn abilities or advances acquired automatically follow, less the most
        # they could take off any placement.
        "complete": gap is None or (gap == 0 and not taken),
        "total_at_least": _least_total(total, placed, gap, taken),
        "unknown": [r["advance"] for r in rows if r["price"] is None],
        "treasury_value": _treasury_value(module, holds),
    }


def _least_total(total: int | None, placed: int | None, gap: int | None, taken: int) -> int | None:
    """The least any placement of the credits pays (prices' total_at_least): the TOTAL where the
    placement is the full search's (GAP None); else the total less GAP, the most the best
    placement could save more; where steps after the credits could take up to TAKEN off another
    placement, the total after the credits (PLACED) less both."""
    if gap is None or total is None:
        return total
    return max(0, placed - gap - taken if taken else total - gap)


def _most_taken(module, priced: list, holds: list, buys: list) -> int:
    """The most that advances acquired automatically (a held or bought card's `acquire_all`), the
    one-time discounts and the free advances of the advances bought could take off the prices of
    PRICED under any placement of the credits: each covered advance's printed cost, each
    discount, the dearest printed cost a free advance covers."""
    taken = 0
    for source in holds + buys:
        for kind, args in module.ADVANCES[source]["abilities"]:
            if kind == "discount" and source in buys:
                taken += args["amount"]
            elif kind == "acquire_all" or (kind == "free_advance" and source in buys):
                costs = [module.ADVANCES[n]["cost"] for n in priced if n != source and _covered(module.ADVANCES[n], args)]
                taken += sum(costs) if kind == "acquire_all" else max(costs, default=0)
    return taken


def _treasury_value(module, holds: list) -> int:
    """What one treasury token pays toward advances: 1, or more by a held `treasury_value` ability."""
    return max([a["value"] for h in holds for a in ability(module, h, "treasury_value")] or [1])


def _price_row(name: str, adv: dict, credits: list[dict]) -> dict:
    """One advance's row: its printed cost, the credits it takes and the price left."""
    if adv["cost"] is None:
        return {"advance": name, "printed": None, "credits": [], "price": None,
                "note": "the printed cost is unknown in this rulebook"}
    return {"advance": name, "printed": adv["cost"], "credits": credits,
            "price": adv["cost"] - sum(c["amount"] for c in credits)}


def _best_group_credits(module, holds: list, name: str, adv: dict, pool: dict) -> list[dict]:
    """`best_group`: the group credit tokens of the advance's best group, plus each held card's
    specific credit toward it."""
    out = []
    if adv["groups"]:
        best = max(adv["groups"], key=lambda g: (pool.get(g, 0), -adv["groups"].index(g)))
        if pool.get(best, 0):
            out.append({"from": f"{best} credits", "amount": pool[best]})
    for held in holds:
        amount = module.ADVANCES[held]["specific"].get(name, 0)
        if amount:
            out.append({"from": held, "amount": amount})
    return out


def _per_card_credits(module, holds: list, name: str, adv: dict, pool: dict) -> list[dict]:
    """`per_card`: each held card's larger credit (group or specific), plus the free credit tokens
    of the advance's groups."""
    out = []
    for held in holds:
        h = module.ADVANCES[held]
        group_part = max([h["credits"].get(g, 0) for g in adv["groups"]] or [0])
        special = h["specific"].get(name, 0)
        amount = max(group_part, special)
        if amount:
            kind = "special credit" if special >= group_part else "group credit"
            out.append({"from": f"{held} ({kind})", "amount": amount})
    for g, amount in pool.items():
        if g in adv["groups"] and amount:
            out.append({"from": f"{g} credits", "amount": int(amount)})
    return out


# each credit policy: how an advance's credits are found, and the credit pool it reads
_POLICY_CREDITS = {
    "best_group": (_best_group_credits, lambda module, holds, extra: group_credits(module, holds, extra)),
    "per_card": (_per_card_credits, lambda module, holds, extra: extra or {}),
}


def _policy_rows(module, holds: list, buys, extra_credits: dict | None) -> list[dict]:
    """The rows of the usual reading: every credit counts toward every advance of the turn."""
    policy = module.CREDIT_POLICY
    credits_of, pool_of = _POLICY_CREDITS.get(policy, (None, None))
    pool = pool_of(module, holds, extra_credits) if pool_of else None
    rows = []
    for name in buys:
        adv = module.ADVANCES[name]
        if adv["cost"] is not None and credits_of is None:
            raise ValueError(f"unknown credit policy {policy!r}")
        rows.append(_price_row(name, adv, credits_of(module, holds, name, adv, pool) if adv["cost"] is not None else []))
    return rows


def _acquired_automatically(module, rows: list[dict], sources: list) -> None:
    """An advance that a held or bought card's `acquire_all` ability covers costs nothing."""
    acquirers = [(source, args) for source in sources for args in ability(module, source, "acquire_all")]
    for row in rows:
        adv = module.ADVANCES[row["advance"]]
        for source, args in acquirers:
            if source != row["advance"] and row["price"] and _covered(adv, args):
                row["credits"].append({"from": f"{source} (acquired automatically)", "amount": row["price"]})
                row["price"] = 0


def _single_use_rows(module, holds: list, buys: list, extra: dict, work: list | None = None) -> tuple[list[dict], int]:
    """The strict reading (variant `single_use`): each held card's credit, and each group's free
    credit tokens, count toward one advance of the turn only. Under `best_group` a card gives an
    advance its credit in the group the advance is discounted by (a dual-group advance is
    discounted by one of its groups, the same for every credit it takes) plus its specific credit;
    under `per_card` the larger of the two. A credit larger than what is left of a price saves
    only the rest.

    The player places each credit where it serves best, so the answer is the placement with the
    largest total saving: an exact search, not a greedy placement (which is not always best and
    depended on the order the purchases were listed in). Purchases are taken in rulebook order,
    so the answer never depends on how the buys were listed. Also returns how much more than the
    placement found the best one could save (None: the search never reached its cap)."""
    sources, priced = _single_use_sources(module, holds, buys, extra)
    given, gap = _place_single_use_credits(module, sources, priced, work)
    return [_price_row(name, module.ADVANCES[name], given.get(name, [])) for name in buys], gap


def _single_use_sources(module, holds: list, buys: list, extra: dict) -> tuple[list, list]:
    """The credit sources (each held card, then each group's free tokens) and the advances of BUYS
    with a price, in rulebook order."""
    sources = [(h, module.ADVANCES[h]["credits"], module.ADVANCES[h]["specific"]) for h in holds]
    sources += [(f"{g} credits", {g: int(a)}, {}) for g, a in sorted(extra.items()) if a]
    order = {name: i for i, name in enumerate(module.ADVANCES)}
    return sources, sorted((b for b in buys if module.ADVANCES[b]["cost"] is not None), key=order.__getitem__)


def purchase_total(module, holds, buys, extra_credits: dict | None = None, work: list | None = None) -> tuple:
    """(total, complete, total_at_least) of `prices`, which the planner needs for thousands of
    sets. Under `single_use`, where a greedy placement already saves all the credits can give (or
    the whole price) and nothing after the credits depends on where they went, that saving is the
    best placement's, so the total is known without the placement's search: the total prices()
    gives, with none of its work (credits.js creditPurchaseTotal)."""
    holds, buys = list(holds), list(buys)
    if ("single_use" in getattr(module, "CREDIT_VARIANTS", ()) and not _most_taken(module, buys, holds, buys)
            and all(module.ADVANCES[b]["cost"] is not None for b in buys)):
        sources, priced = _single_use_sources(module, holds, buys, extra_credits or {})
        start = _placement_start(module, priced)
        useful = _useful_sources(module, sources, priced)
        _count_greedy_work(work, sources, useful, priced)
        left = sum(_greedy_placement(start, useful)[-1][0])
        _, most = _within_reach(start, useful, 0)
        if sum(start[0]) - left == most(-1, start):  # the greedy saving is the most any placement saves
            return left, True, left
    got = prices(module, holds, buys, extra_credits, work)
    return got["total"], got["complete"], got["total_at_least"]


# The most partial placements the single-use credit placement keeps after each source (credits.js
# creditPlacementCap mirrors it). Placing credits so is strongly NP-hard (bin covering), so the
# exact search can meet exponentially many states; past the cap it keeps the greedy placement's
# state and those that saved most so far, which bounds its time and memory (at most this many
# states per source) and still ends in a real placement, with a proven bound on the best.
SINGLE_USE_PLACEMENT_CAP = 1000


def _place_single_use_credits(module, sources: list, priced: list,
                              work: list | None = None) -> tuple[dict[str, list], int]:
    """The placement of credits with the largest total saving, each source's credit going to at
    most one of `priced`, and how much more the best placement could save than it (None: the
    search never reached its cap, so it is the full search's). A state is the prices still to
    pay and, under `best_group`, the group each advance is being discounted by (None until its
    first group credit). Equal states merge, so the work follows the number of distinct states,
    not the number of placements.

    A state that cannot reach a greedy placement's saving is dropped (_within_reach): every
    state it leads to falls short too, so neither the best final state nor a back-pointer on its
    path changes -- the answer is the one the full search gives. Past SINGLE_USE_PLACEMENT_CAP
    states after a source, the search keeps the greedy placement's state and those that saved
    most so far (_keep_within_cap); the best any dropped state could still reach bounds the gap."""
    start = _placement_start(module, priced)
    useful = _useful_sources(module, sources, priced)
    _count_greedy_work(work, sources, useful, priced)
    greedy = _greedy_placement(start, useful)
    reach, most = _within_reach(start, useful, sum(start[0]) - sum(greedy[-1][0]))
    layers: list = []     # per useful source: state -> (previous state, index of the advance or None)
    states, beyond = {start: None}, None
    for k, (name, options, _) in enumerate(useful):
        step = _after_source(states, options)
        if work is not None:
            work[0] += len(step)
        states = {s: back for s, back in step.items() if reach(k, s)}
        if len(states) > SINGLE_USE_PLACEMENT_CAP:
            states, dropped = _keep_within_cap(states, greedy[k + 1])
            beyond = max([most(k, s) for s in dropped] + ([] if beyond is None else [beyond]))
        layers.append((name, states))
    best = min(states, key=lambda s: (sum(s[0]), s[0]))
    gap = None if beyond is None else max(0, beyond - (sum(start[0]) - sum(best[0])))
    return _placement(layers, best, priced), gap


def _count_greedy_work(work: list | None, sources: list, useful: list, priced: list) -> None:
    """Count in WORK (the planner's shared count of placement work) what finding the useful sources
    and the greedy placements weighs: every (source, advance) pair once, every (useful source,
    advance) pair four times (two orders, each replayed). A purchase of many advances with many
    held cards weighs thousands of pairs before its search makes any state, so the limit that
    bounds a question's time counts them too (credits.js creditGreedyWork)."""
    if work is not None:
        work[0] += len(priced) * (len(sources) + 4 * len(useful))


def _placement_start(module, priced: list) -> tuple:
    """The placement's first state: every advance's printed cost still to pay, no group chosen."""
    return tuple(module.ADVANCES[b]["cost"] for b in priced), (None,) * len(priced)


def _keep_within_cap(states: dict, greedy: tuple) -> tuple[dict, list]:
    """The SINGLE_USE_PLACEMENT_CAP states to go on with (in the order found) and the dropped
    ones: the greedy placement's state first (so the answer is never worse than it), then those
    with the least left to pay, then the first found."""
    listed = list(states.items())
    ranked = sorted(range(len(listed)), key=lambda i: (listed[i][0] != greedy, sum(listed[i][0][0]), i))
    kept = sorted(ranked[:SINGLE_USE_PLACEMENT_CAP])
    return dict(listed[i] for i in kept), [listed[i][0] for i in ranked[SINGLE_USE_PLACEMENT_CAP:]]


def _useful_sources(module, sources: list, priced: list) -> list[tuple]:
    """(name, options, the most it gives one advance) for each source that can discount one of
    PRICED, in the sources' order; options[i](chosen) is (credit, group it fixes) for each way the
    source can discount advance i."""
    per_card = module.CREDIT_POLICY == "per_card"
    useful = []
    for name, gcred, spec in sources:
        options = [functools.partial(_credit_options, per_card, tuple(module.ADVANCES[b]["groups"]), gcred,
                                     spec.get(b, 0)) for b in priced]
        most = max((c for option in options for c, _ in option(None)), default=0)
        if most > 0:
            useful.append((name, options, most))
    return useful


def _greedy_placement(start: tuple, useful: list) -> list[tuple]:
    """The states of the better of two greedy placements (the first of equals): the sources chosen
    in their order, or largest credit first (_greedy_path)."""
    by_credit = sorted(range(len(useful)), key=lambda j: -useful[j][2])
    return max((_greedy_path(start, useful, order) for order in (range(len(useful)), by_credit)),
               key=lambda path: -sum(path[-1][0]))


def _greedy_path(start: tuple, useful: list, order) -> list[tuple]:
    """The states of one placement the search can reach (START, then the state after each source):
    each source, taken in ORDER (indices of USEFUL), goes to the advance it saves most on; then
    the sources are placed so in their own order, as the search places them (which group an
    advance is discounted by depends on that order). A placement, so never saving more than the
    best one."""
    target: list = [None] * len(useful)     # the advance each source went to in ORDER
    for sequence in (order, range(len(useful))):
        left, chosen = list(start[0]), list(start[1])
        path = [start]
        for j in sequence:
            advances = range(len(left)) if target[j] is None else (target[j],)
            gain, i, group = max(((min(c, left[i]), i, g) for i in advances
                                  for c, g in useful[j][1][i](chosen[i])), key=lambda o: o[0])
            if gain > 0:
                left[i] -= gain
                chosen[i] = group
                target[j] = i
            path.append((tuple(left), tuple(chosen)))
    return path


def _within_reach(start: tuple, useful: list, greedy: int):
    """reach(k, state): whether STATE, after the first k + 1 useful sources, can still save as much
    as a greedy placement does (GREEDY: the better of the sources chosen in their order and
    largest credit first); and most(k, state), the most any placement through it saves. The most
    a state can still save is what is left to pay, and at most the sum of the largest credit each
    remaining source gives; a source's credit never grows once an advance's group is fixed."""
    rest = [0] * (len(useful) + 1)      # rest[k]: the most sources k, k + 1, ... can give together
    for k in range(len(useful) - 1, -1, -1):
        rest[k] = rest[k + 1] + useful[k][2]
    total = sum(start[0])

    def most(k: int, state: tuple) -> int:
        to_pay = sum(state[0])
        return total - to_pay + min(to_pay, rest[k + 1])
    return (lambda k, state: most(k, state) >= greedy), most


def _credit_options(per_card: bool, groups: tuple, gcred: dict, specific: int, chosen) -> list[tuple[int, object]]:
    """(credit, group it fixes) for each way a source (group credits GCRED, SPECIFIC credit toward
    the advance) can discount an advance of GROUPS already discounted by the group CHOSEN (None:
    not yet). Under `per_card` the larger of its group and specific credit, no group fixed."""
    if per_card:
        return [(max(max([gcred.get(g, 0) for g in groups] or [0]), specific), None)]
    if chosen is not None:
        return [(gcred.get(chosen, 0) + specific, chosen)]
    found = [(gcred[g] + specific, g) for g in groups if gcred.get(g, 0)]
    return found or [(specific, None)]


def _after_source(states: dict, options: list) -> dict:
    """Every state one source leads to, its credit placed on one advance still to pay or on none:
    state -> (the state before, index of the advance or None). Equal states merge."""
    step: dict = {}
    ways: dict = {}     # (advance, its group so far) -> the source's options: few, asked per state
    for state in states:
        left, chosen = state
        step.setdefault(state, (state, None))
        for i, option in enumerate(options):
            if left[i] <= 0:
                continue
            found = ways.get((i, chosen[i]))
            if found is None:
                found = ways[i, chosen[i]] = option(chosen[i])
            for credit, group in found:
                if credit > 0:
                    after = (left[:i] + (max(0, left[i] - credit),) + left[i + 1:],
                             chosen[:i] + (group,) + chosen[i + 1:])
                    step.setdefault(after, (state, i))
    return step


def _placement(layers: list, state: tuple, priced: list) -> dict[str, list]:
    """The credits each advance of PRICED takes, read back from the final STATE through the
    LAYERS (each source's step), in the order of the sources."""
    given: dict[str, list] = {b: [] for b in priced}
    for name, step in reversed(layers):
        previous, i = step[state]
        if i is not None:
            given[priced[i]].append({"from": f"{name} (single use)", "amount": previous[0][i] - state[0][i]})
        state = previous
    for credits in given.values():
        credits.reverse()
    return given


def trade_card_prices(module, holds, stacks: list[int], treasury: int | None = None) -> dict:
    """Trade cards bought for treasury, one row per card asked for: the cheapest offer among the
    rulebook's own (`ability trade_card_purchase(...)` outside an advance) and the advances held.
    A stack nobody sells from, more cards than `trade_card_purchase_limit` allows, or more
    treasury than the state holds makes the purchase illegal."""
    offers, limits = _trade_card_offers(module, holds)
    rows = []
    for stack in stacks:
        price, seller = min(offers.get(stack, []), default=(None, None))
        rows.append({"stack": stack, "price": price, "from": seller})
    total = _total(r["price"] for r in rows)
    return {"items": rows, "total": total, "illegal": _trade_card_problems(offers, limits, rows, total, treasury),
            "offers": {s: sorted(o) for s, o in sorted(offers.items())}}


def _trade_card_problems(offers: dict, limits: list, rows: list[dict], total, treasury) -> list[dict]:
    """Why a purchase of trade cards is illegal: a stack nobody sells from, more cards than a limit
    allows, more treasury than the state holds."""
    sellers = ", ".join(str(s) for s in sorted(offers)) or "none"
    illegal = [{"stack": r["stack"], "why": f"no rule sells cards from stack {r['stack']} to this player "
                                            f"(stacks on sale: {sellers})"} for r in rows if r["from"] is None]
    illegal += [{"stack": None, "why": f"{len(rows)} trade cards, but at most {cards} may be bought a turn ({doc})"}
                for cards, doc in limits if len(rows) > cards]
    if treasury is not None and total is not None and total > treasury:
        illegal.append({"stack": None, "why": f"{total} treasury needed, {treasury} held"})
    return illegal


def _total(values):
    """The sum of VALUES, or None when any of them is not known (None)."""
    values = list(values)
    return None if any(v is None for v in values) else sum(values)


def _trade_card_offers(module, holds) -> tuple[dict[int, list], list]:
    """({stack: [(price, who sells)]}, [(most cards a turn, why)]): the rulebook's own offers and
    limits, then those of the advances held."""
    offers: dict[int, list] = {}
    limits = []
    for kind, args, doc in getattr(module, "ABILITIES", ()):
        if kind == "trade_card_purchase":
            offers.setdefault(args["stack"], []).append((args["price"], doc or "the rulebook"))
        elif kind == "trade_card_purchase_limit":
            limits.append((args["cards"], doc or "the rulebook"))
    for name in holds:
        for args in ability(module, name, "trade_card_purchase"):
            offers.setdefault(args["stack"], []).append((args["price"], name))
    return offers, limits


def purchase_problems(module, holds, buys) -> list[dict]:
    """Why a purchase is not allowed, advance by advance: the checks `plan` applies to its
    candidates. Prerequisites must be held before this turn: all advances of a turn are bought
    together (1981 17.10), so one bought alongside does not count; a `card_limit` constant caps
    the advances held."""
    held = set(holds)
    out, seen = [], set()
    for name in buys:
        why = _purchase_problem(module, name, held, seen, buys)
        if why is not None:
            out.append({"advance": name, "why": why})
        seen.add(name)
    limit = module.CONSTS.get("card_limit")
    if limit is not None and len(held | seen) > limit:
        out.append({"advance": None, "why": f"{len(held | seen)} advances held after the purchase, but the card "
                                            f"limit is {limit}"})
    return out


def _purchase_problem(module, name: str, held: set, seen: set, buys) -> str | None:
    """Why one advance of a purchase may not be bought: held already, named before in the same
    purchase (SEEN), or a prerequisite not held before this turn; None when it may."""
    if name in held:
        return "already held"
    if name in seen:
        return "named twice: one copy of each advance"
    missing = [r for r in module.ADVANCES[name]["requires"] if r not in held]
    if not missing:
        return None
    alongside = any(r in buys for r in missing)
    return f"needs {', '.join(missing)} held before this turn" + (
        " (bought in the same turn does not count)" if alongside else "")


def acquired_with(module, holds, buys) -> list[dict]:
    """Advances gained at no cost by buying an advance with `acquire_all` (the Expansion Project's
    Anatomy, 33.0681): every one of its group under its cost bound that the player lacks."""
    owned = set(holds) | set(buys)
    out = []
    for source in buys:  # a held source acquired its cards already; a state lacking them prices them at 0
        for args in ability(module, source, "acquire_all"):
            for name, adv in module.ADVANCES.items():
                if name not in owned and _covered(adv, args):
                    owned.add(name)
                    out.append({"advance": name, "printed": adv["cost"], "price": 0,
                                "credits": [{"from": f"{source} (acquired automatically)", "amount": adv["cost"]}]})
    return out


def _same_turn_abilities(module, rows: list[dict]) -> None:
    """The one-time discounts and free advances an advance bought this turn gives another
    advance of the same purchase: the dearest one still paid for (and eligible)."""
    for row in rows:
        name = row["advance"]
        for args in ability(module, name, "discount"):
            target = _dearest_other(module, rows, name)
            if target is not None:
                target["credits"].append({"from": f"{name} (one-time discount)", "amount": args["amount"]})
                target["price"] -= args["amount"]
        for args in ability(module, name, "free_advance"):
            target = _dearest_other(module, rows, name, args)
            if target is not None:
                target["credits"].append({"from": f"{name} (free advance)", "amount": target["price"]})
                target["price"] = 0


def _dearest_other(module, rows: list[dict], name: str, free: dict | None = None) -> dict | None:
    """The row, other than NAME's, with the highest price still to pay (then the last name), of an
    advance a `free_advance` ability's FREE arguments cover when given; None when there is none."""
    others = [r for r in rows if r["advance"] != name and r["price"] is not None and r["price"] > 0
              and (free is None or _covered(module.ADVANCES[r["advance"]], free))]
    return max(others, key=lambda r: (r["price"], r["advance"])) if others else None


def _covered(adv: dict, args: dict) -> bool:
    """An advance of the group that an `acquire_all` or `free_advance` ability names, under its cost bound."""
    return args["group"] in adv["groups"] and adv["cost"] is not None and adv["cost"] < args["cost_below"]


def start_credits(module, state: PlayerState) -> dict | None:
    """The credit points of each group the player started with, from the rulebook's `start credits`
    (e.g. Mega Civilization's table by number of players, none in The Short Game). Facts it needs
    and lacks are listed under `missing` (not in the state's own list: a calamity never needs them)."""
    sc = getattr(module, "START_CREDITS", None)
    if sc is None:
        return None
    probe = PlayerState(module, state.held, state.facts, state.options)  # the rule switches set for the question
    amount, waived, problem = _start_credit_amount(sc, probe)
    used = list(state.facts.get("start_credits_used") or [])
    groups = {} if amount is None else {g: (0 if sc["once"] and g in used else amount) for g in module.GROUPS}
    return {"per_group": amount, "groups": groups, "waived": waived, "once": sc["once"], "used": used,
            "missing": list(probe.missing), "problem": None if probe.missing else problem, "doc": sc["doc"],
            "line": sc["line"]}


def _start_credit_amount(sc: dict, probe: PlayerState) -> tuple:
    """(credits per group or None when not known, whether the rule's `unless` waives them, the
    problem that left the amount unknown)."""
    waived = False
    try:
        waived = sc["unless"] is not None and bool(sc["unless"](probe))
        amount = 0 if waived else number(sc["amount"](probe))
    except ValueError as exc:  # a table without a band for this count (or for a missing fact read as 0)
        return None, waived, str(exc)
    return (None if probe.missing else amount), waived, None


def apply_start_credits(module, state: PlayerState) -> None:
    """Start credit tokens are credit tokens the player holds: they join the freely allocated
    `credits`, so prices, plans and the credit tie-breakers all count them."""
    info = start_credits(module, state)
    state.start_credits = info
    if info and info["groups"]:
        credits = dict(state.facts.get("credits") or {})
        for g, amount in info["groups"].items():
            if amount:
                credits[g] = credits.get(g, 0) + amount
        state.facts["credits"] = credits


# --- commodities --------------------------------------------------------------------------

def player_block(module, state: PlayerState) -> str | None:
    """The player's trade block: the `block` fact, else its civilization's."""
    if state.facts.get("block"):
        return state.facts["block"]
    civ = getattr(module, "CIVILIZATIONS", {}).get(state.facts.get("civilization"))
    return civ["block"] if civ else None


def commodity_block(module, name: str, state: PlayerState | None) -> str | None:
    """A commodity's trade block: under the first declared reading (`block ID when OPTION`) whose
    option the question switches on, else the rulebook's default."""
    row = module.COMMODITIES[name]
    if state is not None:
        for option, block in row.get("block_when", ()):
            if state.option(option):
                return block
    return row["block"]


def off_block(module, name: str, state: PlayerState | None):
    """Whether a set of this commodity, redeemed by this player, is outside its native block:
    True, False, or None when the answer needs a fact the state lacks (then `state.missing` says
    which). Only a block some civilization belongs to is a trade block: a commodity of another
    block (shared) is native everywhere."""
    ob = getattr(module, "OFF_BLOCK", None)
    block = commodity_block(module, name, state)
    blocks = {c["block"] for c in getattr(module, "CIVILIZATIONS", {}).values() if c["block"]}
    if ob is None or state is None or block not in blocks:
        return False
    applies = _off_block_applies(ob, state)
    if not applies:
        return applies
    mine = player_block(module, state)
    if mine is None:
        state._missing("block")
        return None
    return mine != block


def _off_block_applies(ob: dict, state: PlayerState) -> bool | None:
    """Whether the off-block value's condition (`set_value off_block ... when`) holds for the
    player; None, the facts it lacks added to `state.missing`, when it cannot be told."""
    if ob["when"] is None:
        return True
    probe = PlayerState(state.module, state.held, state.facts)
    applies = ob["when"](probe)
    if probe.missing:
        for m in probe.missing:
            state._missing(m)
        return None
    return bool(applies)


def hand_value(module, cards: dict, state: PlayerState | None = None) -> dict:
    """Each set's value. With a player's state, a set redeemed outside its native trade block is
    worth the rulebook's `set_value off_block` (the Expansion Project's 28.53-28.54)."""
    sets = [_set_row(module, name, n, state) for name, n in sorted(cards.items())]
    out = {"sets": sets, "total": sum(s["value"] for s in sets)}
    if state is not None:
        _held_card_abilities(module, sets, state, out)
        out["missing_facts"] = list(state.missing)
    return out


def _set_row(module, name: str, n: int, state: PlayerState | None) -> dict:
    """One set of N cards of a commodity: its value, the off-block value where the player redeems
    it outside its native block (`off_block` None: not known, the state lacks a fact)."""
    face = module.COMMODITIES[name]["value"]
    row = {"commodity": name, "cards": n, "face": face, "value": number(module.set_value(n, face)) if n else 0}
    outside = off_block(module, name, state) if n else False
    if outside:
        row["value"] = number(module.OFF_BLOCK["value"](n, face))
    if outside is not False:
        row["off_block"] = outside
    return row


def _held_card_abilities(module, sets: list, state: PlayerState, out: dict) -> None:
    """What the player's advances let a hand do: turn cards into treasury (`card_treasury`,
    Trade Routes) and complete one incomplete set with a card of at least the same face value
    (`substitute_card`, Mega Civilization's Trade Empire)."""
    for name in state.held:
        for args in ability(module, name, "card_treasury"):
            for row in sets:
                row["treasury"] = args["rate"] * row["face"] * row["cards"]
                row["treasury_from"] = name
        for args in ability(module, name, "substitute_card"):
            best = _best_substitution(module, sets)
            if best is not None:
                best["from"] = name
                out["substitution"] = best


def _best_substitution(module, sets: list) -> dict | None:
    """The one substitute card that adds most to the hand: a card of commodity Y (face at least
    X's) counted as one more card of an incomplete set of X."""
    found = [(gain, x["commodity"], y["commodity"], grown) for x, y, grown, gain in _substitutions(module, sets)
             if gain > 0]
    if not found:
        return None
    gain, x, y, grown = max(found)
    return {"set": x, "substitute": y, "gain": gain, "value": grown}


def _substitutions(module, sets: list):
    """Each (set, substitute, the set's value with one card more, what the hand gains) for a card
    of the substitute's commodity counted as one more card of an incomplete set."""
    for x in sets:
        limit = module.COMMODITIES[x["commodity"]]["count"]
        if x["face"] <= 0 or (limit and x["cards"] >= limit):
            continue  # a complete set needs no substitute
        grown = number(module.set_value(x["cards"] + 1, x["face"]))
        for y in sets:
            if y is x or y["face"] < x["face"] or y["cards"] < 1:
                continue
            yield x, y, grown, grown - x["value"] + _one_card_less(module, y) - y["value"]


def _one_card_less(module, row: dict):
    """The value of a set with one card fewer (the one that substitutes for another commodity)."""
    return number(module.set_value(row["cards"] - 1, row["face"])) if row["cards"] > 1 else 0


# --- epochs and score -----------------------------------------------------------------------

_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _met(value):
    """True, False, or None when the requirement depends on a missing fact."""
    return None if value.__class__ is Unknown else bool(value)


def requirement(text: str, left, op: str, right, line: int, each_step: bool = False) -> dict:
    out = {"requirement": text, "met": _met(_COMPARE[op](left, right)), "value": number(left),
           "needs": f"{op} {number(right)}", "line": line, "each_step": each_step}
    needs = unknown_of(left, right).facts
    if needs:
        out["depends_on"] = list(needs)
    return out


def requirement_bool(text: str, value, line: int, each_step: bool = False) -> dict:
    out = {"requirement": text, "met": _met(value), "value": _met(value), "needs": "true", "line": line,
           "each_step": each_step}
    if value.__class__ is Unknown:
        out["depends_on"] = list(value.facts)
    return out


def _met_by(decisive: bool, values) -> bool | None:
    """Three-valued `all` (DECISIVE False) or `any` (True) of requirements met (True, False or
    None when unknown): DECISIVE if any is, else None if any is unknown, else not DECISIVE."""
    values = list(values)
    if any(v is decisive for v in values):
        return decisive
    return None if any(v is None for v in values) else not decisive


all_met = functools.partial(_met_by, False)
any_met = functools.partial(_met_by, True)


def requirement_any(text: str, alternatives: list, line: int, each_step: bool = False) -> dict:
    """A requirement met by any one of its alternatives (each a list of parts that must all hold);
    every part keeps the player's own count, so a met "or" still shows what was counted."""
    met = any_met(all_met(p["met"] for p in alt) for alt in alternatives)
    return {"requirement": text, "met": met, "value": None, "needs": "any", "line": line, "each_step": each_step,
            "alternatives": alternatives}


def epochs(module, track: str, state: PlayerState) -> dict:
    """Each epoch's requirements; `reached` is the last epoch surely reached. An epoch whose
    requirements depend on missing facts is neither met nor failed (`met` is None).
    `moves_backward` is three-valued: a backward rule met moves the marker back only outside the
    track's exempt epochs, so while the marker's epoch may be exempt the answer is None and names
    the fact that would tell."""
    t = module.AST[track]
    counted_state, counted = ast_counted(module, state)
    out = []
    for name, fn in t["epochs"]:
        reqs = fn(counted_state)
        out.append({"epoch": name, "met": all_met(r["met"] for r in reqs), "requirements": reqs})
    reached = None
    for e in out:  # the last of the epochs met one after the other from the first
        if e["met"] is not True:
            break
        reached = e["epoch"]
    backward = [b(state) for b in t["backward"]]
    position = state.fact("ast_position") if "ast_position" in state.facts else _NOT_GIVEN
    result = {"track": track, "name": t["name"], "epochs": out, "reached": reached,
              "moves_backward": _goes_back(module, track, state, position, backward), "backward_rules": backward,
              "counted": counted}
    if any(name in state.facts for name in _MARKER_FACTS):
        result["marker"] = marker(module, track, state, out, backward, result["moves_backward"])
    result["missing_facts"] = list(state.missing)
    result["complete"] = state.complete
    return result


def ast_counted(module, state: PlayerState) -> tuple[PlayerState, list[dict]]:
    """The state the epoch requirements read, and how it was counted: each fact of
    AST_COUNTED_FACTS plus the `delta` of every held advance with the fact's ability kind (a
    backward rule keeps reading STATE: what is on the board). A fact not given stays missing."""
    counted, shown = state, []
    for fact, kind in getattr(module, "AST_COUNTED_FACTS", {}).items():
        adds = [{"advance": name, "delta": args["delta"]} for name in state.held for args in ability(module, name, kind)]
        if not adds:
            continue
        given = state.fact(fact)
        value = given + sum(a["delta"] for a in adds)
        shown.append({"fact": fact, "given": number(given), "value": number(value), "adds": adds})
        if value.__class__ is not Unknown:
            if counted is state:
                counted = object.__new__(type(state))  # shares `missing` and `undecided` with STATE
                counted.__dict__.update(vars(state))
                counted.facts = dict(state.facts)
            counted.facts[fact] = value
    return counted, shown


# the facts that place the marker on a track: with any of them the answer is about the player's marker
_MARKER_FACTS = ("ast_position", "civilization", "ast_epoch")
_NOT_GIVEN = Unknown(("ast_position",))


# --- the player's marker: position -> epoch on the player's own row ---------------------------

class AstRowUnknown(Exception):
    """The epoch of a position cannot be told: no row for the civilization, or rows disagree."""


def ast_rows(module, track: str, civilization: str | None) -> list[dict]:
    """The rows a marker may be on: the civilization's own, or without one every declared row.
    Raises AstRowUnknown when there is none."""
    t = module.AST[track]
    civs = getattr(module, "CIVILIZATIONS", {})
    if civilization is not None:
        row = civs.get(civilization, {}).get("rows", {}).get(track)
        if row is None:
            raise AstRowUnknown(f"the rulebook gives no row on {t['name']} for {civilization}")
        return [row]
    rows = [c["rows"][track] for c in civs.values() if track in c["rows"]]
    if not rows:
        raise AstRowUnknown(f"the rulebook gives no civilization's row on {t['name']}")
    return rows


def epoch_index(row: dict, position: int) -> int:
    """The epoch (0 = the first) of a space; the start arrow (space 0) is in the first epoch."""
    index = 0
    for i, start in enumerate(row["starts"]):
        if position >= start:
            index = i + 1
    return index


def epochs_possible(module, track: str, state: PlayerState, position) -> tuple[set[int], str | None]:
    """The epochs (indexes) the marker may be in, and the fact that would tell which when more than
    one: the state's `ast_epoch`; else the start arrow's first epoch; else the epochs of the space on
    every row it may be on (the civilization's, else every declared row); else, with no row, what
    the track itself allows (every epoch holds at least one space, so the k-th epoch starts no
    earlier than space k and leaves a space to each later epoch before the finish)."""
    names = [name for name, _ in module.AST[track]["epochs"]]
    given = state.facts.get("ast_epoch")
    if given is not None:
        if given not in names:
            from .errors import StateError

            shown = given if len(given) <= 80 else given[:77] + "..."  # a hostile state may hold megabytes
            raise StateError(f"ast_epoch: `{shown}` is no epoch of {module.AST[track]['name']}; it has: "
                             + ", ".join(names))
        return {names.index(given)}, None
    if position.__class__ is Unknown:
        return set(range(len(names))), "ast_position"
    if position == 0:
        return {0}, None
    try:
        possible = {epoch_index(r, position) for r in ast_rows(module, track, state.facts.get("civilization"))}
        tell = "civilization"
    except AstRowUnknown:
        finish = module.AST[track]["spaces"]
        last = len(names) - 1
        possible = {i for i in range(len(names)) if i <= position and (finish is None or last - i <= finish - position)}
        tell = "ast_epoch"
    return possible, (tell if len(possible) > 1 else None)


def _goes_back(module, track: str, state: PlayerState, position, backward: list) -> bool | None:
    """Whether the marker moves back a space: a backward rule met, off the start arrow and outside
    the exempt epochs. None while either depends on a fact not given, that fact recorded missing."""
    back = any_met(b["met"] for b in backward)
    if back is False or (position.__class__ is not Unknown and position == 0):
        return False
    exempt_names = module.AST[track]["backward_except"]
    possible, tell = epochs_possible(module, track, state, position)
    names = [name for name, _ in module.AST[track]["epochs"]]
    exempt = {names.index(n) for n in exempt_names if n in names}
    if possible <= exempt:
        return False
    if back is None:
        return None
    if possible & exempt:
        state.fact(tell)  # recorded as missing: it would tell whether the marker's epoch is exempt
        return None
    return True


def _agreed(values: set, what: str) -> int:
    if len(values) > 1:
        raise AstRowUnknown(f"{what} differs by civilization: give `civilization`")
    return next(iter(values))


def marker(module, track: str, state: PlayerState, epochs_out: list, backward: list,
           goes_back: bool | None) -> dict:
    """Where the marker is, what moving one space forward needs, and whether it moves at all.
    Without a civilization the answer stands only where every row agrees; where the marker's epoch
    is not known the answer still says whether it moves back when that does not depend on it."""
    t = module.AST[track]
    names = [name for name, _ in t["epochs"]]
    civ = state.facts.get("civilization")
    position = state.fact("ast_position")
    out = {"civilization": civ, "space": number(position), "epoch": None, "next_space": None, "next_epoch": None,
           "needs": [], "meets": None, "move": None, "finish": None, "row": None, "unknown": None}
    if position.__class__ is Unknown:
        out["unknown"] = "the state does not give ast_position"
        return out
    if t["spaces"] is not None and position > t["spaces"]:
        out["unknown"] = f"space {position} is beyond the finish of {t['name']} (space {t['spaces']})"
        return out
    try:
        rows, finish, here, there = _marker_place(module, track, civ, position)
    except AstRowUnknown as exc:
        out["unknown"] = str(exc)
        _unknown_move(out, state, module, track, position, goes_back, epochs_out, backward)
        return out
    if len(rows) == 1:
        out["row"] = {"spaces": rows[0]["spaces"], "starts": dict(zip(names[1:], rows[0]["starts"]))}
    out["finish"] = finish
    out["epoch"] = names[here]
    exempt = names[here] in t["backward_except"]
    out["backward_exempt"] = exempt
    if not exempt and position > 0:
        _moves_back(out, position, backward)
    if there is None:
        out["move"] = out["move"] or "finished"
    else:
        _step_forward(out, position, names[there], epochs_out[there]["requirements"], there == here)
    return out


def _unknown_move(out: dict, state: PlayerState, module, track: str, position: int, goes_back: bool | None,
                  epochs_out: list, backward: list) -> None:
    """The marker's move where its row's epochs are not known: back when that does not depend on
    them; forward or staying when every place the marker may be on agrees (a step inside an epoch
    needs its `each step` requirements, entering the next all of them); otherwise not known, naming
    the fact that would place the marker."""
    if goes_back is True:
        out["move"], out["back_to"] = "back", position - 1
        out["back_rules"] = [b for b in backward if b["met"]]
        return
    if goes_back is None:
        out["move"] = "unknown"
        return
    if position == module.AST[track]["spaces"]:
        out["move"] = "finished"
        return
    meets = {all_met(r["met"] for r in _needs(epochs_out[there]["requirements"], here == there))
             for here, there in _steps_possible(module, track, state, position)}
    if len(meets) == 1 and None not in meets:
        out["move"] = "forward" if meets == {True} else "stays"
        return
    _, tell = epochs_possible(module, track, state, position)
    if tell is not None:
        state.fact(tell)  # recorded as missing: where the marker goes depends on its epoch
    out["move"] = "unknown"


def _steps_possible(module, track: str, state: PlayerState, position: int) -> set[tuple[int, int]]:
    """(the epoch of the marker's space, the epoch of the next) on every row the marker may be on;
    with no row, the next space is in the same epoch or the one after."""
    try:
        rows = ast_rows(module, track, state.facts.get("civilization"))
        if "ast_epoch" not in state.facts:
            return {(epoch_index(r, position), epoch_index(r, position + 1)) for r in rows}
    except AstRowUnknown:
        pass
    last = len(module.AST[track]["epochs"]) - 1
    here, _ = epochs_possible(module, track, state, position)
    return {(h, n) for h in here for n in (h, h + 1) if n <= last}


def _needs(reqs: list, inside: bool) -> list:
    """What a step needs: entering an epoch all its requirements, a step inside one only those
    marked `each step`."""
    return [r for r in reqs if r.get("each_step")] if inside else reqs


def _step_forward(out: dict, position: int, epoch: str, reqs: list, inside: bool) -> None:
    """What moving the marker one space forward, into EPOCH, needs and whether it is met: entering
    an epoch needs all its requirements; a step INSIDE one only those marked `each step`."""
    out["next_space"], out["next_epoch"] = position + 1, epoch
    out["needs"] = _needs(reqs, inside)
    out["meets"] = all_met(r["met"] for r in out["needs"])
    if out["move"] is None:
        out["move"] = {True: "forward", False: "stays", None: "unknown"}[out["meets"]]


def _marker_place(module, track: str, civ, position: int) -> tuple:
    """(the rows that may be the player's, the finish, the epoch of the space, the epoch of the
    next space or None at the finish), each agreed by every row; AstRowUnknown where they differ."""
    t = module.AST[track]
    rows = ast_rows(module, track, civ)
    finish = _agreed({r["spaces"] for r in rows}, f"the last space of {t['name']}")
    if position > finish:
        raise AstRowUnknown(f"space {position} is beyond the finish of {t['name']} (space {finish})")
    here = _agreed({epoch_index(r, position) for r in rows}, f"the epoch of space {position}")
    there = None
    if position < finish:
        there = _agreed({epoch_index(r, position + 1) for r in rows}, f"the epoch of space {position + 1}")
    return rows, finish, here, there


def _moves_back(out: dict, position: int, backward: list) -> None:
    """A backward rule met moves the marker back a space (unknown while one may be met)."""
    back = any_met(b["met"] for b in backward)
    if back is None:
        out["move"] = "unknown"
    elif back is True:
        out["move"] = "back"
        out["back_to"] = position - 1
        out["back_rules"] = [b for b in backward if b["met"]]


def ast_standing(module, state: PlayerState) -> dict | None:
    """The marker's space and the points it is worth, on the track the state names (or the only one,
    or any when every track values a step alike)."""
    chosen = _standing_track(module, state)
    if chosen is None:
        state.fact("ast_track")  # recorded as missing
        return None
    points = module.AST[chosen]["step_points"]
    if points is None:
        return None
    position = state.fact("ast_position")
    return {"track": chosen, "space": position, "points": position * points, "per_step": points}


def _standing_track(module, state: PlayerState) -> str | None:
    """The track the state names, else the only one, else any when every track values a step
    alike; None when it matters which and the state does not say."""
    tracks = list(module.AST)
    chosen = state.facts.get("ast_track")
    if chosen is None and (len(tracks) == 1 or len({module.AST[t]["step_points"] for t in tracks}) == 1):
        return tracks[0]
    return chosen


def score(module, state: PlayerState) -> dict:
    points = [{"label": label, "points": number(fn(state)), "line": line} for label, fn, line in module.SCORE_POINTS]
    for p in points:
        if p["line"] in getattr(module, "SCORE_AST", ()):
            p["ast_space"] = number(state.fact("ast_position"))
    ties = [{"label": label, "value": number(fn(state)), "line": line} for label, fn, line in module.SCORE_TIEBREAKS]
    # a line that depends on a missing fact is null, and so is the total
    return {"complete": state.complete, "points": points, "total": _total(p["points"] for p in points),
            "tiebreaks": ties, "missing_facts": list(state.missing)}
