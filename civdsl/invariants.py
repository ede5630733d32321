"""The validator's checks of author invariants (`assert`): each evaluated over the rulebook's own
data (ModelEvaluator), those found to hold kept with what they read (_HeldAsserts), so that a
house rule leaving that unchanged does not evaluate its base's invariants again.
"""

from __future__ import annotations

import itertools
from typing import Any

from . import vocabulary as vocab
from .diagnostics import Span
from .expressions import EvalError, Scope, check, evaluator, number, quote, truth, unparse, walk
from .model import Advance, Edition
from .syntax import Call, Name


class InvariantChecks:
    """The validator's part that checks author invariants (mixed into validator._Validator)."""

    def _asserts(self) -> None:
        global _HELD_ASSERTS
        model_scope = Scope(consts=self.ed.consts, options=self.ed.options, tables=self.ed.tables,
                            groups=self.ed.groups,
                            player=False, model=True)
        evaluator = ModelEvaluator(self.ed)
        held = _HeldAsserts(self.ed, evaluator, _HELD_ASSERTS)
        for a in self.ed.asserts:
            key = held.key(a)
            if held.holds(a, key):
                continue
            reported, before = len(self.d.items), len(self.d.errors)
            check(a.expr, model_scope, self.d, a.message)
            if len(self.d.errors) == before:
                self._assertion(a, evaluator)
            if len(self.d.items) == reported:
                held.keep(a, key)
        _HELD_ASSERTS = held

    def _assertion(self, a, evaluator: ModelEvaluator) -> None:
        """An author invariant that checks holds of the model (CIV042), or cannot be evaluated (CIV043)."""
        try:
            ok = truth(evaluator.evaluate(a.expr), a.expr.span)
        except EvalError as exc:
            self.d.error("CIV043", f"assertion cannot be evaluated: {exc}", exc.span, item=a.message)
            return
        if ok is True:
            return
        detail = evaluator.explain(a.expr)
        hint = None
        if self.ed.bases and a.span.path != self.ed.files[-1]:
            hint = (f"a house rule may depart from its base: acknowledge it with "
                    f"errata CIV042 {quote(a.message)} \"why\"")
        self.d.error("CIV042", f"assertion failed: {a.message}", a.span, item=a.message,
                     notes=[f"{unparse(a.expr)}"] + ([detail] if detail else []), help=hint)

# The author invariants found to hold, with everything their check and their evaluation read
# (_HeldAsserts.key): a house rule's base's invariants hold again for the house rule where it
# leaves what they read unchanged, so a build evaluates them once. Only clean outcomes are kept
# (nothing to report again, so what only a report shows, such as a house rule's hint, is no part
# of the key), and only for the invariants of the last validation, each under its last few inputs,
# so that it never outgrows one chain.
_HELD_ASSERTS: "_HeldAsserts | None" = None
_TOKENS = itertools.count()  # never the same token for two collections
_INPUTS_KEPT = 8  # an invariant's inputs kept (an editor's edits make new ones)
_COLLECTIONS_KEPT = 16


def forget_held() -> None:
    """Forget the invariants found to hold (validator.forget_held)."""
    global _HELD_ASSERTS
    _HELD_ASSERTS = None


