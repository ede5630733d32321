"""Epochs by position and by civilization: each civilization's row on each A.S.T. track.

The rows are data (`civilization "Minoa" { ast basic at 6, 9, 11, 14, 15 }`); these tests check
the position -> epoch mapping against every row of every shipped rulebook, Mega Civilization's
rows against the reference table they were copied from, and the movement rules as printed.
"""

import csv
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import civdsl
from civdsl import standing
from civdsl.resources import shipped_rulebooks
from civdsl.state import StateError

REFERENCE = Path("/work/shared/reference/megaciv_ast_tracks.csv")
EPOCH_COLUMNS = ("early_bronze", "middle_bronze", "late_bronze", "early_iron", "late_iron")


def _rows():
    for edition in shipped_rulebooks():
        rb = civdsl.load(edition)
        for civ, data in getattr(rb.module, "CIVILIZATIONS", {}).items():
            for track, row in data["rows"].items():
                yield pytest.param(rb, civ, track, row, id=f"{edition}:{civ}:{track}")


ROWS = list(_rows())


def test_every_mega_civilization_has_a_row_on_both_sides():
    rb = civdsl.load("megaciv")
    civs = rb.module.CIVILIZATIONS
    assert len(civs) == 18
    assert all(set(c["rows"]) == {"basic", "expert"} for c in civs.values())
    assert sorted(c["rank"] for c in civs.values()) == list(range(1, 19))


@pytest.mark.parametrize("rb, civ, track, row", ROWS)
def test_position_to_epoch_on_every_row(rb, civ, track, row):
    """Space 0 (the arrow) and 1 are in the first epoch; each epoch starts on its declared space,
    the space before it is in the epoch before; the epoch never goes down along the row."""
    names = [name for name, _ in rb.module.AST[track]["epochs"]]
    assert standing.epoch_index(row, 0) == 0 and standing.epoch_index(row, 1) == 0
    for k, start in enumerate(row["starts"], start=1):
        assert standing.epoch_index(row, start) == k
        assert standing.epoch_index(row, start - 1) == k - 1
    seen = [standing.epoch_index(row, p) for p in range(row["spaces"] + 1)]
    assert seen == sorted(seen)
    assert names[seen[-1]] == names[-1]  # the finish is in the last epoch


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_marker_epoch_matches_the_row(data):
    """For any row and any space on it, `epochs` reports the epoch the row puts the space in,
    and the next space's epoch likewise."""
    rb, civ, track, row = data.draw(st.sampled_from([p.values for p in ROWS]))
    position = data.draw(st.integers(0, row["spaces"]))
    names = [name for name, _ in rb.module.AST[track]["epochs"]]
    [t] = rb.epochs(track, [], {"civilization": civ, "ast_position": position, "cities": 9})
    m = t["marker"]
    assert m["epoch"] == names[standing.epoch_index(row, position)]
    if position < row["spaces"]:
        assert m["next_epoch"] == names[standing.epoch_index(row, position + 1)]
    else:
        assert m["next_space"] is None and m["move"] == "finished"


