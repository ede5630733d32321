"""The trade-card stacks the ledger deals from the rulebook's `trade_deck` declarations and keeps
through the game (civdsl/ledger/decks.py), drawing for the players with a seed, and the
transfers a calamity or a tax revolt makes between two players."""

from __future__ import annotations

import pytest

from conftest import next_step, step_named, through_the_turn
from civdsl.api import load
from civdsl.ledger import decks, gamefile
from civdsl.ledger.play import ILLEGAL, Refused

FIVE_WEST = [("anna", "Egypt"), ("bruno", "Assyria"), ("chloe", "Minoa"), ("dario", "Hellas"), ("eva", "Hatti")]


def new_game(edition="megaciv", seats=FIVE_WEST, track="basic", seed=0):
    rb = load(edition)
    return gamefile.start(rb, gamefile.new_setup(edition, rb, seats, track, None, seed))


def census(game, **cities) -> None:
    for name, n in cities.items():
        game.apply({"do": "census", "player": name, "cities": n, "tokens": 20})


def declared(module, name: str) -> dict:
    return next(d for d in module.TRADE_DECKS if d["name"] == name)


# --- the decks as the rulebooks declare them ------------------------------------------------------

def test_each_megaciv_deck_holds_the_seed_s_counts():
    # seed 004, chapter 4: 12-14 players, West stack 1 is 9 ochre, 5 clay, 4 hides; 15-18 adds 4 bone
    m = load("megaciv").module
    first = declared(m, "West, 12-14 players")["stacks"][1]
    assert {c: n for layer in first for c, n in layer["cards"]} == {"Clay": 5, "Hides": 4, "Ochre": 9}
    first = declared(m, "West, 15-18 players")["stacks"][1]
    assert {c: n for layer in first for c, n in layer["cards"]} == {"Clay": 5, "Hides": 4, "Bone": 4, "Ochre": 9}
    # 5-8 players: the blue West set, each commodity whole, a tradable and a non-tradable calamity from stack 2
    west = declared(m, "West, 5-8 players")["stacks"]
    assert sum(n for s in west.values() for layer in s for _, n in layer["cards"]) == 119 + 16


def test_every_edition_declares_the_decks_its_seed_gives_and_no_more():
    counts = {e: sorted({d["players"] for d in load(e).module.TRADE_DECKS}) for e in ("megaciv", "expansion", "civ1981",
                                                                                     "civ1980")}
    assert counts == {"megaciv": [(5, 8), (9, 11), (12, 14), (15, 18)], "expansion": [(5, 7), (8, 11), (12, 15)],
                      "civ1981": [(2, 7)], "civ1980": [(2, 7)]}


def test_a_game_deals_the_deck_of_its_player_count_and_block():
    game = new_game()
    assert game.stacks.decks == {"west": "West, 5-8 players"}
    assert game.stacks.cards_in("west", 1) == 18 and game.stacks.cards_in("west", 9) == 4 + 5 + 2


def test_clear_keeps_the_calamities_out_of_the_top_cards():
    # seed 004, 5-8 players: as many commodity cards as players are laid on top of each stack
    for seed in range(20):
        game = new_game(seed=seed)
        for number in range(2, 10):
            top = game.stacks.layers["west"][number][0]
            assert sum(top.values()) == 5 and all(c in game.module.COMMODITIES for c in top)


def test_the_nontradable_calamity_is_the_last_card_of_its_stack():
    game = new_game()
    from civdsl.ledger.draws import Draws

    rng = Draws(1)
    drawn = [game.stacks.draw("west", 2, rng) for _ in range(game.stacks.cards_in("west", 2))]
    assert drawn[-1] == "Volcanic Eruption or Earthquake" and game.stacks.draw("west", 2, rng) is None


TWELVE = ["Crete", "Arabia", "Illyria", "Chorasmia", "Assyria", "Dravidian", "Thrace", "Babylon", "Carthage", "Mauryan",
          "Rome", "Kushan", "Iberia", "Nubia", "Hatti"]


def expansion_game(players: int, options: dict | None = None):
    rb = load("expansion")
    setup = gamefile.new_setup("expansion", rb, [(f"p{i}", c) for i, c in enumerate(TWELVE[:players])], None, None, 0)
    return gamefile.start(rb, {**setup, "options": options or {}})


def dealt(game, block: str, number: int) -> dict:
    out: dict = {}
    for layer in game.stacks.layers[block][number]:
        for card, n in layer.items():
            out[card] = out.get(card, 0) + n
    return out


def test_the_expansion_s_12_to_15_player_sets_are_14_33_s():
    # seed 002, 14.33: two sets, each a commodity pair a stack and one of each non-minor calamity
    game = expansion_game(12)
    m = game.module
    commodities = {b: {c for n in range(1, 10) for c in dealt(game, b, n) if c in m.COMMODITIES} for b in ("west", "east")}
    assert commodities["west"] == {"Ochre", "Clay", "Iron", "Papyrus", "Fish", "Fruit", "Oil", "Wool", "Wine", "Textiles",
                                   "Tin", "Copper", "Resin", "Incense", "Marble", "Gems", "Gold", "Ivory"}
    assert len(commodities["east"]) == 18 and all(m.COMMODITIES[c]["block"] == "east" for c in commodities["east"])
    for block in ("west", "east"):
        calamities = {c for n in range(1, 10) for c in dealt(game, block, n) if c in m.CALAMITIES}
        assert len(calamities) == 16 and all(m.CALAMITIES[c]["class"] != "minor" for c in calamities)


