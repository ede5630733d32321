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

import bisect
import functools
import heapq
import math
import re
from typing import Any, Iterable

from .. import handvalue, pricing, runtime
from ..records import Record
from ..state import StateError, canonical_names, split_names
from ..unknown import number

SAME_TURN_ABILITIES = ("discount", "free_advance", "acquire_all")


# --- objectives ---------------------------------------------------------------------------

class Objective(Record):
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


def objective(module, spec: str | None = None, state=None) -> Objective:
    """`vp`, `points` (printed cost), `cards` (one per advance) or an expression per advance.

    Without a spec: victory points where the edition gives every advance some, else points
    (the editions without victory points per advance score the printed costs).
    """
    spec = (spec or "").strip() or _default_objective(module)
    named = _NAMED_OBJECTIVES.get(spec.lower())
    if named is not None:
        return _vp_objective(module, state) if named is _vp_objective else named(module)
    return _expression_objective(module, spec)


def _default_objective(module) -> str:
    """`vp` where every advance that may be bought has victory points, else `points`."""
    known = [a for a in module.ADVANCES.values() if a["cost"] is not None]
    return "vp" if all(a["vp"] is not None for a in known) else "points"


def _vp_objective(module, state=None) -> Objective:
    """Each advance's victory points, under STATE's rule options where given (`vp tiers when`)."""
    advances = module.ADVANCES
    missing = [n for n, a in advances.items() if a["vp"] is None and a["cost"] is not None]
    if missing:
        raise StateError(f"--objective vp: {module.EDITION['name']} gives no victory points to advances "
                         f"(e.g. {missing[0]}); use --objective points (printed cost) or cards")
    return Objective("vp", "VP", {n: (a["vp"] if state is None else state.advance_vp(n)) or 0 for n, a in advances.items()})


def _points_objective(module) -> Objective:
    # advances of unknown cost are never bought: their objective is never read (0)
    return Objective("points", "points", {n: a["cost"] or 0 for n, a in module.ADVANCES.items()})


def _cards_objective(module) -> Objective:
    return Objective("cards", "advances", {n: 1 for n in module.ADVANCES})


def _expression_objective(module, spec: str) -> Objective:
    """An expression evaluated per advance (0 for those of unknown cost: never bought)."""
    expr = _parse_expression(spec)
    return Objective(spec, spec, {n: _evaluate_for(module, expr, n, spec) if a["cost"] is not None else 0
                                  for n, a in module.ADVANCES.items()})


# the objectives named by a word (any case)
_NAMED_OBJECTIVES = {"vp": _vp_objective, "points": _points_objective, "cards": _cards_objective}


# patterns as text, compiled (and kept by `re`) on first use: most plans use neither (start-up)
_ONE_LINE = r"[^\r\n]{0,500}"


def _parse_expression(text: str):
    """Parse one expression with the rulebook grammar (no code is generated from it)."""
    if not re.fullmatch(_ONE_LINE, text):
        raise StateError("--objective: an expression is one line of at most 500 characters")
    from ..diagnostics import Diagnostics
    from ..parser import parse
    from ..syntax import to_syntax

    diags = Diagnostics()
    source = f'language 1\nedition objective "objective"\nconst objective = {text}\n'
    tree = parse(source, "--objective", diags)
    items = to_syntax(tree, "--objective", diags).items if tree is not None else []
    if diags.has_errors or len(items) != 1 or items[0].kind != "const":
        why = diags.errors[0].message if diags.has_errors else "not a single expression"
        raise StateError(f"--objective {text!r}: {why} (write vp, points, cards or an expression over "
                         f"{', '.join(ATTRIBUTES)} and group names, e.g. \"vp * 100 + cost\")")
    return items[0].value[0]


def _evaluate_for(module, expr, name: str, text: str):
    from fractions import Fraction  # here, not at the top: only an objective or a division makes one (start-up)

    from ..expressions import EvalError, evaluate

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
    return number(value)


# --- the hand and the payment ---------------------------------------------------------------

_CARD = r"^\s*(?:(\d+)\s*[x×*]?\s+)?(.*?)(?:\s*[x×*]\s*(\d+))?\s*$"


def parse_cards(module, text: str | None, calamities: dict[str, int] | None = None) -> dict[str, int]:
    """`"Grain x3, Salt x2, Oil"` (also `3 Grain`, `Grain*3`) -> {"Grain": 3, "Salt": 2, "Oil": 1}.
    Given CALAMITIES (a dict to fill), calamity cards go there where the edition gives them a
    trade value (`const calamity_card_value`); elsewhere a calamity is no card of a hand."""
    cards: dict[str, int] = {}
    for part in split_names(text):
        m = re.match(_CARD, part, re.I)
        count = int(m.group(1) or m.group(3) or 1) if m else 1
        name = (m.group(2) if m else part).strip()
        calamity = _calamity_card(module, name) if calamities is not None else None
        if calamity is not None:
            calamities[calamity] = calamities.get(calamity, 0) + count
            continue
        # any declared name, `aka` included, in any case
        name = canonical_names(module, "commodity", [name], "--cards")[0]
        cards[name] = cards.get(name, 0) + count
    return cards


def _calamity_card(module, name: str) -> str | None:
    """The calamity NAME names, where the edition values calamity cards in a hand and NAME is no
    commodity's; else None."""
    if "calamity_card_value" not in module.CONSTS:
        return None
    if canonical_names(module, "commodity", [name], "--cards", strict=False)[0] in module.COMMODITIES:
        return None
    own = canonical_names(module, "calamity", [name], "--cards", strict=False)[0]
    return own if own in module.CALAMITIES else None


class Payment(Record):
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
    converted: dict  # commodity -> cards turned into treasury first (`card_treasury`)
    converted_treasury: int  # tokens those cards gave
    substitute: dict | None  # {"set": X, "card": Y}: one Y card completes X's set (`substitute_card`)

    def to_dict(self) -> dict:
        return {"price": self.price, "cards": dict(self.cards), "card_value": number(self.card_value),
                "treasury": self.treasury, "treasury_value": self.treasury_value, "paid": number(self.paid),
                "overpayment": number(self.overpayment), "kept": dict(self.kept),
                "kept_value": number(self.kept_value), "kept_cards": self.kept_cards,
                "hand_limit": self.hand_limit, "treasury_left": self.treasury_left,
                "converted": dict(self.converted), "converted_treasury": self.converted_treasury,
                "substitute": dict(self.substitute) if self.substitute else None}


_DONE = ("done",)
# Trade Empire's flag, commodities taken in ascending face order (PaymentTable): a set took the
# substitute and owes a donor (any later commodity's face is at least its), or a donor was given
# and owes a set (only a commodity of the same face can still take it)
_OWE = ("owe",)
_GAVE = ("gave",)
# the flag once a commodity takes a role in the substitution: the first of the set and the donor
# owes the other, the second completes it
_AFTER = {"set": {None: _OWE, _GAVE: _DONE}, "donor": {None: _GAVE, _OWE: _DONE}}


# the flags as the low digit of a group's code (PaymentTable._group_order)
_FLAG_INDEX = {None: 0, _OWE: 1, _GAVE: 2, _DONE: 3}


def _complete(flag) -> bool:
    """A substitution owed or given but not matched is no payment."""
    return flag is None or flag is _DONE


def _unchanged(layer: dict) -> dict:
    """A layer with nothing to drop."""
    return layer


def _fewest_kept(layer: dict) -> dict:
    """Drop a state of what can be paid when another with the same (value, flag) keeps no more
    cards and has at least as many tokens (the entry's first slot): every completion of the
    first is one of the second, turning in the same value with at least its tokens, so the
    values payable and their most tokens (`PaymentTable._final`) stay the same."""
    by_kept: dict = {}
    for key in layer:  # fewest cards kept first, in the layer's order between equals
        by_kept.setdefault(key[2], []).append(key)
    most: dict = {}
    out = {}
    for kept in sorted(by_kept):
        for key in by_kept[kept]:
            group, entry = (key[0], key[3]), layer[key]
            if group not in most or entry[0] > most[group]:
                most[group] = entry[0]
                out[key] = entry
    return out


class _PaymentStopped(Exception):
    """A programme of the payment table reached its work limit (PaymentTable.WORK)."""


