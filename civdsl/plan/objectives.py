"""What a plan maximises: the objectives (`--objective vp|points|cards|EXPRESSION`), an
expression per advance parsed and evaluated against the rulebook's own facts."""

from __future__ import annotations

import re
from typing import Iterable

from ..records import Record
from ..state import StateError
from ..unknown import number


# --- objectives ---------------------------------------------------------------------------

class Objective(Record):
    """What a plan maximises: the sum over the advances bought of `values[name]`."""

    name: str  # "vp", "points", "cards" or the expression's text
    label: str  # how to say one unit of it ("VP", "points", "advances", or the expression)
    values: dict

    def of(self, names: Iterable[str]):
        return sum(self.values[n] for n in names)


# Names an objective expression may read, besides the rulebook's constants and group ids.
ATTRIBUTES = {
    "cost": "printed cost",
    "vp": "victory points",
    "group_count": "number of groups (1 or 2)",
    "credit_total": "group credit points it gives",
    "specific_total": "specific credit points it gives to named advances",
    "supply": "cards of it in the box (0 when the rulebook does not limit them)",
}


def objective(module, spec: str | None = None, state=None) -> Objective:
    """`vp`, `points` (printed cost), `cards` (one per advance) or an expression per advance.

    Without a spec: victory points where the edition gives every advance some, else points
    (the editions without victory points per advance score the printed costs).
    """
    spec = (spec or "").strip() or _default_objective(module)
    named = _NAMED_OBJECTIVES.get(spec.lower())
    if named is not None:
        return _vp_objective(module, state) if named is _vp_objective else named(module)
    return _expression_objective(module, spec)


def _default_objective(module) -> str:
    """`vp` where every advance that may be bought has victory points, else `points`."""
    known = [a for a in module.ADVANCES.values() if a["cost"] is not None]
    return "vp" if all(a["vp"] is not None for a in known) else "points"


def _vp_objective(module, state=None) -> Objective:
    """Each advance's victory points, under STATE's rule options where given (`vp tiers when`)."""
    advances = module.ADVANCES
    missing = [n for n, a in advances.items() if a["vp"] is None and a["cost"] is not None]
    if missing:
        raise StateError(f"--objective vp: {module.EDITION['name']} gives no victory points to advances "
                         f"(e.g. {missing[0]}); use --objective points (printed cost) or cards")
    return Objective("vp", "VP", {n: (a["vp"] if state is None else state.advance_vp(n)) or 0 for n, a in advances.items()})


def _points_objective(module) -> Objective:
    # advances of unknown cost are never bought: their objective is never read (0)
    return Objective("points", "points", {n: a["cost"] or 0 for n, a in module.ADVANCES.items()})


def _cards_objective(module) -> Objective:
    return Objective("cards", "advances", {n: 1 for n in module.ADVANCES})


def _expression_objective(module, spec: str) -> Objective:
    """An expression evaluated per advance (0 for those of unknown cost: never bought)."""
    expr = _parse_expression(spec)
    return Objective(spec, spec, {n: _evaluate_for(module, expr, n, spec) if a["cost"] is not None else 0
                                  for n, a in module.ADVANCES.items()})


# the objectives named by a word (any case)
_NAMED_OBJECTIVES = {"vp": _vp_objective, "points": _points_objective, "cards": _cards_objective}


# patterns as text, compiled (and kept by `re`) on first use: most plans use neither (start-up)
_ONE_LINE = r"[^\r\n]{0,500}"


def _parse_expression(text: str):
    """Parse one expression with the rulebook grammar (no code is generated from it)."""
    if not re.fullmatch(_ONE_LINE, text):
        raise StateError("--objective: an expression is one line of at most 500 characters")
    from ..diagnostics import Diagnostics
    from ..parser import parse
    from ..syntax import to_syntax

    diags = Diagnostics()
    source = f'language 1\nedition objective "objective"\nconst objective = {text}\n'
    tree = parse(source, "--objective", diags)
    items = to_syntax(tree, "--objective", diags).items if tree is not None else []
    if diags.has_errors or len(items) != 1 or items[0].kind != "const":
        why = diags.errors[0].message if diags.has_errors else "not a single expression"
        raise StateError(f"--objective {text!r}: {why} (write vp, points, cards or an expression over "
                         f"{', '.join(ATTRIBUTES)} and group names, e.g. \"vp * 100 + cost\")")
    return items[0].value[0]


def _evaluate_for(module, expr, name: str, text: str):
    from fractions import Fraction  # here, not at the top: only an objective or a division makes one (start-up)

    from ..expressions import EvalError, evaluate

    adv = module.ADVANCES[name]
    values = {
        "cost": adv["cost"], "vp": adv["vp"], "group_count": len(adv["groups"]),
        "credit_total": sum(adv["credits"].values()), "specific_total": sum(adv["specific"].values()),
        "supply": adv["supply"] or 0,
    }

    def lookup(node):
        head = node.parts[0]
        if len(node.parts) == 1:
            if head in values:
                if values[head] is None:
                    raise EvalError(f"`{head}` is unknown for {name}", node.span)
                return values[head]
            if head in module.GROUPS:
                return 1 if head in adv["groups"] else 0
            if head in module.CONSTS:
                return module.CONSTS[head]
        known = ", ".join(list(values) + list(module.GROUPS))
        raise EvalError(f"unknown name `{node.dotted}` (an objective reads {known} and the rulebook's constants)",
                        node.span)

    try:
        value = evaluate(expr, lookup)
    except EvalError as exc:
        raise StateError(f"--objective {text!r}: {exc}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise StateError(f"--objective {text!r}: gives {value!r} for {name}, not a number")
    return number(value)
