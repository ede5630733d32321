"""Answers that say only what they know, ties settled as each printed text settles them, and
questions the rules allow to be asked (the one-player commands: epoch, resolve, score, hand)."""

import json
import re
from pathlib import Path

import pytest
from conftest import run_cli

import civdsl
from civdsl.resources import shipped_rulebooks

ROOT = Path(__file__).resolve().parents[1]
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def _json(*args) -> dict:
    return json.loads(run_cli(*args, "--json").output)


# --- ties: each edition's own precedence paragraph ------------------------------------------------

# the paragraph each edition gives for ties no other rule settles, and the words it uses
PRECEDENCE = {
    "civ1980": ("000", "62", "to resolve ties, players should always move in the order listed on the Progress Chart"),
    "civ1981": ("001", "5.3", "A.S.T. order is also used to resolve all ties between the nations"),
    "expansion": ("002", "16.4", "resolve all ties between the nations except conflict"),
    "megaciv": ("004", "Chapter 3", "it is resolved in A.S.T.-ranking order"),
}
_TIES = re.compile(r'^\s*beneficiary_ties (\w+)(?: "([^"]*)")?', re.M)


def _tie_readings(edition: str) -> list[tuple[str, str | None]]:
    return _TIES.findall((ROOT / "rulebooks" / f"{edition}.civ").read_text(encoding="utf-8"))


@pytest.mark.parametrize("edition", sorted(PRECEDENCE))
def test_every_tie_reading_cites_its_paragraph_and_follows_the_edition_precedence(edition):
    _, paragraph, _ = PRECEDENCE[edition]
    readings = _tie_readings(edition)
    assert readings, f"{edition} records no tie reading"
    for value, why in readings:
        assert why and not why.startswith("Reading"), f"{edition}: `beneficiary_ties {value}` cites no paragraph"
        if value == "ast":  # the general rule: it names the edition's precedence paragraph
            assert why.startswith(paragraph), f"{edition}: `beneficiary_ties ast` does not cite {paragraph}: {why}"
        else:  # an exception only where the calamity's own paragraph says the victim decides
            assert "decides between tied players" in why, f"{edition}: `beneficiary_ties {value}` without its text"


@pytest.mark.parametrize("edition", sorted(PRECEDENCE))
def test_the_cited_precedence_paragraph_is_in_the_seed(edition):
    seed, _, words = PRECEDENCE[edition]
    paths = list(SEEDS.glob(f"{seed}_*.txt"))
    if not paths:
        pytest.skip("seed texts not present")
    assert words in paths[0].read_text(encoding="utf-8")


def test_the_printed_editions_have_no_victims_choice_of_ties():
    # 1980 62 and 1981 5.3 settle every tie by the order of the nations; neither Civil War text
    # (52.5, 22.2.6.4) gives the victim the choice between players tied for most tokens in stock
    for edition in ("civ1980", "civ1981"):
        assert [v for v, _ in _tie_readings(edition)] == ["ast"]
        assert civdsl.load(edition).module.CALAMITIES["Civil War"]["resolution"]["beneficiary_ties"] == ("ast",)


# --- epoch: the track the game uses ----------------------------------------------------------------

def test_epoch_answers_only_for_the_track_the_state_says_is_in_play():
    data = _json("epoch", "megaciv", "--set", "ast_track=expert", "--set", "cities=3")
    assert [t["track"] for t in data["tracks"]] == ["expert"]
    assert run_cli("epoch", "megaciv", "--set", "ast_track=expert", "--set", "cities=3").output.startswith(
        "Expert A.S.T.: the requirements are met up to")
    # `--ast` still asks about another track on purpose
    data = _json("epoch", "megaciv", "--ast", "basic", "--set", "ast_track=expert", "--set", "cities=3")
    assert [t["track"] for t in data["tracks"]] == ["basic"]


@pytest.mark.parametrize("edition", [e for e in shipped_rulebooks() if civdsl.load(e).module.AST])
def test_every_rulebook_epoch_answer_honours_ast_track(edition):
    tracks = list(civdsl.load(edition).module.AST)
    for track in tracks:
        data = _json("epoch", edition, "--set", f"ast_track={track}", "--set", "cities=1")
        assert [t["track"] for t in data["tracks"]] == [track]


def test_epoch_refuses_an_epoch_the_track_does_not_have():
    out = run_cli("epoch", "expansion", "--set", "ast_position=5", "--set", "ast_epoch=Bronze Age")
    assert out.exit_code == 1
    assert "ast_epoch: `Bronze Age` is no epoch of A.S.T.; it has: Stone Age, Early Bronze Age" in out.output


