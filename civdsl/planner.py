"""The purchase planner: which advances to buy this turn, and how to pay for them.

`civdsl plan` searches every set of advances a player may buy this turn for the one that
maximises an objective (victory points by default), prices it with the rulebook's own credit
engine (`runtime.prices`, so credits, one-time discounts and free advances are the rulebook's,
never re-derived here) and works out the payment: which commodity cards and how many treasury
tokens to turn in so that the overpayment is as small as the rules allow. `civdsl hand` values
a hand of commodity cards.

Rules the planner applies, and where they come from:
- prices: `runtime.prices` under the rulebook's declared credit policy; credits only from
  advances held before this turn; one copy of each advance; advances of `cost unknown` are
  never bought (they are listed as such);
- prerequisites (`requires`) must be held before this turn (1981 22.3.14 "Law must be acquired
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

The search is exact. Candidates that carry same-turn abilities (discount, free_advance) or a
hand-limit ability are decided first; the rest are visited in order of objective per price.
Budget pruning uses the price without same-turn reductions less the most those reductions
could take off; the objective bound is the fractional knapsack of the undecided advances; ties
are bounded too (smallest spend any completion could reach, most credit it could gain). Every
set the search keeps is priced exactly, and the plans it reports are priced by runtime.prices.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

import click

from . import runtime
from .state import StateError, check_names, split_names

SAME_TURN_ABILITIES = ("discount", "free_advance")


# --- objectives ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Objective:
    """What a plan maximises: the sum over the advances bought of `values[name]`."""

    name: str  # "vp", "points", "cards" or the expression's text
    label: str  # how to say one unit of it ("VP", "points", "advances", or the expression)
    values: dict

    def of(self, names: Iterable[str]):
        return sum(self.values[n] for n in names)


# Names an objective expression may read, besides the rulebook's constants and group ids.
ATTRIBUTES = {
    "cost": "printed cost",
    "vp": "victory points",
    "group_count": "number of groups (1 or 2)",
    "credit_total": "group credit points it gives",
    "specific_total": "specific credit points it gives to named advances",
    "supply": "cards of it in the box (0 when the rulebook does not limit them)",
}


def objective(module, spec: str | None = None) -> Objective:
    """`vp`, `points` (printed cost), `cards` (one per advance) or an expression per advance.

    Without a spec: victory points where the edition gives every advance some, else points
    (the editions without victory points per advance score the printed costs).
    """
    advances = module.ADVANCES
    if spec is None or spec.strip() == "":
        spec = "vp" if all(a["vp"] is not None for a in advances.values()) else "points"
    spec = spec.strip()
    if spec == "vp":
        missing = [n for n, a in advances.items() if a["vp"] is None]
        if missing:
            raise StateError(f"--objective vp: {module.EDITION['name']} gives no victory points to advances "
                             f"(e.g. {missing[0]}); use --objective points (printed cost) or cards")
        return Objective("vp", "VP", {n: a["vp"] for n, a in advances.items()})
    if spec == "points":
        return Objective("points", "points", {n: a["cost"] or 0 for n, a in advances.items()})
    if spec == "cards":
        return Objective("cards", "advances", {n: 1 for n in advances})
    expr = _parse_expression(spec)
    return Objective(spec, spec, {n: _evaluate_for(module, expr, n, spec) for n in advances})


def _parse_expression(text: str):
    """Parse one expression with the rulebook grammar (no code is generated from it)."""
    if "\n" in text or "\r" in text or len(text) > 500:
        raise StateError("--objective: an expression is one line of at most 500 characters")
    from .diagnostics import Diagnostics
    from .parser import parse
    from .syntax import to_syntax

    diags = Diagnostics()
    source = f'language 1\nedition objective "objective"\nconst objective = {text}\n'
    tree = parse(source, "--objective", diags)
    ast = to_syntax(tree, "--objective", diags) if tree is not None else None
    items = ast.items if ast is not None else []
    if diags.has_errors or len(items) != 1 or items[0].kind != "const":
        why = diags.errors[0].message if diags.has_errors else "not a single expression"
        raise StateError(f"--objective {text!r}: {why} (write vp, points, cards or an expression over "
                         f"{', '.join(ATTRIBUTES)} and group names, e.g. \"vp * 100 + cost\")")
    return items[0].value[0]


def _evaluate_for(module, expr, name: str, text: str):
    from .expressions import EvalError, evaluate

    adv = module.ADVANCES[name]
    values = {
        "cost": adv["cost"], "vp": adv["vp"], "group_count": len(adv["groups"]),
        "credit_total": sum(adv["credits"].values()), "specific_total": sum(adv["specific"].values()),
        "supply": adv["supply"] or 0,
    }

    def lookup(node):
        head = node.parts[0]
        if len(node.parts) == 1:
            if head in values:
                if values[head] is None:
                    raise EvalError(f"`{head}` is unknown for {name}", node.span)
                return values[head]
            if head in module.GROUPS:
                return 1 if head in adv["groups"] else 0
            if head in module.CONSTS:
                return module.CONSTS[head]
        known = ", ".join(list(values) + list(module.GROUPS))
        raise EvalError(f"unknown name `{node.dotted}` (an objective reads {known} and the rulebook's constants)",
                        node.span)

    try:
        value = evaluate(expr, lookup)
    except EvalError as exc:
        raise StateError(f"--objective {text!r}: {exc}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise StateError(f"--objective {text!r}: gives {value!r} for {name}, not a number")
    return runtime.number(value)


# --- the hand and the payment ---------------------------------------------------------------

_CARD_RE = re.compile(r"^\s*(?:(\d+)\s*[x×*]?\s+)?(.*?)(?:\s*[x×*]\s*(\d+))?\s*$", re.I)


def parse_cards(module, text: str | None) -> dict[str, int]:
    """`"Grain x3, Salt x2, Oil"` (also `3 Grain`, `Grain*3`) -> {"Grain": 3, "Salt": 2, "Oil": 1}."""
    cards: dict[str, int] = {}
    lowered = {c.lower(): c for c in module.COMMODITIES}
    for part in split_names(text):
        m = _CARD_RE.match(part)
        count = int(m.group(1) or m.group(3) or 1) if m else 1
        name = (m.group(2) if m else part).strip()
        name = lowered.get(name.lower(), name)
        check_names([name], module.COMMODITIES, "commodity", "--cards")
        cards[name] = cards.get(name, 0) + count
    return cards


@dataclass(frozen=True)
class Payment:
    """What to hand over for a purchase whose total price after credits is `price`."""

    price: int
    cards: dict  # commodity -> cards turned in
    card_value: Any
    treasury: int  # tokens turned in
    treasury_value: int  # points per token
    paid: Any
    overpayment: Any
    kept: dict  # commodity -> cards kept
    kept_value: Any
    kept_cards: int
    hand_limit: int
    treasury_left: int

    def to_dict(self) -> dict:
        return {"price": self.price, "cards": dict(self.cards), "card_value": runtime.number(self.card_value),
                "treasury": self.treasury, "treasury_value": self.treasury_value, "paid": runtime.number(self.paid),
                "overpayment": runtime.number(self.overpayment), "kept": dict(self.kept),
                "kept_value": runtime.number(self.kept_value), "kept_cards": self.kept_cards,
                "hand_limit": self.hand_limit, "treasury_left": self.treasury_left}


class PaymentTable:
    """Every way to turn in cards, reduced to (value paid, cards turned in) -> best hand kept.

    A commodity's k cards pay set_value(k, face); the k of each commodity are chosen
    independently, so a small dynamic programme over commodities lists every reachable
    (value, cards) pair with the most valuable hand that can be kept for it. Treasury then
    covers the rest, in whole tokens, never more than needed.
    """

    def __init__(self, module, cards: dict[str, int], treasury: int, treasury_value: int):
        self.module = module
        self.treasury = int(treasury)
        self.tv = int(treasury_value)
        self.names = sorted(n for n, k in cards.items() if k > 0)
        self.counts = [int(cards[n]) for n in self.names]
        self.values = []
        for name, n in zip(self.names, self.counts):
            face = module.COMMODITIES[name]["value"]
            self.values.append([0] + [runtime.number(module.set_value(k, face)) for k in range(1, n + 1)])
        self.total_cards = sum(self.counts)
        self.hand_value = sum(v[-1] for v in self.values)
        states: dict[tuple, tuple] = {(0, 0): (0, ())}
        for n, f in zip(self.counts, self.values):
            new: dict[tuple, tuple] = {}
            for (value, used), (kept, ks) in states.items():
                for k in range(n + 1):
                    key = (value + f[k], used + k)
                    cand = (kept + f[n - k], ks + (k,))
                    old = new.get(key)
                    if old is None or cand[0] > old[0]:
                        new[key] = cand
            states = new
        self.options = states
        self._levels: dict[int, list] = {}
        self._spent: dict[tuple, Any] = {}

    def levels(self, limit: int) -> list:
        """Sorted card values payable while keeping at most `limit` cards."""
        got = self._levels.get(limit)
        if got is None:
            need = max(0, self.total_cards - limit)
            got = sorted({v for (v, used) in self.options if used >= need})
            self._levels[limit] = got
        return got

    def budget(self, limit: int):
        """The largest total price payable: every card plus all the treasury."""
        levels = self.levels(limit)
        return levels[-1] + self.treasury * self.tv

    def spent(self, price, limit: int):
        """The least that can be handed over for `price` (None if unaffordable)."""
        key = (price, limit)
        if key in self._spent:
            return self._spent[key]
        levels = self.levels(limit)
        best = None
        i = bisect.bisect_left(levels, price)
        if i < len(levels):
            best = levels[i]  # cards alone, no treasury
        j = bisect.bisect_left(levels, price - self.treasury * self.tv)
        if j < i:
            if self.tv == 1:
                best = price
            else:
                over = min((v - price) % self.tv for v in levels[j:i])
                best = price + over if best is None else min(best, price + over)
        self._spent[key] = best
        return best

    def tokens_for(self, price, card_value) -> int:
        """Treasury tokens needed on top of `card_value`: exactly enough, never more."""
        short = price - card_value
        return 0 if short <= 0 else -(-short // self.tv)

    def best(self, price, limit: int) -> Payment | None:
        """The payment with the least overpayment; then the most value kept (cards and treasury),
        then the fewest cards turned in."""
        need = max(0, self.total_cards - limit)
        choice = None
        for (value, used), (kept, ks) in self.options.items():
            if used < need:
                continue
            t = self.tokens_for(price, value)
            if t > self.treasury:
                continue
            paid = value + t * self.tv
            rank = (paid - price, -(kept + (self.treasury - t) * self.tv), used, ks)
            if choice is None or rank < choice[0]:
                choice = (rank, value, t, kept, ks)
        if choice is None:
            return None
        _, value, t, kept, ks = choice
        given = {n: k for n, k in zip(self.names, ks) if k}
        left = {n: c - k for n, c, k in zip(self.names, self.counts, ks) if c - k}
        return Payment(price=price, cards=given, card_value=value, treasury=t, treasury_value=self.tv,
                       paid=value + t * self.tv, overpayment=value + t * self.tv - price, kept=left,
                       kept_value=kept, kept_cards=sum(left.values()), hand_limit=limit,
                       treasury_left=self.treasury - t)


def hand_report(module, cards: dict[str, int]) -> dict:
    """Each set's value (set_value of its cards), zero-value cards, and the total."""
    value = runtime.hand_value(module, {n: k for n, k in cards.items() if k})
    for s in value["sets"]:
        s["zero_value"] = s["face"] == 0
    value["cards"] = sum(cards.values())
    value["zero_value_cards"] = sum(s["cards"] for s in value["sets"] if s["zero_value"])
    return value


