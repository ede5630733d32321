"""The purchase planner (civdsl plan, civdsl hand).

The planner is checked against brute force: every subset of a handful of candidate advances,
priced with pricing.prices, paid by trying every subset of the hand's cards and every treasury
amount the rules allow. Seed examples come from tests/scenarios/*.yaml (the purchase examples
of Mega Civilization phase 12, Expansion 32.59 and Avalon Hill 1981 17.5).
"""

from __future__ import annotations

import itertools
import random
import json
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import civdsl
from civdsl import pricing, runtime
from civdsl.plan import horizon as plan_horizon
from civdsl.plan import hand, objectives, payment, purchase, question
from civdsl.plan import text as plan_text
from civdsl.state import StateError

from benchmark_modules import bench_planner
from conftest import run_cli

SHIPPED = ["megaciv", "expansion", "civ1981", "civ1980"]
ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.fixture(scope="module")
def books():
    return {rid: civdsl.load(rid) for rid in SHIPPED}


def _book(rid):
    return civdsl.load(rid)


# --- brute force ----------------------------------------------------------------------------

def base_limit(module, facts):
    table = module.TABLES.get("hand_limit_by_players")
    if table is not None and "players" in facts:
        return runtime.lookup(table, facts["players"])
    return module.CONSTS["hand_limit"]


def treasury_value(module, holds):
    return max([a["value"] for h in holds for k, a in module.ADVANCES[h]["abilities"] if k == "treasury_value"] or [1])


def brute_payments(module, cards: dict, treasury: int, tv: int, price, limit):
    """Every legal payment, trying every subset of the cards in hand and every treasury amount:
    (paid, kept hand value + treasury value left, cards turned in, {commodity: k})."""
    hand = [name for name, n in sorted(cards.items()) for _ in range(n)]
    out = []
    seen = set()
    for r in range(len(hand) + 1):
        for combo in itertools.combinations(range(len(hand)), r):
            given = {}
            for i in combo:
                given[hand[i]] = given.get(hand[i], 0) + 1
            sig = tuple(sorted(given.items()))
            if sig in seen:
                continue
            seen.add(sig)
            if len(hand) - r > limit:
                continue  # the hand limit after the phase
            value = sum(module.set_value(k, module.COMMODITIES[c]["value"]) for c, k in given.items())
            kept = sum(module.set_value(cards[c] - given.get(c, 0), module.COMMODITIES[c]["value"])
                       for c in cards if cards[c] - given.get(c, 0))
            for t in range(treasury + 1):
                if value + t * tv < price:
                    continue  # not enough
                if t and value + (t - 1) * tv >= price:
                    continue  # treasury beyond what is needed may not be spent
                out.append((value + t * tv, kept + (treasury - t) * tv, r, dict(given)))
    return out


def brute_spent(module, cards, treasury, tv, price, limit):
    pays = brute_payments(module, cards, treasury, tv, price, limit)
    return min((p[0] for p in pays), default=None)


def ability_options(module, cards: dict, rate: int = 0, substitute: bool = False):
    """Every way to use a hand, by exhaustive enumeration: k cards of each commodity turned in
    as a set, c more turned into rate x face treasury tokens each (`card_treasury`), and at most
    one substitution (`substitute_card`): a card of Y (face at least X's, a card not otherwise
    used) makes X's set of k >= 1 cards one larger, within the deck's count of X.
    Yields (set value, tokens gained, kept hand value, cards kept, detail)."""
    names = sorted(n for n in cards if cards[n])
    face = {n: module.COMMODITIES[n]["value"] for n in names}
    deck = {n: module.COMMODITIES[n].get("count") or 0 for n in names}

    def f(n, k):
        return module.set_value(k, face[n]) if k else 0

    per = [[(k, c) for k in range(cards[n] + 1) for c in range(cards[n] - k + 1 if rate else 1)] for n in names]
    for combo in itertools.product(*per):
        move = dict(zip(names, combo))
        subs = [None]
        if substitute:
            subs += [(x, y) for x in names for y in names if x != y and move[x][0] >= 1 and face[y] >= face[x] > 0
                     and not (deck[x] and move[x][0] + 1 > deck[x]) and sum(move[y]) < cards[y]]
        for sub in subs:
            value = conv = kept_value = kept_cards = 0
            for n in names:
                k, c = move[n]
                value += f(n, k + 1) if sub and sub[0] == n else f(n, k)
                conv += c * rate * face[n]
                j = cards[n] - k - c - (1 if sub and sub[1] == n else 0)
                kept_value += f(n, j)
                kept_cards += j
            yield value, conv, kept_value, kept_cards, (move, sub)


def brute_ability_payments(module, cards, treasury, tv, price, limit, rate, substitute):
    """Every legal payment with the abilities: (paid, kept hand value + treasury value left)."""
    out = []
    for value, conv, kept_value, kept_cards, _ in ability_options(module, cards, rate, substitute):
        if kept_cards > limit:
            continue
        for t in range(treasury + conv + 1):
            if value + t * tv < price or (t and value + (t - 1) * tv >= price):
                continue  # not enough, or treasury beyond what is needed
            out.append((value + t * tv, kept_value + (treasury + conv - t) * tv))
    return out


def fast_spent_table(module, cards, treasury, tv, rate=0, substitute=False):
    """Brute force in the plan search: every k of each commodity (the same payments as card
    subsets, fewer of them), the treasury the least that covers the rest; with the abilities
    held, every conversion and substitution too (ability_options)."""
    options = [(value, conv, kept) for value, conv, _, kept, _ in ability_options(module, cards, rate, substitute)]
    cache = {}

    def spent(price, limit):
        if (price, limit) not in cache:
            best = None
            for value, conv, kept in options:
                if kept > limit:
                    continue
                t = max(0, -(-(price - value) // tv))
                if t > treasury + conv:
                    continue
                paid = value + t * tv
                best = paid if best is None else min(best, paid)
            cache[(price, limit)] = best
        return cache[(price, limit)]

    return spent


def held_card_abilities(module, holds):
    rate = max([a["rate"] for h in holds for k, a in module.ADVANCES[h]["abilities"] if k == "card_treasury"] or [0])
    substitute = any(k == "substitute_card" for h in holds for k, _ in module.ADVANCES[h]["abilities"])
    return rate, substitute


def credit_of(module, holds, buys):
    owned = set(holds) | set(buys)
    total = 0
    for n in buys:
        adv = module.ADVANCES[n]
        total += sum(adv["credits"].values())
        total += sum(a["amount"] for k, a in adv["abilities"] if k == "free_credits")
        total += sum(v for t, v in adv["specific"].items() if t not in owned)
    return total


def brute_force(rb, state, among, values, want=(), avoid=(), top=1):
    """The `top` best purchases among `among`, by exhaustive search."""
    module = rb.module
    ps = rb.state((), dict(state))
    holds, facts = ps.held, ps.facts
    order = {n: i for i, n in enumerate(module.ADVANCES)}
    cands = [n for n in module.ADVANCES if n in among and n not in holds and n not in avoid
             and module.ADVANCES[n]["cost"] is not None and all(r in holds for r in module.ADVANCES[n]["requires"])]
    credits = facts.get("credits")
    tv = treasury_value(module, holds)
    cards = facts.get("commodities", {})
    spent_of = fast_spent_table(module, cards, facts.get("treasury", 0), tv, *held_card_abilities(module, holds))
    limit0 = base_limit(module, facts)
    card_limit = module.CONSTS.get("card_limit")
    ranked = []
    for r in range(len(cands) + 1):
        for combo in itertools.combinations(cands, r):
            if not set(want) <= set(combo):
                continue
            if card_limit is not None and len(combo) > max(0, card_limit - len(holds)):
                continue
            buys = sorted(combo, key=order.get)
            price = pricing.prices(module, holds, buys, credits)["total"]
            limit = limit0 + sum(a["delta"] for h in list(holds) + buys for k, a in module.ADVANCES[h]["abilities"]
                                 if k == "hand_limit")
            spent = spent_of(price, limit)
            if spent is None:
                continue
            credit = credit_of(module, holds, buys)
            key = (sum(values[n] for n in buys), -spent, credit, -len(buys), tuple(-order[n] for n in buys))
            ranked.append((key, buys, price, spent, credit))
    ranked.sort(key=lambda x: x[0], reverse=True)
    return ranked[:top]


def summary(plan: dict):
    return (plan["buy"], plan["objective"], plan["spent"], plan["credit_gained"]["total"], plan["total"])


# --- hypothesis strategies ------------------------------------------------------------------

OBJECTIVES = [None, "points", "cards", "cost - 30 * group_count", "vp * 10 - cost // 10"]


def random_instance(data, module, max_candidates=8):
    names = list(module.ADVANCES)
    holds = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names) - 1), label="holds")
    rest = [n for n in names if n not in holds]
    among = data.draw(st.lists(st.sampled_from(rest), unique=True, min_size=1, max_size=max_candidates), label="among")
    commodities = list(module.COMMODITIES)
    cards = data.draw(st.dictionaries(st.sampled_from(commodities), st.integers(1, 4), max_size=3), label="cards")
    # never more cards of a commodity than its deck holds (such a hand is an error)
    cards = {n: min(k, module.COMMODITIES[n]["count"] or k) for n, k in cards.items()}
    state = {"holds": holds, "commodities": cards, "treasury": data.draw(st.integers(0, 40), label="treasury")}
    if "hand_limit_by_players" in module.TABLES:
        state["players"] = data.draw(st.integers(5, 18), label="players")
    if data.draw(st.booleans(), label="credits?"):
        state["credits"] = {data.draw(st.sampled_from(list(module.GROUPS))): data.draw(st.sampled_from([5, 10, 20]))}
    return state, among


def objective_values(module, spec):
    if spec is None:
        spec = "vp" if all(a["vp"] is not None for a in module.ADVANCES.values() if a["cost"]) else "points"
    if spec == "vp":
        return {n: a["vp"] for n, a in module.ADVANCES.items()}
    if spec == "points":
        return {n: a["cost"] or 0 for n, a in module.ADVANCES.items()}
    if spec == "cards":
        return {n: 1 for n in module.ADVANCES}
    return objectives.objective(module, spec).values


