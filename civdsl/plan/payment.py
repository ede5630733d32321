"""The payment table (PaymentTable): which cards and tokens to turn in for a price, under the hand
limit, `card_treasury` and `substitute_card`."""

from __future__ import annotations

import functools
import math
from typing import Any, Iterable

from ..handvalue import off_block
from ..unknown import number


# Trade Empire's flag, commodities taken in ascending face order (PaymentTable): no substitution
# yet; a set took the substitute and owes a donor (any later commodity's face is at least its); a
# donor was given and owes a set (only a commodity of the same face can still take it); done. The
# flag is also the low digit of a group's code (PaymentTable._group_order).
_NONE = 0
_OWE = 1
_GAVE = 2
_DONE = 3


# by flag, the flag once a commodity's set takes the substitute, and once it gives the substitute
# card (None: it may not): the first of the set and the donor owes the other, the second completes it
_SET_AFTER = (_OWE, None, _DONE, None)
_DONOR_AFTER = (_GAVE, _DONE, None, None)


def _complete(flag: int) -> bool:
    """A substitution owed or given but not matched is no payment."""
    return flag == _NONE or flag == _DONE


def _unchanged(layer: dict) -> dict:
    """A layer with nothing to drop."""
    return layer


class _PaymentStopped(Exception):
    """A programme of the payment table reached its work limit (WORK, CHOICE_STOP)."""


# what stopped, in the player's words (the answer's `payment_stopped`)
PAYING = "working out what the hand can pay"
CHOOSING = "choosing the payment"

# a chosen payment without converted tokens and with fewer (value, cards kept) pairs than this
# runs the whole programme (PaymentTable._floors_pay)
SMALL_PROGRAMME = 20_000
# The work limit of what the hand can pay (its programmes under every hand limit asked, in
# all) and of the choice of one payment. A unit is one move of one commodity tried from one
# state (every loop of the table counts its steps in these units). Past it, what the hand can
# pay is worked out for whole sets only (`_whole_sets`) and the payment chosen among
# what-can-be-paid's own payments (`_paid_choice`).
WORK = 300_000
# the chosen payment's programme runs only where what the hand can pay took at most this much
# work (its work grows with that programme's and more: the tokens kept); else the payment is
# the best of what-can-be-paid's own payments of the least (`_paid_choice`)
CHOICE_WORK = 30_000
# ... and stops (the same `_paid_choice`) past this much of its own work: far above what the
# hands CHOICE_WORK lets through need (a 19-card hand under the cut: 419,294 units in the whole
# programme, which the floors' passes of `_chosen_layers` mostly avoid)
CHOICE_STOP = 5_000_000