# what stopped, in the player's words (the answer's `payment_stopped`)
PAYING = "working out what the hand can pay"
CHOOSING = "choosing the payment"


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

    # a chosen payment without converted tokens and with fewer (value, cards kept) pairs than this
    # runs the whole programme (PaymentTable._floors_pay)
    SMALL_PROGRAMME = 20_000
    PAYING, CHOOSING = PAYING, CHOOSING
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
    # hands CHOICE_WORK lets through need, since the page runs the whole programme where Python
    # runs the floors' passes (a 19-card hand under the cut: 419,294 units in the whole programme)
    CHOICE_STOP = 5_000_000

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
        self.values = [self._set_values(*c) for c in zip(self.names, self.counts, self.faces)]
        self.total_cards = sum(self.counts)
        self.order = self._programme_order()
        self.hand_value = sum(v[self.counts[i]] for i, v in enumerate(self.values))
        self._levels: dict[int, list] = {}
        self._conv: dict[int, dict] = {}
        self._budgets: dict[int, Any] = {}  # the next turn's problems ask the same limits
        # what-can-be-paid's programme per hand limit: its layers (with back-pointers) and its work,
        # or, stopped at WORK, the whole-set payments that replace it
        self._paid: dict[int, list] = {}
        self._paid_work: dict[int, int] = {}
        self._whole: dict[int, list] = {}
        # the work of what-can-be-paid's programmes so far, every hand limit's: one count [units] for
        # every table of an answer (the look-ahead's next turns have tables of their own)
        self.paying = [0] if paying is None else paying
        self.stopped: list[str] = []  # what reached the work limit (PAYING, CHOOSING), in order
        self.work = 0  # every programme's work, in WORK's units
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

    def _set_values(self, name: str, n: int, face: int) -> list:
        """What 0, 1, ... n cards of a commodity pay as a set (n + 1 with a substitute card, which
        makes a set one larger)."""
        # a set redeemed outside its native trade block may be worth more (handvalue.off_block)
        module = self.module
        value = module.OFF_BLOCK["value"] if handvalue.off_block(module, name, self.state) else module.set_value
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
        after = _AFTER["set"].get(flag)
        if after is not None and self._may_take(i, k):
            yield k, c, "set", f[k + 1], after, n - k - c
        after = _AFTER["donor"].get(flag)
        if after is not None and k + c < n:  # one of its cards left is the substitute
            yield k, c, "donor", f[k], after, n - k - c - 1

    def _may_take(self, i: int, k: int) -> bool:
        """Whether commodity i's set of k cards may take the substitute: it has a card of its own
        and a face, and stays within the deck's count of the commodity (an incomplete set)."""
        return k >= 1 and self.faces[i] > 0 and not (self.deck[i] and k + 1 > self.deck[i])

    def _layers(self, limit: int, cap=math.inf, keep: bool = False, clamp=None, work=None) -> list[dict]:
        """The programme's layers: layer i maps (value turned in, tokens converted, cards kept,
        substitution flag) of the first i commodities in `order` to (value kept, cards kept, back-pointer:
        the previous state and this commodity's move); with `keep` the value kept counts the
        tokens converted at their token value (wealth kept) and the key's tokens are cut at
        `clamp`. Without `keep` (what can be paid) the
        key's token slot is 0 and the entry holds the most tokens converted instead. Cards kept
        are counted only while the limit can bind (else 0); values above `cap` are dropped
        (values only grow). `work` ([units]) counts the moves tried; past WORK the programme stops
        (_PaymentStopped) as soon as a state's moves take it there."""
        binds = limit < self.total_cards
        prune = self._prune(keep, binds)
        work = [0] if work is None else work
        layers = [{(0, 0, 0, None): (0, 0, None)}]
        for p, i in enumerate(self.order):
            if keep:
                layers.append(prune(self._kept_layer(clamp, i, self._transitions(layers[-1], p, i, limit, binds, cap,
                                                                                  work))))
                self._check(work)
            else:  # values only grow: what can be paid needs no cap
                layers.append(prune(self._paid_step(layers[-1], p, i, limit, binds, work)))
        return layers

    def _paid_step(self, layer: dict, p: int, i: int, limit: int, binds: bool, work: list) -> dict:
        """The next layer of what can be paid: only the most tokens matter (the tokens a later
        commodity adds do not depend on them), so (value, cards kept, flag) keeps the largest,
        held in the entry's first slot (the token dimension drops out), with a back-pointer to the
        state and move that first gave it (`_paid_choice`). One loop (`_transitions` inlined: this
        programme is the table's largest), counting the moves tried per state."""
        per_card, new, most = self.rate * self.faces[i], {}, self.WORK
        get, moves_for = new.get, self._moves
        for key, entry in self._open_states(layer, p):
            moves = moves_for(i, key[3], limit - key[2])
            work[0] += len(moves)
            if work[0] > most:
                raise _PaymentStopped
            v0, kc0, tokens0 = key[0], key[2], entry[0]
            for move in moves:
                nkey = (v0 + move[3], 0, kc0 + move[5] if binds else 0, move[4])
                tokens = tokens0 + move[1] * per_card
                got = get(nkey)
                if got is None or tokens > got[0]:
                    new[nkey] = (tokens, 0, (key, (move[0], move[1], move[2], move[5])))
        return new

    def _check(self, work: list) -> None:
        """Stop a chosen payment's programme whose work passed its limit (what can be paid stops in
        `_paid_step`, at WORK)."""
        if work[0] > self.CHOICE_STOP:
            raise _PaymentStopped

    def _prune(self, keep: bool, binds: bool):
        """How a layer drops the states no completion needs: the chosen payment's by `_pareto`
        (only with converted tokens in its key), what can be paid by `_fewest_kept` (only while
        the limit binds: else every state keeps 0 cards)."""
        if keep:
            return self._pareto if self.rate else _unchanged
        return _fewest_kept if binds else _unchanged

    def _transitions(self, layer: dict, p: int, i: int, limit: int, binds: bool, cap, work: list) -> Iterable[tuple]:
        """Every move of commodity i (at position p of `order`) from every state of `layer` that
        keeps at most `limit` cards (counted only when the limit `binds`, else 0) and turns in
        at most `cap`: (state, entry, move, value turned in, cards kept). A state's cards kept
        are 0 unless the limit binds, so its room is the whole limit, never below a hand's cards."""
        for key, entry in self._open_states(layer, p):
            moves = self._moves(i, key[3], limit - key[2])
            work[0] += len(moves)
            if work[0] > self.CHOICE_STOP:  # checked per state: a layer never runs far past the limit
                raise _PaymentStopped
            for move in moves:
                v = key[0] + move[3]
                if v <= cap:
                    yield key, entry, move, v, key[2] + move[5] if binds else 0

    def _open_states(self, layer: dict, p: int) -> Iterable:
        """The states of `layer` that commodity order[p] may extend: with a substitute card, a
        donor given at a lower face can no longer find a set (faces ascend)."""
        faces, order = self.faces, self.order
        if not self.substitute or p == 0 or faces[order[p]] == faces[order[p - 1]]:
            return layer.items()
        return [(key, entry) for key, entry in layer.items() if key[3] is not _GAVE]

    def _kept_layer(self, clamp, i: int, transitions: Iterable[tuple]) -> dict:
        """The next layer of the chosen payment: the key keeps the tokens converted, cut at `clamp`
        (tokens beyond it pay nothing more: the most a price can ask of them, so states above it
        share a key, ranked by their wealth kept); the entry the wealth and cards kept and the
        back-pointer."""
        per_card = self.rate * self.faces[i]
        worth, tv = self.values[i], self.tv
        new: dict = {}
        for key, entry, (k, c, role, _, flag, kept), v, kc in transitions:
            nkey = (v, min(key[1] + c * per_card, clamp), kc, flag)
            kv, kh = entry[0] + worth[kept] + c * per_card * tv, entry[1] + kept
            old = new.get(nkey)
            # more value kept, then more cards kept (fewer turned in): the order `best` ranks
            # payments by; between equals the first found (fewer of the earlier commodities
            # turned in)
            if old is None or (kv, kh) > (old[0], old[1]):
                new[nkey] = (kv, kh, (key, (k, c, role, kept)))
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
            # one count for every hand limit asked (the hand-limit abilities bought make several)
            before = self.paying[0]
            try:
                layers = self._layers(limit, work=self.paying) if before <= self.WORK else None
            except _PaymentStopped:
                layers = None
            self.work += self.paying[0] - before
            self._paid_work[limit] = self.paying[0] - before
            got = {}
            if layers is None:
                self._stop(PAYING)
                self._whole[limit] = self._whole_sets(limit)
                for v, conv, _ in self._whole[limit]:
                    got[v] = max(got.get(v, 0), conv)
            else:
                self._paid[limit] = layers
                for (v, _, _, flag), (conv, _, _) in layers[-1].items():
                    if _complete(flag):
                        got[v] = max(got.get(v, 0), conv)
            self._conv[limit] = got
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
        for order in (by_worth, by_worth[::-1]):
            for j in range(m + 1):
                given = set(order[:j])
                moves = tuple((n, 0, None, 0) if i in given else (0, n, None, 0) if self.rate else (0, 0, None, n)
                              for i, n in enumerate(self.counts))
                if sum(mv[3] for mv in moves) <= limit:
                    conv = sum(mv[1] * self.rate * self.faces[i] for i, mv in enumerate(moves))
                    out.append((sum(worth[i] for i in given), conv, moves))
        self.work += 2 * (m + 1) * max(1, m)
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
        layer = {(0, 0, 0, None): 0}
        for p, i in enumerate(self.order):
            per_card, new = self.rate * self.faces[i] * token_value, {}
            for key, paid in self._open_states(layer, p):
                moves = self._moves(i, key[3], self.total_cards)
                self.work += len(moves)  # at most 4 states a layer: never near the limit
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
        i = bisect.bisect_left(levels, price)
        if self.rate:
            topped = self._topped_up_converted(price, limit, levels[:i])
        else:
            topped = self._topped_up(price, levels, i)
        return min(levels[i:i + 1] + topped, default=None)

    def _topped_up(self, price, levels: list, i: int) -> list:
        """The least handed over for `price` by card values below it (levels[:i]) topped up with
        whole tokens, never more than needed (empty when the treasury cannot make up any)."""
        j = bisect.bisect_left(levels, price - self.treasury * self.tv)
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

    def best(self, price, limit: int) -> Payment | None:
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
        if self._paid_work[paid] > self.CHOICE_WORK:
            return self._paid_choice(price, limit, least)
        # no payment needs more converted tokens than the price in tokens less the treasury
        clamp = max(0, self.tokens_for(price, 0) - self.treasury)
        work = [0]
        try:
            layers = self._chosen_layers(limit, price, least, clamp, work)
        except _PaymentStopped:
            self.work += work[0]
            return self._paid_choice(price, limit, least)
        self.work += work[0]
        return self._payment(price, limit, self._choose(layers, price, least))

    def _paid_choice(self, price, limit: int, least) -> Payment:
        """The payment chosen without its own programme (past CHOICE_WORK or WORK): the best, by
        `best`'s order, of what-can-be-paid's own payments (each value turned in with the most
        tokens, along its back-pointers) that hand over exactly `least`. It hands over the least
        there is; it may keep less than the best payment (it converts every card it can)."""
        self._stop(CHOOSING)
        paid = self._paid_limit(limit)
        layers = self._paid[paid]
        rows = [(key[0], entry[0], key) for key, entry in layers[-1].items() if _complete(key[3])]
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
            self.work += len(moves)
            wealth = sum(self.values[i][m[3]] for i, m in enumerate(moves)) + conv * self.tv
            rank = (-(wealth + (self.treasury - t) * self.tv), -sum(m[3] for m in moves)) + _tie_break(moves)
            if choice is None or rank < choice[0]:
                choice = (rank, value, t, wealth, moves)
        return choice

    def _payment(self, price, limit: int, choice: tuple) -> Payment:
        """The Payment of a choice (rank, value turned in, tokens, wealth kept, moves by name)."""
        _, value, t, wealth, moves = choice
        conv = sum(m[1] * self.rate * face for m, face in zip(moves, self.faces))
        roles = {m[2]: n for n, m in zip(self.names, moves) if m[2]}
        left = self._per_commodity(moves, 3)
        return Payment(price=price, cards=self._per_commodity(moves, 0), card_value=value, treasury=t,
                       treasury_value=self.tv, paid=value + t * self.tv, overpayment=value + t * self.tv - price,
                       kept=left, kept_value=wealth - conv * self.tv, kept_cards=sum(left.values()),
                       hand_limit=limit, treasury_left=self.treasury + conv - t,
                       converted=self._per_commodity(moves, 1), converted_treasury=conv,
                       substitute={"set": roles["set"], "card": roles["donor"]} if roles else None)

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
            for floor in self._floors(gains[0][None], lambda: self._floor(limit, price, least, clamp, work)):
                groups = groups or self._group_order(limit, least, limit < self.total_cards, work)
                layers = self._floored_layers(limit, least, clamp, floor, gains, groups, work)
                if any(self._tokens_paying(key, price, least) is not None for key in layers[-1]):
                    return layers
        return self._layers(limit, cap=least, keep=True, clamp=clamp, work=work)

    def _floors_pay(self, limit: int, least) -> bool:
        """Whether the floors are worth trying: with converted tokens in the key (many states per
        group), or without them where the groups are many (below that the floors' passes cost
        more than the whole programme); and only with whole-number set values (group codes)."""
        groups = (least + 1) * (limit + 1 if limit < self.total_cards else 1)
        whole = all(isinstance(x, int) for row in self.values for x in row) and isinstance(least, int)
        return whole and (self.rate > 0 or groups >= self.SMALL_PROGRAMME)

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

    def _floored_layers(self, limit: int, cap, clamp, floor, gains: list, groups: list, work: list) -> list[dict]:
        """The chosen payment's programme keeping the states that can reach `floor` (wealth kept
        plus value turned in), each layer in the whole programme's order (`_chosen_layers`)."""
        binds = limit < self.total_cards
        width = (limit + 1 if binds else 1) * 4
        prune = self._prune(True, binds)
        layers = [{(0, 0, 0, None): (0, 0, None)}]
        for p, i in enumerate(self.order):
            new = prune(self._kept_layer(clamp, i, self._transitions(layers[-1], p, i, limit, binds, cap, work)))
            self._check(work)
            rank, rest = groups[p + 1], gains[p + 1]
            live = [(key, entry) for key, entry in new.items() if entry[0] + key[0] + rest[key[3]] >= floor]
            live.sort(key=lambda item: (rank[item[0][0] * width + item[0][2] * 4 + _FLAG_INDEX[item[0][3]]],
                                        -item[0][1]))
            layers.append(dict(live))
        return layers

    def _gains(self, work: list) -> list[dict]:
        """Per position p of `order` and substitution flag: the most wealth kept plus value turned
        in that the commodities from p on can add to a state with that flag (-inf where none
        completes the substitution), the hand limit and the price left aside."""
        flags = (None, _OWE, _GAVE, _DONE)
        after = {flag: 0 if _complete(flag) else -math.inf for flag in flags}
        suffix = [after]
        for p in range(len(self.order) - 1, -1, -1):
            i = self.order[p]
            worth, per_card = self.values[i], self.rate * self.faces[i] * self.tv
            work[0] += 4 * len(self._all_moves(i, None))
            here = {flag: max((m[3] + worth[m[5]] + m[1] * per_card + after[m[4]] for m in self._all_moves(i, flag)),
                              default=-math.inf) for flag in flags}
            if self.substitute and p and self.faces[i] != self.faces[self.order[p - 1]]:
                here[_GAVE] = -math.inf  # a donor given at a lower face finds no set (`_open_states`)
            suffix.append(here)
            after = here
        return suffix[::-1]

    def _floor(self, limit: int, price, least, clamp, work: list, width: int = 48):
        """Wealth kept plus value turned in of one payment handing over exactly `least`, found by
        the chosen payment's programme keeping only the `width` states of most wealth and value
        per layer; None when that finds none (the chosen payment then runs in full)."""
        binds = limit < self.total_cards
        layer = {(0, 0, 0, None): (0, 0, None)}
        for p, i in enumerate(self.order):
            new = self._kept_layer(clamp, i, self._transitions(layer, p, i, limit, binds, least, work))
            self._check(work)
            layer = dict(heapq.nlargest(width, new.items(), key=lambda item: item[1][0] + item[0][0]))
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
                     for kc in range(span) for flag in (None, _OWE, _GAVE, _DONE)]
            if self.substitute and p and self.faces[i] != self.faces[self.order[p - 1]]:
                codes = [g for g in codes if g % 4 != _FLAG_INDEX[_GAVE]]
            # a group this far below the top cannot step past the cap: its moves need no test
            safe, width = top - max(max(s, default=0) for s in steps), span * 4
            work[0] += len(codes) * max(map(len, steps))  # at most this many moves of groups
            self._check(work)
            codes = list(dict.fromkeys(g + d for g in codes for d in (
                steps[g % width] if g <= safe else [d for d in steps[g % width] if g + d <= top])))
            orders.append(dict(zip(codes, range(len(codes)))))
        return orders

    def _group_steps(self, i: int, flag, room: int, span: int) -> list:
        """The moves of commodity i from a group with flag `flag` and `room` cards of room, as
        what they add to the group's code, in move order (a repeated one only where first met)."""
        here = _FLAG_INDEX[flag]
        steps = ((m[3] * (span or 1) + (m[5] if span else 0)) * 4 + _FLAG_INDEX[m[4]] - here
                 for m in self._moves(i, flag, room))
        return list(dict.fromkeys(steps))

    def _per_commodity(self, moves: tuple, part: int) -> dict:
        """Commodity -> one part of its move (cards turned in, converted or kept), where not 0."""
        return {n: m[part] for n, m in zip(self.names, moves) if m[part]}

    def _choose(self, layers: list[dict], price, least) -> tuple:
        """Among the final states that pay `least` exactly: (rank, value turned in, tokens,
        wealth kept, moves in the names' order) of the best by the order `best` documents."""
        choice = None
        for key, (wealth, held, _) in layers[-1].items():
            t = self._tokens_paying(key, price, least)
            if t is None:
                continue
            rank = (-(wealth + (self.treasury - t) * self.tv), -held)
            if choice is not None and rank > choice[0][:2]:
                continue
            moves = self._turned_in(layers, key)
            rank += _tie_break(moves)
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
        moves: list = [None] * len(self.names)
        for p in range(len(self.order) - 1, -1, -1):
            key, moves[self.order[p]] = layers[p + 1][key][2]
        return tuple(moves)


