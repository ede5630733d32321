"""Round rules, the resolved model: stats, flags, choices, thresholds, dice pools, tracks, event
tables, a deck of cards, phases and end conditions, as plain dataclasses.

Expressions and statements stay syntax nodes (`civdsl.syntax` expressions, `rounds.syntax`
statements): they are already structure. `RoundRules` holds them all: an edition's
`extensions["rounds"]` (civdsl/sublanguages.py), read with `rules(edition)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Span
from ..syntax import Expr


@dataclass
class Stat:
    """A whole-number quantity of one player's state (`stat food "Food" initial 0 bounds 0..`)."""

    id: str
    name: str
    span: Span
    initial: Expr | None = None
    initial_value: int = 0  # folded by the resolver (initial values are constant expressions)
    low: int | None = None
    high: int | None = None
    field_spans: dict[str, Span] = field(default_factory=dict)


@dataclass
class Flag:
    id: str
    name: str
    on: bool
    span: Span


@dataclass
class Choice:
    """A player's decision that rules read; `default` is the policy used when no one decides."""

    id: str
    name: str
    default: Expr
    span: Span


@dataclass
class Threshold:
    """A named condition (reads as true/false); `body` runs each time it switches on."""

    id: str
    name: str
    condition: Expr
    body: list | None
    span: Span


@dataclass
class PoolTerm:
    amount: Expr
    condition: Expr | None
    label: str | None
    span: Span


@dataclass
class Pool:
    """A dice pool: `sides`, a size of `base` plus the `add` terms whose condition holds; the
    result is the total of the dice, or with `success lo..hi` the number of dice in that range."""

    id: str
    name: str
    span: Span
    sides: Expr | None = None
    base: Expr | None = None
    terms: list[PoolTerm] = field(default_factory=list)
    success: tuple[int, int | None] | None = None
    notes: list[str] = field(default_factory=list)
    summary: str | None = None  # `summary "..."`: one line for the reference and the charts
    aka: list[str] = field(default_factory=list)  # other printed names (`aka "..."`)
    field_spans: dict[str, Span] = field(default_factory=dict)


@dataclass
class TrackStage:
    low: int
    high: int
    name: str
    span: Span


@dataclass
class TrackMark:
    """`at N "label" { ... }`: what happens when the marker arrives at position N."""

    position: int
    label: str
    body: list | None
    span: Span


@dataclass
class Track:
    id: str
    name: str
    span: Span
    start: int = 0
    low: int | None = None
    high: int | None = None
    stages: list[TrackStage] = field(default_factory=list)
    marks: list[TrackMark] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: str | None = None  # `summary "..."`: one line for the reference and the charts
    aka: list[str] = field(default_factory=list)  # other printed names (`aka "..."`)
    field_spans: dict[str, Span] = field(default_factory=dict)

    def stage(self, position: int) -> str | None:
        return next((s.name for s in self.stages if s.low <= position <= s.high), None)


@dataclass
class EventRow:
    low: int
    high: int
    label: str
    body: list
    span: Span


@dataclass
class EventTable:
    """A single-die table: roll one die of `die` sides and apply the row it names."""

    id: str
    name: str
    die: int
    rows: list[EventRow]
    span: Span
    notes: list[str] = field(default_factory=list)
    summary: str | None = None  # `summary "..."`: one line for the reference and the charts
    aka: list[str] = field(default_factory=list)  # other printed names (`aka "..."`)
    field_spans: dict[str, Span] = field(default_factory=dict)


@dataclass
class CardSuit:
    name: str
    color: str
    span: Span


@dataclass
class CardRank:
    name: str
    value: int
    span: Span


@dataclass
class CardDeck:
    """A deck of playing cards: every rank in every suit once; a card is worth its rank's value."""

    id: str
    name: str
    span: Span
    suits: list[CardSuit] = field(default_factory=list)
    ranks: list[CardRank] = field(default_factory=list)
    hand_limit: int | None = None
    notes: list[str] = field(default_factory=list)
    summary: str | None = None  # `summary "..."`: one line for the reference and the charts
    aka: list[str] = field(default_factory=list)  # other printed names (`aka "..."`)
    field_spans: dict[str, Span] = field(default_factory=dict)

    @property
    def colors(self) -> list[str]:
        out: list[str] = []
        for s in self.suits:
            if s.color not in out:
                out.append(s.color)
        return out


@dataclass
class RoundPhase:
    id: str
    name: str
    body: list
    span: Span


@dataclass
class EndCondition:
    condition: Expr
    text: str
    span: Span


# The round rules' name among the sub-languages (civdsl/sublanguages.py): their model's key in
# `Edition.extensions`, their part of the JSON model.
NAME = "rounds"


@dataclass
class RoundRules:
    """An edition's round rules (its `extensions["rounds"]`); empty for a game not played in rounds."""

    stats: dict[str, Stat] = field(default_factory=dict)
    flags: dict[str, Flag] = field(default_factory=dict)
    choices: dict[str, Choice] = field(default_factory=dict)
    thresholds: dict[str, Threshold] = field(default_factory=dict)
    pools: dict[str, Pool] = field(default_factory=dict)
    tracks: dict[str, Track] = field(default_factory=dict)
    event_tables: dict[str, EventTable] = field(default_factory=dict)
    card_decks: dict[str, CardDeck] = field(default_factory=dict)
    phases: dict[str, RoundPhase] = field(default_factory=dict)
    setup: RoundPhase | None = None
    ends: list[EndCondition] = field(default_factory=list)

    @property
    def declared(self) -> bool:
        """Whether the edition declares round rules (stats, phases, ...)."""
        declarations = (self.stats, self.flags, self.phases, self.tracks, self.pools, self.event_tables,
                        self.card_decks, self.thresholds, self.choices)
        return self.setup is not None or any(declarations)


def rules(edition) -> RoundRules:
    """The round rules of an edition (empty ones for an edition resolved without them)."""
    found = edition.extensions.get(NAME)
    if found is None:
        found = edition.extensions[NAME] = RoundRules()
    return found