PROPERTY = settings(max_examples=35, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the planner against brute force, for every shipped rulebook ----------------------------

@pytest.mark.parametrize("rid", SHIPPED)
@PROPERTY
@given(data=st.data())
def test_plan_matches_brute_force(rid, data):
    rb = _book(rid)
    module = rb.module
    state, among = random_instance(data, module)
    has_vp = all(a["vp"] is not None for a in module.ADVANCES.values())
    spec = data.draw(st.sampled_from([o for o in OBJECTIVES if has_vp or "vp" not in (o or "")]), label="objective")
    top = data.draw(st.integers(1, 4), label="top")
    cands = [n for n in among if module.ADVANCES[n]["cost"] is not None
             and all(r in state["holds"] for r in module.ADVANCES[n]["requires"])]
    want = data.draw(st.lists(st.sampled_from(cands), unique=True, max_size=1), label="want") if cands else []
    avoid = data.draw(st.lists(st.sampled_from(among), unique=True, max_size=1), label="avoid")
    avoid = [a for a in avoid if a not in want]
    values = objective_values(module, spec)
    expected = brute_force(rb, state, among, values, want=want, avoid=avoid, top=top)
    if not expected:
        with pytest.raises(StateError, match="--want"):
            question.plan(rb, state, objective_spec=spec, among=among, want=want, avoid=avoid, top=top)
        return
    got = question.plan(rb, state, objective_spec=spec, among=among, want=want, avoid=avoid, top=top)
    assert [summary(p) for p in got["plans"]] == [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]
    # the reported payment pays the price, leaves no more cards than the limit, spends no more
    # treasury than needed
    for p in got["plans"]:
        pay = p["payment"]
        assert pay["paid"] == p["spent"] >= p["total"]
        assert pay["kept_cards"] <= pay["hand_limit"] == p["hand_limit"]
        if pay["treasury"]:
            assert pay["card_value"] + (pay["treasury"] - 1) * pay["treasury_value"] < p["total"]


@pytest.mark.parametrize("rid", SHIPPED)
@PROPERTY
@given(data=st.data())
def test_same_turn_prices_match_runtime(rid, data):
    """The search's own pricing of a set equals pricing.prices for any set of candidates."""
    rb = _book(rid)
    module = rb.module
    state, among = random_instance(data, module, max_candidates=10)
    ps = rb.state((), state)
    problem = purchase.PurchaseProblem(module, ps.held, ps.facts, objectives.objective(module, "cards"), among=among)
    buys = data.draw(st.lists(st.sampled_from(problem.candidates), unique=True), label="buys") if problem.candidates else []
    order = {n: i for i, n in enumerate(module.ADVANCES)}
    expected = pricing.prices(module, ps.held, sorted(buys, key=order.get), ps.facts.get("credits"))["total"]
    assert problem.exact_price(buys) == expected


@pytest.mark.parametrize("rid", SHIPPED)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_payment_matches_brute_force_over_card_subsets(rid, data):
    module = _book(rid).module
    commodities = list(module.COMMODITIES)
    cards = data.draw(st.dictionaries(st.sampled_from(commodities), st.integers(1, 3), max_size=3))
    treasury = data.draw(st.integers(0, 30))
    tv = data.draw(st.sampled_from([1, 2, 3]))
    price = data.draw(st.integers(0, 160))
    limit = data.draw(st.integers(0, 8))
    table = payment.PaymentTable(module, cards, treasury, tv)
    pays = brute_payments(module, cards, treasury, tv, price, limit)
    got = _payment(table.best(price, limit))
    if not pays:
        assert got is None and table.spent(price, limit) is None
        return
    least = min(p[0] for p in pays)
    assert table.spent(price, limit) == least
    assert got.paid == least and got.overpayment == least - price
    wealth = max(p[1] for p in pays if p[0] == least)
    assert got.kept_value + got.treasury_left * tv == wealth
    # what it says to turn in is a legal payment
    assert all(0 < k <= cards[c] for c, k in got.cards.items())
    assert got.kept_cards == sum(cards.values()) - sum(got.cards.values()) <= limit
    assert got.card_value + got.treasury * tv == got.paid >= price
    assert got.treasury <= treasury
    assert got.treasury == 0 or got.card_value + (got.treasury - 1) * tv < price


@pytest.mark.parametrize("rid", ["megaciv", "expansion"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_payment_with_card_abilities_matches_brute_force(rid, data):
    """Trade Routes (`card_treasury`) and Trade Empire (`substitute_card`) held: the payment
    table's least payment, its wealth kept and its payment's legality against every conversion
    and substitution enumerated."""
    module = _book(rid).module
    commodities = [n for n in module.COMMODITIES if module.COMMODITIES[n]["value"] > 0]
    cards = data.draw(st.dictionaries(st.sampled_from(commodities), st.integers(1, 3), max_size=3))
    treasury = data.draw(st.integers(0, 20))
    tv = data.draw(st.sampled_from([1, 2]))
    rate = data.draw(st.sampled_from([0, 2, 3]))
    substitute = data.draw(st.booleans())
    price = data.draw(st.integers(0, 160))
    limit = data.draw(st.integers(0, 6))
    table = payment.PaymentTable(module, cards, treasury, tv, None, rate, substitute)
    pays = brute_ability_payments(module, cards, treasury, tv, price, limit, rate, substitute)
    options = list(ability_options(module, cards, rate, substitute))
    assert table.budget(sum(cards.values())) == max(v + (treasury + c) * tv for v, c, *_ in options)
    got = _payment(table.best(price, limit))
    if not pays:
        assert got is None and table.spent(price, limit) is None
        return
    least = min(p[0] for p in pays)
    assert table.spent(price, limit) == least
    assert got.paid == least and got.overpayment == least - price
    assert got.kept_value + got.treasury_left * tv == max(p[1] for p in pays if p[0] == least)
    # the payment it names is legal and adds up
    _assert_legal(module, cards, treasury, tv, rate, got, price, limit)
    assert not got.converted or rate
    sub = got.substitute
    face = {c: module.COMMODITIES[c]["value"] for c in cards}
    if sub:
        assert substitute and sub["set"] != sub["card"] and face[sub["card"]] >= face[sub["set"]]
        deck = module.COMMODITIES[sub["set"]]["count"]
        assert got.cards[sub["set"]] >= 1 and (not deck or got.cards[sub["set"]] + 1 <= deck)
    assert got.treasury_left == treasury + got.converted_treasury - got.treasury
    assert got.treasury == 0 or got.card_value + (got.treasury - 1) * tv < price


@pytest.mark.parametrize("rid", ["megaciv", "expansion"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_chosen_payment_keeps_the_whole_programmes_choice(rid, data):
    """The chosen payment's programme keeps only the states that can reach a floor, in the whole
    programme's order (PaymentTable._chosen_layers): between payments equal in every ranked
    respect it must name the very payment the whole programme names. Hands of many commodities
    of few faces make such ties common."""
    module = _book(rid).module
    commodities = [n for n in module.COMMODITIES if module.COMMODITIES[n]["value"] > 0]
    cards = data.draw(st.dictionaries(st.sampled_from(commodities), st.integers(1, 4), min_size=1, max_size=8))
    treasury = data.draw(st.sampled_from([0, 0, 5, 20]))
    tv = data.draw(st.sampled_from([1, 2]))
    rate = data.draw(st.sampled_from([0, 2]))
    substitute = data.draw(st.booleans())
    limit = data.draw(st.integers(0, sum(cards.values()) + 1))
    table = payment.PaymentTable(module, cards, treasury, tv, None, rate, substitute)
    table.small_programme = 0  # the floors even where the whole programme is small
    whole = payment.PaymentTable(module, cards, treasury, tv, None, rate, substitute)
    whole._chosen_layers = lambda limit, price, least, clamp, work: whole._layers(limit, least, clamp, work)
    price = data.draw(st.integers(0, int(table.budget(limit)) + 3))
    got, expected = table.best(price, limit), whole.best(price, limit)
    assert got == expected


def test_trade_routes_turns_cards_into_treasury_and_keeps_the_rest():
    """Mega Civilization's Trade Routes: "discard any number of commodity cards to gain treasury
    tokens at twice the face value" (004). Two Gold (face 9) pay 36 as a set, 1 over a price of
    35; turned into 36 tokens they pay 35 exactly and 1 token stays in the treasury."""
    rb = _book("megaciv")
    state = {"holds": ["Trade Routes"], "commodities": {"Gold": 2}, "treasury": 0, "players": 5}
    got = question.plan(rb, state, want=["Mysticism"], among=["Mysticism"], objective_spec="cards")
    pay = got["plans"][0]["payment"]
    assert got["plans"][0]["total"] == 35
    assert pay["converted"] == {"Gold": 2} and pay["converted_treasury"] == 36
    assert (pay["cards"], pay["treasury"], pay["overpayment"], pay["treasury_left"]) == ({}, 35, 0, 1)
    text = plan_text.render(got)
    assert "first turn Gold x2 into 36 treasury" in text and "pay 35 treasury = 35; overpayment 0" in text
    # without it the two Gold are a set: 1 overpaid
    plain = question.plan(rb, dict(state, holds=["Pottery"]), want=["Mysticism"], among=["Mysticism"],
                         objective_spec="cards")["plans"][0]
    assert plain["total"] == 35 and plain["payment"]["cards"] == {"Gold": 2} and plain["payment"]["overpayment"] == 1


def test_trade_routes_in_the_expansion_converts_before_the_purchase():
    """The Expansion's Trade Routes (33.0262: two tokens per face-value point, "at any point in
    the game except when acquiring civilization advances"): converted before the purchase."""
    rb = _book("expansion")
    module = rb.module
    face = {n: c["value"] for n, c in module.COMMODITIES.items() if c["value"] > 0}
    name = min(face, key=lambda n: (-face[n], n))
    table = payment.PaymentTable(module, {name: 1}, 0, 1, None, 2, False)
    pay = _payment(table.best(face[name] + 1, 0))
    assert pay.converted == {name: 1} and pay.treasury == face[name] + 1 and pay.treasury_left == face[name] - 1
    assert payment.PaymentTable(module, {name: 1}, 0, 1).best(face[name] + 1, 0) is None


def test_trade_empire_completes_a_set_with_one_card():
    """Mega Civilization's Trade Empire: "1 substitute commodity card of at least the same face
    value when turning in an incomplete set" (004). Salt x2 (face 3) and Oil x1 (face 4) pay
    12 + 4 = 16 as sets; the Oil as a third Salt pays 27, so 13 treasury buys a 40 price."""
    rb = _book("megaciv")
    state = {"holds": ["Trade Empire"], "commodities": {"Salt": 2, "Oil": 1}, "treasury": 13, "players": 5}
    got = question.plan(rb, state, want=["Mysticism"], among=["Mysticism"], objective_spec="cards")
    plan = got["plans"][0]
    assert plan["total"] == 40
    pay = plan["payment"]
    assert pay["substitute"] == {"set": "Salt", "card": "Oil"} and pay["cards"] == {"Salt": 2}
    assert (pay["card_value"], pay["treasury"], pay["overpayment"], pay["kept"]) == (27, 13, 0, {})
    assert "Salt x2 + 1 Oil as Salt (substitute card) (worth 27)" in plan_text.render(got)
    # a lower-valued card never stands in: Ochre (face 1) cannot complete Salt (face 3)
    table = payment.PaymentTable(rb.module, {"Salt": 2, "Ochre": 1}, 0, 1, None, 0, True)
    assert table.spent(27, 3) is None and table.spent(13, 3) == 13
    # without Trade Empire the same state cannot pay 40
    with pytest.raises(StateError, match="--want"):
        question.plan(rb, dict(state, holds=["Pottery"]), want=["Mysticism"], among=["Mysticism"],
                     objective_spec="cards")


def best_pair(rb, state, among, values) -> tuple:
    """The best (key, this turn's purchase, next turn's) by exhaustive search over pairs."""
    ps = rb.state((), state)
    best = None
    for first in brute_force(rb, state, among, values, top=10 ** 6):
        later = dict(state, holds=list(ps.held) + first[1])
        second = brute_force(rb, later, among, values, top=1)[0]
        key = (first[0][0] + second[0][0], -(first[3] + second[3]), first[4] + second[4], len(first[1]), first[0][4])
        if best is None or key > best[0]:
            best = (key, first[1], second[1])
    return best


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_two_turn_lookahead_matches_brute_force(data):
    rb = _book("megaciv")
    module = rb.module
    state, among = random_instance(data, module, max_candidates=5)
    values = objective_values(module, None)
    got = question.plan(rb, state, among=among, horizon=2)["horizon"]
    best = best_pair(rb, state, among, values)
    assert got["total"] == best[0][0]
    assert (got["this_turn"]["buy"], got["next_turn"]["buy"]) == (best[1], best[2])


# --- seed examples (tests/scenarios) -------------------------------------------------------

def scenario(rid, name):
    """A purchase ruling of a shipped rulebook (the seed's worked example, as the rulebook records
    it): what the player holds, what he buys and the prices the printed rules give."""
    from civdsl import rulings
    from civdsl.frontend import check_file

    reading = rulings.read(check_file(ROOT / "rulebooks" / f"{rid}.civ").edition.rulings[name])
    prices = {e.key[len('price("'):-len('")')]: e.value for e in reading.expected if e.key.startswith("price(")}
    return {"cost": {"holds": reading.players[0]["holds"], "buy": reading.subject}, "expect": {"prices": prices}}


@pytest.mark.parametrize("starts", [
    "purchase_example_1",
    "purchase_example_2",
    "purchase_example_3",
])
def test_megaciv_phase_12_examples(books, starts):
    s = scenario("megaciv", starts)
    rb = books["megaciv"]
    state = {"holds": s["cost"]["holds"], "commodities": {"Grain": 8}, "treasury": 40, "players": 7}  # 7 players: no start credits
    got = question.plan(rb, state, want=s["cost"]["buy"], among=s["cost"]["buy"])["plans"][0]
    prices = {row["advance"]: row["price"] for row in got["items"]}
    for name, price in s["expect"]["prices"].items():
        assert prices[name] == price


def test_megaciv_example_1_with_exactly_its_price_buys_drama_and_poetry_and_mysticism(books):
    # Music held; Drama and Poetry 70 and Mysticism 40 make 110, paid exactly by 5 Grain + 10 treasury
    state = {"holds": ["Music"], "commodities": {"Grain": 5}, "treasury": 10, "players": 7}
    p = question.plan(books["megaciv"], state, want=["Drama and Poetry", "Mysticism"])["plans"][0]
    assert p["total"] == 110
    assert p["payment"]["cards"] == {"Grain": 5} and p["payment"]["treasury"] == 10
    assert p["payment"]["overpayment"] == 0


def test_megaciv_example_3_planner_prefers_agriculture_for_100(books):
    # Pottery held: Agriculture (3 VP) costs 100; five Grain pay 100 exactly; two 1-VP cards give less
    state = {"holds": ["Pottery"], "commodities": {"Grain": 5}, "treasury": 0, "players": 7}
    p = question.plan(books["megaciv"], state)["plans"][0]
    assert p["buy"] == ["Agriculture"] and p["total"] == 100 and p["objective"] == 3
    assert p["payment"]["cards"] == {"Grain": 5} and p["payment"]["overpayment"] == 0
    assert p["credit_gained"]["specific"] == {"Democracy": 20}


def test_megaciv_example_2_masonry_and_pottery_make_agriculture_90(books):
    state = {"holds": ["Pottery", "Masonry"], "commodities": {"Grain": 4, "Salt": 2}, "treasury": 14, "players": 7}
    p = question.plan(books["megaciv"], state, want=["Agriculture"])["plans"][0]
    row = next(r for r in p["items"] if r["advance"] == "Agriculture")
    assert row["price"] == 90


def test_expansion_32_59_music_example(books):
    s = scenario("expansion", "music_purchase")
    state = {"holds": s["cost"]["holds"], "commodities": {"Grain": 3, "Papyrus": 2, "Hides": 1}, "treasury": 10}
    p = question.plan(books["expansion"], state, want=["Music"])["plans"][0]
    assert p["buy"] == ["Music"] and p["total"] == s["expect"]["prices"]["Music"] == 55
    # "45 in cards + 10 treasury": every card and all the treasury, nothing over
    assert p["payment"]["cards"] == {"Grain": 3, "Hides": 1, "Papyrus": 2}
    assert p["payment"]["card_value"] == 45 and p["payment"]["treasury"] == 10
    assert p["payment"]["overpayment"] == 0


def test_civ1981_17_5_music_example(books):
    s = scenario("civ1981", "music_purchase")
    state = {"holds": s["cost"]["holds"], "commodities": {"Grain": 3, "Papyrus": 2, "Hides": 1}, "treasury": 10}
    report = question.plan(books["civ1981"], state, want=["Music"])
    p = report["plans"][0]
    assert report["objective"]["name"] == "points"  # 1981 gives no VP per card: its score counts card points
    assert p["total"] == s["expect"]["prices"]["Music"] == 55
    assert p["payment"]["card_value"] == 45 and p["payment"]["treasury"] == 10 and p["payment"]["overpayment"] == 0


# --- Library, Anatomy, Mining ----------------------------------------------------------------

def test_library_discount_lets_two_advances_fit(books):
    # Democracy 220 and Library 220 cost 440; Library takes 40 off Democracy: 400 exactly
    state = {"holds": [], "commodities": {"Grain": 5}, "treasury": 300, "players": 7}
    rb = books["megaciv"]
    p = question.plan(rb, state, among=["Library", "Democracy"])["plans"][0]
    assert p["buy"] == ["Democracy", "Library"] and p["total"] == 400 and p["objective"] == 12
    demo = next(r for r in p["items"] if r["advance"] == "Democracy")
    assert demo["price"] == 180 and any("one-time discount" in c["from"] for c in demo["credits"])
    state["treasury"] = 299
    p = question.plan(rb, state, among=["Library", "Democracy"])["plans"][0]
    assert p["objective"] == 6 and len(p["buy"]) == 1


def test_anatomy_brings_a_cheap_sciences_advance_free(books):
    # Anatomy 270 + Astronavigation free: 270 buys 6 + 1 VP
    state = {"holds": [], "commodities": {}, "treasury": 270, "players": 7}
    p = question.plan(books["megaciv"], state, among=["Anatomy", "Astronavigation", "Mysticism"])["plans"][0]
    assert p["buy"] == ["Astronavigation", "Anatomy"] and p["total"] == 270 and p["objective"] == 7
    astro = next(r for r in p["items"] if r["advance"] == "Astronavigation")
    assert astro["price"] == 0


def test_anatomy_acquires_every_cheap_science_card_in_the_expansion(books):
    state = {"holds": [], "commodities": {}, "treasury": 270}
    p = question.plan(books["expansion"], state, among=["Anatomy", "Astronomy", "Coinage"])["plans"][0]
    # 33.0681: Anatomy 270 brings Astronomy (80) and Coinage (90) along, both free: 440 points for 270
    assert p["buy"] == ["Astronomy", "Coinage", "Anatomy"] and p["total"] == 270 and p["objective"] == 440


def test_mining_treasury_counts_double_and_overpays_by_at_most_one(books):
    rb = books["megaciv"]
    held = {"holds": ["Mining"], "commodities": {}, "treasury": 30, "players": 7}
    # Mysticism costs 50: 25 tokens; Sculpture 50 too
    p = question.plan(rb, held, among=["Mysticism"])["plans"][0]
    assert p["buy"] == ["Mysticism"] and p["payment"]["treasury"] == 25 and p["payment"]["overpayment"] == 0
    assert question.plan(rb, held, among=["Mysticism"])["budget"]["total"] == 60
    # an odd price: 45 needs 23 tokens (46), one over
    held["holds"] = ["Mining", "Music"]  # Music: arts 10 -> Mysticism 40; Sculpture 40
    held["credits"] = {"arts": 5}
    p = question.plan(rb, held, among=["Mysticism"])["plans"][0]
    assert p["total"] == 35 and p["payment"]["treasury"] == 18 and p["payment"]["overpayment"] == 1


def test_mining_bought_this_turn_does_not_double_this_turns_treasury(books):
    # without Mining held 230 treasury pays only Mining itself (230), not Mining + Mysticism (280)
    state = {"holds": [], "commodities": {}, "treasury": 230, "players": 7}
    p = question.plan(books["megaciv"], state, among=["Mining", "Mysticism"])["plans"][0]
    assert p["buy"] == ["Mining"]


def test_roadbuilding_bought_raises_the_hand_limit_after_the_phase(books):
    # 9 cards, limit 8: buying Roadbuilding (hand limit +1) lets all nine be kept when treasury pays
    state = {"holds": [], "commodities": {"Ochre": 9}, "treasury": 220, "players": 7}
    p = question.plan(books["megaciv"], state, want=["Roadbuilding"], among=["Roadbuilding"])["plans"][0]
    assert p["hand_limit"] == 9 and p["payment"]["cards"] == {} and p["payment"]["treasury"] == 220
    # without it, one card must go: the plan that buys nothing still turns in (discards) one Ochre
    nothing = question.plan(books["megaciv"], state, among=["Cloth Making"], avoid=["Cloth Making"])["plans"][0]
    assert nothing["buy"] == [] and nothing["payment"]["cards"] == {"Ochre": 1}


def test_hand_limit_forces_turning_in_more_cards(books):
    # 1981: hand limit 6. Eight cards, Pottery costs 45: paying it all in treasury would keep 8
    # cards, so two Ochre go in (overpayment is then the least possible with treasury exact)
    state = {"holds": [], "commodities": {"Ochre": 2, "Salt": 6}, "treasury": 50}
    p = question.plan(books["civ1981"], state, want=["Pottery"], among=["Pottery"])["plans"][0]
    pay = p["payment"]
    assert pay["kept_cards"] <= 6
    assert pay["paid"] == 45 and pay["overpayment"] == 0


# --- prerequisites, card limit, unknown costs -----------------------------------------------

def test_civ1981_prerequisite_law_must_be_held(books):
    rb = books["civ1981"]
    report = question.plan(rb, {"holds": [], "commodities": {}, "treasury": 500})
    excluded = {e["advance"]: e["why"] for e in report["not_considered"]}
    assert "Law" in excluded["Democracy"] and "Law" in excluded["Philosophy"]
    assert "Democracy" not in report["plans"][0]["buy"]
    with pytest.raises(StateError, match="needs Law"):
        question.plan(rb, {"holds": [], "treasury": 500}, want=["Democracy"])
    report = question.plan(rb, {"holds": ["Law"], "commodities": {}, "treasury": 500})
    assert "Democracy" not in {e["advance"] for e in report["not_considered"]}


def test_civ1981_card_limit_of_eleven(books):
    rb = books["civ1981"]
    holds = ["Pottery", "Cloth Making", "Metalworking", "Agriculture", "Mysticism", "Astronomy", "Coinage",
             "Medicine", "Engineering"]
    report = question.plan(rb, {"holds": holds, "commodities": {}, "treasury": 2000}, top=3)
    assert report["card_limit"] == 11
    for p in report["plans"]:
        assert len(p["buy"]) <= 2
    with pytest.raises(StateError, match="card limit"):
        question.plan(rb, {"holds": holds, "treasury": 2000}, want=["Music", "Law", "Literacy"])


FIXTURE = textwrap.dedent('''
    language 1
    edition planfix "Planner fixture"
    source "invented for the planner tests"
    const hand_limit = 3
    const card_limit = 4
    group crafts "Crafts"
    group arts "Arts"
    credit policy best_group
    vp tiers { below 100: 1, below 200: 3, else: 6 }
    advance "Pottery" { cost 60 groups crafts credits crafts 10 }
    advance "Weaving" { cost 50 groups crafts credits crafts 10 }
    advance "Lore" { cost unknown groups arts }
    advance "Epic" { cost 150 groups arts requires "Lore" }
    advance "Scroll" { cost 200 groups arts ability discount(30) }
    advance "Guild" { cost 120 groups crafts ability hand_limit(2) }
    commodity "Ochre" { value 1 count 9 stack 1 }
    commodity "Salt" { value 3 count 9 stack 3 }
    commodity "Sand" { value 0 count 0 }
    set_value n * n * face
''')


@pytest.fixture(scope="module")
def fixture_book(tmp_path_factory):
    path = tmp_path_factory.mktemp("planner") / "planfix.civ"
    path.write_text(FIXTURE)
    return civdsl.load(path)


def test_unknown_costs_are_never_bought_and_are_listed(fixture_book):
    report = question.plan(fixture_book, {"holds": [], "commodities": {"Salt": 3}, "treasury": 400})
    excluded = {e["advance"]: e["why"] for e in report["not_considered"]}
    assert "unknown" in excluded["Lore"] and "Lore" in excluded["Epic"]
    assert all("Lore" not in p["buy"] for p in report["plans"])
    with pytest.raises(StateError, match="unknown"):
        question.plan(fixture_book, {"holds": [], "treasury": 400}, want=["Lore"])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fixture_rulebook_matches_brute_force(fixture_book, data):
    module = fixture_book.module
    names = list(module.ADVANCES)
    holds = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
    cards = data.draw(st.dictionaries(st.sampled_from(["Ochre", "Salt", "Sand"]), st.integers(1, 4), max_size=3))
    state = {"holds": holds, "commodities": cards, "treasury": data.draw(st.integers(0, 400))}
    spec = data.draw(st.sampled_from([None, "points", "cards", "1 - vp"]))
    values = objective_values(module, spec)
    expected = brute_force(fixture_book, state, names, values, top=3)
    got = question.plan(fixture_book, state, objective_spec=spec, top=3)
    assert [summary(p) for p in got["plans"]] == [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]


def test_water_like_cards_go_first_when_the_hand_is_over_the_limit(fixture_book):
    state = {"holds": [], "commodities": {"Salt": 3, "Sand": 2}, "treasury": 0}
    p = question.plan(fixture_book, state, objective_spec="cards", among=["Weaving"], avoid=["Weaving"])["plans"][0]
    assert p["buy"] == [] and p["payment"]["cards"] == {"Sand": 2} and p["payment"]["overpayment"] == 0


# --- objectives, errors -----------------------------------------------------------------------

def test_vp_objective_needs_victory_points(books):
    with pytest.raises(StateError, match="no victory points"):
        question.plan(books["civ1981"], {"treasury": 10}, objective_spec="vp")


def test_objective_expression_errors_are_explained(books):
    with pytest.raises(StateError, match="unknown name `colour`"):
        question.plan(books["megaciv"], {"treasury": 10, "players": 5}, objective_spec="colour * 2")
    with pytest.raises(StateError, match="--objective"):
        question.plan(books["megaciv"], {"treasury": 10, "players": 5}, objective_spec="vp +")


def test_objective_expression_reads_groups_and_constants(books):
    obj = objectives.objective(books["megaciv"].module, "sciences * city_points + vp")
    assert obj.values["Library"] == 5 + 6 and obj.values["Pottery"] == 1


def test_megaciv_needs_players_for_the_hand_limit(books):
    with pytest.raises(StateError, match="players"):
        question.plan(books["megaciv"], {"treasury": 10})
    report = question.plan(books["megaciv"], {"treasury": 10}, hand_limit=8)
    assert report["hand_limit"]["from"] == "--hand-limit"


def test_unaffordable_want_is_an_error(books):
    with pytest.raises(StateError, match="pay at most 10"):
        question.plan(books["megaciv"], {"treasury": 10, "players": 7}, want=["Democracy"])


# --- explain, top, horizon ---------------------------------------------------------------------

def test_explain_names_the_criterion_that_separates_plans(books):
    state = {"holds": ["Music"], "commodities": {"Grain": 3, "Papyri": 2, "Hides": 1}, "treasury": 10, "players": 7}
    report = question.plan(books["megaciv"], state, explain=True)
    ex = report["explain"]
    assert ex["runners_up"] and all(r["why_not"] for r in ex["runners_up"])
    assert report["plans"][0]["buy"] == ["Sculpture"]
    why = {e["advance"]: e["why_not"] for e in ex["advances_not_bought"]}
    assert "credit points" in why["Mysticism"]  # same VP and spend, less credit
    assert "budget" in why["Library"]
    text = plan_text.render(report)
    assert "why this plan:" in text


def test_two_turns_is_labelled_an_estimate_and_uses_this_turns_credits(books):
    state = {"holds": [], "commodities": {"Grain": 4}, "treasury": 56, "players": 7}
    report = question.plan(books["megaciv"], state, among=["Pottery", "Agriculture", "Cloth Making"], horizon=2)
    hz = report["horizon"]
    assert hz["estimate"] is True and "same as now" in hz["assumes"]
    # 120 a turn: Pottery now makes Agriculture 100 next turn (Pottery crafts 10 + 10 specific)
    assert hz["this_turn"]["buy"] == ["Cloth Making", "Pottery"] or hz["this_turn"]["buy"] == ["Pottery"]
    assert "Agriculture" in hz["next_turn"]["buy"]
    assert "ESTIMATE" in plan_text.render(report)


def test_two_turns_stops_early_on_a_work_limit_and_says_so(books):
    rb = books["megaciv"]
    state = {"holds": [], "commodities": {"Grain": 4}, "treasury": 120, "players": 7}
    ps = rb.state((), state)
    problem = purchase.PurchaseProblem(rb.module, ps.held, ps.facts, objectives.objective(rb.module))
    problem.search()
    hz = plan_horizon.two_turns(problem, max_sets=5)
    assert hz["complete"] is False and hz["turn_one_sets"] <= 6
    assert hz["total"] >= hz["one_turn_best_objective"]
    full = question.plan(rb, state, horizon=2)["horizon"]
    assert full["complete"] is True and full["total"] >= hz["total"]


def test_a_stopped_look_ahead_bounds_the_pairs_it_left(books):
    """Stopped by its work limit, the look-ahead says how much any pair could give at most (the
    bound of every branch it had not finished): at least the best pair's total; complete, the
    bound is the total found."""
    rb = books["megaciv"]
    state = {"holds": [], "commodities": {"Grain": 4}, "treasury": 120, "players": 7}
    ps = rb.state((), state)
    problem = purchase.PurchaseProblem(rb.module, ps.held, ps.facts, objectives.objective(rb.module))
    stopped = plan_horizon.two_turns(problem, max_sets=5)
    report = question.plan(rb, state, horizon=2)
    full = report["horizon"]
    assert stopped["complete"] is False and full["complete"] is True
    assert stopped["total"] <= full["total"] <= stopped["total_at_most"]
    assert full["total_at_most"] == full["total"]
    text = plan_text.render(dict(report, horizon=stopped))
    assert f"no pair gives more than {stopped['total_at_most']} VP" in text


def test_the_look_ahead_stops_at_its_work_over_both_turns(books, monkeypatch):
    """The sets of advances examined over both turns (the walk's and each next turn's search's)
    have a declared limit: past it the look-ahead answers the best pair found, not complete,
    with the bound of what it left."""
    rb = books["megaciv"]
    state = {"holds": [], "commodities": {"Grain": 4}, "treasury": 120, "players": 7}
    full = question.plan(rb, state, horizon=2)["horizon"]
    monkeypatch.setattr(purchase.PurchaseProblem, "horizon_work", 12)
    report = question.plan(rb, state, horizon=2)
    stopped = report["horizon"]
    assert full["complete"] is True and stopped["complete"] is False and stopped["stopped"] is True
    assert stopped["turn_one_sets"] < full["turn_one_sets"]
    assert stopped["total"] <= full["total"] <= stopped["total_at_most"]
    assert "the look-ahead stopped after" in plan_text.render(report)


STRICT = Path(__file__).resolve().parent.parent / "rulebooks" / "house" / "strict_credits.civ"
MID_GAME = {"players": 6, "treasury": 300, "holds": ["Music", "Medicine", "Monument", "Politics", "Law"]}


def test_a_look_ahead_whose_work_limit_is_spent_answers_the_best_found_and_says_so(monkeypatch):
    """Under strict single-use credits every search of an answer shares one work limit, and each
    still examines the set of its wanted advances: with the limit already spent the look-ahead
    answers the best pair found (buying nothing either turn), stopped, not complete, with no bound
    (in text and JSON), never a traceback."""
    rb = civdsl.load(STRICT)
    ps = rb.state(tuple(MID_GAME["holds"]), {k: v for k, v in MID_GAME.items() if k != "holds"})
    problem = purchase.PurchaseProblem(rb.module, ps.held, ps.facts, objectives.objective(rb.module))
    problem.work[0] = problem.single_use_work + 1  # a limit already spent
    hz = plan_horizon.two_turns(problem)
    assert hz["this_turn"]["buy"] == [] and hz["next_turn"]["buy"] == []
    assert hz["stopped"] is True and hz["complete"] is False and hz["total_at_most"] is None
    json.dumps(hz)
    assert "stopped at the work limit of the answer" in "\n".join(plan_text._horizon_lines(hz, "VP"))


def test_the_look_ahead_reuses_this_turns_search_under_strict_credits(monkeypatch):
    """`plan --horizon 2` under strict credits in mid-game: the one-turn search spends the work
    limit, and the look-ahead starts from the plan it found instead of searching again."""
    monkeypatch.setattr(purchase.PurchaseProblem, "single_use_work", 2_000)  # small limits keep the test short
    monkeypatch.setattr(plan_horizon.two_turns, "__defaults__", (3, None))
    result = run_cli("plan", str(STRICT), "--set", "players=6", "--set", "treasury=300",
                     "--holds", ",".join(MID_GAME["holds"]), "--horizon", "2", "--json")
    assert result.exit_code == 0, result.output
    hz = json.loads(result.output)["horizon"]
    assert hz["one_turn_best"] and (hz["this_turn"] is None or hz["total"] >= hz["one_turn_best_objective"])


# --- the hand ----------------------------------------------------------------------------------

def test_hand_value_sets_and_water(books):
    module = books["megaciv"].module
    cards = hand.parse_cards(module, "Grain x3, Salt x2, Oil, water, 2 Ochre")
    assert cards == {"Grain": 3, "Salt": 2, "Oil": 1, "Water": 1, "Ochre": 2}
    report = hand.hand_report(module, cards)
    values = {s["commodity"]: s["value"] for s in report["sets"]}
    assert values == {"Grain": 36, "Salt": 12, "Oil": 4, "Water": 0, "Ochre": 4}
    assert report["total"] == 56 and report["zero_value_cards"] == 1 and report["cards"] == 9


def test_hand_unknown_commodity_suggests_a_name(books):
    with pytest.raises(StateError, match="Papyri"):
        hand.parse_cards(books["megaciv"].module, "Papyrus x2")


# --- command line ------------------------------------------------------------------------------

def test_cli_plan_and_hand(tmp_path):
    state = tmp_path / "state.yaml"
    state.write_text(yaml.safe_dump({"holds": ["Music"], "commodities": {"Grain": 5, "Papyri": 2},
                                     "treasury": 10, "players": 7}))
    out = run_cli("plan", "megaciv", "--state", str(state), "--top", "2", "--explain")
    assert out.exit_code == 0, out.output
    assert "plan 1:" in out.output and "pay " in out.output and "why this plan:" in out.output
    out = run_cli("plan", "megaciv", "--state", str(state), "--json", "--want", "Drama and Poetry,Mysticism")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert {r["advance"]: r["price"] for r in data["plans"][0]["items"]} == {"Drama and Poetry": 70, "Mysticism": 40}
    out = run_cli("plan", "megaciv", "--state", str(state), "--horizon", "2")
    assert out.exit_code == 0 and "ESTIMATE" in out.output
    out = run_cli("plan", "civ1981", "--objective", "vp", "--set", "treasury=5")
    assert out.exit_code == 1 and "no victory points" in out.output
    out = run_cli("hand", "megaciv", "--cards", "Grain x3, Salt x2, Oil, Water")
    assert out.exit_code == 0
    assert "Grain x3 (face 4): 36" in out.output and "worth nothing" in out.output and "total: 52" in out.output
    out = run_cli("hand", "civ1981", "--cards", "Grain x3", "--json")
    assert json.loads(out.output)["total"] == 36


# --- the dynamic programme on its own, and the stress states ------------------------------------

class dynamic_programme_only:
    """Within it, every search goes straight to the dynamic programme (no branch and bound)."""

    def __enter__(self):
        self.saved = purchase.PurchaseProblem.bb_cap
        purchase.PurchaseProblem.bb_cap = 0

    def __exit__(self, *exc):
        purchase.PurchaseProblem.bb_cap = self.saved


@pytest.mark.parametrize("rid", SHIPPED)
@PROPERTY
@given(data=st.data())
def test_dynamic_programme_matches_brute_force(rid, data):
    rb = _book(rid)
    module = rb.module
    state, among = random_instance(data, module, max_candidates=9)
    # the same-turn advances often among the candidates
    among = list(dict.fromkeys(among + [n for n in ("Library", "Anatomy", "Roadbuilding", "Trade Routes",
                                                     "Diaspora", "Mining") if n in module.ADVANCES
                                         and n not in state["holds"] and data.draw(st.booleans(), label=n)]))
    has_vp = all(a["vp"] is not None for a in module.ADVANCES.values())
    spec = data.draw(st.sampled_from([o for o in OBJECTIVES if has_vp or "vp" not in (o or "")]), label="objective")
    top = data.draw(st.integers(1, 4), label="top")
    state["treasury"] = data.draw(st.sampled_from([state["treasury"], 300, 600]), label="rich")
    values = objective_values(module, spec)
    expected = brute_force(rb, state, among, values, top=top)
    with dynamic_programme_only():
        got = question.plan(rb, state, objective_spec=spec, among=among, top=top)
    assert got["search"] == "dynamic programme"
    assert [summary(p) for p in got["plans"]] == [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_dynamic_programme_on_the_fixture_rulebook(fixture_book, data):
    module = fixture_book.module
    names = list(module.ADVANCES)
    holds = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
    cards = data.draw(st.dictionaries(st.sampled_from(["Ochre", "Salt", "Sand"]), st.integers(1, 4), max_size=3))
    state = {"holds": holds, "commodities": cards, "treasury": data.draw(st.integers(0, 400))}
    spec = data.draw(st.sampled_from([None, "points", "cards", "1 - vp"]))
    expected = brute_force(fixture_book, state, names, objective_values(module, spec), top=3)
    with dynamic_programme_only():
        got = question.plan(fixture_book, state, objective_spec=spec, top=3)
    assert [summary(p) for p in got["plans"]] == [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]


@pytest.mark.parametrize("rid", ["megaciv", "expansion"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_same_turn_machine_prices_like_the_runtime(rid, data):
    """Visiting a set from the dearest down, the machine's price is pricing.prices' total."""
    from civdsl.plan import search as plan_search

    rb = _book(rid)
    module = rb.module
    state, among = random_instance(data, module, max_candidates=10)
    among = list(dict.fromkeys(among + [n for n in ("Library", "Anatomy") if n not in state["holds"]]))
    ps = rb.state((), state)
    problem = purchase.PurchaseProblem(module, ps.held, ps.facts, objectives.objective(module, "cards"), among=among)
    buys = data.draw(st.lists(st.sampled_from(problem.candidates), unique=True), label="buys")
    bought = tuple(n for n in sorted(problem.same_turn, key=problem.order.get) if n in buys)
    machine = problem.machine_for(bought)
    ms, price = machine.start, 0
    for name in sorted(buys, key=lambda n: (machine.base[n], n), reverse=True):
        ms, delta = machine.step(ms, name)
        price += delta
    price += machine.finish(ms)
    expected = pricing.prices(module, ps.held, sorted(buys, key=problem.order.get), ps.facts.get("credits"))["total"]
    assert price == expected
    assert isinstance(plan_search.SameTurnMachine, type)


@pytest.mark.parametrize("rid", ["megaciv", "expansion"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_target_assignments_partition_purchases_and_price_them(rid, data):
    """Every purchase meets exactly one assignment of the same-turn abilities' targets, and the
    prices that assignment leaves add up to pricing.prices' total."""
    from civdsl.plan import search as plan_search

    rb = _book(rid)
    module = rb.module
    state, among = random_instance(data, module, max_candidates=10)
    among = list(dict.fromkeys(among + [n for n in ("Library", "Anatomy") if n not in state["holds"]]))
    ps = rb.state((), state)
    problem = purchase.PurchaseProblem(module, ps.held, ps.facts, objectives.objective(module, "cards"), among=among)
    buys = set(data.draw(st.lists(st.sampled_from(problem.candidates), unique=True), label="buys"))
    bought = tuple(n for n in sorted(problem.same_turn, key=problem.order.get) if n in buys)
    machine = problem.machine_for(bought)
    pool = {n for n in problem.candidates if n not in problem.same_turn or n in bought}
    met = [(must, prices) for must, out, prices in plan_search.targets(machine, pool, frozenset(bought))
           if must <= buys and not (out & buys)]
    assert len(met) == 1
    must, prices = met[0]
    expected = pricing.prices(module, ps.held, sorted(buys, key=problem.order.get), ps.facts.get("credits"))["total"]
    assert sum(prices.get(n, machine.base[n]) for n in buys) == expected


BENCH = bench_planner()


@pytest.mark.parametrize("case", BENCH.STRESS, ids=[c[0] for c in BENCH.STRESS])
def test_stress_states_structure(case):
    """The benchmark's stress states: the plan is affordable, paid legally, priced as pricing.prices
    prices it, maximal (no advance worth something left out still fits), and the branch and
    bound (when it finishes) and the dynamic programme agree."""
    name, rid, state, options = case
    rb = _book(rid)
    module = rb.module
    state = BENCH.stress_state(module, state)
    report = question.plan(rb, state, **options)
    with dynamic_programme_only():
        alone = question.plan(rb, state, **options)
    assert [summary(p) for p in report["plans"]] == [summary(p) for p in alone["plans"]]
    p = report["plans"][0]
    ps = rb.state((), state)
    priced = pricing.prices(module, ps.held, p["buy"], ps.facts.get("credits"))
    assert priced["total"] == p["total"]
    pay = p["payment"]
    assert pay["paid"] == p["spent"] >= p["total"]
    assert pay["kept_cards"] <= pay["hand_limit"]
    # tokens from cards turned into treasury first (Trade Routes) pay too
    assert pay["treasury"] <= state["treasury"] + pay["converted_treasury"]
    assert pay["treasury"] == 0 or pay["card_value"] + (pay["treasury"] - 1) * pay["treasury_value"] < p["total"]
    obj = objectives.objective(module, options.get("objective_spec"))
    problem = purchase.PurchaseProblem(module, ps.held, ps.facts, obj)
    for extra in problem.candidates:
        if extra in p["buy"] or obj.values[extra] <= 0:
            continue
        more = p["buy"] + [extra]
        assert problem.payments.spent(problem.exact_price(more), problem.hand_limit(more)) is None, extra
    if options.get("explain"):
        ex = report["explain"]
        assert ex["runners_up"] and len(ex["advances_not_bought"]) == len(problem.candidates) - len(p["buy"])
        for e in ex["advances_not_bought"]:
            if "best_with_it" in e:
                assert e["advance"] in e["best_with_it"]


# brute force pays by trying every number of each commodity: not for the 180-card hand
FEASIBLE = [c for c in BENCH.STRESS if "hand" not in c[2]]


@pytest.mark.parametrize("case", FEASIBLE, ids=[c[0] for c in FEASIBLE])
def test_stress_states_against_brute_force(case):
    """The stress states with the candidates cut to ten (the same-turn advances among them), where
    brute force is feasible: the dynamic programme and the default search equal it."""
    name, rid, state, options = case
    rb = _book(rid)
    module = rb.module
    state = BENCH.stress_state(module, state)
    ps = rb.state((), state)
    cands = [n for n in module.ADVANCES if n not in ps.held and module.ADVANCES[n]["cost"] is not None
             and not module.ADVANCES[n]["requires"]]
    among = [n for n in ("Library", "Anatomy") if n in cands]
    among += [n for n in cands if n not in among][::4][:10 - len(among)]
    spec = options.get("objective_spec")
    # as given (every one of the ten fits), and with a treasury that pays for about half of them
    whole = sum(module.ADVANCES[n]["cost"] for n in among)
    for treasury in (state["treasury"], whole * 9 // 20):
        st_ = dict(state, treasury=treasury)
        expected = brute_force(rb, st_, among, objective_values(module, spec), top=3)
        want = [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]
        with dynamic_programme_only():
            got = question.plan(rb, st_, objective_spec=spec, among=among, top=3)
        assert [summary(p) for p in got["plans"]] == want
        got = question.plan(rb, st_, objective_spec=spec, among=among, top=3)
        assert [summary(p) for p in got["plans"]] == want


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_stress_states_seed_the_property(data):
    """The stress states as seeds of a property: a random set of up to ten of their candidates
    (Library and Anatomy often among them, so that the programme runs once per assignment of
    their targets, and whole link chains, so that signatures form), a random treasury and --top:
    the programme alone and the default search equal brute force."""
    name, rid, state, options = data.draw(st.sampled_from(FEASIBLE), label="stress state")
    rb = _book(rid)
    module = rb.module
    state = BENCH.stress_state(module, state)
    ps = rb.state((), state)
    cands = [n for n in module.ADVANCES if n not in ps.held and module.ADVANCES[n]["cost"] is not None
             and not module.ADVANCES[n]["requires"]]
    among = [n for n in ("Library", "Anatomy") if n in cands and data.draw(st.booleans(), label=n)]
    chains = [c for c in BENCH._chains(module) if all(n in cands for n in c)]
    for chain in data.draw(st.lists(st.sampled_from(chains), max_size=2, unique_by=tuple), label="chains"):
        among += [n for n in chain if n not in among]
    among += data.draw(st.lists(st.sampled_from(cands), max_size=4, unique=True), label="others")
    among = list(dict.fromkeys(among))[:10]
    whole = sum(module.ADVANCES[n]["cost"] for n in among)
    treasury = data.draw(st.sampled_from([state["treasury"], whole // 2, whole // 4, whole * 3 // 4]), label="treasury")
    top = data.draw(st.integers(1, 3), label="top")
    st_ = dict(state, treasury=treasury)
    spec = options.get("objective_spec")
    expected = brute_force(rb, st_, among, objective_values(module, spec), top=top)
    want = [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]
    with dynamic_programme_only():
        got = question.plan(rb, st_, objective_spec=spec, among=among, top=top)
    assert [summary(p) for p in got["plans"]] == want
    got = question.plan(rb, st_, objective_spec=spec, among=among, top=top)
    assert [summary(p) for p in got["plans"]] == want


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_stress_states_seed_the_two_turn_property(data):
    """The stress states as seeds of the two-turn look-ahead's property: up to six of their
    advances (Library and Anatomy often, a whole link chain, an advance whose prerequisite is
    among them, so that buying it now opens it next turn), a random treasury: the look-ahead
    equals brute force over pairs of purchases, and it completes."""
    name, rid, state, options = data.draw(st.sampled_from(FEASIBLE), label="stress state")
    rb = _book(rid)
    module = rb.module
    state = BENCH.stress_state(module, state)
    ps = rb.state((), state)
    unheld = [n for n in module.ADVANCES if n not in ps.held and module.ADVANCES[n]["cost"] is not None]
    among = [n for n in ("Library", "Anatomy") if n in unheld and data.draw(st.booleans(), label=n)]
    chains = [c for c in BENCH._chains(module) if all(n in unheld for n in c) and len(c) <= 3]
    among += [n for n in data.draw(st.sampled_from(chains), label="chain") if n not in among]
    opened = [n for n in unheld if module.ADVANCES[n]["requires"]
              and all(r in unheld and not module.ADVANCES[r]["requires"] for r in module.ADVANCES[n]["requires"])]
    if opened and data.draw(st.booleans(), label="a prerequisite bought now?"):
        late = data.draw(st.sampled_from(opened), label="opened")
        among += [n for n in module.ADVANCES[late]["requires"] + [late] if n not in among]
    among += data.draw(st.lists(st.sampled_from(unheld), max_size=3, unique=True), label="others")
    among = list(dict.fromkeys(among))[:6]
    whole = sum(module.ADVANCES[n]["cost"] for n in among)
    treasury = data.draw(st.sampled_from([state["treasury"], whole // 2, whole // 4, whole // 8]), label="treasury")
    st_ = dict(state, treasury=treasury)
    spec = options.get("objective_spec")
    got = question.plan(rb, st_, objective_spec=spec, among=among, horizon=2)["horizon"]
    best = best_pair(rb, st_, among, objective_values(module, spec))
    assert got["complete"] is True and got["total_at_most"] == got["total"] == best[0][0]
    assert (got["this_turn"]["buy"], got["next_turn"]["buy"]) == (best[1], best[2])


def test_a_tie_on_the_objective_found_in_a_later_assignment_run_is_not_skipped():
    """Library's runs (one per advance its discount may land on): the best plan's run only ties
    the objective a run before it found, and wins on what it hands over, so it must be run (a
    cut that skipped every run merely reaching the k-th objective picked Universal Doctrine)."""
    rb = _book("megaciv")
    state = {"holds": ["Theology", "Cultural Ascendancy", "Mathematics", "Anatomy"],
             "commodities": {"Grain": 2, "Salt": 3}, "treasury": 295, "players": 9}
    among = ["Library", "Theocracy", "Universal Doctrine", "Urbanism", "Diplomacy", "Provincial Empire", "Deism",
             "Trade Routes"]
    spec = "vp * 10 - cost // 10"
    expected = brute_force(rb, state, among, objective_values(rb.module, spec), top=1)
    with dynamic_programme_only():
        got = question.plan(rb, state, objective_spec=spec, among=among)
    assert [summary(p) for p in got["plans"]] == [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]
    assert got["plans"][0]["buy"] == ["Urbanism", "Deism", "Diplomacy", "Library"]


def test_a_tie_on_objective_and_spend_in_a_later_assignment_run_is_decided_by_credit():
    """--top 3 of the advances bought: the third plan's run ties the third best found before it
    on the objective and on what it hands over, and wins on credit, so it must be run (a cut
    that skipped runs reaching only an equal spend listed Calendar and Library third)."""
    rb = _book("megaciv")
    state = {"holds": ["Architecture"], "commodities": {"Grain": 4, "Salt": 2}, "treasury": 870, "players": 9}
    among = ["Library", "Anatomy", "Astronavigation", "Calendar", "Public Works", "Masonry", "Engineering",
             "Roadbuilding", "Universal Doctrine", "Enlightenment"]
    expected = brute_force(rb, state, among, objective_values(rb.module, "cards"), top=3)
    with dynamic_programme_only():
        got = question.plan(rb, state, objective_spec="cards", among=among, top=3)
    assert [summary(p) for p in got["plans"]] == [(e[1], e[0][0], e[3], e[4], e[2]) for e in expected]
    assert got["plans"][2]["buy"] == ["Masonry", "Astronavigation", "Engineering", "Enlightenment",
                                      "Universal Doctrine", "Anatomy"]


# --- the declared work limits of the payment table and of --explain ---------------------------

def _payment(answer: dict | None):
    """A payment of the answer with its fields as attributes (None stays None)."""
    return None if answer is None else SimpleNamespace(**answer)


def _assert_legal(module, cards: dict, treasury: int, tv: int, rate: int, got, price, limit: int) -> None:
    """A payment the table names can be made: every card accounted for, the sets valued by
    set_value, the tokens converted and spent within what there is, the hand limit kept."""
    sub = got.substitute
    for c in cards:
        used = got.cards.get(c, 0) + got.converted.get(c, 0) + got.kept.get(c, 0) + (1 if sub and sub["card"] == c else 0)
        assert used == cards[c]
    face = {c: module.COMMODITIES[c]["value"] for c in cards}
    assert got.converted_treasury == sum(rate * face[c] * k for c, k in got.converted.items())
    value = sum(module.set_value(k + (1 if sub and sub["set"] == c else 0), face[c]) for c, k in got.cards.items())
    assert got.card_value == value
    assert got.kept_cards == sum(got.kept.values()) <= limit
    assert got.treasury <= treasury + got.converted_treasury
    assert got.card_value + got.treasury * tv == got.paid >= price


@pytest.mark.parametrize("rid", ["megaciv", "expansion"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_payment_table_stopped_at_its_work_limit_still_answers_soundly(rid, data):
    """Past its work limit what the hand can pay is worked out for whole sets only, and the
    payment is chosen among what-can-be-paid's own payments: every payment named is still legal,
    never claims less than the least there is, and the table says what stopped it."""
    module = _book(rid).module
    commodities = [n for n in module.COMMODITIES if module.COMMODITIES[n]["value"] > 0]
    cards = data.draw(st.dictionaries(st.sampled_from(commodities), st.integers(1, 4), min_size=1, max_size=5))
    treasury = data.draw(st.sampled_from([0, 5, 20]))
    tv = data.draw(st.sampled_from([1, 2]))
    rate = data.draw(st.sampled_from([0, 2]))
    substitute = data.draw(st.booleans())
    limit = data.draw(st.integers(0, sum(cards.values()) + 1))
    exact = payment.PaymentTable(module, cards, treasury, tv, None, rate, substitute)
    table = payment.PaymentTable(module, cards, treasury, tv, None, rate, substitute)
    table.work_limit = data.draw(st.integers(0, 300))
    table.choice_work = data.draw(st.integers(0, 300))
    table.choice_stop = data.draw(st.sampled_from([0, 50, 500, 5_000_000]))
    price = data.draw(st.integers(0, int(exact.budget(limit)) + 3))
    least, got = table.spent(price, limit), _payment(table.best(price, limit))
    if least is None:
        assert got is None
    else:
        assert exact.spent(price, limit) <= least == got.paid
        _assert_legal(module, cards, treasury, tv, rate, got, price, limit)
    assert exact.stopped == [] and set(table.stopped) <= {payment.PAYING, payment.CHOOSING}
    if payment.PAYING in table.stopped:
        assert table.paying[0] > table.work_limit  # the moves it counted passed the limit
        assert table.budget(limit) <= exact.budget(limit) <= table.most_payable()
    else:
        assert least == exact.spent(price, limit) and table.levels(limit) == exact.levels(limit)
        if got is not None:
            best = _payment(exact.best(price, limit))
            assert got.kept_value + got.treasury_left * tv <= best.kept_value + best.treasury_left * tv


def test_the_whole_deck_with_trade_routes_and_trade_empire_answers_within_the_payment_limit():
    """The 296-card hand (every commodity card of the box) holding Trade Routes and Trade Empire:
    what the hand can pay passes the table's work limit (counted in moves tried), so the plan is
    the best found paying with whole sets, said so in the text and the JSON, with a bound."""
    rb = _book("megaciv")
    state = bench_planner().stress_state(rb.module, {"holds": ["Pottery", "Trade Routes", "Trade Empire"],
                                                     "hand": 296, "treasury": 20, "players": 9})
    assert sum(state["commodities"].values()) == 296
    table = payment.PaymentTable(rb.module, state["commodities"], 20, 1, None, 2, True)
    table.levels(9)
    assert table.stopped == [payment.PAYING] and table.paying[0] > payment.WORK
    report = question.plan(rb, state)
    assert report["payment_stopped"] == [payment.PAYING] and report["complete"] is False
    assert report["payment_work_limit"] == payment.WORK
    best = report["plans"][0]
    assert best["objective"] <= report["total_at_most"]
    pay = _payment(best["payment"])
    _assert_legal(rb.module, state["commodities"], 20, 1, 2, pay, best["total"], best["hand_limit"])
    text = plan_text.render(report)
    assert (f"working out what the hand can pay stopped at its work limit ({payment.WORK:,} steps)"
            in text and f"no plan gives more than {report['total_at_most']} VP" in text)


def test_a_payment_chosen_past_its_limit_hands_over_the_least_and_says_so():
    """The 180-card hand (no card ability): what the hand can pay takes more than the choice's
    limit, so the payment is what-can-be-paid's own: the least handed over, the ranking proven."""
    rb = _book("megaciv")
    state = bench_planner().stress_state(rb.module, {"holds": ["Pottery", "Music"], "hand": 180, "treasury": 0,
                                                     "players": 9})
    report = question.plan(rb, state)
    assert report["payment_stopped"] == [payment.CHOOSING] and report["complete"] is False
    best = report["plans"][0]
    assert best["payment"]["paid"] == best["spent"] and report["total_at_most"] == best["objective"]
    assert "choosing the payment stopped at its work limit" in plan_text.render(report)


def test_explain_stops_at_its_declared_limit_and_says_which_advances_it_left(monkeypatch):
    """--explain's searches share a declared number of sets: past it an advance left out is
    proven out by the bound of every purchase with it, or said not to be worked out."""
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_points", 0)  # the searches alone (see best_with_each)
    rb = _book("megaciv")
    state = {"holds": ["Music"], "commodities": {"Grain": 3, "Papyri": 2, "Hides": 1}, "treasury": 10, "players": 6}
    full = question.plan(rb, state, explain=True)["explain"]
    assert full["complete"] is True and full["not_worked_out"] == 0 and full["sets_examined"] > 0
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_cap", 0)
    report = question.plan(rb, state, explain=True)
    ex = report["explain"]
    assert ex["sets_examined"] == 0 and ex["work_limit"] == 0
    limited = [e for e in ex["advances_not_bought"] if "work limit" in e["why_not"]]
    assert limited and ex["complete"] is (ex["not_worked_out"] == 0)
    for e in limited:
        if e["why_not"].startswith("no purchase with it gives more than"):
            assert int(e["why_not"].split()[7]) < report["plans"][0]["objective"]
        else:
            assert e["why_not"].startswith("not worked out")
    assert len([e for e in limited if e["why_not"].startswith("not worked out")]) == ex["not_worked_out"]


def test_explain_answers_with_the_plans_own_programme_where_its_share_of_sets_is_too_small(monkeypatch):
    """On a dense state (treasury 1,000: every advance affordable) a branch and bound per advance
    stops within its share of explain_cap; the plan's own dynamic programme then answers the
    first advances exactly (the best purchase a search wanting the advance finds), and each
    advance past explain_programmes says which limits stopped it (the forward and backward
    programmes, which answer them all, set aside by their limit)."""
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_points", 0)
    rb = _book("megaciv")
    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 1000, "players": 9}
    ex = question.plan(rb, state, explain=True)["explain"]
    runs = purchase.PurchaseProblem.explain_programmes
    assert ex["programmes_run"] == runs and ex["programme_limit"] == runs
    ps = rb.state((), state)
    problem = purchase.PurchaseProblem(rb.module, ps.held, ps.facts, objectives.objective(rb.module))
    answered = [e for e in ex["advances_not_bought"] if "best_with_it" in e]
    assert len(answered) >= runs
    for e in answered:
        [best] = purchase.with_want(problem, [e["advance"]]).search(1)
        assert list(best.buys) == e["best_with_it"]
    unworked = [e for e in ex["advances_not_bought"] if e["why_not"].startswith("not worked out")]
    assert unworked and len(unworked) == ex["not_worked_out"]
    assert all(f"4,000 sets of advances and {runs} programmes over price" in e["why_not"] for e in unworked)


def test_explain_proves_out_by_the_whole_advance_knapsack_what_the_fractional_bound_cannot(monkeypatch):
    """Where the searches' work limit leaves an advance unsearched, the bound of every purchase with
    it is the lesser of the fractional and the whole-advance knapsack bounds: at treasury 1,000
    the fractional bound of Metalworking reaches the plan's 30 VP, the whole-advance one does not."""
    rb = _book("megaciv")
    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 1000, "players": 9}
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_cap", 0)
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_programmes", 0)
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_points", 0)

    def why(name):
        ex = question.plan(rb, state, explain=True)["explain"]
        return next(e["why_not"] for e in ex["advances_not_bought"] if e["advance"] == name)

    assert why("Metalworking").startswith("no purchase with it gives more than 29 VP against 30")
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_knapsack", 0)  # no table: the fractional bound alone
    assert why("Metalworking").startswith("not worked out")


@pytest.mark.parametrize("rid", ["megaciv", "expansion"])
def test_the_bound_of_every_purchase_with_an_advance_is_never_below_the_best_such_purchase(rid):
    rb = _book(rid)
    rng = random.Random(30)
    for _ in range(6):
        ps = rb.state((), BENCH.random_state(rb.module, rng))
        problem = purchase.PurchaseProblem(rb.module, ps.held, ps.facts, objectives.objective(rb.module))
        for name in problem.candidates[:12]:
            found = purchase.with_want(problem, [name]).search(1)
            if found:
                assert problem.bound_with(name) >= found[0].objective, name


def test_explains_programmes_stop_at_their_declared_limit_of_cells(monkeypatch):
    """The Expansion at treasury 1,000: a programme wanting one advance holds up to 170,000 cells
    (0.5-0.8 s); past `explain_cells` in all it stops, and that advance and the rest are not worked
    out, saying which limits stopped them."""
    rb = _book("expansion")
    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 1000, "players": 9}
    report = question.plan(rb, state, explain=True)
    ex = report["explain"]
    limit = purchase.PurchaseProblem.explain_cells
    assert ex["programme_cell_limit"] == limit and ex["programme_cells"] == limit
    assert ex["programmes_run"] < purchase.PurchaseProblem.explain_programmes or ex["not_worked_out"]
    unworked = [e for e in ex["advances_not_bought"] if e["why_not"].startswith("not worked out")]
    assert len(unworked) == ex["not_worked_out"] and ex["complete"] is False
    assert all(f"programmes over price of {limit:,} cells in all" in e["why_not"] for e in unworked)
    assert f"programmes over price of {limit:,} cells in all" in plan_text.render(report)
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_cells", 10 ** 9)
    unlimited = question.plan(rb, state, explain=True)["explain"]
    assert unlimited["programmes_run"] == purchase.PurchaseProblem.explain_programmes
    assert unlimited["not_worked_out"] < ex["not_worked_out"] and unlimited["programme_cells"] > limit


def test_the_planners_work_limits_are_documented():
    text = (Path(__file__).resolve().parents[1] / "docs" / "planner.md").read_text(encoding="utf-8")
    for number in (payment.WORK, payment.CHOICE_WORK, payment.CHOICE_STOP,
                   purchase.PurchaseProblem.explain_cap, purchase.PurchaseProblem.horizon_work,
                   purchase.PurchaseProblem.explain_programmes, purchase.PurchaseProblem.explain_cells,
                   purchase.PurchaseProblem.explain_knapsack, purchase.PurchaseProblem.explain_points):
        assert f"{number:,}" in text


# --- --explain's forward and backward programmes against brute force ------------------------

@pytest.mark.parametrize("rid", SHIPPED)
@PROPERTY
@given(data=st.data())
def test_the_best_purchase_with_each_advance_matches_brute_force(rid, data):
    """answer.best_with_each: for every candidate at once, the most objective of a purchase with it
    and the least handed over for that, as exhaustive search over every purchase with it finds."""
    from civdsl.plan import answer as plan_answer

    rb = _book(rid)
    module = rb.module
    state, among = random_instance(data, module)
    has_vp = all(a["vp"] is not None for a in module.ADVANCES.values())
    spec = data.draw(st.sampled_from([o for o in OBJECTIVES if has_vp or "vp" not in (o or "")]), label="objective")
    cands = [n for n in among if module.ADVANCES[n]["cost"] is not None
             and all(r in state["holds"] for r in module.ADVANCES[n]["requires"])]
    want = data.draw(st.lists(st.sampled_from(cands), unique=True, max_size=1), label="want") if cands else []
    ps = rb.state((), dict(state))
    try:
        problem = purchase.PurchaseProblem(module, ps.held, ps.facts, objectives.objective(module, spec, ps),
                                           want=want, among=among)
    except StateError:
        return
    if problem.single_use:
        assert plan_answer.best_with_each(problem, list(problem.candidates)) is None
        return
    values = objective_values(module, spec)
    got = plan_answer.best_with_each(problem, list(problem.candidates))
    for name in problem.candidates:
        expected = brute_force(rb, state, among, values, want=list(want) + [name])
        assert got[name] == (expected[0][0][:2] if expected else None), name


def test_explain_answers_every_advance_of_the_dense_state_by_objective_or_what_it_hands_over():
    """Mega Civilization at treasury 1,000 (every advance affordable): the forward and backward
    programmes answer every advance left out that no listed plan holds, exactly, without a search;
    the text names the criterion."""
    rb = _book("megaciv")
    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 1000, "players": 9}
    report = question.plan(rb, state, explain=True)
    ex, best = report["explain"], report["plans"][0]
    assert ex["not_worked_out"] == 0 and ex["complete"] is True and 0 < ex["points"] <= ex["point_limit"]
    settled = [e for e in ex["advances_not_bought"] if "least_spent" in e]
    assert len(settled) >= 30
    ps = rb.state((), state)
    problem = purchase.PurchaseProblem(rb.module, ps.held, ps.facts, objectives.objective(rb.module))
    for e in settled[:6] + settled[-3:]:
        [found] = purchase.with_want(problem, [e["advance"]]).search(1)
        assert (found.objective, found.spent) == (e["best_objective"], e["least_spent"])
        assert (found.objective, -found.spent) < (best["objective"], -best["spent"])
    rhetoric = next(e for e in settled if e["advance"] == "Rhetoric")
    assert rhetoric["why_not"] == (f"the best purchases with it give the same {best['objective']} VP, but hand "
                                   f"over {rhetoric['least_spent']} against {best['spent']}")
    assert any(e["why_not"].endswith(f"VP against {best['objective']}") for e in settled)


def test_the_programmes_over_every_advance_stop_at_their_declared_limit_of_points(monkeypatch):
    """Past `explain_points` the forward and backward programmes answer no advance: the searches
    answer what they can, and an advance left not worked out names that limit too."""
    rb = _book("megaciv")
    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 1000, "players": 9}
    monkeypatch.setattr(purchase.PurchaseProblem, "explain_points", 1000)
    ex = question.plan(rb, state, explain=True)["explain"]
    assert ex["point_limit"] == 1000 and ex["points"] > 1000
    assert not any("least_spent" in e for e in ex["advances_not_bought"])
    unworked = [e for e in ex["advances_not_bought"] if e["why_not"].startswith("not worked out")]
    assert unworked and len(unworked) == ex["not_worked_out"] and ex["complete"] is False
    assert all("the programmes over every advance at once stopped at 1,000 points" in e["why_not"] for e in unworked)


# --- no loop grows with a number the state gives ----------------------------------------------

def _lines_run(fn) -> int:
    """The lines of the planner, the payment table, pricing and the credits' placement that
    `fn()` executes: a count of work that no timer's noise moves."""
    import os
    import sys

    here = Path(civdsl.__file__).resolve().parent
    roots = (str(here / "plan") + os.sep, str(here / "pricing.py"), str(here / "placement.py"))
    count = [0]

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
        return local

    def enter(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(roots) else None

    sys.settrace(enter)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count[0]


STRICT_BOOK = str(Path(__file__).resolve().parents[1] / "rulebooks" / "house" / "strict_credits.civ")


@pytest.mark.parametrize("rid, state, options, grown", [
    ("megaciv", {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 10_000, "players": 9},
     {"explain": True, "top": 5}, {"treasury": 999_999_999}),
    ("megaciv", {"holds": ["Pottery"], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 300, "players": 9},
     {"explain": True, "horizon": 2, "hand_limit": 1_000}, {"hand_limit": 1_000_000}),
    ("megaciv", {"holds": ["Pottery"], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 300, "players": 9,
                 "credits": {"crafts": 1_000, "arts": 1_000}},
     {"explain": True}, {"credits": {"crafts": 10 ** 9 - 1, "arts": 10 ** 9 - 1}}),
    ("megaciv", {"holds": ["Pottery"], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 300, "players": 9},
     {"explain": True, "objective_spec": "vp * 1000"}, {"objective_spec": "vp * 999999999 * 999999"}),
    ("expansion", {"holds": ["Pottery"], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 10_000, "players": 9},
     {"explain": True}, {"treasury": 999_999_999}),
    (STRICT_BOOK, {"holds": ["Pottery", "Music", "Mysticism"], "commodities": {"Grain": 4}, "treasury": 10_000,
                   "players": 9, "credits": {"arts": 1_000}},
     {"explain": True}, {"treasury": 999_999_999, "credits": {"arts": 10 ** 9 - 1}}),
])
def test_no_loop_of_an_answer_grows_with_a_number_of_the_state(rid, state, options, grown):
    """Every loop of the planner, pricing and the placement is bounded by the rulebook's sizes or
    counted against a declared limit, never by the value of a number the state or the options give
    (the treasury, a credit, the hand limit, an objective's scale): past the rulebook's own sums,
    a number a million times larger makes the answer do the same work (up to the digits written)."""
    rb = _book(rid) if rid in SHIPPED else civdsl.load(rid)

    def lines(changes: dict) -> int:
        st = {**state, **{k: v for k, v in changes.items() if k in state}}
        opts = {**options, **{k: v for k, v in changes.items() if k not in state}}
        return _lines_run(lambda: question.plan(rb, st, **opts))

    lines({})  # the rulebook's caches (advance facts, machines) filled first
    small, large = lines({}), lines(grown)
    assert small > 1000 and large <= small * 1.02 + 500, (small, large)