class PaymentTable:
    """Every way to turn in cards, reduced to what a payment needs.

    A commodity's k cards pay set_value(k, face); the k of each commodity are chosen
    independently. A dynamic programme over commodities, whose state is (value turned in, cards
    kept) with the cards kept never above the hand limit (only when the limit binds), lists the
    values that can be turned in while keeping at most `limit` cards; for the chosen payment the
    same programme keeps, per state, the most valuable hand kept and a back-pointer to the
    previous commodity's state. Its size is at most (value of the hand + 1) x (limit + 1)
    states, and it never enumerates subsets of the hand. Treasury then covers the rest, in
    whole tokens, never more than needed.

    Two abilities of advances held before the purchase widen the state, only when held:
    `card_treasury(rate)` (Trade Routes): c cards of a commodity become rate x face treasury
    tokens each before paying; the state adds the tokens gained (bounded by rate x the hand's
    face total), and tokens not needed stay in the treasury (no overpayment from them).
    `substitute_card()` (Mega Civilization's Trade Empire): one card of commodity Y counts as
    one more card of an incomplete set of X whose face is at most Y's; the state adds a flag
    (none / a set owes a donor / a donor owes a set / done). The commodities are taken in
    ascending face order so that the flag need not carry a face: a donor after the set has a
    face at least the set's, and a donor given before its set must share its face, so "donor
    owes a set" states end at the next face (at most 4 times the states, not 2 x faces + 2).
    """

    def __init__(self, module, cards: dict[str, int], treasury: int, treasury_value: int, state=None,
                 rate: int = 0, substitute: bool = False, paying: list | None = None):
        self.module = module
        self.treasury = int(treasury)
        self.tv = int(treasury_value)
        self.rate = int(rate)
        self.substitute = bool(substitute)
        self.state = state
        self.names = sorted(n for n, k in cards.items() if k > 0)
        self.counts = [int(cards[n]) for n in self.names]
        self.faces = [int(module.COMMODITIES[n]["value"]) for n in self.names]
        # a complete set needs no substitute: the deck's count of the commodity (0: unknown)
        self.deck = [int(module.COMMODITIES[n].get("count") or 0) for n in self.names]
        self.values = [self._set_values(n, self.counts[i], self.faces[i]) for i, n in enumerate(self.names)]
        self.total_cards = sum(self.counts)
        self.order = self._programme_order()
        self.adds = self._most_added()
        self._levels: dict[int, list] = {}
        self._conv: dict[int, dict] = {}
        self._budgets: dict[int, Any] = {}  # the next turn's problems ask the same limits
        # what-can-be-paid's programme per hand limit: its layers (with back-pointers) and its work,
        # or, stopped at WORK, the whole-set payments that replace it
        self._paid: dict[int, list] = {}
        self._paid_work: dict[int, int] = {}
        self._whole: dict[int, list] = {}
        # the limits (module constants), per table: a test lowers them
        self.work_limit, self.choice_work, self.choice_stop = WORK, CHOICE_WORK, CHOICE_STOP
        self.small_programme = SMALL_PROGRAMME
        self._indices: dict = {}  # value turned in -> its index in what can be paid's codes (`_paid_code`)
        self._worths: list = []
        # the work of what-can-be-paid's programmes so far, every hand limit's: one count [units] for
        # every table of an answer (the look-ahead's next turns have tables of their own)
        self.paying = [0] if paying is None else paying
        self.stopped: list[str] = []  # what reached the work limit (PAYING, CHOOSING), in order
        # the search asks the same (price, limit) many times; every state of a commodity's layer
        # with the same flag has the same moves
        self.spent = functools.cache(self._least_spent)
        self._moves = functools.cache(self._moves_keeping)

    def _programme_order(self) -> list[int]:
        """The programme's order of the commodities: the names', or with a substitute card
        ascending face then name (the substitution's face test becomes an order; ties between
        equally good payments are then met in that order)."""
        order = list(range(len(self.names)))
        if self.substitute:
            order.sort(key=lambda i: (self.faces[i], self.names[i]))
        return order

    def _most_added(self) -> list:
        """Per position p of `order`: the most value turned in plus converted tokens' worth that
        the commodities from p on can add (each its dearest set and every card converted, a bound
        of any move), 0 at the end."""
        adds = [0]
        for p in range(len(self.order) - 1, -1, -1):
            i = self.order[p]
            adds.append(adds[-1] + max(self.values[i]) + self.counts[i] * self.rate * self.faces[i] * self.tv)
        return _reversed(adds)

    def _set_values(self, name: str, n: int, face: int) -> list:
        """What 0, 1, ... n cards of a commodity pay as a set (n + 1 with a substitute card, which
        makes a set one larger)."""
        # a set redeemed outside its native trade block may be worth more (handvalue.off_block)
        module = self.module
        value = module.OFF_BLOCK["value"] if off_block(module, name, self.state) else module.set_value
        top = n + 1 if self.substitute else n
        return [0] + [number(value(k, face)) for k in range(1, top + 1)]

    def _moves_keeping(self, i: int, flag, room: int) -> list[tuple]:
        """The moves of commodity i from a state with substitution flag `flag` that keep at most
        `room` cards of it, in `_all_moves`'s order (the first found wins between equals)."""
        return [move for move in self._all_moves(i, flag) if move[5] <= room]

    def _all_moves(self, i: int, flag) -> list[tuple]:
        """(cards turned in as a set, cards converted, role, set value, new flag, cards kept): the
        moves of commodity i from a state with substitution flag `flag`."""
        n, f = self.counts[i], self.values[i]
        moves = []
        for k in range(n + 1):
            for c in range(n - k + 1 if self.rate else 1):
                moves.append((k, c, None, f[k], flag, n - k - c))
                if self.substitute:
                    moves.extend(self._substitutions(i, k, c, flag))
        return moves

    def _substitutions(self, i: int, k: int, c: int, flag):
        """The moves of commodity i (k cards in its set, c converted) that take part in the
        substitution (faces ascend: a donor given before its set has the set's face, one given
        after at least its face)."""
        n, f = self.counts[i], self.values[i]
        after = _SET_AFTER[flag]
        if after is not None and self._may_take(i, k):
            yield k, c, "set", f[k + 1], after, n - k - c
        after = _DONOR_AFTER[flag]
        if after is not None and k + c < n:  # one of its cards left is the substitute
            yield k, c, "donor", f[k], after, n - k - c - 1

    def _may_take(self, i: int, k: int) -> bool:
        """Whether commodity i's set of k cards may take the substitute: it has a card of its own
        and a face, and stays within the deck's count of the commodity (an incomplete set)."""
        return k >= 1 and self.faces[i] > 0 and not (self.deck[i] and k + 1 > self.deck[i])

    def _layers(self, limit: int, cap, clamp, work: list, floor=None, gains=None, groups=None) -> list[dict]:
        """The chosen payment's programme: layer i maps (value turned in, tokens converted, cards
        kept, substitution flag) of the first i commodities in `order` to (wealth kept: the value
        kept with the tokens converted at their token value, cards kept, back-pointer: the previous
        state and this commodity's move). The key's tokens are cut at `clamp`, values above `cap`
        are dropped (values only grow), cards kept are counted only while the limit can bind (else
        0). `work` ([units]) counts the moves tried; past CHOICE_STOP the programme stops
        (_PaymentStopped) as soon as a state's moves take it there. With a `floor` it keeps only
        the states that can reach it (wealth kept plus value turned in, with the most the later
        commodities add, `gains`), each layer in the whole programme's order (`groups`,
        `_chosen_layers`)."""
        binds = limit < self.total_cards
        width = (limit + 1 if binds else 1) * 4
        prune = self._pareto if self.rate else _unchanged
        layers = [{(0, 0, 0, _NONE): (0, 0, None, None)}]
        for p, i in enumerate(self.order):
            new = prune(self._kept_layer(layers[-1], p, i, limit, binds, cap, clamp, work))
            self._check(work)
            if floor is not None:
                rank, rest = groups[p + 1], gains[p + 1]
                live = [(key, entry) for key, entry in new.items() if entry[0] + key[0] + rest[key[3]] >= floor]
                live.sort(key=lambda item: (rank[item[0][0] * width + item[0][2] * 4 + item[0][3]], -item[0][1]))
                new = dict(live)
            layers.append(new)
        return layers

    # What can be paid keeps, per (value turned in, cards kept, flag), only the most tokens converted
    # (the tokens a later commodity adds do not depend on them): its states are coded as one whole
    # number, ((value's index * span) + cards kept) * 4 + flag, span being the hand limit + 1 where it
    # binds (else 1: no card is counted), and each value turned in gets an index when first met
    # (`_paid_code`). The code stands for the tuple one for one, so the layers meet their states in
    # the same order; a number is a cheaper key than a tuple, in the page above all.

    def _span(self, limit: int) -> int:
        return limit + 1 if limit < self.total_cards else 1

    def _paid_code(self, value, kept: int, flag: int, span: int) -> int:
        index = self._indices.get(value)
        if index is None:
            index = len(self._worths)
            self._indices[value] = index
            self._worths.append(value)
        return (index * span + kept) * 4 + flag

    def _paid_value(self, code: int, span: int):
        return self._worths[code // (4 * span)]

    def _paid_layers(self, limit: int, work: list) -> list[dict]:
        """What can be paid's programme: layer i maps the coded states of the first i commodities
        in `order` to (the most tokens converted, 0, back-pointer: the previous state and the move
        that first gave them, `_paid_choice`)."""
        binds = limit < self.total_cards
        span = self._span(limit)
        layers = [{self._paid_code(0, 0, _NONE, span): (0, 0, None, None)}]
        for p, i in enumerate(self.order):
            new = self._paid_step(layers[-1], p, i, limit, span, work)
            layers.append(self._fewest_kept(new, span) if binds else new)
        return layers

    def _paid_step(self, layer: dict, p: int, i: int, limit: int, span: int, work: list) -> dict:
        """The next layer of what can be paid: the moves of commodity i (at position p of `order`)
        from every state of `layer`, counting the moves tried per state (past WORK it stops). One
        loop, as `_kept_layer`'s: this programme is the table's largest."""
        per_card, new = self.rate * self.faces[i], {}
        closed = self.substitute and p > 0 and self.faces[i] != self.faces[self.order[p - 1]]
        worths = self._worths
        for key, entry in layer.items():
            flag: int = key % 4
            if closed and flag == _GAVE:  # a donor given at a lower face finds no set (`_open_states`)
                continue
            kc0: int = key // 4 % span
            moves = self._moves(i, flag, limit - kc0)
            work[0] += len(moves)
            if work[0] > self.work_limit:
                raise _PaymentStopped(PAYING)
            v0, tokens0 = worths[key // (4 * span)], entry[0]
            for move in moves:
                nkey = self._paid_code(v0 + move[3], kc0 + move[5] if span > 1 else 0, move[4], span)
                tokens = tokens0 + move[1] * per_card
                got = new.get(nkey)
                if got is None or tokens > got[0]:
                    new[nkey] = (tokens, 0, key, move)
        return new

    def _fewest_kept(self, layer: dict, span: int) -> dict:
        """Drop a state of what can be paid when another with the same (value, flag) keeps no more
        cards and has at least as many tokens (the entry's first slot): every completion of the
        first is one of the second, turning in the same value with at least its tokens, so the
        values payable and their most tokens (`_final`) stay the same."""
        by_kept: dict = {}
        for key in layer:  # fewest cards kept first, in the layer's order between equals
            by_kept.setdefault(key // 4 % span, []).append(key)
        most: dict = {}
        out = {}
        for kept in sorted(by_kept):
            for key in by_kept[kept]:
                group, entry = key - kept * 4, layer[key]  # the value and the flag
                if group not in most or entry[0] > most[group]:
                    most[group] = entry[0]
                    out[key] = entry
        return out

    def _check(self, work: list) -> None:
        """Stop a chosen payment's programme whose work passed its limit (what can be paid stops in
        `_paid_step`, at WORK)."""
        if work[0] > self.choice_stop:
            raise _PaymentStopped(CHOOSING)

    def _open_states(self, layer: dict, p: int) -> Iterable:
        """The states of `layer` that commodity order[p] may extend: with a substitute card, a
        donor given at a lower face can no longer find a set (faces ascend)."""
        faces, order = self.faces, self.order
        if not self.substitute or p == 0 or faces[order[p]] == faces[order[p - 1]]:
            return layer.items()
        return [(key, entry) for key, entry in layer.items() if key[3] != _GAVE]

    def _kept_layer(self, layer: dict, p: int, i: int, limit: int, binds: bool, cap, clamp, work: list) -> dict:
        """The next layer of the chosen payment: every move of commodity i (at position p of
        `order`) from every state of `layer` that keeps at most `limit` cards (counted only when the
        limit `binds`, else 0: a state's room is then the whole limit, never below a hand's cards)
        and turns in at most `cap`. The key keeps the tokens converted, cut at `clamp` (tokens
        beyond it pay nothing more: the most a price can ask of them, so states above it share a
        key, ranked by their wealth kept); the entry the wealth and cards kept and the
        back-pointer (the previous state and the move). `work` counts the moves tried, checked per
        state (a layer never runs far past CHOICE_STOP). One loop: this is the chosen payment's
        whole programme.

        A payment hands over exactly `cap` with at most the treasury's tokens on top of the cards,
        so its value turned in plus converted tokens' worth reaches at least `cap` less the
        treasury's worth; a new state whose tokens are known (below `clamp`) and that cannot reach
        it even with the most the later commodities add (`adds`) is dropped. That drops only states
        no payment goes through: no paying final state nor any state on its back-pointers is
        changed, and the others keep their order."""
        per_card = self.rate * self.faces[i]
        worth, tv = self.values[i], self.tv
        # value plus converted tokens' worth a state here must be able to reach, less what the later
        # commodities may add
        need = cap - self.treasury * tv - self.adds[p + 1]
        new: dict = {}
        for key, entry in self._open_states(layer, p):
            moves = self._moves(i, key[3], limit - key[2])
            work[0] += len(moves)
            if work[0] > self.choice_stop:
                raise _PaymentStopped(CHOOSING)
            v0, c0, kc0, kv0, kh0 = key[0], key[1], key[2], entry[0], entry[1]
            for move in moves:
                v = v0 + move[3]
                if v > cap:
                    continue
                c, kept = move[1], move[5]
                tokens = c0 + c * per_card
                if tokens < clamp and v + tokens * tv < need:
                    continue
                nkey = (v, min(tokens, clamp), kc0 + kept if binds else 0, move[4])
                kv, kh = kv0 + worth[kept] + c * per_card * tv, kh0 + kept
                old = new.get(nkey)
                # more value kept, then more cards kept (fewer turned in): the order `best` ranks
                # payments by; between equals the first found (fewer of the earlier commodities
                # turned in)
                if old is None or kv > old[0] or (kv == old[0] and kh > old[1]):
                    new[nkey] = (kv, kh, key, move)
        return new

    @staticmethod
    def _pareto(layer: dict) -> dict:
        """Drop a state when another with the same (value, cards kept, flag) has at least as
        many tokens and at least as much (wealth kept, cards kept): every completion of the first
        is a completion of the second, paying the same and keeping at least as much. (States beaten
        by one keeping fewer cards are kept: dropping them would change the order in which the
        next layer meets its states, and so which of two equally good payments is found first.)"""
        groups: dict = {}
        for key in layer:
            groups.setdefault((key[0], key[2], key[3]), []).append(key)
        out = {}
        for keys in groups.values():
            keys.sort(key=lambda key: -key[1])
            best = None
            for key in keys:  # most tokens first
                entry = layer[key]
                if best is not None and (entry[0], entry[1]) <= best:
                    continue
                out[key] = entry
                best = (entry[0], entry[1])
        return out

    def _final(self, limit: int) -> dict:
        """Value turned in -> the most tokens converted alongside it, over complete payments
        (a substitution owed or given but not matched is no payment). With cards convertible
        (`card_treasury`) every card not turned in may be converted, which only adds tokens: the
        most tokens for a value keep no card, so the table is the same under every hand limit and
        needs only the moves that keep none (those of a limit of 0)."""
        limit = self._paid_limit(limit)
        got = self._conv.get(limit)
        if got is None:
            got = self._read_off_wider(limit)
            if got is not None:
                self._conv[limit] = got
        if got is None:
            # one count for every hand limit asked (the hand-limit abilities bought make several)
            before = self.paying[0]
            try:
                layers = self._paid_layers(limit, self.paying) if before <= self.work_limit else None
            except _PaymentStopped:
                layers = None
            self._paid_work[limit] = self.paying[0] - before
            got = {}
            if layers is None:
                self._stop(PAYING)
                self._whole[limit] = self._whole_sets(limit)
                for v, conv, _ in self._whole[limit]:
                    got[v] = max(got.get(v, 0), conv)
            else:
                self._paid[limit] = layers
                span = self._span(limit)
                for key, entry in layers[-1].items():
                    if _complete(key % 4):
                        v = self._paid_value(key, span)
                        got[v] = max(got.get(v, 0), entry[0])
            self._conv[limit] = got
        return got

    def _read_off_wider(self, limit: int) -> dict | None:
        """What can be paid under a binding `limit`, read off the programme already run under a
        wider binding limit, or None where there is none to read. Without card_treasury every
        token count is 0, so `_fewest_kept` keeps, per value turned in and flag, only the state
        keeping fewest cards: the narrower programme's states are exactly the wider one's that keep
        at most `limit` cards (a payment's cards kept only grow along its moves), and so are its
        values payable. Its work is counted as its own run counts it (each such state's moves
        under `limit`); where that passes WORK, or the wider run's work passed CHOICE_WORK (the
        narrower run's own back-pointers may then be read, `_paid_choice`), the programme runs."""
        if self.rate or limit >= self.total_cards:
            return None
        wider = None
        for w in self._paid:
            if limit < w < self.total_cards and self._paid_work[w] <= self.choice_work:
                wider = w
                break
        if wider is None:
            return None
        layers, span, work = self._paid[wider], self._span(wider), 0
        for p, i in enumerate(self.order):
            closed = self.substitute and p > 0 and self.faces[i] != self.faces[self.order[p - 1]]
            for key in layers[p]:
                flag: int = key % 4
                kept: int = key // 4 % span
                if kept <= limit and not (closed and flag == _GAVE):
                    work = work + len(self._moves(i, flag, limit - kept))
        if self.paying[0] + work > self.work_limit:
            return None
        self.paying[0] = self.paying[0] + work
        self._paid_work[limit] = work
        got = {}
        for key, entry in layers[-1].items():
            if _complete(key % 4) and key // 4 % span <= limit:
                v = self._paid_value(key, span)
                got[v] = max(got.get(v, 0), entry[0])
        return got

    def _paid_layers_of(self, limit: int) -> list[dict]:
        """What can be paid's layers under `limit` (its programme run now, its work already
        counted, where `_read_off_wider` read its values off a wider one)."""
        got = self._paid.get(limit)
        if got is None:
            got = self._paid[limit] = self._paid_layers(limit, [0])
        return got

    def _paid_limit(self, limit: int) -> int:
        """The hand limit what-can-be-paid's programme runs under (0 with card_treasury: `_final`)."""
        return 0 if self.rate else max(0, limit)

    def _stop(self, what: str) -> None:
        if what not in self.stopped:
            self.stopped.append(what)

    def _whole_sets(self, limit: int) -> list[tuple]:
        """The payments that replace what-can-be-paid's programme where it stopped at its work
        limit: each commodity turned in whole as a set or not at all (then converted with
        card_treasury, else kept), the sets turned in being the first j commodities by the value
        of the whole set, most first, then least first (j = 0 .. all): (value turned in, tokens
        converted, moves) of those that keep at most `limit` cards. Real payments, so every plan
        and payment found with them can be made; they miss the partial sets and substitutes."""
        m = len(self.names)
        worth = [self.values[i][n] for i, n in enumerate(self.counts)]
        by_worth = sorted(range(m), key=lambda i: (-worth[i], self.names[i]))
        out = []
        for order in (by_worth, _reversed(by_worth)):
            for j in range(m + 1):
                given = set(order[:j])
                moves = tuple((n, 0, None, 0) if i in given else (0, n, None, 0) if self.rate else (0, 0, None, n)
                              for i, n in enumerate(self.counts))
                if sum(mv[3] for mv in moves) <= limit:
                    conv = sum(mv[1] * self.rate * self.faces[i] for i, mv in enumerate(moves))
                    out.append((sum(worth[i] for i in given), conv, moves))
        return out

    def levels(self, limit: int) -> list:
        """Sorted card values payable while keeping at most `limit` cards."""
        limit = max(0, limit)
        got = self._levels.get(limit)
        if got is None:
            got = sorted(self._final(limit))
            self._levels[limit] = got
        return got

    def cards_only(self, treasury_value: int, rate: int, substitute: bool) -> "PaymentTable":
        """The same cards with no treasury, at token value `treasury_value` and with these card
        abilities (card_treasury's rate, substitute_card)."""
        return PaymentTable(self.module, dict(zip(self.names, self.counts)), 0, treasury_value, self.state, rate,
                            substitute)

    def budget(self, limit: int):
        """The largest total price payable: cards, the tokens converted cards give, all the treasury."""
        limit = max(0, limit)
        got = self._budgets.get(limit)
        if got is None:
            if limit >= self.total_cards and limit not in self._conv:
                got = self._unbound_most(self.tv) + self.treasury * self.tv
            else:
                got = max(v + (self.treasury + c) * self.tv for v, c in self._final(limit).items())
            self._budgets[limit] = got
        return got

    def most_payable(self):
        """The most the hand and treasury could pay, the hand limit aside (an upper bound of
        `budget` under every limit, cheap where what-can-be-paid's programme is not)."""
        return self._unbound_most(self.tv) + self.treasury * self.tv

    def most_turned_in(self):
        """The largest card value payable where the hand limit does not bind (`levels`' last)."""
        return self._unbound_most(0)

    def _unbound_most(self, token_value):
        """The most the cards pay (value turned in plus converted tokens at `token_value`) where
        the hand limit cannot bind: every move is open, so the most adds up commodity by commodity
        and only the substitution flag is carried (the moves and flags of `_layers`), not every
        value turned in (the same number as `_final`'s largest value plus tokens)."""
        layer = {(0, 0, 0, _NONE): 0}
        for p, i in enumerate(self.order):
            per_card, new = self.rate * self.faces[i] * token_value, {}
            for key, paid in self._open_states(layer, p):
                moves = self._moves(i, key[3], self.total_cards)
                for move in moves:
                    nkey, x = (0, 0, 0, move[4]), paid + move[3] + move[1] * per_card
                    if nkey not in new or x > new[nkey]:
                        new[nkey] = x
            layer = new
        return max(x for key, x in layer.items() if _complete(key[3]))

    def _least_spent(self, price, limit: int):
        """The least that can be handed over for `price` (None if unaffordable): a card value
        alone at or above it, or one below it topped up with treasury."""
        levels = self.levels(limit)
        i = _bisect_left(levels, price)
        if self.rate:
            topped = self._topped_up_converted(price, limit, levels[:i])
        else:
            topped = self._topped_up(price, levels, i)
        return min(levels[i:i + 1] + topped, default=None)

    def _topped_up(self, price, levels: list, i: int) -> list:
        """The least handed over for `price` by card values below it (levels[:i]) topped up with
        whole tokens, never more than needed (empty when the treasury cannot make up any)."""
        j = _bisect_left(levels, price - self.treasury * self.tv)
        if j >= i:
            return []
        if self.tv == 1:
            return [price]
        return [price + min((v - price) % self.tv for v in levels[j:i])]

    def _topped_up_converted(self, price, limit: int, below: list) -> list:
        """What the card values `below` the price hand over topped up with tokens when cards may
        first be turned into tokens (the tokens they give depend on the cards turned in)."""
        conv = self._final(limit)
        paid = []
        for v in below:
            t = self.tokens_for(price, v)
            if t <= self.treasury + conv[v]:
                paid.append(v + t * self.tv)
        return paid

    def tokens_for(self, price, card_value) -> int:
        """Treasury tokens needed on top of `card_value`: exactly enough, never more."""
        short = price - card_value
        return 0 if short <= 0 else -(-short // self.tv)

    def best(self, price, limit: int) -> dict | None:
        """The payment with the least overpayment; then the most value kept (cards and treasury,
        converted tokens included), then the fewest cards turned in, then the fewest of the
        alphabetically first commodities turned in, converted, then substituted."""
        limit = max(0, limit)
        least = self.spent(price, limit)
        if least is None:
            return None
        paid = self._paid_limit(limit)
        if paid in self._whole:  # what can be paid stopped: its whole-set payments are all there is
            return self._payment(price, limit, self._pick(price, least, self._whole[paid], None))
        if self._paid_work[paid] > self.choice_work:
            return self._paid_choice(price, limit, least)
        # no payment needs more converted tokens than the price in tokens less the treasury
        clamp = max(0, self.tokens_for(price, 0) - self.treasury)
        work = [0]
        try:
            layers = self._chosen_layers(limit, price, least, clamp, work)
        except _PaymentStopped:
            return self._paid_choice(price, limit, least)
        return self._payment(price, limit, self._choose(layers, price, least))

    def _paid_choice(self, price, limit: int, least) -> dict:
        """The payment chosen without its own programme (past CHOICE_WORK or WORK): the best, by
        `best`'s order, of what-can-be-paid's own payments (each value turned in with the most
        tokens, along its back-pointers) that hand over exactly `least`. It hands over the least
        there is; it may keep less than the best payment (it converts every card it can)."""
        self._stop(CHOOSING)
        paid = self._paid_limit(limit)
        layers, span = self._paid_layers_of(paid), self._span(paid)
        rows = [(self._paid_value(key, span), entry[0], key) for key, entry in layers[-1].items() if _complete(key % 4)]
        return self._payment(price, limit, self._pick(price, least, rows, layers))

    def _pick(self, price, least, rows: list, layers) -> tuple:
        """Of `rows` (value turned in, tokens converted, moves; or with `layers` a final state of
        them to follow back), the best payment of exactly `least`, as `_choose` ranks it."""
        choice = None
        for value, conv, ref in rows:
            t = self.tokens_for(price, value)
            if t > self.treasury + conv or value + t * self.tv != least:
                continue
            moves = ref if layers is None else self._turned_in(layers, ref)
            wealth = sum(self.values[i][m[3]] for i, m in enumerate(moves)) + conv * self.tv
            rank = (-(wealth + (self.treasury - t) * self.tv), -sum(m[3] for m in moves)) + _tie_break(moves)
            if choice is None or rank < choice[0]:
                choice = (rank, value, t, wealth, moves)
        return choice

    def _payment(self, price, limit: int, choice: tuple) -> dict:
        """The payment of a choice (rank, value turned in, tokens, wealth kept, moves by name), as the
        answer gives it: `cards` and `kept` (commodity -> cards turned in, kept), `treasury` tokens
        turned in worth `treasury_value` each, `converted` (commodity -> cards turned into treasury
        first, `card_treasury`) giving `converted_treasury` tokens, and `substitute` ({"set": X,
        "card": Y}: one Y card completes X's set, `substitute_card`) or None."""
        _, value, t, wealth, moves = choice
        conv = sum(m[1] * self.rate * face for m, face in zip(moves, self.faces))
        roles = {m[2]: n for n, m in zip(self.names, moves) if m[2]}
        left = self._per_commodity(moves, 3)
        return {"price": price, "cards": self._per_commodity(moves, 0), "card_value": number(value), "treasury": t,
                "treasury_value": self.tv, "paid": number(value + t * self.tv),
                "overpayment": number(value + t * self.tv - price), "kept": left,
                "kept_value": number(wealth - conv * self.tv), "kept_cards": sum(left.values()), "hand_limit": limit,
                "treasury_left": self.treasury + conv - t, "converted": self._per_commodity(moves, 1),
                "converted_treasury": conv,
                "substitute": {"set": roles["set"], "card": roles["donor"]} if roles else None}

    def _chosen_layers(self, limit: int, price, least, clamp, work: list) -> list[dict]:
        """The chosen payment's layers (`_layers` with `keep`), restricted to the states that can
        still lead to the payment `_choose` picks, found in the same order as the whole programme
        finds them, so with the same back-pointers.

        A payment handing over exactly `least` keeps wealth + treasury - tokens paid, and the tokens
        paid are (least - value turned in) / token value, so payments rank first by wealth kept plus
        value turned in. Given a floor of that sum, a state whose wealth and value so far plus the
        most every later commodity can add (`_gains`) fall short of it is dropped. The states kept
        are the whole programme's states that can reach the floor, with the same entries: an entry
        a dropped state would have made in a kept state's key is strictly below it. So if the best
        payment reaches the floor, it is among the final states kept, with the same back-pointers;
        if no final state pays, it does not, and a lower floor is tried (`_floors`: from the most
        any payment could keep down to what one payment found by a narrow pass keeps, `_floor`);
        where none is found the whole programme runs. What a dropped state would have changed is the order the next
        commodity meets the states in (between equal entries of one key the first found wins): a
        layer of the whole programme lists its groups (value turned in, cards kept, flag) in the
        order the previous layer's first state of each group first reaches them, then each group's
        states by most tokens first (`_pareto`); every state of a group has the same moves, so that
        order follows from the groups alone, which `_group_order` computes without entries, and
        the kept states are put in it."""
        if self._floors_pay(limit, least):
            gains, groups = self._gains(work), None
            for floor in self._floors(gains[0][_NONE], lambda: self._floor(limit, price, least, clamp, work)):
                groups = groups or self._group_order(limit, least, limit < self.total_cards, work)
                layers = self._layers(limit, least, clamp, work, floor, gains, groups)
                if any(self._tokens_paying(key, price, least) is not None for key in layers[-1]):
                    return layers
        return self._layers(limit, least, clamp, work)

    def _floors_pay(self, limit: int, least) -> bool:
        """Whether the floors are worth trying: with converted tokens in the key (many states per
        group), or without them where the groups are many (below that the floors' passes cost
        more than the whole programme); and only with whole-number set values (group codes)."""
        groups = (least + 1) * (limit + 1 if limit < self.total_cards else 1)
        whole = all(isinstance(x, int) for row in self.values for x in row) and isinstance(least, int)
        return whole and (self.rate > 0 or groups >= self.small_programme)

    @staticmethod
    def _floors(most, found) -> Iterable:
        """The floors `_chosen_layers` tries: `most` (no loss at all); then the sum of a payment
        `found()` finds, which cannot fail; where it finds none, lower than `most` by 1, 3, 7, ...
        (a run keeps few states while its floor is near the best payment) down to half of it."""
        yield most
        low, gap = found(), 1
        if low is not None:
            if low < most:
                yield low
            return
        while gap <= most / 2:
            yield most - gap
            gap = gap * 2 + 1

    def _gains(self, work: list) -> list[dict]:
        """Per position p of `order` and substitution flag: the most wealth kept plus value turned
        in that the commodities from p on can add to a state with that flag (-inf where none
        completes the substitution), the hand limit and the price left aside."""
        flags = (_NONE, _OWE, _GAVE, _DONE)
        after = {flag: 0 if _complete(flag) else -math.inf for flag in flags}
        suffix = [after]
        for p in range(len(self.order) - 1, -1, -1):
            i = self.order[p]
            worth, per_card = self.values[i], self.rate * self.faces[i] * self.tv
            work[0] += 4 * len(self._all_moves(i, _NONE))
            here = {flag: max((m[3] + worth[m[5]] + m[1] * per_card + after[m[4]] for m in self._all_moves(i, flag)),
                              default=-math.inf) for flag in flags}
            if self.substitute and p and self.faces[i] != self.faces[self.order[p - 1]]:
                here[_GAVE] = -math.inf  # a donor given at a lower face finds no set (`_open_states`)
            suffix.append(here)
            after = here
        return _reversed(suffix)

    def _floor(self, limit: int, price, least, clamp, work: list, width: int = 48):
        """Wealth kept plus value turned in of one payment handing over exactly `least`, found by
        the chosen payment's programme keeping only the `width` states of most wealth and value
        per layer; None when that finds none (the chosen payment then runs in full)."""
        binds = limit < self.total_cards
        layer = {(0, 0, 0, _NONE): (0, 0, None, None)}
        for p, i in enumerate(self.order):
            new = self._kept_layer(layer, p, i, limit, binds, least, clamp, work)
            self._check(work)
            # heapq.nlargest's order: the most first, the first found between equals
            layer = dict(sorted(new.items(), key=lambda item: item[1][0] + item[0][0], reverse=True)[:width])
        return max((entry[0] + key[0] for key, entry in layer.items()
                    if self._tokens_paying(key, price, least) is not None), default=None)

    def _group_order(self, limit: int, cap, binds: bool, work: list) -> list[dict]:
        """Per layer of the chosen payment's programme: its groups (value turned in, cards kept,
        flag; coded as one number) -> their place in the order the whole programme meets them.
        A group first appears where the previous layer's earliest group first reaches it (its
        first state makes every move of the group: moves depend on the flag and the room left),
        so a layer's order is that of the previous layer's groups, then of the moves."""
        span = limit + 1 if binds else 1
        top = (cap * span + span - 1) * 4 + 3
        codes = [0]
        orders = [{0: 0}]
        for p, i in enumerate(self.order):
            steps = [self._group_steps(i, flag, limit - kc if binds else limit, span if binds else 0)
                     for kc in range(span) for flag in (_NONE, _OWE, _GAVE, _DONE)]
            if self.substitute and p and self.faces[i] != self.faces[self.order[p - 1]]:
                codes = [g for g in codes if g % 4 != _GAVE]
            # a group this far below the top cannot step past the cap: its moves need no test
            safe, width = top - max(max(s, default=0) for s in steps), span * 4
            work[0] = work[0] + len(codes) * max(len(s) for s in steps)  # at most this many moves of groups
            self._check(work)
            met: dict = {}  # each code where first met
            for g in codes:
                for d in steps[g % width]:
                    if (g <= safe or g + d <= top) and g + d not in met:
                        met[g + d] = len(met)
            codes = list(met)
            orders.append(met)
        return orders

    def _group_steps(self, i: int, flag, room: int, span: int) -> list:
        """The moves of commodity i from a group with flag `flag` and `room` cards of room, as
        what they add to the group's code, in move order (a repeated one only where first met)."""
        steps: dict = {}
        for m in self._moves(i, flag, room):
            steps[(m[3] * (span or 1) + (m[5] if span else 0)) * 4 + m[4] - flag] = True
        return list(steps)

    def _per_commodity(self, moves: tuple, part: int) -> dict:
        """Commodity -> one part of its move (cards turned in, converted or kept), where not 0."""
        return {n: m[part] for n, m in zip(self.names, moves) if m[part]}

    def _choose(self, layers: list[dict], price, least) -> tuple:
        """Among the final states that pay `least` exactly: (rank, value turned in, tokens,
        wealth kept, moves in the names' order) of the best by the order `best` documents."""
        choice = None
        for key, (wealth, held, _, _) in layers[-1].items():
            t = self._tokens_paying(key, price, least)
            if t is None:
                continue
            rank = (-(wealth + (self.treasury - t) * self.tv), -held)
            if choice is not None and rank > choice[0][:2]:
                continue
            moves = self._turned_in(layers, key)
            rank = rank + _tie_break(moves)
            if choice is None or rank < choice[0]:
                choice = (rank, key[0], t, wealth, moves)
        return choice

    def _tokens_paying(self, key: tuple, price, least) -> int | None:
        """The tokens with which the final state `key` pays exactly `least` for `price` (None: it
        cannot, or it leaves a substitution unmatched)."""
        value, conv, _, flag = key
        t = self.tokens_for(price, value)
        if not _complete(flag) or t > self.treasury + conv or value + t * self.tv != least:
            return None
        return t

    def _turned_in(self, layers: list[dict], key) -> tuple:
        """Follow the back-pointers from a final state: each commodity's move (cards turned in,
        cards converted, substitution role, cards kept), in the names' (alphabetical) order."""
        moves: list = [None for _ in self.names]
        for p in range(len(self.order) - 1, -1, -1):
            entry = layers[p + 1][key]
            key, move = entry[2], entry[3]
            moves[self.order[p]] = (move[0], move[1], move[2], move[5])
        return tuple(moves)


def _bisect_left(values: list, x) -> int:
    """Where x goes in the sorted `values`, before any equal to it (bisect.bisect_left)."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _reversed(values: list) -> list:
    """The list in the opposite order."""
    return [values[j] for j in range(len(values) - 1, -1, -1)]


def _tie_break(moves: tuple) -> tuple:
    """Between equally good payments: the fewest of the alphabetically first commodities turned
    in, then converted, then substituted."""
    return (tuple(m[0] for m in moves), tuple(m[1] for m in moves), tuple(m[2] or "" for m in moves))
