"""The player state's copies (civdsl/playerstate.py): what a copy for one question and a copy with
one fact changed share with the state they copy, and what they keep apart. The page runs the same
class translated (tests/test_companion_equality.py compares every answer)."""

from __future__ import annotations

import pytest

from civdsl.api import load
from companion_harness import cli_answer, first_difference, js_answers, node_available
from civdsl.playerstate import PlayerState


def _state():
    m = load("megaciv").module
    st = PlayerState(m, ["Pottery", "Mysticism"], {"cities": 3, "credits": {"arts": 2}}, {"first_game_without_start_credits": True})
    st.start_credits = {"per_group": 10}
    st.assigned, st.seat = 4, object()
    st.fact("players")  # missing: recorded
    return st


def test_a_copy_for_one_question_keeps_the_situation_and_starts_its_own_records():
    st = _state()
    copy = st.for_question({"treasury": 7})
    assert copy.held == st.held and copy.held_set is st.held_set
    assert copy.given("treasury") == 7 and not st.gives("treasury") and copy.given("cities") == 3
    assert copy.start_credits is st.start_credits and copy.option("first_game_without_start_credits") is True
    assert (copy.missing, copy.undecided, copy.assigned, copy.seat) == ([], [], None, None)
    copy.options["first_game_without_start_credits"] = False
    assert st.option("first_game_without_start_credits") is True  # the question's switches are its own


def test_a_copy_with_one_fact_changed_records_what_its_readers_lack_in_the_state_it_copies():
    st = _state()
    counted = st.with_fact("cities", 5)
    assert counted.fact("cities") == 5 and st.fact("cities") == 3
    counted.fact("treasury")
    assert "treasury" in st.missing and counted.missing is st.missing
    assert counted.undecided is st.undecided
    assert (counted.assigned, counted.seat, counted.start_credits) == (st.assigned, st.seat, st.start_credits)
    assert counted.held_set is st.held_set


def test_a_probe_records_what_it_lacks_on_its_own_and_reads_the_rulebooks_switches():
    st = _state()
    probe = st.probe()
    probe.fact("players")
    assert probe.missing == ["players"] and st.missing == ["players"] and probe.missing is not st.missing
    assert probe.options == {}


@pytest.mark.skipif(not node_available(), reason="node is not installed")
def test_the_page_says_why_start_credits_are_not_counted_as_the_command_line_does():
    """Mega Civilization's start credits come from a table by player count: a count with no band
    leaves them uncounted, with the table's message (a ValueError in Python, caught by the
    translated startcredits.py in the page)."""
    import test_companion_cost_plan  # noqa: F401 (the harness's Python answer to `cost`)

    queries = [{"command": "cost", "state": {"players": p, "treasury": 10}, "options": {"buy": "Pottery"}}
               for p in (99, 5)]
    far, five = js_answers("megaciv", queries)
    assert far["start_credits"]["per_group"] is None
    assert far["start_credits"]["problem"] == "no band of the table covers 99"
    assert five["start_credits"]["per_group"] == 10 and five["start_credits"]["problem"] is None
    for query, got in zip(queries, (far, five)):
        assert first_difference(cli_answer("megaciv", query), got) is None
