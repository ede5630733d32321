"""The purchase planner's exact search: a dynamic programme over price.

Why a dynamic programme is exact here. Credits come only from advances held before this turn
(pricing.prices), so every advance bought has a price after credits (its *base price*) that
does not depend on what else is bought, and a set's price is the sum of its base prices.
Three things break that sum, and each is carried in the programme's state:

- **same-turn abilities** (`discount`, `free_advance`: Library, Anatomy) of advances bought in
  the same purchase take something off the dearest eligible *other* advance, one ability after
  another in rulebook order (pricing.prices). Which advances carry them is enumerated (the
  subsets T of the few candidates with such an ability), and for a fixed T the advances are
  visited from the dearest down, so that the advance each ability lands on is known as soon as
  it is chosen: `SameTurnMachine` below follows the runtime's rule step by step and keeps only
  what is still undecided (an ability waiting behind an earlier one, an advance whose price an
  earlier ability lowered and that a later one may still pick);
- **advances acquired automatically** (`acquire_all`) with an advance of T cost nothing in that
  run (their base price is 0, as pricing.prices applies this first). The strict single-use
  credit variant, where advances bought together share credits, is not additive at all and is
  not searched here (purchase.PurchaseProblem.search leaves it to its branch and bound);
- **the hand limit**: the payment depends on the price *and* on the hand-limit abilities of
  the advances bought (the sum of their changes is in the state);
- **the card limit** (1981 17.7): the number of advances bought is in the state where the
  rulebook declares one.

The ranking (objective, least handed over, most credit, fewer advances, rulebook order) is
compared inside each cell of the table (same state and exact price, hence the same payment for
any completion): the objective and the number of advances add up; rulebook order is the
lexicographic order of the sorted positions, which adding the same advances to two sets never
reverses. Credit for later turns does not add up: a specific credit from an advance bought to
another advance bought this turn no longer counts (it is not "still to buy"). So the state also
holds the *signature*: the advances chosen so far that have such a credit link to an advance
still to be visited. Advances are visited in an order that keeps few of them open
(`_few_open_links`), and the machine's price order would undo that, so where the candidates
have links and T brings abilities the machine is not used at all: the run is split into one
machine-free run per *assignment* of the abilities to the advances they land on (`targets`):
choosing where an ability lands means buying that advance and none that ranks above it, the
assignments partition the purchases, and inside each the prices add up again. The objective
the K best sets reach comes first from a pass without the links (no signatures: objective and
price are exact there, only the credit is not); assignments that cannot reach it, or that
reach it only at a higher spend than K plans found so far, are not run.

Bound, and why it holds. Let n be the candidates, B the budget (the whole hand and treasury)
and D the most the same-turn abilities can take off, so that a layer's prices are whole numbers
up to B + D in the cost units and a cell holds at most P <= B + D + 1 of them; H the
hand-limit sums (1 + the sum of |hand-limit changes|), C the card counts (n + 1 with a card
limit, else 1), K the plans asked for (--top, 5 with --explain), s the candidates with a
same-turn ability (2^s subsets T; s = 2 in every shipped rulebook), m <= s the abilities of a
T, E_j the advances ability j may land on, and w the *link width*: the most advances with a
link to a later one that the visiting order keeps open at once (`link_width`; 1 for Mega
Civilization and the Expansion, 2-3 for 1980/1981 whatever is held). A layer holds at most
(machine states) x H x C x 2^w cells of P prices of K entries each, and a step touches each
entry once, so:

- the pass without links: O(2^s . n . S . H . C . P . K), S the machine's states: its flags
  (2^m), the advance each waiting ability would take ((n + 1)^m) and the at most m lowered
  prices (each base less a subset of the discounts, or 0): S <= 2^m (n + 1)^m (n (2^m + 1) + 1)^m,
  a polynomial of degree 2m (measured: at most 2 in every stress and random state);
- the pass with links: O(sum over T of prod_j (|E_j| + 1) . n . H . C . 2^w . P . K): no
  machine, and 2^w signatures since a signature is a subset of the advances open at once;
- without links, only the first pass, with no signatures (w = 0).

So the work is polynomial in the candidates, the budget, the hand-limit sums and K, for a
rulebook's fixed number of same-turn abilities and link width; no set of advances is ever
enumerated. The width cannot be removed in general: with credit links between any advances, the
credit tie-break alone contains maximum cut (every advance free and worth 0 by the objective,
a link of 1 credit each way per edge: the credit of a purchase is then its cut), so no exact method is polynomial in the number of links unless P = NP; the
rulebook's own links are what keep w small. `--explain` is at most n such searches, `--want`
forces advances (fewer cells), `--avoid` removes candidates, an objective expression only
changes the entries' values, and the payment is a table bounded separately
(purchase.PaymentTable). The branch and bound that runs first stops after a fixed number of
sets. What is outside this bound: the strict single-use credit variant (left to the branch and
bound: pricing one purchase is bin covering there, see docs/planner.md) and the two-turn
look-ahead (its own capped walk).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Iterable

from ..pystd.heaps import heappush, heapreplace
from ..pystd.iterate import chain_from_iterable, combinations


class SameTurnMachine:
    """pricing.prices' same-turn rule, followed advance by advance from the dearest down.

    `abilities` lists (card, kind, amount, eligible) in the order pricing.prices applies them:
    advances in rulebook order, each one's discounts then its free advances. An ability lands
    on the dearest eligible other advance of the purchase with a price above 0 (by price, then
    name), after the abilities before it changed prices. Visiting advances by (base price, name)
    from the top, every later advance is cheaper than the one at hand, so an ability is decided
    as soon as its best candidate is an advance at its base price (or a lowered one still above
    the current advance); otherwise it waits. The state is (open flags, the first unlowered
    candidate of each waiting ability, lowered prices still of interest).
    """

    def __init__(self, abilities: list[tuple], base: dict[str, Any]):
        self.abilities = abilities
        self.base = base
        self.start = ((True,) * len(abilities), (None,) * len(abilities), ())
        self.reach = frozenset(n for a in abilities for n in a[3])
        # the most each ability can still take off (for the budget cut)
        self.most = [self._most(kind, amount, eligible) for _, kind, amount, eligible in abilities]
        # the same states meet the same advances in many cells and runs: each answer is worked
        # out once per machine
        self.step = functools.cache(self._step)
        self.finish = functools.cache(self._finish)
        self.most_off = functools.cache(self._most_off)

    def _most(self, kind: str, amount, eligible: frozenset) -> Any:
        """The most one ability can take off: a discount its amount, a free advance the dearest
        eligible base price."""
        if kind == "discount":
            return amount
        return max([self.base[n] for n in eligible], default=0)

    def _most_off(self, state) -> Any:
        """The most the abilities still open in `state` can take off."""
        return sum(m for m, o in zip(self.most, state[0]) if o)

    @staticmethod
    def _effect(kind: str, amount, price):
        return price - amount if kind == "discount" else 0

    @staticmethod
    def _open(opens) -> list[int]:
        """The abilities not yet landed."""
        return [j for j, o in enumerate(opens) if o]

    def _compact(self, opens, us, mods: dict) -> tuple:
        """The state as a key: a lowered price is kept while it is of interest (an ability's
        waiting candidate, or above 0 and eligible for an ability still open)."""
        eligible = [self.abilities[j][3] for j in self._open(opens)]
        keep = sorted((n, p) for n, p in mods.items() if n in us or (p > 0 and any(n in e for e in eligible)))
        return (tuple(opens), tuple(us), tuple(keep))

    def _dearest(self, j: int, name: str | None, u: str | None, mods: dict) -> tuple | None:
        """Where ability j would land now: the dearest (price, advance, at its base price) above
        0 among the lowered prices it may pick, its waiting candidate `u` and the advance `name`
        being visited (None once every advance is visited); None when there is none. (`u` and
        `name` are above 0 at their base price: an advance of price 0 is never remembered.)"""
        eligible = self.abilities[j][3]
        cands = [(p, m, False) for m, p in mods.items() if p > 0 and m in eligible]
        cands.extend([(self.base[x], x, True) for x in (u, name) if x in eligible and x not in mods])
        return max(cands, default=None)

    def _land(self, j: int, price, target: str, mods: dict) -> Any:
        """Ability j lands on `target` at `price`: its new price goes into `mods`; returns what
        the purchase's price changes by."""
        _, kind, amount, _ = self.abilities[j]
        new = self._effect(kind, amount, price)
        mods[target] = new
        return max(0, new) - price

    def _wait(self, later: list[int], name: str, us: list, mods: dict) -> None:
        """The abilities behind an undecided one wait for it: each that has no candidate yet
        remembers `name` (while it is at its base price) as its dearest unlowered one."""
        if name in mods:
            return
        for j in later:
            if us[j] is None and name in self.abilities[j][3]:
                us[j] = name

    def _step(self, state, name: str) -> tuple[tuple, Any]:
        """The state after buying `name` (the cheapest so far), and what it adds to the price."""
        b = self.base[name]
        if b <= 0 or name not in self.reach or not any(state[0]):
            return state, max(0, b)
        opens, us, mods = list(state[0]), list(state[1]), dict(state[2])
        delta = b
        live = self._open(opens)
        for at, j in enumerate(live):
            best = self._dearest(j, name, us[j], mods)
            if not _decided(best, b, name):
                self._wait(live[at + 1:], name, us, mods)  # every later ability waits behind it
                break
            delta = delta + self._land(j, best[0], best[1], mods)
            opens[j], us[j] = False, None
        return self._compact(opens, us, mods), delta

    def _finish(self, state) -> Any:
        """What the abilities still waiting take off once every advance is visited."""
        opens, us, mods = state[0], state[1], dict(state[2])
        delta = 0
        for j in self._open(opens):
            best = self._dearest(j, None, us[j], mods)
            if best is not None:
                delta += self._land(j, best[0], best[1], mods)
        return delta


