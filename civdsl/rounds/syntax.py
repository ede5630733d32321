"""Round rules, pass 2: their parse-tree rules -> syntax nodes.

Declarations (stat, flag, choice, threshold, pool, track, event table, deck, phase, setup, end)
become the main syntax tree's `Item`s, with their block contents as `Field`s, so that the
resolver applies them like every other item. The statements of a round block (a phase, the
setup, a threshold's or a track mark's or an event row's body) become one typed node per
statement: every later stage (checks, code generation, the printed reference) handles each
node type in its own `visit_<Node>` method, and a test fails if one of them lacks a handler.

`RoundsToSyntax` is composed with the main transformer (`civdsl.syntax.transformer()`, through the
sub-language's `transformer` hook), whose helpers
(`_string`, `_int`, `_located`, `_tokens`, `_field`, `_item`, `_fields`, `_span`) it uses: it imports
nothing from the main passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from lark import Token, v_args

from ..diagnostics import Span, span_of
from ..parser import TOKEN_TYPES

# --- statements of round blocks ---------------------------------------------------------------
# `keyword` is the statement's word in the language, used in messages and in the JSON model.


@dataclass
class RoundStmt:
    span: Span
    keyword: ClassVar[str] = ""


@dataclass
class SetStmt(RoundStmt):
    """`set NAME = expr`: a stat, flag or track takes a value."""
    target: str
    target_span: Span
    expr: Any
    keyword: ClassVar[str] = "set"


@dataclass
class AddStmt(RoundStmt):
    """`add NAME expr`: a stat changes by an amount."""
    target: str
    target_span: Span
    expr: Any
    keyword: ClassVar[str] = "add"


@dataclass
class LetStmt(RoundStmt):
    """`let NAME = expr`: a local name for the rest of the block."""
    target: str
    target_span: Span
    expr: Any
    keyword: ClassVar[str] = "let"


@dataclass
class IfStmt(RoundStmt):
    """`if expr { ... } else { ... }` (an `else if` is an IfStmt alone in `otherwise`)."""
    expr: Any
    body: list
    otherwise: list = field(default_factory=list)
    keyword: ClassVar[str] = "if"


@dataclass
class InsteadStmt(RoundStmt):
    """`instead if expr { ... }`: replaces the rules of the `if` chain before it when it holds."""
    expr: Any
    body: list
    keyword: ClassVar[str] = "instead"


@dataclass
class RollStmt(RoundStmt):
    """`roll pool_or_table` or `roll NAME = pool`: roll a dice pool (binding its result) or an
    event table (applying the row rolled)."""
    source: str
    source_span: Span
    target: str | None = None
    target_span: Span | None = None
    keyword: ClassVar[str] = "roll"


@dataclass
class MoveStmt(RoundStmt):
    """`move TRACK expr`: a track's marker moves by a number of steps."""
    target: str
    target_span: Span
    expr: Any
    keyword: ClassVar[str] = "move"


@dataclass
class ResetStmt(RoundStmt):
    """`reset NAME`: a track, stat or flag goes back to its start."""
    target: str
    target_span: Span
    keyword: ClassVar[str] = "reset"


@dataclass
class ShuffleStmt(RoundStmt):
    """`shuffle`: the draw pile is shuffled."""
    keyword: ClassVar[str] = "shuffle"


@dataclass
class DrawStmt(RoundStmt):
    """`draw expr`: cards are drawn into the hand (up to the hand limit)."""
    expr: Any
    keyword: ClassVar[str] = "draw"


@dataclass
class DiscardStmt(RoundStmt):
    """`discard to expr`: the hand is discarded down to a number of cards, lowest first."""
    expr: Any
    keyword: ClassVar[str] = "discard"


@dataclass
class RuleStmt(RoundStmt):
    """`rule "label" { ... }`: a named rule; the trace names it for everything its body does."""
    text: str
    body: list
    keyword: ClassVar[str] = "rule"


@dataclass
class NoteStmt(RoundStmt):
    """`note "..."` inside a block: a reading of the rules, with no effect."""
    text: str
    keyword: ClassVar[str] = "note"


STATEMENT_TYPES: tuple[type[RoundStmt], ...] = (SetStmt, AddStmt, LetStmt, IfStmt, InsteadStmt, RollStmt, MoveStmt,
                                               ResetStmt, ShuffleStmt, DrawStmt, DiscardStmt, RuleStmt, NoteStmt)


