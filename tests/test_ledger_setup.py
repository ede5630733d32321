"""Set-up by player count: the civilizations a game plays are those of one of the edition's
set-ups (`setups` of each civilization), checked when a game starts."""

from __future__ import annotations

import pytest

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
    rb = load("civ1981")
    assert not any(c.get("setups") for c in rb.module.CIVILIZATIONS.values())
    names = list(rb.module.CIVILIZATIONS)[:3]
    assert gamefile.check_setup(rb.module.CIVILIZATIONS, names) is None


def test_game_new_refuses_a_mixed_set_up_and_writes_nothing(tmp_path):
    from conftest import run_cli

    out = tmp_path / "g.yaml"
    proc = run_cli("game", "new", "megaciv", "--players", "a:Minoa,b:Saba,c:Hatti,d:Hellas,e:Egypt", "--ast",
                   "basic", "-o", out)
    assert proc.returncode == 1 and not out.exists()
    assert "error[CIV145]" in proc.stderr and "set-up 5 West: Minoa, Assyria, Hatti, Hellas, Egypt" in proc.stderr


# --- two calamities of one name against one player in a step ---------------------------------

def test_a_second_calamity_of_a_name_has_its_own_choice():
    """civ1980-4, turn 5: anna's and chloe's Epidemics both strike bruno (the 1980 deck has two);
    his loss of 10 unit points is chosen once for each, the second with `occurrence=2`."""
    from pathlib import Path

    from civdsl.ledger.play import CHOICE, Refused

    rb = load("civ1980")
    gf = gamefile.read(Path(__file__).parent / "games" / "civ1980-4.yaml")
    i = next(i for i, e in enumerate(gf.events) if e.get("occurrence") == 2 and e["player"] == "bruno")
    game = gamefile.replay(rb, gf, i)
    before = game.players["bruno"].cities, game.players["bruno"].tokens
    first = game.choices[("Epidemic", "bruno", 1)]
    assert (first["cities"], first.get("tokens", 0)) == (2, 0)
    rest = [e for e in gf.events[i + 1:] if e["do"] == "choose" and e["turn"] == gf.events[i]["turn"]]
    with pytest.raises(Refused) as refused:  # the first choice does not answer for the second Epidemic
        for e in rest:
            game.apply(e)
        game.apply(gamefile.stamped(game, {"do": "next"}))
    assert refused.value.code == CHOICE
    assert any(n["player"] == "bruno" and n.get("occurrence") == 2 for n in refused.value.needs)
    assert any('choose bruno "Epidemic" occurrence=2 cities=C tokens=T' in c for c in refused.value.choices)
    game = gamefile.replay(rb, gf, i)
    game.apply(gamefile.stamped(game, {"do": "choose", "player": "bruno", "calamity": "Epidemic", "cities": 1,
                                       "tokens": 5, "occurrence": 2}))
    for e in rest:
        game.apply(e)
    game.apply(gamefile.stamped(game, {"do": "next"}))
    after = game.players["bruno"].cities, game.players["bruno"].tokens
    assert before[0] - after[0] == 2 + 1  # 2 cities for the first Epidemic, 1 for the second
    assert before[1] - after[1] >= 5 - 0  # and 5 tokens for the second (more may come from later calamities)


def test_an_occurrence_beyond_the_calamities_held_is_refused():
    from pathlib import Path

    from civdsl.ledger.play import ILLEGAL, Refused

    rb = load("civ1980")
    gf = gamefile.read(Path(__file__).parent / "games" / "civ1980-4.yaml")
    i = next(i for i, e in enumerate(gf.events) if e.get("occurrence") == 2 and e["player"] == "bruno")
    game = gamefile.replay(rb, gf, i)
    for n in (0, 3):
        with pytest.raises(Refused) as refused:
            game.apply(gamefile.stamped(game, {"do": "choose", "player": "bruno", "calamity": "Epidemic",
                                               "cities": 2, "occurrence": n}))
        assert refused.value.code == ILLEGAL and "from once to 2 times" in refused.value.message


def test_choose_words_take_the_occurrence():
    from civdsl.ledger import words

    event, at = words.parse("choose bruno Epidemic occurrence=2 cities=1 tokens=5".split())
    assert event == {"do": "choose", "player": "bruno", "calamity": "Epidemic", "occurrence": 2, "cities": 1,
                     "tokens": 5}
