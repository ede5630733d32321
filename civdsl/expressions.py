"""Expressions: printing them back, checking their names, evaluating the model-level ones, and
compiling player-level ones to Python source.

Compilation is by construction safe: the only text copied from a rulebook into Python source
goes through `repr()` (strings, numbers) or is a name checked against the fixed vocabulary
(function keywords); every other identifier in the output is chosen by this module.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction
from functools import partial
from typing import Any, Callable

from . import vocabulary as vocab
from .diagnostics import Diagnostics, Span, suggestion
from .syntax import BinOp, Bool, Call, Expr, Name, Neg, NodeVisitor, Not, Num, Str, Unknown, Where

_PRECEDENCE = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
               "+": 5, "-": 5, "*": 6, "/": 6, "//": 6}


def unparse(e: Expr, parent: int = 0) -> str:
    """The canonical text of an expression (used by fmt, charts, JSON and diagnostics); `parent` is
    the precedence of the operator around it (parentheses where it binds more loosely)."""
    text = _UNPARSE.get(type(e))
    if text is None:
        raise TypeError(type(e))
    return text(e, parent)


def _unparse_call(e: Call, parent: int) -> str:
    args = [unparse(a) for a in e.args] + [f"{k}={unparse(v)}" for k, v in e.kwargs.items()]
    return f"{e.name}({', '.join(args)})"


def _unparse_not(e: Not, parent: int) -> str:
    text = f"not {unparse(e.operand, 3)}"
    return f"({text})" if parent > 3 else text


def _unparse_binop(e: BinOp, parent: int) -> str:
    prec = _PRECEDENCE[e.op]
    text = f"{unparse(e.left, prec)} {e.op} {unparse(e.right, prec + 1)}"
    return f"({text})" if prec < parent else text


# each expression node type's canonical text
_UNPARSE = {
    Num: lambda e, parent: str(e.value),
    Str: lambda e, parent: quote(e.value),
    Bool: lambda e, parent: "true" if e.value else "false",
    Unknown: lambda e, parent: "unknown",
    Name: lambda e, parent: e.dotted,
    Call: _unparse_call,
    Where: lambda e, parent: f"{unparse(e.items)} where {unparse(e.condition)}",
    Not: _unparse_not,
    Neg: lambda e, parent: f"-{unparse(e.operand, 7)}",
    BinOp: _unparse_binop,
}


def quote(s: str) -> str:
    """A rulebook string literal for `s`."""
    return f'"{s.translate(_QUOTE_ESCAPES)}"'


def _quote_escapes() -> dict[int, str]:
    """What `quote` writes for each character it escapes: the quote and the backslash, the usual
    control characters by name, and as `\\uXXXX` every other control character, the line and
    paragraph separators, DEL and the bidirectional controls (text must read as it runs)."""
    hidden = [*range(32), 0x2028, 0x2029, 0x7F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    escapes = {code: f"\\u{code:04x}" for code in hidden}
    escapes.update({ord('"'): '\\"', ord("\\"): "\\\\", ord("\n"): "\\n", ord("\t"): "\\t", ord("\r"): "\\r"})
    return escapes


_QUOTE_ESCAPES = _quote_escapes()


def walk(e: Expr):
    """Every node of an expression, iteratively (no recursion limit to hit)."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(sub_expressions(node))


def sub_expressions(e: Expr) -> list[Expr]:
    """The expressions directly inside `e`, in the order written (none in a literal or a name)."""
    return _SUB_EXPRESSIONS.get(type(e), _no_sub_expressions)(e)


def _no_sub_expressions(e: Expr) -> list[Expr]:
    return []


def _operand(e: Not | Neg) -> list[Expr]:
    return [e.operand]


# each node type that holds expressions: them, in the order written
_SUB_EXPRESSIONS = {
    Call: lambda e: [*e.args, *e.kwargs.values()],
    Where: lambda e: [e.items, e.condition],
    Not: _operand,
    Neg: _operand,
    BinOp: lambda e: [e.left, e.right],
}


# --- checking ---------------------------------------------------------------------------


