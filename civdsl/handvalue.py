"""The commodity engine: a player's trade block, whether a set is redeemed outside its native
block (`set_value off_block`), and the value of a hand of commodity cards with what the player's
advances let it do (card treasury, a substitute card).

It imports only `unknown` and the price engine's ability lookup (`pricing.abilities_of`), so the
runtime's player state can derive facts from it (`hand_value`). The page runs it translated
(companion/py2es.py), so it keeps to the engine subset (docs/engine-route.md).
"""

from __future__ import annotations

from .pricing import abilities_of
from .unknown import number


def player_block(module, state: PlayerState) -> str | None:
    """The player's trade block: the `block` fact, else its civilization's."""
    if state.given("block"):
        return state.given("block")
    civ = getattr(module, "CIVILIZATIONS", {}).get(state.given("civilization"))
    return civ["block"] if civ else None


def commodity_block(module, name: str, state: PlayerState | None) -> str | None:
    """A commodity's trade block: under the first declared reading (`block ID when OPTION`) whose
    option the question switches on, else the rulebook's default."""
    row = module.COMMODITIES[name]
    if state is not None:
        for option, block in row.get("block_when", ()):
            if state.option(option):
                return block
    return row["block"]


def off_block(module, name: str, state: PlayerState | None):
    """Whether a set of this commodity, redeemed by this player, is outside its native block:
    True, False, or None when the answer needs a fact the state lacks (then `state.missing` says
    which). Only a block some civilization belongs to is a trade block: a commodity of another
    block (shared) is native everywhere."""
    ob = getattr(module, "OFF_BLOCK", None)
    if ob is None or state is None:  # asked of every set of every hand: the blocks only where they count
        return False
    block = commodity_block(module, name, state)
    if not any(c["block"] == block for c in getattr(module, "CIVILIZATIONS", {}).values() if c["block"]):
        return False
    applies = _off_block_applies(ob, state)
    if not applies:
        return applies
    mine = player_block(module, state)
    if mine is None:
        state._missing("block")
        return None
    return mine != block


def _off_block_applies(ob: dict, state: PlayerState) -> bool | None:
    """Whether the off-block value's condition (`set_value off_block ... when`) holds for the
    player; None, the facts it lacks added to `state.missing`, when it cannot be told."""
    when = ob["when"]
    if when is None:
        return True
    probe = state.probe()
    applies = when(probe)
    if probe.missing:
        for m in probe.missing:
            state._missing(m)
        return None
    return bool(applies)


def hand_value(module, cards: dict, state: PlayerState | None = None) -> dict:
    """Each set's value. With a player's state, a set redeemed outside its native trade block is
    worth the rulebook's `set_value off_block` (the Expansion Project's 28.53-28.54)."""
    sets = [_set_row(module, name, n, state) for name, n in sorted(cards.items())]
    out = {"sets": sets, "total": sum(s["value"] for s in sets)}
    if state is not None:
        _held_card_abilities(module, sets, state, out)
        out["missing_facts"] = list(state.missing)
    return out


def _set_row(module, name: str, n: int, state: PlayerState | None) -> dict:
    """One set of N cards of a commodity: its value, the off-block value where the player redeems
    it outside its native block (`off_block` None: not known, the state lacks a fact)."""
    face = module.COMMODITIES[name]["value"]
    row = {"commodity": name, "cards": n, "face": face, "value": number(module.set_value(n, face)) if n else 0}
    outside = off_block(module, name, state) if n else False
    if outside:
        value = module.OFF_BLOCK["value"]
        row["value"] = number(value(n, face))
    if outside is not False:
        row["off_block"] = outside
    return row


def _held_card_abilities(module, sets: list, state: PlayerState, out: dict) -> None:
    """What the player's advances let a hand do: turn cards into treasury (`card_treasury`,
    Trade Routes) and complete one incomplete set with a card of at least the same face value
    (`substitute_card`, Mega Civilization's Trade Empire)."""
    # the two kinds touch different parts of the answer, so each is taken in the held order alone
    for name, args in abilities_of(module, state.held, "card_treasury"):
        for row in sets:
            row["treasury"] = args["rate"] * row["face"] * row["cards"]
            row["treasury_from"] = name
    for name, args in abilities_of(module, state.held, "substitute_card"):
        best = _best_substitution(module, sets)
        if best is not None:
            best["from"] = name
            out["substitution"] = best


def _best_substitution(module, sets: list) -> dict | None:
    """The one substitute card that adds most to the hand: a card of commodity Y (face at least
    X's) counted as one more card of an incomplete set of X."""
    found = [(gain, x["commodity"], y["commodity"], grown) for x, y, grown, gain in _substitutions(module, sets)
             if gain > 0]
    if not found:
        return None
    gain, x, y, grown = max(found)
    return {"set": x, "substitute": y, "gain": gain, "value": grown}


def _substitutions(module, sets: list):
    """Each (set, substitute, the set's value with one card more, what the hand gains) for a card
    of the substitute's commodity counted as one more card of an incomplete set."""
    for i, x in enumerate(sets):
        limit = module.COMMODITIES[x["commodity"]]["count"]
        if x["face"] <= 0 or (limit and x["cards"] >= limit):
            continue  # a complete set needs no substitute
        grown = number(module.set_value(x["cards"] + 1, x["face"]))
        for j, y in enumerate(sets):
            if j == i or y["face"] < x["face"] or y["cards"] < 1:
                continue
            yield x, y, grown, grown - x["value"] + _one_card_less(module, y) - y["value"]


def _one_card_less(module, row: dict):
    """The value of a set with one card fewer (the one that substitutes for another commodity)."""
    return number(module.set_value(row["cards"] - 1, row["face"])) if row["cards"] > 1 else 0