@pytest.mark.skipif(not REFERENCE.is_file(), reason="the shared reference folder is not on this machine")
def test_mega_rows_are_the_reference_table():
    """Read independently of the rulebook: every row of shared/reference/megaciv_ast_tracks.csv, at
    every space, gives the epoch `civdsl epoch` reports."""
    rb = civdsl.load("megaciv")
    with REFERENCE.open(encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 36
    for ref in table:
        names = [name for name, _ in rb.module.AST[ref["track"]]["epochs"]]
        civ = rb.module.CIVILIZATIONS[ref["civilization"]]
        assert civ["rank"] == int(ref["ast_rank"])
        assert civ["block"] == {"W": "west", "E": "east"}[ref["block"]]
        starts = [int(ref[c]) for c in EPOCH_COLUMNS]
        assert rb.module.AST[ref["track"]]["step_points"] == int(ref["vp_per_space"])
        for position in range(int(ref["spaces"]) + 1):
            expected = names[sum(1 for s in starts if position >= s)]
            [t] = rb.epochs(ref["track"], [], {"civilization": ref["civilization"], "ast_position": position})
            assert t["marker"]["epoch"] == expected, (ref["civilization"], ref["track"], position)


EITHER_OR = Path(__file__).resolve().parent / "fixtures" / "either_or.civ"


def test_or_requirement_shows_the_count_of_every_alternative():
    rb = civdsl.load(EITHER_OR)
    [t] = rb.epochs("basic", ["Monument"], {"civilization": "Hellas", "ast_position": 4, "cities": 1})
    [req] = t["marker"]["needs"]
    assert req["met"] is True
    plain, wonder = req["alternatives"]
    assert plain == [dict(plain[0], value=1, needs=">= 2", met=False)]
    assert [(p["value"], p["met"]) for p in wonder] == [(True, True), (1, True)]


def test_state_must_name_a_declared_civilization_and_a_space_on_its_row():
    rb = civdsl.load("megaciv")
    with pytest.raises(StateError, match="unknown civilization `Helas` \\(did you mean `Hellas`\\?\\)"):
        rb.epochs("basic", [], {"civilization": "Helas"})
    with pytest.raises(StateError, match="16 is beyond the finish of Hellas's row on `basic` \\(space 15\\)"):
        rb.epochs("basic", [], {"civilization": "Hellas", "ast_position": 16, "ast_track": "basic"})
    with pytest.raises(StateError, match="17 is beyond the finish of Hellas.s row on `expert` \\(space 16\\)"):
        rb.epochs("basic", [], {"civilization": "Hellas", "ast_position": 17})
    [t] = rb.epochs("basic", [], {"civilization": "Hellas", "ast_position": 16})  # on the expert side
    assert t["marker"]["unknown"] == "space 16 is beyond the finish of Basic A.S.T. (space 15)"
    with pytest.raises(StateError, match="unknown A.S.T. track `expret`"):
        rb.score([], {"ast_track": "expret"})


HOUSE = """language 1
edition rows "Expansion with printed rows" extends expansion
civilization "Crete" { rank 1 block west ast standard at 3, 6, 9, 12 }
"""


@pytest.fixture(scope="module")
def expansion_rows(tmp_path_factory):
    path = tmp_path_factory.mktemp("rows") / "rows.civ"
    path.write_text(HOUSE, encoding="utf-8")
    return civdsl.load(path)


def _marker(rb, position, cities, holds=()):
    [t] = rb.epochs("standard", list(holds), {"civilization": "Crete", "ast_position": position, "cities": cities})
    return t["marker"]


def test_expansion_frozen_marker_needs_the_epoch_cities_at_each_step(expansion_rows):
    # 34.31: in the Late Bronze Age (6-8) with 2 cities the marker may not advance within the epoch
    m = _marker(expansion_rows, 6, 2, ["Pottery", "Astronomy", "Music"])
    assert (m["epoch"], m["move"]) == ("Late Bronze Age", "stays")
    assert [r["requirement"] for r in m["needs"]] == ["three cities in play"]
    # the card requirement is an entry requirement only (34.11): inside the epoch 2 cards are enough
    m = _marker(expansion_rows, 6, 3, ["Pottery", "Astronomy"])
    assert m["move"] == "forward"
    # entering needs both
    m = _marker(expansion_rows, 5, 3, ["Pottery", "Astronomy"])
    assert (m["next_epoch"], m["move"]) == ("Late Bronze Age", "stays")


def test_expansion_backward_except_in_the_stone_age(expansion_rows):
    # 34.41: without cities the marker moves back one space, unless the player is in the Stone Age
    assert _marker(expansion_rows, 1, 0)["move"] == "forward"
    assert _marker(expansion_rows, 2, 0)["move"] == "stays"  # space 3 is the Early Bronze Age: two cities
    m = _marker(expansion_rows, 4, 0)
    assert (m["epoch"], m["move"], m["back_to"]) == ("Early Bronze Age", "back", 3)


def test_expansion_points_per_step(expansion_rows):
    result = expansion_rows.score([], {"civilization": "Crete", "ast_position": 7, "cities": 0, "treasury": 0,
                                       "commodities": {}})
    [line] = [p for p in result["points"] if "ast_space" in p]
    assert (line["ast_space"], line["points"]) == (7, 700)


# --- the commands: `civdsl epoch` answers for the player's own marker; `score` shows its space --

def test_epoch_command_answers_for_the_players_marker():
    out = run_cli("epoch", str(EITHER_OR), "--ast", "basic", "--holds", "Monument",
               "--set", "civilization=Hellas", "--set", "ast_position=4", "--set", "cities=1")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == [
        "Basic A.S.T. (Hellas)",
        "  your marker is on space 4 (Stone Age); to move to space 5 (Bronze Age) you need:",
        "    ok  2 cities: either 1 city (at least 2 needed), or Monument: yes and 1 city (at least 1 needed)",
        "  you meet it",
        "  the marker moves to space 5",
    ]


def test_wonder_of_the_world_is_counted_as_a_city_and_the_answer_shows_the_count():
    """004 ch 9 Wonder of the World "counts as a city during the A.S.T.-alteration phase" (its
    ability ast_cities(1)); phase 13 basic: Early Bronze Age needs 2 cities, Late Iron Age 5. Hellas
    on space 4 with 1 city and the Wonder counts 2 and moves to space 5; with 4 cities, Library,
    Democracy and the Wonder (three advances of 200 or more) the Late Iron Age is reached."""
    out = run_cli("epoch", "megaciv", "--ast", "basic", "--holds", "Wonder of the World",
               "--set", "civilization=Hellas", "--set", "ast_position=4", "--set", "cities=1")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == [
        "Basic A.S.T. (Hellas)",
        "  your marker is on space 4 (Stone Age); to move to space 5 (Early Bronze Age) you need:",
        "    ok  2 cities: 2 (at least 2 needed)",
        "  you meet it",
        "  the marker moves to space 5",
        "  counted for the A.S.T.: 2 cities (1 given + 1 for Wonder of the World)",
    ]
    rb = civdsl.load("megaciv")
    [t] = rb.epochs("basic", ["Wonder of the World", "Library", "Democracy"], {"cities": 4})
    assert t["reached"] == "Late Iron Age"
    assert t["counted"] == [{"fact": "cities", "given": 4, "value": 5,
                             "adds": [{"advance": "Wonder of the World", "delta": 1}]}]
    [t] = rb.epochs("basic", ["Library", "Democracy", "Mining"], {"cities": 4})
    assert t["reached"] == "Early Iron Age" and t["counted"] == []


def test_wonder_of_the_world_does_not_prevent_the_backward_step_and_an_unknown_count_stays_missing():
    """004 13a (expert): no cities on the board moves the marker back; the Wonder is no city on the
    board. Without `cities` the counted figure is unknown and `cities` is the missing fact."""
    rb = civdsl.load("megaciv")
    [t] = rb.epochs("expert", ["Wonder of the World"], {"civilization": "Hellas", "ast_position": 7, "cities": 0})
    assert t["moves_backward"] is True and t["counted"][0]["value"] == 1
    [t] = rb.epochs("expert", ["Wonder of the World"], {"civilization": "Hellas", "ast_position": 4})
    assert t["counted"][0]["value"] is None and t["missing_facts"] == ["cities"] and t["complete"] is False


def test_epoch_command_differs_by_position_and_says_why_the_marker_stays_or_falls_back():
    def lines(position, cities, track="basic"):
        out = run_cli("epoch", "megaciv", "--ast", track, "--set", "civilization=Minoa",
                   "--set", f"ast_position={position}", "--set", f"cities={cities}")
        assert out.exit_code == 0, out.output
        return out.output.splitlines()

    assert lines(1, 1) != lines(14, 1)
    assert lines(5, 1)[-2:] == ["  you lack 2 cities", "  the marker stays on space 5"]
    assert lines(7, 0, "expert")[-1] == "  the marker moves back to space 6 (no city)"
    assert lines(3, 0, "expert")[-2:] == ["  the marker moves to space 4", "  no step back in the Stone Age"]


def test_epoch_command_says_when_the_row_is_not_known():
    out = run_cli("epoch", "civ1981", "--set", "civilization=Crete", "--set", "ast_position=5", "--set", "cities=2")
    # where the marker goes depends on its epoch (the step inside one or into the Late Bronze Age),
    # which no row gives: the answer is incomplete and names the fact that would tell
    assert out.exit_code == 1, out.output
    assert out.output.splitlines()[0] == ("Archeological Succession Table: the epoch of your marker is not known: "
                                          "the rulebook gives no row on Archeological Succession Table for Crete")
    assert out.output.splitlines()[-1] == "  incomplete: the state does not give ast_epoch"


def test_score_command_shows_the_space_and_its_points():
    out = run_cli("score", "megaciv", "--set", "civilization=Hellas", "--set", "ast_position=10",
               "--set", "cities=5", "--set", "sole_leader=false", "--set", "tokens=20")
    assert out.exit_code == 0, out.output
    assert "A.S.T. position: space 10, 50 points" in out.output.splitlines()


def test_explain_a_civilization_lists_the_spaces_of_each_epoch():
    out = run_cli("explain", "megaciv", "Minoa")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert "A.S.T. ranking 1, block west" in lines
    assert "  Stone Age: spaces 1-5" in lines and "  Late Iron Age: spaces 15-16" in lines


def test_diff_shows_a_row_a_house_rule_adds(tmp_path):
    path = tmp_path / "rows.civ"
    path.write_text(HOUSE, encoding="utf-8")
    out = run_cli("diff", "expansion", str(path))
    assert out.exit_code == 0, out.output
    assert '  civilization "Crete": row on standard no row -> 3, 6, 9, 12' in out.output.splitlines()


@pytest.mark.parametrize("edition", ["megaciv", "expansion", "civ1981", "civ1980"])
def test_epoch_answers_in_words_never_operators(edition):
    """Each requirement says what is needed in words ("at least 2 needed"), never `>= 2`."""
    where = ["--set", "ast_position=7"] if edition == "megaciv" else []   # megaciv's next step has counts
    out = run_cli("epoch", edition, "--holds", "Pottery", "--set", "cities=3", *where)
    assert out.exit_code in (0, 1), out.output
    assert "needed" in out.output
    for operator in (">=", "<=", "==", "!=", " > ", " < ", "(needs"):
        assert operator not in out.output, out.output


def test_the_epochs_chart_says_what_wonder_of_the_world_adds_to_the_cities():
    from civdsl.charts import builders
    from civdsl.frontend import check_file
    from civdsl.resources import shipped_rulebooks

    ed = check_file(shipped_rulebooks()["megaciv"]).edition
    [table] = [t for t in builders.epochs_chart(ed).tables if t.slug == "epochs"]
    assert "Wonder of the World adds 1 to the cities the A.S.T. requirements count." in table.intro
    ed = check_file(shipped_rulebooks()["civ1981"]).edition
    [table] = [t for t in builders.epochs_chart(ed).tables if t.slug == "epochs"]
    assert not any("adds" in line for line in table.intro)
