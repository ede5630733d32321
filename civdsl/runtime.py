"""The ABI of generated code: what compiled rulebook modules call, and nothing else.

Generated modules hold an edition's data as literals and its rules as plain functions; this
module supplies the arithmetic over unknown values their expressions use, the player state they
read, the `Resolution` they build, the effect-list passes a calamity's rules run, the epoch
requirements they state, and the readers of their data tables and line maps. The engines that
interpret the policies a rulebook declares live in their own modules (`pricing`, `handvalue`;
the epochs and score below); the player state derives a few facts from them. It imports nothing
from the compiler, so answering a question never loads the parser.
"""

from __future__ import annotations

import functools
import math
import operator
from operator import itemgetter

from .handvalue import hand_value
from .pricing import ability, group_credits
from .unknown import Unknown, number, sum_if_known, unknown_of

# The ABI of generated code: exactly the names that compiled rulebook modules call (as
# `_rt.NAME` or imported by name), checked against every code generator path by
# tests/test_runtime_abi.py. The epochs and score engine at the end is the one part that is not
# ABI yet (docs/architecture.md, "runtime.py as the ABI of generated code").
__all__ = [
    "PlayerState", "Resolution", "Unknown",
    "this_module", "records", "line_map", "unknown_of",
    "not_", "and_", "or_", "div", "floordiv", "floor", "ceil", "sqrt", "abs", "min_", "max_", "lookup",
    "requirement", "requirement_any", "requirement_bool",
    "change", "assigned", "cancelled", "bound_effects", "discard_by_value", "least_over",
    "reduce_until_supported", "unless_immune", "unselect", "floor_effects", "floor_step",
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
    return {"complete": state.complete, "points": points, "total": sum_if_known(p["points"] for p in points),
            "tiebreaks": ties, "missing_facts": list(state.missing)}
