"""The hand: parsing `--cards` and what a hand of commodity cards is worth (`civdsl hand`)."""

from __future__ import annotations

import re

from .. import handvalue
from ..state import split_names
from ..statecheck import canonical_names


_CARD = r"^\s*(?:(\d+)\s*[x×*]?\s+)?(.*?)(?:\s*[x×*]\s*(\d+))?\s*$"


def parse_cards(module, text: str | None, calamities: dict[str, int] | None = None) -> dict[str, int]:
    """`"Grain x3, Salt x2, Oil"` (also `3 Grain`, `Grain*3`) -> {"Grain": 3, "Salt": 2, "Oil": 1}.
    Given CALAMITIES (a dict to fill), calamity cards go there where the edition gives them a
    trade value (`const calamity_card_value`); elsewhere a calamity is no card of a hand."""
    cards: dict[str, int] = {}
    for part in split_names(text):
        m = re.match(_CARD, part, re.I)
        count = int(m.group(1) or m.group(3) or 1) if m else 1
        name = (m.group(2) if m else part).strip()
        calamity = _calamity_card(module, name) if calamities is not None else None
        if calamity is not None:
            calamities[calamity] = calamities.get(calamity, 0) + count
            continue
        # any declared name, `aka` included, in any case
        name = canonical_names(module, "commodity", [name], "--cards")[0]
        cards[name] = cards.get(name, 0) + count
    return cards


def _calamity_card(module, name: str) -> str | None:
    """The calamity NAME names, where the edition values calamity cards in a hand and NAME is no
    commodity's; else None."""
    if "calamity_card_value" not in module.CONSTS:
        return None
    if canonical_names(module, "commodity", [name], "--cards", strict=False)[0] in module.COMMODITIES:
        return None
    own = canonical_names(module, "calamity", [name], "--cards", strict=False)[0]
    return own if own in module.CALAMITIES else None


def hand_report(module, cards: dict[str, int], state=None, calamities: dict[str, int] | None = None) -> dict:
    """Each set's value (set_value of its cards; outside its trade block, given a state, the
    off-block value), zero-value cards, and the total; calamity cards held (CALAMITIES) at the
    edition's `calamity_card_value` each."""
    value = handvalue.hand_value(module, {n: k for n, k in cards.items() if k}, state)
    for s in value["sets"]:
        s["zero_value"] = s["face"] == 0
    value["cards"] = sum(cards.values())
    value["zero_value_cards"] = sum(s["cards"] for s in value["sets"] if s["zero_value"])
    if calamities:
        each = module.CONSTS["calamity_card_value"]
        value["calamities"] = [{"calamity": n, "cards": k, "value": each * k} for n, k in calamities.items()]
        worth = sum(c["value"] for c in value["calamities"])
        value["total"] = None if value["total"] is None else value["total"] + worth
    return value
