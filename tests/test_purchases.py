"""Purchases: start credits, Anatomy as data, legality in `cost`, impossible hands and the strict
single-use credit variant. Each test reads like the rule it checks."""

import itertools
import json
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import civdsl
from civdsl import pricing
from civdsl.plan import plan
from civdsl.state import StateError

from benchmark_modules import bench_planner

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "rulebooks" / "house"


@pytest.fixture(scope="module")
def mega():
    return civdsl.load("megaciv")


# --- start credits (Mega Civilization, chapter 4) ------------------------------------------------

@pytest.mark.parametrize("players, each", [(5, 10), (6, 5), (7, 0), (11, 0), (12, 5), (13, 0), (18, 0)])
def test_start_credits_by_number_of_players(mega, players, each):
    st = mega.state([], {"players": players})
    assert st.start_credits["per_group"] == each
    assert st.facts.get("credits", {}) == ({g: each for g in mega.module.GROUPS} if each else {})


def test_no_start_credits_in_the_short_game(mega):
    st = mega.state([], {"players": 5, "scenario": "The Short Game"})
    assert st.start_credits["per_group"] == 0 and st.start_credits["waived"]


def test_without_the_player_count_cost_says_start_credits_are_not_counted(mega):
    result = mega.cost(["Pottery", "Masonry"], ["Agriculture"], {})
    assert result["items"][0]["price"] == 90
    assert "start credits are not counted: they depend on `players`" in result["notes"]


def test_start_credits_join_the_credit_tiebreakers(mega):
    five = mega.score(["Pottery"], {"players": 5, "cities": 1, "tokens": 3, "ast_position": 0, "sole_leader": False})
    nine = mega.score(["Pottery"], {"players": 9, "cities": 1, "tokens": 3, "ast_position": 0, "sole_leader": False})
    ties5 = {t["label"]: t["value"] for t in five["tiebreaks"]}
    ties9 = {t["label"]: t["value"] for t in nine["tiebreaks"]}
    assert ties5["All credit points"] == ties9["All credit points"] + 50  # 10 in each of 5 groups


def test_the_planner_counts_start_credits(mega):
    state = {"players": 5, "holds": ["Pottery", "Masonry"], "treasury": 80, "commodities": {}}
    report = plan(mega, state, want=["Agriculture"])
    [row] = [r for r in report["plans"][0]["items"] if r["advance"] == "Agriculture"]
    assert row["price"] == 80


def test_unknown_scenario_is_named(mega):
    with pytest.raises(StateError, match="unknown scenario `Short Game` \\(did you mean `The Short Game`\\?\\)"):
        mega.cost([], ["Pottery"], {"scenario": "Short Game"})


def test_spent_start_credits_need_single_use_ones(mega, tmp_path):
    with pytest.raises(StateError, match="kept all game \\(not single-use\\)"):
        mega.cost([], ["Pottery"], {"players": 5, "start_credits_used": ["crafts"]})
    once = tmp_path / "once.civ"
    once.write_text('language 1\nedition once "Single-use start tokens" extends megaciv\n'
                    'start credits start_credits_by_players(players) once "each start token buys one advance"\n',
                    encoding="utf-8")
    rb = civdsl.load(once)
    result = rb.cost([], ["Pottery", "Mysticism"], {"players": 5, "start_credits_used": ["crafts"]})
    assert {r["advance"]: r["price"] for r in result["items"]} == {"Pottery": 60, "Mysticism": 40}


# --- Anatomy: two editions, two rules, both data ---------------------------------------------------

def test_mega_anatomy_frees_one_science_advance_bought_with_it(mega):
    result = mega.cost([], ["Anatomy", "Astronavigation", "Coinage"], {"players": 9})
    prices = {r["advance"]: r["price"] for r in result["items"]}
    assert sorted(prices.values()).count(0) == 1 and result["acquired"] == []


def test_expansion_anatomy_acquires_every_science_card_under_100():
    rb = civdsl.load("expansion")
    result = rb.cost([], ["Anatomy"], {})
    assert [(r["advance"], r["price"]) for r in result["acquired"]] == [
        ("Empiricism", 0), ("Astronomy", 0), ("Coinage", 0), ("Written Record", 0)]
    out = run_cli("cost", "expansion", "--buy", "Anatomy")
    assert out.exit_code == 0
    assert "Written Record: 0  (printed 60; Anatomy (acquired automatically))" in out.stdout