def test_epoch_text_says_when_the_step_back_is_not_known():
    out = run_cli("epoch", "expansion", "--set", "ast_position=5", "--set", "cities=0")
    assert out.exit_code == 1
    lines = out.output.splitlines()
    assert "  whether the marker moves back is not known" in lines
    assert lines[-1] == "  incomplete: the state does not give ast_epoch"
    out = run_cli("epoch", "expansion", "--set", "ast_position=12", "--set", "cities=0")
    assert out.exit_code == 0 and "  the marker moves back a step" in out.output.splitlines()


# --- table: who benefits ---------------------------------------------------------------------------

def _table_phase(edition: str, data: dict):
    from civdsl.table import load_table
    from civdsl.table import resolve_phase

    return resolve_phase(load_table(civdsl.load(edition), data=data))


def test_a_cancelled_civil_war_names_no_beneficiary():
    # 30.4112: the victim with the most unit points in stock (6 cities and 25 tokens: 55) has no civil war
    data = {"players": [{"name": "a", "cities": 3, "tokens": 30, "cities_in_stock": 6, "tokens_in_stock": 25},
                        {"name": "b", "cities": 3, "tokens": 20, "cities_in_stock": 2, "tokens_in_stock": 10},
                        {"name": "c", "cities": 3, "tokens": 20, "cities_in_stock": 1, "tokens_in_stock": 10}],
            "borders": {"near": [["a", "b"], ["a", "c"]]},
            "calamities": [{"calamity": "Civil War", "victim": "a"}]}
    phase = _table_phase("expansion", data)
    [resolved] = phase.resolved
    assert resolved.primary.is_cancelled and resolved.beneficiary is None
    assert phase.complete
    data["players"][0].update(cities_in_stock=0, tokens_in_stock=5)  # 5 unit points to b's 20: the war goes ahead
    [resolved] = _table_phase("expansion", data).resolved
    assert not resolved.primary.is_cancelled and resolved.beneficiary.name == "b"


def test_a_ranking_of_one_candidate_asks_no_facts():
    # 30.811: the players sharing a land border with the victim; with only one, his stock is not asked
    data = {"players": [{"name": "a", "cities": 4, "tokens": 30}, {"name": "b", "cities": 3, "tokens": 20},
                        {"name": "c", "cities": 3, "tokens": 20}],
            "borders": {"land": [["a", "b"]]},
            "calamities": [{"calamity": "Tyranny", "victim": "a"}]}
    phase = _table_phase("expansion", data)
    [resolved] = phase.resolved
    assert (resolved.beneficiary.name, resolved.beneficiary.why) == ("b", "the only candidate bordering the victim by land")
    assert phase.complete, phase.missing_facts


# --- hand: calamity cards held -----------------------------------------------------------------------

def test_a_1981_hand_may_hold_calamity_cards_worth_nothing_in_trade():
    # 16.6: calamity cards have a point value of 0 in trade
    out = run_cli("hand", "civ1981", "--cards", "Grain x2, Civil War")
    assert out.exit_code == 0, out.output
    assert "  Civil War x1 (calamity card): 0  (worth nothing in trade)" in out.output.splitlines()
    data = _json("hand", "civ1981", "--cards", "Grain x2, civil war")
    assert data["total"] == 16 and data["calamities"] == [{"calamity": "Civil War", "cards": 1, "value": 0}]


@pytest.mark.parametrize("edition", ["civ1980", "expansion", "megaciv"])
def test_every_edition_with_calamity_cards_in_the_trade_deck_values_them(edition):
    calamity = next(iter(civdsl.load(edition).module.CALAMITIES))
    data = _json("hand", edition, "--cards", calamity)
    assert data["total"] == 0 and data["calamities"][0]["calamity"] == calamity


def test_a_misspelt_card_is_still_refused():
    out = run_cli("hand", "civ1981", "--cards", "Grain x2, Civil Wor")
    assert out.exit_code == 1 and "unknown commodity `Civil Wor`" in out.output


def test_the_card_games_tie_readings_cite_their_phase_or_say_they_are_readings():
    text = (ROOT / "rulebooks" / "cardgame.civ").read_text(encoding="utf-8")
    notes = [n for n in re.findall(r'note "([^"]*)"', text) if re.search(r"\bwins? ties\b", n)]
    assert len(notes) == 2
    for note in notes:
        assert note.startswith("Phase 4, Battles & Casualties") or "(reading:" in note, note


def test_a_hostile_ast_epoch_is_refused_in_a_message_of_bounded_length():
    out = run_cli("epoch", "expansion", "--set", "ast_position=3", "--set", "ast_epoch=" + "x" * 100_000)
    assert out.exit_code == 1 and "x" * 77 + "..." in out.output and len(out.output) < 1000
