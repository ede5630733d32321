"""The card-and-dice game of seed 003 (rulebooks/cardgame.civ) and the round-rule language it uses.

Every formula, band, threshold, dice pool, track and event table of the seed is checked with
numbers worked out by hand in the comments. Dice come from a scripted generator (`Dice`) so that
a test fixes every face; determinism is checked with seeded `random.Random` generators.
"""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import pytest
import yaml

import civdsl
from civdsl.rounds import runtime
from civdsl.frontend import check_file
from civdsl.rounds.reference import render_round_reference as render_cardgame_reference
from civdsl.rounds.simulate import simulate
from civdsl.rounds.state import state_from_data
from civdsl.state import StateError
from civdsl.rounds.model import rules
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
RULEBOOK = ROOT / "rulebooks" / "cardgame.civ"
LINES = RULEBOOK.read_text(encoding="utf-8").split("\n")


class Dice:
    """A scripted random source: each randint returns the next face; shuffle keeps the order."""

    def __init__(self, *faces):
        self.faces = list(faces)

    def randint(self, low, high):
        assert self.faces, "the rules rolled more dice than the test scripted"
        face = self.faces.pop(0)
        assert low <= face <= high, (face, low, high)
        return face

    def shuffle(self, items):
        pass


@pytest.fixture(scope="module")
def m():
    return civdsl.load("cardgame").module


def make(m, hand=(), deck=None, choices=None, on=None, **stats):
    """A state from stats; thresholds already on are those whose condition holds (nothing fires
    at the start of the next phase) unless `on` is given."""
    data = {"stats": stats, "hand": list(hand), "choices": choices or {}}
    if deck is not None:
        data["deck"] = list(deck)
    st = state_from_data(m, data, random.Random(0))
    if on is None:
        view = runtime.RoundState.view(m, st)
        on = {n for n, th in m.THRESHOLDS.items() if th["test"](view)}
    st.on = set(on)
    return st


def run(m, phase, st, dice=()):
    rng = Dice(*dice)
    new, trace = runtime.run_phase(m, phase, st, rng)
    assert not rng.faces, f"dice left over: {rng.faces}"
    return new, trace


def entries(trace, op, **match):
    return [e for e in trace if e["op"] == op and all(e.get(k) == v for k, v in match.items())]


def line_of(trace, name):
    [e] = [e for e in trace if e["op"] in ("set", "add") and e["name"] == name]
    return LINES[e["line"] - 1]


# --- the rulebook ------------------------------------------------------------------------------

def test_rulebook_checks_clean():
    checked = check_file(RULEBOOK)
    assert checked.ok, checked.diagnostics.render()
    assert not checked.diagnostics.items
    ed = checked.edition
    assert ed.id == "cardgame" and rules(ed).declared
    assert list(rules(ed).phases) == ["upkeep", "internal_pressure", "state_actions", "war", "rebellion",
                               "natural_events", "cleanup"]
    core = ["unrest", "economy", "military", "food", "luxury", "morale", "population"]
    assert all(rules(ed).stats[s].initial_value == 0 for s in core)  # setup: all stats begin at 0
    assert not ed.advances and ed.credit_policy is None  # no advances, so no credit policy is asked for


def test_generated_module_has_one_function_per_phase(m):
    assert [pid for pid, _, _ in m.PHASES] == ["upkeep", "internal_pressure", "state_actions", "war", "rebellion",
                                                "natural_events", "cleanup"]
    for pid, _, fn in m.PHASES:
        assert fn.__name__.startswith("phase_")
    assert m.SETUP.__name__ == "phase_setup"


# --- cards (6) ------------------------------------------------------------------------------------

def test_card_values_colours_and_hand_limit(m):
    assert len(m.CARDS) == 52
    assert m.CARDS[("A", "Hearts")] == (1, "red")
    for n in range(2, 11):
        assert m.CARDS[(str(n), "Spades")] == (n, "black")
    for face in "JQK":
        assert m.CARDS[(face, "Diamonds")] == (10, "red")
    assert m.CARD_DECK["hand_limit"] == 10


def test_economy_and_military_are_red_and_black_hand_values(m):
    # red: 10 + 3 = 13; black: K(10) + 7 = 17
    st = make(m, hand=["10 of Hearts", "3 of Diamonds", "K of Spades", "7 of Clubs"])
    new, _ = run(m, "upkeep", st)
    assert new["economy"] == 13 and new["military"] == 17


def test_occupation_force_leaves_military_and_adds_unrest(m):
    # military = 17 - 10 x 1 occupation = 7; internal pressure: +5 unrest per occupation
    st = make(m, hand=["10 of Hearts", "K of Spades", "7 of Clubs"], occupations=1, food=100)
    new, _ = run(m, "upkeep", st)
    assert new["military"] == 7
    new, _ = run(m, "internal_pressure", make(m, hand=["10 of Hearts"], occupations=2, food=100))
    assert new["unrest"] == 10


def notes_of(rule_label):
    """The `note`s written inside the rule with this label (the rulebook's readings)."""
    ed = check_file(RULEBOOK).edition
    found = []

    def walk(stmts, inside):
        for s in stmts or []:
            if s.keyword == "note" and inside:
                found.append(s.text)
            walk(getattr(s, "body", None), inside or (s.keyword == "rule" and s.text == rule_label))
            walk(getattr(s, "otherwise", None), inside)

    for phase in rules(ed).phases.values():
        walk(phase.body, False)
    return found