# --- legality in `cost` -------------------------------------------------------------------------------

def test_cost_reports_an_illegal_purchase_and_exits_1():
    out = run_cli("cost", "civ1981", "--buy", "Law,Democracy")
    assert out.exit_code == 1
    assert out.stderr.strip() == ("illegal purchase: Democracy: needs Law held before this turn "
                                  "(bought in the same turn does not count)")
    assert run_cli("cost", "civ1981", "--holds", "Law", "--buy", "Democracy").exit_code == 0


def test_cost_checks_the_card_limit():
    rb = civdsl.load("civ1981")
    held = ["Pottery", "Cloth Making", "Metalworking", "Agriculture", "Mysticism", "Astronomy", "Music",
            "Drama and Poetry", "Architecture", "Literacy"]
    result = rb.cost(held, ["Law", "Coinage"], {})
    assert result["illegal"] == [{"advance": None, "why": "12 advances held after the purchase, but the card "
                                                          "limit is 11"}]


# --- impossible hands -----------------------------------------------------------------------------------

def test_a_hand_cannot_hold_more_cards_than_the_deck(mega):
    with pytest.raises(StateError, match="--cards: 6 Gold cards, but the deck holds 5"):
        mega.hand({"Gold": 6})
    out = run_cli("hand", "megaciv", "--cards", "Salt x99")
    assert out.exit_code == 1 and "99 Salt cards, but the deck holds 9" in out.stderr
    for ask in (lambda s: mega.resolve("Famine", state=s), lambda s: plan(mega, s), lambda s: mega.cost([], [], s)):
        with pytest.raises(StateError, match="`commodities`: 6 Gold cards, but the deck holds 5"):
            ask({"commodities": {"Gold": 6}, "cities": 3})


# --- the strict single-use credit variant -------------------------------------------------------------

def test_strict_credits_spend_each_credit_on_one_advance(mega):
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    assert strict.module.CREDIT_VARIANTS == ("single_use",)
    buy = ["Agriculture", "Metalworking"]
    loose = {r["advance"]: r["price"] for r in mega.cost(["Pottery", "Masonry"], buy, {"players": 9})["items"]}
    tight = strict.cost(["Pottery", "Masonry"], buy, {"players": 9})
    assert loose == {"Agriculture": 90, "Metalworking": 70}
    # Pottery (10 crafts + 10 toward Agriculture) and Masonry (10 crafts) each credit one advance
    assert tight["total"] == 180
    used = sorted(c["from"] for r in tight["items"] for c in r["credits"])
    assert used == ["Masonry (single use)", "Pottery (single use)"]   # each card credits one advance
    assert sum(c["amount"] for r in tight["items"] for c in r["credits"]) == 30


def test_strict_credits_count_a_start_token_once(mega):
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    result = strict.cost([], ["Pottery", "Masonry"], {"players": 5})  # one crafts token of 10
    assert sorted(r["price"] for r in result["items"]) == [50, 60]


# --- trade blocks: a set redeemed outside its native block (Expansion 28.53-28.54) -----------------

@pytest.fixture(scope="module")
def expansion():
    return civdsl.load("expansion")


def _oil(rb, **facts):
    return rb.hand({"Oil": 3}, facts)["sets"][0]["value"]


def test_28_53_three_oil_redeemed_by_an_eastern_player_are_worth_48(expansion):
    assert _oil(expansion, players=14, civilization="Arabia") == 48  # 3 x 3 x 4 + 3 x 4
    assert _oil(expansion, players=14, civilization="Crete") == 36  # the western player: native
    assert _oil(expansion, players=14, block="east") == 48
    assert _oil(expansion, players=9, civilization="Arabia") == 36  # one trade block below 12 players


def test_28_54_shared_commodities_get_no_bonus(expansion):
    assert expansion.hand({"Bone": 2}, {"players": 17, "civilization": "Arabia"})["sets"][0]["value"] == 4


def test_the_block_bonus_needs_the_players_block_and_says_so(expansion):
    report = expansion.hand({"Oil": 3}, {"players": 14})
    assert report["sets"][0]["value"] == 36 and report["sets"][0]["off_block"] is None
    assert report["missing_facts"] == ["block"]
    with pytest.raises(StateError, match="unknown trade block `eats` \\(did you mean `east`\\?\\)"):
        expansion.hand({"Oil": 3}, {"players": 14, "block": "eats"})


