"""The table (issue 13 §3): the calamity phase of every player at once, `civdsl table`, with the
beneficiary, limits, order and secondary victims each edition declares in `resolution { ... }`."""

from __future__ import annotations

import re
import json
from pathlib import Path

import pytest
import yaml

import civdsl
from civdsl.errors import StateError
from civdsl.table import load_table, table_schema
from civdsl.table import resolve_phase
from conftest import run_cli

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "table.yaml"


def _example() -> dict:
    return yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))


def _phase(edition: str, data: dict, seed=None):
    return resolve_phase(load_table(civdsl.load(edition), data=data), seed)


def _player(name, **facts):
    return {"name": name, **facts}


def _calamity(phase, name):
    return next(r for r in phase.resolved if r.calamity == name)


# --- the file -----------------------------------------------------------------------------------

def test_the_table_schema_file_is_derived_from_the_state_schema():
    from civdsl.schemas import load_schema

    assert load_schema("table.schema.json") == table_schema()
    player = table_schema()["properties"]["players"]["items"]["properties"]
    assert {"name", "ast_rank", "cities_in_stock", "holds", "commodities"} <= set(player)


def test_the_example_table_is_valid_by_the_schema_and_by_the_loader():
    from civdsl.schemas import validate_table

    assert validate_table(_example()) == []
    table = load_table(civdsl.load("megaciv"), EXAMPLE)
    assert list(table.players) == ["anna", "bruno", "chloe", "dario", "eva"]
    assert table.ranks["chloe"] == 1  # Minoa is first on the A.S.T.
    assert table.borders["land"]["bruno"] == {"anna", "chloe"}


@pytest.mark.parametrize("data, schema_says_bad", [
    ({"players": [{"name": "a", "cities": 2}]}, False),
    ({"players": [{"name": "a", "citys": 2}]}, True),
    ({"players": [{"cities": 2}]}, True),
    ({"players": [{"name": "a"}], "bordres": {}}, True),
    ({"players": [{"name": "a"}, {"name": "b"}], "borders": {"lnd": [["a", "b"]]}}, True),
    ({"players": [{"name": "a"}], "calamities": [{"calamity": "Famine"}]}, True),
])
def test_the_schema_and_the_loader_agree(data, schema_says_bad):
    from civdsl.schemas import validate_table

    assert bool(validate_table(data)) == schema_says_bad
    if schema_says_bad:
        with pytest.raises(StateError):
            load_table(civdsl.load("megaciv"), data=data)
    else:
        load_table(civdsl.load("megaciv"), data=data)


def test_every_problem_of_a_table_file_is_named_with_its_place_and_the_closest_name():
    data = _example()
    data["players"][1]["citys"] = 3
    data["calamities"][0]["victim"] = "ana"
    data["calamities"][1]["calamity"] = "civil wr"
    data["borders"]["land"].append(["anna", "zed"])
    data["optoins"] = {}
    with pytest.raises(StateError) as err:
        load_table(civdsl.load("megaciv"), "t.yaml", data=data)
    text = str(err.value)
    assert "t.yaml: unknown key `optoins` (did you mean `options`?)" in text
    assert "t.yaml: players[1] (bruno): unknown key `citys` (did you mean `cities`?)" in text
    assert "t.yaml: calamities[0] (Epidemic): `victim`: unknown player `ana` (did you mean `anna`?)" in text
    assert "t.yaml: calamities[1]: calamity: unknown calamity `civil wr` (did you mean `Civil War`?)" in text
    assert "t.yaml: borders.land[3]: unknown player `zed`" in text


def test_players_load_through_the_state_loader_so_start_credits_count():
    data = {"players": [_player(f"p{i}") for i in range(5)]}
    table = load_table(civdsl.load("megaciv"), data=data)
    # five players: Mega Civilization's start credits of 10 per group (a one-player `cost` gives the same)
    assert table.states["p0"].facts["players"] == 5
    assert table.states["p0"].start_credits["per_group"] == 10


def test_aka_names_and_any_case_name_a_calamity():
    data = {"players": [_player("a"), _player("b")], "calamities": [{"calamity": "volcanic eruption or earthquake",
                                                                     "victim": "a"}]}
    assert load_table(civdsl.load("megaciv"), data=data).calamities[0]["calamity"] == "Volcanic Eruption or Earthquake"


# --- the beneficiary by the edition's declared rule ------------------------------------------------

def test_megaciv_beneficiary_is_the_trader_else_most_cities_then_tokens_in_stock_then_ast():
    phase = _phase("megaciv", _example())
    epidemic = _calamity(phase, "Epidemic")
    assert epidemic.beneficiary.name == "chloe"  # she traded it to anna
    assert _calamity(phase, "Treachery").beneficiary.name == "chloe"  # she traded it to eva, too
    civil_war = _calamity(phase, "Civil War")
    # bruno and dario both have 5 cities in stock; dario has 22 tokens in stock to bruno's 10
    assert civil_war.beneficiary.name == "dario"
    assert civil_war.beneficiary.why == "most cities in stock 5, then tokens in stock 22"