# --- the rulebook's limits ------------------------------------------------------------------

def base_hand_limit(module, facts: dict, override: int | None = None) -> tuple[int, str]:
    """The hand limit before advances' abilities, and where it comes from."""
    if override is not None:
        return int(override), "--hand-limit"
    table = module.TABLES.get("hand_limit_by_players")
    if table is not None and "players" in facts:
        return int(runtime.lookup(table, facts["players"])), f"hand_limit_by_players({facts['players']})"
    if "hand_limit" in module.CONSTS:
        return int(module.CONSTS["hand_limit"]), "const hand_limit"
    if table is not None:
        raise StateError("the hand limit depends on the number of players (table hand_limit_by_players): "
                         "give `players` in the state (or --set players=N), or pass --hand-limit N")
    raise StateError(f"{module.EDITION['name']} declares no hand limit (const hand_limit or table "
                     "hand_limit_by_players): pass --hand-limit N")


_INFO: dict[int, tuple] = {}


def _info(module) -> dict:
    """Per-advance facts the search reads often, computed once per compiled module."""
    got = _INFO.get(id(module))
    if got is not None and got[0] is module:
        return got[1]
    info = {}
    for name, adv in module.ADVANCES.items():
        by_kind: dict[str, list] = {}
        for kind, args in adv["abilities"]:
            by_kind.setdefault(kind, []).append(args)
        info[name] = {
            "abilities": by_kind,
            "hand_delta": sum(a["delta"] for a in by_kind.get("hand_limit", ())),
            "free_credits": sum(a["amount"] for a in by_kind.get("free_credits", ())),
            "group_credit": sum(adv["credits"].values()),
        }
    _INFO[id(module)] = (module, info)
    return info