def test_the_planner_pays_with_the_off_block_value(expansion):
    state = {"players": 14, "commodities": {"Oil": 3}, "treasury": 2}
    east = plan(expansion, {**state, "civilization": "Arabia"}, among=["Cloth Making"])["plans"][0]
    west = plan(expansion, {**state, "civilization": "Crete"}, among=["Cloth Making"])["plans"][0]
    assert east["buy"] == ["Cloth Making"] and east["payment"]["card_value"] == 48
    assert west["buy"] == []


def test_scoring_counts_sets_at_their_native_value(expansion):
    # 36.1 values the sets held at the end; they are not redeemed (the rulebook's reading)
    result = expansion.score([], {"players": 14, "civilization": "Arabia", "commodities": {"Oil": 3},
                                  "cities": 0, "treasury": 0, "ast_position": 0})
    assert {p["label"]: p["points"] for p in result["points"]}["Commodity card sets"] == 36


# --- Trade Routes and Trade Empire in a hand ---------------------------------------------------------

def test_trade_routes_shows_each_set_as_treasury(mega):
    out = run_cli("hand", "megaciv", "--cards", "Salt x2, Grain", "--holds", "Trade Routes")
    assert out.exit_code == 0, out.output
    assert "  as treasury (Trade Routes): Salt x2 -> 12 tokens" in out.stdout.splitlines()


def test_trade_empire_completes_one_incomplete_set(mega):
    report = mega.hand({"Salt": 2, "Oil": 1, "Grain": 1}, {"holds": ["Trade Empire"]})
    assert report["substitution"] == {"set": "Salt", "substitute": "Oil", "gain": 11, "value": 27,
                                      "from": "Trade Empire"}
    # a card of lower face value may not stand in
    assert "substitution" not in mega.hand({"Grain": 2, "Salt": 1}, {"holds": ["Trade Empire"]})


# --- trade cards bought for treasury -----------------------------------------------------------------

def test_trade_cards_bought_for_treasury():
    assert run_cli("cost", "megaciv", "--trade-cards", "9x2").stdout.splitlines()[-1] == "total: 30 treasury"
    rb = civdsl.load("expansion")
    result = rb.trade_cards([3, 9], ["Rhetoric"], {"treasury": 30})
    assert [(r["stack"], r["price"], r["from"]) for r in result["items"]] == [
        (3, 9, "Rhetoric"), (9, 18, "27.52: any player may buy stack-9 trade cards, no advance needed")]
    assert result["total"] == 27 and result["illegal"] == []
    assert [p["why"] for p in rb.trade_cards([9, 9, 9], [], {})["illegal"]] == [
        "3 trade cards, but at most 2 may be bought a turn (27.51: never more than 2 trade cards bought a turn, "
        "whatever the advances held)"]
    assert rb.trade_cards([4], [], {})["illegal"][0]["why"].startswith("no rule sells cards from stack 4")
    out = run_cli("cost", "civ1981", "--trade-cards", "9x2", "--set", "treasury=20")
    assert out.exit_code == 1 and "illegal purchase: 36 treasury needed, 20 held" in out.stderr


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_the_planner_under_strict_credits_matches_brute_force(data):
    """With credits shared between the advances bought together, the best plan's victory points
    equal the best over every affordable subset priced by the engine."""
    strict, holds, among, treasury = _strict_instance(data)
    report = plan(strict, {"holds": holds, "treasury": treasury, "players": 9, "commodities": {}}, among=among)
    assert report["plans"][0]["objective"] == _strict_optimum(strict.module, holds, among, treasury)


def _strict_instance(data):
    """A strict-credit rulebook, up to 6 advances held, up to 6 candidates, a treasury."""
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    names = sorted(strict.module.ADVANCES)
    holds = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=6))
    rest = [n for n in names if n not in holds]
    among = data.draw(st.lists(st.sampled_from(rest), unique=True, min_size=1, max_size=6))
    return strict, holds, among, data.draw(st.integers(0, 400))


