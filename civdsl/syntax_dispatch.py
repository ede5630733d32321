"""The syntax pass's fast dispatch over Lark: rule callbacks looked up once per transformer class,
and node positions derived from tokens (Lark's private `v_args` wrapper, pinned by
tests/test_lark_contract.py)."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from lark import Token


class _Nowhere:
    """The position of a node with no token (Lark's empty meta: span_of gives it line 1, column 1)."""


_NOWHERE = _Nowhere()


def _place(meta, first: Token | None, last: Token | None) -> None:
    """Give a Lark meta the position derived from the node's tokens (for a rule Lark dispatches)."""
    if first is not None:
        meta.line, meta.column, meta.start_pos = first.line, first.column, first.start_pos
        meta.end_line, meta.end_column, meta.end_pos = last.end_line, last.end_column, last.end_pos
        meta.empty = False


def _rule_functions(cls: type) -> dict[str, tuple[Callable, bool]]:
    """Rule name -> (function, takes meta) for every rule callback of `cls`. Empty (Lark's own,
    slower dispatch is used) if this Lark version keeps `v_args` differently."""
    try:
        from lark.visitors import _vargs_meta, _VArgsWrapper
    except ImportError:
        return {}
    table: dict[str, tuple[Callable, bool]] = {}
    for name in dir(cls):
        if name.startswith("_") or name == "transform":
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, _VArgsWrapper):
            if attr.visit_wrapper is not _vargs_meta or not inspect.isfunction(attr.base_func):
                return {}
            table[name] = (attr.base_func, True)
        elif inspect.isfunction(attr):
            table[name] = (attr, False)
    return table
