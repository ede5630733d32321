"""Options and names (issue 13, part 5): `--option NAME=on|off` on every question command, an
option no rule reads is a warning (CIV081), and 1981's optional calamity floor (24.1) works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

import civdsl

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("question", [
    ["resolve", "civ1981", "Epidemic", "--set", "unit_points=20"],
    ["cost", "civ1981", "--buy", "Pottery"],
    ["epoch", "civ1981", "--set", "cities=3"],
    ["score", "civ1981", "--set", "cities=3", "--set", "ast_position=2"],
    ["hand", "civ1981", "--cards", "Grain x2"],
    ["plan", "civ1981", "--set", "treasury=10"],
    ["table", "civ1981", "examples/table-1981.yaml"],
])
def test_every_question_command_takes_an_option_and_refuses_an_unknown_one(question):
    ok = run_cli(*question, "--option", "calamity_floor=on")
    assert "unknown option" not in ok.output and "No such option" not in ok.output, ok.output
    bad = run_cli(*question, "--option", "calamity_flor=on")
    assert bad.exit_code == 1 and "unknown option `calamity_flor` (did you mean `calamity_floor`?)" in bad.output
    wrong = run_cli(*question, "--option", "calamity_floor=maybe")
    assert wrong.exit_code == 1 and "write NAME=on or NAME=off" in wrong.output


def test_the_1981_calamity_floor_caps_losses_at_the_unit_points_above_15():
    on = json.loads(run_cli("resolve", "civ1981", "Flood", "--set", "unit_points=18", "--set", "flood_plain_units=9",
                         "--option", "calamity_floor=on", "--json").output)
    assert on["effects"][0]["taken"] == 3  # 17 demanded, capped at 18 - 15, then bounded by the 9 on the plain
    off = json.loads(run_cli("resolve", "civ1981", "Flood", "--set", "unit_points=18", "--set", "flood_plain_units=9",
                          "--json").output)
    assert off["effects"][0]["taken"] == 9


def test_options_in_a_state_file(tmp_path):
    state = tmp_path / "s.yaml"
    state.write_text("unit_points: 17\noptions: {calamity_floor: on}\n")
    out = json.loads(run_cli("resolve", "civ1981", "Epidemic", "--state", str(state), "--json").output)
    assert out["effects"][0]["amount"] == 2


def test_an_option_no_rule_reads_is_a_warning_unless_acknowledged():
    from civdsl.frontend import check_file
    from civdsl.resources import shipped_rulebooks

    checked = check_file(shipped_rulebooks()["civ1981"])
    notes = [d for d in checked.diagnostics.items if d.code == "CIV081"]
    assert [(d.level, d.item) for d in notes] == [("note", "africa_iron_age_entry")]
    assert civdsl.load("civ1981").module.OPTIONS == {"calamity_floor": False, "africa_iron_age_entry": False,
                                                     "revolt_cities_revert": False, "tax_whole_cities": False}


# --- names: every declared name, aka included, in any case --------------------------------------

def test_a_calamity_by_its_aka_name_in_any_case():
    rb = civdsl.load("civ1981")
    assert rb.calamity_name("iconoclasm & heresy") == "Iconoclasm and Heresy"
    assert rb.calamity_name("PIRACY") == "Piracy"
    assert civdsl.load("expansion").calamity_name("volcanic eruption or earthquake") == \
        civdsl.load("expansion").module.ALIASES["calamity"]["Volcanic Eruption or Earthquake"]


def test_advances_and_commodities_by_aka_in_every_command():
    out = run_cli("cost", "civ1981", "--buy", "drama & poetry", "--holds", "MYSTICISM", "--json")
    assert json.loads(out.output)["items"][0]["advance"] == "Drama and Poetry"
    hand = json.loads(run_cli("hand", "civ1981", "--cards", "spices x2", "--json").output)
    assert [s["commodity"] for s in hand["sets"]] == ["Spice"]
    state = civdsl.load("civ1981").state(["drama & poetry"], {"holds": ["pottery"], "commodities": {"SPICES": 2}})
    assert state.held == ("Drama and Poetry", "Pottery") and state.facts["commodities"] == {"Spice": 2}


def test_did_you_mean_considers_aka_names_and_whole_words():
    volcano = run_cli("resolve", "megaciv", "Volcano")
    assert volcano.exit_code == 1 and "did you mean `Volcanic Eruption or Earthquake`?" in volcano.output
    heresy = run_cli("resolve", "civ1981", "Iconoclasm & Heresi")
    assert "did you mean `Iconoclasm & Heresy`, that is `Iconoclasm and Heresy`?" in heresy.output
    spice = run_cli("hand", "civ1980", "--cards", "Spise x2")
    assert spice.exit_code == 1 and "did you mean `Spice" in spice.output


def test_assigned_amount_is_at_most_the_per_player_amount_and_only_for_secondary_victims():
    rb = civdsl.load("megaciv")
    assert rb.resolve("Epidemic", "secondary", [], {}, assigned=3).amount("damage") == 3
    with pytest.raises(civdsl.StateError, match="at most"):
        rb.resolve("Epidemic", "secondary", [], {}, assigned=99)
    with pytest.raises(civdsl.StateError, match="--role secondary"):
        rb.resolve("Epidemic", "primary", [], {}, assigned=3)


def test_plan_takes_an_option_and_the_rules_it_switches_change_the_plan(tmp_path):
    # a house rule whose start credits are an option: switched on, the plan counts them
    path = tmp_path / "credits_option.civ"
    path.write_text('''language 1
edition credits_option "Start credits as an option" extends megaciv
option start_bonus "house rule: every player starts with credits" off
start credits start_credits_by_players(players) unless not start_bonus
''', encoding="utf-8")
    base = ["plan", str(path), "--set", "players=5", "--set", "treasury=60", "--json"]
    off = json.loads(run_cli(*base).output)
    on = json.loads(run_cli(*base, "--option", "start_bonus=on").output)
    assert on["plans"][0] != off["plans"][0]
    bad = run_cli(*base, "--option", "start_bonus=maybe")
    assert bad.exit_code == 1
    unknown = run_cli(*base, "--option", "start_bonsu=on")
    assert unknown.exit_code == 1 and "did you mean `start_bonus`?" in unknown.output
    # the start credits a switched option grants count in `cost` as well (the option reaches the rule)
    cost = json.loads(run_cli("cost", str(path), "--buy", "Cloth Making", "--set", "players=5", "--option",
                           "start_bonus=on", "--json").output)
    assert cost["items"][0]["price"] == 40


# --- one name however its accents are typed (NFC and NFD) ---------------------------------------

NFC_NAME, NFD_NAME = "Caf\u00e9", "Cafe\u0301"


@pytest.fixture
def accented(tmp_path):
    """mini.civ whose Pottery is written `Café` in NFC where declared and in NFD where used."""
    mini = (Path(__file__).resolve().parent / "fixtures" / "mini.civ").read_text(encoding="utf-8")
    text = mini.replace('advance "Pottery"', f'advance "{NFC_NAME}"', 1).replace('"Pottery"', f'"{NFD_NAME}"')
    path = tmp_path / "accented.civ"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_rulebook_names_an_item_in_nfc_or_nfd_alike(accented):
    from civdsl.frontend import check_file

    checked = check_file(accented)
    assert checked.ok, checked.diagnostics.render()
    assert NFC_NAME in checked.edition.advances and NFD_NAME not in checked.edition.advances


@pytest.mark.parametrize("spelling", [NFC_NAME, NFD_NAME])
def test_states_and_arguments_name_an_item_in_nfc_or_nfd_alike(accented, tmp_path, spelling):
    import civdsl

    rb = civdsl.load(accented)
    assert rb.cost([spelling], ["Agriculture"])["items"][0]["price"] < rb.cost([], ["Agriculture"])["items"][0]["price"]
    state = tmp_path / "state.yaml"
    state.write_text(f'holds: ["{spelling}"]\n', encoding="utf-8")
    proc = run_cli("cost", str(accented), "--buy", spelling, "--state", str(state))
    assert "Traceback" not in proc.stderr and "unknown advance" not in proc.stderr, proc.stderr
    proc = run_cli("cost", str(accented), "--buy", "Agriculture", "--holds", spelling)
    assert proc.returncode == 0, proc.stderr


def test_the_page_engine_reads_names_in_nfc_as_the_command_line_does(accented):
    """The companion's engine API answers a question naming an item with decomposed accents as
    the Python engine does (both read names in NFC), in the state, in `holds` and as the calamity."""
    from companion_harness import cli_answer, js_answers, node_available

    if not node_available():
        pytest.skip("Node is not installed")
    queries = [{"command": "resolve", "calamity": "Famine", "role": "primary", "options": {"holds": [NFD_NAME]},
                "state": {"cities": 3}},
               {"command": "score", "state": {"holds": [NFD_NAME], "cities": 2}, "options": {}},
               {"command": "epoch", "state": {"holds": [NFD_NAME]}, "options": {"holds": NFD_NAME}}]
    answers = js_answers(accented, queries)
    for query, got in zip(queries, answers):
        assert "error" not in got, got
        assert got == cli_answer(accented, query)
    resolved = js_answers(accented, [{**queries[0], "options": {}}])[0]
    assert resolved != answers[0]  # holding the advance changes the Famine: the name was found