@pytest.mark.parametrize("reading,card", [({}, "Wool"), ({"wool_grain_by_14_33": True}, "Grain")])
def test_the_west_s_fourth_stack_deals_the_card_of_the_game_s_reading(reading, card):
    # 9.1 (the default): Wool West, Grain shared; 14.33 (wool_grain_by_14_33): Oil and Grain in the West set
    stack = dealt(expansion_game(12, reading), "west", 4)
    assert {c: n for c, n in stack.items() if c in ("Oil", "Wool", "Grain")} == {"Oil": 8, card: 7 if card == "Wool" else 8}


@pytest.mark.parametrize("players,counted_out", [(12, 6), (15, 7)])
def test_the_12_to_15_player_stacks_seed_their_calamities_below_half_the_players(players, counted_out):
    game = expansion_game(players)
    assert game.stacks.decks == {"west": "West, 12-15 players", "east": "East, 12-15 players"}
    for block in ("west", "east"):
        for number in range(2, 10):
            top = game.stacks.layers[block][number][0]
            assert sum(top.values()) == counted_out and all(c in game.module.COMMODITIES for c in top)


def test_a_player_count_no_deck_covers_deals_nothing_and_drawing_for_him_says_so():
    seats = [(f"p{i}", None) for i in range(16)]
    game = new_game("expansion", seats, None)
    assert game.stacks is None
    step_named(game, "Census")
    census(game, p0=2)
    step_named(game, "Trade card acquisition")
    with pytest.raises(Refused) as refused:
        game.apply({"do": "draw", "player": "p0", "seed": 3})
    assert refused.value.code == ILLEGAL and "no trade deck for 16 players" in refused.value.message
    assert "5-7, 8-11, 12-15 players" in refused.value.message
    game.apply({"do": "draw", "player": "p0", "cards": ["Clay", "Iron"]})  # entered by hand still


def test_the_hands_never_hold_more_cards_of_a_commodity_than_the_game_has():
    # with no stacks dealt the players enter their cards, and the supply (`count`) bounds them:
    # the expansion has 7 Ochre; a card leaving the hands is counted out
    seats = [(f"p{i}", None) for i in range(16)]
    game = new_game("expansion", seats, None)
    step_named(game, "Census")
    census(game, **{f"p{i}": 1 for i in range(9)})
    step_named(game, "Trade card acquisition")
    for i in range(7):
        game.apply({"do": "draw", "player": f"p{i}", "cards": ["Ochre"]})
    with pytest.raises(Refused) as refused:
        game.apply({"do": "draw", "player": "p7", "cards": ["Ochre"]})
    assert refused.value.message == "the game has 7 Ochre cards and the hands would hold 8"
    assert game.players["p7"].cards == {}  # refused: nothing changed, and the count with it
    game.apply({"do": "leave", "player": "p2"})  # his Ochre goes back: one is left to draw
    game.apply({"do": "draw", "player": "p7", "cards": ["Ochre"]})
    with pytest.raises(Refused) as refused:
        game.apply({"do": "draw", "player": "p8", "cards": ["Ochre"]})
    assert refused.value.message == "the game has 7 Ochre cards and the hands would hold 8"
    held = sum(p.cards.get("Ochre", 0) for p in game.players.values())
    assert held == 7 and all(p.tally["Ochre"] == 7 for p in game.players.values())


# --- drawing ---------------------------------------------------------------------------------------

def test_a_seeded_draw_takes_one_card_from_each_stack_and_replays_alike():
    game = new_game()
    census(game, anna=4)
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "seed": 11})
    cards = dict(game.players["anna"].cards)
    assert sum(cards.values()) == 4
    assert sorted(game.module.COMMODITIES[c]["stack"] for c in cards for _ in range(cards[c])) == [1, 2, 3, 4]
    again = new_game()
    census(again, anna=4)
    step_named(again, "Trade cards acquisition")
    again.apply({"do": "draw", "player": "anna", "seed": 11})
    assert again.players["anna"].cards == cards
    assert game.stacks.cards_in("west", 1) == 17