class Scope:
    """What names an expression may read where it stands."""

    def __init__(self, *, consts=(), options=(), tables=(), groups=(),
                 player: bool = True, extra_names=(), model: bool = False, item_attrs=()):
        self.consts = set(consts)
        self.options = set(options)
        self.tables = set(tables)
        self.groups = list(groups)
        self.player = player
        self.model = model
        self.extra_names = set(extra_names)
        self.item_attrs = set(item_attrs)
        self._names: frozenset[str] | None = None

    def names(self) -> frozenset[str]:
        # made once: every name an expression reads is looked up in it
        if self._names is None:
            out = self.consts | self.options | self.extra_names | self.item_attrs
            if self.player:
                out |= set(vocab.FACTS) | set(vocab.DERIVED_NAMES)
            if self.model:
                out |= set(vocab.MODEL_COLLECTIONS)
            self._names = frozenset(out)
        return self._names


def check(e: Expr, scope: Scope, diags: Diagnostics, item: str | None = None) -> None:
    """Report unknown names, functions, arguments and advance/commodity names in `e`."""
    _check(e, scope, diags, item)


def _check(e: Expr, scope: Scope, diags: Diagnostics, item) -> None:
    _CHECKS.get(type(e), _check_parts)(e, scope, diags, item)


def _check_name(e: Name, scope: Scope, diags: Diagnostics, item) -> None:
    head = e.parts[0]
    if head not in scope.names():
        diags.error("CIV013", f"unknown name `{e.dotted}`", e.span, item=item,
                    help=suggestion(head, scope.names()) or "see `civdsl vocab` for the facts a rule can read")


def _check_where(e: Where, scope: Scope, diags: Diagnostics, item) -> None:
    """A filter: its condition reads the items' attributes."""
    _check(e.items, scope, diags, item)
    _check(e.condition, _item_scope(e.items, scope), diags, item)


def _check_parts(e: Expr, scope: Scope, diags: Diagnostics, item) -> None:
    _check_all(sub_expressions(e), scope, diags, item)


def _item_scope(items: Expr, scope: Scope) -> Scope:
    coll = items.parts[0] if isinstance(items, Name) else None
    if isinstance(items, Where):
        return _item_scope(items.items, scope)
    attrs = vocab.ITEM_ATTRIBUTES.get(coll or "", ())
    return Scope(consts=scope.consts, options=scope.options, tables=scope.tables,
                 groups=scope.groups, player=False, model=True,
                 extra_names=scope.extra_names | set(scope.groups), item_attrs=set(attrs))


def _check_call(e: Call, scope: Scope, diags: Diagnostics, item) -> None:
    if e.name in scope.tables:
        if len(e.args) != 1 or e.kwargs:
            diags.error("CIV014", f"table `{e.name}` takes exactly one argument", e.span, item=item)
        _check_all(e.args, scope, diags, item)
        return
    fn = vocab.FUNCTIONS.get(e.name)
    if not (fn and _readable(fn, scope)):
        _unusable_function(e, fn, scope, diags, item)
        return
    if len(e.args) != len(fn.args):
        diags.error("CIV014", f"{_takes(e.name, len(fn.args))}, got {len(e.args)}", e.span, item=item)
    _check_kwargs(e, fn, scope, diags, item)
    _check_arguments(e, fn, scope, diags, item)


def _check_arguments(e: Call, fn, scope: Scope, diags: Diagnostics, item) -> None:
    """A function's positional arguments: a quoted name for `holds` and `cards` (the name itself is
    checked with every other use of a name: references.py, the validator), a collection then its
    items' expressions for a model function, expressions where the call stands for the rest."""
    if e.name in ("holds", "cards") and e.args:
        if not isinstance(e.args[0], Str):
            diags.error("CIV014", f"`{e.name}` needs a quoted name", e.args[0].span, item=item)
    elif fn.scope == "model" and e.args:
        _check(e.args[0], scope, diags, item)
        _check_all(e.args[1:], _item_scope(e.args[0], scope), diags, item)
    else:
        _check_all(e.args, scope, diags, item)


def _check_all(exprs, scope: Scope, diags: Diagnostics, item) -> None:
    for a in exprs:
        _check(a, scope, diags, item)


def _readable(fn, scope: Scope) -> bool:
    """Whether a function may be called where `scope` applies: math anywhere, a player's facts
    (and the table around the player) in rules about a player, the model in model-level assertions."""
    return (fn.scope == "math" or (fn.scope in ("player", "table") and scope.player)
            or (fn.scope == "model" and scope.model))


def _unusable_function(e: Call, fn, scope: Scope, diags: Diagnostics, item) -> None:
    """An unknown function, or one that reads what this scope does not have."""
    known = [f.name for f in vocab.FUNCTIONS.values() if _readable(f, scope)] + sorted(scope.tables)
    what = "function" if not fn else f"function `{e.name}` here (it reads the {fn.scope}); function"
    diags.error("CIV014", f"unknown {what} `{e.name}`" if not fn else f"`{e.name}` cannot be used here",
                e.span, item=item, help=suggestion(e.name, known))


