"""The syntax pass's item-field callbacks: one per row of `fields.ITEM_FIELDS` that gives a value
shape, registered on the transformer class under the row's grammar alias."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Token, v_args

from . import fields as item_fields
from .bounds import FIELDS, Bound
from .diagnostics import span_of
from .parser import TOKEN_TYPES
from .syntax_nodes import Field


def _bound(field: str | Bound) -> Bound:
    """A range: a meaning of bounds.FIELDS, or a field row's own."""
    return FIELDS[field] if isinstance(field, str) else field


# The tokens a field's value is made of (its keyword aside): how each value shape of
# fields.VALUES reads them; `bound` is the row's range for its numbers.
_VALUE_TOKENS = frozenset({"INT", "UNKNOWN", "STRING", "NAME"})
_SHAPES: dict[str, Callable[[Any, list, Bound | None], Any]] = {  # Any: the syntax transformer
    "number": lambda t, ts, bound: t._int(ts[0], bound),
    "number or unknown": lambda t, ts, bound: None if ts[0].type == "UNKNOWN" else t._int(ts[0], bound),
    "numbers": lambda t, ts, bound: [t._int(x, bound) for x in ts],
    "string": lambda t, ts, bound: t._string(ts[0]),
    "strings": lambda t, ts, bound: [t._string(x) for x in ts],
    "strings with places": lambda t, ts, bound: [(t._string(x), span_of(t.file, x)) for x in ts],
    "name": lambda t, ts, bound: ts[0].value,
    "table name": lambda t, ts, bound: ts[0].value,  # the keyword `table` is not a value token
    "name with place": lambda t, ts, bound: (ts[0].value, span_of(t.file, ts[0])),
    "names with places": lambda t, ts, bound: [(x.value, span_of(t.file, x)) for x in ts],
}


def _shaped_callback(spec: item_fields.FieldSpec):
    read = _SHAPES[spec.value]

    def callback(self, meta, c):
        values = [x for x in c if isinstance(x, TOKEN_TYPES) and x.type in _VALUE_TOKENS]
        return Field(spec.key, read(self, values, spec.bound), self._span(meta))

    callback.__doc__ = f"`{spec.word} ...`: {spec.doc} (fields.ITEM_FIELDS)"
    return v_args(meta=True)(callback)


def _register_field_callbacks(cls: type) -> None:
    """One callback per item field of a declared value shape, under its grammar alias; a rule
    that several kinds share (`summary`) must read the same way in each."""
    shapes: dict[str, tuple[str, str]] = {}
    for kind, specs in item_fields.ITEM_FIELDS.items():
        for spec in specs:
            if not spec.value:
                continue
            rule = spec.rule_of(kind)
            if rule in shapes:
                if shapes[rule] != (spec.key, spec.value):
                    raise TypeError(f"grammar rule `{rule}` is declared with two value shapes")
                continue
            if rule in cls.__dict__:
                raise TypeError(f"grammar rule `{rule}` has a callback in syntax.py and a value shape in fields.py")
            shapes[rule] = (spec.key, spec.value)
            setattr(cls, rule, _shaped_callback(spec))
