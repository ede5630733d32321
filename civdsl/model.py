"""The resolved semantic model: what a rulebook means, as plain dataclasses.

Expressions stay as syntax-tree nodes (see `syntax.py`): they are already structure. Every
object keeps the span of the statement that introduced it, in whichever file of an extends
chain that was, so that validation and runtime errors point at the right line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import fields as item_fields
from .diagnostics import Span
from .syntax import Acknowledgement, Call, Expr, Op
from .vocabulary import AMOUNT_SETTINGS, RESOLUTION_SETTINGS


# The class of each item kind of fields.ITEM_FIELDS (filled by _with_declared_fields).
ITEM_CLASSES: dict[str, type] = {}


def _with_declared_fields(kind: str):
    """Give an item class an attribute for every field of `kind` in fields.ITEM_FIELDS that the
    class does not declare itself: a list for a field an item may give more than once, else
    None until an item gives it. The class declares a field's attribute only where it needs a
    type, a default or a comment of its own."""

    def add(cls):
        annotations = cls.__annotations__  # the class's own: every item class declares some
        for spec in item_fields.ITEM_FIELDS[kind]:
            attr = spec.model_attr
            if attr in annotations:
                continue
            one = item_fields.VALUES[spec.value].model if spec.value else "Any"
            annotations[attr] = f"list[{one}]" if spec.repeatable else f"{one} | None"
            setattr(cls, attr, field(default_factory=list) if spec.repeatable else None)
        ITEM_CLASSES[kind] = cls
        return cls

    return add


@dataclass
class Group:
    id: str
    name: str
    color: str | None
    symbol: str | None
    span: Span


@dataclass
class SpecificCredit:
    target: str
    amount: int
    span: Span


@dataclass
class Ability:
    kind: str
    args: dict[str, Any]  # literal values, already evaluated
    call: Call
    span: Span


@dataclass
@_with_declared_fields("advance")
class Advance:
    name: str
    span: Span
    cost: int | None = None
    cost_known: bool = True
    groups: list[str] = field(default_factory=list)
    vp: int | None = None
    vp_explicit: bool = False
    # the victory points under each rule option whose `vp tiers when OPTION` gives another figure
    vp_when: list[tuple[str, int]] = field(default_factory=list)
    credits: dict[str, int] = field(default_factory=dict)
    specific: list[SpecificCredit] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)  # every `requires` line's names, in order
    abilities: list[Ability] = field(default_factory=list)
    field_spans: dict[str, Span] = field(default_factory=dict)
    # supply, summary, aka, notes: from fields.ITEM_FIELDS


@dataclass
class Effect:
    kind: str
    args: dict[str, Expr]
    call: Call
    span: Span


@dataclass
class EffectBranch:
    condition: Expr
    then: list  # of Effect | EffectBranch
    otherwise: list
    span: Span


@dataclass
class Secondary:
    count: Expr | None
    share: Expr | None
    effects: list
    span: Span


@dataclass
class Exclusion:
    role: str | None
    condition: Expr | None
    span: Span


# A modifier operation is already plain structure in the syntax tree: the model keeps it as is.
ModifierOp = Op


@dataclass
class Modifier:
    condition: Expr
    role: str
    priority: int
    ops: list[ModifierOp]
    span: Span
    advances: list[str] = field(default_factory=list)  # advances the condition mentions


@dataclass
class TurnStep:
    """One step of the sequence of play: its name and, as printed, when or in which order."""

    name: str
    when: str | None
    span: Span
    # what the step does to the game's ledger: calls of vocabulary.PHASE_ACTIONS (`step "..." { ... }`)
    actions: list = field(default_factory=list)


@dataclass
@_with_declared_fields("calamity")
class Calamity:
    name: str
    span: Span
    klass: str | None = None  # "minor", "major tradable", "major nontradable"
    beneficiary: str = "none"
    primary: list = field(default_factory=list)
    secondary: Secondary | None = None
    exclusions: list[Exclusion] = field(default_factory=list)
    cancel: list[tuple[Expr, Span]] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    field_spans: dict[str, Span] = field(default_factory=dict)
    # stack, summary, aka, notes: from fields.ITEM_FIELDS
    # this calamity's exceptions to the edition's `amounts` settings (e.g. {"bound": "none"})
    amounts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    amounts_spans: dict[str, Span] = field(default_factory=dict)  # where each of its `amounts` settings is
    # its settings that hold while a rule option is on (`order ... when OPTION`): option -> setting -> values
    amounts_when: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    amounts_when_spans: dict[str, Span] = field(default_factory=dict)  # option -> where it is first named
    # this calamity's exceptions to the edition's `resolution` settings (e.g. {"beneficiary_among": ("land",)})
    resolution: dict[str, tuple[str, ...]] = field(default_factory=dict)
    resolution_spans: dict[str, tuple[Span, ...]] = field(default_factory=dict)  # each value's span

    @property
    def tradable(self) -> bool:
        return self.klass != "major nontradable"

    @property
    def major(self) -> bool:
        return bool(self.klass and self.klass.startswith("major"))


@dataclass
class Requirement:
    expr: Expr
    why: str | None
    span: Span
    # also needed for every step inside the epoch, not only to enter it (`require ... each step`)
    each_step: bool = False


@dataclass
class Epoch:
    name: str
    requirements: list[Requirement]
    span: Span


@dataclass
class AstTrack:
    id: str
    name: str
    epochs: list[Epoch]
    backward: list[tuple[Expr, Span]]
    notes: list[str]
    span: Span
    spaces: int | None = None  # spaces after the start arrow (space 0); the last is the finish
    step_points: int | None = None  # points each step taken is worth (`points N per step`)
    backward_except: list[tuple[str, Span]] = field(default_factory=list)  # epochs that never step back


@dataclass
class AstRow:
    """One civilization's row on one A.S.T. track: the first space of every epoch after the first
    (the first epoch runs from space 1, the arrow being space 0)."""

    track: str
    track_span: Span
    spaces: int | None  # None: the track's `spaces`
    starts: list[int]
    span: Span


@dataclass
@_with_declared_fields("civilization")
class Civilization:
    """A civilization (Mega Civilization) or nation (the older editions): the player's row on
    each A.S.T. track, its A.S.T. ranking and its trade block."""

    name: str
    span: Span
    rows: dict[str, AstRow] = field(default_factory=dict)
    setups: list[str] = field(default_factory=list)
    # (block, set-ups): the block it plays in those set-ups instead of `block` (combined games)
    block_for: list[tuple[str, list[str]]] = field(default_factory=list)
    field_spans: dict[str, Span] = field(default_factory=dict)
    # rank, block, summary, aka, notes: from fields.ITEM_FIELDS


@dataclass
class ScoreLine:
    label: str
    expr: Expr
    span: Span


@dataclass
class Score:
    points: list[ScoreLine]
    tiebreaks: list[ScoreLine]
    span: Span


@dataclass
@_with_declared_fields("commodity")
class Commodity:
    name: str
    span: Span
    # (the option, the block while it is on): another reading of the block, first option on wins
    block_when: list = field(default_factory=list)
    field_spans: dict[str, Span] = field(default_factory=dict)
    # value, count, stack, block, printed, summary, aka, notes: from fields.ITEM_FIELDS


@dataclass
class Band:
    low: int
    high: int | None
    value: Expr
    span: Span


@dataclass
class Table:
    id: str
    doc: str | None
    bands: list[Band]
    span: Span


@dataclass
class Option:
    id: str
    doc: str | None
    on: bool
    span: Span


@dataclass
class Const:
    id: str
    expr: Expr
    doc: str | None
    span: Span
    value: Any = None  # evaluated by the resolver when it is a constant expression


@dataclass
class Errata:
    code: str
    item: str
    reason: str
    span: Span
    used: bool = False


@dataclass
class Assertion:
    expr: Expr
    message: str
    span: Span


@dataclass
class Ruling:
    """A worked example or a community answer (`ruling NAME "question" { ... }`): the calls of its
    block (the situation, the question, the expected answer, the citations), which
    civdsl/rulings.py reads and runs."""

    name: str
    question: str
    calls: list[Expr]
    span: Span
    name_span: Span | None = None


@dataclass
class Overrule:
    """`overrules NAME "why"`: a house rule changes the answer of the inherited ruling NAME on purpose."""

    name: str
    why: str
    span: Span
    name_span: Span | None = None


@dataclass
class Law:
    """A property of the rules over every situation (`law NAME "what it says" { ... }`): the calls
    of its block (the property and its citation), which civdsl/laws.py reads and searches."""

    name: str
    text: str
    calls: list[Expr]
    span: Span
    name_span: Span | None = None


@dataclass
class Deck:
    stack: int
    size: int
    span: Span


@dataclass
class DeckLayer:
    """Cards shuffled together and laid under the layer before (`then`); `clear`: the number of
    its top cards kept free of calamities (a number, a const, a table read at the player count, or
    `players`)."""

    cards: list[tuple[str, int, Span]]  # (card name, how many, where written)
    clear: int | str | None
    span: Span


@dataclass
class TradeDeck:
    """`trade_deck "NAME" for LOW..HIGH [block B] { stack N { LAYER then LAYER ... } }`: the
    trade-card stacks a game of LOW to HIGH players deals (of one block, where given)."""

    name: str
    low: int
    high: int | None
    block: str | None
    stacks: dict[int, list[DeckLayer]]
    span: Span
    notes: list[str] = field(default_factory=list)
    block_span: Span | None = None  # where the block is named

    def holds(self, players: int) -> bool:
        return players >= self.low and (self.high is None or players <= self.high)


@dataclass
class StartCredits:
    """Credit points of every group each player starts with (`start credits EXPR [unless COND] [once]`)."""

    amount: Expr
    unless: Expr | None
    once: bool  # single-use: a state lists the groups whose start credit is spent (`start_credits_used`)
    doc: str | None
    span: Span


@dataclass
class Edition:
    id: str
    name: str
    language: int
    span: Span
    files: list[str] = field(default_factory=list)  # the extends chain, base first
    bases: list[str] = field(default_factory=list)  # edition ids of the bases, nearest last
    source: str | None = None
    groups: dict[str, Group] = field(default_factory=dict)
    consts: dict[str, Const] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    options: dict[str, Option] = field(default_factory=dict)
    credit_policy: str | None = None
    credit_policy_span: Span | None = None
    credit_variants: list[str] = field(default_factory=list)  # vocabulary.CREDIT_VARIANTS switched on
    # how effect amounts combine and are limited: setting -> values (vocabulary.AMOUNT_SETTINGS;
    # a setting not declared takes the language default)
    amounts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    amounts_notes: list[tuple[str, str, Span]] = field(default_factory=list)  # (setting, why, span)
    amounts_spans: dict[str, Span] = field(default_factory=dict)  # where each `amounts` setting is declared
    # the settings that hold while a rule option is on (`floor none when OPTION`): option -> setting -> values
    amounts_when: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    amounts_when_spans: dict[str, Span] = field(default_factory=dict)  # option -> where it is first named

    def amount_setting(self, name: str, calamity: "Calamity | None" = None,
                       on: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """An `amounts` setting for one calamity with the options ON switched on: its own exception
        (under a switched-on option first), else the edition's (likewise), else the default."""
        for scope in ((calamity,) if calamity is not None else ()) + (self,):
            for option, settings in scope.amounts_when.items():
                if option in on and name in settings:
                    return settings[name]
            if name in scope.amounts:
                return scope.amounts[name]
        return AMOUNT_SETTINGS[name][1]

    def amount_options(self, calamity: "Calamity") -> tuple[str, ...]:
        """The rule options that switch an `amounts` setting of this calamity, in declared order."""
        return tuple(dict.fromkeys([*calamity.amounts_when, *self.amounts_when]))

    # how the table resolves the calamity phase: setting -> values (vocabulary.RESOLUTION_SETTINGS)
    resolution: dict[str, tuple[str, ...]] = field(default_factory=dict)
    resolution_spans: dict[str, tuple[Span, ...]] = field(default_factory=dict)  # each value's span

    def resolution_setting(self, name: str, calamity: "Calamity | None" = None) -> tuple[str, ...]:
        """A `resolution` setting for one calamity: its own exception, else the edition's, else the default."""
        if calamity is not None and name in calamity.resolution:
            return calamity.resolution[name]
        return self.resolution.get(name, RESOLUTION_SETTINGS[name].default)
    scenarios: dict[str, tuple[str | None, Span]] = field(default_factory=dict)  # name -> (doc, span)
    start_credits: StartCredits | None = None
    abilities: list[tuple[Ability, str | None]] = field(default_factory=list)  # every player's, with a doc
    vp_tiers: list[tuple[int | None, int]] = field(default_factory=list)
    vp_tiers_span: Span | None = None
    # `vp tiers when OPTION { ... }`: option -> (its tiers, the statement's span, where the option is named)
    vp_tiers_when: dict[str, tuple[list[tuple[int | None, int]], Span, Span]] = field(default_factory=dict)
    advances: dict[str, Advance] = field(default_factory=dict)
    calamities: dict[str, Calamity] = field(default_factory=dict)
    asts: dict[str, AstTrack] = field(default_factory=dict)
    civilizations: dict[str, Civilization] = field(default_factory=dict)
    score: Score | None = None
    commodities: dict[str, Commodity] = field(default_factory=dict)
    set_value: Expr | None = None
    # `set_value off_block EXPR [when COND]`: a set redeemed outside its native trade block
    set_value_off_block: tuple[Expr, Expr | None, Span] | None = None
    decks: dict[int, Deck] = field(default_factory=dict)
    trade_decks: dict[str, TradeDeck] = field(default_factory=dict)  # by name, in declaration order
    # `setups "NAME" for LOW..HIGH ["doc"]`: set-up -> (low, high, doc, span)
    setup_players: dict[str, tuple[int, int, str | None, Span]] = field(default_factory=dict)
    asserts: list[Assertion] = field(default_factory=list)
    rulings: dict[str, Ruling] = field(default_factory=dict)  # by name, in the order of the chain
    overrules: dict[str, Overrule] = field(default_factory=dict)
    laws: dict[str, Law] = field(default_factory=dict)  # by name, in the order of the chain
    dropped_laws: dict[str, Overrule] = field(default_factory=dict)  # `drop law NAME "why"`
    errata: list[Errata] = field(default_factory=list)
    notes: list[tuple[str, Span]] = field(default_factory=list)
    turn: list[TurnStep] = field(default_factory=list)  # the sequence of play (`turn { step ... }`)
    turn_title: str | None = None
    # each sub-language's own model (civdsl/sublanguages.py), by its name: the round rules' under "rounds"
    extensions: dict[str, Any] = field(default_factory=dict)
    # the printed clauses: which statements implement them (`cites`), and which none does (`clause`)
    citations: list["Citation"] = field(default_factory=list)
    acknowledgements: list[Acknowledgement] = field(default_factory=list)
    clause_list: tuple[str, str] | None = None  # the clause list checked against: (path, sha256)

    def cited_clauses(self, kind: str, names) -> list[str]:
        """The printed clauses the statements of one item cite (`cites`), in the order written."""
        names = {names} if isinstance(names, str) else set(names)
        return list(dict.fromkeys(i for c in self.citations if c.owner_kind == kind and c.owner_name in names
                                  for i, _ in c.clauses))

    def tier_vp(self, cost: int | None, tiers: list | None = None) -> int | None:
        """Victory points the edition's tier rule (or TIERS, a reading under an option) gives an
        advance of this cost."""
        tiers = self.vp_tiers if tiers is None else tiers
        if cost is None or not tiers:
            return None
        for below, vp in tiers:
            if below is None or cost < below:
                return vp
        return None


@dataclass
class Citation:
    """A `cites` statement of the chain: the clause ids it names (with their spans), where it is
    written, where the statement it cites starts (`target`) and the top-level statement holding
    that one (`owner`, its keyword and name: `calamity`, "Famine")."""

    clauses: list[tuple[str, Span]]
    span: Span
    target: Span
    owner: Span
    owner_kind: str
    owner_name: str | None