def _tie_break(moves: tuple) -> tuple:
    """Between equally good payments: the fewest of the alphabetically first commodities turned
    in, then converted, then substituted."""
    return (tuple(m[0] for m in moves), tuple(m[1] for m in moves), tuple(m[2] or "" for m in moves))


def hand_report(module, cards: dict[str, int], state=None, calamities: dict[str, int] | None = None) -> dict:
    """Each set's value (set_value of its cards; outside its trade block, given a state, the
    off-block value), zero-value cards, and the total; calamity cards held (CALAMITIES) at the
    edition's `calamity_card_value` each."""
    value = handvalue.hand_value(module, {n: k for n, k in cards.items() if k}, state)
    for s in value["sets"]:
        s["zero_value"] = s["face"] == 0
    value["cards"] = sum(cards.values())
    value["zero_value_cards"] = sum(s["cards"] for s in value["sets"] if s["zero_value"])
    if calamities:
        each = module.CONSTS["calamity_card_value"]
        value["calamities"] = [{"calamity": n, "cards": k, "value": each * k} for n, k in calamities.items()]
        worth = sum(c["value"] for c in value["calamities"])
        value["total"] = None if value["total"] is None else value["total"] + worth
    return value


# --- the rulebook's limits ------------------------------------------------------------------

def base_hand_limit(module, facts: dict, override: int | None = None) -> tuple[int, str]:
    """The hand limit before advances' abilities, and where it comes from."""
    if override is not None:
        return int(override), "--hand-limit"
    table = module.TABLES.get("hand_limit_by_players")
    if table is not None and "players" in facts:
        return int(runtime.lookup(table, facts["players"])), f"the rulebook's limit for {facts['players']} players"
    if "hand_limit" in module.CONSTS:
        return int(module.CONSTS["hand_limit"]), "the rulebook's limit"
    if table is not None:
        raise StateError("the hand limit depends on the number of players: give the number of players, "
                         "or the hand limit itself")
    raise StateError(f"{module.EDITION['name']} declares no hand limit (const hand_limit or table "
                     "hand_limit_by_players): pass --hand-limit N")