def _check_kwargs(e: Call, fn, scope: Scope, diags: Diagnostics, item) -> None:
    for key, value in e.kwargs.items():
        if key not in fn.kwargs:
            diags.error("CIV014", f"`{e.name}` has no parameter `{key}`", e.kwarg_spans.get(key, e.span), item=item,
                        help=suggestion(key, fn.kwargs) or f"parameters: {', '.join(fn.kwargs) or 'none'}")
            continue
        _KWARG_CHECKS.get(key, _check_kwarg_value)(key, value, scope, diags, item)


def _check_kwarg_value(key: str, value: Expr, scope: Scope, diags: Diagnostics, item) -> None:
    _check(value, scope, diags, item)


def _check_relation(key: str, value: Expr, scope: Scope, diags: Diagnostics, item) -> None:
    """`by` or `among`: a table relation (vocabulary.RELATIONS); only `among` counts everyone."""
    allowed = [r for r in vocab.RELATIONS if key == "among" or r not in ("others", "everyone")]
    if not _one_of(value, allowed):
        diags.error("CIV087", f"unknown table relation `{unparse(value)}`", value.span, item=item,
                    help=suggestion(unparse(value), allowed) or f"relations: {', '.join(allowed)}")


def _check_group(key: str, value: Expr, scope: Scope, diags: Diagnostics, item) -> None:
    # a group's name is checked with every other use of a name (references.py, the validator)
    if not (isinstance(value, Name) and len(value.parts) == 1):
        diags.error("CIV012", f"unknown group `{unparse(value)}`", value.span, item=item,
                    help=suggestion(unparse(value), scope.groups))


# the keyword arguments that are words, not expressions: each one's check
_KWARG_CHECKS = {"by": _check_relation, "among": _check_relation, "group": _check_group}


def _check_unknown(e: Unknown, scope: Scope, diags: Diagnostics, item) -> None:
    """`unknown` is a model's missing value (a cost printed as unknown, read by an assert): a rule that
    computes with it would compute nothing, and a fact the state does not give is unknown already."""
    if scope.player:
        diags.error("CIV071", "`unknown` is not a value a rule can compute with", e.span, item=item,
                    help="write the number the rulebook prints; where it prints none, leave the rule out and "
                         "say so in a note")


# the node types checked in their own way; the others by their parts
_CHECKS = {Name: _check_name, Call: _check_call, Where: _check_where, Unknown: _check_unknown}


def _one_of(value: Expr, words) -> bool:
    """`value` is a bare word among `words` (a group, a table relation)."""
    return isinstance(value, Name) and len(value.parts) == 1 and value.parts[0] in words


# --- evaluation (constants and model-level assertions) ------------------------------------


class EvalError(Exception):
    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span


def evaluate(e: Expr, lookup: Callable[[Name], Any], call: Callable[[Call, Callable], Any] | None = None) -> Any:
    """Evaluate `e`; `lookup` resolves names, `call` evaluates non-math function calls."""
    return evaluator(e)(lookup, call)


def evaluator(e: Expr) -> Callable[[Callable, Callable | None], Any]:
    """`e` made once into a function of (lookup, call) that evaluates it as `evaluate` does, in the
    same order, with the same errors. An author invariant evaluates one expression once per item
    of a collection: made once, it is not walked again node by node (two calls a node) for each."""
    maker = _EVALUATORS.get(type(e))  # by exact type, as every pass dispatches on syntax nodes
    if maker is None:
        def unevaluable(lookup, call):
            raise TypeError(type(e))
        return unevaluable
    return maker(e)


def _span(e) -> Span | None:
    # read when the evaluator is made; a node without a span is of no expression type and raises
    # TypeError when evaluated, before its span could be read
    return getattr(e, "span", None)


def _value_evaluator(e: Num | Str | Bool):
    value = e.value
    return lambda lookup, call: value


def _unknown_evaluator(e: Unknown):
    return lambda lookup, call: None


def _name_evaluator(e: Name):
    return lambda lookup, call: lookup(e)


def _not_evaluator(e: Not):
    operand, span = evaluator(e.operand), _span(e.operand)
    return lambda lookup, call: not truth(operand(lookup, call), span)


def _neg_evaluator(e: Neg):
    operand, span = evaluator(e.operand), e.span
    return lambda lookup, call: -_number(operand(lookup, call), span)