def test_a_force_below_the_minimum_occupation_cannot_occupy(m):
    # "Minimum occupation: 10 military value": a force of 9 cannot hold the occupation; at upkeep it
    # ends, so no military is kept out and no occupation unrest follows
    st = make(m, hand=["10 of Hearts", "K of Spades", "7 of Clubs"], occupations=1, food=100,
              choices={"occupation_troops": 9})
    new, trace = run(m, "upkeep", st)
    assert new["occupations"] == 0 and new["military"] == 17
    assert entries(trace, "set", name="occupations")[0]["rule"].startswith("Minimum occupation")
    new, _ = run(m, "internal_pressure", new)
    assert new["unrest"] == 0
    assert any("a smaller force cannot occupy" in text for text, _ in check_file(RULEBOOK).edition.notes)


def test_an_occupation_force_above_the_minimum_keeps_more_military_out(m):
    # two occupations of 12 each: 17 + 10 (K, 10 of clubs) = 27 military in hand - 24 = 3
    st = make(m, hand=["K of Spades", "7 of Clubs", "10 of Clubs"], occupations=2, food=100,
              choices={"occupation_troops": 12})
    new, _ = run(m, "upkeep", st)
    assert new["occupations"] == 2 and new["military"] == 3
    # exactly the minimum occupies
    st = make(m, hand=["K of Spades"], occupations=1, food=100, choices={"occupation_troops": 10})
    new, _ = run(m, "upkeep", st)
    assert new["occupations"] == 1 and new["military"] == 0


def test_setup_shuffles_and_deals_four_cards(m):
    a, trace = runtime.new_game(m, random.Random(3))
    b, _ = runtime.new_game(m, random.Random(3))
    assert a.hand == b.hand and len(a.hand) == 4 and len(a.deck) == 48
    assert [e["op"] for e in trace] == ["shuffle", "draw"]
    assert a["emergency_cards"] == 2 and a["rebellion"] == 2 and a["war_track"] == 0
    assert all(a[s] == 0 for s in ("unrest", "economy", "military", "food", "luxury", "morale", "population"))


# --- phase 1: upkeep ----------------------------------------------------------------------------------

def test_upkeep_worked_example(m):
    # food 50 + 1 farm x 20 = 70; morale = luxury 30 + food at the start 50 = 80;
    # population = floor(30 x sqrt(70) / (80/10 + 1)) + 17 = floor(250.998 / 9) + 17 = 27 + 17 = 44;
    # 44 is in 30..49: +2 unrest
    st = make(m, hand=["10 of Hearts", "3 of Diamonds", "K of Spades", "7 of Clubs"], luxury=30, food=50, farms=1)
    new, trace = run(m, "upkeep", st)
    assert (new["food"], new["morale"], new["population"], new["unrest"]) == (70, 80, 44, 2)
    assert "floor(luxury * sqrt(food) / (morale / 10 + 1)) + military" in line_of(trace, "population")
    assert "luxury + food_at_start" in line_of(trace, "morale")


def test_population_formula_exact_division(m):
    # luxury 11, food 9 (no farm): morale 20; 11 x 3 / (20/10 + 1) = 33 / 3 = 11 exactly
    new, _ = run(m, "upkeep", make(m, luxury=11, food=9))
    assert new["population"] == 11
    # luxury 10, food 60 + 2 farms = 100: morale 70; 10 x 10 / 8 = 12.5 -> 12
    new, _ = run(m, "upkeep", make(m, luxury=10, food=60, farms=2))
    assert (new["food"], new["morale"], new["population"]) == (100, 70, 12)
    # nothing at all: 0 x 0 / (0 + 1) = 0
    new, _ = run(m, "upkeep", make(m))
    assert new["population"] == 0


def test_population_formula_divides_exactly_even_by_tens_of_morale(m):
    # luxury 5, food 10 (no farm): morale 15, so the divisor is 15 / 10 + 1 = 2.5 (not 2):
    # 5 x sqrt(10) / 2.5 = 6.32 -> 6; dividing morale by 10 rounded down would give 7
    new, _ = run(m, "upkeep", make(m, luxury=5, food=10))
    assert (new["morale"], new["population"]) == (15, 6)
    assert any("divides exactly" in n for n in notes_of("Population calculation"))


def test_drought_halves_production_and_plague_lowers_next_morale(m):
    # drought: 3 farms x 20 // 2 = 30 -> food 66; morale = 12 + 36 - 5 (plague) = 43;
    # population = floor(12 x sqrt(66) / 5.3) + 19 = floor(97.488 / 5.3) + 19 = 18 + 19 = 37 -> +2
    st = make(m, hand=["Q of Clubs", "9 of Spades", "A of Hearts"], luxury=12, food=36, farms=3,
              drought=True, morale_penalty=5)
    new, _ = run(m, "upkeep", st)
    assert (new["food"], new["morale"], new["population"], new["unrest"]) == (66, 43, 37, 2)
    assert new["drought"] is False and new["morale_penalty"] == 0