def _strict_optimum(module, holds, among, treasury):
    """The most victory points over every subset of `among` the treasury pays, priced by the engine."""
    best = 0
    for r in range(len(among) + 1):
        for subset in itertools.combinations(among, r):
            priced = pricing.prices(module, holds, list(subset), {})
            if priced["total"] <= treasury * priced["treasury_value"]:  # Mining: a token pays 2
                best = max(best, sum(module.ADVANCES[n]["vp"] for n in subset))
    return best


def test_plan_says_when_the_block_is_needed(expansion):
    report = plan(expansion, {"players": 14, "commodities": {"Oil": 3}, "treasury": 2})
    assert "sets are valued in their native trade block: the state does not give `block` (or `civilization`)" \
        in report["notes"]
    assert not any("block" in n for n in plan(expansion, {"players": 9, "commodities": {"Oil": 3}})["notes"])


# --- the strict single-use credit variant's work limit -------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(data=st.data(), cap=st.integers(1, 12))
def test_a_stopped_strict_credit_search_is_bounded_by_brute_force(data, cap):
    """Stopped at a small work limit (set on the class for one call), the plan found is never above
    the optimum and total_at_most is at least the optimum; complete, it is the optimum."""
    from civdsl.plan.purchase import PurchaseProblem

    strict, holds, among, treasury = _strict_instance(data)
    limit, PurchaseProblem.single_use_cap = PurchaseProblem.single_use_cap, cap
    try:
        report = plan(strict, {"holds": holds, "treasury": treasury, "players": 9, "commodities": {}}, among=among)
    finally:
        PurchaseProblem.single_use_cap = limit
    best = _strict_optimum(strict.module, holds, among, treasury)
    got = report["plans"][0]["objective"]
    assert got <= best <= report["total_at_most"]
    if report["complete"]:
        assert got == best == report["total_at_most"]
    else:
        assert report["sets_examined"] == cap


def test_the_strict_credit_search_stops_at_its_work_limit_and_says_so(tmp_path):
    """A state that affords most of the deck: the search stops after its 3,000 sets with the best
    plan found; the command line prints the stop and still exits 0 (as a stopped --horizon 2 does)."""
    import yaml

    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 3000, "players": 9}
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    report = plan(strict, state)
    assert report["complete"] is False and report["sets_examined"] == 3000
    assert report["total_at_most"] >= report["plans"][0]["objective"]
    assert plan(civdsl.load("megaciv"), state)["complete"] is True  # the other searches always finish
    path = tmp_path / "state.yaml"
    path.write_text(yaml.safe_dump(state))
    out = run_cli("plan", str(HOUSE / "strict_credits.civ"), "--state", str(path))
    assert out.exit_code == 0, out.output
    assert (f"the search stopped after 3,000 sets of advances: the best plan found so far (no plan gives more "
            f"than {report['total_at_most']} VP)") in out.stdout.splitlines()


def test_a_strict_credit_look_ahead_shares_one_work_limit_with_its_next_turns():
    """--horizon 2 under the strict variant with a treasury of 1,000: every next turn's search counts
    its placements in the answer's one work count, so the walk stops once that count passes the
    limit (each next turn with a fresh count never answered), and the answer says it is not proven."""
    from civdsl.plan import horizon as plan_horizon
    from civdsl.plan.objectives import objective
    from civdsl.plan.purchase import PurchaseProblem

    strict = civdsl.load(HOUSE / "strict_credits.civ")
    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 1000, "players": 9}
    ps = strict.state((), state)
    limit, PurchaseProblem.single_use_work = PurchaseProblem.single_use_work, 50_000
    try:
        first = PurchaseProblem(strict.module, ps.held, ps.facts, objective(strict.module, "points"))
        first.search()
        hz = plan_horizon.two_turns(first)
    finally:
        PurchaseProblem.single_use_work = limit
    assert hz["complete"] is False and hz["stopped"] is True
    assert hz["turn_one_sets_priced_for_next_turn"] < 50  # stopped by the shared count, not the 3,000 sets
    assert first.work[0] > 50_000  # the next turns' work is in the answer's count


def test_the_strict_credit_greedy_placement_counts_in_the_work():
    """A purchase whose greedy placement already saves all the credits can give makes no placement
    state, but weighing its sources still counts: the work limit bounds it too."""
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    holds = ["Pottery", "Masonry", "Mysticism", "Music", "Metalworking", "Agriculture"]
    buys = ["Mythology", "Drama and Poetry", "Mathematics"]
    work = [0]
    total, complete, _ = pricing.purchase_total(strict.module, holds, buys, {}, work)
    assert complete and total == pricing.prices(strict.module, holds, buys)["total"]
    assert work[0] >= len(buys) * len(holds)


