"""The turn as the rulebook declares it (the generated module's TURN): its steps, what each
does (phase actions), and the quantities those actions read."""

from __future__ import annotations

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


def quantity(module, value, players: int) -> int | None:
    """A phase action's quantity: a number, a constant, or a table read at the number of players
    (None: not declared, or the table has no band for this many players)."""
    if value is None or isinstance(value, int):
        return value
    if value in module.CONSTS:
        return module.CONSTS[value]
    table = module.TABLES.get(value)
    if table is None:
        return None
    return next((v for low, high, v in table if players >= low and (high is None or players <= high)), None)


def pieces(module, players: int) -> dict:
    """The pieces each player has, as the turn's first census with quantities declares them."""
    for step in steps(module):
        for kind, args, _ in step["actions"]:
            if kind == "census" and any(v is not None for v in args.values()):
                return {k: quantity(module, v, players) for k, v in args.items()}
    return {"cities": None, "tokens": None, "ships": None}