def _abilities(module, name: str, kind: str) -> list[dict]:
    return _info(module)[name]["abilities"].get(kind, [])


def _hand_delta(module, name: str) -> int:
    return _info(module)[name]["hand_delta"]


# --- the purchase problem -------------------------------------------------------------------

@dataclass
class Choice:
    """A set of advances the search kept, with its ranking key (larger is better)."""

    key: tuple
    buys: tuple  # names, in rulebook order
    price: Any
    spent: Any
    objective: Any
    credit: Any
    hand_limit: int


class PurchaseProblem:
    """One player's purchase this turn: candidates, their prices, the budget and the payment."""

    def __init__(self, module, holds, facts: dict, obj: Objective, *, want=(), avoid=(), among=None,
                 hand_limit: int | None = None, payments: dict | None = None):
        self.module = module
        self.options = {"want": tuple(want), "avoid": tuple(avoid), "among": among, "hand_limit": hand_limit}
        self.holds = tuple(holds)
        self.held = frozenset(self.holds)
        self.facts = facts
        self.objective = obj
        self.extra = dict(facts.get("credits") or {})
        advances = module.ADVANCES
        self.order = {n: i for i, n in enumerate(advances)}
        check_names(list(want), advances, "advance", "--want")
        check_names(list(avoid), advances, "advance", "--avoid")
        if among is not None:
            check_names(list(among), advances, "advance", "among")
        avoid = set(avoid)
        self.excluded: list[dict] = []
        cands: list[str] = []
        for name, adv in advances.items():
            if name in self.held or (among is not None and name not in among):
                continue
            why = None
            if name in avoid:
                why = "avoided (--avoid)"
            elif adv["cost"] is None:
                why = "its cost is unknown in this rulebook: never bought"
            else:
                missing = [r for r in adv["requires"] if r not in self.held]
                if missing:
                    why = f"needs {', '.join(missing)} held before this turn"
            if why:
                self.excluded.append({"advance": name, "why": why})
            else:
                cands.append(name)
        for w in want:
            if w in self.held:
                raise StateError(f"--want: {w} is already held")
            if w not in cands:
                why = next((e["why"] for e in self.excluded if e["advance"] == w), "not a candidate")
                raise StateError(f"--want: {w} cannot be bought: {why}")
        self.candidates = cands
        self.want = tuple(sorted(set(want), key=self.order.get))
        self.card_limit = module.CONSTS.get("card_limit")
        self.max_new = None if self.card_limit is None else max(0, self.card_limit - len(self.holds))
        if self.max_new is not None and len(self.want) > self.max_new:
            raise StateError(f"--want: {len(self.want)} advances, but the card limit ({self.card_limit}) "
                             f"leaves room for {self.max_new}")

        # prices before same-turn abilities: runtime.prices on every candidate that carries no
        # same-turn ability (those rows are untouched by it), and on each one that does, alone
        special_turn = [n for n in cands if any(_abilities(module, n, k) for k in SAME_TURN_ABILITIES)]
        plain = [n for n in cands if n not in special_turn]
        self.base: dict[str, Any] = {}
        if plain:
            for row in runtime.prices(module, self.holds, plain, self.extra)["items"]:
                self.base[row["advance"]] = max(0, row["price"])
        for n in special_turn:
            self.base[n] = max(0, runtime.prices(module, self.holds, [n], self.extra)["items"][0]["price"])
        self.treasury_value = runtime.prices(module, self.holds, [], self.extra)["treasury_value"]
        self.same_turn = frozenset(special_turn)
        self.discounts = {n: [a["amount"] for a in _abilities(module, n, "discount")] for n in special_turn}
        self.frees = {n: [(a["group"], a["cost_below"]) for a in _abilities(module, n, "free_advance")]
                      for n in special_turn}

        self.limit0, self.limit_source = base_hand_limit(module, facts, hand_limit)
        self.limit0 += sum(_hand_delta(module, h) for h in self.holds)
        cards = {n: int(k) for n, k in (facts.get("commodities") or {}).items()}
        self.cards = cards
        self.treasury = int(facts.get("treasury", 0) or 0)
        key = (self.treasury_value,)
        if payments is not None and key in payments:
            self.payments = payments[key]
        else:
            self.payments = PaymentTable(module, cards, self.treasury, self.treasury_value)
            if payments is not None:
                payments[key] = self.payments
        self._prepare()

    # -- exact prices ------------------------------------------------------------------------

    def exact_price(self, names) -> Any:
        """Total price of buying `names` together: base prices less same-turn abilities, the way
        runtime.prices applies them (rulebook order; the dearest eligible other advance)."""
        names = sorted(names, key=self.order.get)
        if not any(n in self.same_turn for n in names):
            return sum(self.base[n] for n in names)
        rows = [[n, self.base[n]] for n in names]
        groups = self.module.ADVANCES
        for row in rows:
            name = row[0]
            for amount in self.discounts.get(name, ()):
                others = [r for r in rows if r[0] != name and r[1] > 0]
                if others:
                    target = max(others, key=lambda r: (r[1], r[0]))
                    target[1] -= amount
            for group, below in self.frees.get(name, ()):
                eligible = [r for r in rows if r[0] != name and r[1] > 0 and group in groups[r[0]]["groups"]
                            and groups[r[0]]["cost"] < below]
                if eligible:
                    target = max(eligible, key=lambda r: (r[1], r[0]))
                    target[1] = 0
        return sum(max(0, r[1]) for r in rows)

    def hand_limit(self, names) -> int:
        return self.limit0 + sum(_hand_delta(self.module, n) for n in names)

    def credit(self, names) -> Any:
        """Credit points the advances bought give for later turns: group credits, free credit
        points, and specific credits to advances still not held."""
        info = _info(self.module)
        advances = self.module.ADVANCES
        total = 0
        for n in names:
            total += info[n]["group_credit"] + info[n]["free_credits"]
            for t, v in advances[n]["specific"].items():
                if t not in self.held and t not in names:
                    total += v
        return total

    def _credit_bound(self, name) -> Any:
        i = _info(self.module)[name]
        return i["group_credit"] + i["free_credits"] + sum(
            v for t, v in self.module.ADVANCES[name]["specific"].items() if t not in self.held)

    # -- the search --------------------------------------------------------------------------

    def _prepare(self) -> None:
        obj = self.objective.values
        module = self.module
        hand_special = {n for n in self.candidates if _hand_delta(module, n)}
        free_pool = [n for n in self.candidates if n not in self.want]
        specials = [n for n in free_pool if n in self.same_turn or n in hand_special]
        plain = [n for n in free_pool if n not in specials]

        def by_ratio(x, y):
            # objective per price, highest first (exact: cross-multiplied); free ones first, and
            # those worth nothing last; rulebook order between equals
            vx, bx, vy, by = obj[x], self.base[x], obj[y], self.base[y]
            cx = 2 if vx <= 0 else (0 if bx == 0 else 1)
            cy = 2 if vy <= 0 else (0 if by == 0 else 1)
            if cx != cy:
                return cx - cy
            if cx == 1 and vx * by != vy * bx:
                return -1 if vx * by > vy * bx else 1
            return self.order[x] - self.order[y]

        plain.sort(key=functools.cmp_to_key(by_ratio))
        self.items = specials + plain
        self.plain_start = len(specials)
        n_items = len(self.items)
        self.b = [self.base[n] for n in self.items]
        self.o = [obj[n] for n in self.items]
        self.cub = [self._credit_bound(n) for n in self.items]
        self.hd = [_hand_delta(module, n) for n in self.items]

        def max_reduction(name) -> Any:
            total = sum(self.discounts.get(name, ()))
            for group, below in self.frees.get(name, ()):
                eligible = [self.base[c] for c in self.candidates if c != name
                            and group in module.ADVANCES[c]["groups"] and module.ADVANCES[c]["cost"] < below]
                total += max(eligible, default=0)
            return total

        self.red = [max_reduction(n) if n in self.same_turn else 0 for n in self.items]
        self.red_suf = [0] * (n_items + 1)
        self.hpos_suf = [0] * (n_items + 1)
        self.cub_suf = [0] * (n_items + 1)
        self.spobj_suf = [0] * (n_items + 1)
        for i in range(n_items - 1, -1, -1):
            self.red_suf[i] = self.red_suf[i + 1] + self.red[i]
            self.hpos_suf[i] = self.hpos_suf[i + 1] + max(0, self.hd[i])
            self.cub_suf[i] = self.cub_suf[i + 1] + max(0, self.cub[i])
            sp = max(0, self.o[i]) if i < self.plain_start else 0
            self.spobj_suf[i] = self.spobj_suf[i + 1] + sp
        positives = [i for i in range(self.plain_start, n_items) if self.o[i] > 0]
        self.npos = len(positives)
        self.cum_b = [0]
        self.cum_o = [0]
        for i in positives:
            self.cum_b.append(self.cum_b[-1] + self.b[i])
            self.cum_o.append(self.cum_o[-1] + self.o[i])
        self.int_objective = all(isinstance(v, int) for v in self.o)
        self.limit_max = self.limit0 + self.hpos_suf[0] + sum(max(0, _hand_delta(module, w)) for w in self.want)
        self.budget_max = self.payments.budget(self.limit_max)

    def _plain_bound(self, q: int, cap) -> Any:
        """Fractional-knapsack bound of the objective from plain items at positions >= q."""
        r = max(q, self.plain_start) - self.plain_start
        if r >= self.npos:
            return 0
        target = self.cum_b[r] + cap
        m = bisect.bisect_right(self.cum_b, target) - 1
        gain = self.cum_o[m] - self.cum_o[r]
        if m < self.npos:
            i = self.plain_start + m
            # the m-th positive plain item, in ratio order (positives come first in plain)
            rest = target - self.cum_b[m]
            if self.int_objective and isinstance(rest, int):
                gain += (rest * self.o[i]) // self.b[i]
            else:
                gain += self.o[i]
        return gain

    def search(self, top: int = 1) -> list[Choice]:
        """The `top` best sets, best first, by (objective, -spent, credit, fewer advances, rulebook order)."""
        top = max(1, int(top))
        heap: list[tuple] = []  # min-heap of (key, names): heap[0] is the k-th best
        counter = [0]
        limit3: list = [None]  # the k-th best key's first three parts, once k sets are kept
        items, b, o, cub, hd, red = self.items, self.b, self.o, self.cub, self.hd, self.red
        n_items = len(items)
        pay = self.payments
        order = self.order
        max_new = self.max_new

        def consider(names, sumb, objective, has_same_turn, hdelta):
            counter[0] += 1
            if max_new is not None and len(names) > max_new:
                return
            price = self.exact_price(names) if has_same_turn else sumb
            limit = self.limit0 + hdelta
            spent = pay.spent(price, limit)
            if spent is None:
                return
            credit = self.credit(names)
            ranked = tuple(sorted(order[n] for n in names))
            key = (objective, -spent, credit, -len(names), tuple(-i for i in ranked))
            entry = (key, tuple(sorted(names, key=order.get)), price, spent, limit)
            if len(heap) < top:
                heapq.heappush(heap, entry)
            elif key > heap[0][0]:
                heapq.heapreplace(heap, entry)
            else:
                return
            if len(heap) == top:
                worst = heap[0][0][:3]
                if limit3[0] is None or worst > limit3[0]:
                    limit3[0] = worst

        def bound(q, sumb, objective, cubs, rch, hch):
            lbp = sumb - rch - self.red_suf[q]
            cap = self.budget_max - lbp
            if cap < 0:
                return None
            ub = objective + self.spobj_suf[q] + self._plain_bound(q, cap)
            spent = pay.spent(max(0, lbp), self.limit0 + hch + self.hpos_suf[q])
            if spent is None:
                return None
            return (ub, -spent, cubs + self.cub_suf[q])

        names: list[str] = list(self.want)

        def dfs(q, sumb, objective, cubs, rch, hch, same):
            for j in range(q, n_items):
                bd = bound(j, sumb, objective, cubs, rch, hch)
                if bd is None or (limit3[0] is not None and bd < limit3[0]):
                    break
                if max_new is not None and len(names) >= max_new:
                    break
                nb = sumb + b[j]
                nr = rch + red[j]
                if nb - nr - self.red_suf[j + 1] > self.budget_max:
                    continue
                name = items[j]
                names.append(name)
                nsame = same or name in self.same_turn
                consider(names, nb, objective + o[j], nsame, hch + hd[j])
                dfs(j + 1, nb, objective + o[j], cubs + cub[j], nr, hch + hd[j], nsame)
                names.pop()

        w_b = sum(self.base[w] for w in self.want)
        w_o = self.objective.of(self.want)
        w_c = sum(max(0, self._credit_bound(w)) for w in self.want)
        w_r = 0
        for w in self.want:
            if w in self.same_turn:
                # a wanted advance with a same-turn ability: its most possible reduction
                w_r += sum(self.discounts.get(w, ())) + sum(
                    max([self.base[c] for c in self.candidates if c != w and g in self.module.ADVANCES[c]["groups"]
                         and self.module.ADVANCES[c]["cost"] < below], default=0) for g, below in self.frees.get(w, ()))
        w_h = sum(_hand_delta(self.module, w) for w in self.want)
        w_same = any(w in self.same_turn for w in self.want)
        consider(names, w_b, w_o, w_same, w_h)
        dfs(0, w_b, w_o, w_c, w_r, w_h, w_same)
        self.visited = counter[0]
        out = sorted(heap, key=lambda e: e[0], reverse=True)
        return [Choice(key=e[0], buys=e[1], price=e[2], spent=e[3], objective=e[0][0], credit=e[0][2], hand_limit=e[4])
                for e in out]

    def root_bound(self):
        """An upper bound of the objective any purchase this turn can reach."""
        return self.objective.of(self.want) + self.spobj_suf[0] + self._plain_bound(0, max(0, self.budget_max + self.red_suf[0] - sum(self.base[w] for w in self.want)))

    # -- reporting one plan ------------------------------------------------------------------

    def plan_dict(self, choice: Choice, rank: int | None = None) -> dict:
        priced = runtime.prices(self.module, self.holds, list(choice.buys), self.extra)
        assert priced["total"] == choice.price, (priced["total"], choice.price, choice.buys)
        payment = self.payments.best(choice.price, choice.hand_limit)
        groups: dict[str, int] = {}
        specific: dict[str, int] = {}
        free = 0
        owned = self.held | set(choice.buys)
        for n in choice.buys:
            adv = self.module.ADVANCES[n]
            for g, v in adv["credits"].items():
                groups[g] = groups.get(g, 0) + v
            for t, v in adv["specific"].items():
                if t not in owned:
                    specific[t] = specific.get(t, 0) + v
            free += sum(a["amount"] for a in _abilities(self.module, n, "free_credits"))
        out = {
            "buy": list(choice.buys),
            "objective": runtime.number(choice.objective),
            "items": [{**row, "objective": runtime.number(self.objective.values[row["advance"]])} for row in priced["items"]],
            "total": choice.price,
            "spent": runtime.number(choice.spent),
            "payment": payment.to_dict() if payment else None,
            "credit_gained": {"groups": groups, "specific": specific, "free_credit_points": free,
                              "total": runtime.number(choice.credit)},
            "hand_limit": choice.hand_limit,
        }
        if rank is not None:
            out = {"rank": rank, **out}
        return out