def test_an_explanation_whose_searches_stopped_is_not_proven():
    """--explain under the strict variant: a search for an advance left out that stops at the shared
    work limit leaves the explanation unproven, as the plan's own stop does."""
    from civdsl.plan.purchase import PurchaseProblem

    strict = civdsl.load(HOUSE / "strict_credits.civ")
    state = {"holds": ["Pottery", "Music"], "commodities": {"Grain": 3, "Salt": 2}, "treasury": 300, "players": 9}
    limit, PurchaseProblem.single_use_work = PurchaseProblem.single_use_work, 2_000
    try:
        report = plan(strict, state, explain=True)
    finally:
        PurchaseProblem.single_use_work = limit
    assert report["explain"]["complete"] is False


# --- the strict single-use credit variant's placement of credits ---------------------------------------

def _best_saving(module, holds, buys, extra):
    """Brute force: every way to give each held card's credit (and each group's free tokens) to one
    advance of BUYS or none, each advance discounted by one of its groups: the largest saving."""
    sources = [(module.ADVANCES[h]["credits"], module.ADVANCES[h]["specific"]) for h in holds]
    sources += [({g: int(a)}, {}) for g, a in sorted(extra.items()) if a]
    per_card = module.CREDIT_POLICY == "per_card"
    groupings = itertools.product(*[module.ADVANCES[b]["groups"] or [None] for b in buys])
    best = 0
    for groups in groupings:
        for targets in itertools.product(range(len(buys) + 1), repeat=len(sources)):
            given = [0] * len(buys)
            for (gcred, spec), i in zip(sources, targets):
                if i < len(buys):
                    b = buys[i]
                    group_part = (max([gcred.get(g, 0) for g in module.ADVANCES[b]["groups"]] or [0]) if per_card
                                  else gcred.get(groups[i], 0))
                    special = spec.get(b, 0)
                    given[i] += max(group_part, special) if per_card else group_part + special
            best = max(best, sum(min(module.ADVANCES[b]["cost"], g) for b, g in zip(buys, given)))
    return best


def _placement_instance(data, strict):
    names = [n for n in sorted(strict.module.ADVANCES) if strict.module.ADVANCES[n]["cost"] is not None]
    holds = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=5))
    buys = data.draw(st.lists(st.sampled_from([n for n in names if n not in holds]), unique=True, min_size=1,
                              max_size=3))
    extra = data.draw(st.dictionaries(st.sampled_from(list(strict.module.GROUPS)), st.sampled_from([5, 10]),
                                      max_size=1))
    return holds, buys, extra


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_single_use_placement_saves_what_brute_force_does(data):
    """The placement's saving is the largest of every way to place the credits, and it is complete."""
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    holds, buys, extra = _placement_instance(data, strict)
    rows, gap, _ = pricing._single_use_rows(strict.module, holds, buys, extra)
    assert gap is None     # never capped here
    assert sum(amount for r in rows for _, amount in r[pricing._CREDITS]) == _best_saving(strict.module, holds, buys,
                                                                                          extra)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), cap=st.integers(1, 4))
def test_a_capped_single_use_placement_encloses_the_best_price(data, cap):
    """With a cap of 1-4 states per credit the placement is a real one (never cheaper than the best)
    and total_at_least is never above the best price; complete only where the two meet."""
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    holds, buys, extra = _placement_instance(data, strict)
    limit, pricing.SINGLE_USE_PLACEMENT_CAP = pricing.SINGLE_USE_PLACEMENT_CAP, cap
    try:
        rows, gap, _ = pricing._single_use_rows(strict.module, holds, buys, extra)
    finally:
        pricing.SINGLE_USE_PLACEMENT_CAP = limit
    printed = sum(strict.module.ADVANCES[b]["cost"] for b in buys)
    found = sum(r[pricing._PRICE] for r in rows)
    best = printed - _best_saving(strict.module, holds, buys, extra)
    assert found - (gap or 0) <= best <= found
    assert all(amount > 0 for r in rows for _, amount in r[pricing._CREDITS])
    assert all(r[pricing._PRICE] >= 0 for r in rows)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), cap=st.integers(1, 4), ability=st.sampled_from(["Library", "Anatomy"]))