def test_no_production_under_siege(m):
    st = make(m, at_war=True, war_track=3, farms=2, food=10, luxury=5)
    new, _ = run(m, "upkeep", st)
    assert new["food"] == 10 and new["morale"] == 15


@pytest.mark.parametrize("population, unrest", [
    (0, 0), (29, 0), (30, 2), (49, 2), (50, 4), (74, 4), (75, 7), (99, 7), (100, 10), (250, 10)])
def test_population_pressure_bands(m, population, unrest):
    assert runtime.lookup(m.TABLES["population_unrest"], population) == unrest


def test_population_pressure_through_upkeep(m):
    # military only: K, Q, J, 10 of clubs and of spades (80) minus nothing: population 80 -> +7
    hand = [f"{r} of {s}" for s in ("Clubs", "Spades") for r in ("K", "Q", "J", "10")]
    new, _ = run(m, "upkeep", make(m, hand=hand))
    assert (new["population"], new["unrest"]) == (80, 7)


# --- phase 2: internal pressure ---------------------------------------------------------------------

def test_food_stress_instead(m):
    red = ["A of Hearts"]
    # food 50 < 2 x 30 and < 4 x 30: +10 replaces +5 (not 15); the trace says which rule it replaced
    new, trace = run(m, "internal_pressure", make(m, hand=red, food=50, population=30))
    assert new["unrest"] == 10
    [instead] = entries(trace, "instead")
    assert "add unrest 5" in LINES[instead["replaces"][0] - 1]
    assert "add unrest 10" in LINES[instead["line"] - 1]
    # 60 <= food 100 < 120: +10, replacing nothing
    new, trace = run(m, "internal_pressure", make(m, hand=red, food=100, population=30))
    assert new["unrest"] == 10 and not entries(trace, "instead")
    # food 120 = 4 x 30: no stress
    new, _ = run(m, "internal_pressure", make(m, hand=red, food=120, population=30))
    assert new["unrest"] == 0


def test_siege_pressure(m):
    new, _ = run(m, "internal_pressure", make(m, hand=["A of Hearts"], at_war=True, war_track=3))
    assert new["unrest"] == 8
    new, _ = run(m, "internal_pressure", make(m, hand=["A of Hearts"], at_war=True, war_track=2))
    assert new["unrest"] == 0


def test_economic_collapse_pressure(m):
    new, _ = run(m, "internal_pressure", make(m, hand=["K of Spades"]))
    assert new["unrest"] == 10
    new, _ = run(m, "internal_pressure", make(m, hand=["2 of Diamonds"]))
    assert new["unrest"] == 0


@pytest.mark.parametrize("unrest, interference, after", [(75, 15, 85), (75, 4, 79), (74, 15, 74), (90, 0, 90)])
def test_foreign_interference(m, unrest, interference, after):
    st = make(m, hand=["A of Hearts"], unrest=unrest, choices={"interference": interference})
    new, _ = run(m, "internal_pressure", st)
    assert new["unrest"] == after


def test_thresholds_switch_on_with_unrest(m):
    # 25 + 10 (economic collapse pressure) = 35: 30+ switches on
    new, trace = run(m, "internal_pressure", make(m, hand=["K of Spades"], unrest=25))
    assert [e["name"] for e in entries(trace, "threshold", state="on")] == ["lose_action"]
    assert new.on >= {"lose_action"}
    # 45 -> 55 switches on 50+; 70 -> 80 switches on 75+
    _, trace = run(m, "internal_pressure", make(m, hand=["K of Spades"], unrest=45))
    assert [e["name"] for e in entries(trace, "threshold", state="on")] == ["no_luxury"]
    _, trace = run(m, "internal_pressure", make(m, hand=["K of Spades"], unrest=70))
    assert [e["name"] for e in entries(trace, "threshold", state="on")] == ["interference_open"]


def test_rebellion_begins_immediately_at_100(m):
    # 95 + 10 (economic collapse pressure) = 105, inside phase 2: the rebellion starts there and then
    new, trace = run(m, "internal_pressure", make(m, hand=["K of Spades"], unrest=95, rebellion=4))
    assert new["rebellion_active"] is True and new["rebellion_stage"] == 1 and new["rebellion"] == 2
    kinds = [(e["op"], e.get("name")) for e in trace]
    assert kinds.index(("threshold", "rebellion_begins")) < kinds.index(("set", "rebellion_active"))
    # it does not begin again while unrest stays at 100 or more
    again, _ = run(m, "internal_pressure", make(m, hand=["K of Spades"], unrest=120, rebellion_active=False))
    assert again["rebellion_active"] is False


def test_a_state_given_by_hand_switches_thresholds_on_at_the_next_phase(m):
    st = make(m, hand=["A of Hearts"], unrest=100, food=10, on=set())
    new, trace = run(m, "internal_pressure", st)
    assert new["rebellion_active"] is True
    assert {e["name"] for e in entries(trace, "threshold")} == {"lose_action", "no_luxury", "interference_open",
                                                                "rebellion_begins"}


# --- phase 3: state actions -----------------------------------------------------------------------