def _decided(best: tuple | None, b, name: str) -> bool:
    """Whether an ability lands where `best` says while visiting `name` (base price b): the
    dearest is at its base price (every later advance is cheaper) or a lowered price above this
    advance; otherwise a cheaper advance still to come may beat a lowered one."""
    return best is not None and (best[2] or best[:2] > (b, name))


class Candidate:
    """What the search needs to know of one advance."""

    __slots__ = ("name", "rank", "base", "objective", "credit", "hand", "links")

    def __init__(self, name, rank, base, objective, credit, hand, links):
        self.name, self.rank, self.base, self.objective = name, rank, base, objective
        self.credit, self.hand, self.links = credit, hand, links


def _within(count: int, max_new: int | None) -> bool:
    """Whether buying `count` advances keeps to the card limit (None: the rulebook has none)."""
    return max_new is None or count <= max_new


def _below(value, floor) -> bool:
    """Whether a (float) objective bound falls short of `floor` (None: no floor)."""
    return floor is not None and value < float(floor) - 1e-9


def _merge(cell: dict, price, entries: list, top: int) -> None:
    old = cell.get(price)
    if old is None:
        cell[price] = entries if len(entries) <= top else entries[:top]
    elif top == 1:
        if entries[0] > old[0]:
            cell[price] = entries[:1]
    else:
        cell[price] = sorted(old + entries, reverse=True)[:top]


