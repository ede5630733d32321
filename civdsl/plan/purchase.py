"""The purchase planner: which advances to buy this turn, and how to pay for them.

`civdsl plan` searches every set of advances a player may buy this turn for the one that
maximises an objective (victory points by default), prices it with the rulebook's own credit
engine (`pricing.prices`, so credits, one-time discounts and free advances are the rulebook's,
never re-derived here) and works out the payment: which commodity cards and how many treasury
tokens to turn in so that the overpayment is as small as the rules allow. `civdsl hand` values
a hand of commodity cards.

Rules the planner applies, and where they come from:
- prices: `pricing.prices` under the rulebook's declared credit policy; credits only from
  advances held before this turn; one copy of each advance; advances of `cost unknown` are
  never bought (they are listed as such);
- prerequisites (`requires`) must be held before this turn (1981 22.3.15 "Law must be acquired
  before either Democracy or Philosophy", and all cards of a turn are bought together, 17.10);
- a card limit, where the rulebook declares `const card_limit` (1981 17.7: at most 11);
- payment: a commodity pays `set_value(k, face)` for the k cards of it turned in (17.4.3: sets
  of different commodities never combine); treasury pays `treasury_value` per token (Mining);
  treasury may not be spent beyond what is needed (1981 17.8, Mega Civilization phase 12):
  with tokens worth 2 the price may be exceeded by at most 1; no change is given (17.9);
- the hand limit applies after the phase (Mega Civilization phase 12, Expansion 32.71), so a
  payment sometimes turns in more cards than the price needs. The limit is the rulebook's
  `hand_limit_by_players(players)` table or `hand_limit` const, plus the `hand_limit`
  abilities of the advances held once the purchase is made (their effects start as soon as
  the transaction completes, phase 12).

The search is exact. A depth-first branch and bound over the candidate advances, visited in
order of objective per effective price (price after credits less the most its own same-turn
ability could take off the others), answers most states after a few dozen sets; it stops after
`PurchaseProblem.bb_cap` sets and hands over to the dynamic programme over price of
plan.search, which never enumerates sets (its bound: docs/planner.md). The payment table is a
dynamic programme over commodities with back-pointers, bounded by the hand limit. The plans
reported are priced again by pricing.prices.
"""

from __future__ import annotations

import functools
from typing import Any, Iterable

from ..errors import StateError
from ..pricing import item_prices, prices, purchase_total, sold_out, treasury_value
from ..pystd.heaps import heappush, heapreplace
from ..runtime import PlayerState, lookup
from ..statecheck import canonical_names
from ..unknown import number
from .payment import PaymentTable
from .search import Candidate, SameTurnMachine, search, stopped_bound

SAME_TURN_ABILITIES = ("discount", "free_advance", "acquire_all")


# --- the rulebook's limits ------------------------------------------------------------------

def base_hand_limit(module, facts: dict, override: int | None = None) -> tuple[int, str]:
    """The hand limit before advances' abilities, and where it comes from."""
    if override is not None:
        return int(override), "--hand-limit"
    table = module.TABLES.get("hand_limit_by_players")
    if table is not None and "players" in facts:
        return int(lookup(table, facts["players"])), f"the rulebook's limit for {facts['players']} players"
    if "hand_limit" in module.CONSTS:
        return int(module.CONSTS["hand_limit"]), "the rulebook's limit"
    if table is not None:
        raise StateError("the hand limit depends on the number of players: give the number of players, "
                         "or the hand limit itself")
    raise StateError(f"{module.EDITION['name']} declares no hand limit (const hand_limit or table "
                     "hand_limit_by_players): pass --hand-limit N")


def advance_infos(module) -> dict:
    """Per-advance facts the search reads often: each worked out once per answer when first read
    (a problem hands them to the problems it makes)."""
    return _AdvanceInfos(module)


class _AdvanceInfos(dict):
    """Advance -> `_advance_info`, made when first read (plan.question keeps a rulebook's
    between questions; the answers of one read the advances held and the candidates)."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def __missing__(self, name):
        got = self[name] = _advance_info(self.module.ADVANCES[name])
        return got


def _advance_info(adv: dict) -> dict:
    """One advance's abilities by kind, hand-limit change, free credit points and group credits."""
    if not adv["abilities"]:  # most advances carry none
        return {"abilities": {}, "hand_delta": 0, "free_credits": 0, "group_credit": sum(adv["credits"].values()),
                "same_turn": False}
    by_kind: dict[str, list] = {}
    for kind, args in adv["abilities"]:
        by_kind.setdefault(kind, []).append(args)
    return {
        "abilities": by_kind,
        "hand_delta": sum(a["delta"] for a in by_kind.get("hand_limit", ())),
        "free_credits": sum(a["amount"] for a in by_kind.get("free_credits", ())),
        "group_credit": sum(adv["credits"].values()),
        "same_turn": any(by_kind.get(k) for k in SAME_TURN_ABILITIES),
    }


def _abilities(info: dict, name: str, kind: str) -> list[dict]:
    return info[name]["abilities"].get(kind, [])


def _hand_delta(info: dict, name: str) -> int:
    return info[name]["hand_delta"]


# --- the purchase problem -------------------------------------------------------------------