def test_economic_action_buys_farms_cards_and_luxury(m):
    # economy 20: 1 farm (-5) -> 15; 1 card (-2) -> 13, draws the 2 of Hearts; 13 luxury dice (-13) -> 0,
    # all showing 4: luxury 5 + 52 = 57. Two actions, one used.
    st = make(m, hand=["10 of Hearts", "10 of Diamonds", "5 of Clubs"], deck=["2 of Hearts", "3 of Hearts"],
              unrest=10, economy=20, luxury=5)
    new, trace = run(m, "state_actions", st, dice=[4] * 13)
    assert (new["farms"], new["economy"], new["luxury"], new["luxury_bought"], new["actions"]) == (1, 0, 57, 13, 1)
    assert runtime.card_text(new.hand[-1]) == "2 of Hearts" and len(new.deck) == 1
    [roll] = entries(trace, "roll", pool="luxury_dice")
    assert roll["dice"] == [4] * 13 and roll["result"] == 52


def test_cards_bought_stop_at_the_hand_limit(m):
    hand = [f"{r} of Hearts" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")]
    st = make(m, hand=hand, economy=4, choices={"buy_farms": 0, "buy_luxury": 0})
    new, _ = run(m, "state_actions", st)
    assert len(new.hand) == 10 and new["economy"] == 4  # no card bought, nothing paid


def test_thirty_unrest_loses_an_action_and_domestic_action_reduces_unrest(m):
    # unrest 55: 2 - 1 = 1 action; the domestic action (default policy at 20+) takes it: 55 - 10 = 45,
    # which switches 50+ off again; nothing is left for the economic action
    st = make(m, hand=["A of Hearts"], unrest=55, economy=10)
    new, trace = run(m, "state_actions", st)
    assert (new["unrest"], new["actions"], new["farms"]) == (45, 0, 0)
    assert [e["name"] for e in entries(trace, "threshold", state="off")] == ["no_luxury"]


def test_fifty_unrest_forbids_buying_luxury(m):
    # no domestic action: the one action buys a farm (economy 10 -> 5) and a card (-> 3), but no luxury
    st = make(m, hand=["A of Hearts"], deck=["K of Clubs"], unrest=55, economy=10,
              choices={"act_domestic": False})
    new, trace = run(m, "state_actions", st)
    assert (new["farms"], new["economy"], new["luxury_bought"], new["luxury"]) == (1, 3, 0, 0)
    assert not entries(trace, "roll")


def test_rebellion_stage_one_loses_an_action_and_stage_two_forbids_buying(m):
    st = make(m, hand=["A of Hearts"], unrest=35, rebellion_active=True, rebellion_stage=1, economy=10,
              emergency_cards=0, choices={"act_domestic": False})
    new, _ = run(m, "state_actions", st)
    assert new["actions"] == 0 and new["farms"] == 0  # 2 - 1 (30+) - 1 (stage 1)
    st = make(m, hand=["A of Hearts"], rebellion_active=True, rebellion_stage=2, economy=10, emergency_cards=0)
    new, _ = run(m, "state_actions", st)
    assert new["actions"] == 2 and new["farms"] == 0 and new["economy"] == 10


def test_in_the_round_a_rebellion_begins_both_action_penalties_stack(m):
    # unrest 92 and no red card: phase 2 adds 10 (economic collapse pressure) -> 102, the rebellion
    # begins at once (stage 1, Civil Disorder); phase 3: 2 actions - 1 (30+ unrest) - 1 (stage 1) = 0
    st = make(m, hand=["K of Spades"], unrest=92, food=100, emergency_cards=0)
    new, trace = run(m, "internal_pressure", st)
    assert new["unrest"] == 102 and new["rebellion_active"] is True and new["rebellion_stage"] == 1
    new, trace = run(m, "state_actions", new)
    assert new["actions"] == 0
    penalties = [e for e in entries(trace, "add", name="actions") if e["rule"] == "State actions available"]
    assert [e["by"] for e in penalties] == [-1, -1]
    assert any("penalties stack" in n for n in notes_of("State actions available"))


def test_siege_pressure_and_economic_collapse_both_apply_in_one_round(m):
    # under siege (war track 3), no red card, no emergency card left: phase 2 adds 8 (siege) and 10
    # (no red card); phase 3's economic collapse adds 20 more: 38 in one round
    st = make(m, hand=["K of Spades"], at_war=True, war_track=3, food=100, emergency_cards=0,
              choices={"act_domestic": False, "act_economic": False, "act_military": False})
    new, trace = run(m, "internal_pressure", st)
    assert new["unrest"] == 18
    assert {e["rule"] for e in entries(trace, "add", name="unrest")} == {"Siege pressure",
                                                                       "Economic collapse pressure"}
    new, trace = run(m, "state_actions", new)
    assert new["unrest"] == 38
    assert [e["rule"] for e in entries(trace, "add", name="unrest")] == ["Economic collapse"]
    assert any("takes both in one round" in n for n in notes_of("Siege pressure"))


def test_emergency_action_in_a_rebellion(m):
    st = make(m, hand=["A of Hearts"], rebellion_active=True, rebellion_stage=3, emergency_cards=2,
              choices={"act_economic": False})
    new, _ = run(m, "state_actions", st)
    assert new["emergency_used"] is True and new["emergency_cards"] == 1 and new["actions"] == 1


@pytest.mark.parametrize("emergency, choice, dice, unrest, left", [
    (2, None, [2], 30, 1),     # draws an emergency card: black, +30
    (2, None, [1], 0, 1),      # red: nothing happens
    (2, False, [], 20, 2),     # takes the 20 unrest instead
    (0, None, [], 20, 0),      # no emergency card left: must take the 20 unrest
])
def test_economic_collapse_choice(m, emergency, choice, dice, unrest, left):
    choices = {"act_economic": False}
    if choice is not None:
        choices["collapse_draw"] = choice
    st = make(m, hand=["K of Spades"], emergency_cards=emergency, choices=choices)
    new, _ = run(m, "state_actions", st, dice=dice)
    assert new["unrest"] == unrest and new["emergency_cards"] == left


def test_military_action_commits_troops(m):
    st = make(m, hand=["A of Hearts", "K of Spades", "Q of Clubs"], military=20, at_war=True,
              choices={"act_economic": False, "garrison_cards": 1})
    new, _ = run(m, "state_actions", st)
    assert new["committed"] == 20 and new["garrison"] == 1


# --- phase 4: war ------------------------------------------------------------------------------------

@pytest.mark.parametrize("track, attack, defence, casualty, after, committed", [
    (0, [6, 6, 6], [1, 1, 1, 1], 3, 2, 15),   # 18 >= 2 x 4: clear victory +2; casualty 3: 30 - 30x3//6 = 15
    (0, [3, 3, 3], [2, 2, 2, 2], 1, 1, 25),   # 9 vs 8: minor victory +1; casualty 1: 30 - 5 = 25
    (0, [2, 3, 3], [2, 2, 2, 2], 6, 1, 0),    # 8 vs 8: the attacker wins ties; casualty 6: all troops lost
    (3, [3, 3, 3], [2, 2, 2, 2], 2, 5, 20),   # under siege (track 3): any victory +2; casualty 2: 30 - 10 = 20
])
def test_battles(m, track, attack, defence, casualty, after, committed):
    # attacker: 1 + 25 // 10 = 3 dice; defender: 1 + 30 // 10 = 4 dice
    st = make(m, at_war=True, war_track=track, committed=30, enemy_committed=25)
    new, trace = run(m, "war", st, dice=attack + defence + [casualty])
    assert new["war_track"] == after and new["committed"] == committed and new["enemy_committed"] == 25
    [move] = entries(trace, "move")
    assert move["stage"] == {1: "Border Conflict", 2: "Border Conflict", 5: "Capital Threatened"}[after]


def test_defender_wins_and_the_attacker_takes_casualties(m):
    st = make(m, at_war=True, committed=30, enemy_committed=25)
    new, _ = run(m, "war", st, dice=[1, 1, 1] + [2, 2, 2, 2] + [2])
    assert new["war_track"] == 0 and new["committed"] == 30 and new["enemy_committed"] == 25 - 25 * 2 // 6


def test_war_track_stages_and_collapse(m):
    assert m.TRACKS["war_track"]["stages"] == ((0, 2, "Border Conflict"), (3, 4, "Siege State"),
                                              (5, 6, "Capital Threatened"), (7, 7, "Civilization Collapse"))
    st = make(m, at_war=True, war_track=6, committed=0, enemy_committed=0)
    new, trace = run(m, "war", st, dice=[4, 3, 1])  # 4 >= 3: victory during siege, +2, clamped at 7
    assert new["war_track"] == 7 and new["collapsed"] is True
    assert entries(trace, "reached", track="war_track", position=7)
    assert runtime.ended_by(m, new) == "the civilization has collapsed"


def test_no_battle_without_a_war(m):
    new, trace = run(m, "war", make(m))
    assert trace == []


# --- phase 5: rebellion ------------------------------------------------------------------------------

def test_rebellion_and_government_dice_pools(m):
    # rebels: 2 + population >= 75 + under siege + food shortage (100 < 2 x 80) + war track >= 5 = 6 dice;
    # government: 2 + 45 // 20 + emergency card used = 5 dice
    st = make(m, rebellion_active=True, rebellion_stage=3, rebellion=4, population=80, at_war=True, war_track=5,
              food=100, committed=45, emergency_used=True)
    new, trace = run(m, "rebellion", st, dice=[1] * 6 + [2] * 5)
    rebels, government = entries(trace, "roll")
    assert len(rebels["dice"]) == 6 and [t["label"] for t in rebels["terms"]] == [
        "base", "population 75 or more", "under siege", "food shortage", "war track 5 or more"]
    assert len(government["dice"]) == 5 and government["result"] == 10
    assert new["rebellion"] == 2  # 6 < 10: the government wins; stage 3: track -2


def test_base_pools_are_two_dice_each(m):
    st = make(m, rebellion_active=True, rebellion_stage=1, food=10)
    _, trace = run(m, "rebellion", st, dice=[3, 3, 3, 3])
    assert [len(e["dice"]) for e in entries(trace, "roll")] == [2, 2]


@pytest.mark.parametrize("stage, rebels, government, track, next_stage", [
    (1, [6, 5], [1, 1], 3, 2),   # stage 1 (Civil Disorder): rebellion win +1
    (1, [1, 1], [6, 6], 1, 2),   # government win -1
    (2, [6, 5], [1, 1], 4, 3),   # stage 2 (Armed Uprising): rebellion win +2
    (2, [1, 1], [6, 6], 1, 3),   # government win -1
    (3, [6, 5], [1, 1], 4, 3),   # stage 3 (Regime Collapse): rebellion win +2, and it stays at stage 3
    (3, [1, 1], [6, 6], 0, 0),   # government win -2: the track reaches 0, the rebellion is crushed
    (1, [3, 4], [5, 2], 3, 2),   # 7 vs 7: the rebellion (the attacker) wins ties
])
def test_rebellion_stages(m, stage, rebels, government, track, next_stage):
    st = make(m, rebellion_active=True, rebellion_stage=stage, rebellion=2, food=10)
    new, _ = run(m, "rebellion", st, dice=rebels + government)
    assert new["rebellion"] == track and new["rebellion_stage"] == next_stage
    assert new["rebellion_active"] is (track != 0)


def test_garrison_suppresses_the_rebellion(m):
    # rebels 7, government 6 + 2 x 1 garrison card = 8: the government wins
    st = make(m, rebellion_active=True, rebellion_stage=1, rebellion=2, garrison=1, food=10)
    new, _ = run(m, "rebellion", st, dice=[3, 4, 3, 3])
    assert new["rebellion"] == 1


def test_rebellion_reaching_six_collapses_the_civilization_and_ends_the_game(m):
    st = make(m, hand=["A of Hearts"], rebellion_active=True, rebellion_stage=3, rebellion=5, food=10,
              emergency_cards=0, choices={"act_economic": False}, deck=[])
    rng = Dice(6, 6, 1, 1)  # phase 5: rebels 12 vs 2, +2 -> 6 (clamped); phases 1-4 roll nothing
    new, trace = runtime.play_round(m, st, rng)
    assert new["rebellion"] == 6 and new["collapsed"] is True and new["rebellion_active"] is False
    assert new.ended == "the civilization has collapsed"
    assert trace[-1]["op"] == "end" and trace[-1]["phase"] == "rebellion"  # natural events are never reached
    assert entries(trace, "reached", track="rebellion", position=6)[0]["label"] == "Civilization collapses"


# --- phase 6: natural events ----------------------------------------------------------------------------

@pytest.mark.parametrize("dice, changes", [
    ([1, 1], {"drought": True}),
    ([1, 2], {"morale_penalty": 5}),
    ([1, 3], {"farms": 1}),
    ([1, 4], {"food": 5}),
    ([1, 5], {}),
    ([1, 6], {}),
    ([3, ], {}),             # the player die picks seat 3: not this civilization
])
def test_natural_events(m, dice, changes):
    st = make(m, farms=2, food=15)
    new, trace = run(m, "natural_events", st, dice=dice)
    expected = {"drought": False, "morale_penalty": 0, "farms": 2, "food": 15, **changes}
    assert {k: new[k] for k in expected} == expected
    [pick] = entries(trace, "roll", pool="player_die")
    assert pick["sides"] == 4  # a die of as many sides as players


def test_events_never_take_stats_below_zero(m):
    new, _ = run(m, "natural_events", make(m, farms=0, food=0), dice=[1, 3])
    assert new["farms"] == 0
    new, _ = run(m, "natural_events", make(m, farms=0, food=4), dice=[1, 4])
    assert new["food"] == 0


def test_natural_events_are_optional(tmp_path, m):
    (tmp_path / "calm.civ").write_text(textwrap.dedent(f"""\
        language 1
        edition calm "No natural events" extends "{RULEBOOK.as_posix()}"
        option natural_events_phase "phase 6 left out" off
        """))
    checked = check_file(tmp_path / "calm.civ")
    if not checked.ok:  # an absolute extends path may be refused: extend the shipped id instead
        (tmp_path / "calm.civ").write_text('language 1\nedition calm "No natural events" extends cardgame\n'
                                           'option natural_events_phase "phase 6 left out" off\n')
    calm = civdsl.load(tmp_path / "calm.civ").module
    new, trace = run(calm, "natural_events", make(calm, farms=2))
    assert trace == [] and new["farms"] == 2


# --- phase 7: cleanup ---------------------------------------------------------------------------------

def test_cleanup_discards_lowest_cards_to_ten_and_clears_round_effects(m):
    st = make(m, hand=["A of Hearts"], emergency_used=True, luxury_bought=3, actions=1,
              choices={"broken_deals": 2})
    st.hand = [("K", "Hearts"), ("2", "Clubs"), ("A", "Spades")] + [(str(n), "Diamonds") for n in range(3, 10)] + \
        [("J", "Clubs"), ("Q", "Clubs")]
    assert len(st.hand) == 12
    new, trace = run(m, "cleanup", st)
    assert len(new.hand) == 10 and [runtime.card_text(c) for c in new.discard] == ["A of Spades", "2 of Clubs"]
    assert new["unrest"] == 20  # two broken deals
    assert new["emergency_used"] is False and new["luxury_bought"] == 0 and new["actions"] == 0


# --- determinism and simulation ---------------------------------------------------------------------

def test_phases_are_deterministic_with_a_seed_and_never_touch_the_global_random(m):
    random.seed(12345)
    before = random.getstate()
    a = simulate(m, rounds=15, runs=20, seed=7)
    b = simulate(m, rounds=15, runs=20, seed=7)
    c = simulate(m, rounds=15, runs=20, seed=8)
    assert a == b and a != c
    assert random.getstate() == before

    def game(seed):
        rng = random.Random(seed)
        st, _ = runtime.new_game(m, rng)
        traces = []
        for _ in range(10):
            st, tr = runtime.play_round(m, st, rng)
            traces.append(tr)
        return st.to_dict(), traces

    assert game(99) == game(99)


def test_phase_functions_never_change_their_input(m):
    st = make(m, hand=["10 of Hearts", "K of Spades"], luxury=30, food=50, farms=1)
    snapshot = st.to_dict()
    run(m, "upkeep", st)
    assert st.to_dict() == snapshot


def test_simulation_reports_distributions(m):
    result = simulate(m, rounds=30, runs=40, seed=1)
    ev = result["events"]
    assert set(ev) >= {"threshold:rebellion_begins", "flag:rebellion_active", "mark:rebellion:6", "end"}
    for e in ev.values():
        assert len(e["by_round"]) == 30
        assert all(a <= b for a, b in zip(e["by_round"], e["by_round"][1:]))  # cumulative
    assert ev["threshold:lose_action"]["share"] > 0
    assert result["stats"]["unrest"]["min"] <= result["stats"]["unrest"]["p50"] <= result["stats"]["unrest"]["max"]


def test_state_errors_name_the_problem(m):
    with pytest.raises(StateError, match="did you mean `unrest`"):
        state_from_data(m, {"stats": {"unrets": 3}}, random.Random(0))
    with pytest.raises(StateError, match="unknown rank `Z`"):
        state_from_data(m, {"hand": ["Z of Hearts"]}, random.Random(0))
    with pytest.raises(StateError, match="each card exists once"):
        state_from_data(m, {"hand": ["A of Hearts"], "discard": ["A of Hearts"]}, random.Random(0))
    with pytest.raises(StateError, match="outside its bounds"):
        state_from_data(m, {"stats": {"rebellion": 9}}, random.Random(0))
    with pytest.raises(StateError, match="unknown choice"):
        state_from_data(m, {"choices": {"buy_farm": 1}}, random.Random(0))
    with pytest.raises(StateError, match="hand limit is 10"):
        state_from_data(m, {"hand": [f"{r} of Hearts" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                                                 "J")]}, random.Random(0))


