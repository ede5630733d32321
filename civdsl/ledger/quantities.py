"""The quantities a phase action reads (a number, a constant, or a table read at the number of
players) and the pieces each player has: plain data in and out, in the engine subset, so the
page's ledger reads them as the command line does."""

from __future__ import annotations


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
    for low, high, v in table:
        if players >= low and (high is None or players <= high):
            return v
    return None


# the pieces a census counts (its other parameter, `treasury`, says what the step lets it change)
PIECES = ("cities", "tokens", "ships")


def pieces(module, players: int) -> dict:
    """The pieces each player has, as the turn's first census with quantities declares them."""
    for step in getattr(module, "TURN", ()):
        for kind, args, _ in step["actions"]:
            if kind == "census" and any(args.get(k) is not None for k in PIECES):
                return {k: quantity(module, args.get(k), players) for k in PIECES}
    return {"cities": None, "tokens": None, "ships": None}
