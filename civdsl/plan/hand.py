"""The hand: parsing `--cards` and what a hand of commodity cards is worth (`civdsl hand`)."""

from __future__ import annotations

from ..handvalue import hand_value
from ..state import split_names
from ..statecheck import canonical_names

# the signs between a count and a card's name: "3x Grain", "Grain × 3", "Grain*3"
_TIMES = "xX×*"
_DIGITS = "0123456789"


def parse_cards(module, text: str | None, calamities: dict[str, int] | None = None) -> dict[str, int]:
    """`"Grain x3, Salt x2, Oil"` (also `3 Grain`, `Grain*3`) -> {"Grain": 3, "Salt": 2, "Oil": 1}.
    Given CALAMITIES (a dict to fill), calamity cards go there where the edition gives them a
    trade value (`const calamity_card_value`); elsewhere a calamity is no card of a hand."""
    cards: dict[str, int] = {}
    for part in split_names(text):
        count, name = card_count(part)
        calamity = _calamity_card(module, name) if calamities is not None else None
        if calamity is not None:
            calamities[calamity] = calamities.get(calamity, 0) + count
            continue
        # any declared name, `aka` included, in any case
        name = canonical_names(module, "commodity", [name], "--cards")[0]
        cards[name] = cards.get(name, 0) + count
    return cards


def card_count(part: str) -> tuple:
    """One entry of `--cards`: (count, name). A count (digits 0-9) before the name and a space
    ("3 Grain", "3x Grain", "3 x Grain"), else after it ("Grain x3", "Grain * 3"), else 1; a name
    of two lines is read whole, with a count of 1."""
    chars = list(part)
    start = _spaces_from(chars, 0)
    digits_end = _digits_from(chars, start)
    lead = ""
    if digits_end > start:
        after = _spaces_from(chars, digits_end)
        if after < len(chars) and chars[after] in _TIMES and _spaces_from(chars, after + 1) > after + 1:
            lead, start = "".join(chars[start:digits_end]), _spaces_from(chars, after + 1)
        elif after > digits_end:
            lead, start = "".join(chars[start:digits_end]), after
    end = start
    trailing = _trailing_count(chars, end)
    while trailing is None and _spaces_from(chars, end) < len(chars):
        if chars[end] == "\n":
            return 1, part.strip()
        end = end + 1
        trailing = _trailing_count(chars, end)
    count = int(lead) if lead else int(trailing) if trailing else 1
    return count, "".join(chars[start:end]).strip()


def _spaces_from(chars: list, at: int) -> int:
    """The end of the run of white space from AT."""
    while at < len(chars) and chars[at].isspace():
        at = at + 1
    return at


def _digits_from(chars: list, at: int) -> int:
    """The end of the run of digits 0-9 from AT."""
    while at < len(chars) and chars[at] in _DIGITS:
        at = at + 1
    return at


def _trailing_count(chars: list, at: int) -> str | None:
    """The digits of a count that CHARS end with from AT on ("x3", " * 12 "), or None."""
    sign = _spaces_from(chars, at)
    if sign >= len(chars) or chars[sign] not in _TIMES:
        return None
    start = _spaces_from(chars, sign + 1)
    end = _digits_from(chars, start)
    if end == start or _spaces_from(chars, end) < len(chars):
        return None
    return "".join(chars[start:end])


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
    value = hand_value(module, {n: k for n, k in cards.items() if k}, state)
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