# --- the CLI ----------------------------------------------------------------------------------------

def test_step_cli_one_phase(tmp_path):
    state = tmp_path / "state.yaml"
    state.write_text(yaml.safe_dump({"stats": {"luxury": 30, "food": 50, "farms": 1},
                                     "hand": ["10 of Hearts", "3 of Diamonds", "K of Spades", "7 of Clubs"]}))
    res = run_cli("step", "cardgame", "--state", str(state), "--phase", "upkeep", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["state"]["stats"]["population"] == 44 and data["state"]["stats"]["unrest"] == 2
    assert any(e["rule"] == "Population calculation" for e in data["trace"])
    res = run_cli("step", "cardgame", "--state", str(state), "--phase", "upkeep")
    assert res.exit_code == 0
    assert "Population calculation: population = 44 (was 0)" in res.output
    assert "cardgame.civ:" in res.output


def test_step_cli_whole_round_is_seeded_and_saves(tmp_path):
    out1, out2 = tmp_path / "a.yaml", tmp_path / "b.yaml"
    for out in (out1, out2):
        res = run_cli("step", "cardgame", "--seed", "4", "--set", "unrest=40", "--save", str(out))
        assert res.exit_code == 0, res.output
    assert out1.read_text() == out2.read_text()
    saved = yaml.safe_load(out1.read_text())
    assert saved["round"] == 1 and len(saved["hand"]) >= 4
    res = run_cli("step", "cardgame", "--state", str(out1), "--seed", "5", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["state"]["round"] == 2


def test_step_cli_errors(tmp_path):
    res = run_cli("step", "cardgame", "--phase", "upkep")
    assert res.exit_code != 0
    assert "did you mean `upkeep`" in res.output
    res = run_cli("step", "megaciv")
    assert res.exit_code != 0
    assert "not played in rounds" in res.output


def test_simulate_cli(tmp_path):
    plot = tmp_path / "events.svg"
    res = run_cli("simulate", "cardgame", "--rounds", "12", "--runs", "25", "--seed", "3",
                  "--plot", str(plot))
    assert res.exit_code == 0, res.output
    assert "100+ unrest: rebellion begins immediately" in res.output and "by 12" in res.output
    svg = plot.read_text()
    assert svg.startswith("<svg") and "polyline" in svg
    res = run_cli("simulate", "cardgame", "--rounds", "12", "--runs", "25", "--seed", "3", "--json")
    data = json.loads(res.output[res.output.index("{"):])
    assert data["runs"] == 25 and data["events"]["threshold:rebellion_begins"]["by_round"][-1] >= 0


# --- the printable reference -------------------------------------------------------------------------

def test_reference_chart():
    ed = check_file(RULEBOOK).edition
    files = render_cardgame_reference(ed)
    md = files["reference.md"]
    # in words for a player: names the rulebook declares, constants by value, no code
    for needle in ("Population becomes the whole part of (luxury × the square root of food ÷ (morale ÷ 10 plus 1)) "
                   "plus military", "| 30–49 | 2 |", "| 100+ | 10 |",
                   "Instead, if food is below population × 4: \\+10 civil unrest", "Rebellion dice",
                   "Government dice", "Capital Threatened", "Drought: halve farm production", "| K | 10 |",
                   "Hand limit: 10 cards.", "civil unrest is at least 100"):
        assert needle in md, needle
    for code in ("`", "<br>", "unrest >= 100", "food_at_start", "⟨"):
        assert code not in md, code
    assert render_cardgame_reference(check_file(ROOT / "rulebooks" / "megaciv.civ").edition) == {}


# --- the language, generically ----------------------------------------------------------------------

GENERIC = """\
language 1
edition dicegame "An invented dice game"
stat score "Score" initial 0 bounds 0..10
stat hits "Hits" initial 0
flag won "Won" off
pool attack "Attack dice" {
  sides 6
  base 3
  success 5..6
}
threshold high "High score" when score >= 5 {
  set won = true
}
phase play "Play" {
  roll h = attack
  set hits = h
  if h == 0 { add score 1 } else if h == 1 { add score 2 } else { add score 3 }
  rule "Chain 'x'); import os; ('" {
    if score > 0 { add hits 100 }
    instead if score > 1 { add hits 200 }
    instead if score > 2 { add hits 300 }
  }
}
end when won "won"
"""


def test_generic_round_rules(tmp_path):
    path = tmp_path / "dicegame.civ"
    path.write_text(GENERIC)
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    mod = civdsl.load(path).module
    st = runtime.new_state(mod)
    # 5, 6, 1: two successes -> +3; the chain: all three conditions hold, the last one wins: 2 + 300
    st, trace = runtime.play_round(mod, st, Dice(5, 6, 1))
    assert (st["score"], st["hits"], st.ended) == (3, 302, None)
    [instead] = entries(trace, "instead")
    assert len(instead["replaces"]) == 2
    assert {e["rule"] for e in trace if e["op"] == "add" and e["name"] == "hits"} == {"Chain 'x'); import os; ('"}
    # 6, 6, 6: three successes -> 6: the threshold switches on, sets `won`, and the game ends
    st, trace = runtime.play_round(mod, st, Dice(6, 6, 6))
    assert st["score"] == 6 and st["won"] is True and st.ended == "won"


@pytest.mark.parametrize("body, code", [
    ("set score = hits / 2", "CIV071"),
    ("set score = sqrt(hits)", "CIV071"),
    ("set score = floor(sqrt(hits))", None),
    ("set score = hits // 2", None),
    ("add score hand_value(color=red)", "CIV072"),
    ("if holds(\"Law\") { add score 1 }", "CIV014"),
    ("move score 1", "CIV072"),
    ("set won = 1", "CIV071"),
    ("add score won", "CIV071"),
    ("roll attack", "CIV072"),
    ("let score = 2", "CIV074"),
    ("set scroe = 1", "CIV072"),
    ("add score scroe", "CIV013"),
])
def test_round_rule_checks(tmp_path, body, code):
    text = GENERIC.replace("  roll h = attack\n", f"  {body}\n  roll h = attack\n")
    path = tmp_path / "x.civ"
    path.write_text(text)
    checked = check_file(path)
    codes = {d.code for d in checked.diagnostics.items}
    if code is None:
        assert checked.ok, checked.diagnostics.render()
    else:
        assert code in codes, checked.diagnostics.render()


def test_other_editions_generate_no_round_section():
    from civdsl.codegen import generate

    checked = check_file(ROOT / "rulebooks" / "megaciv.civ")
    src = generate(checked.edition, {f.display: f.text for f in checked.chain})
    assert "PHASES" not in src and "RoundState" not in src


def test_runtime_errors_name_the_rulebook_line(tmp_path):
    path = tmp_path / "div.civ"
    path.write_text(textwrap.dedent("""\
        language 1
        edition div "Division"
        stat a "A" initial 6
        stat b "B" initial 0
        flag f "F" on
        phase p "P" {
          reset f
          set a = a // b
        }
        """))
    mod = civdsl.load(path).module
    with pytest.raises(runtime.RulebookRuntimeError, match=r"div\.civ:8: ZeroDivisionError"):
        runtime.run_phase(mod, "p", runtime.new_state(mod), Dice())
    st = runtime.new_state(mod)
    st.values.update(b=3, f=False)
    new, trace = runtime.run_phase(mod, "p", st, Dice())
    assert new["a"] == 2 and new["f"] is True and trace[0]["op"] == "reset"


def test_png_plot_needs_matplotlib(tmp_path):
    pytest.importorskip("click")
    try:
        import matplotlib  # noqa: F401
        pytest.skip("matplotlib is installed: PNG plots work")
    except ImportError:
        pass
    res = run_cli("simulate", "cardgame", "--rounds", "2", "--runs", "2", "--plot",
                  str(tmp_path / "p.png"))
    assert res.exit_code != 0 and "write .svg" in res.output