def _replace(table: dict, key, kept) -> None:
    """`table[key]` holds `kept` now; the key goes when nothing is kept."""
    if kept:
        table[key] = kept
    else:
        del table[key]


def search(cands: list[Candidate], *, forced: frozenset, machine_for: Callable, same_turn: list[str],
           budget, max_new: int | None, spent: Callable, limit0: int, top: int, floor=None,
           stats: dict | None = None) -> list[tuple]:
    """The `top` best sets: [(key, names, price, spent, hand_limit)], best first.

    key = (objective, -spent, credit, -len, tuple of -rulebook positions), as PurchaseProblem
    ranks sets. `machine_for(T)` gives the SameTurnMachine of the same-turn advances T bought;
    `spent(price, limit)` the least handed over (None: unaffordable). `floor`, when given, is an
    objective that at least `top` sets are known to reach: entries that cannot reach it even
    with the fractional-knapsack bound of the advances still to visit are dropped (a cut that
    never loses a set that ranks, and keeps the tables small when many sets tie). `stats`, when
    given, receives the widest signature the runs needed ("width": at most the link width).
    """
    stats = {} if stats is None else stats
    linked = any(c.links for c in cands)
    if floor is None and linked:
        floor = _floor_without_links(cands, forced=forced, machine_for=machine_for, same_turn=same_turn,
                                     budget=budget, max_new=max_new, spent=spent, limit0=limit0, top=top, stats=stats)
    programme = _Programme(cands, budget, max_new, spent, limit0, top, floor, stats)
    for items, must, machine, reach in _runs(cands, forced, machine_for, same_turn, budget, max_new, floor, linked):
        if not programme.beaten(reach):
            programme.run(items, must, machine)
    return programme.found(cands)


def _floor_without_links(cands: list[Candidate], *, forced: frozenset, machine_for: Callable, same_turn: list[str],
                         budget, max_new: int | None, spent: Callable, limit0: int, top: int, stats: dict) -> Any:
    """The objective the `top` best sets reach by a first pass without the specific-credit links
    (so without signatures: credit is then wrong, objective and price are not): the floor below
    which the second pass drops entries (None when fewer sets exist)."""
    plain_cands = [Candidate(c.name, c.rank, c.base, c.objective, c.credit, c.hand, {}) for c in cands]
    first = search(plain_cands, forced=forced, machine_for=machine_for, same_turn=same_turn, budget=budget,
                   max_new=max_new, spent=spent, limit0=limit0, top=top, stats=stats)
    return first[-1][0][0] if len(first) == top else None