def test_a_capped_price_with_a_same_turn_ability_stays_a_bound(data, cap, ability):
    """Library's discount and Anatomy's free advance land on the dearest advance, so a placement
    other than the full search's can change what they take: capped, such a price is complete only
    if no ability follows, and total_at_least is never above the full search's price."""
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    holds, buys, extra = _placement_instance(data, strict)
    if ability in holds:
        holds.remove(ability)
    buys = [b for b in buys if b != ability] + [ability]
    exact = pricing.prices(strict.module, holds, buys, extra)
    limit, pricing.SINGLE_USE_PLACEMENT_CAP = pricing.SINGLE_USE_PLACEMENT_CAP, cap
    try:
        capped = pricing.prices(strict.module, holds, buys, extra)
    finally:
        pricing.SINGLE_USE_PLACEMENT_CAP = limit
    assert exact["complete"] is True and exact["total_at_least"] == exact["total"]
    assert capped["total_at_least"] <= exact["total"]
    if capped["complete"]:
        assert capped["total"] == exact["total"]


def _capped():
    return bench_planner().SINGLE_USE_CAPPED


def test_a_wide_purchase_stops_at_the_placement_work_limit_and_says_so():
    """32 advances bought with 19 cards held: the placement's states per card alone would let it
    make about four times SINGLE_USE_PLACEMENT_WORK states; it stops at that work (counted for
    every state made, so it never runs past it by more than the greedy placement's own steps),
    ends in a real placement with a proven least price, and `cost` names the limit in text and
    JSON."""
    import json

    wide = bench_planner().SINGLE_USE_WIDE
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    holds, buys = wide["holds"], wide["buy"]
    work = [0]
    result = pricing.prices(strict.module, holds, buys, None, work)
    limit = pricing.SINGLE_USE_PLACEMENT_WORK
    assert result["complete"] is False
    assert result["stopped"] == {"limit": "units of work", "bound": limit}
    # the greedy placement's state goes on past the limit: one step per source and advance
    assert limit <= work[0] <= limit + len(holds) * len(buys) * 4
    assert sum(r["printed"] - r["price"] for r in result["items"]) == sum(
        c["amount"] for r in result["items"] for c in r["credits"])     # a real placement
    assert result["total_at_least"] <= result["total"]
    # without the work limit the same placement makes several times as many states
    unbounded = [0]
    saved, pricing.SINGLE_USE_PLACEMENT_WORK = pricing.SINGLE_USE_PLACEMENT_WORK, 10 ** 9
    try:
        full = pricing.prices(strict.module, holds, buys, None, unbounded)
    finally:
        pricing.SINGLE_USE_PLACEMENT_WORK = saved
    assert unbounded[0] > 2 * limit and full["stopped"]["limit"] == "states per held card"
    assert result["total_at_least"] <= full["total"]
    args = ("cost", str(HOUSE / "strict_credits.civ"), "--holds", ", ".join(holds), "--buy", ", ".join(buys))
    out = run_cli(*args)
    assert out.exit_code == 0, out.output
    assert (f"the best placement of the credits found, maybe not the least (the placement search stopped at its "
            f"limit of {limit:,} units of work): no placement pays less than {result['total_at_least']}"
            ) in out.stdout.splitlines()
    data = json.loads(run_cli(*args, "--json").stdout)
    assert (data["complete"], data["stopped"]) == (False, {"limit": "units of work", "bound": limit})