_INFO: dict[int, tuple] = {}


def _info(module) -> dict:
    """Per-advance facts the search reads often, computed once per compiled module."""
    got = _INFO.get(id(module))
    if got is not None and got[0] is module:
        return got[1]
    info = {name: _advance_info(adv) for name, adv in module.ADVANCES.items()}
    _INFO[id(module)] = (module, info)
    return info


def _advance_info(adv: dict) -> dict:
    """One advance's abilities by kind, hand-limit change, free credit points and group credits."""
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


def _abilities(module, name: str, kind: str) -> list[dict]:
    return _info(module)[name]["abilities"].get(kind, [])


def _hand_delta(module, name: str) -> int:
    return _info(module)[name]["hand_delta"]


# --- the purchase problem -------------------------------------------------------------------

def _by_ratio(obj: dict, eff: dict, order: dict, x: str, y: str) -> int:
    """The branch and bound's order: objective per effective price, highest first (exact:
    cross-multiplied); free ones first, those worth nothing last; rulebook order between equals."""
    vx, bx, vy, by = obj[x], max(0, eff[x]), obj[y], max(0, eff[y])
    cx, cy = _ratio_class(vx, bx), _ratio_class(vy, by)
    if cx != cy:
        return cx - cy
    if cx == 1 and vx * by != vy * bx:
        return -1 if vx * by > vy * bx else 1
    return order[x] - order[y]


def _ratio_class(value, price) -> int:
    """0: free and worth something, 1: worth something for a price, 2: worth nothing."""
    if value <= 0:
        return 2
    return 0 if price == 0 else 1


class _SearchStopped(Exception):
    """The capped branch and bound visited its limit of sets."""


