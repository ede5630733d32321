"""Rule semantics, on an invented edition (tests/fixtures/semantics.civ) so that no test here
depends on one real edition's cards: modifier order, roles, cancel, immunity, options,
scaling, missing facts, credits, epochs and scoring."""

from pathlib import Path

import pytest

import civdsl
from civdsl.errors import RulebookRuntimeError

FIXTURE = Path(__file__).parent / "fixtures" / "semantics.civ"


@pytest.fixture(scope="module")
def rb():
    return civdsl.load(str(FIXTURE))


def damage(rb, role="primary", holds=(), **facts):
    facts.setdefault("cities", 3)
    return rb.resolve("Storm", role, list(holds), facts).amount("damage")


def test_base_effects_and_secondary_assignment(rb):
    r = rb.resolve("Storm", "primary", [], {"cities": 3}).to_dict()
    assert [(e["kind"], e["amount"]) for e in r["effects"]] == [("damage", 10), ("lose_treasury", 4)]
    assert r["secondary"] == {"count": 2, "share": None, "line": 24, "effects": [{"kind": "damage", "amount": 6, "area": "any"}]}


def test_add_and_prevent_accumulate_and_never_go_below_zero(rb):
    assert damage(rb, holds=["Alpha"]) == 15
    assert damage(rb, holds=["Beta"]) == 0  # 10 - 20 stops at zero
    assert damage(rb, holds=["Alpha", "Beta"]) == 0


def test_set_applies_after_adds_and_higher_priority_wins(rb):
    assert damage(rb, holds=["Alpha", "Gamma"]) == 7
    assert damage(rb, holds=["Gamma", "Delta"]) == 3


def test_cap_applies_after_set(rb):
    assert damage(rb, holds=["Gamma", "Epsilon"]) == 4
    assert damage(rb, holds=["Epsilon"]) == 4


def test_role_limited_modifiers(rb):
    assert damage(rb, "secondary", ["Gamma"]) == 6  # Gamma's set is primary-only
    assert damage(rb, "secondary", ["Alpha"], commodities={"Grain": 2}) == 6 + 5 - 4  # per-unit scaling


def test_negation_and_immunity(rb):
    r = rb.resolve("Storm", "secondary", ["Beta"], {"cities": 1})
    assert r.immune and r.amount("damage") == 0
    r = rb.resolve("Storm", "secondary", ["Beta", "Alpha"], {"cities": 1})
    assert not r.immune


def test_cancel_condition_and_cancel_modifier(rb):
    r = rb.resolve("Storm", "primary", ["Alpha"], {"cities": 0})
    assert r.is_cancelled and [e.kind for e in r.effects] == ["cancelled"]
    assert r.cancel_reason[0] == 27
    r = rb.resolve("Storm", "primary", [], {"cities": 2, "treasury": 120})
    assert r.is_cancelled


def test_exclusion_of_a_secondary_victim(rb):
    r = rb.resolve("Storm", "secondary", ["Delta"], {"cities": 2}).to_dict()
    assert r["excluded"]["line"] == 26


def test_replacement_option(rb):
    r = rb.resolve("Storm", "primary", ["Gamma"], {"cities": 2}).to_dict()
    assert r["options"] == [{"instead_of": "lose_treasury", "kind": "discard_cards", "args": {"amount": 1},
                             "each": True, "by": ["Gamma"], "path": str(FIXTURE.relative_to(Path.cwd())) if FIXTURE.is_relative_to(Path.cwd()) else str(FIXTURE), "line": 36}]


def test_trace_names_each_card_and_rulebook_line(rb):
    r = rb.resolve("Storm", "primary", ["Alpha", "Beta"], {"cities": 2}).to_dict()
    steps = [(t["op"], t["by"], t["line"], t["before"], t["after"]) for t in r["trace"]]
    # the floor is a step of the trace: the answer never leaves an amount below zero unexplained
    assert steps == [("add", ["Alpha"], 28, 10, 15), ("prevent", ["Beta"], 29, 15, -5), ("floor", [], 20, -5, 0)]
    assert r["effects"][0]["amount"] == 0


