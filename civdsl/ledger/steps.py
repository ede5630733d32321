"""The turn as the rulebook declares it (the generated module's TURN): its steps, what each
does (phase actions), and the quantities those actions read. An engine module (py2es)."""

from __future__ import annotations

from .quantities import pieces, quantity  # noqa: F401 (the steps' quantities, read through this module)

# the events each phase action lets players enter in its step; the other actions run by
# themselves when the game reaches their step or when it ends
EVENTS_OF_ACTION = (
    ("collect_tax", ("tax",)),
    ("census", ("census",)),
    ("draw_trade_cards", ("draw",)),
    ("buy_trade_cards", ("buy-cards",)),
    ("trade", ("trade",)),
    ("resolve_calamities", ("choose",)),
    ("buy_advances", ("buy",)),
    ("hand_limit", ("discard",)),
    ("alter_ast", ("ast",)),
)


# the phase actions every player who can must take before their step ends, with the event that
# takes it: a player with cities draws his trade cards (each edition's text: one card per city,
# for every player), so `next` waits for every such draw
OWED_BY_EACH_PLAYER = (("draw_trade_cards", "draw"),)


def owed_event(action: str) -> str | None:
    """The event every player with cities owes in the action's step (None: nobody owes one)."""
    for kind, event in OWED_BY_EACH_PLAYER:
        if kind == action:
            return event
    return None


def events_of(action: str) -> tuple:
    """The events the phase action lets players enter (none: it runs by itself)."""
    for kind, events in EVENTS_OF_ACTION:
        if kind == action:
            return events
    return ()


def action_of(event: str) -> str | None:
    """The phase action that lets players enter the event."""
    for kind, events in EVENTS_OF_ACTION:
        if event in events:
            return kind
    return None


def steps(module) -> tuple:
    return getattr(module, "TURN", ())


def actions(step: dict) -> dict:
    """The step's actions by kind (the first of a kind; end_game rules are read with `all_of`)."""
    out = {}
    for kind, args, line in step["actions"]:
        if kind not in out:
            given = dict(args)
            given["line"] = line
            out[kind] = given
    return out


def all_of(step: dict, kind: str) -> list:
    out = []
    for k, args, line in step["actions"]:
        if k == kind:
            given = dict(args)
            given["line"] = line
            out.append(given)
    return out


# the phase actions that run by themselves when the game reaches their step; where one leaves a
# player a choice (the tax rate an advance lets him vary), the step waits for his event and the
# action runs when the step ends
AUTOMATIC_ACTIONS = ("collect_tax",)


def takes_events(step: dict) -> bool:
    """The step waits for events whatever the state (an automatic action waits only for a choice)."""
    return any(events_of(k) for k, _, _ in step["actions"] if k not in AUTOMATIC_ACTIONS)