class Choice(Record, frozen=False):
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

    def __init__(self, module, holds, facts: dict, obj: Objective, *, want=(), avoid=(), among=None,
                 hand_limit: int | None = None, payments: dict | None = None, work: list | None = None,
                 paying: list | None = None):
        self.module = module
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
        # what-can-be-paid's work in every payment table of the answer (PaymentTable.WORK bounds it)
        self.paying = [0] if paying is None else paying
        self.explain_stopped = 0  # --explain's searches stopped at that shared limit
        self.explain_sets = 0  # sets --explain's searches examined, against explain_cap
        self.explain_unsearched = 0  # advances left out that explain_cap left unexplained (and unbounded)
        self.explain_pending = 0  # searches --explain has still to make
        self._choose_candidates(want, avoid, among)
        self._price_candidates()
        self.limit0, self.limit_source = base_hand_limit(module, facts, hand_limit)
        self.limit0 += sum(_hand_delta(module, h) for h in self.holds)
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
                why = next((e["why"] for e in self.excluded if e["advance"] == w), "not a candidate")
                raise StateError(f"--want: {w} cannot be bought: {why}")
        self.want = tuple(sorted(set(want), key=self.order.get))
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
        return None

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
        self.treasury_value = pricing.prices(module, self.holds, [], self.extra)["treasury_value"]
        self.same_turn = frozenset(special_turn)
        self.discounts = {n: [a["amount"] for a in _abilities(module, n, "discount")] for n in special_turn}
        self.frees = self._group_abilities(special_turn, "free_advance")
        self.alls = self._group_abilities(special_turn, "acquire_all")

    def _has_same_turn_ability(self, name: str) -> bool:
        return _info(self.module)[name]["same_turn"]

    def _base_prices(self, special_turn: list[str]) -> dict[str, Any]:
        """Each candidate's price after credits, before the same-turn abilities of the others:
        those without such an ability priced together, those with one each alone."""
        module, holds, extra = self.module, self.holds, self.extra
        plain = [n for n in self.candidates if n not in special_turn]
        base: dict[str, Any] = {row["advance"]: max(0, row["price"])
                                for row in pricing.prices(module, holds, plain, extra)["items"]}
        for n in special_turn:
            priced = pricing.prices(module, holds, [n], extra)
            # a lower bound, as the search needs (a placement stopped at its cap proves one)
            base[n] = max(0, priced["items"][0]["price"] if priced["complete"] else priced["total_at_least"])
        return base

    def _group_abilities(self, advances: list[str], kind: str) -> dict[str, list[tuple]]:
        """For each of `advances`, its abilities of `kind` (free_advance, acquire_all) as (group,
        cost limit)."""
        return {n: [(a["group"], a["cost_below"]) for a in _abilities(self.module, n, kind)] for n in advances}

    def _payment_table(self, payments: dict | None) -> "PaymentTable":
        """The payment table of this hand under the abilities of advances held before the
        purchase (an advance bought takes effect only once the transaction completes, Mega
        Civilization phase 12), shared through `payments` between problems that agree on them."""
        module = self.module
        rate = max([a["rate"] for h in self.holds for a in _abilities(module, h, "card_treasury")], default=0)
        substitute = any(_abilities(module, h, "substitute_card") for h in self.holds)
        payments = {} if payments is None else payments
        key = (self.treasury_value, rate, substitute)
        if key not in payments:
            payments[key] = PaymentTable(module, self.cards, self.treasury, self.treasury_value,
                                         runtime.PlayerState(module, self.holds, self.facts), rate, substitute,
                                         self.paying)
        return payments[key]

    # -- exact prices ------------------------------------------------------------------------

    def exact_price(self, names) -> Any:
        """Total price of buying `names` together: base prices less same-turn abilities, the way
        pricing.prices applies them (SameTurnMachine: visited from the dearest down), or under
        the strict single-use credit variant pricing.prices itself."""
        names = sorted(names, key=self.order.get)
        if self.single_use:
            total, complete, least = pricing.purchase_total(self.module, self.holds, names, self.extra, self.work)
            if not complete:
                self.capped_least[tuple(names)] = least
            return total
        machine = self.machine_for(tuple(n for n in names if n in self.same_turn))
        state, price = machine.start, 0
        for name in sorted(names, key=lambda n: (machine.base[n], n), reverse=True):
            state, delta = machine.step(state, name)
            price += delta
        return price + machine.finish(state)

    def _in_group(self, name: str, group: str, below) -> bool:
        adv = self.module.ADVANCES[name]
        return group in adv["groups"] and adv["cost"] < below

    def _group_members(self, pool: Iterable[str], card: str, group: str, below) -> list[str]:
        """The advances of `pool` other than `card` in `group` with a printed cost below `below`:
        those a free advance or an acquire_all of `card` may take."""
        return [n for n in pool if n != card and self._in_group(n, group, below)]

    def hand_limit(self, names) -> int:
        return self.limit0 + sum(_hand_delta(self.module, n) for n in names)

    def credit(self, names) -> Any:
        """Credit points the advances bought give for later turns: group credits, free credit
        points, and specific credits to advances still not held."""
        parts, bought = self._credit_parts, set(names)
        total = 0
        for n in names:
            own, specific = parts.get(n) or self._credit_part(n)
            total += own
            for t, v in specific:
                if t not in bought:
                    total += v
        return total

    def _credit_part(self, name: str) -> tuple:
        """What `credit` reads of one advance (the search asks for every set it ranks): its group
        credits plus free credit points, and its specific credits to advances still not held, in
        the rulebook's order (so the sum is added up in the same order)."""
        i = _info(self.module)[name]
        part = self._credit_parts[name] = (i["group_credit"] + i["free_credits"], tuple(
            (t, v) for t, v in self.module.ADVANCES[name]["specific"].items() if t not in self.held))
        return part

    def _credit_bound(self, name) -> Any:
        i = _info(self.module)[name]
        return i["group_credit"] + i["free_credits"] + sum(
            v for t, v in self.module.ADVANCES[name]["specific"].items() if t not in self.held)

    # -- the search --------------------------------------------------------------------------

    def with_want(self, *names: str) -> "PurchaseProblem":
        """The same purchase, forced to include `names` too (prices and payments reused)."""
        import copy  # here, not at the top: most plans never clone (start-up)

        clone = copy.copy(self)
        clone.want = tuple(sorted(set(self.want) | set(names), key=self.order.get))
        clone.options = dict(self.options, want=clone.want)
        clone._prepare()
        return clone

    def after(self, buys, payments: dict | None = None) -> "PurchaseProblem":
        """The same player's purchase once `buys` are held too, wanting nothing: the next turn with
        the same hand and treasury (`payments` shares payment tables between such problems)."""
        return PurchaseProblem(self.module, self.holds + tuple(buys), self.facts, self.objective, payments=payments,
                               work=self.work, paying=self.paying, **dict(self.options, want=()))

    def _max_reduction(self, name) -> Any:
        """The most this advance's same-turn abilities can take off the other advances bought:
        a discount at most its amount, a free advance at most the dearest eligible price, an
        acquire_all every eligible price (each becomes free)."""
        total = sum(self.discounts.get(name, ()))
        for group, below in self.frees.get(name, ()):
            total += max([self.base[c] for c in self._group_members(self.candidates, name, group, below)], default=0)
        for group, below in self.alls.get(name, ()):
            total += sum(self.base[c] for c in self._group_members(self.candidates, name, group, below))
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
        order = functools.partial(_by_ratio, self.objective.values, eff, self.order)
        self.items = sorted(pool, key=functools.cmp_to_key(order))
        self._columns()
        self._sums(len(self.items))
        self.start = self._wanted_start()
        self.limit_max = self.limit0 + self.hpos_suf[0] + sum(max(0, _hand_delta(self.module, w)) for w in self.want)
        self.budget_max = self.payments.budget(self.limit_max)

    def _columns(self) -> None:
        """What the walk reads of the advance at each position: base price, effective price,
        objective, credit bound and hand-limit change."""
        items, obj = self.items, self.objective.values
        self.b = [self.base[n] for n in items]
        self.e = [self.eff[n] for n in items]
        self.o = [obj[n] for n in items]
        self.cub = [self._credit_bound(n) for n in items]
        self.hd = [_hand_delta(self.module, n) for n in items]
        self.int_objective = all(isinstance(v, int) for v in self.o)

    def _wanted_start(self) -> tuple:
        """What the wanted advances, which start every set, bring: base price, effective price,
        objective, credit bound, hand-limit change, and whether one has a same-turn ability."""
        want = self.want
        return (sum(self.base[w] for w in want), sum(self.eff[w] for w in want), self.objective.of(want),
                sum(max(0, self._credit_bound(w)) for w in want), sum(_hand_delta(self.module, w) for w in want),
                any(w in self.same_turn for w in want))

    def _sums(self, n_items: int) -> None:
        """Suffix sums over positions >= i: negative effective prices (they widen the budget),
        positive hand-limit changes, credit bounds; and, since advances worth something come
        first in the order, prefix sums of effective price and objective over them."""
        self.neg_suf = [0] * (n_items + 1)
        self.hpos_suf = [0] * (n_items + 1)
        self.cub_suf = [0] * (n_items + 1)
        for i in range(n_items - 1, -1, -1):
            self.neg_suf[i] = self.neg_suf[i + 1] + max(0, -self.e[i])
            self.hpos_suf[i] = self.hpos_suf[i + 1] + max(0, self.hd[i])
            self.cub_suf[i] = self.cub_suf[i + 1] + max(0, self.cub[i])
        self.npos = sum(1 for v in self.o if v > 0)
        self.cum_b = [0]
        self.cum_o = [0]
        for i in range(self.npos):
            self.cum_b.append(self.cum_b[-1] + max(0, self.e[i]))
            self.cum_o.append(self.cum_o[-1] + self.o[i])

    def _ratio_bound(self, q: int, cap) -> Any:
        """Fractional-knapsack bound of the objective of advances at positions >= q within `cap`."""
        if q >= self.npos:
            return 0
        target = self.cum_b[q] + cap
        m = bisect.bisect_right(self.cum_b, target) - 1
        gain = self.cum_o[m] - self.cum_o[q]
        if m < self.npos:
            rest = target - self.cum_b[m]
            if self.int_objective and isinstance(rest, int):
                gain += (rest * self.o[m]) // max(0, self.e[m])
            else:
                gain += self.o[m]
        return gain

    def _least_cost(self, q: int, need) -> Any:
        """A lower bound of the effective price that advances at positions >= q must add to
        gain `need` more objective (fractional, rounded down); None if they cannot."""
        if need <= 0:
            return 0
        if q >= self.npos:
            return None
        target = self.cum_o[q] + need
        m = bisect.bisect_left(self.cum_o, target)
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

    def choice(self, names, price, spent, limit: int) -> Choice:
        """The set `names`, priced and paid, as the search reports it (with its ranking key)."""
        key = self._key(names, price, spent)
        return Choice(key, tuple(sorted(names, key=self.order.get)), price, spent, key[0], key[2], limit)

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
        least = self.capped_least.get(tuple(sorted(names, key=self.order.get)))
        if least is not None and self.payments.spent(least, limit) is not None:
            objective = self.objective.of(names)
            self.unsure = objective if self.unsure is None else max(self.unsure, objective)

    def search(self, top: int = 1) -> list[Choice]:
        """The `top` best sets, best first, by (objective, -spent, credit, fewer advances, rulebook
        order): the dynamic programme over price of plan.search (exact, no enumeration of sets)."""
        from . import search as plan_search

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
        self.method = "dynamic programme"
        self.stats: dict = {}  # the programme's runs and widest signature (benchmarks read it)
        found = plan_search.search(
            self.search_candidates(), forced=frozenset(self.want), machine_for=self.machine_for,
            same_turn=sorted(self.same_turn, key=self.order.get), budget=self.budget_max, max_new=self.max_new,
            spent=self.payments.spent, limit0=self.limit0, top=top, floor=floor, stats=self.stats)
        self.visited = self.bb_cap + 1
        return [Choice(key=key, buys=tuple(sorted(names, key=self.order.get)), price=price, spent=paid,
                       objective=key[0], credit=key[2], hand_limit=limit)
                for key, names, price, paid, limit in found]

    def search_candidates(self) -> list:
        """The candidates as the dynamic programme reads them: base price, objective, credit for
        later turns, hand-limit change, and the specific-credit links between candidates (a
        specific credit to an advance bought in the same purchase no longer counts)."""
        from .search import Candidate

        got = getattr(self, "_search_candidates", None)
        if got is None:
            cands = set(self.candidates)
            got = self._search_candidates = [
                Candidate(n, self.order[n], self.base[n], self.objective.values[n], self._credit_bound(n),
                          _hand_delta(self.module, n), self._links(n, cands)) for n in self.candidates]
        return got

    def _links(self, name: str, cands: set) -> dict:
        """The specific credits between `name` and the other candidates, either way, summed."""
        advances = self.module.ADVANCES
        pairs = [(t, v) for t, v in advances[name]["specific"].items() if t in cands]
        pairs += [(o, advances[o]["specific"].get(name, 0)) for o in self.candidates]
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
            from .search import SameTurnMachine

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
                base.update(dict.fromkeys(self._group_members(pool, card, group, below), 0))
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
            counter[0] += 1
            if cap is not None and counter[0] > cap:
                raise _SearchStopped
            # (the work is shared with the answer's other searches: the set of the wanted advances is
            # always examined, so that every search has an answer)
            if self.single_use and heap and self.work[0] > self.single_use_work:
                raise _SearchStopped
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
                heapq.heappush(heap, entry)
            elif key > heap[0][0]:
                heapq.heapreplace(heap, entry)
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

        try:
            self._walk(visit, prune)
        except _SearchStopped:
            if not self.single_use:
                # the objective `top` sets found so far reach: a floor for the dynamic programme
                return None, (heap[0][0][0] if len(heap) == top else None)
            self._stopped(heap, counter[0] - 1)
        else:
            self.visited = counter[0]
        out = sorted(heap, key=lambda e: e[0], reverse=True)
        return [Choice(key=e[0], buys=e[1], price=e[2], spent=e[3], objective=e[0][0], credit=e[0][2], hand_limit=e[4])
                for e in out], None

    def _stopped(self, heap: list, examined: int) -> None:
        """The branch and bound stopped after EXAMINED sets (single_use): the best found so far
        stand, and no set it left unexamined reaches more than the bound of the branch each level
        of the walk was in (a whole number above it, so that both engines print it alike)."""
        from .search import stopped_bound

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

    def sets_reaching(self, floor) -> list[Choice]:
        """Every affordable set whose objective is at least `floor`, best first."""
        out: list[Choice] = []

        def visit(names, sumb, same, hdelta, objective):
            if objective < floor:
                return
            got = self._price_and_spent(names, sumb, same, hdelta)
            if got is None:
                return
            out.append(self.choice(names, *got))

        self._walk(visit, lambda q, ub, lbp, objective, c, h: lbp > self.budget_max or ub < floor)
        out.sort(key=lambda c: c.key, reverse=True)
        return out

    def root_bound(self, budget=None):
        """An upper bound of the objective any purchase this turn can reach (within `budget`, by
        default the search's)."""
        w_b, w_e, w_o, *_ = self.start
        cap = (self.budget_max if budget is None else budget) - (w_e - self.neg_suf[0])
        return w_o + self._ratio_bound(0, cap) if cap >= 0 else w_o

    # -- reporting one plan ------------------------------------------------------------------

    def plan_dict(self, choice: Choice, rank: int | None = None) -> dict:
        priced = pricing.prices(self.module, self.holds, list(choice.buys), self.extra)
        if priced["total"] != choice.price:  # the search prices sets itself; it must agree
            raise RuntimeError(f"planner bug: {', '.join(choice.buys)} priced {choice.price} by the search "
                               f"but {priced['total']} by pricing.prices")
        payment = self.payments.best(choice.price, choice.hand_limit)
        out = {
            "buy": list(choice.buys),
            "objective": number(choice.objective),
            "items": [{**row, "objective": number(self.objective.values[row["advance"]])} for row in priced["items"]],
            "total": choice.price,
            "spent": number(choice.spent),
            "payment": payment.to_dict() if payment else None,
            "credit_gained": {**self._credit_gained(choice.buys), "total": number(choice.credit)},
            "hand_limit": choice.hand_limit,
        }
        return out if rank is None else {"rank": rank, **out}

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
        free = sum(a["amount"] for n in buys for a in _abilities(self.module, n, "free_credits"))
        return {"groups": groups, "specific": specific, "free_credit_points": free}