def test_branch_on_the_victims_situation_and_table_lookup(rb):
    erupt = rb.resolve("Quake", "primary", [], {"volcano_cities": 1}).to_dict()
    assert [e["kind"] for e in erupt["effects"]] == ["destroy_area_units"]
    quake = rb.resolve("Quake", "primary", [], {"volcano_cities": 0, "cities": 4}).to_dict()
    assert [(e["kind"], e["amount"]) for e in quake["effects"]] == [("destroy_cities", 1), ("reduce_cities", 2)]


def test_missing_facts_are_reported_not_guessed(rb):
    r = rb.resolve("Quake", "primary", [], {})
    assert r.state.missing == ["volcano_cities", "cities"]


def test_a_branch_on_a_missing_fact_applies_neither_branch_but_names_every_fact_it_needs(rb):
    data = rb.resolve("Quake", "primary", [], {}).to_dict()
    assert data["complete"] is False and data["effects"] == []
    assert data["missing_facts"] == ["volcano_cities", "cities"]
    assert data["undecided"] == [{"line": 42, "path": "tests/fixtures/semantics.civ", "what": "which effects apply",
                                  "depends_on": ["volcano_cities"]}]


def test_an_amount_computed_from_a_missing_fact_is_unknown_never_zero(rb):
    data = rb.resolve("Quake", "primary", [], {"volcano_cities": 0}).to_dict()
    assert data["effects"] == [{"kind": "destroy_cities", "amount": 1, "area": "any"},
                               {"kind": "reduce_cities", "amount": None, "area": "adjacent", "depends_on": ["cities"]}]
    assert data["missing_facts"] == ["cities"]


def test_a_missing_fact_never_cancels_a_calamity(rb):
    # `cancel when cities == 0` and `when treasury >= 100 { cancel }`: neither fact given
    data = rb.resolve("Storm", "primary", [], {}).to_dict()
    assert data["cancelled"] is False and data["complete"] is False
    assert data["missing_facts"] == ["cities", "treasury"]
    assert [u["what"] for u in data["undecided"]] == ["whether the calamity is cancelled",
                                                      "whether a modifier cancels the calamity"]
    assert {e["kind"]: e["amount"] for e in data["effects"]} == {"damage": 10, "lose_treasury": 4}
    given = rb.resolve("Storm", "primary", [], {"cities": 0, "treasury": 0}).to_dict()
    assert given["cancelled"] is True and given["complete"] is True


def test_a_modifier_reading_a_missing_fact_leaves_the_amount_unknown_never_negative(rb):
    # Alpha: +5 damage, then 2 less per Grain card; the hand is not given
    data = rb.resolve("Storm", "secondary", ["Alpha"], {"cities": 3, "treasury": 0}).to_dict()
    damage = data["effects"][0]
    assert damage["kind"] == "damage" and damage["amount"] is None and damage["depends_on"] == ["commodities"]
    assert data["missing_facts"] == ["commodities"]
    assert data["trace"][-1]["op"] == "prevent" and data["trace"][-1]["after"] is None
    empty = rb.resolve("Storm", "secondary", ["Alpha"], {"cities": 3, "treasury": 0, "commodities": {}}).to_dict()
    assert empty["effects"][0]["amount"] == 11 and empty["complete"] is True


