"""Every recorded reading of an ambiguous text is a declared rule option: the default reading is
the rulebook's, the other one answers when the option is switched on, each with a worked number."""

from pathlib import Path

import pytest

import civdsl
from civdsl.frontend import check_file
from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
CYCLONE_HOLDS = ["Masonry", "Calendar", "Trade Empire"]


def _taken(rb, calamity, role, holds, state):
    r = rb.resolve(calamity, role, holds, state).to_dict()
    return {e["kind"]: e.get("taken", e.get("amount")) for e in r["effects"]}


def test_expansion_cyclone_prevention_spares_exposed_cities_by_default_and_lowers_the_amount_as_the_option():
    rb = civdsl.load("expansion")
    # two cities beside the sea, 3 + 1 (Trade Empire) to reduce: by default both are selected and
    # Masonry and Calendar spare both; on the other reading 4 - 3 = 1 is reduced
    state = {"cities_adjacent_open_sea": 2, "ships": 0, "players": 3}
    assert _taken(rb, "Cyclone", "primary", CYCLONE_HOLDS, state)["reduce_cities"] == 0
    other = dict(state, options={"cyclone_prevention_on_amount": "on"})
    assert _taken(rb, "Cyclone", "primary", CYCLONE_HOLDS, other)["reduce_cities"] == 1


def test_expansion_prevent_floor_add_order_reduces_a_city_where_additions_and_preventions_together_spare_it():
    rb = civdsl.load("expansion")
    # a secondary victim: 2 - 1 - 2 + 1 = 0 together; prevented first, 2 - 3 = -1 floors to 0, then +1 = 1
    state = {"cities_adjacent_open_sea": 5, "ships": 0, "options": {"cyclone_prevention_on_amount": "on"}}
    assert _taken(rb, "Cyclone", "secondary", CYCLONE_HOLDS, state)["reduce_cities"] == 0
    state["options"]["prevent_floor_add"] = "on"
    r = rb.resolve("Cyclone", "secondary", CYCLONE_HOLDS, state).to_dict()
    assert {e["kind"]: e["amount"] for e in r["effects"]}["reduce_cities"] == 1
    ops = [(t["op"], t["kind"], t["before"], t["after"]) for t in r["trace"] if t["kind"] == "reduce_cities"]
    assert ops == [("prevent", "reduce_cities", 2, 1), ("prevent", "reduce_cities", 1, -1),
                   ("floor", "reduce_cities", -1, 0), ("add", "reduce_cities", 0, 1)]


def _civil_war_at_table(options: dict):
    from civdsl.table import load_table
    from civdsl.table import resolve_phase

    rb = civdsl.load("expansion")
    data = {"players": [{"name": "victim", "unit_points": 60, "cities_in_stock": 4, "tokens_in_stock": 0},
                        {"name": "Assyria", "cities_in_stock": 2, "tokens_in_stock": 10},
                        {"name": "Crete", "cities_in_stock": 4, "tokens_in_stock": 0}],
            "borders": {"near": [["victim", "Assyria"], ["victim", "Crete"]]},
            "calamities": [{"calamity": "Civil War", "victim": "victim", "beneficiary": "Crete"}],
            "options": options}
    return resolve_phase(load_table(rb, data=data)).resolved[0].primary.to_dict()


def test_expansion_civil_war_tie_goes_ahead_by_default_and_is_cancelled_as_the_option():
    # 20 unit points in stock each (4 cities x 5): a tie with Crete
    assert _civil_war_at_table({})["cancelled"] is False
    assert _civil_war_at_table({"civil_war_tie_cancels": "on"})["cancelled"] is True


def test_megaciv_first_game_start_credits_by_default_and_none_as_the_option():
    rb = civdsl.load("megaciv")
    state = {"players": 5, "scenario": "The First Game"}
    # 5 players: one 10-point credit token of each colour; Pottery costs 60 (chapter 4)
    assert rb.cost([], ["Pottery"], state)["total"] == 50
    state["options"] = {"first_game_without_start_credits": "on"}
    assert rb.cost([], ["Pottery"], state)["total"] == 60


ORDER_BASE = '''language 1
edition t "T"
group crafts "Crafts"
option {opt} "the other reading" off
amounts {{
  floor zero "floored at the end"
  order prevent, floor, add, set, cap when {use} "prevent, floor, then add"
}}
'''


def _diagnostics(tmp_path, text: str) -> list:
    path = tmp_path / "t.civ"
    path.write_text(text, encoding="utf-8")
    return check_file(path).diagnostics.items


def test_an_amounts_setting_switched_by_an_undeclared_option_is_an_error_with_did_you_mean(tmp_path):
    diags = _diagnostics(tmp_path, ORDER_BASE.format(opt="prevent_floor_add", use="prevent_flor_add"))
    errors = [d for d in diags if d.code == "CIV080"]
    assert errors and "prevent_flor_add" in errors[0].message and "prevent_floor_add" in (errors[0].help or "")


def test_an_option_that_switches_an_amounts_setting_is_read(tmp_path):
    diags = _diagnostics(tmp_path, ORDER_BASE.format(opt="prevent_floor_add", use="prevent_floor_add"))
    assert not [d for d in diags if d.code in ("CIV080", "CIV081")]