def _same_turn_sets(by_name: dict, forced, same_turn: list[str], max_new) -> Iterable[list[str]]:
    """Every set T of the same-turn candidates a purchase may include (the forced ones always),
    in rulebook order, within the card limit: 2^s of them for s candidates not forced."""
    special = [n for n in same_turn if n in by_name]
    fixed = [n for n in special if n in forced]
    for extra in _subsets([n for n in special if n not in forced]):
        T = sorted(fixed + list(extra), key=lambda n: by_name[n].rank)
        if _within(len(T), max_new):
            yield T


def _subsets(items: list) -> Iterable[tuple]:
    """Every subset of `items`, the smallest first."""
    return chain_from_iterable(combinations(items, r) for r in range(len(items) + 1))


def priced_sets(cands, forced, machine_for, same_turn, max_new) -> Iterable[tuple]:
    """For each set T of the same-turn candidates a purchase may include: T, its same-turn
    machine, and the candidates at their prices in it before the abilities that pick one advance
    (an advance acquired automatically with one of T costs nothing)."""
    by_name = {c.name: c for c in cands}
    plain = [c for c in cands if c.name not in same_turn]
    for T in _same_turn_sets(by_name, forced, same_turn, max_new):
        machine = machine_for(tuple(T))
        yield T, machine, [_priced(c, machine.base[c.name]) for c in plain + [by_name[n] for n in T]]


def _runs(cands, forced, machine_for, same_turn, budget, max_new, floor, linked) -> Iterable[tuple]:
    """The programme's runs: (advances, advances bought, machine, reach or None), one per
    subset T of the same-turn candidates bought (2^s), and where T brings abilities and the
    candidates have credit links, one machine-free run per assignment of the abilities'
    targets instead: the links want their own visiting order, the machine the price order.
    Those runs come most promising first, each with its `_reach`, and without the ones that
    cannot reach the budget, the card limit or the floor."""
    for T, machine, items in priced_sets(cands, forced, machine_for, same_turn, max_new):
        if machine.abilities and linked:
            yield from _assignment_runs(machine, items, forced | set(T), budget, max_new, floor)
        else:
            yield items, forced | set(T), machine, None


def _assignment_runs(machine: SameTurnMachine, items: list[Candidate], forced, budget, max_new, floor):
    """One machine-free run per assignment of the machine's targets that can reach the budget,
    the card limit and the floor, most promising first."""
    runs = []
    for must, out, prices in targets(machine, {c.name for c in items}, forced):
        run = [_priced(c, prices.get(c.name, c.base)) for c in items if c.name not in out]
        reach = _reach(run, must, budget, max_new)
        if reach is not None and not _below(reach[0], floor):
            runs.append((reach, run, must))
    runs.sort(key=lambda r: -r[0][0])
    for reach, run, must in runs:
        yield run, must, SameTurnMachine([], {c.name: c.base for c in run}), reach


def _positions(mask: int, size: int) -> list[int]:
    """The rulebook positions whose bit (size - 1 - position) is set in `mask`, in order."""
    return [r for r in range(size) if mask >> (size - 1 - r) & 1]


def _priced(c: Candidate, base) -> Candidate:
    """`c` at another base price (the same object when it is unchanged)."""
    return c if base == c.base else Candidate(c.name, c.rank, base, c.objective, c.credit, c.hand, c.links)


def targets(machine: SameTurnMachine, pool: set, forced) -> Iterable[tuple[frozenset, frozenset, dict]]:
    """Every assignment of the machine's abilities to the advance each lands on, as
    (advances bought, advances not bought, prices they leave): pricing.prices' rule read the
    other way round. Ability j lands on the dearest eligible advance x of the purchase whose
    current price is above 0 (by price, then name), or on none; so choosing x means buying it
    and buying no eligible advance that ranks above it at its current price, and choosing none
    means buying no eligible advance with a price above 0. Every purchase meets exactly one
    assignment (the runtime's choice is unique), so the runs of the assignments partition the
    purchases and each run's prices add up. At most prod_j (|E_j| + 1) assignments for the
    eligible sets E_j; inconsistent ones (an advance both bought and excluded) are skipped."""
    abilities, base = machine.abilities, machine.base

    def assign(j, cur, must, out):
        if j == len(abilities):
            yield frozenset(must), frozenset(out), {n: max(0, p) for n, p in cur.items()}
            return
        card, kind, amount, eligible = abilities[j]
        live = sorted((cur.get(n, base[n]), n) for n in eligible if n in pool and cur.get(n, base[n]) > 0)
        for at in range(len(live), -1, -1):  # the target is live[at - 1], or none for at = 0
            above = [n for _, n in live[at:]]  # eligible advances ranking above the target
            if any(n in must for n in above):
                continue  # bought (wanted, a same-turn advance, or an earlier target)
            if at == 0:
                yield from assign(j + 1, cur, must, out | set(above))
                continue
            price, x = live[at - 1]
            if x in out:
                continue
            lowered = price - amount if kind == "discount" else 0
            yield from assign(j + 1, {**cur, x: lowered}, must | {x}, out | set(above))

    yield from assign(0, {}, set(forced), set())