def _add_up(totals: dict, pairs: Iterable[tuple]) -> None:
    """Add each (key, amount) to `totals`."""
    for key, amount in pairs:
        totals[key] = totals.get(key, 0) + amount

# --- the planner's answer -------------------------------------------------------------------

def _notes(problem: PurchaseProblem) -> list[str]:
    """What the plan assumes or leaves unchecked: the limits, the payment's abilities held, the
    rulebook's supply and prerequisites."""
    notes = []
    if problem.card_limit is not None and len(problem.holds) > problem.card_limit:
        notes.append(f"the state holds {len(problem.holds)} advances, more than the card limit")
    return notes + _payment_notes(problem) + _rulebook_notes(problem.module)


def _payment_notes(problem: PurchaseProblem) -> list[str]:
    """How the advances held change the payment: token value, cards into treasury, a substitute."""
    notes = []
    if problem.treasury_value != 1:
        notes.append(f"treasury counts {problem.treasury_value} per token (an advance held); it may exceed "
                     f"the price by at most {problem.treasury_value - 1}")
    if problem.payments.rate:
        notes.append(f"commodity cards may first be turned into {problem.payments.rate} treasury per face-value "
                     f"point (card_treasury, an advance held); tokens not needed stay in the treasury; the "
                     f"stock of tokens is not checked")
    if problem.payments.substitute:
        notes.append("one card of at least the same face value may complete an incomplete set "
                     "(substitute_card, an advance held)")
    return notes


def _rulebook_notes(module) -> list[str]:
    """The rulebook's rules the plan does not check (supply) or reads strictly (prerequisites)."""
    notes = []
    if any(a["supply"] for a in module.ADVANCES.values()):
        notes.append("supply (cards of each advance in the box) is not checked: the state does not say "
                     "what other players hold")
    if any(a["requires"] for a in module.ADVANCES.values()):
        notes.append("prerequisites must be held before this turn")
    return notes


def _missing_notes(module, held, facts: dict, hand: dict) -> list[str]:
    """What the plan could not count for want of a fact: start credits without the player count,
    the trade-block value of a set without the player's block."""
    notes = []
    start = pricing.start_credits(module, runtime.PlayerState(module, held, facts))
    if start is not None and start["per_group"] is None:
        notes.append("start credits are not counted: they depend on "
                     + (", ".join(f"`{m}`" for m in start["missing"]) or start["problem"] or "?"))
    if "block" in hand.get("missing_facts", ()):
        notes.append("sets are valued in their native trade block: the state does not give `block` "
                     "(or `civilization`)")
    return notes


def plan(rulebook, state: dict | None = None, *, holds=(), objective_spec: str | None = None, want=(), avoid=(),
         top: int = 1, explain: bool = False, horizon: int = 1, hand_limit: int | None = None, among=None) -> dict:
    """The best purchases this turn (and, with horizon 2, an estimate of the next turn's).

    `rulebook` is a Rulebook (civdsl.load) or an edition id / path; `state` the facts of a state
    file (holds, credits, commodities, treasury, players, ...).
    """
    if not hasattr(rulebook, "module"):
        from ..api import load

        rulebook = load(rulebook)
    module = rulebook.module
    st = rulebook.state(holds, dict(state or {}))
    held, facts = st.held, st.facts
    obj = objective(module, objective_spec, st)
    if horizon not in (1, 2):
        raise StateError("--horizon is 1 (this turn) or 2 (this turn and an estimate of the next)")
    problem = PurchaseProblem(module, held, facts, obj, want=want, avoid=avoid, among=among, hand_limit=hand_limit)
    shown = max(int(top), 5 if explain else 1)
    choices = problem.search(top=shown)
    hand = hand_report(module, problem.cards, runtime.PlayerState(module, held, facts))
    report: dict = {
        "rulebook": rulebook.id,
        "edition": rulebook.name,
        "objective": {"name": obj.name, "label": obj.label},
        "holds": list(held),
        "budget": {
            "hand": hand,
            "treasury": problem.treasury,
            "treasury_value": problem.treasury_value,
            "total": number(problem.payments.budget(problem.limit_max)),
        },
        "hand_limit": {"limit": problem.limit0, "from": problem.limit_source,
                       "note": "after this turn's purchases; advances bought with a hand_limit ability change it"},
        "card_limit": problem.card_limit,
        "card_room": problem.max_new,
        "credit_policy": module.CREDIT_POLICY,
        "plans": [],
        "not_considered": problem.excluded,
        "candidates": len(problem.candidates),
        "sets_examined": problem.visited,
        "search": problem.method,
        # False where the search stopped at its work limit (only under the strict single-use credit
        # variant): the plans are the best found, and no purchase gives more than total_at_most
        "complete": problem.complete,
        "total_at_most": None,
        # why it is not: the walk stopped at its work limit; the number of sets priced by a
        # single-use placement stopped at its cap (their price payable, maybe not the least)
        "stopped": problem.stopped,
        "prices_capped": len(problem.capped_least),
        "notes": _notes(problem) + _missing_notes(module, held, facts, hand),
    }
    if not choices:
        need = problem.exact_price(problem.want)
        raise StateError(f"--want: {', '.join(problem.want)} cost {need} together after credits; "
                         f"the hand and treasury pay at most {report['budget']['total']}")
    report["plans"] = [problem.plan_dict(c, i + 1) for i, c in enumerate(choices[:max(1, int(top))])]
    report["total_at_most"] = number(choices[0].objective if problem.complete else problem.total_at_most)
    if explain:
        report["explain"] = _explain(problem, choices)
    if horizon == 2:
        from .horizon import two_turns

        report["horizon"] = two_turns(problem, one=choices[:1])
    _payment_limit(report, problem)
    return report


