"""The range every number written in a rulebook may take, declared once per meaning.

The parser's digit limit (9 digits) keeps a number small enough to read, but some fields turn
a number into work: a die's sides into the faces its table must cover, a commodity's count into
the rows of its set-value chart, a track's bounds into printed positions. Each field therefore
has a bound that fits what it means in the game, checked where the number is written (the
syntax pass reports it at the number, with the code below, and keeps the nearest allowed value
so that no later pass sees a number outside the table). The runtime holds values that are only
known while playing (how many dice a pool rolls) to the same table.

The ranges are generous: ten to a hundred times the largest value in any shipped rulebook or
seed text, so a house rule never meets them by accident. docs/security.md lists them.

This table holds the meanings more than one statement shares; a range only one item field has is
declared in that field's row (fields.ITEM_FIELDS), and fields.ranges() lists both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bound:
    low: int
    high: int
    what: str  # the number's meaning, in the game's terms, for the message
    code: str = "CIV112"

    def __contains__(self, value: int) -> bool:
        return self.low <= value <= self.high

    def clamp(self, value: int) -> int:
        return min(max(value, self.low), self.high)

    def message(self, value: int) -> str:
        return f"{self.what} is {value:,}; it must be {self.low:,} to {self.high:,}"


# Largest values in the shipped rulebooks, for scale: cost 290, credit 20, supply 7, commodity
# value 9 and count 12, printed set value 1,296 (9 x 12 x 12), deck size 60, track 0..20,
# event die 6, card ranks 2..10, hand limit 10, A.S.T. 16 spaces and 18 civilizations.
FIELDS: dict[str, Bound] = {
    "cost": Bound(0, 10_000, "a cost"),
    "credit": Bound(0, 10_000, "a credit"),
    "vp": Bound(0, 1_000, "a victory-point value"),
    # Trade stacks are the nine piles of the trade-card deck (CIV023 predates this table).
    "stack": Bound(1, 9, "the trade stack", code="CIV023"),
    "priority": Bound(0, 1_000, "a modifier priority"),
    "commodity count": Bound(0, 1_000, "the number of cards of a commodity"),
    "deck size": Bound(0, 10_000, "the number of cards in a trade stack"),
    "table band": Bound(-100_000_000, 100_000_000, "a table band"),
    "stat bound": Bound(-100_000_000, 100_000_000, "a stat bound"),
    "track position": Bound(-10_000, 10_000, "a track position"),
    "die sides": Bound(1, 1_000, "the number of sides of a die"),
    "die face": Bound(1, 1_000, "a die face"),
    "dice": Bound(0, 1_000, "the number of dice rolled at once"),
    "card value": Bound(0, 1_000_000, "a card's value"),
    "card rank": Bound(0, 1_000, "a card rank"),
    "hand limit": Bound(1, 1_000, "a hand limit"),
    "ast spaces": Bound(1, 1_000, "the number of spaces of an A.S.T. track"),
    "ast space": Bound(0, 1_000, "an A.S.T. space"),
    "ast rank": Bound(1, 1_000, "a place in the A.S.T. ranking"),
    # a game file seats at most 64 players (ledger/gamefile.MAX_PLAYERS)
    "players": Bound(1, 64, "a number of players"),
}
