"""The two-turn look-ahead of the purchase planner (`civdsl plan --horizon 2`): the best pair of
purchases over this turn and the next, the hand and treasury assumed to be the same next turn.

It works on a purchase.PurchaseProblem it is given (this turn's) and the ones `purchase.after`
makes of it for next turn; answer.py calls it. Method and bound: docs/planner.md, "Two turns".
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..pricing import ability, prices
from ..unknown import number
from .payment import PAYING
from .purchase import after, choice, with_want
from .search import stopped_bound


_ASSUMES = ("next turn's commodity cards and treasury are the same as now, and credit points of "
            "free choice (free_credits) are not allocated")


class _SearchStopped(Exception):
    """The look-ahead examined its limit of turn-one sets."""


def two_turns(first: "PurchaseProblem", max_sets: int = 3000, one: list | None = None) -> dict:
    """The best pair of purchases over this turn and the next, the hand and treasury assumed
    to be the same next turn: an estimate. This turn's advances credit next turn's prices and
    bring their prerequisites, treasury value and hand-limit abilities.

    Exact under that assumption unless it examines more than `max_sets` sets of this turn's
    advances (dense mid-game states with many cheap advances): then it reports the best pair
    found so far, with complete = False. The turn-one sets are walked as the one-turn search
    walks them; a branch is cut when what it can still reach over both turns cannot beat the
    best pair found (next turn an advance's price falls at most by the credits this turn's
    purchases give it: each new card's best group credit towards it plus its specific credit,
    true of both credit policies). Only sets that survive are priced for the next turn, with
    pricing.prices and the one-turn search. `one`: this turn's best set, when the caller has
    searched for it already (the work limit of the strict single-use variant is then not spent
    twice); a search that stopped before it found any set leaves no pair, said so."""
    return _TwoTurns(first, max_sets).run(one)


def _row(objective, price) -> tuple:
    """A knapsack row of the bounds: (objective per price, objective, price), free rows first."""
    return (objective / price if price else float("inf"), objective, price)


class _TwoTurns:
    """The two-turn look-ahead's search (see two_turns): its bounds and its walk."""

    def __init__(self, first: "PurchaseProblem", max_sets: int):
        self.first, self.max_sets = first, max_sets
        # the sets of advances examined over both turns: the walk's, and those of next turn's
        # searches (each at least 1), against first.horizon_work
        self.work = 0
        module, obj = first.module, first.objective
        self.module, self.obj = module, obj
        self.payments: dict = {}
        unheld, price1 = self._prices_now()
        worth = [n for n in unheld if obj.values[n] > 0]
        self.worth = worth
        self.give_row = {h: [self._gives(h, i) for i in worth] for h in first.candidates}
        self.whole = all(isinstance(obj.values[n], int) for n in worth)
        self.tv_of = {h: self._treasury_value(h) for h in first.candidates}
        self.card_value = self._card_value()
        self.ratio_obj = [obj.values[i] for i in worth]
        self.floor_price = [price1[i] - self._reduction(i, unheld, price1) for i in worth]
        self.best: Any = None
        self.examined = [0, 0]  # turn-one sets bounded, priced for next turn
        # sets of next turn's problems priced by a capped placement (single_use): none, or no bound is proven
        self.capped = 0
        # next turn's searches stopped at the work limit the answer shares (single_use_work): their
        # best is not proven either
        self.next_stopped = 0

    def _treasury_value(self, h: str):
        """What a treasury token is worth once h is held (0: h has no treasury_value ability)."""
        return max([a["value"] for a in ability(self.module, h, "treasury_value")] or [0])

    def _prices_now(self) -> tuple[list, dict]:
        """The advances not held that may be bought this turn or next, and this turn's price of
        each (those a prerequisite locks too)."""
        first, module = self.first, self.module
        unheld = [n for n in module.ADVANCES if self._for_sale(n)]
        price1 = {n: first.base[n] for n in unheld if n in first.base}
        for n in [n for n in unheld if n not in price1]:
            price1[n] = max(0, prices(module, first.holds, [n], first.extra)["items"][0]["price"])
        return unheld, price1

    def _for_sale(self, name: str) -> bool:
        """Whether an advance may be bought this turn or next: not held, its cost known, not
        avoided, among the given ones."""
        options = self.first.options
        if name in self.first.held or name in options["avoid"] or self.module.ADVANCES[name]["cost"] is None:
            return False
        return options["among"] is None or name in options["among"]

    def _gives(self, h: str, i: str):
        """The most credit a turn-one advance h can give a next-turn advance i: its best group
        credit towards i plus its own credit to i."""
        advances = self.module.ADVANCES
        best = max([advances[h]["credits"].get(g, 0) for g in advances[i]["groups"]] or [0])
        return best + self._specific(h, i)

    def _specific(self, h: str, i: str):
        """A turn-one advance h's own credit to a next-turn advance i: its specific credit, and all
        of i's cost where h's acquire_all covers i (held, h makes i free: pricing.prices)."""
        advances = self.module.ADVANCES
        acquires = h != i and any(a["group"] in advances[i]["groups"] and advances[i]["cost"] < a["cost_below"]
                                  for a in ability(self.module, h, "acquire_all"))
        return advances[h]["specific"].get(i, 0) + (advances[i]["cost"] if acquires else 0)

    def _reduction(self, n: str, unheld: list, price1: dict):
        """The most an advance's own same-turn abilities take off next turn's other purchases: a
        discount its amount, a free advance the dearest eligible price, acquiring every eligible
        advance (acquire_all, the Expansion's Anatomy) all their prices."""
        advances = self.module.ADVANCES

        def eligible(a) -> list:
            return [price1[c] for c in unheld if c != n and a["group"] in advances[c]["groups"]
                    and advances[c]["cost"] < a["cost_below"]]

        r = sum(a["amount"] for a in ability(self.module, n, "discount"))
        r = r + sum(max(eligible(a), default=0) for a in ability(self.module, n, "free_advance"))
        return r + sum(sum(eligible(a)) for a in ability(self.module, n, "acquire_all"))

    def _card_value(self):
        """The most the cards can pay next turn (a turn-one purchase may bring card_treasury,
        Trade Routes, or substitute_card, Trade Empire: then the bound counts both, converted
        tokens at the best token value either turn may have)."""
        first, module = self.first, self.module
        card_value = first.payments.most_turned_in()
        either = list(first.holds) + list(first.candidates)
        rate = max([a["rate"] for h in either for a in ability(module, h, "card_treasury")] or [0])
        substitute = any(ability(module, h, "substitute_card") for h in either)
        if rate or substitute:
            tv_max = max([first.treasury_value] + list(self.tv_of.values()))
            wide = first.payments.cards_only(tv_max, rate, substitute)
            card_value = max(card_value, wide.budget(wide.total_cards))
        return card_value

    # -- bounds of next turn ---------------------------------------------------------------

    def quick_rows(self, credit: list, excluded, tv):
        """Next turn's advances worth something (but `excluded`), by objective per least possible
        price given at most `credit` more credit each, and next turn's budget (all cards, all
        treasury at token value `tv`, widened by negative prices)."""
        room = self.card_value + self.first.treasury * tv
        rows = []
        for k, name in enumerate(self.worth):
            if name not in excluded:
                p = self.floor_price[k] - credit[k]
                room = room + max(0, -p)
                rows.append(_row(self.ratio_obj[k], max(0, p)))
        rows.sort(key=lambda r: r[0], reverse=True)
        return rows, room

    def quick_bound(self, rows, room):
        """At most what next turn can add: the fractional knapsack of `rows` within `room`."""
        total = 0
        for _, v, p in rows:
            if p > room:
                # the part of it that fits (rounded down for whole-number objectives)
                part = Fraction(v) * room / p
                total = total + (math.floor(part) if self.whole else part)
                break
            total = total + v
            room = room - p
        return total

    def least_price(self, rows, need):
        """At least the price next turn must pay to add `need` objective (fractional, rounded down)."""
        cost = 0
        for _, v, p in rows:
            if need <= 0:
                break
            if v >= need:
                part = Fraction(p) * need / v
                return cost + (math.floor(part) if self.whole else part)
            cost = cost + p
            need = need - v
        return cost if need <= 0 else None

    # -- pairs -------------------------------------------------------------------------------

    def evaluate(self, c1) -> None:
        """Price a turn-one set for next turn and keep the pair if it is the best so far."""
        self.examined[1] = self.examined[1] + 1
        p2 = after(self.first, c1.buys, self.payments)
        got = p2.search(1)
        self.work = self.work + max(1, p2.visited)
        self.capped = self.capped + len(p2.capped_least)
        self.next_stopped = self.next_stopped + (1 if p2.stopped else 0)
        if not got:
            return
        c2 = got[0]
        key = (c1.objective + c2.objective, -(c1.spent + c2.spent), c1.credit + c2.credit, len(c1.buys), c1.key[4])
        if self.best is None or key > self.best[0]:
            self.best = (key, c1, c2, p2)

    def visit(self, names, sumb, same, hdelta, objective, credit, tv):
        """A turn-one set reached by the walk: priced for next turn unless its bound over both
        turns (with the tie bound: a set that can at best tie must not already spend more)
        cannot beat the best pair."""
        pp = self.pp
        self.examined[0] = self.examined[0] + 1
        self.work = self.work + 1
        if self.examined[0] > self.max_sets or self.work > self.first.horizon_work:
            raise _SearchStopped("the look-ahead's work limit")
        if pp.single_use and pp.work[0] > pp.single_use_work:
            raise _SearchStopped("the answer's work limit")  # the work limit every search of the answer shares
        got = pp._price_and_spent(names, sumb, same, hdelta)
        if got is None:
            return
        price, spent, limit = got
        buys = tuple(sorted(names, key=lambda n: pp.order[n]))
        if buys == self.one[0].buys:
            return
        rows, room = self.quick_rows(credit, set(names), tv)
        if not self.beaten(objective + self.quick_bound(rows, room), objective, spent, rows):
            self.evaluate(choice(pp, names, price, spent, limit))

    def _prepare_walk(self) -> None:
        """Per position of the walk: the credit and treasury value every later advance can
        bring (_suffixes), and per group the advances that give credit in it (_group_orders)."""
        self._suffixes()
        self._group_orders()

    def _suffixes(self) -> None:
        """Per position j of the walk, over the advances from j on: the credit each gives every
        next-turn advance, the best treasury value, and their own (specific) credits."""
        items, worth = self.pp.items, self.worth
        n_items, width = len(items), len(worth)
        self.position = {n: j for j, n in enumerate(items)}
        self.suffix_credit = [[0] * width for _ in range(n_items + 1)]
        self.suffix_tv = [0] * (n_items + 1)
        self.specific_suffix = [[0] * width for _ in range(n_items + 1)]
        for j in range(n_items - 1, -1, -1):
            self.suffix_credit[j] = [x + y for x, y in zip(self.suffix_credit[j + 1], self.give_row[items[j]])]
            self.suffix_tv[j] = max(self.suffix_tv[j + 1], self.tv_of[items[j]])
            self.specific_suffix[j] = [x + self._specific(items[j], i)
                                       for x, i in zip(self.specific_suffix[j + 1], worth)]

    def _group_orders(self) -> None:
        """Per group, the advances of the walk that give credit in it, by credit per effective
        price (free ones first), for group_gain."""
        items, advances = self.pp.items, self.module.ADVANCES
        # The credit this turn's remaining purchases can add towards one advance is at most the
        # group credits they can add in its groups (each group: a fractional knapsack of credit
        # per effective price within this turn's budget) plus the specific credits they carry to it.
        self.groups = list(self.module.GROUPS)
        self.weight = [max(0, x) for x in self.pp.e]
        self.group_credit = {g: [advances[n]["credits"].get(g, 0) for n in items] for g in self.groups}
        self.group_order = {}
        for g in self.groups:
            credit = self.group_credit[g]
            ranked = [j for j in range(len(items)) if credit[j] > 0]
            ranked.sort(key=lambda j: (1, -credit[j] / self.weight[j]) if self.weight[j] else (0, 0))
            self.group_order[g] = ranked
        self.worth_groups = [advances[i]["groups"] for i in self.worth]

    def group_gain(self, g, j, cap):
        total = 0
        for at in self.group_order[g]:
            if at < j:
                continue
            w, c = self.weight[at], self.group_credit[g][at]
            if w <= cap:
                total = total + c
                cap = cap - w
            else:
                return total + (c * cap) // w + 1  # the part that fits, rounded up
        return total

    def _branch_credit(self, j, cap1, credit) -> list:
        """At most the credit towards each next-turn advance of a set that may still add advances
        from position j on within `cap1`: what it has, plus the lesser of what every later
        advance gives and the groups' gains (a fractional knapsack each) with the specific credits."""
        gain = {g: self.group_gain(g, j, cap1) for g in self.groups}
        return [x + min(y, sum(gain[g] for g in gs) + z) for x, y, z, gs
                in zip(credit, self.suffix_credit[j], self.specific_suffix[j], self.worth_groups)]

    def _pair_rows(self, j, credit, names) -> tuple[list, list, Any]:
        """The rows of the advances worth something not in `names`: at next turn's least price,
        and at the lesser of that and this turn's effective price where position j on may still
        buy it; and how much room the prices below 0 add."""
        rows, rows2, widen = [], [], 0
        for k, n in enumerate(self.worth):
            if n in names:
                continue
            p = self.floor_price[k] - credit[k]
            widen = widen + max(0, -p)
            p = max(0, p)
            rows2.append(_row(self.ratio_obj[k], p))
            at = self.position.get(n, -1)
            rows.append(_row(self.ratio_obj[k], min(p, max(0, self.pp.e[at])) if at >= j else p))
        rows.sort(key=lambda r: r[0], reverse=True)
        rows2.sort(key=lambda r: r[0], reverse=True)
        return rows, rows2, widen

    def pair_bound(self, j, cap1, credit, tv, names):
        """At most what the rest of a pair can add when advances from position j on may still be
        bought this turn (and the rows the tie bound reads). The lesser of two bounds: this
        turn's fractional knapsack plus next turn's (at next turn's least prices); and one
        fractional knapsack over both turns' budgets together in which each advance counts once,
        at the lesser of its two prices."""
        rows, rows2, widen = self._pair_rows(j, self._branch_credit(j, cap1, credit), names)
        room2 = self.card_value + self.first.treasury * max(tv, self.suffix_tv[j]) + widen
        both = self.quick_bound(rows, cap1 + room2)
        return min(both, self.pp._ratio_bound(j, cap1) + self.quick_bound(rows2, room2)), rows

    def beaten(self, bound, objective, spent, rows) -> bool:
        """Whether a branch whose pairs reach at most `bound` and already spend at least `spent`
        cannot beat the best pair: below its objective, or equal to it while the least price of
        the objective still missing (`rows`: each advance at its least price over what is left of
        both turns) already makes both turns hand over more."""
        total, neg_spent = self.best[0][0], self.best[0][1]
        if bound != total:
            return bound < total
        least = self.least_price(rows, total - objective)
        return least is None or spent + least > -neg_spent

    def dfs(self, q, sumb, sume, objective, hch, same, credit, tv):
        """Depth-first over turn-one sets, as the one-turn search walks them. A branch is cut
        when its turn-one bound plus a bound of next turn (credit from the set so far and from
        every advance the branch could still add, the best treasury value among them) cannot
        reach the best pair found."""
        pp, names = self.pp, self.names
        if pp.max_new is not None and len(names) >= pp.max_new:
            return
        self.open.append(None)
        for j in range(q, len(pp.items)):
            ne = sume + pp.e[j]
            if ne - pp.neg_suf[j + 1] > pp.budget_max:
                continue
            lbp = sume - pp.neg_suf[j]
            if lbp > pp.budget_max:
                break
            bound, rows = self.pair_bound(j, pp.budget_max - lbp, credit, tv, names)
            if self.beaten(objective + bound, objective, lbp, rows):
                break  # the bound only falls (and the least price only rises) as j grows
            self.open[-1] = objective + bound  # bounds this branch and every later one of this level
            name = pp.items[j]
            names.append(name)
            ncredit = [x + y for x, y in zip(credit, self.give_row[name])]
            ntv = max(tv, self.tv_of[name])
            nsame = same or name in pp.same_turn
            self.visit(names, sumb + pp.b[j], nsame, hch + pp.hd[j], objective + pp.o[j], ncredit, ntv)
            self.dfs(j + 1, sumb + pp.b[j], ne, objective + pp.o[j], hch + pp.hd[j], nsame, ncredit, ntv)
            names.pop()
        self.open.pop()

    def run(self, one: list | None = None) -> dict:
        first = self.first
        self.one = one[:1] if one else first.search(1)
        if not self.one:
            return self._no_pair()
        self.evaluate(self.one[0])
        free_now = self._free_now()
        self.pp = with_want(first, free_now) if free_now else first
        self._prepare_walk()
        complete = self._walk()
        return self._answer(complete) if self.best is not None else self._no_pair()

    def _no_pair(self) -> dict:
        """The searches stopped at their work limit (strict single-use credits) before they priced
        any pair: no estimate, and nothing proven about the best one."""
        one = self.one
        return {
            "estimate": True, "assumes": _ASSUMES, "this_turn": None, "next_turn": None, "total": None,
            "total_at_most": None, "one_turn_best": list(one[0].buys) if one else None,
            "one_turn_best_objective": number(one[0].objective) if one else None,
            "complete": False, "stopped": True, "prices_capped": self.capped + len(self.first.capped_least),
            "payment_stopped": self._payment_stopped(),
            "next_turn_stopped": self.next_stopped, "turn_one_sets": self.examined[0] + (1 if one else 0),
            "turn_one_sets_priced_for_next_turn": self.examined[1],
        }

    def _payment_stopped(self) -> list:
        """What the payment tables of both turns stopped at their work limit (planner.PAYING,
        planner.CHOOSING), each once, in the order met."""
        stops: list = []
        for table in [self.first.payments] + list(self.payments.values()):
            stops.extend([s for s in table.stopped if s not in stops])
        return stops

    def _free_now(self) -> list:
        """The advances best bought now: free this turn (price 0 after credits), worth something
        or nothing, without a same-turn ability or a hand-limit cut. Next turn each is still free,
        its credits come a turn earlier, and more advances now ranks first among equals; without a
        card limit every turn-one set worth examining includes all of them."""
        first = self.first
        if first.max_new is not None:
            return []
        return [n for n, hd in zip(first.items, first.hd)
                if first.base[n] == 0 and self.obj.values[n] >= 0 and n not in first.same_turn and hd >= 0]

    def _walk(self) -> bool:
        """Walk the turn-one sets from the wanted ones; False if the limit of sets stopped it."""
        pp = self.pp
        self.names = list(pp.want)
        w_b, w_e, w_o, _, w_h, w_same = pp.start
        credit0 = [sum(self.give_row[w][k] for w in pp.want) for k in range(len(self.worth))]
        tv0 = max([self.first.treasury_value] + [self.tv_of[w] for w in pp.want])
        self.open: list = []  # per level of the walk, the bound of the branch it is in
        try:
            self.visit(self.names, w_b, w_same, w_h, w_o, credit0, tv0)
            self.dfs(0, w_b, w_e, w_o, w_h, w_same, credit0, tv0)
        except _SearchStopped:
            self.examined[0] = self.examined[0] - 1
            return False
        return True

    def _at_most(self, total, complete: bool):
        """What no pair gives more than: the total found, or, stopped, the bound of the branch
        each level of the walk was in (each covers every later branch of its level), rounded up
        to a whole number so that both engines print it alike."""
        return total if complete else stopped_bound(total, self.open)

    def _answer(self, complete: bool) -> dict:
        first, one = self.first, self.one
        _, c1, c2, p2 = self.best
        total = c1.objective + c2.objective
        # a set priced by a capped placement may cost less than the walk took it to: no pair's
        # total is proven out of reach, so the answer is the best pair found, with no bound
        capped = self.capped + len(first.capped_least)
        unproven = capped + self.next_stopped
        at_most = self._at_most(total, complete) if not unproven else None
        this_turn, next_turn = first.plan_dict(c1), p2.plan_dict(c2)
        # a payment table stopped at its work limit: a payment that may keep less leaves the least
        # handed over, and so the walk's bound, proven; payments of whole sets leave budgets that
        # may be short, so the walk's bounds prove nothing
        stops = self._payment_stopped()
        if PAYING in stops:
            at_most = None
        return {
            "estimate": True,
            "assumes": _ASSUMES,
            "this_turn": this_turn,
            "next_turn": next_turn,
            "total": number(total),
            "total_at_most": number(at_most) if at_most is not None else None,
            "one_turn_best": list(one[0].buys),
            "one_turn_best_objective": number(one[0].objective),
            "complete": complete and not unproven and not stops,
            "stopped": not complete or self.next_stopped > 0,
            "payment_stopped": stops,
            "prices_capped": capped,
            "next_turn_stopped": self.next_stopped,
            "turn_one_sets": self.examined[0] + 1,
            "turn_one_sets_priced_for_next_turn": self.examined[1],
        }
