"""The validator's checks of the game's cards: commodities and their set values, the trade
stacks, the trade decks, and the civilizations' blocks and set-ups.
"""

from __future__ import annotations

from .bounds import FIELDS
from .diagnostics import suggestion
from .expressions import EvalError, Scope, check, evaluate, unparse
from .model import Edition
from .syntax import Name


class CardChecks:
    """The validator's part that checks the cards (mixed into validator._Validator)."""

    def _commodities(self) -> None:
        # a set value reads the number of cards in the set and the card's face value, no player
        set_scope = Scope(consts=self.ed.consts, player=False, extra_names=("n", "face"))
        if self.ed.set_value is not None:
            check(self.ed.set_value, set_scope, self.d, "set_value")
        if self.ed.set_value_off_block is not None:
            expr, when, _ = self.ed.set_value_off_block
            check(expr, set_scope, self.d, "set_value")
            if when is not None:
                check(when, self.scope, self.d, "set_value")
        for com in self.ed.commodities.values():
            self._item(com, self._commodity)

    def _commodity(self, com) -> None:
        for key in ("value", "count"):
            if getattr(com, key) is None:
                self._missing(com.span, com.name, key, f"commodity `{com.name}` has no {key}")
            elif getattr(com, key) < 0:
                self.d.error("CIV025", f"commodity `{com.name}` has a negative {key}", com.field_spans[key], item=com.name)
        self._stack_exists(com)
        if com.printed:
            self._printed(com)
        for option, _block in com.block_when:
            if option.dotted not in self.ed.options:
                self.d.error("CIV013", f"unknown option `{option.dotted}` in commodity `{com.name}`'s block",
                             option.span, item=com.name,
                             help=suggestion(option.dotted, list(self.ed.options)) or "declare it: `option ID \"doc\" off`")

    def _printed(self, com) -> None:
        """Printed set values: what the set-value rule gives, and no more of them than cards."""
        if com.value is not None and self.ed.set_value is not None and not self._printed_values(com):
            return  # set_value cannot be evaluated (reported)
        if com.count is not None and len(com.printed) > com.count:
            self.d.error("CIV040", f"`{com.name}` prints {len(com.printed)} set values but there are only {com.count} cards",
                         com.field_spans["printed"], item=com.name)

    def _printed_values(self, com) -> bool:
        """The printed set values agree with the set-value rule; False when the rule cannot be evaluated."""
        expected = []
        try:
            for n in range(1, len(com.printed) + 1):
                expected.append(set_value(self.ed, n, com.value))
        except EvalError as exc:
            self.d.error("CIV043", f"set_value cannot be evaluated: {exc}", exc.span, item="set_value")
            return False
        wrong = [(n + 1, p, x) for n, (p, x) in enumerate(zip(com.printed, expected)) if p != x]
        if wrong:
            n, printed, want = wrong[0]
            more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
            self.d.error("CIV040", f"`{com.name}` prints {printed} for {n} cards; the set-value rule gives {want}{more}",
                         com.field_spans["printed"], item=com.name,
                         notes=[f"set_value is {unparse(self.ed.set_value)}"],
                         help=f'fix the number, or record the printed mistake: errata CIV040 "{com.name}" "why"')
        return True

    def _decks(self) -> None:
        for stack, deck in sorted(self.ed.decks.items()):
            parts = self._stack_parts(stack)
            total = sum(count or 0 for count, _ in parts)
            if total != deck.size:
                self.d.error("CIV041", f"stack {stack} should hold {deck.size} cards, but its parts add up to {total}",
                             deck.span, item=f"stack {stack}",
                             notes=[" + ".join(f"{count} {name}" for count, name in parts) or "no cards"],
                             help=f'fix a count, or record the printed mistake: errata CIV041 "stack {stack}" "why"')

    def _trade_decks(self) -> None:
        """CIV146: every card of a `trade_deck` is a commodity or calamity of that stack, its block
        and `clear` are declared, no two decks deal the same block to the same player count, and at
        no player count do the decks hold more cards of a commodity than the game has (`count`)."""
        decks = list(self.ed.trade_decks.values())
        blocks = ({c.block for c in self.ed.commodities.values()} | {c.block for c in self.ed.civilizations.values()}) - {None}
        for deck in decks:
            if deck.block is not None and deck.block not in blocks:
                self.d.error("CIV146", f'trade_deck "{deck.name}": no trade block `{deck.block}`', deck.block_span,
                             item=deck.name,
                             help=suggestion(deck.block, sorted(blocks)) or "blocks are those of the commodities")
            for number, layers in deck.stacks.items():
                for layer in layers:
                    self._deck_clear(deck, layer)
                    self._deck_layer_cards(deck, number, layer)
        self._deck_clashes(decks)
        self._deck_games(decks)

    def _deck_layer_cards(self, deck, number: int, layer) -> None:
        """Each card of a layer of stack `number` is a commodity or calamity of that stack."""
        where = f'trade_deck "{deck.name}"'
        for name, _, span in layer.cards:
            item = self.ed.commodities.get(name) or self.ed.calamities.get(name)
            if item is None:
                self.d.error("CIV146", f"{where}: no commodity or calamity `{name}`", span, item=deck.name,
                             help=suggestion(name, list(self.ed.commodities) + list(self.ed.calamities)))
            elif item.stack != number:
                self.d.error("CIV146", f"{where}: `{name}` belongs to stack {item.stack}, not {number}",
                             span, item=deck.name, help=f"move it to `stack {item.stack}`")

    def _deck_clashes(self, decks: list) -> None:
        """No two decks deal the same block (or a deck of every block and another) to one player count."""
        # player counts are 1..64 (bounds.py), so each count's decks are compared: linear in the decks
        clashed: set[str] = set()
        for players in range(FIELDS["players"].low, FIELDS["players"].high + 1):
            dealt: dict = {}  # block -> the first deck dealing it for this count
            for b in (d for d in decks if d.holds(players) and d.name not in clashed):
                a = dealt.get(b.block) or (next(iter(dealt.values()), None) if b.block is None else dealt.get(None))
                if a is None:
                    dealt[b.block] = b
                    continue
                clashed.add(b.name)
                self.d.error("CIV146", f'trade_deck "{b.name}" and "{a.name}" both deal '
                             f"{'the ' + b.block + ' block' if b.block else 'the cards'} for {players} players",
                             b.span, item=b.name, notes=[f'"{a.name}" is declared at {a.span}'],
                             help="give each deck its own player counts or block")

    def _deck_games(self, decks: list) -> None:
        """At each player count where the decks dealt change, the cards of each game's decks."""
        least = self.ed.resolution.get("separate_blocks")
        least = self.ed.consts[least[0]].value if least and least[0] in self.ed.consts else None
        reported: set[str] = set()
        for players in sorted({d.low for d in decks} | {d.high for d in decks if d.high is not None}):
            dealt = [d for d in decks if d.holds(players)]
            # with fewer players than `separate_blocks`, a game plays one block: its decks are alternatives
            together = least is not None and players >= least
            games = [dealt] if together else [[d for d in dealt if d.block in (b, None)]
                                              for b in {d.block for d in dealt} or {None}]
            for game in games:
                self._deck_counts(game, players, reported)

    def _deck_counts(self, decks: list, players: int, reported: set[str]) -> None:
        held: dict[str, int] = {}
        for d in decks:
            for layers in d.stacks.values():
                for layer in layers:
                    for name, n, _ in layer.cards:
                        held[name] = held.get(name, 0) + n
        for name, n in held.items():
            com = self.ed.commodities.get(name)
            if com is not None and com.count and n > com.count and name not in reported:
                reported.add(name)
                span = next(s for d in decks for ls in d.stacks.values() for layer in ls
                            for c, _, s in layer.cards if c == name)
                self.d.error("CIV146", f"the trade decks for {players} players hold {n} {name} cards; the game "
                             f"has {com.count}", span, item=name, help=f"fix a count (`commodity \"{name}\"` has "
                             f"count {com.count})")

    def _setup_players(self) -> None:
        """CIV147: a set-up chosen by more players than civilizations name it."""
        for name, (low, high, _, span) in self.ed.setup_players.items():
            named = [c.name for c in self.ed.civilizations.values() if name in c.setups]
            if high < low:
                self.d.error("CIV147", f'setups "{name}" is for {low}..{high} players: the range is empty', span,
                             item=name, help=f"write {high}..{low}")
            elif named and len(named) < high:
                self.d.error("CIV147", f'setups "{name}" is for up to {high} players, but only {len(named)} '
                             f"civilizations name it ({', '.join(named)})", span, item=name,
                             help="add the set-up to more civilizations' `setups`, or lower the count")

    def _civilization_blocks(self) -> None:
        """CIV147: `block ID for "SETUP", ...` names set-ups the civilization is in and a declared block."""
        blocks = ({c.block for c in self.ed.commodities.values()} | {c.block for c in self.ed.civilizations.values()}
                  | {b for c in self.ed.civilizations.values() for b, _ in c.block_for}) - {None}
        for civ in self.ed.civilizations.values():
            span = civ.field_spans.get("block_for", civ.span)
            for block, setups in civ.block_for:
                if block == civ.block:
                    self.d.error("CIV147", f"`{civ.name}` plays block `{block}` anyway: `block {block} for ...` changes "
                                 "nothing", span, item=civ.name, help="name the other block, or drop the line")
                if not any(c.block == block for c in self.ed.commodities.values()) and block not in {
                        c.block for c in self.ed.civilizations.values()}:
                    self.d.error("CIV147", f"`{civ.name}`: no trade block `{block}`", span, item=civ.name,
                                 help=suggestion(block, sorted(blocks)))
                for setup in setups:
                    if setup not in civ.setups:
                        self.d.error("CIV147", f"`{civ.name}` is in no set-up `{setup}`", span, item=civ.name,
                                     help=suggestion(setup, civ.setups) or f"its set-ups: {', '.join(civ.setups)}")

    def _deck_clear(self, deck, layer) -> None:
        clear = layer.clear
        if isinstance(clear, str) and clear != "players" and clear not in self.ed.consts \
                and clear not in self.ed.tables:
            self.d.error("CIV146", f'trade_deck "{deck.name}": `clear {clear}` names no constant or table',
                         layer.span, item=deck.name,
                         help=suggestion(clear, ["players", *self.ed.consts, *self.ed.tables])
                         or "write a number, `players`, a const or a table by player count")

    def _stack_parts(self, stack: int) -> list[tuple[int | None, str]]:
        """(cards, name) of each commodity and then each calamity in a trade stack."""
        return ([(c.count, c.name) for c in self.ed.commodities.values() if c.stack == stack]
                + [(1, c.name) for c in self.ed.calamities.values() if c.stack == stack])


def set_value(ed: Edition, n: int, face: int):
    def lookup(name: Name):
        if name.parts[0] == "n":
            return n
        if name.parts[0] == "face":
            return face
        const = ed.consts.get(name.parts[0])
        if const is not None and const.value is not None:
            return const.value
        raise EvalError(f"`{name.dotted}` has no value here", name.span)
    return evaluate(ed.set_value, lookup)