def _ratio_terms(value, eff, place: int) -> tuple:
    """What `_by_ratio` compares of one advance: its class, objective, effective price (not below
    0) and rulebook place (worked out once per advance, not once per comparison)."""
    price = max(0, eff)
    return (_ratio_class(value, price), value, price, place)


def _by_ratio(terms: dict, x: str, y: str) -> int:
    """The branch and bound's order: objective per effective price, highest first (exact:
    cross-multiplied); free ones first, those worth nothing last; rulebook order between equals."""
    cx, vx, bx, px = terms[x]
    cy, vy, by, py = terms[y]
    if cx != cy:
        return cx - cy
    if cx == 1 and vx * by != vy * bx:
        return -1 if vx * by > vy * bx else 1
    return px - py


def _ratio_class(value, price) -> int:
    """0: free and worth something, 1: worth something for a price, 2: worth nothing."""
    if value <= 0:
        return 2
    return 0 if price == 0 else 1


class _SearchStopped(Exception):
    """The capped branch and bound visited its limit of sets."""


class PricesDisagree(Exception):
    """A planner bug: the search priced a set otherwise than pricing.prices does."""


class Choice:
    """A set of advances the search kept, with its ranking key (larger is better)."""

    def __init__(self, key: tuple, buys: tuple, price, spent, objective, credit, hand_limit: int):
        self.key = key
        self.buys = buys  # names, in rulebook order
        self.price = price
        self.spent = spent
        self.objective = objective
        self.credit = credit
        self.hand_limit = hand_limit