def _reach(items: list[Candidate], must, budget, max_new) -> tuple | None:
    """What a machine-free run can reach: (objective bound, fixed price, fixed objective, the
    other advances worth something by objective per price), or None when its bought advances
    alone are over the budget or the card limit. The objective bound is the fixed objective
    plus the fractional-knapsack bound of the others within the budget left."""
    fixed = [c for c in items if c.name in must]
    price = sum(c.base for c in fixed)
    if len(fixed) < len(must) or not _within(len(fixed), max_new) or price > budget:
        return None
    bound = _Bound([c for c in items if c.name not in must])
    objective = sum(c.objective for c in fixed)
    return _whole(objective + bound.within(budget - price), items), price, objective, bound.rows


def _whole(bound: float, items: list[Candidate]) -> Any:
    """An objective bound rounded down where every objective is whole (they sum to a whole number)."""
    if all(isinstance(c.objective, int) for c in items):
        return math.floor(bound + 1e-9)
    return bound


def _least_price(rows: list[tuple], need, price) -> Any:
    """`price` plus the least price (fractional, rounded down) at which `rows` (objective, base
    price, best ratio first) add `need` objective; None when they cannot."""
    from fractions import Fraction  # here, not at the top: most plans never need it (start-up)

    if need <= 0:
        return price
    for value, cost in rows:
        if value >= need:
            return price + math.floor(Fraction(cost) * Fraction(need) / Fraction(value))
        price = price + cost
        need = need - value
    return None


class _Ahead(dict):
    """For an advance, the credit its links to advances after position i can take off."""

    def __init__(self, i: int, by_name: dict, pos: dict):
        super().__init__()
        self.i, self.by_name, self.pos = i, by_name, pos

    def __missing__(self, name):
        pos = self.pos
        got = self[name] = sum(v for o, v in self.by_name[name].links.items() if o in pos and pos[o] > self.i)
        return got


def by_price(items: list[Candidate]) -> list[Candidate]:
    """Dearest first, by base price then name: the runtime's order of preference."""
    return sorted(items, key=lambda c: (c.base, c.name), reverse=True)


def _last_links(order: list[Candidate]) -> dict[str, int]:
    """For each advance of a visiting order, the last position of an advance it has a credit
    link with (-1: none)."""
    pos = {c.name: i for i, c in enumerate(order)}
    return {c.name: max([pos[o] for o in c.links if o in pos], default=-1) for c in order}


def _visiting_order(items: list[Candidate], machine: SameTurnMachine) -> tuple[list, dict]:
    """The advances in the order a run visits them, and for each the last position of an
    advance it has a credit link with (-1: none).

    Dearest first (by base price, then name: the runtime's order of preference) when the
    machine has abilities; otherwise in an order that keeps few advances with links to later
    ones open (the signature): the specific-credit links of the shipped rulebooks form paths
    and stars, which this greedy order visits with at most one or a few open at a time."""
    items = by_price(items)
    if not machine.abilities:
        items = _few_open_links(items)
    return items, _last_links(items)


def _links_to(c: Candidate, sig: frozenset) -> Any:
    """The specific credit between `c` and the advances of a signature."""
    return sum(c.links.get(a, 0) for a in sig) if sig else 0


def _still_open(sig: frozenset, i: int, last_link: dict) -> frozenset:
    """The advances of a signature with a link to one after position i."""
    return frozenset(a for a in sig if last_link[a] > i) if sig else sig


class ProgrammeStopped(Exception):
    """A programme given a limit of cells (`stats["cell_limit"]`) passed it."""