def test_a_capped_placement_says_so_and_bounds_the_price():
    """A purchase of five advances with 21 cards held: the placement stops at its cap with a real
    price (640, the exhaustive search's) and a proven least (630); `cost` prints both and exits 0;
    the planner pricing it says its plans are not proven and covers that set in total_at_most."""
    import json

    capped = _capped()
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    result = strict.cost(capped["holds"], capped["buy"], {"players": 9})
    assert result["complete"] is False and (result["total"], result["total_at_least"]) == (640, 630)
    assert sum(r["printed"] - r["price"] for r in result["items"]) == sum(
        c["amount"] for r in result["items"] for c in r["credits"])     # a real placement
    args = ("cost", str(HOUSE / "strict_credits.civ"), "--holds", ", ".join(capped["holds"]),
            "--buy", ", ".join(capped["buy"]))
    out = run_cli(*args)
    assert out.exit_code == 0, out.output
    assert ("the best placement of the credits found, maybe not the least (the placement search stopped at its "
            "limit of 1,000 states per held card): no placement pays less than 630") in out.stdout.splitlines()
    data = json.loads(run_cli(*args, "--json").stdout)
    assert (data["complete"], data["total_at_least"]) == (False, 630)
    assert data["stopped"] == {"limit": "states per held card", "bound": pricing.SINGLE_USE_PLACEMENT_CAP}
    assert _complete_under_the_usual_reading(capped)
    state = {"holds": capped["holds"], "players": 9, "treasury": 2000}
    report = plan(strict, state, among=capped["buy"])
    assert report["complete"] is False and report["stopped"] is False and report["prices_capped"] >= 1
    assert report["total_at_most"] >= report["plans"][0]["objective"]
    from civdsl.plan.text import render

    assert any(line.endswith(f"the best plan found (no plan gives more than {report['total_at_most']} VP)")
               and line.startswith(f"{report['prices_capped']} sets of advances priced by the best placement")
               for line in render(report).splitlines())


def test_a_two_turn_plan_over_capped_prices_claims_no_bound(monkeypatch):
    """The look-ahead prices this turn's and next turn's sets; a set priced by a capped placement
    may be affordable at its least price, so no pair is proven out of reach: the pair found, not
    complete, no total_at_most, and the text says so (the work limits raised so that the walk
    finishes: only the capped prices leave it unproven)."""
    from civdsl.plan.purchase import PurchaseProblem

    monkeypatch.setattr(PurchaseProblem, "single_use_work", 1_000_000)
    monkeypatch.setattr(PurchaseProblem, "horizon_work", 100_000)
    capped = _capped()
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    state = {"holds": capped["holds"], "players": 9, "treasury": 2000}
    hz = plan(strict, state, among=capped["buy"], horizon=2)["horizon"]
    assert hz["prices_capped"] >= 1 and hz["complete"] is False and hz["stopped"] is False
    assert hz["total_at_most"] is None
    from civdsl.plan.text import render

    text = render(plan(strict, state, among=capped["buy"], horizon=2))
    assert (f"  {hz['prices_capped']:,} sets of advances were priced by the best placement of the credits found "
            "within its limit (their least price is not proven): the best pair found, with no bound") in text.splitlines()
    # under the usual reading nothing is capped: the look-ahead is complete with its bound
    usual = plan(civdsl.load("megaciv"), state, among=capped["buy"], horizon=2)["horizon"]
    assert usual["prices_capped"] == 0 and usual["complete"] is True and usual["total_at_most"] == usual["total"]


def test_an_explanation_over_capped_prices_is_not_proven():
    """--explain compares the plan with purchases its own searches price: over capped placements
    those comparisons are not proven, and the explanation says so; under the usual reading they are."""
    capped = _capped()
    state = {"holds": capped["holds"], "players": 9, "treasury": 2000}
    strict = plan(civdsl.load(HOUSE / "strict_credits.civ"), state, among=capped["buy"], explain=True)
    assert strict["explain"]["complete"] is False
    from civdsl.plan.text import render

    assert ("  (not proven: the search stopped at its limit or priced some sets by the best placement of the "
            "credits found within its limit)") in render(strict).splitlines()
    usual = plan(civdsl.load("megaciv"), state, among=capped["buy"], explain=True)
    assert usual["explain"]["complete"] is True and "not proven" not in render(usual)


def _complete_under_the_usual_reading(capped) -> bool:
    """The same purchase under the usual reading: every credit counts everywhere, always complete."""
    result = civdsl.load("megaciv").cost(capped["holds"], capped["buy"], {"players": 9})
    return result["complete"] is True and result["total_at_least"] == result["total"]


def test_a_plan_over_a_capped_price_covers_the_sets_it_may_miss():
    """A treasury that pays the capped set's least price but not the price found: the set is not a
    plan, but total_at_most covers its objective, and the report is not complete."""
    capped = _capped()
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    result = strict.cost(capped["holds"], capped["buy"], {"players": 9})
    treasury = result["total_at_least"]      # a token pays 1 here
    report = plan(strict, {"holds": capped["holds"], "players": 9, "treasury": treasury}, among=capped["buy"])
    every = sum(strict.module.ADVANCES[b]["vp"] for b in capped["buy"])
    assert report["complete"] is False and report["plans"][0]["objective"] < every == report["total_at_most"]