def _payment_limit(report: dict, problem: PurchaseProblem) -> None:
    """The payment table's work limit, and what it stopped (the plans' payments are worked out by
    now): stopped working out what the hand can pay, the plans are the best found with whole sets
    (`complete` false; no plan gives more than the objective bound of all the hand and treasury
    could pay, the hand limit aside); stopped choosing the payment, the ranking is proven but the
    payment named may keep less than the best one."""
    pay = problem.payments
    report["payment_work_limit"] = PaymentTable.WORK
    report["payment_choice_limit"] = PaymentTable.CHOICE_WORK
    report["payment_stopped"] = list(pay.stopped)
    if not pay.stopped:
        return
    report["complete"] = False
    if PAYING in pay.stopped:
        most = pay.most_payable()
        report["total_at_most"] = number(max(report["total_at_most"], problem.root_bound(most)))


# --- explaining -----------------------------------------------------------------------------

def _compare(best: Choice, other: Choice, label: str) -> str:
    """Why `best` ranks above `other`, naming the first criterion that separates them."""
    n = number
    if other.objective != best.objective:
        return f"{n(other.objective)} {label} against {n(best.objective)}"
    same = f"the same {n(best.objective)} {label}"
    if other.spent != best.spent:
        return f"{same}, but hands over {n(other.spent)} against {n(best.spent)}"
    same += f" for the same {n(best.spent)} handed over"
    if other.credit != best.credit:
        return f"{same}, but {n(other.credit)} credit points for later turns against {n(best.credit)}"
    if len(other.buys) != len(best.buys):
        return f"{same} and credit, but {len(other.buys)} advances against {len(best.buys)} (fewer come first)"
    return f"{same} and credit; the plan merely comes first in rulebook order"


def _explain(problem: PurchaseProblem, choices: list[Choice]) -> dict:
    """Why the plan beats the next best plans, and for every advance it leaves out, the best
    purchase that includes it (or why none fits)."""
    best = choices[0]
    label = problem.objective.label
    runners = [{"buy": list(c.buys), "objective": number(c.objective), "spent": number(c.spent),
                "credit": number(c.credit), "why_not": _compare(best, c, label)} for c in choices[1:]]
    left_out = [name for name in problem.candidates if name not in best.buys]
    # the searches to make: for advances in no listed plan, where the card limit leaves room
    room = problem.max_new is None or len(problem.want) < problem.max_new
    problem.explain_pending = sum(1 for n in left_out if room and not any(n in c.buys for c in choices))
    others = [_not_bought(problem, choices, name) for name in left_out]
    # the comparisons are proven only when the ranking is and no search here (the purchases with an
    # advance left out share the problem's prices) priced a set by a capped placement (single_use)
    return {"runners_up": runners, "advances_not_bought": _near_then_far(problem, others),
            "complete": (problem.complete and not problem.capped_least and not problem.explain_stopped
                         and not problem.explain_unsearched),
            "work_limit": problem.explain_cap, "sets_examined": problem.explain_sets,
            "not_worked_out": problem.explain_unsearched}


def _near_then_far(problem: PurchaseProblem, others: list[dict]) -> list[dict]:
    """The advances left out, near misses first (the best purchases with them, best first, by
    their ranking key, which then goes), then the unaffordable ones (most objective, cheapest,
    rulebook order)."""
    from fractions import Fraction

    near = sorted((e for e in others if "rank_key" in e), key=lambda e: e["rank_key"], reverse=True)
    far = sorted((e for e in others if "rank_key" not in e),
                 key=lambda e: (-Fraction(e["objective"]), e["price"], problem.order[e["advance"]]))
    for e in near:
        del e["rank_key"]
    return near + far


def _not_bought(problem: PurchaseProblem, choices: list[Choice], name: str) -> dict:
    """An advance the plan leaves out: the best purchase that includes it and why the plan beats
    it (with its ranking key, for the order), or why no purchase with it fits."""
    entry = {"advance": name, "objective": number(problem.objective.values[name]),
             "price": problem.base[name]}
    got = _best_with(problem, choices, name)
    if got is _UNSEARCHED:
        limit = f"the explanation's searches reached their work limit ({problem.explain_cap:,} sets of advances)"
        bound, best = problem.with_want(name).root_bound(), choices[0].objective
        if bound < best:  # the knapsack bound of every purchase with it proves it out
            entry["why_not"] = (f"no purchase with it gives more than {number(bound)} "
                                f"{problem.objective.label} against {number(best)} ({limit})")
        else:
            problem.explain_unsearched += 1
            entry["why_not"] = f"not worked out: {limit}"
        return entry
    if got is None:
        entry["why_not"] = _unaffordable(problem, name)
        return entry
    entry["best_with_it"] = list(got.buys)
    entry["rank_key"] = got.key
    entry["why_not"] = (f"the best purchase with it ({', '.join(got.buys)}) gives "
                        + _compare(choices[0], got, problem.objective.label))
    return entry


def _best_with(problem: PurchaseProblem, choices: list[Choice], name: str) -> Choice | None:
    """The best purchase that includes `name`: the first of the ranked plans that does (every plan
    ranked above it is listed and leaves it out: no search needed then), else a search that
    wants it too where the card limit leaves room; None when no purchase with it fits."""
    listed = next((c for c in choices if name in c.buys), None)
    if listed is not None:
        return listed
    if problem.max_new is not None and len(problem.want) >= problem.max_new:
        return None
    # a branch and bound within an even share of the sets left (the plan's own search is not rerun
    # in full: no dynamic programme per advance); under single-use credits it stops with the best
    # found
    share = (problem.explain_cap - problem.explain_sets) // max(1, problem.explain_pending)
    problem.explain_pending -= 1
    if share <= 0:
        return _UNSEARCHED
    clone = problem.with_want(name)
    clone.complete, clone.stopped = True, False
    got, _ = clone._branch_and_bound(1, min(share, clone.single_use_cap) if clone.single_use else share)
    if got is None:
        problem.explain_sets += share
        return _UNSEARCHED
    problem.explain_sets += clone.visited
    problem.explain_stopped += clone.stopped
    return got[0] if got else None


# --explain's answer for an advance its work limit left unexplained
_UNSEARCHED = object()


def _unaffordable(problem: PurchaseProblem, name: str) -> str:
    """Why no purchase that includes `name` fits."""
    budget = number(problem.budget_max)
    if problem.eff[name] > problem.budget_max:
        return f"costs {problem.base[name]} after credits; the budget is {budget}"
    return (f"costs {problem.base[name]} after credits; no purchase that includes it "
            f"(and every --want) fits the budget of {budget} and the card limit")

# --- text output ----------------------------------------------------------------------------

def _cards_text(cards: dict) -> str:
    return ", ".join(f"{n} x{k}" for n, k in cards.items()) or "no cards"


def _plan_lines(p: dict, label: str, indent: str = "") -> list[str]:
    lines = _buy_lines(p, label, indent)
    if p["payment"]:
        lines += _payment_lines(p["payment"], indent)
    if p["buy"]:
        lines.append(_credit_line(p["credit_gained"], indent))
    return lines


def _buy_lines(p: dict, label: str, indent: str) -> list[str]:
    """What to buy, each advance's price and the credits that lowered it."""
    if not p["buy"]:
        return [f"{indent}buy nothing"]
    lines = [f"{indent}buy {', '.join(p['buy'])}: {p['objective']} {label}, total price {p['total']}"]
    width = max(len(r["advance"]) for r in p["items"])
    for row in p["items"]:
        credits = "".join(f"; -{c['amount']} {c['from']}" for c in row["credits"])
        lines.append(f"{indent}  {row['advance']:<{width}}  {row['price']:>4}  (printed {row['printed']}{credits})")
    return lines


