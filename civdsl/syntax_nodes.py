"""The syntax tree's nodes: expressions, items and their fields, modifier operations, the
rulebook; plain dataclasses with source spans, made by the syntax pass (syntax.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from .diagnostics import Span


# --- expressions --------------------------------------------------------------------


@dataclass
class Num:
    value: int
    span: Span


@dataclass
class Str:
    value: str
    span: Span


@dataclass
class Bool:
    value: bool
    span: Span


@dataclass
class Unknown:
    span: Span


@dataclass
class Name:
    parts: tuple[str, ...]
    span: Span

    @property
    def dotted(self) -> str:
        return ".".join(self.parts)


@dataclass
class Call:
    name: str
    args: list["Expr"]
    kwargs: dict[str, "Expr"]
    span: Span
    kwarg_spans: dict[str, Span] = field(default_factory=dict)


@dataclass
class Where:
    items: "Expr"
    condition: "Expr"
    span: Span


@dataclass
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"
    span: Span


@dataclass
class Not:
    operand: "Expr"
    span: Span


@dataclass
class Neg:
    operand: "Expr"
    span: Span


Expr = Union[Num, Str, Bool, Unknown, Name, Call, Where, BinOp, Not, Neg]

# --- statements ------------------------------------------------------------------------


@dataclass
class Field:
    """One statement inside an item block: `key` names what it is, `value` its payload."""

    key: str
    value: Any
    span: Span
    name_span: Span | None = None  # the name a field declares (an epoch's), for the index of references


@dataclass
class EffectCall:
    call: Call
    span: Span


@dataclass
class Branch:
    condition: Expr
    then: list
    otherwise: list
    span: Span


@dataclass
class Op:
    """A modifier operation. Each operation is its own node type (below), so every stage handles
    it in a `visit_<Node>` method; `op` keeps the rulebook's word (`add`, `prevent`, ...) for output."""

    op: str
    kind: str | None
    param: str | None
    amount: Expr | None
    per: Expr | None
    replacement: Call | None
    each: bool
    span: Span


@dataclass
class ChangeOp(Op):
    """`add`, `prevent`, `set` or `cap` a parameter of one of the calamity's effects."""


@dataclass
class ImmuneOp(Op):
    """`immune`: the victim suffers nothing."""


@dataclass
class CancelOp(Op):
    """`cancel`: the calamity is cancelled."""


@dataclass
class OptionOp(Op):
    """`option KIND -> EFFECT`: the victim may suffer another effect instead of one."""


@dataclass
class StopOp(Op):
    """`stop -> EFFECT`: the victim may suffer an effect to stop the whole calamity for everyone."""


OP_TYPES = (ChangeOp, ImmuneOp, CancelOp, OptionOp, StopOp)


class NodeVisitor:
    """Dispatches a node to `visit_<NodeClass>`; a missing method is a programming error
    (tests/test_op_visitors.py checks that every stage handles every modifier operation type)."""

    def visit(self, node, *args, **kwargs):
        return getattr(self, f"visit_{type(node).__name__}")(node, *args, **kwargs)


@dataclass
class ModifierAst:
    condition: Expr
    role: str
    priority: int
    ops: list[Op]
    span: Span


@dataclass
class Item:
    """A top-level statement. `kind` is the statement keyword; `fields` its block's contents."""

    kind: str
    name: str | None
    span: Span
    fields: list[Field] = field(default_factory=list)
    value: Any = None
    name_span: Span | None = None  # the name as written, for the index of references (references.py)


@dataclass
class Cites:
    """`cites "ID", ...` as written: the clause ids and where each is written."""

    clauses: list[tuple[str, Span]]
    span: Span


@dataclass
class Citation:
    """A `cites` statement and what it cites: the statement written just before it in the same block
    (`target`, where that statement starts), or the block's own statement when it comes first.
    A top-level `cites` has no target here: it cites the top-level statement before it, which the
    resolver knows (the language server parses top-level statements one at a time)."""

    clauses: list[tuple[str, Span]]
    span: Span
    target: Span | None


@dataclass
class Acknowledgement:
    """`clause "ID", ... ACK`: printed clauses no statement implements, and why. `kind` is the
    acknowledgement's word (`out_of_scope`, `flavour`, `covered_by`, `departs`, `errata`); `detail`
    its values (the scope and why, the clauses that cover it, the errata code, ...)."""

    clauses: list[tuple[str, Span]]
    kind: str
    detail: tuple
    span: Span


@dataclass
class RulebookAst:
    path: str
    language: int
    language_span: Span
    edition: str
    edition_span: Span
    display_name: str
    extends: str | None
    extends_is_path: bool
    extends_span: Span | None
    items: list[Item]