# --- the planner's answer -------------------------------------------------------------------

def _facts(rb, state: dict | None, holds=()):
    st = rb.state(holds, dict(state or {}))
    return st.held, st.facts


def plan(rulebook, state: dict | None = None, *, holds=(), objective_spec: str | None = None, want=(), avoid=(),
         top: int = 1, explain: bool = False, horizon: int = 1, hand_limit: int | None = None, among=None) -> dict:
    """The best purchases this turn (and, with horizon 2, an estimate of the next turn's).

    `rulebook` is a Rulebook (civdsl.load) or an edition id / path; `state` the facts of a state
    file (holds, credits, commodities, treasury, players, ...).
    """
    if not hasattr(rulebook, "module"):
        from .api import load

        rulebook = load(rulebook)
    module = rulebook.module
    held, facts = _facts(rulebook, state, holds)
    obj = objective(module, objective_spec)
    if horizon not in (1, 2):
        raise StateError("--horizon is 1 (this turn) or 2 (this turn and an estimate of the next)")
    problem = PurchaseProblem(module, held, facts, obj, want=want, avoid=avoid, among=among, hand_limit=hand_limit)
    shown = max(int(top), 5 if explain else 1)
    choices = problem.search(top=shown)
    hand = hand_report(module, problem.cards)
    report: dict = {
        "rulebook": rulebook.id,
        "edition": rulebook.name,
        "objective": {"name": obj.name, "label": obj.label},
        "holds": list(held),
        "budget": {
            "hand": hand,
            "treasury": problem.treasury,
            "treasury_value": problem.treasury_value,
            "total": runtime.number(problem.payments.budget(problem.limit_max)),
        },
        "hand_limit": {"limit": problem.limit0, "from": problem.limit_source,
                       "note": "after this turn's purchases; advances bought with a hand_limit ability change it"},
        "card_limit": problem.card_limit,
        "credit_policy": module.CREDIT_POLICY,
        "plans": [],
        "not_considered": problem.excluded,
        "candidates": len(problem.candidates),
        "searched": problem.visited,
    }
    if not choices:
        need = problem.exact_price(problem.want)
        raise StateError(f"--want: {', '.join(problem.want)} cost {need} together after credits; "
                         f"the hand and treasury pay at most {report['budget']['total']}")
    report["plans"] = [problem.plan_dict(c, i + 1) for i, c in enumerate(choices[:max(1, int(top))])]
    if explain:
        report["explain"] = _explain(problem, choices)
    if horizon == 2:
        report["horizon"] = _two_turns(rulebook, problem, facts, obj, hand_limit, among)
    return report