def test_order_lists_add_and_prevent_once_together_or_apart(tmp_path):
    bad = ORDER_BASE.format(opt="x", use="x").replace("prevent, floor, add, set, cap", "prevent, add_prevent, set, cap")
    diags = _diagnostics(tmp_path, bad)
    assert any(d.code == "CIV080" and "`order`" in d.message for d in diags)


def test_resolve_switches_a_reading_per_question_with_option():
    args = ["resolve", "expansion", "Cyclone", "--holds", ",".join(CYCLONE_HOLDS),
            "--set", "cities_adjacent_open_sea=2", "--set", "ships=0", "--set", "players=3"]
    default = run_cli(*args)
    other = run_cli(*args, "--option", "cyclone_prevention_on_amount=on")
    assert "0 taken" in default.stdout
    assert "reduce 1 city next to the open sea" in other.stdout


def test_the_calamities_chart_lists_every_rule_option_with_its_default_and_switch():
    from civdsl.charts import builders
    from civdsl.resources import rulebooks_dir

    ed = check_file(rulebooks_dir() / "expansion.civ").edition
    options, = [t for t in builders.calamities_chart(ed).tables if t.slug == "options"]
    rows = [[c.plain() for c in r.cells] for r in options.rows]
    assert len(rows) == len(ed.options)
    assert ["--option cyclone_prevention_on_amount=on", "off"] == rows[1][:2]
    assert rows[1][3] == "prevention amount (Cyclone)"


@pytest.mark.parametrize("edition, card, groups", [("megaciv", "Written Record", "sciences, arts"),
                                                   ("expansion", "Written Record", "sciences, arts"),
                                                   ("civ1981", "Mysticism", "arts, crafts"),
                                                   ("civ1980", "Pottery", "arts")])
def test_a_card_moved_to_another_colour_group_breaks_an_assert(tmp_path, edition, card, groups):
    path = tmp_path / "moved.civ"
    path.write_text(f'language 1\nedition moved "Moved" extends {edition}\n'
                    f'change advance "{card}" {{ groups {groups} }}\n', encoding="utf-8")
    failed = [d for d in check_file(path).diagnostics.items if d.code == "CIV042"]
    assert failed, f"{card} moved to {groups} passed every assert of {edition}"


def _hand_sets(rb, options: dict) -> dict:
    # an East nation (Arabia) at a 12-player table redeems three Wool and three Grain (face 4)
    state = {"players": 12, "civilization": "Arabia", "options": options}
    report = rb.hand({"Wool": 3, "Grain": 3}, state)
    return {row["commodity"]: (row["value"], row.get("off_block", False)) for row in report["sets"]}


def test_expansion_wool_is_west_by_default_and_grain_west_as_the_option():
    """9.1 marks Wool West and Grain shared; 14.33 lists Grain in the West set (Wool then shared).
    Off-block a set of 3 is worth 3 x 3 x 4 + 3 x 4 = 48, at home 3 x 3 x 4 = 36 (28.53)."""
    rb = civdsl.load("expansion")
    assert _hand_sets(rb, {}) == {"Wool": (48, True), "Grain": (36, False)}
    assert _hand_sets(rb, {"wool_grain_by_14_33": "on"}) == {"Wool": (36, False), "Grain": (48, True)}


def test_a_commodity_block_under_an_undeclared_option_is_an_error(tmp_path):
    diags = _diagnostics(tmp_path, 'language 1\nedition t "T"\noption other_block "the other reading" off\n'
                         'commodity "Wool" { value 4 count 7 stack 4 block west block shared when other_blok }\n')
    errors = [d for d in diags if d.code == "CIV013"]
    assert len(errors) == 1 and "other_blok" in errors[0].message and "other_block" in (errors[0].help or "")


# --- Mega Civilization 13d: the victory point band of a card costing exactly 200 -----------------

VP_BAND_200 = ROOT / "tests" / "fixtures" / "vp_band_200.civ"  # Library at 200 (printed 220)


def test_megaciv_13d_cost_200_scores_6_by_default_and_3_as_the_option():
    """13d: 3 VP for a cost "between 100 and 200", 6 VP for "more than 200"; the tiers read 200 as
    6 VP (the default), word for word it is 3 (option vp_cost_200_is_3). Library at 200 scores 6
    or 3; the tie-breaks count it among the 6-VP or the 3-VP advances; 220 scores 6 either way."""
    rb = civdsl.load(VP_BAND_200)
    state = {"cities": 0, "ast_position": 0}

    def score(holds, options):
        r = rb.score(holds, dict(state, options=options))
        lines = {p["label"]: p["points"] for p in r["points"]}
        ties = {t["label"]: t["value"] for t in r["tiebreaks"]}
        return lines["Civilization advances"], ties["Advances worth 6 VP"], ties["Advances worth 3 VP"]

    assert score(["Library"], {}) == (6, 1, 0)
    assert score(["Library"], {"vp_cost_200_is_3": "on"}) == (3, 0, 1)
    assert score(["Library", "Pottery"], {"vp_cost_200_is_3": "on"}) == (4, 0, 1)
    printed = civdsl.load("megaciv")  # Library at its printed 220: no reading changes it
    assert printed.score(["Library"], dict(state, options={"vp_cost_200_is_3": "on"}))["total"] == 6


