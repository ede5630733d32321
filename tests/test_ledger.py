"""The ledger (civdsl/ledger): a whole game carried from step to step by the rulebook's phase
actions. Rule-by-rule tests with small games, then the recorded games of tests/games/."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import next_step, step_named, through_the_turn
from civdsl.api import load
from civdsl.ledger import gamefile
from civdsl.ledger.play import CHOICE, ILLEGAL, Refused

GAMES = sorted((Path(__file__).parent / "games").glob("*.yaml"))
FIVE = [("anna", "Egypt"), ("bruno", "Assyria"), ("chloe", "Minoa"), ("dario", "Hellas"), ("eva", "Hatti")]
# 9 players, West: the minor calamities are in the stacks (seed 004, 9-11 players)
NINE = FIVE + [("fabio", "Celt"), ("gina", "Carthage"), ("hugo", "Rome"), ("ines", "Iberia")]


def new_game(edition="megaciv", seats=FIVE, track="basic", last_turn=None):
    rb = load(edition)
    setup = gamefile.new_setup(edition, rb, seats, track, last_turn, 0)
    return gamefile.start(rb, setup)


def next_turn(game) -> None:
    turn = game.turn
    while game.turn == turn:
        next_step(game)


def census(game, **per_player) -> None:
    for name, (cities, tokens) in per_player.items():
        game.apply({"do": "census", "player": name, "cities": cities, "tokens": tokens})


# --- the turn as the rulebook declares it ---------------------------------------------------------

def test_a_game_starts_at_the_first_step_that_takes_events():
    game = new_game()
    # Tax collection (phase 1) runs by itself with nothing to tax; the census of phase 2 waits
    assert (game.turn, game.current["name"]) == (1, "Population expansion (and census)")


def test_tax_collection_moves_the_rate_per_city_from_stock_to_treasury():
    game = new_game()
    census(game, anna=(5, 10))
    next_turn(game)  # tax collection comes first and takes no event
    assert game.players["anna"].treasury == 10  # seed 004, phase 1a: 5 cities at rate 2


def _at_the_next_tax_step(game, **holds) -> None:
    for name, advances in holds.items():
        game.players[name].advances = list(advances)
    through_the_turn(game)


@pytest.mark.parametrize("edition, seats, holds, rates", [
    # seed 004 ch 9: Monarchy "may choose to increase your tax rate by 1"; Coinage "increase or
    # decrease your tax rate by 1"; seed 002, 18.23: cumulative (Monarchy + Coinage up to 4),
    # used selectively (Coinage down to 1 without Monarchy)
    ("megaciv", FIVE, ["Monarchy"], [2, 3]),
    ("megaciv", FIVE, ["Coinage"], [1, 2, 3]),
    ("expansion", [("anna", None), ("bruno", None)], ["Monarchy", "Coinage"], [1, 2, 3, 4]),
    # seed 000, 53.9 and seed 001, 22.3.11: Coinage fixes the tax at 1, 2 or 3 tokens per city
    ("civ1980", [("anna", "Asia"), ("bruno", "Italy"), ("chloe", "Crete")], ["Coinage"], [1, 2, 3]),
    ("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], ["Coinage"], [1, 2, 3]),
])
def test_a_tax_rate_an_advance_lets_vary_is_the_holder_s_choice(edition, seats, holds, rates):
    game = new_game(edition, seats, "basic" if edition == "megaciv" else None)
    census(game, anna=(2, 8), bruno=(2, 8))
    _at_the_next_tax_step(game, anna=holds)
    assert game.current["name"] == game.steps[0]["name"] and game.waiting == ["collect_tax"]
    with pytest.raises(Refused) as asked:
        next_step(game)
    assert asked.value.code == CHOICE and asked.value.choices == ["tax anna rate=" + "|".join(map(str, rates))]
    for wrong in (rates[0] - 1, rates[-1] + 1):
        with pytest.raises(Refused, match=f"from {rates[0]} to {rates[-1]} per city, not {wrong}"):
            game.apply({"do": "tax", "player": "anna", "rate": wrong})
    with pytest.raises(Refused, match="bruno has no choice of tax rate: 2 per city"):
        game.apply({"do": "tax", "player": "bruno", "rate": 2})
    before = (game.players["anna"].treasury, game.players["bruno"].treasury)
    game.apply({"do": "tax", "player": "anna", "rate": rates[0]})
    next_step(game)
    assert (game.players["anna"].treasury, game.players["bruno"].treasury) == (before[0] + 2 * rates[0],
                                                                              before[1] + 4)
    with pytest.raises(Refused, match="belongs to step"):
        game.apply({"do": "tax", "player": "anna", "rate": rates[0]})


def test_nobody_with_a_choice_of_tax_rate_leaves_the_tax_step_to_run_by_itself():
    game = new_game()
    census(game, anna=(2, 8))
    _at_the_next_tax_step(game, bruno=["Monarchy"])  # bruno has no cities to tax
    assert game.current["name"] == "Population expansion (and census)" and game.players["anna"].treasury == 4


def test_a_holder_may_overtax_his_stock_and_his_cities_revolt():
    # seed 001, 22.3.11 note: "He may voluntarily choose to overtax his stock, even if it causes the
    # revolt of some his cities"; seed 004 ch 9 Monarchy: "you may still choose to do so"
    game = new_game()
    census(game, anna=(5, 41), bruno=(1, 10))  # 55 tokens: 14 in stock pay 4 cities' tax of 3
    _at_the_next_tax_step(game, anna=["Monarchy"])
    game.apply({"do": "tax", "player": "anna", "rate": 3})
    next_step(game)
    assert (game.players["anna"].treasury, game.players["anna"].cities) == (14, 4)
    assert sum(p.cities for p in game.seated()) == 6  # the revolting city annexed, not lost


def test_tax_collection_is_bounded_by_the_tokens_in_stock_and_the_rest_revolt():
    # seed 004, phase 1b: Michael has 5 cities and 7 tokens in stock: all 7 go, 2 cities revolt
    game = new_game()
    census(game, anna=(5, 48))  # 55 tokens: 48 on the board leaves 7 in stock
    next_turn(game)
    anna = game.players["anna"]
    assert anna.treasury == 7
    assert any("2 cities revolt" in e.text for e in game.log)


def test_a_census_over_the_pieces_the_rulebook_declares_is_refused_and_changes_nothing():
    game = new_game()
    before = game.players["anna"].to_data()
    with pytest.raises(Refused) as exc:
        game.apply({"do": "census", "player": "anna", "cities": 10})
    assert exc.value.code == ILLEGAL and "9" in exc.value.message
    assert game.players["anna"].to_data() == before


def test_a_census_where_ships_are_paid_records_the_treasury_spent_and_only_there():
    # 1980 43.4: a ship costs 2 tokens, usually from the treasury, and 1 to keep it; the step
    # "Construct ships" declares census(treasury=spend): the census gives the treasury left, and
    # the tokens paid go back to the stock (43.4: "returned to the Stock")
    from civdsl.ledger.words import parse

    game = new_game("civ1980", [("anna", "Crete"), ("bruno", "Italy"), ("chloe", "Asia")], None)
    census(game, anna=(2, 20))
    through_the_turn(game)  # the next turn's taxation: 2 per city into anna's treasury
    anna = game.players["anna"]
    assert anna.treasury == 4
    step_named(game, "Construct ships")
    assert "treasury=N" in game.expects()[0]
    stock = anna.tokens_in_stock(game.pieces)
    event, _ = parse(["census", "anna", "ships=1", "treasury=2"])
    game.apply({**event, "turn": game.turn, "step": game.step + 1})
    assert (anna.treasury, anna.ships, anna.tokens_in_stock(game.pieces)) == (2, 1, stock + 2)
    assert game.log[-1].text == "anna: census: ships 0 -> 1, treasury 4 -> 2 (spent on the board)"
    with pytest.raises(Refused, match="anna holds 2, and a census only records treasury spent"):
        game.apply({"do": "census", "player": "anna", "treasury": 3})
    assert anna.treasury == 2
    step_named(game, "Movement")
    assert "treasury=N" not in game.expects()[0]
    with pytest.raises(Refused, match='step "Movement" does not spend treasury'):
        game.apply({"do": "census", "player": "anna", "treasury": 1})


@pytest.mark.parametrize("edition, ships_step, other_step", [
    # 1981 9.2-9.3 and the Expansion 21.1-21.3: a ship costs 2 tokens from treasury or a levy, 1 to keep
    ("civ1981", "Construct and maintain ships", "Movement"),
    ("expansion", "Ship construction and maintenance", "Movement"),
    # Mega Civilization: ships are built and kept up during a player's movement (phase 3)
    ("megaciv", "Movement", "Conflict"),
])
def test_each_edition_records_treasury_paid_for_ships_in_the_step_where_its_text_builds_them(
        edition, ships_step, other_step):
    game = new_game(edition, FIVE if edition == "megaciv" else [("anna", None), ("bruno", None)], None)
    census(game, anna=(2, 20))
    through_the_turn(game)
    anna = game.players["anna"]
    held = anna.treasury
    assert held >= 2
    step_named(game, ships_step)
    assert "treasury=N" in game.expects()[0]
    game.apply({"do": "census", "player": "anna", "ships": 1, "treasury": held - 2})
    assert (anna.treasury, anna.ships) == (held - 2, 1)
    step_named(game, other_step)
    with pytest.raises(Refused, match="does not spend treasury"):
        game.apply({"do": "census", "player": "anna", "treasury": 0})


def test_an_event_in_a_step_that_does_not_take_it_is_refused_with_the_step_that_does():
    game = new_game()
    with pytest.raises(Refused, match="Civilization advances acquisition"):
        game.apply({"do": "buy", "player": "anna", "advances": ["Pottery"]})


def test_drawing_one_card_per_city_from_stack_one_up():
    # seed 004, 6a: Ronald has 3 cities, so he draws from stacks 1, 2 and 3
    game = new_game()
    census(game, anna=(3, 10))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Papyri", "Fish"]})
    assert game.players["anna"].cards == {"Ochre": 1, "Papyri": 1, "Fish": 1}


@pytest.mark.parametrize("cards, why", [(["Ochre", "Papyri", "Fish", "Wool"], "at most 3"),
                                        (["Ochre", "Wool"], "beyond stack 3"),
                                        (["Ochre", "Clay"], "a second card")])
def test_a_draw_the_stacks_do_not_allow_is_refused(cards, why):
    game = new_game()
    census(game, anna=(3, 10))
    step_named(game, "Trade cards acquisition")
    with pytest.raises(Refused, match=why):
        game.apply({"do": "draw", "player": "anna", "cards": cards})


def test_each_side_of_a_trade_gives_at_least_the_edition_s_minimum():
    game = new_game()  # seed 004, phase 7: at least 3 trade cards per player
    census(game, anna=(3, 10), bruno=(3, 10))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Papyri", "Fish"]})
    game.apply({"do": "draw", "player": "bruno", "cards": ["Clay", "Iron", "Fruit"]})
    step_named(game, "Trade", exact=True)
    with pytest.raises(Refused, match="at least 3"):
        game.apply({"do": "trade", "player": "anna", "gives": ["Fish"], "with": "bruno", "gets": ["Clay"]})


def test_a_trade_moves_the_cards_and_a_traded_calamity_remembers_its_trader():
    game = new_game()
    census(game, anna=(3, 10), bruno=(3, 10))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Papyri", "Fish"]})
    game.apply({"do": "draw", "player": "bruno", "cards": ["Clay", "Iron", "Slave Revolt"]})  # stack 3, tradable
    step_named(game, "Trade", exact=True)
    game.apply({"do": "trade", "player": "bruno", "gives": ["Clay", "Iron", "Slave Revolt"], "with": "anna",
                "gets": ["Ochre", "Papyri", "Fish"]})
    assert game.players["anna"].calamities == [("Slave Revolt", "bruno")]
    assert game.players["bruno"].cards == {"Ochre": 1, "Papyri": 1, "Fish": 1}


def test_a_nontradable_calamity_cannot_be_traded():
    game = new_game()
    census(game, anna=(3, 10), bruno=(3, 10))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Volcanic Eruption or Earthquake", "Fish"]})
    game.apply({"do": "draw", "player": "bruno", "cards": ["Clay", "Iron", "Fruit"]})
    step_named(game, "Trade", exact=True)
    with pytest.raises(Refused, match="may not be traded"):
        game.apply({"do": "trade", "player": "anna", "gives": ["Ochre", "Volcanic Eruption or Earthquake", "Fish"],
                    "with": "bruno", "gets": ["Clay", "Iron", "Fruit"]})


@pytest.mark.parametrize("edition, seats, calamity, passed_on", [
    # seed 000, 43.11 and seed 001, 19: a player who receives a tradable calamity "must act on"
    # it: "He may not pass them off to someone else" (trade received_calamities=kept)
    ("civ1980", [("anna", "Asia"), ("bruno", "Italy"), ("chloe", "Crete")], "Epidemic", False),
    ("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], "Epidemic", False),
    # seed 004 ch 6 phase 7: every calamity but the non-tradable may be in a trade; seed 002, 29.3:
    # no limit to the number of times a tradable calamity may be traded
    ("megaciv", FIVE, "Slave Revolt", True),
])
def test_a_calamity_received_in_trade_is_traded_on_only_where_the_edition_says(edition, seats, calamity, passed_on):
    game = new_game(edition, seats, "basic" if edition == "megaciv" else None)
    census(game, anna=(1, 5), bruno=(1, 5), chloe=(1, 5))
    step_named(game, "Trade", exact=True)
    anna, bruno, chloe = (game.players[n] for n in ("anna", "bruno", "chloe"))
    anna.calamities = [(calamity, None)]
    anna.give_cards(["Ochre", "Ochre"])
    bruno.give_cards(["Hides", "Hides", "Hides", "Ochre", "Ochre"])
    chloe.give_cards(["Hides", "Hides", "Hides"])
    game.apply({"do": "trade", "player": "anna", "gives": [calamity, "Ochre", "Ochre"], "with": "bruno",
                "gets": ["Hides", "Hides", "Hides"]})
    on = {"do": "trade", "player": "bruno", "gives": [calamity, "Ochre", "Ochre"], "with": "chloe",
          "gets": ["Hides", "Hides", "Hides"]}
    if passed_on:
        game.apply(on)
        assert chloe.calamities == [(calamity, "bruno")]
    else:
        with pytest.raises(Refused, match=f"bruno received {calamity} in trade and must act on it"):
            game.apply(on)
        assert bruno.calamities == [(calamity, "anna")]


def _to_purchase(game, cards):
    census(game, anna=(len(cards), 10))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": cards})
    step_named(game, "Civilization advances acquisition")


def test_a_purchase_is_priced_by_the_credit_rules_and_paid_with_sets_and_treasury():
    game = new_game()  # five players: 10 start credits in every group (chapter 4)
    _to_purchase(game, ["Ochre", "Papyri", "Fish"])
    game.players["anna"].treasury = 50
    game.apply({"do": "buy", "player": "anna", "advances": ["Pottery"], "pay": ["Ochre", "Papyri", "Fish"],
                "treasury": 44})  # Pottery 60 - 10 = 50: cards pay 1 + 2 + 3 = 6
    assert game.players["anna"].advances == ["Pottery"]
    assert game.players["anna"].treasury == 6 and game.players["anna"].cards == {}


def test_the_1981_printed_purchase_example_replays():
    # seed 001, 17 (example of civilization card acquisition): Mysticism held from a past round
    # (5 in art credit), 3 Grain, 2 Papyrus and 1 Hides (45) and 10 treasury buy Music (60) exactly
    game = new_game("civ1981", [("anna", "Italy"), ("bruno", "Africa")], None)
    step_named(game, "Acquire civilization cards")
    anna = game.players["anna"]
    anna.advances, anna.cards, anna.treasury = ["Mysticism"], {"Grain": 3, "Papyrus": 2, "Hides": 1}, 10
    pay = ["Grain", "Grain", "Grain", "Papyrus", "Papyrus", "Hides"]
    with pytest.raises(Refused, match="the price of Music is 55; the payment is worth 54"):
        game.apply({"do": "buy", "player": "anna", "advances": ["Music"], "pay": pay, "treasury": 9})
    game.apply({"do": "buy", "player": "anna", "advances": ["Music"], "pay": pay, "treasury": 10})
    anna = game.players["anna"]  # a refused event restores the players as they were: read them again
    assert anna.advances == ["Mysticism", "Music"] and anna.treasury == 0 and anna.cards == {}


CIV1981_FIVE = [("anna", "Africa"), ("bruno", "Italy"), ("chloe", "Illyria"), ("dario", "Thrace"), ("eva", "Crete")]


@pytest.mark.parametrize("players, holders, sold_out", [
    (CIV1981_FIVE, ["bruno", "chloe"], True),  # 26.4: 2 Mysticism cards in use with five players
    (CIV1981_FIVE, ["bruno"], False),
    (CIV1981_FIVE + [("fabio", "Egypt")], ["bruno", "chloe"], False),  # 24.4 (six or seven): all 3
])
def test_an_advance_whose_cards_in_use_the_others_hold_is_sold_out(players, holders, sold_out):
    # seed 001 22.3.1: 3 Mysticism cards in the box; 26.4-29.4: fewer in use with fewer players
    game = new_game("civ1981", players, None)
    step_named(game, "Acquire civilization cards")
    for name in holders:
        game.players[name].advances = ["Mysticism"]
    game.players["anna"].treasury = 30
    buy = {"do": "buy", "player": "anna", "advances": ["Mysticism"], "pay": [], "treasury": 30}
    if sold_out:
        with pytest.raises(Refused, match="Mysticism: sold out: the other players hold all 2 cards in use"):
            game.apply(buy)
    else:
        game.apply(buy)
        assert game.players["anna"].advances == ["Mysticism"]


def test_a_players_facts_in_a_game_say_what_the_others_hold():
    game = new_game("civ1981", CIV1981_FIVE, None)
    game.players["bruno"].advances = ["Mysticism", "Pottery"]
    game.players["chloe"].advances = ["Pottery"]
    assert game.others_hold(game.players["anna"]) == {"others_hold": {"Mysticism": 1, "Pottery": 2}}
    assert game.others_hold(game.players["bruno"]) == {"others_hold": {"Pottery": 1}}
    assert new_game().others_hold(new_game().players["anna"]) == {}  # Mega Civilization limits no supply


def test_a_purchase_the_payment_does_not_cover_is_refused():
    game = new_game()
    _to_purchase(game, ["Ochre", "Papyri", "Fish"])
    with pytest.raises(Refused, match="the price of Pottery is 50; the payment is worth 6"):
        game.apply({"do": "buy", "player": "anna", "advances": ["Pottery"], "pay": ["Ochre", "Papyri", "Fish"]})


def test_no_more_treasury_than_the_price_needs():
    game = new_game()
    _to_purchase(game, ["Ochre"])
    game.players["anna"].treasury = 60
    with pytest.raises(Refused, match="more than needed"):
        game.apply({"do": "buy", "player": "anna", "advances": ["Pottery"], "pay": ["Ochre"], "treasury": 50})


def test_a_card_not_held_cannot_pay():
    game = new_game()
    _to_purchase(game, ["Ochre"])
    with pytest.raises(Refused, match="does not hold 1 Salt"):
        game.apply({"do": "buy", "player": "anna", "advances": ["Pottery"], "pay": ["Salt"], "treasury": 0})


def test_the_step_ends_only_within_the_hand_limit_and_the_discard_is_the_players_choice():
    game = new_game()
    census(game, anna=(9, 20))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Papyri", "Fish", "Wool", "Wine", "Tin",
                                                          "Resin", "Marble", "Ivory"]})
    step_named(game, "Civilization advances acquisition")
    with pytest.raises(Refused) as exc:
        next_step(game)
    assert exc.value.code == CHOICE  # 9 cards, 5 players keep 8: which one goes is anna's choice
    assert exc.value.needs == [{"player": "anna", "calamity": None, "key": "discard", "amount": 1}]
    game.apply({"do": "discard", "player": "anna", "cards": ["Ochre"]})
    next_step(game)


def test_each_calamity_sees_the_losses_of_the_one_before():
    # Tempest (stack 2) loses 5 treasury first; Squandered Wealth (stack 3) demands 10 and takes
    # what is left (chapter 8: a player loses what he has)
    game = new_game(seats=NINE)
    census(game, anna=(3, 10))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Tempest", "Squandered Wealth"]})
    game.players["anna"].treasury = 12
    step_named(game, "Calamity resolution")
    game.apply({"do": "choose", "player": "anna", "calamity": "Tempest", "tokens": 2})
    next_step(game)
    lines = [e.text for e in game.log if "victim" in e.text]
    assert lines[0].startswith("Tempest") and "5 treasury lost" in lines[0]
    assert lines[1].startswith("Squandered Wealth") and "7 treasury lost" in lines[1]
    assert game.players["anna"].treasury == 0 and game.players["anna"].calamities == []


def test_a_loss_in_unit_points_is_the_victims_choice_of_pieces():
    game = new_game(seats=NINE)
    census(game, anna=(2, 10))
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Tempest"]})
    step_named(game, "Calamity resolution")
    with pytest.raises(Refused) as exc:
        next_step(game)
    assert exc.value.code == CHOICE and exc.value.needs[0]["key"] == "pieces"
    with pytest.raises(Refused, match="no piece more than needed"):
        game.apply({"do": "choose", "player": "anna", "calamity": "Tempest", "cities": 1, "tokens": 2})
        next_step(game)
    game.apply({"do": "choose", "player": "anna", "calamity": "Tempest", "cities": 0, "tokens": 2})
    next_step(game)
    assert (game.players["anna"].cities, game.players["anna"].tokens) == (2, 8)


def test_a_drawn_tradable_calamity_stays_in_hand_where_the_edition_says_so():
    # 1981, 19.3: a brown-backed calamity is not acted on by the player who drew it
    game = new_game("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)
    census(game, anna=(6, 20))
    step_named(game, "Acquire trade cards")
    tradable = "Epidemic"  # stack 6, brown-backed
    cards = [next(c for c, x in game.module.COMMODITIES.items() if x["stack"] == s) for s in range(1, 6)]
    game.apply({"do": "draw", "player": "anna", "cards": cards + [tradable]})
    game.players["anna"].cards = {}  # within the hand limit
    step_named(game, "Resolve calamities")
    next_step(game)
    assert game.players["anna"].calamities == [(tradable, None)]


def test_markers_move_by_the_epoch_rules():
    game = new_game()
    census(game, anna=(2, 10))
    step_named(game, "A.S.T. alteration")
    next_step(game)
    assert game.players["anna"].ast_position == 1


def test_a_marker_move_the_rulebook_cannot_tell_is_asked_for():
    game = new_game("civ1981", [("anna", None), ("bruno", None)], None)
    step_named(game, "Move succession markers")
    with pytest.raises(Refused) as exc:
        next_step(game)
    assert exc.value.code == CHOICE and {n["player"] for n in exc.value.needs} == {"anna", "bruno"}
    game.apply({"do": "ast", "player": "anna", "move": "forward"})
    game.apply({"do": "ast", "player": "bruno", "move": "stays"})
    next_step(game)
    assert (game.players["anna"].ast_position, game.players["bruno"].ast_position) == (1, 0)


def test_the_game_ends_when_a_marker_enters_the_last_epoch_and_the_sole_leader_scores_5():
    game = new_game()
    anna = game.players["anna"]
    anna.ast_position = 14
    anna.cities = 6
    anna.advances = [a for a, x in game.module.ADVANCES.items() if x["cost"] >= 200][:3]
    step_named(game, "A.S.T. alteration")  # a refused `next` restores the players: read them again after it
    next_step(game)
    anna = game.players["anna"]
    assert game.ended and anna.ast_position == 15
    first = game.scores[0]
    assert first["player"] == "anna"
    assert next(p["points"] for p in first["points"] if p["label"].startswith("Sole player")) == 5
    with pytest.raises(Refused, match="the game is over"):
        next_step(game)


@pytest.mark.parametrize("edition, seats", [("megaciv", FIVE), ("expansion", [("anna", "Egypt"), ("bruno", "Crete"),
                                                                            ("chloe", "Arabia")])])
def test_players_tied_on_every_other_tie_breaker_rank_by_the_lower_a_s_t_place(edition, seats):
    # seed 004, 13d VIII and seed 002, 36.3: the last tie-breaker is the A.S.T. order, the lower
    # place first (the scores' other lines and tie-breakers are all nought here)
    from civdsl.ledger.ending import final_scores

    game = new_game(edition, seats, "basic" if edition == "megaciv" else None)
    ranks = {n: game.module.CIVILIZATIONS[c]["rank"] for n, c in seats}
    assert [row["player"] for row in final_scores(game)] == sorted(ranks, key=ranks.get)


def test_in_1981_the_player_who_reaches_the_finish_wins_whatever_the_totals():
    # seed 001, 21.1: the first player onto the finish wins; the total of civilization cards,
    # trade cards and treasury decides only between players who finish together (21.2)
    game = new_game("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)
    census(game, anna=(3, 10), bruno=(3, 10), chloe=(3, 10))
    track = game.track()
    game.players["anna"].ast_position = game.module.AST[track]["spaces"] - 1
    game.players["bruno"].treasury = 40
    step_named(game, "Move succession markers")
    try:
        next_step(game)
    except Refused as asked:  # the moves the rulebook's missing rows leave to the players
        for need in asked.needs:
            game.apply({"do": "ast", "player": need["player"], "move": "forward" if need["player"] == "anna"
                        else "stays"})
        next_step(game)
    assert game.ended and game.players["anna"].ast_position == game.module.AST[track]["spaces"]
    assert [(s["player"], s["reached"]) for s in game.scores] == [("anna", True), ("bruno", False), ("chloe", False)]
    assert game.scores[0]["total"] < game.scores[1]["total"]


def test_on_the_expert_track_the_game_runs_one_more_turn():
    game = new_game(track="expert")
    anna = game.players["anna"]
    anna.ast_position, anna.cities = 14, 6
    anna.advances = list(game.module.ADVANCES)[:40]
    step_named(game, "A.S.T. alteration")
    next_step(game)
    assert not game.ended and game.final_turn == 2
    game.apply({"do": "tax", "player": "anna", "rate": 2})  # her Monarchy and Coinage let her choose
    step_named(game, "A.S.T. alteration")
    next_step(game)
    assert game.ended


@pytest.mark.parametrize("edition, seats, track", [("civ1980", [("anna", "Asia"), ("bruno", "Italy"), ("chloe", "Crete")],
                                                   None),
                                                  ("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)])
def test_an_agreed_last_turn_is_refused_where_the_edition_ends_only_at_the_finish(edition, seats, track):
    # seed 000, 44 and seed 001, 21.1: the game ends when a player reaches the finish; neither
    # prints a time limit, so a last turn the players set would be kept and never read
    with pytest.raises(gamefile.GameFileError, match="does not end on a last turn the players agree"):
        new_game(edition, seats, track, last_turn=3)


def test_mega_civilization_s_time_limit_is_an_agreed_last_turn():
    # seed 004, ch 4 "Setting game limits for the full game": "You may consider setting your own
    # time limit"; the ledger keeps it as the last turn the players agree
    game = new_game(last_turn=1)
    step_named(game, "A.S.T. alteration")
    next_step(game)
    assert game.ended and "agreed last turn (1)" in game.log[-1 - len(game.scores)].text


def test_an_agreed_last_turn_ends_the_game_where_the_edition_allows_it():
    game = new_game("expansion", [("anna", None), ("bruno", None), ("chloe", None)], None, last_turn=1)
    step_named(game, "Movement of succession markers")
    game.apply({"do": "ast", "player": "anna", "move": "stays"})
    game.apply({"do": "ast", "player": "bruno", "move": "stays"})
    game.apply({"do": "ast", "player": "chloe", "move": "stays"})
    next_step(game)
    assert game.ended and "agreed last turn" in game.log[-1 - len(game.scores)].text


# --- the recorded games ---------------------------------------------------------------------------

@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_a_recorded_game_replays_and_is_written_back_byte_for_byte(path):
    gf = gamefile.read(path)
    rb = load(gf.setup["edition"])
    game = gamefile.replay(rb, gf)
    assert game.turn >= 11 or game.ended
    assert gamefile.text(gf) == path.read_text(encoding="utf-8")
    words = " ".join(e.text for e in game.log)
    assert "victim" in words and " gives " in words and " buys " in words and "marker forward" in words


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_no_state_of_a_recorded_game_exceeds_a_declared_limit_or_goes_negative(path):
    gf = gamefile.read(path)
    rb = load(gf.setup["edition"])
    game = gamefile.start(rb, gf.setup)
    for event in gf.events:
        game.apply(event)
        pieces = game.pieces
        for p in game.players.values():
            assert min(p.cities, p.tokens, p.ships, p.treasury, p.ast_position, *p.cards.values(), 0) == 0
            for key in ("cities", "ships"):
                assert pieces[key] is None or getattr(p, key) <= pieces[key]
            assert pieces["tokens"] is None or p.tokens + p.treasury <= pieces["tokens"]
        for card, n in ((c, sum(p.cards.get(c, 0) for p in game.players.values())) for c in game.module.COMMODITIES):
            count = game.module.COMMODITIES[card]["count"]
            assert not count or n <= count


def test_the_language_reference_lists_every_phase_action():
    from civdsl import vocabulary as vocab

    docs = (Path(__file__).parents[1] / "docs" / "language.md").read_text(encoding="utf-8")
    assert vocab.phase_actions_markdown() in docs


@pytest.mark.parametrize("edition", ["megaciv", "expansion", "civ1981", "civ1980"])
def test_every_board_edition_declares_the_whole_turns_bookkeeping(edition):
    kinds = {k for step in load(edition).module.TURN for k, _, _ in step["actions"]}
    assert kinds >= {"census", "collect_tax", "draw_trade_cards", "buy_trade_cards", "trade", "resolve_calamities",
                     "buy_advances", "hand_limit", "alter_ast", "end_game"}


def test_wonder_of_the_world_counts_as_a_city_when_the_markers_move():
    """004 ch 9: Wonder of the World counts as a city during the A.S.T.-alteration phase. Egypt on
    space 4 (the Stone Age's last) needs 2 cities for Early Bronze (basic, space 5): 1 city and the
    Wonder move it, 1 city alone does not."""
    for advances, expected in ((["Wonder of the World"], 5), ([], 4)):
        game = new_game()
        census(game, anna=(1, 10))
        game.players["anna"].ast_position = 4
        game.players["anna"].advances = list(advances)
        step_named(game, "A.S.T. alteration")
        next_step(game)
        assert game.players["anna"].ast_position == expected, advances


def test_a_players_state_follows_his_changes_and_each_question_gets_its_own():
    game = new_game()
    anna = game.players["anna"]
    first = game.state(anna)
    assert first.fact("treasury") == 0
    first.fact("a_fact_nobody_gave")  # recorded as missing in this answer only
    anna.treasury += 5
    anna.cards["Ochre"] = 2
    again = game.state(anna)
    assert again is not first and again.fact("treasury") == 5 and again.facts["commodities"] == {"Ochre": 2}
    assert again.missing == [] and game.state(anna, {"volcano_cities": 1}).fact("volcano_cities") == 1
    anna.treasury -= 5
    assert game.state(anna).fact("treasury") == 0 and game.state(anna).missing == []


def _volcano_game(cities: int, tokens: int):
    game = new_game("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)
    census(game, anna=(cities, tokens))
    step_named(game, "Resolve calamities")
    game.players["anna"].calamities = [("Volcanic Eruption or Earthquake", None)]
    game.apply({"do": "choose", "player": "anna", "facts": {"volcano_units": 3}})
    return game


def test_a_volcanic_eruption_takes_the_victim_s_units_by_the_volcano():
    # 1981 22.2.4.1: "all units ... in such areas are lost irrespective of ownership": the victim's
    # units there (his fact), cities and tokens as they stand; the other players' there are named
    game = _volcano_game(4, 10)
    with pytest.raises(Refused) as asked:
        next_step(game)
    assert asked.value.code == CHOICE and asked.value.needs[0]["key"] == "units"
    assert asked.value.needs[0]["amount"] == 3
    game.apply({"do": "choose", "player": "anna", "calamity": "Volcanic Eruption or Earthquake",
                "cities": 1, "tokens": 1})
    with pytest.raises(Refused, match="loses his 3 units in the volcano areas"):  # checked as the step ends
        next_step(game)
    game.apply({"do": "choose", "player": "anna", "calamity": "Volcanic Eruption or Earthquake",
                "cities": 1, "tokens": 2})
    next_step(game)
    anna = game.players["anna"]
    assert (anna.cities, anna.tokens) == (3, 8)
    said = [e.text for e in game.log if e.text.startswith("Volcanic Eruption")]
    assert said and "1 city and 2 tokens lost" in said[0] and "every other player's units" in said[0]
    assert "loses nothing" not in said[0]


def test_a_volcanic_eruption_on_tokens_alone_asks_nothing():
    game = _volcano_game(0, 10)
    next_step(game)
    assert game.players["anna"].tokens == 7


def _entered_forward(edition, cities, position=0, epoch=None, advances=()):
    game = new_game(edition, [("anna", None), ("bruno", None)], None)
    census(game, anna=(cities, 10), bruno=(3, 10))
    game.players["anna"].ast_position = position
    game.players["anna"].advances = list(advances)
    step_named(game, "succession markers")
    game.apply({"do": "ast", "player": "anna", "move": "forward", **({"epoch": epoch} if epoch else {})})
    return game


@pytest.mark.parametrize("edition", ["civ1981", "expansion"])
def test_an_entered_step_forward_says_what_the_requirements_leave_it(edition):
    # no row places the marker: from the start a step may stay in the first epoch or enter the
    # second, which needs two cities (1981 20; the Expansion 34.22); with one city only the first
    game = _entered_forward(edition, 1)
    first = game.module.AST[game.track()]["epochs"][0][0]
    said = next(e.text for e in game.log if e.text.startswith("anna: the marker moves forward"))
    assert said.endswith(f"so the next space is still in {first})")


def test_an_entered_step_forward_the_requirements_forbid_everywhere_is_refused():
    # the Expansion 34.22-34.23 and 34.31: in the Early Bronze Age each step needs two cities, and
    # entering the Late Bronze Age three and three cards: with one city no step forward is allowed
    with pytest.raises(Refused, match="anna's marker themselves \\(stays\\)"):
        _entered_forward("expansion", 1, position=4, epoch="Early Bronze Age")
    game = _entered_forward("expansion", 3, position=4, epoch="Early Bronze Age")
    said = next(e.text for e in game.log if e.text.startswith("anna: the marker moves forward"))
    assert said.endswith("so the next space is still in Early Bronze Age)")  # three cards are missing


def test_a_map_fact_asked_of_a_player_whose_name_has_a_dot_names_him_whole():
    """What a calamity lacks of another player (`players.NAME.FACT`) is asked of NAME whole: a name
    may hold a dot (`game new` takes any), a fact's name never does."""
    from civdsl.ledger.calamities import _need

    need = _need({"victim": "anna", "calamity": "Flood"}, "players.dr. who.volcano_cities")
    assert need == {"player": "dr. who", "calamity": None, "key": "volcano_cities"}