# --- explaining -----------------------------------------------------------------------------

def _compare(best: Choice, other: Choice, label: str) -> str:
    if other.objective != best.objective:
        return (f"{runtime.number(other.objective)} {label} against {runtime.number(best.objective)}")
    if other.spent != best.spent:
        return (f"the same {runtime.number(best.objective)} {label}, but hands over {runtime.number(other.spent)} "
                f"against {runtime.number(best.spent)}")
    if other.credit != best.credit:
        return (f"the same {label} and spend, but gains {runtime.number(other.credit)} credit points for next "
                f"turn against {runtime.number(best.credit)}")
    if len(other.buys) != len(best.buys):
        return f"the same on every count, but buys {len(other.buys)} advances against {len(best.buys)}"
    return "the same on every count; the plan comes first in rulebook order"


def _explain(problem: PurchaseProblem, choices: list[Choice]) -> dict:
    best = choices[0]
    label = problem.objective.label
    runners = [{"buy": list(c.buys), "objective": runtime.number(c.objective), "spent": runtime.number(c.spent),
                "credit": runtime.number(c.credit), "why_not": _compare(best, c, label)} for c in choices[1:]]
    # For each advance not bought: the best plan that buys it.
    others = []
    budget = problem.payments.budget(problem.limit_max)
    for name in problem.candidates:
        if name in best.buys:
            continue
        alone = problem.exact_price([name] + list(problem.want))
        entry = {"advance": name, "objective": runtime.number(problem.objective.values[name]), "price": problem.base[name]}
        if alone - problem.red_suf[0] > budget:
            entry["why_not"] = f"costs {problem.base[name]} after credits; the budget is {runtime.number(budget)}"
        else:
            opts = dict(problem.options, want=tuple(problem.want) + (name,))
            forced = PurchaseProblem(problem.module, problem.holds, problem.facts, problem.objective,
                                     payments={(problem.treasury_value,): problem.payments}, **opts)
            got = forced.search(top=1)
            if not got:
                entry["why_not"] = (f"costs {problem.base[name]} after credits; with the plan's other constraints "
                                    f"no purchase including it fits the budget of {runtime.number(budget)}")
            else:
                c = got[0]
                entry["best_with_it"] = list(c.buys)
                entry["why_not"] = f"the best purchase with it ({', '.join(c.buys)}) gives " + _compare(best, c, label)
        others.append(entry)
    others.sort(key=lambda e: (-Fraction(e["objective"]), e["price"], problem.order[e["advance"]]))
    return {"runners_up": runners, "advances_not_bought": others}


