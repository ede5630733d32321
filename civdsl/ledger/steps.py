"""The turn as the rulebook declares it (the generated module's TURN): its steps, what each
does (phase actions), and the quantities those actions read."""

from __future__ import annotations

from .quantities import pieces, quantity  # noqa: F401 (the steps' quantities, read through this module)

# actions that run by themselves when the game reaches their step (no player enters anything);
# `alter_ast` runs when its step ends, after any move the players enter where the rules cannot tell
# the events each phase action lets players enter in its step
EVENTS_OF_ACTION = {
    "census": ("census",),
    "draw_trade_cards": ("draw",),
    "buy_trade_cards": ("buy-cards",),
    "trade": ("trade",),
    "resolve_calamities": ("choose",),
    "buy_advances": ("buy",),
    "hand_limit": ("discard",),
    "alter_ast": ("ast",),
}


def steps(module) -> tuple:
    return getattr(module, "TURN", ())


# the phase action that lets players enter each event
ACTION_OF_EVENT = {event: action for action, events in EVENTS_OF_ACTION.items() for event in events}
_ACTIONS: dict[int, tuple[dict, dict]] = {}  # id of a step -> (the step, its actions by kind)


def actions(step: dict) -> dict[str, dict]:
    """The step's actions by kind (the first of a kind; end_game rules are read with `all_of`).
    A step is the generated module's data, never changed: its answer is kept."""
    known = _ACTIONS.get(id(step))
    if known is not None and known[0] is step:
        return known[1]
    out: dict[str, dict] = {}
    for kind, args, line in step["actions"]:
        out.setdefault(kind, {**args, "line": line})
    _ACTIONS[id(step)] = (step, out)
    return out


def all_of(step: dict, kind: str) -> list[dict]:
    return [{**args, "line": line} for k, args, line in step["actions"] if k == kind]


def takes_events(step: dict) -> bool:
    return any(k in EVENTS_OF_ACTION for k, _, _ in step["actions"])
