"""Round rules, pass 3: their declarations -> their model (`RoundRules`, the edition's
`extensions["rounds"]`).

`RoundsApplier` is mixed into the resolver's applier (`civdsl.resolver`, through the sub-language's
`applier` hook, civdsl/sublanguages.py): it handles the
items `_item_stat`, `_item_pool`, ... and uses the applier's `ed`, `diags`, `_once` (a second
declaration in one file is an error) and `_const_lookup` (constants fold into initial values).
"""

from __future__ import annotations

from ..expressions import EvalError, evaluate
from ..syntax import Field, Item
from .model import (CardDeck, CardRank, CardSuit, Choice, EndCondition, EventRow, EventTable, Flag, Pool, RoundPhase,
                    PoolTerm, Stat, Threshold, Track, TrackMark, TrackStage, RoundRules, rules)


class RoundsApplier:
    @property
    def _rounds(self) -> RoundRules:
        """The edition's round rules, which these items fill."""
        return rules(self.ed)

    def _round_field_once(self, obj, f: Field, name: str, single: tuple[str, ...]) -> None:
        if f.key in single and f.key in obj.field_spans:
            self.diags.error("CIV021", f"`{f.key}` given twice for `{name}`", f.span, item=name,
                             notes=[f"first given at {obj.field_spans[f.key]}"])
        obj.field_spans[f.key] = f.span

    def _fold(self, expr):
        """The value of a constant expression, or None when it reads something else."""
        try:
            return evaluate(expr, self._const_lookup)
        except EvalError:
            return None

    def _round_fields(self, obj, kind: str, item: Item, single: tuple[str, ...]) -> None:
        """Each field of a round declaration through its handler `_round_<kind>_<key>`, or for the
        grammar's common fields (`summary`, `aka`, `note`) `_round_common_<key>`: a round item keeps
        them as an advance or a calamity does."""
        for f in item.fields:
            self._round_field_once(obj, f, item.name, single + ("summary",))
            handler = getattr(self, f"_round_{kind}_{f.key}", None) or getattr(self, f"_round_common_{f.key}", None)
            if handler is not None:
                handler(obj, f)

    def _round_note(self, obj, f: Field) -> None:
        obj.notes.append(f.value)

    _round_common_note = _round_note

    def _round_common_summary(self, obj, f: Field) -> None:
        obj.summary = f.value

    def _round_common_aka(self, obj, f: Field) -> None:
        obj.aka.append(f.value)

    def _round_bounds(self, obj, f: Field) -> None:
        obj.low, obj.high = f.value

    def _item_stat(self, item: Item) -> None:
        if not self._once("stat", item.name, item.span, f"stat `{item.name}`"):
            return
        stat = Stat(item.name, item.value["title"], item.span)
        self._round_fields(stat, "stat", item, ("initial", "bounds"))
        self._rounds.stats[item.name] = stat

    def _round_stat_initial(self, stat: Stat, f: Field) -> None:
        stat.initial = f.value
        value = self._fold(f.value)
        stat.initial_value = value if value is not None else 0

    _round_stat_bounds = _round_bounds

    def _item_flag(self, item: Item) -> None:
        if self._once("flag", item.name, item.span, f"flag `{item.name}`"):
            self._rounds.flags[item.name] = Flag(item.name, item.value["title"], item.value["on"], item.span)

    def _item_choice(self, item: Item) -> None:
        if self._once("choice", item.name, item.span, f"choice `{item.name}`"):
            self._rounds.choices[item.name] = Choice(item.name, item.value["title"], item.value["default"], item.span)

    def _item_threshold(self, item: Item) -> None:
        if self._once("threshold", item.name, item.span, f"threshold `{item.name}`"):
            v = item.value
            self._rounds.thresholds[item.name] = Threshold(item.name, v["title"], v["when"], v["body"], item.span)

    def _item_end(self, item: Item) -> None:
        expr, text = item.value
        self._rounds.ends.append(EndCondition(expr, text, item.span))

    def _item_pool(self, item: Item) -> None:
        if not self._once("pool", item.name, item.span, f"dice pool `{item.name}`"):
            return
        pool = Pool(item.name, item.value["title"], item.span)
        self._round_fields(pool, "pool", item, ("sides", "base", "success"))
        self._rounds.pools[item.name] = pool

    def _round_pool_sides(self, pool: Pool, f: Field) -> None:
        setattr(pool, f.key, f.value)

    _round_pool_base = _round_pool_success = _round_pool_sides

    def _round_pool_add(self, pool: Pool, f: Field) -> None:
        amount, condition, label = f.value
        pool.terms.append(PoolTerm(amount, condition, label, f.span))

    _round_pool_note = _round_note

    def _item_track(self, item: Item) -> None:
        if not self._once("track", item.name, item.span, f"track `{item.name}`"):
            return
        track = Track(item.name, item.value["title"], item.span)
        self._round_fields(track, "track", item, ("start", "bounds"))
        self._rounds.tracks[item.name] = track

    def _round_track_start(self, track: Track, f: Field) -> None:
        track.start = f.value

    _round_track_bounds = _round_bounds

    def _round_track_stage(self, track: Track, f: Field) -> None:
        low, high, name = f.value
        track.stages.append(TrackStage(low, high, name, f.span))

    def _round_track_at(self, track: Track, f: Field) -> None:
        position, label, body = f.value
        track.marks.append(TrackMark(position, label, body, f.span))

    _round_track_note = _round_note

    def _item_event_table(self, item: Item) -> None:
        if not self._once("event_table", item.name, item.span, f"event table `{item.name}`"):
            return
        table = EventTable(item.name, item.value["title"], item.value["die"], [], item.span)
        self._round_fields(table, "event_table", item, ())
        self._rounds.event_tables[item.name] = table

    def _round_event_table_row(self, table: EventTable, f: Field) -> None:
        low, high, label, body = f.value
        table.rows.append(EventRow(low, high, label, body, f.span))

    def _item_card_deck(self, item: Item) -> None:
        if not self._once("card_deck", item.name, item.span, f"deck `{item.name}`"):
            return
        deck = CardDeck(item.name, item.value["title"], item.span)
        self._round_fields(deck, "card_deck", item, ("hand_limit",))
        self._rounds.card_decks[item.name] = deck

    def _round_card_deck_suit(self, deck: CardDeck, f: Field) -> None:
        name, color, span = f.value
        deck.suits.append(CardSuit(name, color, f.span))

    def _round_card_deck_rank(self, deck: CardDeck, f: Field) -> None:
        name, value = f.value
        deck.ranks.append(CardRank(name, value, f.span))

    def _round_card_deck_ranks(self, deck: CardDeck, f: Field) -> None:
        low, high = f.value
        for n in range(low, min(high, low + 100) + 1):  # a number card is worth its number
            deck.ranks.append(CardRank(str(n), n, f.span))

    def _round_card_deck_hand_limit(self, deck: CardDeck, f: Field) -> None:
        deck.hand_limit = f.value

    _round_card_deck_note = _round_note

    def _item_phase(self, item: Item) -> None:
        if self._once("phase", item.name, item.span, f"phase `{item.name}`"):
            self._rounds.phases[item.name] = RoundPhase(item.name, item.value["title"], item.value["body"], item.span)

    def _item_setup(self, item: Item) -> None:
        if self._once("setup", "", item.span, "setup"):
            self._rounds.setup = RoundPhase("setup", "Setup", item.value["body"], item.span)