def test_a_free_advance_after_a_capped_placement_is_allowed_for():
    """Capped at one state per card, this purchase's placement leaves a different advance dearest
    than the full search's, so Anatomy's free advance takes less: 625 found against 615. The gap in
    saving alone (5) would claim at least 620; the least price also allows for what Anatomy could
    take, so it stays below 615, and the price is not complete."""
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    holds = ["Medicine", "Cartography", "Naval Warfare", "Theology", "Monument"]
    buys = ["Wonder of the World", "Rhetoric", "Written Record", "Anatomy"]
    exact = pricing.prices(strict.module, holds, buys, {})
    limit, pricing.SINGLE_USE_PLACEMENT_CAP = pricing.SINGLE_USE_PLACEMENT_CAP, 1
    try:
        capped = pricing.prices(strict.module, holds, buys, {})
        gap = pricing._single_use_rows(strict.module, holds, buys, {})[1]
    finally:
        pricing.SINGLE_USE_PLACEMENT_CAP = limit
    assert (exact["total"], capped["total"], gap) == (615, 625, 5)
    assert capped["complete"] is False and capped["total_at_least"] <= 615


def test_the_planners_total_is_the_price_total(monkeypatch):
    """pricing.purchase_total skips the placement's search where a greedy placement provably saves
    the most: on mid-game purchases of 1-7 of the 16 cheapest advances (the benchmark's random
    states), it gives the total, completeness and least price prices() gives."""
    import random

    bench = bench_planner()
    module = civdsl.load(HOUSE / "strict_credits.civ").module
    rng = random.Random(5)
    searches = [0]
    search = pricing._place_single_use_credits

    def counted(*args, **kwargs):
        searches[0] += 1
        return search(*args, **kwargs)

    skipped = 0
    for _ in range(80):
        state = bench.random_state(module, rng)
        cheap = sorted((a for a in module.ADVANCES if a not in state["holds"]), key=lambda a: module.ADVANCES[a]["cost"])
        buys = rng.sample(cheap[:16], rng.randint(1, 7))
        priced = pricing.prices(module, state["holds"], buys, state.get("credits"))
        before = searches[0]
        monkeypatch.setattr(pricing, "_place_single_use_credits", counted)
        got = pricing.purchase_total(module, state["holds"], buys, state.get("credits"), [0])
        monkeypatch.setattr(pricing, "_place_single_use_credits", search)
        assert got == (priced["total"], priced["complete"], priced["total_at_least"]), buys
        skipped += searches[0] == before
    assert skipped >= 10      # the shortcut is taken (no placement search)


def test_a_specific_credit_alone_leaves_the_advances_group_open_for_a_later_card():
    """Mysticism's Monument credit given without its religion credit leaves Monument's group open,
    so Agriculture's crafts credit adds to it: 10 + 10 saved on Monument beats 5 on Architecture and
    10 on Monument, and the full placement finds it (it once fixed the group with the first card)."""
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    holds, buys = ["Mysticism", "Agriculture"], ["Advanced Military", "Architecture", "Monument"]
    answer = pricing.prices(strict.module, holds, buys, {})
    assert answer["complete"] is True
    assert answer["total"] == 540 == sum(strict.module.ADVANCES[b]["cost"] for b in buys) - 20
    assert {i["advance"]: i["price"] for i in answer["items"]}["Monument"] == 160


def test_cost_takes_the_advances_named_after_the_rulebook_as_buy_does():
    named = run_cli("cost", "megaciv", "agriculture", "Drama and Poetry", "--holds", "Pottery", "--json")
    given = run_cli("cost", "megaciv", "--buy", "Agriculture,Drama and Poetry", "--holds", "Pottery", "--json")
    assert named.returncode == given.returncode == 0, named.stderr
    assert named.stdout == given.stdout
    both = run_cli("cost", "megaciv", "Mysticism", "--buy", "Agriculture", "--json")
    assert [i["advance"] for i in json.loads(both.stdout)["items"]] == ["Agriculture", "Mysticism"]