def test_megaciv_ties_in_stock_go_to_the_first_in_ast_order_never_to_the_victim():
    data = _example()
    data["players"][1]["tokens_in_stock"] = 22  # bruno (Babylon, rank 6) ties dario (Hellas, rank 15)
    phase = _phase("megaciv", data)
    assert _calamity(phase, "Civil War").beneficiary.name == "bruno"
    data["calamities"] = [{"calamity": "Treachery", "victim": "bruno"}]
    assert _calamity(_phase("megaciv", data), "Treachery").beneficiary.name == "dario"


def test_a_stock_the_table_does_not_give_leaves_the_beneficiary_unknown_and_the_answer_incomplete():
    data = _example()
    del data["players"][3]["cities_in_stock"]
    phase = _phase("megaciv", data)
    assert _calamity(phase, "Civil War").beneficiary.name is None
    assert "players.dario.cities_in_stock" in phase.missing_facts and not phase.complete


# --- secondary victims ------------------------------------------------------------------------------

def test_each_secondary_victim_suffers_the_amount_assigned_with_his_own_advances():
    phase = _phase("megaciv", _example())
    epidemic = _calamity(phase, "Epidemic")
    taken = {name: r.amount("damage") for name, _, r in epidemic.secondary}
    assert taken == {"bruno": 5, "eva": 10}  # bruno holds Anatomy: 10 - 5
    data = _example()
    data["calamities"][0]["secondary"] = {"bruno": 6, "eva": 4}
    epidemic = _calamity(_phase("megaciv", data), "Epidemic")
    assert {name: r.amount("damage") for name, _, r in epidemic.secondary} == {"bruno": 1, "eva": 4}


@pytest.mark.parametrize("secondary, message", [
    ({"bruno": 11, "eva": 10}, "suffers at most 10"),
    ({"chloe": 10, "eva": 10}, "chloe, who may not be a secondary victim: the beneficiary"),
    ({"bruno": 10, "eva": 10, "dario": 10}, "names 3 players, but the primary victim assigns to 2"),
])
def test_an_assignment_beyond_the_rules_is_an_error(secondary, message):
    data = _example()
    data["calamities"][0]["secondary"] = secondary
    with pytest.raises(StateError, match=message):
        _phase("megaciv", data)


def test_secondary_losses_not_assigned_by_the_table_leave_the_answer_incomplete_in_megaciv():
    data = _example()
    del data["calamities"][0]["secondary"]
    phase = _phase("megaciv", data)
    assert "calamities[0].secondary" in phase.missing_facts
    assert _calamity(phase, "Epidemic").secondary == []


# --- limits and order -------------------------------------------------------------------------------

def _many(*names, victim="anna"):
    return [{"calamity": n, "victim": victim} for n in names]


def test_megaciv_discards_duplicates_first_then_at_random_down_to_three_with_two_major():
    # chapter 8, example 2: Superstition twice, Tyranny, Squandered Wealth, Coastal Migration
    data = _example()
    data["calamities"] = _many("Superstition", "Superstition", "Tyranny", "Squandered Wealth", "Coastal Migration")
    phase = _phase("megaciv", data, seed=1)
    assert [d.why for d in phase.discarded][0] == "duplicate"
    kept = [r.calamity for r in phase.resolved]
    assert len(kept) == 3 and sum(1 for k in kept if k in ("Superstition", "Tyranny")) <= 2
    assert len(set(kept)) == 3
    # the same seed draws the same cards; every seed keeps the limits
    assert [r.calamity for r in _phase("megaciv", data, seed=1).resolved] == kept
    for seed in range(12):
        kept = [r.calamity for r in _phase("megaciv", data, seed=seed).resolved]
        assert len(kept) == 3 and sum(1 for k in kept if k in ("Superstition", "Tyranny")) <= 2


def test_megaciv_example_1_three_majors_lose_one_at_random():
    data = _example()
    data["calamities"] = _many("Famine", "Treachery", "Barbarian Hordes")
    phase = _phase("megaciv", data, seed=3)
    assert len(phase.discarded) == 1 and phase.discarded[0].why == "random"
    assert len(phase.resolved) == 2


def test_megaciv_resolves_minor_first_then_by_stack_nontradable_first_then_ast():
    data = _example()
    data["calamities"] = (_many("Epidemic", victim="anna") + _many("Cyclone", victim="eva")
                          + _many("Squandered Wealth", victim="bruno") + _many("Treachery", victim="dario")
                          + _many("Treachery", victim="chloe"))
    data["calamities"][0]["secondary"] = ["bruno", "eva"]
    order = [(r.calamity, r.victim) for r in _phase("megaciv", data).resolved]
    assert order == [("Squandered Wealth", "bruno"), ("Treachery", "chloe"), ("Treachery", "dario"),
                     ("Cyclone", "eva"), ("Epidemic", "anna")]


# --- the command ------------------------------------------------------------------------------------

def test_the_command_prints_each_calamity_with_its_trace_and_each_players_outcome():
    result = run_cli("table", "megaciv", str(EXAMPLE))
    assert result.exit_code == 0, result.output
    assert "beneficiary: dario (most cities in stock 5, then tokens in stock 22)" in result.output
    assert "beneficiary: chloe (the player who traded the calamity to the victim)" in result.output
    assert "prevent 5 Anatomy: 10 \u2192 5" in result.output
    assert "Outcome by player" in result.output
    assert ("  chloe: beneficiary of Treachery | Civil War (primary): the beneficiary annexes all but 35 unit points"
            " | beneficiary of Epidemic") in result.output