class StatementVisitor:
    """Dispatches a statement to `visit_<NodeClass>`; a missing method is a programming error
    (tests/test_round_visitors.py checks that every stage handles every statement type)."""

    def visit(self, node: RoundStmt, *args, **kwargs):
        return getattr(self, f"visit_{type(node).__name__}")(node, *args, **kwargs)


# --- the transformer mixin ----------------------------------------------------------------------

class RoundsToSyntax:
    """Transformer callbacks of the round-rules grammar (civdsl/rounds/grammar.lark)."""

    def _title(self, c) -> str:
        return self._string(self._tokens(c, "STRING")[0])

    def _declaration(self, kind: str, c, meta, fields: list, value: dict | None = None):
        """A round declaration `KEYWORD NAME "title" ...`: an item that records where its name is
        written, as every declaring item does (the index of references, references.py)."""
        item = self._item(kind, c[1].value, meta, fields, {"title": self._string(c[2]), **(value or {})})
        item.name_span = span_of(self.file, c[1])
        return item

    @v_args(meta=True)
    def stat_decl(self, meta, c):
        return self._declaration("stat", c, meta, self._fields(c))

    @v_args(meta=True)
    def stat_initial(self, meta, c):
        return self._field("initial", c[1], meta)

    @v_args(meta=True)
    def stat_bounds(self, meta, c):
        ints = [self._located(x, "stat bound") for x in c if isinstance(x, int) and not isinstance(x, TOKEN_TYPES)]
        return self._field("bounds", (ints[0], ints[1] if len(ints) > 1 else None), meta)

    @v_args(meta=True)
    def flag_decl(self, meta, c):
        state = self._tokens(c, "ON", "OFF")
        return self._declaration("flag", c, meta, [], {"on": bool(state) and state[0].type == "ON"})

    @v_args(meta=True)
    def choice_decl(self, meta, c):
        return self._declaration("choice", c, meta, [], {"default": c[4]})

    @v_args(meta=True)
    def threshold_decl(self, meta, c):
        body = next((x for x in c[5:] if isinstance(x, list)), None)
        return self._declaration("threshold", c, meta, [], {"when": c[4], "body": body})

    @v_args(meta=True)
    def end_decl(self, meta, c):
        return self._item("end", None, meta, [], (c[2], self._string(c[3])))

    @v_args(meta=True)
    def pool_decl(self, meta, c):
        return self._declaration("pool", c, meta, self._fields(c))

    @v_args(meta=True)
    def pool_sides(self, meta, c):
        return self._field("sides", c[1], meta)

    @v_args(meta=True)
    def pool_base(self, meta, c):
        return self._field("base", c[1], meta)

    @v_args(meta=True)
    def pool_add(self, meta, c):
        amount = c[1]
        condition = c[3] if len(c) > 3 and isinstance(c[2], TOKEN_TYPES) and c[2].type == "WHEN" else None
        label = self._tokens(c, "STRING")
        return self._field("add", (amount, condition, self._string(label[0]) if label else None), meta)

    @v_args(meta=True)
    def pool_success(self, meta, c):
        ints = [self._located(x, "die face") for x in c if isinstance(x, int) and not isinstance(x, TOKEN_TYPES)]
        return self._field("success", (ints[0], ints[1] if len(ints) > 1 else None), meta)

    @v_args(meta=True)
    def track_decl(self, meta, c):
        return self._declaration("track", c, meta, self._fields(c))

    @v_args(meta=True)
    def track_start(self, meta, c):
        return self._field("start", self._located(c[1], "track position"), meta)

    @v_args(meta=True)
    def track_bounds(self, meta, c):
        ints = [self._located(x, "track position") for x in c if isinstance(x, int) and not isinstance(x, TOKEN_TYPES)]
        return self._field("bounds", (ints[0], ints[1]), meta)

    @v_args(meta=True)
    def track_stage(self, meta, c):
        ints = [self._located(x, "track position") for x in c if isinstance(x, int) and not isinstance(x, TOKEN_TYPES)]
        return self._field("stage", (ints[0], ints[1] if len(ints) > 1 else ints[0], self._title(c)), meta)

    @v_args(meta=True)
    def track_at(self, meta, c):
        body = next((x for x in c if isinstance(x, list)), None)
        return self._field("at", (self._located(c[1], "track position"), self._title(c), body), meta)

    @v_args(meta=True)
    def event_table_decl(self, meta, c):
        die_tok = self._tokens(c, "INT")[0]
        return self._declaration("event_table", c, meta, self._fields(c), {"die": self._int(die_tok, "die sides")})

    @v_args(meta=True)
    def event_row(self, meta, c):
        ints = [self._int(t, "die face") for t in self._tokens(c, "INT")]
        body = next(x for x in c if isinstance(x, list))
        return self._field("row", (ints[0], ints[1] if len(ints) > 1 else ints[0], self._title(c), body), meta)

    @v_args(meta=True)
    def card_deck(self, meta, c):
        return self._declaration("card_deck", c, meta, self._fields(c))

    @v_args(meta=True)
    def deck_suit(self, meta, c):
        return self._field("suit", (self._string(c[1]), c[2].value, span_of(self.file, c[2])), meta)

    @v_args(meta=True)
    def deck_rank(self, meta, c):
        return self._field("rank", (self._string(c[1]), self._int(c[3], "card value")), meta)

    @v_args(meta=True)
    def deck_ranks(self, meta, c):
        ints = [self._int(t, "card rank") for t in self._tokens(c, "INT")]
        return self._field("ranks", (ints[0], ints[1]), meta)

    @v_args(meta=True)
    def deck_hand_limit(self, meta, c):
        return self._field("hand_limit", self._int(c[2], "hand limit"), meta)

    @v_args(meta=True)
    def phase_decl(self, meta, c):
        return self._declaration("phase", c, meta, [], {"body": c[3]})

    @v_args(meta=True)
    def setup_decl(self, meta, c):
        return self._item("setup", None, meta, [], {"body": c[1]})

    def phase_block(self, c):
        out = []
        for x in c:
            if isinstance(x, TOKEN_TYPES):
                continue
            if not isinstance(x, (RoundStmt, list)):  # a `note` inside a block comes out of the shared rule
                x = NoteStmt(x.span, x.value)
            out.append(x)
        return out

    def _target(self, tok) -> dict:
        return {"target": tok.value, "target_span": span_of(self.file, tok)}

    @v_args(meta=True)
    def ps_set(self, meta, c):
        return SetStmt(self._span(meta), expr=c[3], **self._target(c[1]))

    @v_args(meta=True)
    def ps_add(self, meta, c):
        return AddStmt(self._span(meta), expr=c[2], **self._target(c[1]))

    @v_args(meta=True)
    def ps_let(self, meta, c):
        return LetStmt(self._span(meta), expr=c[3], **self._target(c[1]))

    @v_args(meta=True)
    def ps_if(self, meta, c):
        otherwise = []
        if len(c) > 3:
            other = c[4]
            otherwise = other if isinstance(other, list) else [other]
        return IfStmt(self._span(meta), c[1], c[2], otherwise)

    @v_args(meta=True)
    def ps_instead(self, meta, c):
        return InsteadStmt(self._span(meta), c[2], c[3])

    @v_args(meta=True)
    def ps_roll(self, meta, c):
        if len(c) > 2:
            return RollStmt(self._span(meta), c[3].value, span_of(self.file, c[3]), **self._target(c[1]))
        return RollStmt(self._span(meta), c[1].value, span_of(self.file, c[1]))

    @v_args(meta=True)
    def ps_move(self, meta, c):
        return MoveStmt(self._span(meta), expr=c[2], **self._target(c[1]))

    @v_args(meta=True)
    def ps_reset(self, meta, c):
        return ResetStmt(self._span(meta), **self._target(c[1]))

    @v_args(meta=True)
    def ps_shuffle(self, meta, c):
        return ShuffleStmt(self._span(meta))

    @v_args(meta=True)
    def ps_draw(self, meta, c):
        return DrawStmt(self._span(meta), c[1])

    @v_args(meta=True)
    def ps_discard(self, meta, c):
        return DiscardStmt(self._span(meta), c[2])

    @v_args(meta=True)
    def ps_rule(self, meta, c):
        return RuleStmt(self._span(meta), self._string(c[1]), c[2])