# --- two turns ------------------------------------------------------------------------------

def _two_turns(rulebook, first: PurchaseProblem, facts: dict, obj: Objective, hand_limit, among) -> dict:
    """Best pair of purchases over this turn and the next, the hand and treasury assumed the same
    next turn: an estimate. This turn's advances credit next turn's prices (and unlock
    prerequisites, Mining's treasury value and hand-limit abilities)."""
    module = first.module
    payments: dict = {}
    next_facts = dict(facts)
    cache: dict[tuple, tuple] = {}

    def follow_up(buys: tuple):
        if buys in cache:
            return cache[buys]
        holds2 = first.holds + tuple(buys)
        p2 = PurchaseProblem(module, holds2, next_facts, obj, among=among, hand_limit=hand_limit, payments=payments)
        cache[buys] = (p2, None)
        return cache[buys]

    # A bound on anything next turn can reach: every advance not held priced with the credits of
    # all the others, the best treasury value, and the whole hand.
    unheld = [n for n, a in module.ADVANCES.items() if n not in first.held and a["cost"] is not None
              and (among is None or n in among)]
    best_prices = {}
    for n in unheld:
        others = [h for h in unheld if h != n]
        best_prices[n] = max(0, runtime.prices(module, first.holds + tuple(others), [n], first.extra)["items"][0]["price"])
    tv_best = max([first.treasury_value] + [a["value"] for n in unheld for a in _abilities(module, n, "treasury_value")])
    cap2 = first.payments.levels(10 ** 6)[-1] + first.treasury * tv_best
    cap2 += sum(sum(_abilities_amount(module, n)) for n in unheld)
    ratio = sorted((n for n in unheld if obj.values[n] > 0),
                   key=lambda n: (0 if best_prices[n] == 0 else 1, -Fraction(obj.values[n]) / (best_prices[n] or 1)))
    ub2 = 0
    room = cap2
    for n in ratio:
        if best_prices[n] <= room:
            room -= best_prices[n]
            ub2 += obj.values[n]
        else:
            ub2 += obj.values[n]  # the partly fitting item, counted whole
            break

    # Turn-one sets, best first, enumerated with the one-turn search bounded by what a follow-up
    # could add at most.
    best: list = [None]

    def total_key(c1: Choice, c2: Choice):
        return (c1.objective + c2.objective, -(c1.spent + c2.spent), c1.credit + c2.credit, c1.key[3:])

    def evaluate(c1: Choice):
        p2, _ = follow_up(c1.buys)
        if best[0] is not None and c1.objective + p2.root_bound() < best[0][0][0]:
            return
        got = p2.search(top=1)
        if not got:
            return
        key = total_key(c1, got[0])
        if best[0] is None or key > best[0][0]:
            best[0] = (key, c1, got[0], p2)

    one = first.search(top=1)
    evaluate(one[0])
    # every turn-one set that could still win: those whose one-turn objective plus ub2 reaches the best
    floor = best[0][0][0] - ub2 if best[0] is not None else None
    pool = _all_sets_at_least(first, floor)
    for c1 in pool:
        evaluate(c1)
    key, c1, c2, p2 = best[0]
    return {
        "estimate": True,
        "assumes": "next turn's commodity cards and treasury are the same as now; credit points chosen freely "
                   "(free_credits) are not allocated",
        "this_turn": first.plan_dict(c1),
        "next_turn": p2.plan_dict(c2),
        "total": runtime.number(c1.objective + c2.objective),
        "one_turn_best": list(one[0].buys),
        "one_turn_best_objective": runtime.number(one[0].objective),
        "turn_one_sets_examined": len(pool) + 1,
    }


