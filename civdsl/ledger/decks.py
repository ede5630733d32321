"""The trade-card stacks of a game, dealt from the rulebook's `trade_deck` for the player count
(the generated module's TRADE_DECKS) and kept through the game: what each stack still holds, in
layers from the top, and the cards returned under it.

A stack is a list of layers, each the cards shuffled together (a count by name). Drawing the top
card of a shuffled layer is drawing one of its cards at random, so a layer is kept as counts and a
draw picks among them with the game's seed: the same events always give the same cards. A layer
with `clear Q` is dealt as two: Q of its commodity cards (chosen with the seed) above the rest and
its calamities. Cards discarded or spent in a turn wait on the discard pile and go under their
stack when the turn ends, as one shuffled layer, the non-tradable calamities below it (Mega
Civilization's reshuffle; the other editions put each card at the bottom of its stack, which no
draw of the same turn can tell apart).

A game whose player count no `trade_deck` covers has no stacks (None): the players enter the
cards they draw, and drawing for them says which declaration is missing."""

from __future__ import annotations

from .draws import Draws
from .quantities import quantity


class Stacks:
    """The stacks of each block dealt (None: the edition's one deck), by stack number: `layers`
    what each still holds, `dealt` every card each stack was dealt (where a card goes back),
    `decks` the name of the deck dealt for each block, `pending` the discard pile of each stack."""

    def __init__(self, layers: dict, dealt: dict, decks: dict, pending: dict | None = None):
        self.layers = layers
        self.dealt = dealt
        self.decks = decks
        self.pending = pending if pending is not None else {}
        # what each stack holds by card, all layers together: worked out when first asked and kept
        # up to date by each card taken and each discard pile put under its stack (a discard asks
        # it of every block for every card, every turn)
        self._held = {}
        self._blocks_dealt = {}

    def copy(self) -> "Stacks":
        return Stacks({b: {n: [dict(layer) for layer in ls] for n, ls in st.items()} for b, st in self.layers.items()},
                      self.dealt, self.decks, {k: [dict(x) for x in v] for k, v in self.pending.items()})

    def cards_in(self, block: str | None, number: int) -> int:
        return sum(sum(layer.values()) for layer in self.layers.get(block, {}).get(number, ()))

    def holds(self, block: str | None, number: int, card: str) -> int:
        held = self._held.get((block, number))
        if held is None:
            held = self._held[(block, number)] = {}
            for layer in self.layers.get(block, {}).get(number, ()):
                for name, n in layer.items():
                    held[name] = held.get(name, 0) + n
        return held.get(card, 0)

    def draw(self, block: str | None, number: int, rng: Draws) -> str | None:
        """The top card of the stack (None: the stack is empty)."""
        for layer in self.layers.get(block, {}).get(number, ()):
            if layer:
                card = rng.weighted(layer)
                self._take_from(block, number, layer, card)
                return card
        return None

    def take(self, block: str | None, number: int, card: str) -> bool:
        """A card the player says he drew: taken from the highest layer that holds it."""
        for layer in self.layers.get(block, {}).get(number, ()):
            if layer.get(card):
                self._take_from(block, number, layer, card)
                return True
        return False

    def _take_from(self, block: str | None, number: int, layer: dict, card: str) -> None:
        """The card leaves the layer; a layer emptied leaves its stack (every draw walks the
        stack from the top, and a game's stacks would otherwise keep a layer per turn)."""
        _remove(layer, card)
        if not layer:
            self.layers[block][number] = [x for x in self.layers[block][number] if x]
        held = self._held.get((block, number))
        if held is not None:
            _remove(held, card)

    def give_back(self, card: str, number: int, nontradable: bool, own_block: str | None) -> None:
        """A card discarded or spent: to the discard pile of the block that was dealt it and
        misses it most (the player's own block on a tie), under its stack at the turn's end."""
        blocks = self._dealt_to(number, card)
        if not blocks:
            return  # a card of no stack dealt (water): back to its own pile
        if len(blocks) == 1:
            self._to_pile(blocks[0], number, card, nontradable)
            return
        best, best_rank = None, None
        for b in blocks:
            missing = self.dealt[b][number][card] - self.holds(b, number, card)
            pile = self.pending.get((b, number))
            if pile is not None:
                missing = missing - pile[0].get(card, 0) - pile[1].get(card, 0)
            rank = (missing, 1 if b == own_block else 0)
            if best_rank is None or rank > best_rank:  # the first of equal ranks, as max() takes
                best, best_rank = b, rank
        self._to_pile(best, number, card, nontradable)

    def _dealt_to(self, number: int, card: str) -> list:
        """The blocks whose stack NUMBER was dealt the card (what was dealt never changes)."""
        known = self._blocks_dealt.get((number, card))
        if known is None:
            known = self._blocks_dealt[(number, card)] = [b for b in self.dealt
                                                          if self.dealt[b].get(number, {}).get(card)]
        return known

    def _to_pile(self, block: str | None, number: int, card: str, nontradable: bool) -> None:
        pile = self.pending.setdefault((block, number), [{}, {}])
        pile[1 if nontradable else 0][card] = pile[1 if nontradable else 0].get(card, 0) + 1

    def end_turn(self) -> None:
        for (block, number), (rest, nontradable) in sorted(self.pending.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
            stack = self.layers.setdefault(block, {}).setdefault(number, [])
            stack.extend([layer for layer in (rest, nontradable) if layer])
            held = self._held.get((block, number))
            if held is not None:
                for layer in (rest, nontradable):
                    for name, n in layer.items():
                        held[name] = held.get(name, 0) + n
        self.pending = {}

    def to_data(self) -> list[dict]:
        return [{"block": b, "deck": self.decks[b], "stacks": {n: self.cards_in(b, n) for n in sorted(st)},
                 "discarded": {n: sum(sum(x.values()) for x in self.pending.get((b, n), ())) for n in sorted(st)}}
                for b, st in self.layers.items()]


def _remove(layer: dict[str, int], card: str) -> None:
    layer[card] -= 1
    if not layer[card]:
        del layer[card]


def declared_counts(module) -> str:
    """The player counts the edition's trade decks cover, in words ("5-8, 9-11"), "" without any."""
    ranges = sorted({(d["players"][0], d["players"][1]) for d in getattr(module, "TRADE_DECKS", ())})
    return ", ".join([f"{low}-{high}" if high else f"{low} or more" for low, high in ranges])


def decks_for(module, players: int) -> list[dict]:
    return [d for d in getattr(module, "TRADE_DECKS", ()) if players >= d["players"][0]
            and (d["players"][1] is None or players <= d["players"][1])]


def deal(module, players: int, blocks: set[str | None], seed: int, options: dict | None = None) -> Stacks | None:
    """The stacks dealt for the game: each deck for the player count whose block is played (a
    deck without a block always); None when no deck covers the player count. A commodity whose
    block is a reading (`block ID when OPTION`) is dealt in a block's deck only under the
    game's OPTIONS that put it in that block, so one deck declares both readings."""
    decks = [d for d in decks_for(module, players) if d["block"] is None or d["block"] in blocks]
    if not decks:
        return None
    rng = Draws(f"{seed}:deal")
    layers: dict = {}
    dealt: dict = {}
    for d in decks:
        block = d["block"]
        for number, stack in sorted(d["stacks"].items()):
            out = layers.setdefault(block, {}).setdefault(number, [])
            cards = dealt.setdefault(block, {}).setdefault(number, {})
            for layer in stack:
                counts = {name: n for name, n in layer["cards"] if _of_reading(module, name, block, options or {})}
                for name, n in counts.items():
                    cards[name] = cards.get(name, 0) + n
                clear = quantity(module, layer["clear"], players) if layer["clear"] != "players" \
                    else players
                out.extend(_cleared(module, counts, clear or 0, rng))
    return Stacks(layers, dealt, {d["block"]: d["name"] for d in decks})


def _of_reading(module, card: str, block: str | None, options: dict) -> bool:
    """Whether a block's deck deals the card under the game's options: a commodity whose block
    depends on an option only where that reading puts it in the deck's block."""
    row = module.COMMODITIES.get(card)
    if block is None or row is None or not row.get("block_when"):
        return True
    own = row["block"]
    for option, then in row["block_when"]:
        if options.get(option, module.OPTIONS[option]):
            own = then
            break
    return own == block


def _cleared(module, counts: dict[str, int], clear: int, rng: Draws) -> list[dict[str, int]]:
    """A layer as dealt: with `clear`, that many of its commodity cards on top of the rest."""
    if not clear:
        return [counts]
    commodities = sorted(c for c, n in counts.items() if c in module.COMMODITIES for _ in range(n))
    top: dict[str, int] = {}
    for card in rng.sample(commodities, min(clear, len(commodities))):
        top[card] = top.get(card, 0) + 1
    rest = {c: n - top.get(c, 0) for c, n in counts.items() if n - top.get(c, 0)}
    return [layer for layer in (top, rest) if layer]