def test_an_unknown_condition_of_a_modifier_makes_the_amount_unknown(tmp_path):
    path = tmp_path / "u.civ"
    path.write_text(FIXTURE.read_text(encoding="utf-8").replace(
        'when holds("Epsilon") { cap damage 4 }', 'when cities > 3 { cap damage 4 }'), encoding="utf-8")
    rb2 = civdsl.load(path)
    data = rb2.resolve("Storm", "primary", [], {"treasury": 0}).to_dict()
    assert data["effects"][0]["amount"] is None and data["effects"][0]["depends_on"] == ["cities"]
    assert any(t["op"] == "undecided" and t["kind"] == "damage" for t in data["trace"])
    assert rb2.resolve("Storm", "primary", [], {"treasury": 0, "cities": 5}).to_dict()["effects"][0]["amount"] == 4


def test_epochs_and_score_on_missing_facts_are_incomplete_not_zero(rb):
    [track] = rb.epochs(None, ["Gamma"], {})
    assert track["complete"] is False and track["reached"] == "First"
    assert track["epochs"][1]["met"] is None and track["moves_backward"] is None
    score = rb.score(["Gamma"], {})
    assert score["total"] is None and score["complete"] is False
    assert score["points"][0]["points"] is None and score["points"][1]["points"] == 3
    assert score["missing_facts"] == ["cities", "treasury"]


def test_runtime_error_points_at_rulebook_line(rb):
    # the table has no band for a negative number of cities: the error names the rulebook line
    with pytest.raises(civdsl.StateError):
        rb.resolve("Quake", "primary", [], {"volcano_cities": 0, "cities": -1})
    state = rb.state([], {})
    state.facts.update(volcano_cities=0, cities=-1)
    from civdsl import sourcemap
    with pytest.raises(RulebookRuntimeError, match=r"semantics\.civ:42: ValueError"):
        sourcemap.resolve(rb.module, "Quake", "primary", state)


def test_best_group_credits_dual_group_takes_larger_group(rb):
    # Alpha gives red 10 and blue 5; Gamma (red+blue) takes the larger (10) plus Alpha's specific 10
    result = rb.cost(["Alpha"], ["Gamma"])
    assert result["items"][0]["price"] == 150 - 10 - 10


def test_credits_come_only_from_advances_held_before_this_turn(rb):
    result = rb.cost([], ["Alpha", "Gamma"])
    prices = {row["advance"]: row["price"] for row in result["items"]}
    # Gamma's discount(30) applies to one other advance bought with it: Alpha 50 -> 20
    assert prices == {"Alpha": 20, "Gamma": 150}


def test_free_advance_and_treasury_value(rb):
    prices = {r["advance"]: r["price"] for r in rb.cost([], ["Epsilon", "Beta"])["items"]}
    assert prices == {"Epsilon": 90, "Beta": 0}
    assert rb.cost(["Delta"], ["Alpha"])["treasury_value"] == 2
    assert rb.cost([], ["Alpha"])["treasury_value"] == 1


def test_epochs_report_each_requirement(rb):
    [track] = rb.epochs("track", ["Gamma"], {"cities": 2})
    assert track["reached"] == "Second"
    second = track["epochs"][1]["requirements"]
    assert [(r["requirement"], r["met"], r["value"]) for r in second] == [
        ("at least 2 cities", True, 2), ("at least 1 advance costing 100 or more", True, 1)]
    [track] = rb.epochs("track", [], {"cities": 0})
    assert track["moves_backward"] is True


def test_score_lines_and_tiebreaks(rb):
    s = rb.score(["Gamma", "Delta"], {"cities": 4, "treasury": 9})
    assert [(p["label"], p["points"]) for p in s["points"]] == [("cities", 8), ("advances", 9)]
    assert s["total"] == 17 and s["tiebreaks"][0]["value"] == 9


def test_unknown_names_get_did_you_mean(rb):
    with pytest.raises(civdsl.StateError, match="did you mean `Alpha`"):
        rb.resolve("Storm", holds=["Alpah"])
    with pytest.raises(civdsl.StateError, match="did you mean `Storm`"):
        rb.resolve("Strom")
    with pytest.raises(civdsl.StateError, match="did you mean `cities`"):
        rb.resolve("Storm", state={"citys": 2})