def _binop_evaluator(e: BinOp):
    """`and` and `or` evaluate their right side only when it decides; every other operator both."""
    left, right, op, span = evaluator(e.left), evaluator(e.right), e.op, e.span
    left_span, right_span = _span(e.left), _span(e.right)
    if op == "and":
        return lambda lookup, call: truth(left(lookup, call), left_span) and truth(right(lookup, call), right_span)
    if op == "or":
        return lambda lookup, call: truth(left(lookup, call), left_span) or truth(right(lookup, call), right_span)
    if op in _EQUALITY:  # what `binary` does for them: any values compared
        equal = _EQUALITY[op]
        return lambda lookup, call: equal(left(lookup, call), right(lookup, call))
    return lambda lookup, call: binary(op, left(lookup, call), right(lookup, call), span)


def _call_evaluator(e: Call):
    """A math function here; any other through `call`, where the caller has one."""
    fn = vocab.FUNCTIONS.get(e.name)
    if fn and fn.scope == "math":
        args = [(evaluator(a), _span(a)) for a in e.args]
        return lambda lookup, call: _evaluate_math(e, fn, [_number(a(lookup, call), span) for a, span in args])

    def other(lookup, call):
        if call is None:
            raise EvalError(f"`{e.name}` cannot be evaluated here", e.span)
        return call(e, partial(evaluate, lookup=lookup, call=call))
    return other


def _evaluate_math(e: Call, fn, args: list) -> Any:
    if len(args) != len(fn.args):
        raise EvalError(_takes(e.name, len(fn.args)), e.span)
    try:
        return _bounded(MATH[e.name](*args), e.span)
    except (ArithmeticError, ValueError) as exc:  # sqrt(-1), a float overflow
        raise EvalError(f"`{e.name}` cannot be evaluated: {exc}", e.span) from None


def _where_evaluator(e: Where):
    def where(lookup, call):
        raise EvalError("`where` filters only work inside count, sum, all and any", e.span)
    return where


_EVALUATORS = {Num: _value_evaluator, Str: _value_evaluator, Bool: _value_evaluator, Unknown: _unknown_evaluator,
               Name: _name_evaluator, Not: _not_evaluator, Neg: _neg_evaluator, BinOp: _binop_evaluator,
               Call: _call_evaluator, Where: _where_evaluator}


def _takes(name: str, count: int) -> str:
    """"`name` takes N argument(s)": a function called with the wrong number of them."""
    return f"`{name}` takes {count} argument{'s' if count != 1 else ''}"


MAX_MAGNITUDE = 10**18  # no folded number on a game board comes near; repr(), JSON and YAML all cope


