"""The player state the rules read: one player's holdings, facts and rule switches, what the
rules found missing and left undecided, and (at a table) the seat that names the others. Missing
facts are recorded, not guessed. Generated modules get it through `runtime` (their ABI); the
page runs this module translated (companion/py2es.py), so it keeps to the engine subset."""

from __future__ import annotations

from .playerfacts import advance_vp, count_advances, derived
from .standing import NOT_GIVEN_POSITION, epochs_possible
from .unknown import Unknown, unknown_of


def _max(a, b):
    """The larger of two values; unknown if either is (runtime.max_)."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return unknown_of(a, b)
    return b if b > a else a


class PlayerState:
    """Facts about one player. Missing facts are recorded, not guessed: see `missing`."""

    def __init__(self, module, holds=(), facts: dict | None = None, options: dict | None = None,
                 held_set: frozenset | None = None):
        self.module = module
        self.held = tuple(holds)
        # HELD_SET: a copy's, which is the set of these holdings (they never change)
        self.held_set = frozenset(self.held) if held_set is None else held_set
        # the rule switches the user set (`--option NAME=on|off`); the others keep the rulebook's
        self.options = {} if options is None else dict(options)
        # the amount the primary victim assigned to this secondary victim (`--assigned N`)
        self.assigned: int | None = None
        self.facts = {} if facts is None else dict(facts)
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
        return type(self)(self.module, self.held, self.facts, None, self.held_set)

    def _copy(self) -> "PlayerState":
        """A state of this one's kind with its holdings (the same set), facts and options."""
        return type(self)(self.module, self.held, self.facts, self.options, self.held_set)

    def for_question(self, facts: dict | None = None) -> "PlayerState":
        """A copy for one question: the same holdings, facts (and FACTS over them), options and
        start credits, with its own record of what it lacks and leaves undecided, and no seat."""
        copy = self._copy()
        if facts:
            copy.facts.update(facts)
        copy.start_credits = self.start_credits
        return copy

    def with_fact(self, name: str, value) -> "PlayerState":
        """A copy reading VALUE for the fact NAME; it shares what is missing and undecided with
        this state, so what its readers lack is recorded here too."""
        copy = self._copy()
        copy.facts[name] = value
        copy.missing, copy.undecided, copy.assigned = self.missing, self.undecided, self.assigned
        copy.start_credits, copy.seat = self.start_credits, self.seat
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
        # the holdings counted from the hand of commodity cards the state gives
        hand = self.facts.get("commodities")
        if hand is None:
            return None
        if name == "commodity_cards":
            return sum(hand.values())
        if name == "commodity_face_value":
            commodities = self.module.COMMODITIES
            return sum(n * commodities[c]["value"] for c, n in hand.items())
        return None

    def _unit_holding(self, city):
        """The unit points held: counted from tokens and cities where a calamity values a city its
        own way (CITY), else as the state gives them, else counted from tokens and cities."""
        if city is not None and self._counts_units():
            return self._unit_points(city)
        if "unit_points" in self.facts:
            return self.facts["unit_points"]
        return self._unit_points() if self._counts_units() else None

    # --- table queries (vocabulary.FUNCTIONS of scope "table") ---------------------
    def _others_fact(self, value, who: str):
        """A value computed from another player's facts: what it lacks is missing here too, named
        by that player (`players.bob.cities_in_stock`)."""
        if isinstance(value, Unknown):
            named = tuple(f"players.{who}.{f}" for f in value.facts)
            for f in named:
                self._missing(f)
            return Unknown(named)
        return value

    def neighbours(self, by: str):
        """How many other players border this one by the relation (land, water, near)."""
        related = self._related(by)
        return related if isinstance(related, Unknown) else len(related)

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
        if isinstance(related, Unknown):
            return related
        best = 0
        for name, other in related:
            best = _max(best, self._others_fact(value(other), name))
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
        if isinstance(value, Unknown):
            self.undecided.append((line, path, what, value.facts))
            return False
        return bool(value)

    def cards(self, name: str):
        hand = self.facts.get("commodities")
        if hand is None:
            return self._missing("commodities")
        return int(hand.get(name, 0))

    def advance_vp(self, name: str):
        return advance_vp(self, name)

    def count_advances(self, cost_at_least=None, cost_below=None, vp=None, group=None) -> int:
        """The rules' `count_advances`: its keywords in the vocabulary's order (the page's rules
        pass them by position)."""
        return count_advances(self, cost_at_least, cost_below, vp, group)

    def derived(self, name: str):
        """A name of vocabulary.DERIVED_NAMES (playerfacts.derived)."""
        return derived(self, name)