class _Programme:
    """The programme's fixed terms (the budget, the card limit, the payment, the plans asked
    for, the floor) and the heap of the best entries its runs found."""

    def __init__(self, cands: list[Candidate], budget, max_new, spent: Callable, limit0: int, top: int, floor,
                 stats: dict):
        self.budget, self.max_new, self.spent, self.limit0, self.top, self.floor = \
            budget, max_new, spent, limit0, top, floor
        # the count of advances is part of the state only under a card limit (the entries carry
        # it for the ranking: it adds up like the objective)
        self.count_step = int(max_new is not None)
        self.room = math.inf if max_new is None else max_new
        # the entries' masks have a bit per rulebook position
        self.size = max([c.rank for c in cands], default=0) + 1
        # the highest hand limit any purchase can have (it never hands over more)
        self.limit_max = limit0 + sum(max(0, c.hand) for c in cands)
        self.stats = stats
        stats.setdefault("width", 0)
        stats.setdefault("runs", 0)
        self.best: list[tuple] = []  # min-heap of the top keys

    def beaten(self, reach: tuple | None) -> bool:
        """Whether `top` sets already found rank above every purchase of a run (never, for a run
        without a `reach`): its objective bound is below the k-th best's objective, or reaches it
        only exactly while even the least price that objective needs (fractional) hands over
        more than the k-th best at the highest hand limit."""
        if reach is None or len(self.best) < self.top:
            return False
        kth = self.best[0][0]
        bound, price, objective, rows = reach
        if abs(bound - float(kth[0])) > 1e-9:
            return bound < float(kth[0])
        price = _least_price(rows, kth[0] - objective, price)
        if price is None:
            return True
        least = self.spent(price, self.limit_max)
        return least is None or least > -kth[1]

    def run(self, items: list[Candidate], forced, machine: SameTurnMachine) -> None:
        """One run of the programme over `items` (those in `forced` always bought), its best
        entries added to the heap."""
        items, last_link = _visiting_order(items, machine)
        by_name = {c.name: c for c in items}
        pos = {c.name: i for i, c in enumerate(items)}
        # state: (machine state, hand-limit change, advances bought, signature) -> {price: [entries]}
        # entry: (objective, credit, -advances, mask). The mask has bit (size - 1 - position) for
        # each advance bought: between sets of the same size the larger mask holds the advance
        # that comes first in the rulebook among those not in both, as the ranking prefers.
        layer: dict = {(machine.start, 0, 0, frozenset()): {0: [(0, 0, 0, 0)]}}
        for i, c in enumerate(items):
            layer = self._step(layer, c, i, c.name in forced, machine, last_link)
            self._count(layer)
            if self.floor is not None:
                _cut_below(layer, machine, self.budget, self.floor, _Bound(items[i + 1:]))
            if any(k[3] for k in layer):
                layer = _prune_signatures(layer, _Ahead(i, by_name, pos), self.top)
            self._measure(layer, machine)
        self.stats["runs"] += 1
        self._collect(layer, machine)

    def _count(self, layer: dict) -> None:
        """Add the cells (state and price) a layer holds to `stats["cells"]`; past
        `stats["cell_limit"]`, where the caller gives one, stop (ProgrammeStopped)."""
        stats = self.stats
        stats["cells"] = stats.get("cells", 0) + sum(len(cells) for cells in layer.values())
        if "cell_limit" in stats and stats["cells"] > stats["cell_limit"]:
            raise ProgrammeStopped("the programme's limit of cells")

    def _measure(self, layer: dict, machine: SameTurnMachine) -> None:
        """The widest signature and the most machine states a layer holds (benchmarks read them)."""
        stats = self.stats
        stats["width"] = max([stats["width"]] + [len(k[3]) for k in layer])
        if machine.abilities:
            stats["machine_states"] = max(stats.get("machine_states", 0), len({k[0] for k in layer}))

    def _step(self, layer: dict, c: Candidate, i: int, must: bool, machine: SameTurnMachine,
              last_link: dict) -> dict:
        """The next layer: every cell of `layer` without `c` (unless it must be bought) and with it."""
        new: dict = {}
        # c joins the signature of the cells that buy it when it has a link to a later advance
        opened = frozenset([c.name]) if last_link[c.name] > i else frozenset()
        for key, cells in layer.items():
            if not must:
                self._skip(new, key, cells, i, last_link)
            if key[2] < self.room:
                self._buy(new, key, cells, c, _still_open(key[3] | opened, i, last_link), machine)
        return {k: v for k, v in new.items() if v}  # without the states whose prices all went over

    def _skip(self, new: dict, key: tuple, cells: dict, i: int, last_link: dict) -> None:
        """Add to `new` the cells of state `key` without the advance at position i: only the
        signature changes (it loses the advances whose links all end by i)."""
        ms, hd, cnt, sig = key
        target = new.setdefault((ms, hd, cnt, _still_open(sig, i, last_link)), {})
        for price, entries in cells.items():
            _merge(target, price, entries, self.top)

    def _buy(self, new: dict, key: tuple, cells: dict, c: Candidate, sig2: frozenset, machine: SameTurnMachine
             ) -> None:
        """Add to `new` the cells of state `key` with `c` bought (signature `sig2`): the machine's
        next state and price, c's objective, credit and bit; prices the budget cannot reach are
        dropped."""
        ms, hd, cnt, sig = key
        ms2, dprice = machine.step(ms, c.name)
        off = machine.most_off(ms2)
        # a specific credit between c and an advance of the signature no longer counts
        dcredit = c.credit - _links_to(c, sig)
        target = new.setdefault((ms2, hd + c.hand, cnt + self.count_step, sig2), {})
        o, bit = c.objective, 1 << (self.size - 1 - c.rank)
        for price, entries in cells.items():
            p2 = price + dprice
            if p2 - off <= self.budget:
                _merge(target, p2, [(e[0] + o, e[1] + dcredit, e[2] - 1, e[3] | bit) for e in entries], self.top)

    def _collect(self, layer: dict, machine: SameTurnMachine) -> None:
        """Complete each cell's price by the abilities still waiting, look up its least spend, and
        keep the `top` best keys in the heap."""
        for (ms, hd, cnt, sig), cells in layer.items():
            end = machine.finish(ms)
            limit = self.limit0 + hd
            for price, entries in cells.items():
                total = price + end
                paid = self.spent(total, limit)
                if paid is not None:
                    self._keep(entries, total, paid, limit)

    def _keep(self, entries: list, total, paid, limit: int) -> None:
        """The entries of one cell (best first) into the heap, while they rank among the `top`."""
        for e in entries:
            entry = ((e[0], -paid, e[1], e[2], e[3]), total, paid, limit)
            if not push_best(self.best, entry, self.top):
                break  # entries are sorted: the rest rank lower

    def found(self, cands: list[Candidate]) -> list[tuple]:
        """The heap, best first, each key's last part, a mask with bit (size - 1 - position) per
        advance, back to the tuple of -positions the rest of the planner compares, and the names
        bought."""
        ranks = {c.rank: c.name for c in cands}
        found = []
        for key, price, paid, limit in sorted(self.best, reverse=True):
            chosen = _positions(key[4], self.size)
            found.append((key[:4] + (tuple(-r for r in chosen),), [ranks[r] for r in chosen], price, paid, limit))
        return found