def test_a_card_the_stack_no_longer_holds_cannot_be_drawn_by_hand():
    # 1981: one Volcanic Eruption in stack 2 (4.2); two players cannot both draw it
    game = new_game("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)
    census(game, anna=2, bruno=2)
    step_named(game, "Acquire trade cards")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Volcanic Eruption or Earthquake"]})
    with pytest.raises(Refused, match="stack 2 holds no Volcanic Eruption or Earthquake now"):
        game.apply({"do": "draw", "player": "bruno", "cards": ["Hides", "Volcanic Eruption or Earthquake"]})


def test_a_card_of_the_other_block_is_not_in_a_single_block_game_s_stacks():
    game = new_game()
    census(game, anna=1)
    step_named(game, "Trade cards acquisition")
    with pytest.raises(Refused, match="stack 1 of the west block holds no Flax"):
        game.apply({"do": "draw", "player": "anna", "cards": ["Flax"]})


def test_an_empty_stack_gives_the_edition_s_empty_card_or_nothing():
    # Mega Civilization 6a: a water card from an empty stack; 1981 15.4: the card is forgone
    game = new_game()
    census(game, anna=1)
    step_named(game, "Trade cards acquisition")
    game.stacks.layers["west"][1] = []
    game.apply({"do": "draw", "player": "anna", "seed": 1})
    assert game.players["anna"].cards == {"Water": 1}
    game = new_game("civ1981", [("anna", None), ("bruno", None)], None)
    census(game, anna=1)
    step_named(game, "Acquire trade cards")
    game.stacks.layers[None][1] = []
    game.apply({"do": "draw", "player": "anna", "seed": 1})
    assert game.players["anna"].cards == {}


def test_players_draw_fewest_cities_first():
    from civdsl.ledger.events import draw_order
    from civdsl.ledger import steps as turn_steps

    game = new_game()
    census(game, anna=4, bruno=2, chloe=3)
    step_named(game, "Trade cards acquisition")
    order = [p.name for p in draw_order(game, turn_steps.actions(game.current)["draw_trade_cards"]) if p.cities]
    assert order == ["bruno", "chloe", "anna"]


def test_a_player_draws_only_after_those_with_fewer_cities():
    # 1980 43.8, 1981 15.2, Mega Civilization 6a: the fewest cities draw first; none waits for a
    # player without cities, and equal counts are not held to an order
    game = new_game("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)
    census(game, anna=3, bruno=2, chloe=0)
    game.apply({"do": "census", "player": "chloe", "cities": 0, "tokens": 5})
    step_named(game, "Acquire trade cards")
    with pytest.raises(Refused, match=r"bruno draws first \(fewer cities\)"):
        game.apply({"do": "draw", "player": "anna", "seed": 1})
    assert not game.players["anna"].cards and game.stacks.cards_in(None, 1) == 14
    game.apply({"do": "draw", "player": "bruno", "seed": 1})
    game.apply({"do": "draw", "player": "anna", "seed": 1})
    assert sum(game.players["anna"].cards.values()) == 3


@pytest.mark.parametrize("edition, step, block, empty, before_draw", [
    ("civ1981", "Acquire trade cards", None, None, "anna buys after his draw"),
    ("civ1980", "Acquire trade cards", None, None, "anna buys after his draw"),
    ("megaciv", "Trade cards acquisition", "west", "Water",
     "trade cards are bought once every player with cities has drawn: anna has not"),
])
def test_a_card_bought_from_an_empty_stack(edition, step, block, empty, before_draw):
    # 1981 15.6 and 1980 43.8: a gold card "if available", never treasury for nothing; Mega
    # Civilization 6b: an empty stack sells a water card at the stack's price
    seats = FIVE_WEST if edition == "megaciv" else [("anna", None), ("bruno", None)]
    game = new_game(edition, seats, "basic" if edition == "megaciv" else None)
    census(game, anna=1)
    step_named(game, step)
    game.players["anna"].treasury = 40
    game.stacks.layers[block][9] = []
    buy = {"do": "buy-cards", "player": "anna", "stacks": [9], "seed": 2}
    with pytest.raises(Refused, match=before_draw):
        game.apply(buy)  # 1980 43.8, 1981 15.6: in his turn; Mega Civilization 6b: after the draws
    game.apply({"do": "draw", "player": "anna", "cards": []})
    if empty is None:
        with pytest.raises(Refused, match="stack 9 is empty: no card to buy"):
            game.apply(buy)
        assert game.players["anna"].treasury == 40 and not game.players["anna"].cards
    else:
        game.apply(buy)
        assert game.players["anna"].cards == {empty: 1} and game.players["anna"].treasury == 40 - 15


def test_two_cards_bought_from_a_stack_holding_one_are_refused():
    game = new_game("civ1981", [("anna", None), ("bruno", None)], None)
    census(game, anna=1)
    step_named(game, "Acquire trade cards")
    game.players["anna"].treasury = 40
    game.stacks.layers[None][9] = [{"Gold": 1}]
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre"]})
    with pytest.raises(Refused, match="stack 9 is empty: no card to buy"):
        game.apply({"do": "buy-cards", "player": "anna", "stacks": [9, 9], "seed": 2})
    assert game.players["anna"].treasury == 40 and game.stacks.cards_in(None, 9) == 1


def test_mega_civilization_s_printed_drawing_example_replays():
    # seed 004, 6a example: Minoa (3 cities) draws first, then Hellas before Egypt (5 cities each,
    # Hellas higher on the A.S.T.); stack 2 is empty when Egypt draws, so he takes a water card
    from civdsl.ledger.gameview import draw_for_everyone

    game = new_game(seats=[("tony", "Egypt"), ("dario", "Assyria"), ("judith", "Hellas"), ("ronald", "Minoa"),
                           ("eva", "Hatti")])  # seated apart from the order they draw in
    census(game, ronald=3, judith=5, tony=5)
    step_named(game, "Trade cards acquisition")
    game.stacks.layers["west"][2] = [{"Papyrus": 2}]
    added = draw_for_everyone(game, 7)
    assert [e["player"] for e in added] == ["ronald", "judith", "tony"]
    drawn = {n: game.players[n].cards for n in ("ronald", "judith", "tony")}
    assert [sum(c.values()) for c in drawn.values()] == [3, 5, 5]
    assert drawn["ronald"].get("Papyrus") == drawn["judith"].get("Papyrus") == 1
    assert drawn["tony"].get("Water") == 1 and "Papyrus" not in drawn["tony"]


def test_discarded_cards_go_under_their_stack_when_the_turn_ends():
    game = new_game()
    census(game, anna=9)
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "seed": 5})
    held = [c for c, n in game.players["anna"].cards.items() for _ in range(n)]
    first = next(c for c in held if game.module.COMMODITIES.get(c, {}).get("stack") == 1)
    step_named(game, "Civilization advances acquisition")
    game.apply({"do": "discard", "player": "anna", "cards": [first]})
    assert game.stacks.cards_in("west", 1) == 17  # on the discard pile this turn
    turn = game.turn
    while game.turn == turn:
        try:
            next_step(game)
        except Refused as r:  # the hand limit and calamities: anna discards what the rules ask
            need = r.needs[0]
            if need["key"] == "discard":
                cards = [c for c, n in game.players["anna"].cards.items() for _ in range(n)][:need["amount"]]
                game.apply({"do": "discard", "player": "anna", "cards": cards})
            else:
                raise
    assert game.stacks.cards_in("west", 1) == 18
    assert game.stacks.layers["west"][1][-1] == {first: 1}