def _bounded(v: Any, span: Span) -> Any:
    """Refuse a folded number past any board-game size: otherwise each `const` can multiply the
    digits of the one before (a few lines of `const c2 = c1 * c1 * ...` take minutes and gigabytes)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
        return v
    if not abs(v) <= MAX_MAGNITUDE or (isinstance(v, Fraction) and v.denominator > MAX_MAGNITUDE):
        raise EvalError("the number is too large (the limit is 10^18)", span)
    return v


def _number(v: Any, span: Span):
    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
        raise EvalError(f"expected a number, got {_describe(v)}", span)
    return v


number = _number


def truth(v: Any, span: Span) -> bool:
    """A condition's value: true or false; unknown (a model's missing value) reads as not true."""
    if v is not None and not isinstance(v, bool):
        raise EvalError(f"expected true or false, got {_describe(v)}", span)
    return v is True


def _describe(v: Any) -> str:
    if v is None:
        return "unknown"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, str):
        return f"the text {v!r}"
    if isinstance(v, list):
        return "a collection"
    if isinstance(v, dict):
        return f"the item {v.get('name', '')!r}".replace(" ''", "")
    return "a number"


def binary(op: str, a: Any, b: Any, span: Span) -> Any:
    """`a op b` for a binary operator other than `and`/`or`: equality of any values, the rest of numbers."""
    if op in _EQUALITY:
        return _EQUALITY[op](a, b)
    a, b = _number(a, span), _number(b, span)
    if op in _ORDER:
        return _ORDER[op](a, b)
    try:
        return _bounded(_ARITHMETIC[op](a, b), span)
    except ZeroDivisionError:
        raise EvalError("division by zero", span) from None


_EQUALITY = {"==": operator.eq, "!=": operator.ne}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _exact_quotient(a, b) -> Fraction:
    return Fraction(a) / Fraction(b)


def _floor_quotient(a, b) -> int:
    return math.floor(Fraction(a) / Fraction(b))


# division is exact (a Fraction), never a float
_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _exact_quotient, "//": _floor_quotient}


MATH = {
    "floor": lambda x: math.floor(x),
    "ceil": lambda x: math.ceil(x),
    "sqrt": lambda x: math.sqrt(x),
    "min": min,
    "max": max,
    "abs": abs,
}


def _chain(e: Expr, op: str) -> list[Expr]:
    """The operands of a chain `a op b op c` (left-associated), in order, iteratively."""
    out: list[Expr] = []
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, BinOp) and node.op == op:
            stack.extend([node.right, node.left])
        else:
            out.append(node)
    return out


# --- compilation to a target language ---------------------------------------------------------


class ExpressionCompiler(NodeVisitor):
    """The one walk over a player-level expression's typed nodes, writing it in a target language
    as an expression over `s` (the player's state): one `visit_<Node>` per node type, shared by
    every target. A target declares its words once: `literal` (a folded value as source) and the
    class attributes below; what its runtime does with an Unknown value is its runtime's business,
    reached through the names these words call. The targets: PythonCompiler (the generated
    module), companion.jsgen.JSCompiler (the companion page)."""

    # where the set of held advances is, outside a calamity function's local: the player state's
    # own attribute (playerstate.py), which both targets run
    HELD = "s.held_set"
    NOT: str  # the template of `not x` ({} the operand)
    NEG: str  # the template of `-x`
    LOGIC: str  # the template of a chain `a and b and c` ({op} the word, {operands} the first and the lazy rest)
    THUNK: str  # what makes an operand of `and`/`or` lazy
    BINARY: dict[str, str]  # every other binary operator: the template of its two operands
    MATH_CALLS: dict[str, str]  # each math function (expressions.MATH): the runtime's function, which knows Unknown
    TABLE: str  # a rulebook table's lookup: the template of its quoted name and the argument
    HOLDS: str  # the template of `holds(advance)` ({advance}, {held})
    FUNCTION: str  # what makes the expression after it a function of another player's state `s`
    NO_FUNCTION: str  # a table query's argument when it has no expression

    def __init__(self, consts: dict[str, Any], options: dict[str, bool], tables: set[str]):
        self.consts = consts
        self.options = options
        self.tables = tables
        # where the set of held advances is: compiled calamity functions keep it in a local
        self.held = self.HELD
        # constants that read the player's state cannot be folded: their expression is
        # compiled in place wherever they are used
        self.const_exprs: dict[str, Expr] = {}
        # options are read from the state at run time (PlayerState.option), so a question may
        # switch them; round rules fold them to the rulebook's setting
        self.runtime_options = True
        self._expanding: set[str] = set()

    @staticmethod
    def literal(value: Any) -> str:
        """A folded value (a number, text, a bool, None) as the target's source."""
        raise NotImplementedError

    def compile(self, e: Expr) -> str:
        """The target's source of `e`: each node type has its `visit_<Node>`."""
        return self.visit(e)

    def visit_Num(self, e: Num) -> str:
        return self.literal(e.value)

    visit_Str = visit_Bool = visit_Num

    def visit_Unknown(self, e: Unknown) -> str:
        return self.literal(None)

    def visit_Where(self, e: Where) -> str:
        raise TypeError(type(e))  # only inside count/sum/all/any, which compile their filter themselves

    def visit_Name(self, e: Name) -> str:
        head = e.parts[0]
        if head in self.consts:
            return self.literal(self.consts[head])
        if head in self.const_exprs:
            return self._expanded(head)
        if head in self.options:
            # a rule switch: the player's choice (`--option`) or the rulebook's setting
            return f"s.option({self.literal(head)})" if self.runtime_options else self.literal(self.options[head])
        if head in vocab.DERIVED_NAMES:
            return f"s.derived({self.literal(head)})"
        return f"s.fact({self.literal(head)})"

    def _expanded(self, head: str) -> str:
        """A constant that reads the player's state, compiled in place (never in terms of itself)."""
        if head in self._expanding:
            raise ValueError(f"constant `{head}` is defined in terms of itself")
        self._expanding.add(head)
        try:
            return f"({self.compile(self.const_exprs[head])})"
        finally:
            self._expanding.discard(head)

    def visit_Not(self, e: Not) -> str:
        return self._not(self.compile(e.operand))

    def visit_Neg(self, e: Neg) -> str:
        return self.NEG.format(self.compile(e.operand))

    def visit_BinOp(self, e: BinOp) -> str:
        if e.op in ("and", "or"):
            return self._logic(e.op, [self.compile(x) for x in _chain(e, e.op)])
        return self.BINARY[e.op].format(self.compile(e.left), self.compile(e.right))

    # A player's facts may be unknown (runtime.Unknown): `and`, `or` and `not` follow Kleene's
    # three-valued logic there, keeping short-circuit evaluation for known values.
    def _not(self, operand: str) -> str:
        return self.NOT.format(operand)

    def _logic(self, op: str, operands: list[str]) -> str:
        lazy = [operands[0]] + [self.THUNK + x for x in operands[1:]]
        return self.LOGIC.format(op=op, operands=", ".join(lazy))

    def visit_Call(self, e: Call) -> str:
        fn = vocab.FUNCTIONS.get(e.name)
        if fn is not None and fn.scope == "table":
            return self._table_query(e)
        if e.name in self.tables:
            return self.TABLE.format(self.literal(e.name), self.compile(e.args[0]))
        if fn.scope == "math":
            return self._math(e)
        if e.name == "holds":
            return self.HOLDS.format(advance=self.compile(e.args[0]), held=self.held)
        return self._player_call(e, fn)

    def _math(self, e: Call) -> str:
        return f"{self.MATH_CALLS[e.name]}({', '.join(self.compile(a) for a in e.args)})"

    def _table_query(self, e: Call) -> str:
        """A question about other players: the expression argument is evaluated
        for each of them, so it is compiled as a function of that player's state."""
        relation = next((v.parts[0] for k, v in e.kwargs.items() if k in ("by", "among")), None)
        if e.name == "neighbours":
            return f"s.neighbours({self.literal(relation or 'land')})"
        inner = self._of_another_player(e.args[0]) if e.args else self.NO_FUNCTION
        if e.name == "most_among":
            return f"s.most_among({inner}, {self.literal(relation or 'others')})"
        return f"s.of_role({self.literal(e.name.removeprefix('of_'))}, {inner})"

    def _of_another_player(self, e: Expr) -> str:
        """`e` as a function of another player's state, reading that player's advances."""
        held, self.held = self.held, self.HELD  # the other player's advances, not the victim's
        try:
            return f"{self.FUNCTION}{self.compile(e)}"
        finally:
            self.held = held

    def _player_call(self, e: Call, fn) -> str:
        """A function of the player's state: keyword names come from the vocabulary (checked),
        values are compiled expressions, a group its word."""
        kwargs = []
        for key, value in e.kwargs.items():
            assert key in fn.kwargs, key
            grouped = key == "group" and isinstance(value, Name)
            kwargs.append((key, self.literal(value.parts[0]) if grouped else self.compile(value)))
        return f"s.{fn.name}({self._arguments(fn, [self.compile(a) for a in e.args], kwargs)})"

    def _arguments(self, fn, args: list[str], kwargs: list[tuple[str, str]]) -> str:
        """A player function's arguments as the target passes them (positional, then keywords)."""
        raise NotImplementedError


COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")  # the operators a requirement compares with


class PythonCompiler(ExpressionCompiler):
    """Compiles a player-level expression to a Python expression over `s` (the PlayerState)."""

    NOT, NEG = "_rt.not_({})", "(-{})"
    LOGIC, THUNK = "_rt.{op}_({operands})", "lambda: "
    BINARY = {**{op: f"({{}} {op} {{}})" for op in ("+", "-", "*") + COMPARE_OPS},
              "/": "_rt.div({}, {})", "//": "_rt.floordiv({}, {})"}
    MATH_CALLS = {**{name: f"_rt.{name}" for name in MATH}, "min": "_rt.min_", "max": "_rt.max_"}
    TABLE = "_rt.lookup(TABLES[{}], {})"
    HOLDS = "({advance} in {held})"
    FUNCTION, NO_FUNCTION = "lambda s: ", ""
    literal = staticmethod(repr)

    def _arguments(self, fn, args: list[str], kwargs: list[tuple[str, str]]) -> str:
        return ", ".join(args + [f"{key}={value}" for key, value in kwargs])


class PlainLogicCompiler(PythonCompiler):
    """Python over values that are never unknown (the round rules read no player facts, a set's
    value only numbers): Python's own `not`, `and` and `or`."""

    def _not(self, operand: str) -> str:
        return f"(not {operand})"

    def _logic(self, op: str, operands: list[str]) -> str:
        return f"({f' {op} '.join(operands)})"