class _HeldAsserts:
    """The invariants found to hold, by expression (the very object of the shared syntax tree,
    kept here so its id names nothing else) and by their inputs: the collections they name (the
    fields of each item they can read, as the model's views show them) and, for every other name
    read and every function called, what it stands for (a constant's value, an option's setting,
    a group, a table)."""

    def __init__(self, ed: Edition, evaluator: "ModelEvaluator", before: "_HeldAsserts | None"):
        self.ed, self.evaluator = ed, evaluator
        self.before = before.held if before is not None else {}
        # expression id -> (expression, (names read, functions called), [inputs under which it held])
        self.held: dict[int, tuple] = {}
        # a collection's items -> the token keys hold for it (compared once per validation, not per
        # assert); the most recent ones carried over in the same dictionary (making another would
        # hash every collection again)
        self.tokens: dict[tuple, int] = before.tokens if before is not None else {}
        while len(self.tokens) > _COLLECTIONS_KEPT:
            del self.tokens[next(iter(self.tokens))]
        self._collections: dict[tuple, int] = {}  # (collection, fields read) -> its token here
        # (collection, fields read) -> (the model items it was made from, what the tier rule set on
        # them, its token): a house rule's edition shares its base's items (applied_bases.AppliedBases),
        # and the same items give the same token without viewing and hashing them again
        self.by_items: dict[tuple, tuple] = dict(before.by_items) if before is not None else {}

    def holds(self, a, key: tuple | None) -> bool:
        """Whether the invariant held under the same inputs before (what is known of it is kept)."""
        known = self.before.get(id(a.expr))
        if known is None or known[0] is not a.expr:
            return False
        self.held[id(a.expr)] = known
        return key is not None and key in known[2]

    def keep(self, a, key: tuple | None) -> None:
        if key is not None:
            inputs = self.held.setdefault(id(a.expr), (a.expr, self._read(a.expr), []))[2]
            inputs.append(key)
            del inputs[:-_INPUTS_KEPT]

    def key(self, a) -> tuple | None:
        """The invariant's inputs, or None where a value cannot be hashed (evaluated each time)."""
        heads, calls = self._read(a.expr)
        ed = self.ed
        try:
            key = (tuple(self._collection(h, heads) for h in heads if h in vocab.MODEL_COLLECTIONS),
                   tuple((h in ed.consts, typed_value(ed.consts[h].value) if h in ed.consts else None,
                          h in ed.options, typed_value(ed.options[h].on) if h in ed.options else None, h in ed.groups)
                         for h in heads),
                   tuple(c in ed.tables for c in calls))
            hash(key)
        except TypeError:
            return None
        return key

    def _read(self, expr) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(the names read, the functions called) by an expression, each sorted."""
        for memo in (self.held, self.before):
            known = memo.get(id(expr))
            if known is not None and known[0] is expr:
                return known[1]
        heads, calls = set(), set()
        for node in walk(expr):
            if isinstance(node, Name):
                heads.add(node.parts[0])
            elif isinstance(node, Call):
                calls.add(node.name)
        return tuple(sorted(heads)), tuple(sorted(calls))

    def _collection(self, name: str, read: tuple[str, ...]) -> int:
        """A token for the collection's items as far as the names `read` show them: equal items,
        equal token (the most recent collections' tokens are carried over from one validation to
        the next)."""
        fields = _fields_read(name, read)
        if (name, fields) not in self._collections:
            self._collections[name, fields] = self._token(name, fields)
        return self._collections[name, fields]

    def _token(self, name: str, fields: tuple[str, ...] | None) -> int:
        """The token of a collection's items as `fields` show them: the one given before to the
        very same model items (the resolver edits no item once read, but for the figures the tier
        rule sets on an advance, compared too), else found by their values."""
        source = self.ed.advances if name in ("advances", "specific_credits") else getattr(self.ed, name)
        objects = tuple(source.values())
        marks = tuple((a.vp, tuple(a.vp_when)) for a in objects) if source is self.ed.advances else ()
        known = self.by_items.get((name, fields))
        if (known is not None and len(known[0]) == len(objects) and known[1] == marks
                and all(a is b for a, b in zip(known[0], objects))):
            return known[2]
        items = (name, fields, tuple(self._items(name, fields)))
        token = self.tokens.pop(items, None)
        self.tokens[items] = token = next(_TOKENS) if token is None else token  # now the most recent
        self.by_items.pop((name, fields), None)
        if len(self.by_items) >= _COLLECTIONS_KEPT:
            del self.by_items[next(iter(self.by_items))]
        self.by_items[name, fields] = (objects, marks, token)
        return token

    def _items(self, name: str, fields: tuple[str, ...] | None):
        """Each item's `fields` as ModelEvaluator's views of `name` show them; every field where
        that is None (specific credits, whose items hold whole advances, read from the advances)."""
        if fields is None:
            return ((a.name, typed_value(a.cost), typed_value(a.vp), tuple(a.groups), typed_value(a.supply),
                     tuple((k, typed_value(v)) for k, v in a.credits.items()),
                     tuple((sc.target, typed_value(sc.amount)) for sc in a.specific))
                    for a in self.ed.advances.values())
        return (tuple(typed_value(tuple(v) if type(v) is list else v) for v in map(view.get, fields))
                for view in self.evaluator.collection(name, None))


def _fields_read(name: str, read: tuple[str, ...]) -> tuple[str, ...] | None:
    """The attributes of `name`'s items (vocabulary.ITEM_ATTRIBUTES) an expression reading the
    names `read` can see, and always the name; None (every field) where it reads specific credits."""
    if name == "specific_credits" or "specific_credits" in read:
        return None
    return ("name", *(f for f in read if f != "name" and f in vocab.ITEM_ATTRIBUTES[name]))


def typed_value(value) -> tuple:
    """A value with its type: 1, 1.0 and True are equal keys but not the same value to an assert."""
    return (type(value), value)


# the functions of an author invariant over a collection: (its items, each further argument as a
# function of an item) -> the value; each further argument's values are checked for their kind
# (an unknown value, a cost written `unknown`, adds nothing to a sum and is not true)
_AGGREGATES = {
    "count": lambda items, args: len(items),
    "sum": lambda items, args: sum(args[0](item, number) for item in items),
    "all": lambda items, args: _all_holds(items, args),
    "any": lambda items, args: any(args[0](item, truth) for item in items),
}


def _all_holds(items, args) -> bool:
    """`all(items, condition)`: false as soon as one item decidedly breaks it, even where another
    cannot be decided (a comparison with a cost written `unknown`); undecided (the first such
    item's EvalError) only when no item breaks it."""
    undecided = None
    for item in items:
        try:
            if not args[0](item, truth):
                return False
        except EvalError as exc:
            undecided = undecided or exc
    if undecided is not None:
        raise undecided
    return True


def _of_kind(value: Any, kind, span: Span) -> Any:
    """`value` as `kind` (number or truth) wants it; unknown stays out of a sum."""
    return 0 if value is None and kind is number else kind(value, span)


class ModelEvaluator:
    """Evaluates author invariants over the rulebook's own data."""

    def __init__(self, ed: Edition):
        self.ed = ed
        # the views of the model's collections, made once: an assert such as
        # `all(advances, cost >= sum(advances, ...))` reads them once per item
        self._views: dict[str, list[dict]] = {}
        # each expression made into its evaluator once (expressions.evaluator), by the node (kept
        # with it, so its id names nothing else): a condition is evaluated once per item
        self._evaluators: dict[int, tuple] = {}

    def collection(self, name: str, context: dict | None) -> list[dict]:
        if name == "specific_credits" and context is not None and "specific_credits" in context:
            return context["specific_credits"]
        if name not in self._views:
            self._views[name] = self._collection(name)
        return self._views[name]

    def _collection(self, name: str) -> list[dict]:
        """A collection of vocabulary.MODEL_COLLECTIONS, as its `_collection_<name>` views it."""
        return getattr(self, f"_collection_{name}")()

    def _collection_advances(self) -> list[dict]:
        return [self.advance_view(a) for a in self.ed.advances.values()]

    def _collection_calamities(self) -> list[dict]:
        return [{"name": c.name, "stack": c.stack, "tradable": c.tradable, "major": c.major,
                 "modifier_count": len(c.modifiers)} for c in self.ed.calamities.values()]

    def _collection_commodities(self) -> list[dict]:
        return [{"name": c.name, "value": c.value, "count": c.count, "stack": c.stack}
                for c in self.ed.commodities.values()]

    def _collection_specific_credits(self) -> list[dict]:
        return [sc for a in self.ed.advances.values() for sc in self.advance_view(a)["specific_credits"]]

    def advance_view(self, adv: Advance, depth: int = 0) -> dict:
        view: dict[str, Any] = {"name": adv.name, "cost": adv.cost, "vp": adv.vp, "groups": list(adv.groups),
                                "supply": adv.supply, "credit_total": sum(adv.credits.values()),
                                "group_count": len(adv.groups), "first_group": adv.groups[0] if adv.groups else None,
                                "second_group": adv.groups[1] if len(adv.groups) > 1 else None}
        if depth == 0:
            view["specific_credits"] = [
                {"target": self.advance_view(self.ed.advances[sc.target], 1) if sc.target in self.ed.advances else None,
                 "amount": sc.amount, "source": view} for sc in adv.specific]
        return view

    def evaluate(self, expr, context: dict | None = None):
        def lookup(name: Name):
            head = name.parts[0]
            if context is not None and head in context and head != "specific_credits":
                value: Any = context[head]
            elif head in vocab.MODEL_COLLECTIONS:
                value = self.collection(head, context)
            elif head in self.ed.consts and self.ed.consts[head].value is not None:
                value = self.ed.consts[head].value
            elif head in self.ed.options:
                value = self.ed.options[head].on
            elif head in self.ed.groups:
                value = head
            else:
                raise EvalError(f"`{name.dotted}` has no value here", name.span)
            for part in name.parts[1:]:
                if not isinstance(value, dict) or part not in value:
                    raise EvalError(f"`{name.dotted}`: no attribute `{part}`", name.span)
                value = value[part]
            return value

        def call(c: Call, ev):
            if c.name in self.ed.tables:
                raise EvalError("tables read player state; they cannot appear in an assert", c.span)
            if c.name not in _AGGREGATES:
                raise EvalError(f"`{c.name}` cannot be used in an assert", c.span)
            wanted = len(vocab.FUNCTIONS[c.name].args)
            if len(c.args) != wanted or c.kwargs:
                raise EvalError(f"`{c.name}` takes {wanted} argument{'s' if wanted > 1 else ''}", c.span)
            items = self.items(c.args[0], context)
            return _AGGREGATES[c.name](items, [lambda item, kind, a=a: _of_kind(self.evaluate(a, item), kind, a.span)
                                               for a in c.args[1:]])

        kept = self._evaluators.get(id(expr))
        if kept is None or kept[0] is not expr:
            kept = self._evaluators[id(expr)] = (expr, evaluator(expr))
        return kept[1](lookup, call)

    def items(self, expr, context) -> list:
        from .syntax import Where
        if isinstance(expr, Where):
            return [i for i in self.items(expr.items, context)
                    if truth(self.evaluate(expr.condition, i), expr.condition.span)]
        value = self.evaluate(expr, context)
        if not isinstance(value, list):
            raise EvalError("expected a collection (advances, calamities, commodities, specific_credits)", expr.span)
        return value

    def explain(self, expr) -> str | None:
        """For a failed `all(...)`, name the items that break it; for a comparison, show both sides."""
        from .syntax import BinOp
        try:
            if isinstance(expr, Call) and expr.name == "all":
                return self._failing(expr)
            if isinstance(expr, BinOp) and expr.op in ("==", "!=", "<", "<=", ">", ">="):
                return f"left side is {self.evaluate(expr.left)}, right side is {self.evaluate(expr.right)}"
        except EvalError:
            return None
        return None

    def _failing(self, expr: Call) -> str:
        """The items (the first ten) for which `all(items, condition)` does not hold."""
        bad, undecided = [], []
        for i in self.items(expr.args[0], None):
            try:
                value = self.evaluate(expr.args[1], i)
            except EvalError:
                value = None
            if value is None:  # an unknown value (a cost written `unknown`) decides nothing
                undecided.append(i.get("name", "?"))
            elif value is not True:
                bad.append(i.get("name", "?"))
        text = "fails for: " + _first_ten(bad)
        return text + ("; cannot be decided for: " + _first_ten(undecided) if undecided else "")


def _first_ten(names: list) -> str:
    return ", ".join(map(str, names[:10])) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