def test_a_leaving_player_s_cards_go_back_to_their_stacks():
    game = new_game()
    census(game, anna=3)
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "seed": 2})
    game.apply({"do": "leave", "player": "anna"})
    assert game.players["anna"].cards == {}
    assert sum(sum(layer.values()) for pile in game.stacks.pending.values() for layer in pile) == 3


def test_a_returned_card_goes_to_the_block_that_misses_it():
    stacks = decks.Stacks({"west": {1: [{"Clay": 4}]}, "east": {1: [{"Clay": 4}]}},
                          {"west": {1: {"Clay": 5}}, "east": {1: {"Clay": 4}}}, {"west": "W", "east": "E"})
    stacks.give_back("Clay", 1, False, "east")
    assert stacks.pending == {("west", 1): [{"Clay": 1}, {}]}


# --- the command line ------------------------------------------------------------------------------

def test_game_draw_draws_for_every_player_in_order_and_the_file_replays(tmp_path):
    from conftest import run_cli as civdsl

    path = tmp_path / "g.yaml"
    assert civdsl("game", "new", "megaciv", "--players", ",".join(f"{n}:{c}" for n, c in FIVE_WEST), "--ast",
                  "basic", "-o", path).returncode == 0
    civdsl("game", "add", path, "census", "anna", "cities=3", "/", "census", "bruno", "cities=2", "/", "next", "/",
           "next", "/", "next", "/", "next")
    proc = civdsl("game", "draw", path, "--seed", "4")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if " draws " in line]
    assert [line.split(": ")[1].split()[0] for line in lines] == ["bruno", "anna"] and "seed 4" in lines[0]
    civdsl("game", "add", path, "next")
    refused = civdsl("game", "draw", path)  # the trade step draws nothing
    assert refused.returncode != 0 and "draws no trade cards" in refused.stderr
    gf = gamefile.read(path)
    assert [e.get("seed") for e in gf.events if e["do"] == "draw"] == [4, 4]


# --- transfers between players -----------------------------------------------------------------------

def test_treachery_s_annexed_city_goes_to_the_beneficiary():
    # seed 004 ch 8, Treachery: the beneficiary (the trader) annexes a city of the victim
    game = new_game()
    census(game, anna=3, bruno=3)
    step_named(game, "Trade cards acquisition")
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Papyri", "Fish"]})
    game.apply({"do": "draw", "player": "bruno", "cards": ["Clay", "Treachery", "Fruit"]})
    step_named(game, "Trade", exact=True)
    game.apply({"do": "trade", "player": "anna", "gives": ["Ochre", "Papyri", "Fish"], "with": "bruno",
                "gets": ["Clay", "Treachery", "Fruit"]})
    step_named(game, "Calamity resolution")
    next_step(game)
    assert (game.players["anna"].cities, game.players["bruno"].cities) == (2, 4)
    assert any("1 city annexed by bruno" in e.text for e in game.log)


def test_a_tax_revolt_s_cities_go_to_the_player_with_most_cities_in_stock():
    # seed 004, 1b: Michael has 5 cities and 7 tokens in stock: 2 cities revolt; Frank, with the
    # most cities in stock, annexes them
    game = new_game()
    game.apply({"do": "census", "player": "anna", "cities": 5, "tokens": 48})
    for name, cities in (("bruno", 2), ("chloe", 4), ("dario", 4), ("eva", 4)):
        census(game, **{name: cities})
    turn = game.turn
    while game.turn == turn:
        next_step(game)
    assert (game.players["anna"].cities, game.players["bruno"].cities) == (3, 4)
    assert any("2 revolting cities annexed by bruno" in e.text for e in game.log)


def test_a_tie_for_the_revolt_s_beneficiary_goes_to_the_first_in_ast_order():
    # seed 004, ch 8 The Beneficiary: most cities in stock, then most tokens in stock, "the
    # A.S.T.-order breaks any ties" (1b's tax revolt names 'the beneficiary'); every other player
    # has 9 cities and 55 tokens in stock
    game = new_game()
    game.apply({"do": "census", "player": "anna", "cities": 5, "tokens": 48})
    through_the_turn(game)
    civs = game.module.CIVILIZATIONS
    first = min(("bruno", "chloe", "dario", "eva"), key=lambda n: civs[game.players[n].civilization]["rank"])
    assert (game.players["anna"].cities, game.players[first].cities) == (3, 2)
    assert any(f"2 revolting cities annexed by {first} (the most cities in stock then tokens in stock, first of the "
               "tied in A.S.T. order)" in e.text for e in game.log)


