"""Set-up by player count: the civilizations a game plays are those of one of the edition's
set-ups (`setups` of each civilization), checked when a game starts."""

from __future__ import annotations

import pytest

from conftest import next_step

from civdsl.api import load
from civdsl.ledger import gamefile

WEST_5 = ["Minoa", "Assyria", "Hatti", "Hellas", "Egypt"]
EAST_5 = ["Saba", "Babylon", "Persia", "Nubia", "Parthia"]


def civs(edition="megaciv"):
    return load(edition).module.CIVILIZATIONS


def start(civilizations, edition="megaciv"):
    rb = load(edition)
    seats = [(f"p{i}", c) for i, c in enumerate(civilizations)]
    return gamefile.start(rb, gamefile.new_setup(edition, rb, seats, "basic" if edition == "megaciv" else None,
                                                 None, 0))


def test_mega_civilization_is_for_5_to_18_players_with_a_west_and_an_east_game_up_to_9():
    # seed 004 chapter 4: 5-18 players; 5-9 play West or East alone, 10 West, 11 East, 12-18 both
    for n in range(5, 19):
        fits = gamefile.setups_for(civs(), n)
        assert len(fits) == (2 if n <= 9 else 1), n
        assert all(len(names) == n for names in fits.values())
    assert gamefile.setups_for(civs(), 4) == {} and gamefile.setups_for(civs(), 19) == {}
    blocks = {c: v["block"] for c, v in civs().items()}
    for n in range(5, 10):
        assert sorted({blocks[c] for names in gamefile.setups_for(civs(), n).values() for c in names}) == \
            ["east", "west"]
        assert all(len({blocks[c] for c in names}) == 1 for names in gamefile.setups_for(civs(), n).values())


@pytest.mark.parametrize("players,west,east,moved", [
    # chapter 5: "12 players (6 players West - 6 players East). Assyria is considered East", ...
    (12, 6, 6, {"Assyria"}), (13, 6, 7, {"Assyria", "Egypt"}), (14, 7, 7, {"Assyria", "Egypt"}),
    (15, 7, 8, {"Assyria"}), (16, 8, 8, {"Assyria"}), (17, 8, 9, set()), (18, 9, 9, set())])
def test_the_combined_set_ups_split_west_and_east_as_chapter_5_says(players, west, east, moved):
    (names,) = gamefile.setups_for(civs(), players).values()
    blocks = {c: civs()[c]["block"] for c in names}
    assert sum(b == "west" and c not in moved for c, b in blocks.items()) == west
    assert sum(b == "east" or c in moved for c, b in blocks.items()) == east


def test_the_civilizations_of_one_set_up_start_a_game():
    assert list(start(WEST_5).players.values())[0].civilization == "Minoa"
    assert len(start(EAST_5).players) == 5
    assert gamefile.check_setup(civs(), EAST_5) == "5 East"


@pytest.mark.parametrize("chosen,words", [
    (["Minoa", "Saba", "Hatti", "Hellas", "Egypt"], "`Saba` is in no set-up for 5 players"),
    (["Minoa", "Assyria", "Hatti", "Hellas"], "no set-up for 4 players: the edition's set-ups are for 5-18"),
    (["Minoa", "Minoa", "Hatti", "Hellas", "Egypt"], "`Minoa` is chosen twice"),
    (["Maurya"] + WEST_5[1:], "`Maurya` is in no set-up for 5 players"),  # Maurya plays from 8 East up
])
def test_civilizations_of_no_set_up_are_refused(chosen, words):
    with pytest.raises(gamefile.SetupError) as e:
        start(chosen)
    assert words in str(e.value) and e.value.code == "CIV145"


def test_a_seat_without_civilization_leaves_the_set_up_open():
    assert gamefile.check_setup(civs(), ["Minoa", None, "Hatti", None, "Egypt"]) is None


def test_an_edition_without_set_ups_checks_none():
    rb = load("expansion")  # 15.11: the group agrees the starting locations; the seed gives no set-ups
    assert not any(c.get("setups") for c in rb.module.CIVILIZATIONS.values())
    names = list(rb.module.CIVILIZATIONS)[:3]
    assert gamefile.check_setup(rb.module.CIVILIZATIONS, names, rb.module.SETUP_PLAYERS) is None


def test_game_new_refuses_a_mixed_set_up_and_writes_nothing(tmp_path):
    from conftest import next_step, run_cli

    out = tmp_path / "g.yaml"
    proc = run_cli("game", "new", "megaciv", "--players", "a:Minoa,b:Saba,c:Hatti,d:Hellas,e:Egypt", "--ast",
                   "basic", "-o", out)
    assert proc.returncode == 1 and not out.exists()
    assert "error[CIV145]" in proc.stderr and "set-up 5 West: Minoa, Assyria, Hatti, Hellas, Egypt" in proc.stderr


# --- two calamities of one name against one player in a step ---------------------------------