def push_best(heap: list, entry: tuple, top: int) -> bool:
    """Keep `entry` in the min-heap of the `top` best entries (ranked by entry[0]); False when
    it ranks below all of them, a full heap."""
    if len(heap) < top:
        heappush(heap, entry)
    elif entry[0] > heap[0][0]:
        heapreplace(heap, entry)
    else:
        return False
    return True


def _prune_signatures(layer: dict, ahead: dict, top: int) -> dict:
    """Drop entries that `top` others of the same machine state, hand-limit change, count and
    price beat whatever is added later: a higher objective, or the same objective and more
    credit than the links still to come can take off their own signature's advances."""
    groups: dict = {}
    for key in layer:
        if key[3]:
            groups.setdefault(key[:3], []).append(key)
    for keys in groups.values():
        if len(keys) > 1:
            _prune_group(layer, keys, ahead, top)
    return {k: v for k, v in layer.items() if v}


def _prune_group(layer: dict, keys: list, ahead: dict, top: int) -> None:
    """_prune_signatures within the states `keys`, which differ only in their signature."""
    totals = {key[3]: sum(ahead[x] for x in key[3]) for key in keys}
    for price, pool in _pool_by_price(layer, keys).items():
        if len(pool) > top:
            _drop(layer, keys, price, _doomed(pool, totals, ahead, top))


def _pool_by_price(layer: dict, keys: list) -> dict:
    """The entries of the states `keys` gathered by price, each with its state's signature and
    where it is: (entry, signature, (position of its state in `keys`, position in its cell))."""
    prices: dict = {}
    for k, key in enumerate(keys):
        for price, entries in layer[key].items():
            prices.setdefault(price, []).extend((e, key[3], (k, j)) for j, e in enumerate(entries))
    return prices


def _drop(layer: dict, keys: list, price, doomed: set) -> None:
    """Remove the entries whose places are `doomed` from the cells of `keys` at `price`."""
    for k, key in enumerate(keys):
        entries = layer[key].get(price)
        if entries:
            _replace(layer[key], price, [e for j, e in enumerate(entries) if (k, j) not in doomed])


def _doomed(pool: list, totals: dict, ahead: dict, top: int) -> set:
    """The places of the entries of one price (entry, signature, place) that `top` others surely beat."""
    pool.sort(key=lambda x: (x[0][0], x[0][1]), reverse=True)  # objective, then credit
    doomed = set()
    margin = _Margin(ahead)
    start = 0  # where the block of entries with this objective starts
    for i, (e2, sig2, place) in enumerate(pool):
        if e2[0] != pool[start][0][0]:
            start = i
        # `top` entries with a higher objective, or enough of this one with surely more credit
        if start >= top or _outranked(pool[start:], e2, sig2, totals, margin, top - start):
            doomed.add(place)
    return doomed