def _payment_lines(pay: dict, indent: str) -> list[str]:
    """How to pay: cards turned into treasury first, what is handed over, what is kept."""
    lines = []
    if pay.get("converted"):
        lines.append(f"{indent}first turn {_cards_text(pay['converted'])} into {pay['converted_treasury']} treasury")
    lines.append(f"{indent}pay {_paid_text(pay)} = {pay['paid']}; overpayment {pay['overpayment']}")
    lines.append(f"{indent}keep {_cards_text(pay['kept'])} ({pay['kept_cards']} of at most {pay['hand_limit']} "
                 f"cards, worth {pay['kept_value']}) and {pay['treasury_left']} treasury")
    return lines


def _paid_text(pay: dict) -> str:
    """The cards (with a substitute card) and treasury tokens handed over."""
    parts = []
    sub = pay.get("substitute")
    if pay["cards"]:
        extra = f" + 1 {sub['card']} as {sub['set']} (substitute card)" if sub else ""
        parts.append(f"{_cards_text(pay['cards'])}{extra} (worth {pay['card_value']})")
    if pay["treasury"]:
        each = f" x {pay['treasury_value']}" if pay["treasury_value"] != 1 else ""
        parts.append(f"{pay['treasury']} treasury{each}")
    return " + ".join(parts) or "nothing"


def _credit_line(cg: dict, indent: str) -> str:
    """The credit the purchase gives for next turn."""
    bits = [f"{g} {v}" for g, v in cg["groups"].items() if v]
    bits += [f"{t} {v}" for t, v in cg["specific"].items()]
    if cg["free_credit_points"]:
        bits.append(f"{cg['free_credit_points']} free credit points")
    return f"{indent}credit for next turn: {', '.join(bits) or 'none'} (total {cg['total']})"


def render(report: dict) -> str:
    label = report["objective"]["label"]
    lines = [f"{report['edition']}: purchase plan maximising {report['objective']['name']}"]
    lines += _budget_lines(report)
    lines += [f"note: {note}" for note in report.get("notes", [])]
    plans = report["plans"]
    for p in plans:
        lines.append(f"plan {p['rank']}:" if len(plans) > 1 else "plan:")
        lines.extend(_plan_lines(p, label, "  "))
    if report["stopped"]:
        lines.append(f"the search stopped after {report['sets_examined']:,} sets of advances: the best plan "
                     f"found so far (no plan gives more than {report['total_at_most']} {label})")
    lines.extend(_payment_stopped_lines(report, label))
    if report["prices_capped"]:
        lines.append(f"{report['prices_capped']:,} sets of advances priced by the best placement of the credits "
                     f"found, maybe not the least (the placement search stopped at its limit): the best plan "
                     f"found (no plan gives more than {report['total_at_most']} {label})")
    lines += _not_considered_lines(report["not_considered"])
    lines.extend(_explain_lines(report.get("explain"), label))
    lines.extend(_horizon_lines(report.get("horizon"), label))
    return "\n".join(lines)


def _payment_stopped_lines(report: dict, label: str) -> list[str]:
    """What the payment table's work limit stopped, in the player's words."""
    stopped, limit = report.get("payment_stopped") or [], report.get("payment_work_limit")
    choice = report.get("payment_choice_limit")
    lines = []
    if PAYING in stopped:
        lines.append(f"{PAYING} stopped at its work limit ({limit:,} steps): payments turn in whole sets only; "
                     f"the best plan found with them (no plan gives more than {report['total_at_most']} {label})")
    if CHOOSING in stopped:
        lines.append(f"{CHOOSING} stopped at its work limit ({PaymentTable.CHOICE_STOP:,} steps, or {choice:,} "
                     f"steps of {PAYING}): the payment hands over the least there is, but may keep less than the best one")
    return lines


def _budget_lines(report: dict) -> list[str]:
    """The budget (the hand's sets and the treasury) and the hand and card limits."""
    b = report["budget"]
    hand = b["hand"]
    sets = ", ".join(f"{s['commodity']} x{s['cards']} = {s['value']}" for s in hand["sets"]) or "no cards"
    tv = f" x {b['treasury_value']}" if b["treasury_value"] != 1 else ""
    hl = report["hand_limit"]
    limit = f"hand limit {hl['limit']} ({hl['from']}, before this turn's advances)"
    if report["card_limit"] is not None:
        limit += f"; card limit {report['card_limit']} (room for {report['card_room']} more)"
    return [f"budget {b['total']}: hand {hand['total']} ({sets}) + treasury {b['treasury']}{tv}", limit]


def _not_considered_lines(excluded: list[dict]) -> list[str]:
    if not excluded:
        return []
    return ["not considered:"] + [f"  {e['advance']}: {e['why']}" for e in excluded]


def _explain_lines(ex: dict | None, label: str) -> list[str]:
    if not ex:
        return []
    lines = ["why this plan:"]
    if not ex["complete"]:
        lines.append("  (not proven: the search stopped at its limit or priced some sets by the best placement "
                     "of the credits found within its limit)")
    if ex.get("not_worked_out"):
        lines.append(f"  ({ex['not_worked_out']} advances left out not worked out: the explanation's searches "
                     f"reached their work limit of {ex['work_limit']:,} sets of advances)")
    for r in ex["runners_up"]:
        lines.append(f"  not {', '.join(r['buy']) or 'buying nothing'}: {r['why_not']}")
    return lines + _not_bought_lines(ex, label)


def _not_bought_lines(ex: dict, label: str, most: int = 8) -> list[str]:
    """The advances left out, at most `most` of them; those whose best purchase is one of the
    plans above need no second line."""
    shown = [r["buy"] for r in ex["runners_up"]]
    rest = [e for e in ex["advances_not_bought"] if e.get("best_with_it") not in shown]
    lines = [f"  not {e['advance']} ({e['objective']} {label}): {e['why_not']}" for e in rest[:most]]
    if len(rest) > most:
        lines.append(f"  ... and {len(rest) - most} more advances (see --json)")
    return lines


def _horizon_lines(hz: dict | None, label: str) -> list[str]:
    if not hz:
        return []
    if hz["this_turn"] is None:
        return ["two-turn look-ahead: the search stopped at its work limit before it priced any pair of "
                f"purchases ({hz['turn_one_sets']:,} sets of this turn's advances examined): no estimate"]
    lines = ["two-turn look-ahead (an ESTIMATE: " + hz["assumes"] + "):", "  this turn:"]
    lines.extend(_plan_lines(hz["this_turn"], label, "    "))
    lines.append("  next turn (estimate):")
    lines.extend(_plan_lines(hz["next_turn"], label, "    "))
    lines.append(f"  total over two turns: {hz['total']} {label} (the one-turn plan "
                 f"{', '.join(hz['one_turn_best']) or 'buying nothing'} gives {hz['one_turn_best_objective']} this turn)")
    if hz.get("payment_stopped"):
        lines.append(f"  {' and '.join(hz['payment_stopped'])} stopped at the work limit of the payment table "
                     f"({PaymentTable.WORK:,} steps): the best pair found"
                     + (", with no bound" if PAYING in hz["payment_stopped"] else ""))
    if hz["prices_capped"]:
        lines.append(f"  {hz['prices_capped']:,} sets of advances were priced by the best placement of the credits "
                     "found within its limit (their least price is not proven): the best pair found, with no bound")
    elif hz.get("next_turn_stopped"):
        lines.append(f"  {hz['next_turn_stopped']:,} of next turn's searches stopped at the work limit of the answer "
                     f"({PurchaseProblem.single_use_work:,} units of credit-placement work in all): the best pair "
                     "found, with no bound")
    elif hz["stopped"]:
        bound = (f" (no pair gives more than {hz['total_at_most']} {label})" if hz["total_at_most"] is not None
                 else ", with no bound")
        lines.append(f"  the look-ahead stopped after {hz['turn_one_sets']:,} sets of this turn's advances: "
                     f"the best pair found so far{bound}")
    return lines


def render_hand(report: dict, name: str) -> str:
    lines = [f"{name}: hand of {report['cards']} commodity card{'s' if report['cards'] != 1 else ''}"]
    for s in report["sets"]:
        note = "  (worth nothing)" if s["zero_value"] else ""
        note += "  (outside its trade block)" if s.get("off_block") else ""
        lines.append(f"  {s['commodity']} x{s['cards']} (face {s['face']}): {s['value']}{note}")
    for c in report.get("calamities", []):
        lines.append(f"  {c['calamity']} x{c['cards']} (calamity card): {c['value']}"
                     + ("  (worth nothing in trade)" if c["value"] == 0 else ""))
    lines.append(f"total: {report['total']}")
    return "\n".join(lines)
