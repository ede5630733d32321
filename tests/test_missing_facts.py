"""Missing facts are never zero (issue 13, part 4), checked over every shipped rulebook.

A fact the user did not give reads as unknown: an answer that depends on it is incomplete,
names the fact, never cancels a calamity on its account and never shows a negative count.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import civdsl
from civdsl import vocabulary as vocab
from civdsl.resources import shipped_rulebooks

EXAMPLES = int(os.environ.get("CIVDSL_FUZZ_EXAMPLES", "25"))
EDITIONS = [e for e in shipped_rulebooks() if civdsl.load(e).calamities]
INT_FACTS = sorted(n for n, f in vocab.FACTS.items() if f.type == "int")


def _amounts(effects):
    for e in effects:
        for key, value in e.items():
            if key not in ("kind", "depends_on") and isinstance(value, int) and not isinstance(value, bool):
                yield e, key, value


@pytest.mark.parametrize("edition", EDITIONS)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_answer_guesses_a_missing_fact(edition, data):
    rb = civdsl.load(edition)
    given_facts = data.draw(st.lists(st.sampled_from(INT_FACTS), unique=True), label="facts given")
    facts = {name: data.draw(st.integers(vocab.FACTS[name].minimum or 0, 12), label=name) for name in given_facts}
    if data.draw(st.booleans(), label="hand given"):
        facts["commodities"] = {c: data.draw(st.integers(0, 3)) for c in list(rb.module.COMMODITIES)[:3]}
    holds = data.draw(st.lists(st.sampled_from(sorted(rb.advances)), max_size=6, unique=True), label="holds")
    for calamity in rb.calamities:
        for role in ("primary", "secondary"):
            out = rb.resolve(calamity, role, holds, facts).to_dict()
            assert out["complete"] is (not out["missing_facts"])
            assert all(m not in facts for m in out["missing_facts"])
            for e, key, value in _amounts(out["effects"]):
                assert value >= 0, (calamity, role, e)
            for e in out["effects"]:
                if e.get("amount", 0) is None:
                    assert e["depends_on"] and set(e["depends_on"]) <= set(out["missing_facts"]) | {"unit_points"}
            if out["complete"]:
                assert not out["undecided"] and all("depends_on" not in e for e in out["effects"])
            for u in out["undecided"]:
                assert set(u["depends_on"]) <= set(out["missing_facts"])


@pytest.mark.parametrize("edition", EDITIONS)
def test_an_empty_state_never_cancels_a_calamity(edition):
    rb = civdsl.load(edition)
    for calamity in rb.calamities:
        out = rb.resolve(calamity, "primary", [], {}).to_dict()
        assert out["cancelled"] is False, (calamity, out.get("cancel_reason"))


@pytest.mark.parametrize("question, complete", [
    (["resolve", "megaciv", "Piracy"], ["--set", "coastal_cities=0"]),
    (["score", "megaciv"], ["--set", "cities=2", "--set", "ast_position=3", "--set", "sole_leader=false",
                            "--set", "tokens=9", "--set", "civilization=Minoa"]),
    (["epoch", "megaciv", "--ast", "basic"], ["--set", "cities=2"]),
])
@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_every_question_exits_1_in_every_format_when_a_fact_is_missing(question, complete, fmt):
    incomplete = run_cli(*question, *fmt)
    assert incomplete.exit_code == 1, incomplete.output
    if fmt:
        data = json.loads(incomplete.output)
        assert data["command"] == question[0] and data["rulebook"] == "megaciv"
        data = data["tracks"][0] if "tracks" in data else data  # epoch answers per track
        assert data["complete"] is False and data["missing_facts"]
    else:
        assert "incomplete: the state does not" in incomplete.output
    done = run_cli(*question, *complete, *fmt)
    assert done.exit_code == 0, done.output


def test_resolve_text_shows_what_is_undecided_and_never_calls_it_cancelled():
    out = run_cli("resolve", "megaciv", "Piracy").output
    assert "cancelled" not in out.split("undecided")[0]
    assert "undecided: whether the calamity is cancelled depends on the coastal cities" in out
    assert "--set coastal_cities=N" in out