def _abilities_amount(module, name):
    out = [a["amount"] for a in _abilities(module, name, "discount")]
    for a in _abilities(module, name, "free_advance"):
        out.append(a["cost_below"])
    return out


def _all_sets_at_least(problem: PurchaseProblem, floor) -> list[Choice]:
    """Every affordable set whose objective is at least `floor` (all of them when None)."""
    out: list[Choice] = []
    items, b, o, red = problem.items, problem.b, problem.o, problem.red
    n_items = len(items)
    names: list[str] = list(problem.want)
    pay = problem.payments

    def add(sumb, objective, same, hch):
        if problem.max_new is not None and len(names) > problem.max_new:
            return
        price = problem.exact_price(names) if same else sumb
        limit = problem.limit0 + hch
        spent = pay.spent(price, limit)
        if spent is None or (floor is not None and objective < floor):
            return
        credit = problem.credit(names)
        ranked = tuple(sorted(problem.order[n] for n in names))
        key = (objective, -spent, credit, -len(names), tuple(-i for i in ranked))
        out.append(Choice(key, tuple(sorted(names, key=problem.order.get)), price, spent, objective, credit, limit))

    def dfs(q, sumb, objective, rch, hch, same):
        for j in range(q, n_items):
            lbp = sumb - rch - problem.red_suf[j]
            cap = problem.budget_max - lbp
            if cap < 0:
                break
            if floor is not None and objective + problem.spobj_suf[j] + problem._plain_bound(j, cap) < floor:
                break
            if problem.max_new is not None and len(names) >= problem.max_new:
                break
            nb, nr = sumb + b[j], rch + red[j]
            if nb - nr - problem.red_suf[j + 1] > problem.budget_max:
                continue
            names.append(items[j])
            nsame = same or items[j] in problem.same_turn
            nh = hch + problem.hd[j]
            add(nb, objective + o[j], nsame, nh)
            dfs(j + 1, nb, objective + o[j], nr, nh, nsame)
            names.pop()

    w_b = sum(problem.base[w] for w in problem.want)
    w_h = sum(_hand_delta(problem.module, w) for w in problem.want)
    w_same = any(w in problem.same_turn for w in problem.want)
    w_r = sum(problem.red[problem.items.index(w)] for w in problem.want if w in problem.items)
    add(w_b, problem.objective.of(problem.want), w_same, w_h)
    dfs(0, w_b, problem.objective.of(problem.want), w_r, w_h, w_same)
    out.sort(key=lambda c: c.key, reverse=True)
    return out


# --- text output ----------------------------------------------------------------------------

def _cards_text(cards: dict) -> str:
    return ", ".join(f"{n} x{k}" for n, k in cards.items()) or "no cards"


def _plan_lines(p: dict, label: str, indent: str = "") -> list[str]:
    lines = []
    if not p["buy"]:
        lines.append(f"{indent}buy nothing")
    else:
        lines.append(f"{indent}buy {', '.join(p['buy'])}: {p['objective']} {label}, total price {p['total']}")
        width = max(len(r["advance"]) for r in p["items"])
        for row in p["items"]:
            credits = "; ".join(f"-{c['amount']} {c['from']}" for c in row["credits"])
            lines.append(f"{indent}  {row['advance']:<{width}}  {row['price']:>4}  (printed {row['printed']}"
                         f"{'; ' + credits if credits else ''})")
    pay = p["payment"]
    if pay:
        parts = []
        if pay["cards"]:
            parts.append(f"{_cards_text(pay['cards'])} (worth {pay['card_value']})")
        if pay["treasury"]:
            each = f" x {pay['treasury_value']}" if pay["treasury_value"] != 1 else ""
            parts.append(f"{pay['treasury']} treasury{each}")
        paid = " + ".join(parts) or "nothing"
        lines.append(f"{indent}pay {paid} = {pay['paid']}; overpayment {pay['overpayment']}")
        lines.append(f"{indent}keep {_cards_text(pay['kept'])} ({pay['kept_cards']} of at most {pay['hand_limit']} "
                     f"cards, worth {pay['kept_value']}) and {pay['treasury_left']} treasury")
    cg = p["credit_gained"]
    if p["buy"]:
        bits = [f"{g} {v}" for g, v in cg["groups"].items() if v]
        bits += [f"{t} {v}" for t, v in cg["specific"].items()]
        if cg["free_credit_points"]:
            bits.append(f"{cg['free_credit_points']} free credit points")
        lines.append(f"{indent}credit for next turn: {', '.join(bits) or 'none'} (total {cg['total']})")
    return lines


