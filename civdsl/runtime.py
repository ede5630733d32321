"""The ABI of generated code: what compiled rulebook modules call, and nothing else.

Generated modules hold an edition's data as literals and its rules as plain functions; this
module supplies the arithmetic over unknown values their expressions use, the player state they
read (playerstate.py), the `Resolution` they build, the effect-list passes a calamity's rules run (effectlist.py), the epoch
requirements they state, and the readers of their data tables and line maps. The engines that
interpret the policies a rulebook declares live in their own modules below it (`pricing`,
`handvalue`, `standing`): the player state derives a few facts from them. It imports nothing
from the compiler, so answering a question never loads the parser.
"""

from __future__ import annotations

import functools
import math
from operator import itemgetter

from .calamity_answer import option_dicts, resolution_dict, trace_dicts
from .effectlist import bound_effects, discard_by_value, floor_effects, least_over  # noqa: F401 (ABI)
from .effectlist import reduce_until_supported, unselect  # noqa: F401 (ABI: generated calamities call them)
from .losses import assigned, change, floor_step, unless_immune  # noqa: F401 (ABI: generated calamities call them)
from .playerstate import PlayerState
from .standing import requirement, requirement_any, requirement_bool  # noqa: F401 (ABI: generated epochs call them)
from .unknown import Unknown, unknown_of

# The ABI of generated code: exactly the names that compiled rulebook modules call (as
# `_rt.NAME` or imported by name), checked against every code generator path by
# tests/test_runtime_abi.py. Everything else here serves these names; the engines live in their
# own modules (pricing, handvalue, standing), and callers import them from there.
__all__ = [
    "PlayerState", "Resolution", "Unknown",
    "this_module", "records", "line_map", "unknown_of",
    "not_", "and_", "or_", "div", "floordiv", "floor", "ceil", "sqrt", "abs", "min_", "max_", "lookup",
    "requirement", "requirement_any", "requirement_bool",
    "change", "assigned", "cancelled", "bound_effects", "discard_by_value", "least_over",
    "reduce_until_supported", "unless_immune", "unselect", "floor_effects", "floor_step",
    "trade_decks",
]


def this_module(name: str):
    """The generated module itself, which its rule functions hand to `Resolution`."""
    import sys
    return sys.modules[name]


# --- arithmetic helpers used by compiled expressions -----------------------------------------

def div(a, b):
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    from fractions import Fraction  # here, not at the top: most answers never divide (start-up)

    return Fraction(a) / Fraction(b)


def floordiv(a, b):
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    from fractions import Fraction

    return math.floor(Fraction(a) / Fraction(b))


def floor(x):
    return math.floor(x)


def ceil(x):
    return math.ceil(x)


def sqrt(x):
    return x if x.__class__ is Unknown else math.sqrt(x)


def min_(a, b):
    """The rulebook's `min` (two values; unknown if either is)."""
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return b if b < a else a


def max_(a, b):
    """The rulebook's `max`."""
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return b if b > a else a


abs = abs  # noqa: A001 - re-exported under the rulebook's name; Unknown answers abs() itself


# Kleene's three-valued logic for `and`, `or` and `not`: a known answer wherever the known part
# decides it ("false and unknown" is false), unknown otherwise. The right side is a thunk so that
# it is evaluated only when Python's own short-circuit would evaluate it, or when the left side
# is unknown (then its facts are needed too).

def not_(x):
    return x if x.__class__ is Unknown else not x


def _kleene(decisive: bool, a, *rights):
    """`a and r1 and r2 ...` (DECISIVE False) or `a or r1 or r2 ...` (True): the first known value
    whose truth is DECISIVE ends the chain; else the unknown ones joined, else the last value (a
    chain is one call: deep nesting would strain Python's parser)."""
    unknown = None
    for right in (None, *rights):
        v = a if right is None else right()
        if v.__class__ is Unknown:
            unknown = v if unknown is None else unknown_of(unknown, v)
        elif bool(v) is decisive:
            return v
    return unknown if unknown is not None else v


and_ = functools.partial(_kleene, False)
or_ = functools.partial(_kleene, True)


def lookup(bands, x):
    if x.__class__ is Unknown:
        return x
    for low, high, value in bands:
        if x >= low and (high is None or x <= high):
            return value
    raise ValueError(f"no band of the table covers {x}")


# --- calamity resolution ------------------------------------------------------------------

