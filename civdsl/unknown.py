"""A value a rule cannot know, and how a value is shown.

A missing fact is never read as 0: it reads as an `Unknown` naming the fact, and everything
computed from it is Unknown too. The runtime's arithmetic, the player state and every engine
(`pricing`, `handvalue`, `standing`) share this one type; it imports nothing.
"""

from __future__ import annotations

import sys


class Unknown:
    """A value the answer cannot know because it depends on facts the user did not give.

    A missing fact is never read as 0 (that could cancel a calamity or make a negative count):
    it reads as an Unknown naming the fact, and everything computed from it is Unknown too,
    naming every fact it depends on. An Unknown has no truth value: each place where a rule
    decides (a cancel condition, a modifier, a branch) asks `PlayerState.decide`, which records
    the decision as undecided instead of guessing either way.
    """

    __slots__ = ("facts",)

    def __init__(self, facts: tuple[str, ...]):
        self.facts = facts

    def __repr__(self) -> str:
        return f"unknown({', '.join(self.facts)})"

    def __bool__(self):
        raise TypeError(f"a rule decided on an unknown value (it needs {', '.join(self.facts)})")

    def _join(self, *others) -> "Unknown":
        return unknown_of(self, *others)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _join
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _join
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _join  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __neg__(self):
        return self

    __pos__ = __abs__ = __floor__ = __ceil__ = __neg__


def unknown_of(*values) -> Unknown:
    """The Unknown that depends on every fact any of `values` depends on (in first-seen order)."""
    facts: list[str] = []
    for v in values:
        if v.__class__ is Unknown:
            facts.extend(f for f in v.facts if f not in facts)
    return Unknown(tuple(facts))


def number(v):
    """Integral Fractions print as integers; an unknown value prints as None (null in JSON)."""
    if v.__class__ is int:  # most values: isinstance against Fraction goes through the ABC machinery
        return v
    # a Fraction exists only once `fractions` is imported (by div), so an answer that never
    # divided need not import it to ask
    fractions = sys.modules.get("fractions")
    if fractions is not None and isinstance(v, fractions.Fraction) and v.denominator == 1:
        return int(v)
    if v.__class__ is Unknown:
        return None
    return v


def sum_if_known(values):
    """The sum of VALUES, or None when any of them is not known (None)."""
    values = list(values)
    return None if any(v is None for v in values) else sum(values)