def test_the_vp_band_option_switches_the_expert_epochs_victory_point_requirement():
    """Expert Middle Bronze Age: "5 Victory Points in Civilization Advances" (phase 13). Library at
    200 alone counts 6 by default (met) and 3 as the option (not met)."""
    rb = civdsl.load(VP_BAND_200)
    facts = {"cities": 3}
    [t] = rb.epochs("expert", ["Library"], facts)
    assert t["reached"] == "Middle Bronze Age"
    [t] = rb.epochs("expert", ["Library"], dict(facts, options={"vp_cost_200_is_3": "on"}))
    assert t["reached"] == "Early Bronze Age"


def test_score_and_plan_switch_the_vp_band_per_question_with_option():
    base = ["score", str(VP_BAND_200), "--holds", "Library", "--set", "cities=0", "--set", "ast_position=0"]
    assert "Civilization advances: 6" in run_cli(*base).stdout
    assert "Civilization advances: 3" in run_cli(*base, "--option", "vp_cost_200_is_3=on").stdout
    plan = ["plan", str(VP_BAND_200), "--set", "treasury=200", "--set", "players=6", "--objective", "vp"]
    assert "buy Cloth Making, Library: 7 VP" in run_cli(*plan).stdout
    other = run_cli(*plan, "--option", "vp_cost_200_is_3=on").stdout
    assert "Library" not in other.split("plan:")[1].splitlines()[1] and ": 5 VP" in other


def test_the_page_engine_scores_the_vp_band_as_the_python_engine():
    from companion_harness import cli_answer, first_difference, js_answers, node_available

    if not node_available():
        pytest.skip("Node.js is not installed")
    queries = [{"command": "score", "state": {"cities": 0, "ast_position": 0}, "options": {"holds": ["Library"],
                                                                                              "option": option}}
               for option in ({}, {"vp_cost_200_is_3": True})]
    got = js_answers(str(VP_BAND_200), queries)
    assert [g["total"] for g in got] == [6, 3]
    for query, answer in zip(queries, got):
        assert first_difference(cli_answer(str(VP_BAND_200), query), answer) is None
    # the plan's vp objective: Python's planner and plan.js choose alike under each reading
    from civdsl.plan import plan

    plans = [{"command": "plan", "state": {"treasury": 200, "players": 6}, "options": {"objective": "vp", "option": o}}
             for o in ({}, {"vp_cost_200_is_3": True})]
    for query, answer in zip(plans, js_answers(str(VP_BAND_200), plans)):
        python = plan(str(VP_BAND_200), dict(query["state"], options=query["options"]["option"]),
                      objective_spec="vp")
        assert answer["plans"][0]["buy"] == python["plans"][0]["buy"]
        assert answer["plans"][0]["objective"] == python["plans"][0]["objective"] == (7 if not query["options"]["option"] else 5)


def test_the_advances_and_calamities_charts_list_the_vp_band_option():
    from civdsl.charts import builders
    from civdsl.resources import rulebooks_dir

    ed = check_file(rulebooks_dir() / "megaciv.civ").edition
    for chart in (builders.advances_chart(ed), builders.calamities_chart(ed)):
        options, = [t for t in chart.tables if t.slug == "options"]
        rows = {r.cells[0].plain(): [c.plain() for c in r.cells] for r in options.rows}
        row = rows["--option vp_cost_200_is_3=on"]
        assert row[1] == "off" and row[3] == "vp tiers below 100: 1, below 201: 3, else: 6"


def test_vp_tiers_under_an_undeclared_option_is_an_error_with_did_you_mean(tmp_path):
    diags = _diagnostics(tmp_path, 'language 1\nedition t "T"\noption vp_cost_200_is_3 "the other reading" off\n'
                         'vp tiers { below 100: 1, below 200: 3, else: 6 }\n'
                         'vp tiers when vp_cost_200_is3 { below 100: 1, below 201: 3, else: 6 }\n')
    errors = [d for d in diags if d.code == "CIV013"]
    assert len(errors) == 1 and "vp_cost_200_is3" in errors[0].message and "vp_cost_200_is_3" in (errors[0].help or "")


def test_a_house_rule_that_moves_a_vp_band_under_the_option_shows_in_the_diff(tmp_path):
    path = tmp_path / "bands.civ"
    path.write_text('language 1\nedition bands "Bands" extends megaciv\n'
                    "vp tiers when vp_cost_200_is_3 { below 100: 1, below 250: 3, else: 6 }\n", encoding="utf-8")
    out = run_cli("diff", "megaciv", str(path)).stdout
    assert ("vp tiers when vp_cost_200_is_3 { below 100: 1, below 201: 3, else: 6 } -> "
            "vp_cost_200_is_3 { below 100: 1, below 250: 3, else: 6 }") in out