class PurchaseProblem:
    """One player's purchase this turn: candidates, their prices, the budget and the payment."""

    # Sets the branch and bound may visit before the search hands over to the dynamic programme
    # (0: always the dynamic programme). Most states finish in a few dozen.
    bb_cap = 3000
    # Sets the branch and bound may examine under the strict single-use credit variant, where it
    # is the whole search: past it the plan is the best found so far, with complete = False and
    # the most any set left unexamined could reach (the two-turn look-ahead's contract).
    single_use_cap = 3000
    # ... and the states its credit placements (pricing.prices) may make in all: pricing one set is
    # itself a search there, so the number of sets alone bounds neither time nor memory
    single_use_work = 120_000
    # Sets of advances the two-turn look-ahead may examine over both turns (its walk's, and those
    # each next-turn search examines): past it, the best pair found and the bound of what is left
    horizon_work = 2000
    # Sets of advances --explain's searches (one per advance left out that no listed plan includes,
    # each a branch and bound) may examine in all: past it the advances still to explain say so
    explain_cap = 4000
    # ... and the dynamic programmes over price (each exact and bounded as plan.search says) it may
    # run where such a branch and bound stops short: one per advance, in candidate order, up to this
    # many; the advances past them say that the limit stopped them
    explain_programmes = 4
    # ... and the cells (state and price, every layer's) those programmes may hold in all: a
    # programme that passes it stops, and its advance and those after it are not worked out
    explain_cells = 70_000
    # ... and the cells (advances x price units of the budget) of the one whole-advance knapsack
    # table its bounds read (`bound_with`); past it they read the fractional bound alone
    explain_knapsack = 200_000
    # ... and the points (price, objective) the forward and backward programmes that find, for every
    # advance left out at once, the most objective and least handed over of a purchase with it may
    # gather in all (answer.best_with_each); past it they answer none and the searches above do
    explain_points = 300_000

    def __init__(self, module, holds, facts: dict, obj, *, want=None, avoid=None, among=None,
                 hand_limit: int | None = None, payments: dict | None = None, work: list | None = None,
                 paying: list | None = None, info: dict | None = None):
        self.module = module
        self.info = advance_infos(module) if info is None else info
        want, avoid = (() if want is None else want), (() if avoid is None else avoid)
        self.options = {"want": tuple(want), "avoid": tuple(avoid), "among": among, "hand_limit": hand_limit}
        self.holds = tuple(holds)
        self.held = frozenset(self.holds)
        self.facts = facts
        self.objective = obj
        self.extra = dict(facts.get("credits") or {})
        self.order = {n: i for i, n in enumerate(module.ADVANCES)}
        self._machines: dict[tuple, Any] = {}  # machine_for's, by the same-turn advances bought
        self._credit_parts: dict[str, tuple] = {}  # credit's, by advance
        # single_use: the sets priced by a placement that stopped at pricing.SINGLE_USE_PLACEMENT_CAP
        # short of a proof -> the least price it proves; the best objective of those its least
        # price would make affordable (None: none)
        self.capped_least: dict[tuple, Any] = {}
        self.unsure = None
        self.stopped = False  # the single-use branch and bound stopped at single_use_cap or _work
        # the work of the single-use credit placements (pricing.purchase_total counts it): one count
        # shared by every problem an answer makes (the look-ahead's next turns, --explain's), so that
        # single_use_work bounds the whole answer
        self.work = [0] if work is None else work
        # what-can-be-paid's work in every payment table of the answer (payment.WORK bounds it)
        self.paying = [0] if paying is None else paying
        self.explain_stopped = 0  # --explain's searches stopped at that shared limit
        self.explain_sets = 0  # sets --explain's searches examined, against explain_cap
        self.explain_unsearched = 0  # advances left out that explain_cap left unexplained (and unbounded)
        self.explain_pending = 0  # searches --explain has still to make
        self.explain_runs = 0  # dynamic programmes --explain ran, against explain_programmes
        self.explain_cells_held = 0  # cells those programmes held, against explain_cells
        self.explain_points_held = 0  # points best_with_each gathered, against explain_points
        self._choose_candidates(want, avoid, among)
        self._price_candidates()
        self.limit0, self.limit_source = base_hand_limit(module, facts, hand_limit)
        self.limit0 = self.limit0 + sum(_hand_delta(self.info, h) for h in self.holds)
        self.cards = {n: int(k) for n, k in (facts.get("commodities") or {}).items()}
        self.treasury = int(facts.get("treasury", 0) or 0)
        self.payments = self._payment_table(payments)
        self._prepare()

    def _choose_candidates(self, want, avoid, among) -> None:
        """The advances that may be bought (the rest listed in `excluded` with the reason), the
        wanted ones checked, and the room the card limit leaves."""
        module = self.module
        want = canonical_names(module, "advance", list(want), "--want")
        avoid = set(canonical_names(module, "advance", list(avoid), "--avoid"))
        if among is not None:
            among = canonical_names(module, "advance", list(among), "among")
        self.excluded: list[dict] = []
        self.candidates: list[str] = []
        for name, adv in module.ADVANCES.items():
            if name not in self.held and (among is None or name in among):
                self._consider(name, adv, avoid)
        self.card_limit = module.CONSTS.get("card_limit")
        self.max_new = None if self.card_limit is None else max(0, self.card_limit - len(self.holds))
        self._check_want(want)

    def _consider(self, name: str, adv: dict, avoid: set) -> None:
        """`name` becomes a candidate, or an excluded advance with the reason."""
        why = self._why_not_candidate(name, adv, avoid)
        if why:
            self.excluded.append({"advance": name, "why": why})
        else:
            self.candidates.append(name)

    def _check_want(self, want: list[str]) -> None:
        """Every wanted advance can be bought, and together they leave room in the card limit."""
        for w in want:
            if w in self.held:
                raise StateError(f"--want: {w} is already held")
            if w not in self.candidates:
                why = "not a candidate"
                for e in self.excluded:
                    if e["advance"] == w:
                        why = e["why"]
                        break
                raise StateError(f"--want: {w} cannot be bought: {why}")
        self.want = tuple(sorted(set(want), key=lambda n: self.order[n]))
        if self.max_new is not None and len(self.want) > self.max_new:
            raise StateError(f"--want: {len(self.want)} advances, but the card limit ({self.card_limit}) "
                             f"leaves room for {self.max_new}")

    def _why_not_candidate(self, name: str, adv: dict, avoid: set) -> str | None:
        if name in avoid:
            return "avoided (--avoid)"
        if adv["cost"] is None:
            return "its cost is unknown in this rulebook: never bought"
        missing = [r for r in adv["requires"] if r not in self.held]
        if missing:
            return f"needs {', '.join(missing)} held before this turn"
        return sold_out(self.module, name, self.facts)

    def _price_candidates(self) -> None:
        """Prices before same-turn abilities: pricing.prices on every candidate that carries no
        same-turn ability (those rows are untouched by it), and on each one that does, alone.
        Under the strict `single_use` credit variant advances bought together share the credits,
        so no price is known alone: every set is priced by pricing.prices (each advance's price
        alone stays a lower bound, since together it can only get fewer credits)."""
        module, cands = self.module, self.candidates
        self.single_use = "single_use" in getattr(module, "CREDIT_VARIANTS", ())
        special_turn = [n for n in cands if self.single_use or self._has_same_turn_ability(n)]
        self.base = self._base_prices(special_turn)
        self.treasury_value = treasury_value(module, self.holds)
        self.same_turn = frozenset(special_turn)
        self.discounts = {n: [a["amount"] for a in _abilities(self.info, n, "discount")] for n in special_turn}
        self.frees = self._group_abilities(special_turn, "free_advance")
        self.alls = self._group_abilities(special_turn, "acquire_all")

    def _has_same_turn_ability(self, name: str) -> bool:
        return self.info[name]["same_turn"]

    def _base_prices(self, special_turn: list[str]) -> dict[str, Any]:
        """Each candidate's price after credits, before the same-turn abilities of the others:
        those without such an ability priced together, those with one each alone."""
        module, holds, extra = self.module, self.holds, self.extra
        plain = [n for n in self.candidates if n not in special_turn]
        base: dict[str, Any] = {n: max(0, price) for n, price in zip(plain, item_prices(module, holds, plain, extra))}
        for n in special_turn:
            total, complete, least = purchase_total(module, holds, [n], extra)
            # a lower bound, as the search needs (a placement stopped at its cap proves one)
            base[n] = max(0, total if complete else least)
        return base

    def _group_abilities(self, advances: list[str], kind: str) -> dict[str, list[tuple]]:
        """For each of `advances`, its abilities of `kind` (free_advance, acquire_all) as (group,
        cost limit)."""
        return {n: [(a["group"], a["cost_below"]) for a in _abilities(self.info, n, kind)] for n in advances}

    def _payment_table(self, payments: dict | None) -> "PaymentTable":
        """The payment table of this hand under the abilities of advances held before the
        purchase (an advance bought takes effect only once the transaction completes, Mega
        Civilization phase 12), shared through `payments` between problems that agree on them."""
        module = self.module
        rate = max([a["rate"] for h in self.holds for a in _abilities(self.info, h, "card_treasury")], default=0)
        substitute = any(_abilities(self.info, h, "substitute_card") for h in self.holds)
        payments = {} if payments is None else payments
        key = (self.treasury_value, rate, substitute)
        if key not in payments:
            payments[key] = PaymentTable(module, self.cards, self.treasury, self.treasury_value,
                                         PlayerState(module, self.holds, self.facts), rate, substitute,
                                         self.paying)
        return payments[key]

    # -- exact prices ------------------------------------------------------------------------

    def exact_price(self, names) -> Any:
        """Total price of buying `names` together: base prices less same-turn abilities, the way
        pricing.prices applies them (SameTurnMachine: visited from the dearest down), or under
        the strict single-use credit variant pricing.prices itself."""
        names = sorted(names, key=lambda n: self.order[n])
        if self.single_use:
            total, complete, least = purchase_total(self.module, self.holds, names, self.extra, self.work)
            if not complete:
                self.capped_least[tuple(names)] = least
            return total
        machine = self.machine_for(tuple(n for n in names if n in self.same_turn))
        state, price = machine.start, 0
        for name in sorted(names, key=lambda n: (machine.base[n], n), reverse=True):
            state, delta = machine.step(state, name)
            price = price + delta
        return price + machine.finish(state)

    def _in_group(self, name: str, group: str, below) -> bool:
        adv = self.module.ADVANCES[name]
        return group in adv["groups"] and adv["cost"] < below

    def _group_members(self, pool: Iterable[str], card: str, group: str, below) -> list[str]:
        """The advances of `pool` other than `card` in `group` with a printed cost below `below`:
        those a free advance or an acquire_all of `card` may take."""
        return [n for n in pool if n != card and self._in_group(n, group, below)]

    def hand_limit(self, names) -> int:
        return self.limit0 + sum(_hand_delta(self.info, n) for n in names)

    def credit(self, names) -> Any:
        """Credit points the advances bought give for later turns: group credits, free credit
        points, and specific credits to advances still not held."""
        parts, bought = self._credit_parts, set(names)
        total = 0
        for n in names:
            own, specific = parts.get(n) or self._credit_part(n)
            total = total + own
            for t, v in specific:
                if t not in bought:
                    total = total + v
        return total

    def _credit_part(self, name: str) -> tuple:
        """What `credit` reads of one advance (the search asks for every set it ranks): its group
        credits plus free credit points, and its specific credits to advances still not held, in
        the rulebook's order (so the sum is added up in the same order)."""
        i = self.info[name]
        part = self._credit_parts[name] = (i["group_credit"] + i["free_credits"], tuple(
            (t, v) for t, v in self.module.ADVANCES[name]["specific"].items() if t not in self.held))
        return part

    def _credit_bound(self, name) -> Any:
        i = self.info[name]
        return i["group_credit"] + i["free_credits"] + sum(
            v for t, v in self.module.ADVANCES[name]["specific"].items() if t not in self.held)

    # -- the search --------------------------------------------------------------------------

    def _max_reduction(self, name) -> Any:
        """The most this advance's same-turn abilities can take off the other advances bought:
        a discount at most its amount, a free advance at most the dearest eligible price, an
        acquire_all every eligible price (each becomes free)."""
        total = sum(self.discounts.get(name, ()))
        for group, below in self.frees.get(name, ()):
            total = total + max([self.base[c] for c in self._group_members(self.candidates, name, group, below)], default=0)
        for group, below in self.alls.get(name, ()):
            total = total + sum(self.base[c] for c in self._group_members(self.candidates, name, group, below))
        return total

    def _prepare(self) -> None:
        """Order the advances for the search and precompute its bounds.

        Every set's exact price is at least the sum over its advances of the effective price
        e = base price - the most that advance's own same-turn abilities can take off (0 for
        most). The search visits advances by objective per effective price, so the
        fractional-knapsack bound of the undecided advances is a prefix found by bisection.
        """
        # an advance without a same-turn ability has nothing to take off
        self.eff = eff = {n: self.base[n] - self._max_reduction(n) for n in self.candidates}
        pool = [n for n in self.candidates if n not in self.want]
        values = self.objective.values
        terms = {n: _ratio_terms(values[n], eff[n], self.order[n]) for n in pool}
        order = functools.partial(_by_ratio, terms)
        self.items = sorted(pool, key=functools.cmp_to_key(order))
        self._columns()
        self._sums(len(self.items))
        self.start = self._wanted_start()
        self.limit_max = self.limit0 + self.hpos_suf[0] + sum(max(0, _hand_delta(self.info, w)) for w in self.want)
        self.budget_max = self.payments.budget(self.limit_max)

    def _columns(self) -> None:
        """What the walk reads of the advance at each position: base price, effective price,
        objective, credit bound and hand-limit change."""
        items, obj = self.items, self.objective.values
        self.b = [self.base[n] for n in items]
        self.e = [self.eff[n] for n in items]
        self.o = [obj[n] for n in items]
        self.cub = [self._credit_bound(n) for n in items]
        self.hd = [_hand_delta(self.info, n) for n in items]
        self.int_objective = all(isinstance(v, int) for v in self.o)

    def _wanted_start(self) -> tuple:
        """What the wanted advances, which start every set, bring: base price, effective price,
        objective, credit bound, hand-limit change, and whether one has a same-turn ability."""
        want = self.want
        return (sum(self.base[w] for w in want), sum(self.eff[w] for w in want), self.objective.of(want),
                sum(max(0, self._credit_bound(w)) for w in want), sum(_hand_delta(self.info, w) for w in want),
                any(w in self.same_turn for w in want))

    def _sums(self, n_items: int) -> None:
        """Suffix sums over positions >= i: negative effective prices (they widen the budget),
        positive hand-limit changes, credit bounds; and, since advances worth something come
        first in the order, prefix sums of effective price and objective over them."""
        e, o, hd, cub = self.e, self.o, self.hd, self.cub
        neg_suf = self.neg_suf = [0] * (n_items + 1)
        hpos_suf = self.hpos_suf = [0] * (n_items + 1)
        cub_suf = self.cub_suf = [0] * (n_items + 1)
        for i in range(n_items - 1, -1, -1):
            neg_suf[i] = neg_suf[i + 1] + max(0, -e[i])
            hpos_suf[i] = hpos_suf[i + 1] + max(0, hd[i])
            cub_suf[i] = cub_suf[i + 1] + max(0, cub[i])
        self.npos = sum(1 for v in o if v > 0)
        cum_b = self.cum_b = [0]
        cum_o = self.cum_o = [0]
        for i in range(self.npos):
            cum_b.append(cum_b[-1] + max(0, e[i]))
            cum_o.append(cum_o[-1] + o[i])

    def _ratio_bound(self, q: int, cap) -> Any:
        """Fractional-knapsack bound of the objective of advances at positions >= q within `cap`."""
        if q >= self.npos:
            return 0
        target = self.cum_b[q] + cap
        m = _bisect_right(self.cum_b, target) - 1
        gain = self.cum_o[m] - self.cum_o[q]
        if m < self.npos:
            rest = target - self.cum_b[m]
            if self.int_objective and isinstance(rest, int):
                gain = gain + (rest * self.o[m]) // max(0, self.e[m])
            else:
                gain = gain + self.o[m]
        return gain

    def _least_cost(self, q: int, need) -> Any:
        """A lower bound of the effective price that advances at positions >= q must add to
        gain `need` more objective (fractional, rounded down); None if they cannot."""
        if need <= 0:
            return 0
        if q >= self.npos:
            return None
        target = self.cum_o[q] + need
        m = _bisect_left(self.cum_o, target)
        if m > self.npos:
            return None
        # advances q .. m-2 whole, and part of advance m-1
        whole = self.cum_b[m - 1] - self.cum_b[q]
        rest = target - self.cum_o[m - 1]
        i = m - 1
        if self.int_objective and isinstance(rest, int):
            return whole + (rest * max(0, self.e[i])) // self.o[i]
        return whole

    def _key(self, names, price, spent) -> tuple:
        # the last part: minus the rulebook places, largest first (the rulebook order reversed)
        order = self.order
        places = tuple(sorted([-order[n] for n in names], reverse=True))
        return (self.objective.of(names), -spent, self.credit(names), -len(names), places)

    def _walk(self, visit, prune) -> None:
        """Visit every set worth visiting once: `visit(names, price_base, same_turn, hand_delta)`
        for each set, `prune(q, ub_objective, lb_price, objective, credit_bound, hand_bound)` ->
        True to skip every extension by advances at positions >= q (it must only grow more
        willing to prune as q grows)."""
        items, b, e, o, cub, hd = self.items, self.b, self.e, self.o, self.cub, self.hd
        n_items = len(items)
        budget = self.budget_max
        neg_suf = self.neg_suf
        max_new = self.max_new
        names: list[str] = list(self.want)
        same_turn = self.same_turn

        self.open: list = []  # per level of the walk, the bound of the branch it is in (for a stop)
        open_ = self.open

        def dfs(q, sumb, sume, objective, cubs, hch, same):
            if max_new is not None and len(names) >= max_new:
                return
            open_.append(None)
            for j in range(q, n_items):
                ne = sume + e[j]
                if ne - neg_suf[j + 1] > budget:
                    continue  # this advance does not fit; a later, cheaper one may
                lbp = sume - neg_suf[j]
                cap = budget - lbp
                ub = objective + self._ratio_bound(j, cap)
                if prune(j, ub, lbp, objective, cubs + self.cub_suf[j], self.limit0 + hch + self.hpos_suf[j]):
                    break  # nor can any set using only advances from j on (the bounds only fall)
                open_[-1] = ub  # bounds this branch and every later one of this level
                name = items[j]
                names.append(name)
                nsame = same or name in same_turn
                visit(names, sumb + b[j], nsame, hch + hd[j], objective + o[j])
                dfs(j + 1, sumb + b[j], ne, objective + o[j], cubs + cub[j], hch + hd[j], nsame)
                names.pop()
            open_.pop()

        w_b, w_e, w_o, w_c, w_h, w_same = self.start
        visit(names, w_b, w_same, w_h, w_o)
        dfs(0, w_b, w_e, w_o, w_c, w_h, w_same)

    def _price_and_spent(self, names, sumb, same, hdelta):
        if self.max_new is not None and len(names) > self.max_new:
            return None
        price = self.exact_price(names) if same else sumb
        limit = self.limit0 + hdelta
        spent = self.payments.spent(price, limit)
        if spent is None:
            self._maybe_affordable(names, limit)
            return None
        return price, spent, limit

    def _maybe_affordable(self, names, limit) -> None:
        """A set whose price is a capped placement's (payable, but maybe not the least) that its
        proven least price would make affordable may still be a plan: its objective raises what
        the report says no plan exceeds."""
        least = self.capped_least.get(tuple(sorted(names, key=lambda n: self.order[n])))
        if least is not None and self.payments.spent(least, limit) is not None:
            objective = self.objective.of(names)
            self.unsure = objective if self.unsure is None else max(self.unsure, objective)

    def search(self, top: int = 1) -> list[Choice]:
        """The `top` best sets, best first, by (objective, -spent, credit, fewer advances, rulebook
        order): the dynamic programme over price of plan.search (exact, no enumeration of sets)."""
        top = max(1, int(top))
        self.complete, self.total_at_most = True, None
        if self.single_use:
            # under the strict single-use credit variant advances bought together share the
            # credits, so prices do not add up: the branch and bound prices every set it keeps
            # with pricing.prices, and stops after `single_use_cap` sets (no exact method is
            # pseudo-polynomial here; see docs/planner.md) with the best found so far
            self.method = "branch and bound"
            found = self._branch_and_bound(top, self.single_use_cap)[0]
            if self.capped_least:
                self._capped_prices(found)
            return found
        floor = None
        if self.bb_cap:
            quick, floor = self._branch_and_bound(top, self.bb_cap)
            if quick is not None:
                self.method = "branch and bound"
                return quick
        return self.programme(top, floor)

    def programme(self, top: int, floor=None, cells: int | None = None) -> list[Choice]:
        """The `top` best sets by the dynamic programme over price of plan.search, given the
        objective a branch and bound already reached (`floor`, None: none); with `cells`, stopped
        (search.ProgrammeStopped) once its layers have held more cells than that."""
        self.method = "dynamic programme"
        # the programme's runs, widest signature and cells (benchmarks and --explain read them)
        self.stats: dict = {} if cells is None else {"cell_limit": cells}
        found = search(
            self.search_candidates(), forced=frozenset(self.want), machine_for=self.machine_for,
            same_turn=sorted(self.same_turn, key=lambda n: self.order[n]), budget=self.budget_max, max_new=self.max_new,
            spent=self.payments.spent, limit0=self.limit0, top=top, floor=floor, stats=self.stats)
        self.visited = self.bb_cap + 1
        return [Choice(key=key, buys=tuple(sorted(names, key=lambda n: self.order[n])), price=price, spent=paid,
                       objective=key[0], credit=key[2], hand_limit=limit)
                for key, names, price, paid, limit in found]

    def search_candidates(self) -> list:
        """The candidates as the dynamic programme reads them: base price, objective, credit for
        later turns, hand-limit change, and the specific-credit links between candidates (a
        specific credit to an advance bought in the same purchase no longer counts)."""
        got = getattr(self, "_search_candidates", None)
        if got is None:
            cands = set(self.candidates)
            got = self._search_candidates = [
                Candidate(n, self.order[n], self.base[n], self.objective.values[n], self._credit_bound(n),
                          _hand_delta(self.info, n), self._links(n, cands)) for n in self.candidates]
        return got

    def _links(self, name: str, cands: set) -> dict:
        """The specific credits between `name` and the other candidates, either way, summed."""
        advances = self.module.ADVANCES
        pairs = [(t, v) for t, v in advances[name]["specific"].items() if t in cands]
        pairs.extend([(o, advances[o]["specific"].get(name, 0)) for o in self.candidates])
        links: dict = {}
        _add_up(links, [(t, v) for t, v in pairs if t != name and v])
        return links

    def machine_for(self, bought: tuple):
        """pricing.prices' same-turn rule for a purchase that includes exactly the same-turn
        advances `bought` (rulebook order): advances they acquire automatically cost nothing
        (its `base`), then a discount lands on any other advance, a free advance on one of its
        group below its cost limit. One machine per `bought`, kept with what it has learnt."""
        got = self._machines.get(bought)
        if got is None:
            pool = [n for n in self.candidates if n not in self.same_turn or n in bought]
            abilities = [a for card in bought for a in self._same_turn_abilities(card, pool)]
            got = self._machines[bought] = SameTurnMachine(abilities, self._acquired(bought, pool))
        return got

    def _acquired(self, bought: tuple, pool: list[str]) -> dict:
        """The base prices once the advances of `pool` that an advance bought acquires
        automatically (acquire_all) cost nothing: pricing.prices applies that first, so the other
        abilities never land on them."""
        base = dict(self.base)
        for card in bought:
            for group, below in self.alls.get(card, ()):
                for n in self._group_members(pool, card, group, below):
                    base[n] = 0
        return base

    def _same_turn_abilities(self, card: str, pool: list[str]) -> list[tuple]:
        """`card`'s discounts, then its free advances, as the machine reads them: (card, kind,
        amount, the advances of `pool` it may land on)."""
        others = frozenset(n for n in pool if n != card)
        return ([(card, "discount", amount, others) for amount in self.discounts.get(card, ())]
                + [(card, "free_advance", None, frozenset(self._group_members(pool, card, group, below)))
                   for group, below in self.frees.get(card, ())])

    def _branch_and_bound(self, top: int, cap: int | None) -> tuple[list[Choice] | None, Any]:
        """The `top` best sets by depth-first branch and bound (see docs/planner.md), or None
        once it has visited more than `cap` sets (dense states with many ties are left to the
        dynamic programme, whose work is bounded), with the objective the `top` best sets found
        so far reach (None if fewer were found)."""
        heap: list[tuple] = []  # min-heap of (key, names, price, spent, limit): heap[0] is the k-th best
        kth: list = [None]  # the k-th best key's first three parts, once k sets are kept
        counter = [0]
        pay = self.payments
        by_place = list(self.order)  # advance at each rulebook place

        def visit(names, sumb, same, hdelta, objective):
            counter[0] = counter[0] + 1
            if cap is not None and counter[0] > cap:
                raise _SearchStopped("the search's work limit")
            # (the work is shared with the answer's other searches: the set of the wanted advances is
            # always examined, so that every search has an answer)
            if self.single_use and heap and self.work[0] > self.single_use_work:
                raise _SearchStopped("the search's work limit")
            if kth[0] is not None and objective < kth[0][0]:
                return  # cannot rank, so not priced (pricing is the dear step under single_use)
            got = self._price_and_spent(names, sumb, same, hdelta)
            if got is None:
                return
            price, spent, limit = got
            if kth[0] is not None and (objective, -spent) < kth[0][:2]:
                return  # below the k-th best before its credit and rulebook order are needed
            key = self._key(names, price, spent)
            entry = (key, tuple(by_place[-i] for i in key[4]), price, spent, limit)  # names in rulebook order
            if len(heap) < top:
                heappush(heap, entry)
            elif key > heap[0][0]:
                heapreplace(heap, entry)
            else:
                return
            if len(heap) == top:
                kth[0] = heap[0][0][:3]

        def prune(q, ub, lbp, objective, credit_ub, hand_ub):
            if lbp > self.budget_max:
                return True
            if kth[0] is None:
                return False
            best_obj, neg_spent, credit = kth[0]
            if ub != best_obj:
                return ub < best_obj
            # only sets reaching the k-th best objective exactly could still rank: they must add
            # at least this much effective price
            extra = self._least_cost(q, best_obj - objective)
            if extra is None:
                return True
            spent = pay.spent(max(0, lbp + extra), hand_ub)
            if spent is None:
                return True
            return (-spent, credit_ub) < (neg_spent, credit)

        walked = False
        try:
            self._walk(visit, prune)
            walked = True
        except _SearchStopped:
            if not self.single_use:
                # the objective `top` sets found so far reach: a floor for the dynamic programme
                return None, (heap[0][0][0] if len(heap) == top else None)
            self._stopped(heap, counter[0] - 1)
        if walked:
            self.visited = counter[0]
        out = sorted(heap, key=lambda e: e[0], reverse=True)
        return [Choice(key=e[0], buys=e[1], price=e[2], spent=e[3], objective=e[0][0], credit=e[0][2], hand_limit=e[4])
                for e in out], None

    def _stopped(self, heap: list, examined: int) -> None:
        """The branch and bound stopped after EXAMINED sets (single_use): the best found so far
        stand, and no set it left unexamined reaches more than the bound of the branch each level
        of the walk was in (a whole number above it, so that both engines print it alike)."""
        self.visited, self.complete, self.stopped = examined, False, True
        self.total_at_most = stopped_bound(max([e[0][0] for e in heap], default=0), self.open)

    def _capped_prices(self, found: list[Choice]) -> None:
        """Some sets were priced by a placement stopped at its cap (single_use): their price is a
        real one but maybe not the least, so the ranking is not proven (complete = False), and no
        plan exceeds the best found, the stopped walk's bound, or a set whose least price it could
        pay (`unsure`)."""
        best = self.total_at_most if not self.complete else (found[0].objective if found else 0)
        self.complete = False
        self.total_at_most = best if self.unsure is None else max(best, self.unsure)

    def root_bound(self, budget=None):
        """An upper bound of the objective any purchase this turn can reach (within `budget`, by
        default the search's)."""
        w_e, w_o = self.start[1], self.start[2]
        cap = (self.budget_max if budget is None else budget) - (w_e - self.neg_suf[0])
        return w_o + self._ratio_bound(0, cap) if cap >= 0 else w_o

    def bound_with(self, name: str):
        """An upper bound of the objective of any purchase that includes `name` and every --want:
        the lesser of the fractional-knapsack bound of the purchase wanting it (`root_bound`) and
        the whole-advance knapsack bound (`_knapsack_bound`)."""
        bound = with_want(self, [name]).root_bound()
        whole = self._knapsack_bound(name)
        return bound if whole is None or whole > bound else whole

    def _knapsack_bound(self, name: str):
        """The objective of the wanted advances and `name` plus the most the advances not wanted
        can add within the room their effective prices leave (`_knapsack_table`; the table may
        count `name` again, which only loosens the bound); None where there is no table."""
        table = self._knapsack_table()
        if not table:
            return None
        want = self.want
        room = len(table) - 1 - max(0, self.eff[name]) - sum(max(0, self.eff[w]) for w in want)
        if room < 0:
            return None
        return self.start[2] + self.objective.values[name] + table[room]

    def _knapsack_table(self) -> list:
        """Room in price units -> the most objective advances not wanted reach whose effective
        prices (at least 0) fit in it: a 0/1 knapsack over whole advances, made once per question.
        Any purchase's effective prices add up to at most the budget, so with each negative one
        counted as 0 they fit in the budget plus the negatives' sum (the table's last room). Empty
        where prices are not whole numbers or the table would pass `explain_knapsack` cells."""
        got = getattr(self, "_knapsack", None)
        if got is None:
            got = self._knapsack = self._whole_knapsack()
        return got

    def _whole_knapsack(self) -> list:
        weights = [max(0, e) for e in self.e]
        capacity = self.budget_max + self.neg_suf[0] + sum(max(0, -self.eff[w]) for w in self.want)
        if not isinstance(capacity, int) or not all(isinstance(w, int) for w in weights) or capacity < 0:
            return []
        if len(weights) * (capacity + 1) > self.explain_knapsack:
            return []
        table = [0] * (capacity + 1)
        for j in range(len(weights)):
            w, value = weights[j], self.o[j]
            if value <= 0:
                continue
            for room in range(capacity, w - 1, -1):
                reach = table[room - w] + value
                if reach > table[room]:
                    table[room] = reach
        return table

    # -- reporting one plan ------------------------------------------------------------------

    def plan_dict(self, choice: Choice, rank: int | None = None) -> dict:
        priced = prices(self.module, self.holds, list(choice.buys), self.extra)
        if priced["total"] != choice.price:  # the search prices sets itself; it must agree
            raise PricesDisagree(f"planner bug: {', '.join(choice.buys)} priced {choice.price} by the search "
                                 f"but {priced['total']} by pricing.prices")
        payment = self.payments.best(choice.price, choice.hand_limit)
        out = {} if rank is None else {"rank": rank}
        out.update({
            "buy": list(choice.buys),
            "objective": number(choice.objective),
            "items": [{**row, "objective": number(self.objective.values[row["advance"]])} for row in priced["items"]],
            "total": choice.price,
            "spent": number(choice.spent),
            "payment": payment,
            "credit_gained": {**self._credit_gained(choice.buys), "total": number(choice.credit)},
            "hand_limit": choice.hand_limit,
        })
        return out

    def _credit_gained(self, buys) -> dict:
        """The credit the advances bought give for later turns: group credits, specific credits to
        advances still not owned, free credit points."""
        groups: dict[str, int] = {}
        specific: dict[str, int] = {}
        owned = self.held | set(buys)
        for n in buys:
            adv = self.module.ADVANCES[n]
            _add_up(groups, adv["credits"].items())
            _add_up(specific, [(t, v) for t, v in adv["specific"].items() if t not in owned])
        free = sum(a["amount"] for n in buys for a in _abilities(self.info, n, "free_credits"))
        return {"groups": groups, "specific": specific, "free_credit_points": free}