def test_a_tie_for_the_revolt_s_beneficiary_is_left_to_the_table_without_an_ast_order():
    # 1981 with no nations named (26.3: any five): the tied players have no place on the A.S.T.
    # to break the tie (5.3), so the table decides and enters it as a census
    game = new_game("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)
    game.apply({"do": "census", "player": "anna", "cities": 4, "tokens": 40})  # 47 tokens: 7 in stock
    game.apply({"do": "census", "player": "bruno", "cities": 1, "tokens": 20})
    game.apply({"do": "census", "player": "chloe", "cities": 1, "tokens": 20})
    through_the_turn(game)
    assert game.players["anna"].cities == 4
    assert any("bruno, chloe tie on tokens in stock: the table decides" in e.text for e in game.log)


@pytest.mark.parametrize("edition, seats", [("megaciv", FIVE_WEST), ("expansion", [("anna", None), ("bruno", None)])])
def test_a_democracy_holder_s_cities_never_revolt_over_taxes(edition, seats):
    # seed 004 ch 9 Democracy: "your cities do not revolt as a result of a shortage in tax
    # collection"; seed 002, 18.34 and 33.1361: immune to tax revolts. He pays what his stock holds.
    game = new_game(edition, seats, "basic" if edition == "megaciv" else None)
    game.players["anna"].advances = ["Democracy"]
    game.apply({"do": "census", "player": "anna", "cities": 5, "tokens": game.pieces["tokens"] - 7})
    game.apply({"do": "census", "player": "bruno", "cities": 1, "tokens": 10})
    through_the_turn(game)
    assert (game.players["anna"].cities, game.players["anna"].treasury) == (5, 7)
    assert game.players["bruno"].cities == 1
    assert any("anna pays 7 tax" in e.text and "his cities never revolt over taxes" in e.text for e in game.log)


def test_1981_gives_revolting_cities_to_the_most_tokens_in_stock():
    # 1981, 6.3.2: the player with the most tokens in stock takes over the revolting cities
    game = new_game("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None)
    game.apply({"do": "census", "player": "anna", "cities": 4, "tokens": 40})  # 47 tokens: 7 in stock
    game.apply({"do": "census", "player": "bruno", "cities": 1, "tokens": 30})
    game.apply({"do": "census", "player": "chloe", "cities": 1, "tokens": 10})
    through_the_turn(game)
    assert (game.players["anna"].cities, game.players["chloe"].cities) == (3, 2)


@pytest.mark.parametrize("edition", ["civ1980", "civ1981", "expansion"])
@pytest.mark.parametrize("whole_cities", [False, True], ids=["whole-stock", "whole-cities"])
def test_a_player_short_of_tokens_pays_his_stock_or_whole_cities_by_the_reading_in_play(edition, whole_cities):
    # 1980 43.1, 1981 6.2, the Expansion 18.31: the cities whose tax cannot be paid revolt, and the
    # texts do not say what becomes of the tokens that pay no whole city's tax. Default: all of the
    # stock moves (Mega Civilization 1b says so); option tax_whole_cities: only the tax of the
    # cities kept. Four cities at 2 per city and 7 tokens in stock: one city revolts either way.
    rb = load(edition)
    setup = gamefile.new_setup(edition, rb, [("anna", None), ("bruno", None), ("chloe", None)], None, None, 0)
    if whole_cities:
        setup["options"] = {"tax_whole_cities": True}
    game = gamefile.start(rb, setup)
    game.apply({"do": "census", "player": "anna", "cities": 4, "tokens": game.pieces["tokens"] - 7})
    game.apply({"do": "census", "player": "bruno", "cities": 1, "tokens": 20})
    game.apply({"do": "census", "player": "chloe", "cities": 1, "tokens": 10})
    through_the_turn(game)
    anna = game.players["anna"]
    assert anna.cities == 3
    assert anna.treasury == (6 if whole_cities else 7)
    assert anna.tokens_in_stock(game.pieces) == (1 if whole_cities else 0)
    assert any(f"anna pays {6 if whole_cities else 7} tax (2 per city on 4)" in e.text and "1 city revolts" in e.text
               for e in game.log)


# --- civilizations that change block in a combined game ---------------------------------------------

@pytest.mark.parametrize("players, west, east", [(10, 10, 0), (11, 0, 11), (12, 6, 6), (13, 6, 7), (14, 7, 7),
                                                 (15, 7, 8), (16, 8, 8), (17, 8, 9), (18, 9, 9)])
def test_a_set_up_s_blocks_split_as_the_seed_says(players, west, east):
    # seed 004, chapter 4: 10 players play West, 11 East; chapter 5: "Assyria is considered East"
    # for 12 to 16 players, Egypt too for 13 and 14: the blocks split 6-6, 6-7, ... 9-9
    rb = load("megaciv")
    members = next(iter(gamefile.setups_for(rb.module.CIVILIZATIONS, players).values()))
    game = new_game(seats=[(f"p{i}", c) for i, c in enumerate(members)])
    blocks = [game.block(p) for p in game.seated()]
    assert (blocks.count("west"), blocks.count("east")) == (west, east)


def test_assyria_draws_from_the_east_stacks_in_a_twelve_player_game():
    rb = load("megaciv")
    members = gamefile.setups_for(rb.module.CIVILIZATIONS, 12)["12"]
    seats = [("anna", "Assyria")] + [(f"p{i}", c) for i, c in enumerate(c for c in members if c != "Assyria")]
    game = new_game(seats=seats)
    assert game.setup == "12" and game.block(game.players["anna"]) == "east"
    census(game, anna=1)
    step_named(game, "Trade cards acquisition")
    with pytest.raises(Refused, match="stack 1 of the east block holds no Ochre"):
        game.apply({"do": "draw", "player": "anna", "cards": ["Ochre"]})
    game.apply({"do": "draw", "player": "anna", "cards": ["Flax"]})


def test_a_ten_player_game_deals_only_the_west_cards():
    rb = load("megaciv")
    members = gamefile.setups_for(rb.module.CIVILIZATIONS, 10)["10"]
    game = new_game(seats=[(f"p{i}", c) for i, c in enumerate(members)])
    assert game.stacks.decks == {"west": "West, 9-11 players"}


def test_diff_lists_a_changed_trade_deck(tmp_path):
    from civdsl.diff import diff, load_edition

    house = tmp_path / "h.civ"
    house.write_text('language 1\nedition h "H" extends megaciv\n'
                     'trade_deck "West, 5-8 players" for 5..8 block west {\n  stack 1 { "Ochre" 8, "Clay" 9 }\n}\n',
                     encoding="utf-8")
    texts = [c.text for c in diff(load_edition("megaciv"), load_edition(str(house))) if c.section == "decks"]
    assert any(t.startswith('trade_deck "West, 5-8 players"') and "Ochre 8" in t for t in texts)


@pytest.mark.parametrize("event, words", [
    ({"do": "draw", "player": "anna", "seed": 2**64}, "a seed is a whole number up to"),
    ({"do": "draw", "player": "anna", "seed": 3, "cards": ["Ochre"]}, "not both"),
    ({"do": "draw", "player": "anna", "seed": -1}, "whole number"),
])
def test_a_draw_with_a_bad_seed_is_refused_and_changes_nothing(event, words):
    game = new_game()
    census(game, anna=2)
    step_named(game, "Trade cards acquisition")
    before = game.stacks.cards_in("west", 1)
    with pytest.raises(Refused, match=words):
        game.apply(event)
    assert game.stacks.cards_in("west", 1) == before and game.players["anna"].cards == {}


def test_a_civil_war_faction_goes_to_the_beneficiary():
    # 1981, 22.2.6.1: a faction of exactly 35 unit points breaks away to the victim's nominee
    game = new_game("civ1981", [("anna", "Italy"), ("bruno", "Crete"), ("chloe", "Thrace")], None)
    for name, cities, tokens in (("anna", 4, 30), ("bruno", 1, 5), ("chloe", 2, 10)):
        game.apply({"do": "census", "player": name, "cities": cities, "tokens": tokens})
    step_named(game, "Acquire trade cards")
    game.apply({"do": "draw", "player": "bruno", "cards": ["Hides"]})
    game.apply({"do": "draw", "player": "chloe", "cards": ["Hides", "Papyrus"]})
    game.apply({"do": "draw", "player": "anna", "cards": ["Ochre", "Iron", "Salt", "Civil War"]})
    step_named(game, "Resolve calamities")
    game.apply({"do": "choose", "player": "anna", "calamity": "Civil War", "beneficiary": "chloe", "cities": 3,
                "tokens": 20})
    next_step(game)
    assert (game.players["anna"].cities, game.players["anna"].tokens) == (1, 10)
    assert (game.players["chloe"].cities, game.players["chloe"].tokens) == (5, 30)
    assert any("3 cities and 20 tokens annexed by chloe" in e.text for e in game.log)


def _banditry_traded_to_anna(game):
    """Anna (3 cities) and bruno (9) to the calamities of the first turn, bruno having traded anna
    a Banditry with two commodity cards."""
    step_named(game, "Census", exact=True)
    game.apply({"do": "census", "player": "anna", "cities": 3, "tokens": 20})
    game.apply({"do": "census", "player": "bruno", "cities": 9, "tokens": 20})
    step_named(game, "Trade card acquisition and purchases", exact=True)
    game.apply({"do": "draw", "player": "anna", "cards": ["Clay", "Iron", "Fish"]})
    game.apply({"do": "draw", "player": "bruno", "cards": ["Hides", "Stone", "Salt", "Oil", "Wine", "Copper", "Resin",
                                                           "Gems", "Banditry"]})
    step_named(game, "Trade", exact=True)
    game.apply({"do": "trade", "player": "bruno", "gives": ["Hides", "Stone", "Banditry"], "with": "anna",
                "gets": ["Clay", "Iron", "Fish"]})
    step_named(game, "Resolve calamities", exact=True)


def test_banditry_s_card_goes_to_the_trader():
    # Expansion 30.93: a traded Banditry makes its victim give a commodity card to the trader
    seats = [("anna", None), ("bruno", None)] + [(f"p{i}", None) for i in range(6)]
    game = new_game("expansion", seats, None)
    _banditry_traded_to_anna(game)
    with pytest.raises(Refused) as asked:
        next_step(game)
    assert "anna gives commodity cards" in asked.value.message
    game.apply({"do": "choose", "player": "anna", "calamity": "Banditry", "cards": ["Hides"]})
    next_step(game)
    assert game.players["anna"].cards == {"Stone": 1} and game.players["bruno"].cards.get("Hides") == 1
    assert any("Hides given to bruno" in e.text for e in game.log)


def _gifts_game(tmp_path):
    """The Expansion with a Banditry whose victim hands two cards to the other players."""
    path = tmp_path / "gifts.civ"
    path.write_text('language 1\nedition gifts "Gifts" extends expansion\n'
                    'change calamity "Banditry" { primary { give_cards(2, to=others) } }\n', encoding="utf-8")
    rb = load(str(path))
    seats = [("anna", None), ("bruno", None), ("chloe", None)] + [(f"p{i}", None) for i in range(5)]
    game = gamefile.start(rb, gamefile.new_setup(str(path), rb, seats, None, None, 0))
    _banditry_traded_to_anna(game)
    return game


def test_cards_given_to_the_other_players_are_the_victims_to_hand_out_never_a_discard(tmp_path):
    game = _gifts_game(tmp_path)
    with pytest.raises(Refused) as asked:
        next_step(game)
    assert asked.value.code == "CIV143" and "given=PLAYER:CARD" in asked.value.choices[0]
    assert asked.value.needs[0]["key"] == "given" and asked.value.needs[0]["amount"] == 2
    game.apply({"do": "choose", "player": "anna", "calamity": "Banditry",
                "given": {"bruno": ["Hides"], "chloe": ["Stone"]}})
    next_step(game)
    assert game.players["anna"].cards == {}
    assert game.players["bruno"].cards.get("Hides") == 1 and game.players["chloe"].cards == {"Stone": 1}
    assert any("Hides given to bruno; Stone given to chloe" in e.text for e in game.log)


@pytest.mark.parametrize("given, why", [
    ({"bruno": ["Hides"]}, "gives 2 cards in all, not 1"),
    ({"bruno": ["Hides", "Gems"]}, "does not hold all of Hides, Gems"),
    ({"anna": ["Hides", "Stone"]}, "not to himself"),
])
def test_cards_given_to_the_other_players_are_checked(tmp_path, given, why):
    game = _gifts_game(tmp_path)
    with pytest.raises(Refused) as refused:
        game.apply({"do": "choose", "player": "anna", "calamity": "Banditry", "given": given})
        next_step(game)
    assert refused.value.code == "CIV142" and why in refused.value.message


def test_given_is_typed_as_receiver_and_cards():
    from civdsl.ledger import words

    event, _ = words.parse(["choose", "anna", "Banditry", "given=bruno:Hides,chloe:Stone*2"])
    assert event["given"] == {"bruno": ["Hides"], "chloe": ["Stone", "Stone"]}
    with pytest.raises(Refused):
        words.parse(["choose", "anna", "Banditry", "given=bruno"])


def test_the_log_of_every_recorded_game_speaks_a_players_words():
    import re
    from pathlib import Path

    for path in sorted((Path(__file__).parent / "games").glob("*.yaml")):
        gf = gamefile.read(path)
        game = gamefile.replay(load(gf.setup["edition"]), gf)
        for entry in game.log:
            assert not re.search(r"\b[a-z]+_[a-z_]+\b|\bNone\b|\bTrue\b|\bFalse\b", entry.text), (path.name, entry.text)


def test_a_card_bought_with_a_seed_is_the_top_of_its_stack():
    # seed 004, 6b: by default a card from stack 9 for 15 treasury; the stack's top card
    game = new_game()
    census(game, anna=1)
    step_named(game, "Trade cards acquisition")
    game.players["anna"].treasury = 15
    game.apply({"do": "draw", "player": "anna", "seed": 1})
    before = game.stacks.cards_in("west", 9)
    game.apply({"do": "buy-cards", "player": "anna", "stacks": [9], "seed": 4})
    (card,) = [c for c in game.players["anna"].cards if game.module.COMMODITIES[c]["stack"] != 1]
    assert game.module.COMMODITIES[card]["stack"] == 9  # the top 5 cards of stack 9 hold no calamity
    assert game.players["anna"].treasury == 0 and game.stacks.cards_in("west", 9) == before - 1
    from civdsl.ledger import words

    assert words.parse("buy-cards anna stack=9 seed=4".split())[0] == {"do": "buy-cards", "player": "anna",
                                                                      "stacks": [9], "seed": 4}


def test_a_card_a_house_rule_removes_leaves_every_deck_of_its_base(tmp_path):
    """`remove calamity X` takes X out of the game, so its cards leave the base's trade decks (the
    base itself keeps them); before, the base's decks named a card the house rule no longer had."""
    from civdsl.frontend import check_file
    from civdsl.resources import shipped_rulebooks

    path = tmp_path / "no_tempest.civ"
    path.write_text('language 1\nedition no_tempest "Test" extends megaciv\nremove calamity "Tempest"\n'
                    'errata CIV042 "24 calamities" "one fewer"\nerrata CIV042 "8 minor calamities" "one fewer"\n',
                    encoding="utf-8")
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()

    def count(edition, card):
        return sum(n for deck in edition.trade_decks.values() for layers in deck.stacks.values()
                   for layer in layers for c, n, _ in layer.cards if c == card)

    base = check_file(shipped_rulebooks()["megaciv"]).edition
    assert count(base, "Tempest") > 0
    assert count(checked.edition, "Tempest") == 0
    assert count(checked.edition, "Iron") == count(base, "Iron")


def test_a_returned_card_goes_where_it_is_missed_after_draws_from_the_stack_asked_before():
    # what a stack holds is asked once, then kept through each card drawn or taken from it
    stacks = decks.Stacks({"west": {1: [{"Clay": 4}]}, "east": {1: [{"Clay": 4}]}},
                          {"west": {1: {"Clay": 4}}, "east": {1: {"Clay": 4}}}, {"west": "W", "east": "E"})
    assert stacks.holds("east", 1, "Clay") == 4
    assert stacks.take("east", 1, "Clay") and stacks.take("east", 1, "Clay")
    assert stacks.holds("east", 1, "Clay") == 2
    stacks.give_back("Clay", 1, False, "west")  # east misses two, west none
    assert stacks.pending == {("east", 1): [{"Clay": 1}, {}]}


def test_the_player_count_drops_when_a_player_leaves():
    game = new_game()
    assert game.facts(game.players["bruno"])["players"] == 5
    game.apply({"do": "leave", "player": "anna"})
    assert [p.name for p in game.seated()] == ["bruno", "chloe", "dario", "eva"]
    assert game.facts(game.players["bruno"])["players"] == 4
    assert game.state(game.players["bruno"]).fact("players") == 4


def test_a_recorded_game_s_stacks_keep_no_emptied_layer_and_their_counts_right():
    # a draw walks a stack from the top: the layers emptied in past turns leave it; and the count of
    # each card a stack holds, kept across turns for the discards, is what its layers hold
    from pathlib import Path

    path = Path(__file__).parent / "games" / "megaciv-18.yaml"
    gf = gamefile.read(path)
    game = gamefile.replay(load(gf.setup["edition"]), gf)
    stacks = game.stacks
    assert game.turn > 5 and len(stacks.layers) == 2
    for block, numbered in stacks.layers.items():
        for number, layers in numbered.items():
            assert all(layers), (block, number)
            counted: dict = {}
            for layer in layers:
                for card, n in layer.items():
                    counted[card] = counted.get(card, 0) + n
            for card in stacks.dealt[block][number]:
                assert stacks.holds(block, number, card) == counted.get(card, 0), (block, number, card)


# --- the step of the draw ends when every player with cities has drawn; purchases wait for it

@pytest.mark.parametrize("edition, seats, track, step", [
    ("megaciv", FIVE_WEST, "basic", "Trade cards acquisition"),
    ("civ1981", [("anna", None), ("bruno", None), ("chloe", None)], None, "Acquire trade cards"),
    ("civ1980", [("anna", "Asia"), ("bruno", "Italy"), ("chloe", "Crete")], None, "Acquire trade cards"),
    ("expansion", [("anna", None), ("bruno", None), ("chloe", None)], None, "Trade card acquisition"),
])
def test_next_waits_for_every_player_with_cities_to_draw(edition, seats, track, step):
    # every edition: each player draws one card per city (1980 43.8, 1981 15.2, the Expansion 27,
    # Mega Civilization 6a); a player without cities owes no draw
    from civdsl.ledger.play import CHOICE

    game = new_game(edition, seats, track)
    census(game, anna=3, bruno=2)
    step_named(game, step)
    before = (game.step, game.events, {n: dict(p.cards) for n, p in game.players.items()})
    with pytest.raises(Refused) as refused:
        game.apply({"do": "next"})
    r = refused.value
    assert r.code == CHOICE and [n["player"] for n in r.needs] == ["bruno", "anna"]  # the order of the draw
    assert {n["key"] for n in r.needs} == {"draw"} and "bruno, anna have not" in r.message
    assert (game.step, game.events, {n: dict(p.cards) for n, p in game.players.items()}) == before
    game.apply({"do": "draw", "player": "bruno", "cards": []})  # the stacks' cards are not what is tested
    with pytest.raises(Refused, match="anna has not"):
        game.apply({"do": "next"})
    game.apply({"do": "draw", "player": "anna", "cards": []})
    game.apply({"do": "next"})
    assert step not in game.current["name"]


def test_mega_civilization_sells_trade_cards_after_every_draw_in_the_order_of_the_draw():
    # seed 004, 6b: "After all players have drawn their regular trade cards, in the exact same
    # order as step 6a, each player may choose to purchase": bruno (2 cities) buys before anna (3);
    # once anna has bought, bruno's turn has passed
    game = new_game()
    census(game, anna=3, bruno=2)
    step_named(game, "Trade cards acquisition")
    for name in ("anna", "bruno"):
        game.players[name].treasury = 40
    game.apply({"do": "draw", "player": "bruno", "seed": 5})
    buy = {"do": "buy-cards", "stacks": [9], "seed": 6}
    with pytest.raises(Refused, match="every player with cities has drawn: anna has not"):
        game.apply({**buy, "player": "bruno"})  # he has drawn, anna not yet
    assert game.players["bruno"].treasury == 40
    game.apply({"do": "draw", "player": "anna", "seed": 5})
    game.apply({**buy, "player": "anna"})
    with pytest.raises(Refused, match="bruno's turn to buy has passed: anna, after him in the order of the draw"):
        game.apply({**buy, "player": "bruno"})
    assert game.players["bruno"].treasury == 40 and game.players["anna"].treasury == 25


def test_the_older_editions_sell_trade_cards_right_after_the_buyer_s_own_draw():
    # 1981 15.6: in his turn to draw; a player buys while others have still to draw
    game = new_game("civ1981", [("anna", None), ("bruno", None)], None)
    census(game, anna=3, bruno=2)
    step_named(game, "Acquire trade cards")
    game.players["bruno"].treasury = 40
    game.apply({"do": "draw", "player": "bruno", "seed": 5})
    game.apply({"do": "buy-cards", "player": "bruno", "stacks": [9], "seed": 6})
    assert game.players["bruno"].treasury < 40 and not game.done.get(("draw", "anna"))


@pytest.mark.parametrize("edition, setting, cities_after, said", [
    # 1981 6.3.2 NOTE: "(In rare cases where no player can take over remaining revolting cities,
    # they are eliminated instead.) It is just possible that this could lead some or all of the
    # cities to revert back to the original player": eliminated by default, reverting as an option
    ("civ1981", None, 3, "1 revolting city is destroyed"),
    ("civ1981", True, 4, "1 revolting city reverts to him"),
    # 1980 43.1 is silent on cities nobody can take; 64: they may "revert back to the original
    # player": reverting by default, destroyed as an option
    ("civ1980", None, 4, "1 revolting city reverts to him"),
    ("civ1980", False, 3, "1 revolting city is destroyed"),
])
def test_revolting_cities_nobody_can_take_over_by_each_reading(tmp_path, edition, setting, cities_after, said):
    from civdsl.ledger.gameview import stamped

    rb = load(edition)
    seats = ([("anna", None), ("bruno", None), ("chloe", None)] if edition == "civ1981"
             else [("anna", "Asia"), ("bruno", "Italy"), ("chloe", "Crete")])
    setup = gamefile.new_setup(edition, rb, seats, None, None, 0)
    if setting is not None:
        setup["options"] = {"revolt_cities_revert": setting}
    game = gamefile.start(rb, setup)
    limit = game.pieces["cities"]
    events = []
    for event in ({"do": "census", "player": "anna", "cities": 4, "tokens": game.pieces["tokens"] - 7},
                  {"do": "census", "player": "bruno", "cities": limit, "tokens": 10},  # no city in stock
                  {"do": "census", "player": "chloe", "cities": limit, "tokens": 10}):
        events.append(stamped(game, event))
        game.apply(events[-1])
    while game.turn == 1:
        try:
            events.append(stamped(game, {"do": "next"}))
            game.apply(events[-1])
        except Refused as r:
            events.pop()
            for need in r.needs:
                answer = ({"do": "draw", "player": need["player"], "cards": []} if need["key"] == "draw" else
                          {"do": "ast", "player": need["player"], "move": "stays"})
                events.append(stamped(game, answer))
                game.apply(events[-1])
    path = tmp_path / "game.yaml"
    path.write_text(gamefile.text(gamefile.GameFile(setup, events)), encoding="utf-8")
    replayed = gamefile.replay(rb, gamefile.read(path))
    assert replayed.players["anna"].cities == cities_after and replayed.players["bruno"].cities == limit
    assert any(said in e.text for e in replayed.log), [e.text for e in replayed.log if "revolt" in e.text]
