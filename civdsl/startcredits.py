"""The credits a player starts with: the rulebook's `start credits` (an amount per group, read
from the player's state, perhaps waived by an `unless` rule), which join the freely allocated
`credits` of the state so that prices, plans and the credit tie-breakers all count them.

Apart from the price engine (`pricing.py`) because it evaluates the compiled rules on a player
state (a probe state, a rule that may fail): the price engine reads only the compiled module's data.
The page runs it translated (companion/py2es.py), so it keeps to the engine subset.
"""

from __future__ import annotations

from .unknown import number


def start_credits(module, state: PlayerState) -> dict | None:
    """The credit points of each group the player started with, from the rulebook's `start credits`
    (e.g. Mega Civilization's table by number of players, none in The Short Game). Facts it needs
    and lacks are listed under `missing` (not in the state's own list: a calamity never needs them)."""
    sc = getattr(module, "START_CREDITS", None)
    if sc is None:
        return None
    probe = type(state)(module, state.held, state.facts, state.options)  # the rule switches set for the question
    amount, waived, problem = _start_credit_amount(sc, probe)
    used = list(state.given("start_credits_used") or [])
    groups = {} if amount is None else {g: (0 if sc["once"] and g in used else amount) for g in module.GROUPS}
    return {"per_group": amount, "groups": groups, "waived": waived, "once": sc["once"], "used": used,
            "missing": list(probe.missing), "problem": None if probe.missing else problem, "doc": sc["doc"],
            "line": sc["line"]}


def _start_credit_amount(sc: dict, probe: PlayerState) -> tuple:
    """(credits per group or None when not known, whether the rule's `unless` waives them, the
    problem that left the amount unknown)."""
    waived = False
    unless, amount_of = sc["unless"], sc["amount"]
    try:
        waived = unless is not None and bool(unless(probe))
        amount = 0 if waived else number(amount_of(probe))
    except ValueError as exc:  # a table without a band for this count (or for a missing fact read as 0)
        return None, waived, str(exc)
    return (None if probe.missing else amount), waived, None


def apply_start_credits(module, state: PlayerState, info: dict | None = None) -> None:
    """Start credit tokens are credit tokens the player holds: they join the freely allocated
    `credits`, so prices, plans and the credit tie-breakers all count them. INFO: what
    `start_credits` answers for this state, where the caller already has it."""
    info = start_credits(module, state) if info is None else info
    state.start_credits = info
    if info and info["groups"]:
        credits = dict(state.given("credits") or {})
        for g, amount in info["groups"].items():
            if amount:
                credits[g] = credits.get(g, 0) + amount
        state.facts["credits"] = credits