class EffectResult:
    """One effect a victim suffers, with its final parameters."""

    __slots__ = ("kind", "args", "line")

    def __init__(self, kind: str, args: dict, line: int):
        self.kind = kind
        self.args = args
        self.line = line

    @property
    def amount(self):
        return self.args.get("amount", True)


class Resolution(tuple):
    """What one victim suffers from one calamity, with a trace of every rule that changed it.

    Compiled calamity functions compute everything in straight-line code and build one of
    these at the end, as a single tuple (module, calamity, role, state, effects, assignment,
    trace, options, immune, cancel_reason, excluded): creating it costs next to nothing, and
    the readable views below are computed only when asked for. Effects are (kind, args, line),
    trace entries (op, kind, param, value, before, after, by, line), options (instead_of, kind,
    args, each, by, line), the assignment (count, share, [(kind, args)], line).
    """

    __slots__ = ()

    module = property(itemgetter(0))
    calamity = property(itemgetter(1))
    role = property(itemgetter(2))
    state = property(itemgetter(3))
    _effects = property(itemgetter(4))
    assignment = property(itemgetter(5))
    _trace = property(itemgetter(6))
    _options = property(itemgetter(7))
    immune = property(itemgetter(8))
    cancel_reason = property(itemgetter(9))  # (line, why, path)
    excluded = property(itemgetter(10))  # (line, why, path)

    @classmethod
    def make(cls, module, calamity: str, role: str, state: "PlayerState", effects: list, assignment=None, trace=(),
             options=(), immune: bool = False, cancel_reason=None, excluded=None) -> "Resolution":
        return cls((module, calamity, role, state, effects, assignment, trace, options, immune, cancel_reason, excluded))

    @property
    def is_cancelled(self) -> bool:
        return self.cancel_reason is not None

    @property
    def effects(self) -> list[EffectResult]:
        return [EffectResult(kind, args, line) for kind, args, line in self._effects]

    @property
    def trace(self) -> list[dict]:
        return trace_dicts(self._trace)

    @property
    def options(self) -> list[dict]:
        return option_dicts(self._options)

    def amount(self, kind: str):
        """The amount the rule demands (see `taken` for what the player actually loses)."""
        for k, args, _line in self._effects:
            if k == kind:
                return args.get("amount", True)
        return None

    def taken(self, kind: str):
        """The amount actually taken: the demanded one, bounded by the player's holding where
        the edition bounds amounts and the state gives the holding."""
        for k, args, _line in self._effects:
            if k == kind:
                return args.get("taken", args.get("amount", True))
        return None

    @property
    def complete(self) -> bool:
        """False when the answer depends on a fact the user did not give (see `missing_facts`)."""
        return self.state.complete

    def to_dict(self) -> dict:
        return resolution_dict(self.calamity, self.role, self.state, self._effects, self.assignment, self._trace,
                               self._options, self.immune, self.cancel_reason, self.excluded)


def cancelled(module, calamity: str, role: str, state: PlayerState, line: int, why: str, path: str) -> Resolution:
    return Resolution.make(module, calamity, role, state, [("cancelled", {}, line)], cancel_reason=(line, why, path))


def records(lines: tuple[str, ...]) -> dict:
    """A generated module's data table: each line the JSON text of [name, data]; every JSON
    array is read as a tuple (the tables hold tuples, never lists)."""
    import json

    out = {}
    for line in lines:
        key, data = json.loads(line, object_pairs_hook=_json_object, parse_constant=_no_constant)
        out[key] = _tuples(data)
    return out


def trade_decks(lines: tuple[str, ...]) -> tuple[dict, ...]:
    """A generated module's TRADE_DECKS: each line the JSON text of a deck whose `stacks` are
    [number, layers] pairs (a stack's number is an int, which a JSON key cannot be), every JSON
    array read as a tuple."""
    import json

    decks = []
    for line in lines:
        deck = json.loads(line, object_pairs_hook=_json_object, parse_constant=_no_constant)
        deck["stacks"] = dict(deck["stacks"])
        decks.append(deck)
    return tuple(decks)


def _json_object(pairs: list) -> dict:
    return {k: _tuples(v) for k, v in pairs}


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _no_constant(name: str):
    raise ValueError(f"{name} is not a value of a rulebook table")


def line_map(pairs: str) -> tuple[tuple[int, int], ...]:
    """A generated module's LINES: `"12:40 15:41"` -> ((12, 40), (15, 41)), generated line first."""
    out = []
    for pair in pairs.split():
        generated, rule = pair.split(":")
        out.append((int(generated), int(rule)))
    return tuple(out)