def render(report: dict) -> str:
    label = report["objective"]["label"]
    b = report["budget"]
    lines = [f"{report['edition']}: purchase plan maximising {report['objective']['name']}"]
    hand = b["hand"]
    sets = ", ".join(f"{s['commodity']} x{s['cards']} = {s['value']}" for s in hand["sets"]) or "no cards"
    tv = f" x {b['treasury_value']}" if b["treasury_value"] != 1 else ""
    lines.append(f"budget {b['total']}: hand {hand['total']} ({sets}) + treasury {b['treasury']}{tv}")
    hl = report["hand_limit"]
    limit = f"hand limit {hl['limit']} ({hl['from']}, before this turn's advances)"
    if report["card_limit"] is not None:
        limit += f"; card limit {report['card_limit']}"
    lines.append(limit)
    plans = report["plans"]
    for p in plans:
        head = f"plan {p['rank']}:" if len(plans) > 1 else "plan:"
        lines.append(head)
        lines.extend(_plan_lines(p, label, "  "))
    if report["not_considered"]:
        lines.append("not considered:")
        for e in report["not_considered"]:
            lines.append(f"  {e['advance']}: {e['why']}")
    ex = report.get("explain")
    if ex:
        lines.append("why this plan:")
        for r in ex["runners_up"]:
            lines.append(f"  not {', '.join(r['buy']) or 'buying nothing'}: {r['why_not']}")
        for e in ex["advances_not_bought"][:8]:
            lines.append(f"  not {e['advance']} ({e['objective']} {label}): {e['why_not']}")
        if len(ex["advances_not_bought"]) > 8:
            lines.append(f"  ... and {len(ex['advances_not_bought']) - 8} more advances (see --json)")
    hz = report.get("horizon")
    if hz:
        lines.append("two-turn look-ahead (an ESTIMATE: " + hz["assumes"] + "):")
        lines.append("  this turn:")
        lines.extend(_plan_lines(hz["this_turn"], label, "    "))
        lines.append("  next turn (estimate):")
        lines.extend(_plan_lines(hz["next_turn"], label, "    "))
        lines.append(f"  total over two turns: {hz['total']} {label} (the one-turn plan "
                     f"{', '.join(hz['one_turn_best']) or 'buying nothing'} gives {hz['one_turn_best_objective']} this turn)")
    return "\n".join(lines)


def render_hand(report: dict, name: str) -> str:
    lines = [f"{name}: hand of {report['cards']} commodity card{'s' if report['cards'] != 1 else ''}"]
    for s in report["sets"]:
        note = "  (worth nothing)" if s["zero_value"] else ""
        lines.append(f"  {s['commodity']} x{s['cards']} (face {s['face']}): {s['value']}{note}")
    lines.append(f"total: {report['total']}")
    return "\n".join(lines)


# --- commands -------------------------------------------------------------------------------

def _emit_json(data) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@click.command("plan")
@click.argument("rulebook")
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help="Player state (YAML): holds, credits, "
              "commodities, treasury, players.")
@click.option("--holds", help="Advances held before this turn (added to the state's).")
@click.option("--set", "sets", multiple=True, help="A fact, key=value (repeatable).")
@click.option("--objective", "objective_spec", help="vp (default where advances have VP), points (printed cost), "
              "cards, or an expression per advance such as \"vp * 100 + cost\".")
@click.option("--want", help="Advances the plan must buy, comma-separated.")
@click.option("--avoid", help="Advances the plan must not buy, comma-separated.")
@click.option("--top", type=click.IntRange(1, 100), default=1, show_default=True, help="List the K best plans.")
@click.option("--explain", is_flag=True, help="Show why the plan beats the next best ones.")
@click.option("--horizon", type=click.IntRange(1, 2), default=1, show_default=True,
              help="2 adds a look-ahead to next turn (an estimate: the hand is assumed unchanged).")
@click.option("--hand-limit", "hand_limit", type=click.IntRange(0, None),
              help="Base hand limit, instead of the rulebook's (advances' abilities still apply).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plan_command(rulebook, state_file, holds, sets, objective_spec, want, avoid, top, explain, horizon, hand_limit,
                 as_json):
    """The advances to buy this turn that maximise an objective, their prices and the payment."""
    from .cli import _facts, _open

    rb = _open(rulebook)
    facts = _facts(state_file, sets)
    report = plan(rb, facts, holds=split_names(holds), objective_spec=objective_spec, want=split_names(want),
                  avoid=split_names(avoid), top=top, explain=explain, horizon=horizon, hand_limit=hand_limit)
    if as_json:
        _emit_json(report)
    else:
        click.echo(render(report))


@click.command("hand")
@click.argument("rulebook")
@click.option("--cards", required=True, help='Commodity cards: "Grain x3, Salt x2, Oil".')
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def hand_command(rulebook, cards, as_json):
    """The value of a hand of commodity cards: each set, worthless cards and the total."""
    from .cli import _open

    rb = _open(rulebook)
    report = hand_report(rb.module, parse_cards(rb.module, cards))
    if as_json:
        _emit_json(report)
    else:
        click.echo(render_hand(report, rb.name))
