"""What a player state already built answers (`cost`, `hand`, `score`): the advances priced with
their legality, a hand's value, the score. api.Rulebook asks them for a state it has checked, and
the ledger for the states it builds. An engine module (py2es): the page's ledger asks the same."""

from __future__ import annotations

from .errors import StateError
from .factchecks import hand_limits
from .handvalue import hand_value
from .pricing import cost_notes, prices, purchase_problems
from .standing import score
from .statecheck import canonical_names


def cost_for(module, st, buy: list) -> dict:
    """The price of the advances BUY (any declared name) for the state, with the purchase's
    problems (`illegal`: reported, never priced silently) and the start credits' notes."""
    buy = canonical_names(module, "advance", list(buy), "--buy")
    already = [b for b in buy if b in st.held_set]
    if already:
        raise StateError("--buy: already held: " + ", ".join(already))
    result = prices(module, st.held, list(buy), st.facts.get("credits"))
    # the same legality `plan` applies to its candidates
    result["illegal"] = purchase_problems(module, st.held, list(buy))
    result["start_credits"] = st.start_credits
    result["notes"] = cost_notes(module, st.start_credits)
    return result


def checked_hand(module, cards: dict) -> dict:
    """A hand by each commodity's own name, within the cards the box holds."""
    names = canonical_names(module, "commodity", list(cards), "--cards")
    merged = {}
    for own, n in zip(names, cards.values()):
        merged[own] = merged.get(own, 0) + n
    impossible = hand_limits(merged, module.COMMODITIES, "--cards")
    if impossible:
        raise StateError("\n".join(impossible))
    return merged


def hand_for(module, cards: dict, player) -> dict:
    """Each set's value of the hand; with a player's state, what his block and advances make of it."""
    return hand_value(module, checked_hand(module, cards), player)


def score_of(module, st) -> dict:
    return score(module, st)
