"""One player's part of the ledger: what he has on the board and in hand, and the facts the
rules read from it (runtime.PlayerState facts, vocabulary.FACTS)."""

from __future__ import annotations


class Player:
    """`cards`: the commodity cards in hand, by name; `calamities`: the calamity cards in hand,
    each (name, the player who traded it to him, or None when he drew it); `left`: the player has
    left the game; `tally`: the commodity cards of each name in the hands of every player sharing
    it (share_tally: the players of one game), kept by give_cards and take_cards, so the supply
    check reads it instead of walking every hand."""

    def __init__(self, name: str, civilization: str | None = None, cities: int = 0, tokens: int = 0, ships: int = 0,
                 treasury: int = 0, ast_position: int = 0, advances: list | None = None, cards: dict | None = None,
                 calamities: list | None = None, left: bool = False):
        self.name = name
        self.civilization = civilization
        self.cities = cities
        self.tokens = tokens
        self.ships = ships
        self.treasury = treasury
        self.ast_position = ast_position
        self.advances = advances if advances is not None else []
        self.cards = cards if cards is not None else {}
        self.calamities = calamities if calamities is not None else []
        self.left = left
        self.tally = dict(self.cards)

    def copy(self) -> "Player":
        return Player(self.name, self.civilization, self.cities, self.tokens, self.ships, self.treasury,
                      self.ast_position, list(self.advances), dict(self.cards), list(self.calamities), self.left)

    def piece_count(self, kind: str) -> int:
        """His cities, tokens or ships on the board (a census's keys)."""
        if kind == "cities":
            return self.cities
        if kind == "tokens":
            return self.tokens
        return self.ships

    def set_piece_count(self, kind: str, count: int) -> None:
        if kind == "cities":
            self.cities = count
        elif kind == "tokens":
            self.tokens = count
        else:
            self.ships = count

    def card_count(self) -> int:
        return sum(self.cards.values())

    def take_cards(self, cards: list[str]) -> None:
        for c in cards:
            self.cards[c] -= 1
            if not self.cards[c]:
                del self.cards[c]
            self.tally[c] = self.tally.get(c, 0) - 1

    def give_cards(self, cards: list[str]) -> None:
        for c in cards:
            self.cards[c] = self.cards.get(c, 0) + 1
            self.tally[c] = self.tally.get(c, 0) + 1

    def facts(self, pieces: dict, game: dict) -> dict:
        """The player's facts for a rule (a state as `Rulebook.state` reads it): what is on the
        board, in stock (the pieces left off the board and, for tokens, out of the treasury), in
        treasury and in hand, and the game's facts (players, track, scenario)."""
        out = {"cities": self.cities, "tokens": self.tokens, "ships": self.ships, "treasury": self.treasury,
               "ast_position": self.ast_position, "holds": list(self.advances), "commodities": dict(self.cards)}
        out.update(game)
        if self.civilization:
            out["civilization"] = self.civilization
        if pieces.get("cities") is not None:
            out["cities_in_stock"] = max(pieces["cities"] - self.cities, 0)
        stock = self.tokens_in_stock(pieces)
        if stock is not None:
            out["tokens_in_stock"] = stock
        return out

    def tokens_in_stock(self, pieces: dict) -> int | None:
        total = pieces.get("tokens")
        return None if total is None else max(total - self.tokens - self.treasury, 0)

    def to_data(self) -> dict:
        return {"name": self.name, "civilization": self.civilization, "cities": self.cities, "tokens": self.tokens,
                "ships": self.ships, "treasury": self.treasury, "ast_position": self.ast_position,
                "advances": list(self.advances), "cards": dict(sorted(self.cards.items())),
                "calamities": [{"calamity": n, "traded_by": t} for n, t in self.calamities], "left": self.left}


def share_tally(players: dict) -> None:
    """The players' hands counted together, in one tally each of them keeps up to date."""
    tally: dict[str, int] = {}
    for p in players.values():
        for c, n in p.cards.items():
            tally[c] = tally.get(c, 0) + n
    for p in players.values():
        p.tally = tally