def test_the_command_in_json_and_an_incomplete_answer_exits_1(tmp_path):
    result = run_cli("table", "megaciv", str(EXAMPLE), "--json")
    data = json.loads(result.output)
    assert result.exit_code == 0 and data["command"] == "table" and data["rulebook"] == "megaciv"
    assert data["complete"] and [c["calamity"] for c in data["calamities"]][0] == "Treachery"
    broken = _example()
    del broken["calamities"][0]["secondary"]
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(broken), encoding="utf-8")
    for extra in ([], ["--json"]):
        result = run_cli("table", "megaciv", str(path), *extra)
        assert result.exit_code == 1 and "calamities[0].secondary" in result.output


def test_the_command_names_an_unknown_calamity_with_did_you_mean_and_shows_only_the_one_asked():
    result = run_cli("table", "megaciv", str(EXAMPLE), "--calamity", "epidemc")
    assert result.exit_code == 1 and "did you mean `Epidemic`?" in result.output
    only = json.loads(run_cli("table", "megaciv", str(EXAMPLE), "--calamity", "epidemic", "--json").output)
    assert [c["calamity"] for c in only["calamities"]] == ["Epidemic"]


def test_a_bad_table_file_is_a_user_error_never_a_traceback(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("players: [{name: a, cities: -1}]\n", encoding="utf-8")
    result = run_cli("table", "megaciv", str(path))
    assert result.exit_code == 1 and "`cities` cannot be below 0" in result.output
    assert "Traceback" not in result.output
    path.write_text("players: [\n", encoding="utf-8")
    result = run_cli("table", "megaciv", str(path), "--json")
    assert result.exit_code == 1 and json.loads(result.output)["error"]["kind"] == "user"


# --- every edition declares its phase ------------------------------------------------------------

@pytest.mark.parametrize("edition", ["megaciv", "expansion", "civ1981", "civ1980"])
def test_every_shipped_edition_declares_its_table_rules(edition):
    rules = civdsl.load(edition).module.TABLE_RULES
    assert rules["lines"]["order"] and rules["lines"]["assign"] and rules["lines"]["discard"]
    assert rules["limit"] is not None or rules["major_limit"] is not None


def _table(edition, names, calamities, **player_facts):
    return {"players": [_player(n, **player_facts) for n in names], "calamities": calamities}


def test_civ1981_keeps_the_two_lowest_calamities_and_enacts_them_in_ascending_order():
    # 19.7: more than 2 calamities: he keeps the 2 lowest; 19.6: enacted from Volcanic Eruption (2) to Piracy (9)
    calamities = [{"calamity": n, "victim": "a"} for n in ("Piracy", "Flood", "Volcanic Eruption or Earthquake")]
    data = _table("civ1981", ["a", "b", "c"], calamities + [{"calamity": "Civil Disorder", "victim": "b"}],
                  unit_points=30, cities=3, tokens=15)
    data["calamities"][0]["secondary"] = []
    phase = _phase("civ1981", data)
    assert [(d.calamity, d.why) for d in phase.discarded] == [("Piracy", "highest_stack")]
    assert [r.calamity for r in phase.resolved] == ["Volcanic Eruption or Earthquake", "Flood", "Civil Disorder"]


def test_expansion_keeps_two_non_minor_and_one_minor_calamity_drawn_at_random():
    # 29.5: three non-minor and two minor: two and one are drawn at random, the rest disregarded
    names = ["Famine", "Superstition", "Flood", "Squandered Wealth", "Banditry"]
    data = _table("expansion", ["a", "b"], [{"calamity": n, "victim": "a"} for n in names])
    for seed in range(6):
        phase = _phase("expansion", data, seed=seed)
        classes = [civdsl.load("expansion").calamities[r.calamity]["class"] for r in phase.resolved]
        assert len(phase.discarded) == 2 and all(d.why == "random" for d in phase.discarded)
        assert classes.count("minor") == 1 and len(classes) == 3
        # 29.61: minor calamities first
        assert classes[0] == "minor"


def test_expansion_29_63_the_trader_of_an_epidemic_is_no_secondary_victim():
    # Crete draws Epidemic and trades it to Egypt: Egypt loses 16 unit points, and Crete is immune
    # from the secondary effects as the player who traded it
    players = ["Egypt", "Crete", "Babylon", "Assyria"]
    data = _table("expansion", players, [{"calamity": "Epidemic", "victim": "Egypt", "traded_by": "Crete",
                                          "secondary": {"Babylon": 10, "Assyria": 10}}], cities=4, tokens=20)
    epidemic = _calamity(_phase("expansion", data), "Epidemic")
    assert epidemic.primary.amount("damage") == 16
    assert {n: r.amount("damage") for n, _, r in epidemic.secondary} == {"Babylon": 10, "Assyria": 10}
    data["calamities"][0]["secondary"] = {"Crete": 10, "Babylon": 10}
    with pytest.raises(StateError, match="Crete, who may not be a secondary victim: the trader"):
        _phase("expansion", data)
    # had Crete not traded it, it would have been the primary victim, and every other player a
    # potential secondary victim: Egypt among them
    data["calamities"] = [{"calamity": "Epidemic", "victim": "Crete", "secondary": {"Egypt": 10, "Babylon": 10}}]
    epidemic = _calamity(_phase("expansion", data), "Epidemic")
    assert epidemic.primary.amount("damage") == 16
    assert [n for n, _, _ in epidemic.secondary] == ["Egypt", "Babylon"]


def test_expansion_share_assignments_are_checked_against_the_share():
    data = _table("expansion", ["a", "b", "c", "d"], [{"calamity": "Epidemic", "victim": "a",
                                                       "secondary": {"b": 10, "c": 10, "d": 10}}], cities=2, tokens=20)
    with pytest.raises(StateError, match="assigns 30, more than the 25 to share"):
        _phase("expansion", data)
    data["calamities"][0]["secondary"] = ["b", "c"]
    with pytest.raises(StateError, match="must say how much each player is assigned"):
        _phase("expansion", data)


def test_expansion_tyranny_beneficiary_is_the_land_neighbour_with_most_stock_points_ties_by_the_victim():
    # 30.811-30.812: among land neighbours, cities count five and tokens one
    data = {"players": [_player("egypt", cities=4, tokens=10), _player("africa", cities_in_stock=1, tokens_in_stock=7),
                        _player("babylon", cities_in_stock=2, tokens_in_stock=3),
                        _player("crete", cities_in_stock=9, tokens_in_stock=40)],
            "borders": {"land": [["egypt", "africa"], ["egypt", "babylon"]], "water": [["egypt", "crete"]]},
            "calamities": [{"calamity": "Tyranny", "victim": "egypt"}]}
    tyranny = _calamity(_phase("expansion", data), "Tyranny")
    assert tyranny.beneficiary.candidates == ["africa", "babylon"]  # crete borders only by water
    assert tyranny.beneficiary.name == "babylon" and tyranny.primary.amount("annex_unit_points") == 8
    data["players"][1]["tokens_in_stock"] = 8  # 13 each: the victim decides
    phase = _phase("expansion", data)
    assert "calamities[0].beneficiary" in phase.missing_facts
    data["calamities"][0]["beneficiary"] = "africa"
    assert _calamity(_phase("expansion", data), "Tyranny").beneficiary.name == "africa"
    data["calamities"][0]["beneficiary"] = "crete"
    with pytest.raises(StateError, match="not among the tied candidates"):
        _phase("expansion", data)


def test_a_relation_the_table_does_not_give_is_named_not_guessed():
    data = {"players": [_player("egypt", cities=4), _player("africa")],
            "calamities": [{"calamity": "Tyranny", "victim": "egypt"}]}
    phase = _phase("expansion", data)
    assert "borders.land" in phase.missing_facts


def test_civ1980_civil_war_nominee_is_named_by_the_table():
    data = _table("civ1980", ["a", "b", "c"], [{"calamity": "Civil War", "victim": "a"}], unit_points=40)
    phase = _phase("civ1980", data)
    assert "calamities[0].beneficiary" in phase.missing_facts
    data["calamities"][0]["beneficiary"] = "c"
    assert _calamity(_phase("civ1980", data), "Civil War").beneficiary.name == "c"


def test_the_readme_worked_example_is_what_the_command_prints(monkeypatch):
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n\$ civdsl table megaciv examples/table.yaml\n(.*?)```", readme, re.S)
    monkeypatch.chdir(ROOT)
    result = run_cli("table", "megaciv", "examples/table.yaml")
    assert result.exit_code == 0
    assert result.output == block.group(1)
    # the example shows the declared rules at work: a duplicate discarded, a city destroyed
    # because the trader has none in stock, a secondary victim's own advance
    assert "discarded: dario's Superstition (one of two of the same name)" in result.output
    assert "eva (primary victim):\n     destroy 1 city" in result.output


def test_a_house_rule_may_use_a_table_query(tmp_path):
    # a kinder Famine for a player surrounded by land: one land neighbour fewer than two halves it
    path = tmp_path / "lonely_famine.civ"
    path.write_text('''language 1
edition lonely_famine "Lonely famine" extends megaciv
change calamity "Famine" {
  when neighbours(by=land) < 2 for primary { prevent damage 5 }
}
''', encoding="utf-8")
    rb = civdsl.load(path)
    data = _example()
    data["players"][0]["holds"] = ["Medicine"]  # not Pottery, which prevents 5 of it too
    data["calamities"] = [{"calamity": "Famine", "victim": "anna", "secondary": []},
                          {"calamity": "Famine", "victim": "bruno", "secondary": []}]
    phase = resolve_phase(load_table(rb, data=data))
    # anna borders only bruno by land (10 - 5); bruno borders anna and chloe (the full 10)
    assert {r.victim: r.primary.amount("damage") for r in phase.resolved} == {"anna": 5, "bruno": 10}
    # asked of one player alone, the rule cannot be decided: the answer says so
    alone = rb.resolve("Famine", holds=[], state={"unit_points": 30})
    assert alone.to_dict()["missing_facts"] == ["other_players"]


def test_a_house_rule_redeclares_the_phase_assigning_unnamed_losses_in_ast_order(tmp_path):
    path = tmp_path / "auto_assign.civ"
    path.write_text('''language 1
edition auto_assign "Automatic assignment" extends megaciv
const calamity_cap = 1
resolution {
  limit calamity_cap "house rule: one calamity a turn"
  assign ast "house rule: unassigned losses go to the first players in A.S.T. order"
}
''', encoding="utf-8")
    rb = civdsl.load(path)
    assert rb.module.TABLE_RULES["limit"] == 1 and rb.module.TABLE_RULES["major_limit"] == 2  # the base's
    data = _example()
    data["calamities"] = [{"calamity": "Epidemic", "victim": "anna", "traded_by": "chloe"},
                          {"calamity": "Famine", "victim": "anna"}]
    phase = resolve_phase(load_table(rb, data=data), seed=2)
    assert len(phase.resolved) == 1 and len(phase.discarded) == 1
    epidemic = resolve_phase(load_table(rb, data={**data, "calamities": data["calamities"][:1]}))
    r = _calamity(epidemic, "Epidemic")
    # A.S.T. order: chloe (Minoa, 1; the beneficiary, excluded), eva (Saba, 2), bruno (Babylon, 6)
    assert [(n, a) for n, a, _ in r.secondary] == [("eva", None), ("bruno", None)]
    assert epidemic.complete


def test_the_language_reference_lists_the_resolution_settings_and_table_queries():
    from civdsl import vocabulary as vocab

    docs = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert vocab.resolution_settings_markdown() in docs
    for f in vocab.FUNCTIONS.values():
        if f.scope == "table":
            assert f"`{f.name}(" in docs and f.doc in docs


def test_megaciv_a_player_suffers_a_calamity_name_once_a_turn():
    # phase 9b (12-18 players, two copies of a calamity): no secondary victim of a name while
    # primary victim of it, nor twice, nor while its beneficiary. dario's (Hellas, 15) resolves
    # before anna's (Egypt, 17) in A.S.T. order.
    data = _example()
    data["calamities"] = [
        {"calamity": "Epidemic", "victim": "dario", "traded_by": "chloe", "secondary": {"bruno": 10, "anna": 10}},
        {"calamity": "Epidemic", "victim": "anna", "secondary": {}},
    ]
    with pytest.raises(StateError, match="names anna, who may not be a secondary victim: already a victim or the "
                                         "beneficiary of a Epidemic this turn"):
        _phase("megaciv", data)  # anna is the primary victim of the other Epidemic
    data["calamities"][0]["secondary"] = {"bruno": 10, "eva": 10}
    for second, who in (({"bruno": 10}, "bruno"), ({"chloe": 10}, "chloe")):
        data["calamities"][1]["secondary"] = second  # bruno was a secondary victim, chloe the beneficiary
        with pytest.raises(StateError, match=f"names {who}, who may not be a secondary victim: already"):
            _phase("megaciv", data)
    data["calamities"][1]["secondary"] = {}
    assert len(_phase("megaciv", data).resolved) == 2


def test_diff_names_the_phase_rules_a_house_rule_changes(tmp_path):
    path = tmp_path / "strict_table.civ"
    path.write_text('''language 1
edition strict_table "Strict table" extends megaciv
const calamity_cap = 2
resolution { limit calamity_cap  assign ast }
change calamity "Iconoclasm and Heresy" { resolution { beneficiary_among land } }
''', encoding="utf-8")
    result = run_cli("diff", "megaciv", str(path))
    assert "resolution limit calamity_limit -> calamity_cap" in result.output
    assert "resolution assign ask -> ast" in result.output
    assert "Iconoclasm and Heresy: resolution the edition's -> beneficiary_among land" in result.output


@pytest.mark.parametrize("entry, message", [
    ({"calamity": "Superstition", "victim": "anna", "secondary": ["bruno"]}, "Superstition has none"),
    ({"calamity": "Famine", "victim": "anna", "beneficiary": "bruno", "secondary": []}, "the rule has no beneficiary"),
    ({"calamity": "Civil War", "victim": "chloe", "beneficiary": "bruno"},
     "`beneficiary` is bruno, but the rule names dario (most cities in stock 5, then tokens in stock 22)"),
])
def test_a_choice_the_rules_do_not_leave_to_the_victim_is_an_error(entry, message):
    data = _example()
    data["calamities"] = [entry]
    with pytest.raises(StateError, match=re.escape(message)):
        _phase("megaciv", data)


def test_expansion_barbarians_drawn_are_controlled_by_the_player_with_fewest_cities_even_the_victim():
    # 30.521: the trader controls them; if not traded, the player with the fewest cities, even the victim
    data = {"players": [_player("egypt", cities=2, edge_units=5, civilization="Egypt"),
                        _player("crete", cities=3, civilization="Crete"),
                        _player("arabia", cities=2, civilization="Arabia")],
            "calamities": [{"calamity": "Barbarian Hordes", "victim": "egypt"}]}
    hordes = _calamity(_phase("expansion", data), "Barbarian Hordes")
    # egypt and arabia tie at 2 cities: A.S.T. order (our reading) puts Arabia (2) before Egypt (18)
    assert hordes.beneficiary.candidates == ["egypt", "crete", "arabia"]
    assert hordes.beneficiary.name == "arabia" and hordes.beneficiary.why.startswith("fewest cities 2")
    data["players"][2]["cities"] = 4
    assert _calamity(_phase("expansion", data), "Barbarian Hordes").beneficiary.name == "egypt"
    data["calamities"][0]["traded_by"] = "crete"
    assert _calamity(_phase("expansion", data), "Barbarian Hordes").beneficiary.name == "crete"


def test_a_player_whose_facts_are_wrong_is_reported_once_not_wherever_he_is_named():
    result = run_cli("table", "expansion", str(EXAMPLE))  # Minoa, Hellas and Saba are Mega Civilization's
    assert result.exit_code == 1
    assert "players[2] (chloe): `civilization` names unknown civilization `Minoa`" in result.output
    assert "unknown player" not in result.output


# --- Mega Civilization, separate trade-card blocks (12-18 players) ------------------------------------
# Phase 9b: the beneficiary and the secondary victims of a non-tradable calamity come from the
# victim's own block (`beneficiary_among same_block`, `secondary_among same_block`); tradable ones
# from either block; with fewer than 12 players one block is played (`separate_blocks`).

MEGA_CIVS = ["Minoa", "Saba", "Assyria", "Maurya", "Celt", "Babylon", "Carthage", "Dravidia", "Hatti", "Kushan",
             "Rome", "Persia"]  # west, east, west, east, ...


def _blocks_table(n=12, calamities=()):
    players = [_player(f"p{i}", civilization=MEGA_CIVS[i], cities=4, tokens=20, unit_points=40, cities_in_stock=2,
                       tokens_in_stock=10, holds=[]) for i in range(n)]
    players[1]["cities_in_stock"] = 7  # p1 (Saba, east): the most cities in stock of the whole table
    players[2]["cities_in_stock"] = 5  # p2 (Assyria, west): the most of the west block after the victim
    return {"players": players, "calamities": list(calamities)}


def test_megaciv_non_tradable_beneficiary_comes_from_the_victims_block_with_12_players():
    data = _blocks_table(12, [{"calamity": "Civil War", "victim": "p0"}, {"calamity": "Tyranny", "victim": "p4"}])
    phase = _phase("megaciv", data)
    civil_war = _calamity(phase, "Civil War")
    assert civil_war.beneficiary.name == "p2"  # Saba's 7 cities in stock are in the other block
    assert civil_war.beneficiary.candidates == ["p2", "p4", "p6", "p8", "p10"]
    assert _calamity(phase, "Tyranny").beneficiary.name == "p2"
    # a tradable calamity not traded: the beneficiary may come from either block
    data["calamities"] = [{"calamity": "Epidemic", "victim": "p0", "secondary": {"p3": 10, "p5": 10}}]
    assert _calamity(_phase("megaciv", data), "Epidemic").beneficiary.name == "p1"


def test_megaciv_with_fewer_than_12_players_one_block_is_played():
    data = _blocks_table(11, [{"calamity": "Civil War", "victim": "p0"}])
    assert _calamity(_phase("megaciv", data), "Civil War").beneficiary.name == "p1"


def test_megaciv_non_tradable_secondary_victims_come_from_the_victims_block():
    data = _blocks_table(12, [{"calamity": "Famine", "victim": "p0", "secondary": ["p2", "p4", "p6"]}])
    assert [n for n, _, _ in _calamity(_phase("megaciv", data), "Famine").secondary] == ["p2", "p4", "p6"]
    data["calamities"][0]["secondary"] = ["p2", "p3"]
    with pytest.raises(StateError, match=r"names p3, who may not be a secondary victim: not among the victim's "
                                         r"same_block players \(`secondary_among same_block`\)"):
        _phase("megaciv", data)
    # with one block (11 players) p3 may be named
    data = _blocks_table(11, [{"calamity": "Famine", "victim": "p0", "secondary": ["p2", "p3"]}])
    assert [n for n, _, _ in _calamity(_phase("megaciv", data), "Famine").secondary] == ["p2", "p3"]


def test_megaciv_a_victim_without_a_block_leaves_the_beneficiary_unknown():
    data = _blocks_table(12, [{"calamity": "Civil War", "victim": "p0"}])
    del data["players"][0]["civilization"]
    data["players"][0]["ast_rank"] = 1
    phase = _phase("megaciv", data)
    assert _calamity(phase, "Civil War").beneficiary.name is None
    assert "players.p0.block" in phase.missing_facts
    data["players"][0]["block"] = "east"
    assert _calamity(_phase("megaciv", data), "Civil War").beneficiary.name == "p1"


# --- 1981 and 1980 Civil War: the nominee -----------------------------------------------------------
# 1981 22.2.6.2: a player with no tokens on the board must be the nominee if there is one
# (`nominee_without tokens`); 22.2.6.4 and 1980 52.5: with Philosophy, the player with most tokens
# in stock, possibly the victim himself (`nominee_forced_if Philosophy`, `beneficiary_rank tokens_in_stock`).

def _civil_war(edition, **victim):
    data = _table(edition, ["a", "b", "c", "d"], [{"calamity": "Civil War", "victim": "a"}],
                  unit_points=40, tokens=20, tokens_in_stock=10)
    data["players"][0].update(victim)
    return data


@pytest.mark.parametrize("edition", ["civ1981", "civ1980"])
def test_the_nominee_is_any_other_player_the_table_names(edition):
    data = _civil_war(edition)
    assert "calamities[0].beneficiary" in _phase(edition, data).missing_facts
    data["calamities"][0]["beneficiary"] = "c"
    assert _calamity(_phase(edition, data), "Civil War").beneficiary.name == "c"
    data["calamities"][0]["beneficiary"] = "a"
    with pytest.raises(StateError, match=r"`beneficiary` a may not be the nominee: the rule "
                                         r"`beneficiary_among others` allows only b, c, d"):
        _phase(edition, data)


def test_civ1981_a_player_with_no_tokens_on_the_board_is_the_nominee():
    data = _civil_war("civ1981")
    data["players"][2]["tokens"] = 0
    ben = _calamity(_phase("civ1981", data), "Civil War").beneficiary
    assert (ben.name, ben.why) == ("c", "`nominee_without tokens`: no tokens (the only one)")
    assert _phase("civ1981", data).complete
    data["calamities"][0]["beneficiary"] = "b"
    with pytest.raises(StateError, match=r"`beneficiary` is b, but the rule names c \(`nominee_without tokens`"):
        _phase("civ1981", data)
    # two without tokens: the victim chooses one of them
    data["players"][3]["tokens"] = 0
    with pytest.raises(StateError, match=r"the rule `nominee_without tokens`: no tokens allows only c, d"):
        _phase("civ1981", data)
    data["calamities"][0]["beneficiary"] = "d"
    assert _calamity(_phase("civ1981", data), "Civil War").beneficiary.name == "d"
    del data["calamities"][0]["beneficiary"]
    assert "calamities[0].beneficiary" in _phase("civ1981", data).missing_facts


def test_civ1980_has_no_rule_for_players_without_tokens():
    data = _civil_war("civ1980")
    data["players"][2]["tokens"] = 0
    data["calamities"][0]["beneficiary"] = "b"
    assert _calamity(_phase("civ1980", data), "Civil War").beneficiary.name == "b"


@pytest.mark.parametrize("edition", ["civ1981", "civ1980"])
def test_with_philosophy_the_nominee_is_the_player_with_most_tokens_in_stock_possibly_the_victim(edition):
    data = _civil_war(edition, holds=["Mysticism", "Law", "Philosophy"], tokens_in_stock=12)
    data["players"][3]["tokens_in_stock"] = 15
    data["players"][2]["tokens"] = 0  # 1981: Philosophy takes precedence over 22.2.6.2 (reading)
    ben = _calamity(_phase(edition, data), "Civil War").beneficiary
    assert ben.name == "d" and ben.why.startswith("`nominee_forced_if Philosophy`: the victim holds Philosophy")
    data["calamities"][0]["beneficiary"] = "c"
    with pytest.raises(StateError, match=r"`beneficiary` is c, but the rule names d \(`nominee_forced_if Philosophy`"):
        _phase(edition, data)
    data["players"][3]["tokens_in_stock"] = 10
    del data["calamities"][0]["beneficiary"]
    assert _calamity(_phase(edition, data), "Civil War").beneficiary.name == "a"  # himself (12)
    # a tie for most tokens in stock: settled in A.S.T. order (1980 62: the Progress Chart's order,
    # as for equal stocks in a Revolt; 1981 5.3: A.S.T. order resolves all ties but winning and
    # conflict), never by the victim's choice
    data["players"][1]["tokens_in_stock"] = 12
    assert {"players.a.ast_rank", "players.b.ast_rank"} <= set(_phase(edition, data).missing_facts)
    data["players"][0]["ast_rank"], data["players"][1]["ast_rank"] = 9, 1  # a is Egypt, b is Africa
    phase = _phase(edition, data)
    ben = _calamity(phase, "Civil War").beneficiary
    assert ben.name == "b" and ben.why.endswith("most tokens in stock 12: tied with a, first in A.S.T. order")
    assert phase.complete
    data["calamities"][0]["beneficiary"] = "a"  # the victim may not pick himself over the first in order
    with pytest.raises(StateError, match=r"`beneficiary` is a, but the rule names b"):
        _phase(edition, data)


def test_a_house_rule_lets_a_block_calamity_name_a_beneficiary_from_either_block(tmp_path):
    # the docs/house-rules.md example: `change calamity` repeats `beneficiary_among` as its own exception
    path = tmp_path / "open_blocks.civ"
    path.write_text('''language 1
edition open_blocks "Open blocks" extends megaciv
change calamity "Civil War" { resolution { beneficiary_among others } }
''', encoding="utf-8")
    data = _blocks_table(12, [{"calamity": "Civil War", "victim": "p0"}])
    assert _calamity(resolve_phase(load_table(civdsl.load(path), data=data)), "Civil War").beneficiary.name == "p1"


def test_the_command_locates_a_nominee_against_the_rule_in_the_table_file(tmp_path):
    path = tmp_path / "t.yaml"
    data = _civil_war("civ1981")
    data["players"][2]["tokens"] = 0
    data["calamities"][0]["beneficiary"] = "b"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = run_cli("table", "civ1981", str(path))
    assert result.exit_code != 0
    assert f"{path}: calamities[0] (Civil War): `beneficiary` is b, but the rule names c (`nominee_without tokens`" \
        in result.output


def test_a_house_rules_table_cites_the_file_that_holds_the_line():
    house = str(Path(__file__).resolve().parents[1] / "rulebooks" / "house" / "gentle.civ")
    result = run_cli("table", house, str(EXAMPLE))
    head = result.output.split("\n\n")[0]
    assert "[rulebooks/megaciv.civ:" in head and "gentle.civ:" not in head, head


def test_the_victims_missing_facts_are_named_as_every_other_players():
    data = {"players": [_player("P1", cities=3, tokens=10), _player("P2", cities=1),
                        _player("P3", cities=1, tokens_in_stock=3)],
            "calamities": [{"calamity": "Flood", "victim": "P1"}, {"calamity": "Civil War", "victim": "P3"}]}
    missing = _phase("civ1980", data).missing_facts
    assert "players.P1.flood_plain_units" in missing and "players.P3.unit_points" in missing
    assert not [m for m in missing if "." not in m and "[" not in m]  # no bare fact of an unnamed player


# --- discarding from a large hand --------------------------------------------------------------

def _discards_by_list(module, rules, held, rng):
    """The discards as taking one card at a time from a list would make them (the reference the
    O(n log n) discards must equal): max() or a random index, then list.remove."""
    from civdsl.table.resolving import _is_major

    out, left = [], list(held)
    for limit, chosen in ((rules["major_limit"], lambda c: _is_major(module, c["calamity"])),
                          (rules["minor_limit"], lambda c: not _is_major(module, c["calamity"])),
                          (rules["limit"], lambda c: True)):
        pool = [c for c in left if chosen(c)]
        while limit is not None and len(pool) > limit:
            if rng is not None:
                gone = pool[rng.randrange(len(pool))]
            else:
                gone = max(pool, key=lambda c: (module.CALAMITIES[c["calamity"]]["stack"] or 0, c["index"]))
            pool.remove(gone)
            left.remove(gone)
            out.append(gone)
    return out


@pytest.mark.parametrize("edition", ["civ1980", "civ1981", "expansion", "megaciv"])
def test_large_hands_are_discarded_as_one_card_at_a_time_would(edition):
    """Highest stack and at random, on random hands of 0 to 60 calamities: the same cards, in the
    same order, as max()/randrange and list.remove one card at a time (with the same seed)."""
    import random

    from civdsl.table.resolving import _over_limits

    module = civdsl.load(edition).module
    names = list(module.CALAMITIES)
    rules = module.TABLE_RULES
    draw = random.Random(7)
    for _ in range(60):
        held = [{"calamity": draw.choice(names), "victim": "a", "index": i} for i in range(draw.randrange(61))]
        for rng_seed in (None, draw.randrange(1000)):
            new_rng = None if rng_seed is None else random.Random(rng_seed)
            old_rng = None if rng_seed is None else random.Random(rng_seed)
            assert _over_limits(module, rules, held, new_rng) == _discards_by_list(module, rules, held, old_rng)


def test_discarding_from_a_huge_hand_reads_each_card_a_bounded_number_of_times():
    """16,000 calamities against one victim (a 0.6 MB table file): the highest-stack discard reads
    each card's stack a few times, not once per card discarded (quadratic: 40 s before)."""
    import types

    from civdsl.table.resolving import _over_limits

    module = civdsl.load("civ1980").module
    reads = [0]

    class Counting(dict):
        def __getitem__(self, name):
            reads[0] += 1
            return dict.__getitem__(self, name)

    counted = types.SimpleNamespace(CALAMITIES=Counting(module.CALAMITIES))
    names = list(module.CALAMITIES)
    n = 16_000
    held = [{"calamity": names[i % len(names)], "victim": "a", "index": i} for i in range(n)]
    gone = _over_limits(counted, module.TABLE_RULES, held, None)
    assert len(gone) == n - module.TABLE_RULES["limit"]
    assert reads[0] < 10 * n, reads[0]


def test_a_player_s_fact_is_read_again_from_a_new_state_of_his():
    from civdsl.table.seating import NotSeated, Table

    rb = civdsl.load("megaciv")
    players = {"anna": rb.state([], {"cities": 3}), "bruno": rb.state([], {"cities": 5})}
    built = []
    table = Table(rb, {}, {"anna": 1, "bruno": 2}, {}, [], {}, names=["anna", "bruno"],
                  build=lambda name: built.append(name) or players[name])
    assert table.value("anna", "cities") == 3 and table.players == ["anna", "bruno"] and built == ["anna"]
    players["anna"] = rb.state([], {"cities": 1})  # her state after a calamity took two cities
    assert table.value("anna", "cities") == 3  # read as built until the table is told
    table.changed(["anna"])
    assert table.value("anna", "cities") == 1
    assert table.value("bruno", "cities") == 5
    assert built == ["anna", "anna", "bruno"]
    with pytest.raises(NotSeated):
        table.state("chloe")  # not seated: never built