def _two_epidemics_against_bruno():
    """A 1980 game of four in its calamity step: anna and chloe each hold an Epidemic dario traded
    them (the printed deck has one; a table playing with two, as the hands are set here), and each
    names bruno a secondary victim. Returns the game at the choice of bruno's second loss."""
    from civdsl.ledger.play import CHOICE, Refused

    rb = load("civ1980")
    seats = [("anna", "Asia"), ("bruno", "Assyria"), ("chloe", "Crete"), ("dario", "Thrace")]
    game = gamefile.start(rb, gamefile.new_setup("civ1980", rb, seats, None, None, 0))
    for n in ("anna", "bruno", "chloe", "dario"):
        game.apply({"do": "census", "player": n, "cities": 4, "tokens": 40})
    while "Resolve calamities" not in game.current["name"]:
        next_step(game)
    game.players["anna"].calamities = [("Epidemic", "dario")]
    game.players["chloe"].calamities = [("Epidemic", "dario")]
    for _ in range(10):
        try:
            next_step(game)
        except Refused as r:
            assert r.code == CHOICE
            n = r.needs[0]
            if n["player"] == "bruno" and n.get("occurrence") == 2:
                return game, r
            nth = {"occurrence": n["occurrence"]} if n.get("occurrence", 1) > 1 else {}
            if n["key"] == "secondary":
                other = "chloe" if n["player"] == "anna" else "anna"
                game.apply({"do": "choose", "player": n["player"], "calamity": "Epidemic",
                            "secondary": {"bruno": 10, other: 10}, **nth})
            else:
                game.apply({"do": "choose", "player": n["player"], "calamity": "Epidemic", "tokens": n["amount"], **nth})
    raise AssertionError("bruno's second Epidemic was never asked for")


def test_a_second_calamity_of_a_name_has_its_own_choice():
    """Two Epidemics strike bruno as a secondary victim: his loss of 10 unit points is chosen
    once for each, the second with `occurrence=2`."""
    from civdsl.ledger.play import Refused

    game, refused = _two_epidemics_against_bruno()
    first = game.choices[("Epidemic", "bruno", 1)]
    assert first["tokens"] == 10
    assert any('choose bruno "Epidemic" occurrence=2 cities=C tokens=T' in c for c in refused.choices)
    before = game.players["bruno"].cities, game.players["bruno"].tokens
    game.apply({"do": "choose", "player": "bruno", "calamity": "Epidemic", "cities": 1, "tokens": 5,
                "occurrence": 2})
    for _ in range(5):  # the others' losses, in tokens
        try:
            next_step(game)
            break
        except Refused as r:
            n = r.needs[0]
            assert n["player"] != "bruno"
            game.apply({"do": "choose", "player": n["player"], "calamity": "Epidemic", "tokens": n["amount"],
                        "occurrence": n.get("occurrence", 1)})
    after = game.players["bruno"].cities, game.players["bruno"].tokens
    assert before[0] - after[0] == 1 and before[1] - after[1] == 10 + 5  # 10 tokens for the first, 1 city + 5


def test_an_occurrence_beyond_the_calamities_held_is_refused():
    from civdsl.ledger.play import ILLEGAL, Refused

    game, _ = _two_epidemics_against_bruno()
    for n in (0, 3):
        with pytest.raises(Refused) as refused:
            game.apply({"do": "choose", "player": "bruno", "calamity": "Epidemic", "cities": 2, "occurrence": n})
        assert refused.value.code == ILLEGAL and "from once to 2 times" in refused.value.message


def test_choose_words_take_the_occurrence():
    from civdsl.ledger import words

    event, at = words.parse("choose bruno Epidemic occurrence=2 cities=1 tokens=5".split())
    assert event == {"do": "choose", "player": "bruno", "calamity": "Epidemic", "occurrence": 2, "cities": 1,
                     "tokens": 5}


# --- set-ups chosen from more nations than players ------------------------------------------------

def _start(edition: str, nations: list) -> object:
    rb = load(edition)
    seats = [(f"p{i}", n) for i, n in enumerate(nations)]
    return gamefile.start(rb, gamefile.new_setup(edition, rb, seats, None, None, 0))


def test_three_players_of_1981_choose_three_of_the_five_western_nations():
    # 1981, 28.3: only Italy, Africa, Illyria, Thrace and Crete are available for three players
    assert _start("civ1981", ["Italy", "Crete", "Thrace"]).setup == "3 players"
    with pytest.raises(gamefile.SetupError) as e:
        _start("civ1981", ["Italy", "Crete", "Egypt"])
    assert "`Egypt` is in no set-up for 3 players" in str(e.value)
    assert "set-up 3 players: Africa, Italy, Illyria, Thrace, Crete (choose 3)" in e.value.notes


def test_four_players_of_1981_play_the_four_eastern_nations():
    assert _start("civ1981", ["Egypt", "Babylon", "Assyria", "Asia"]).setup == "4 players"
    with pytest.raises(gamefile.SetupError):
        _start("civ1981", ["Egypt", "Babylon", "Assyria", "Italy"])


def test_a_set_up_whose_nations_the_text_does_not_give_takes_any():
    # 1981, 26.3: nations starting on the discarded panel cannot be played, but none is named
    game = _start("civ1981", ["Italy", "Egypt", "Asia", "Crete", "Thrace"])
    assert game.setup == "5 players"
    assert "the text does not name them" in load("civ1981").module.SETUP_PLAYERS["5 players"][2]


def test_1980_s_tabulation_by_players():
    # 1980, 42: two players choose among Asia, Crete and Thrace; six or seven among all nine
    assert _start("civ1980", ["Asia", "Thrace"]).setup == "2 players"
    with pytest.raises(gamefile.SetupError):
        _start("civ1980", ["Asia", "Italy"])
    assert _start("civ1980", ["Africa", "Asia", "Assyria", "Babylon", "Crete", "Egypt", "Italy"]).setup == \
        "6 or 7 players"


def test_explain_shows_the_block_a_civilization_plays_in_some_set_ups():
    from conftest import next_step, run_cli

    out = run_cli("explain", "megaciv", "Assyria")
    assert out.exit_code == 0, out.output
    assert "block east in set-ups 11, 12, 13, 14, 15, 16 (instead of block west)" in out.output.splitlines()
    saba = run_cli("explain", "megaciv", "Saba").output.splitlines()
    assert "block west in set-up 10 (instead of block east)" in saba
    assert not any(line.startswith("block ") for line in run_cli("explain", "megaciv", "Minoa").output.splitlines())