class _Margin(dict):
    """For two signatures (s1, s2), the credit the links still to come can take off the
    advances of s1 that are not in s2."""

    def __init__(self, ahead: dict):
        super().__init__()
        self.ahead = ahead

    def __missing__(self, pair):
        got = self[pair] = sum(self.ahead[x] for x in pair[0] - pair[1])
        return got


def _outranked(block: list, e2: tuple, sig2: frozenset, totals: dict, margin: _Margin, need: int) -> bool:
    """Whether `need` entries of `block` (one objective, most credit first) keep more credit than
    `e2` whatever the links still to come take off (all of their signature's, or only those of
    advances not in e2's signature: e2 loses those too)."""
    for e1, sig1, _ in block:
        if e1[0] != e2[0] or e1[1] <= e2[1]:
            break  # sorted by credit: no later one has more
        if e1[1] - totals[sig1] > e2[1] or e1[1] - margin[sig1, sig2] > e2[1]:
            need -= 1
            if need <= 0:
                return True
    return False


def _links_among(items: list[Candidate]) -> dict[str, set]:
    """Each advance's credit links to the others of `items`."""
    names = {c.name for c in items}
    return {c.name: {o for o in c.links if o in names} for c in items}


def _open_cost(adj: dict, open_: set, done: set, index: dict, v: str) -> tuple:
    """How visiting `v` next leaves the links: (advances left with a link to an unvisited one,
    minus the open ones it links to, its position)."""
    after = sum(1 for x in open_ if _links_left(adj[x], done, v))
    if v not in open_ and _links_left(adj[v], done, v):
        after += 1
    return (after, -sum(1 for y in adj[v] if y in open_), index[v])


def _links_left(links: set, done: set, v: str | None) -> bool:
    """Whether a link goes to an advance not yet visited other than `v`."""
    return any(y != v and y not in done for y in links)


def _few_open_links(items: list[Candidate]) -> list[Candidate]:
    """A visiting order that keeps the number of visited advances with a link to an unvisited
    one small (greedy: next the advance that leaves the fewest open, then the one closing most
    links, then the given order)."""
    adj = _links_among(items)
    if not any(adj.values()):
        return items
    index = {c.name: i for i, c in enumerate(items)}
    done: set = set()
    open_: set = set()
    left = dict(index)
    order = []
    while left:
        v = min(left, key=functools.partial(_open_cost, adj, open_, done, index))
        del left[v]
        done.add(v)
        order.append(v)
        open_ = {x for x in open_ | {v} if _links_left(adj[x], done, None)}
    by_name = {c.name: c for c in items}
    return [by_name[v] for v in order]


def link_width(cands: list[Candidate]) -> int:
    """The most advances with a link to a later one that the visiting order of the machine-free
    runs keeps open at once: every signature is a subset of them, so at most 2^w signatures."""
    order = _few_open_links(by_price(cands))
    last = list(_last_links(order).values())
    return max([sum(1 for a in range(i + 1) if last[a] > i) for i in range(len(order))], default=0)


class _Bound:
    """The fractional-knapsack bound of the objective the advances still to visit can add
    within a price room (those worth something, by objective per base price)."""

    def __init__(self, rest: list[Candidate]):
        rows = [(c.objective, c.base) for c in rest if c.objective > 0]
        rows.sort(key=lambda r: float("inf") if r[1] <= 0 else r[0] / r[1], reverse=True)
        self.rows = rows
        self.memo: dict = {}

    def within(self, room) -> float:
        """The bound within a price room."""
        got = self.memo.get(room)
        if got is None:
            got = 0.0
            left = room
            for v, b in self.rows:
                if b <= left:
                    got = got + v
                    left = left - b
                else:
                    got = got + float(v) * max(0, left) / b
                    break
            self.memo[room] = got
        return got


def _cut_below(layer: dict, machine: SameTurnMachine, budget, floor, bound: _Bound) -> None:
    """Drop the entries that cannot reach `floor` even with the bound of the advances still to
    visit within the budget (widened by what the open abilities can still take off)."""
    floor = float(floor) - 1e-9
    for key in list(layer):
        cells = layer[key]
        off = machine.most_off(key[0])
        for price in list(cells):
            ub = bound.within(budget + off - price)
            _replace(cells, price, [e for e in cells[price] if e[0] + ub >= floor])
        _replace(layer, key, cells)


def stopped_bound(best, bounds: Iterable):
    """What no set a walk stopped at its work limit left unexamined can exceed: the best found,
    or the bound of the branch each level of the walk was in (each covers every later branch of
    its level), rounded up to a whole number so that both engines print it alike (a float where
    the objective is one). Shared by the single-use search and the two-turn look-ahead."""
    at_most = max([best] + [math.ceil(b) for b in bounds if b is not None])
    return float(at_most) if isinstance(best, float) else at_most