def _bisect_right(xs: list, x) -> int:
    """bisect.bisect_right: the position after every item of the sorted XS not above X."""
    lo: int = 0
    hi: int = len(xs)
    while lo < hi:
        mid: int = (lo + hi) // 2
        if x < xs[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _bisect_left(xs: list, x) -> int:
    """bisect.bisect_left: the position of the first item of the sorted XS not below X."""
    lo: int = 0
    hi: int = len(xs)
    while lo < hi:
        mid: int = (lo + hi) // 2
        if xs[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


# --- the problems --explain and the look-ahead make of one (functions, not methods: the page,
# which asks for neither, does not carry them) ------------------------------------------------

def with_want(problem: PurchaseProblem, names: list) -> PurchaseProblem:
    """The same purchase, forced to include `names` too (prices and payments reused)."""
    import copy  # here, not at the top: most plans never clone (start-up)

    clone = copy.copy(problem)
    clone.want = tuple(sorted(set(problem.want).union(names), key=lambda n: problem.order[n]))
    clone.options = dict(problem.options)
    clone.options["want"] = clone.want
    clone._knapsack = None  # the table is of the advances not wanted
    clone._prepare()
    return clone


def after(problem: PurchaseProblem, buys, payments: dict | None = None) -> PurchaseProblem:
    """The same player's purchase once `buys` are held too, wanting nothing: the next turn with
    the same hand and treasury (`payments` shares payment tables between such problems)."""
    options = problem.options
    return PurchaseProblem(problem.module, problem.holds + tuple(buys), problem.facts, problem.objective,
                           payments=payments, work=problem.work, paying=problem.paying, info=problem.info,
                           avoid=options["avoid"], among=options["among"], hand_limit=options["hand_limit"])


def choice(problem: PurchaseProblem, names, price, spent, limit: int) -> Choice:
    """The set `names`, priced and paid, as the search reports it (with its ranking key)."""
    key = problem._key(names, price, spent)
    return Choice(key, tuple(sorted(names, key=lambda n: problem.order[n])), price, spent, key[0], key[2], limit)


def _add_up(totals: dict, pairs: Iterable[tuple]) -> None:
    """Add each (key, amount) to `totals`."""
    for key, amount in pairs:
        totals[key] = totals.get(key, 0) + amount
