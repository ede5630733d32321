"""Purchases: start credits, Anatomy as data, legality in `cost`, impossible hands and the strict
single-use credit variant. Each test reads like the rule it checks."""

from pathlib import Path

import pytest
from click.testing import CliRunner

import civdsl
from civdsl.cli import main
from civdsl.planner import plan
from civdsl.state import StateError

HOUSE = Path(__file__).resolve().parent.parent / "rulebooks" / "house"


@pytest.fixture(scope="module")
def mega():
    return civdsl.load("megaciv")


def _run(*args):
    return CliRunner().invoke(main, list(args))


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
    out = _run("cost", "expansion", "--buy", "Anatomy")
    assert out.exit_code == 0
    assert "Written Record: 0  (printed 60; Anatomy (acquired automatically))" in out.stdout


# --- legality in `cost` -------------------------------------------------------------------------------

def test_cost_reports_an_illegal_purchase_and_exits_1():
    out = _run("cost", "civ1981", "--buy", "Law,Democracy")
    assert out.exit_code == 1
    assert out.stderr.strip() == ("illegal purchase: Democracy: needs Law held before this turn "
                                  "(bought in the same turn does not count)")
    assert _run("cost", "civ1981", "--holds", "Law", "--buy", "Democracy").exit_code == 0


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
    out = _run("hand", "megaciv", "--cards", "Salt x99")
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
    assert tight["items"][0]["credits"] == [{"from": "Pottery (single use)", "amount": 20},
                                            {"from": "Masonry (single use)", "amount": 10}]


def test_strict_credits_count_a_start_token_once(mega):
    strict = civdsl.load(HOUSE / "strict_credits.civ")
    result = strict.cost([], ["Pottery", "Masonry"], {"players": 5})  # one crafts token of 10
    assert sorted(r["price"] for r in result["items"]) == [50, 60]
