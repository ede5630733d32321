"""A rule's answer kept by what the rule read (civdsl/ledger/reads.py): the ledger's start credits
are worked out once per set of values their rule reads, and given again to any state that reads
the same values there, whatever else differs."""

from __future__ import annotations

from civdsl import startcredits
from civdsl.api import load
from civdsl.ledger.reads import Memo, ReadingState
from civdsl.runtime import PlayerState


def state(module, held=(), **facts):
    return PlayerState(module, held, facts, {})


def test_a_rule_s_answer_is_kept_for_states_that_differ_only_where_it_does_not_read():
    m = load("megaciv").module
    calls = []
    memo = Memo(lambda s: calls.append(1) or startcredits.start_credits(m, s))
    five = memo(state(m, ["Pottery"], players=5, treasury=3, commodities={"Ochre": 2}))
    assert five["per_group"] == 10  # chapter 4: 10 of each colour in a 5-player game
    again = memo(state(m, ["Pottery", "Mysticism"], players=5, treasury=9))
    assert again is five and len(calls) == 1
    twelve = memo(state(m, ["Pottery"], players=12))
    assert twelve["per_group"] == 5 and len(calls) == 2
    short = memo(state(m, ["Pottery"], players=5, scenario="The Short Game"))
    assert short["per_group"] == 0 and len(calls) == 3  # chapter 10: none in The Short Game


def test_a_reading_state_records_facts_options_and_holdings_read():
    m = load("megaciv").module
    st = ReadingState(m, ["Pottery"], {"players": 5, "cities": 2}, {})
    st.fact("players")
    st.option("first_game_without_start_credits")
    assert set(st.log) == {("fact", "players"), ("option", "first_game_without_start_credits")}
    copy = type(st)(m, st.held, st.facts, st.options)  # a rule's own state: passing the holdings on reads nothing
    assert ("held", None) not in st.log and copy.log is st.log
    assert copy.holds("Pottery")
    assert st.log[("held", None)] == ("Pottery",)


def test_a_rule_that_reads_the_whole_state_is_answered_again_only_for_the_same_state():
    m = load("megaciv").module
    calls = []
    memo = Memo(lambda s: calls.append(1) or sorted(s.facts.items()))
    memo(state(m, players=5, cities=1))
    memo(state(m, players=5, cities=1))
    memo(state(m, players=5, cities=2))
    assert len(calls) == 2


def test_every_state_of_a_recorded_game_gets_the_start_credits_its_rule_gives(monkeypatch):
    # the memo's answer against the rule worked out afresh, for every state a replay builds (Mega
    # Civilization: 10 credits of each colour with 5 players, none with 18, chapter 4)
    from pathlib import Path

    from civdsl.ledger import gamefile, play

    built = []
    original = play.Game._build_state

    def keep(self, player, extra):
        st = original(self, player, extra)
        built.append((self.module, st))
        return st

    monkeypatch.setattr(play.Game, "_build_state", keep)
    root = Path(__file__).resolve().parents[1]
    for name in ("megaciv-5.yaml", "megaciv-18.yaml", "expansion-6.yaml", "civ1981-5.yaml"):
        gf = gamefile.read(root / "tests" / "games" / name)
        gamefile.replay(load(gf.setup["edition"]), gf)
    assert len(built) > 100
    for module, st in built:
        plain = PlayerState(module, st.held, {k: v for k, v in st.facts.items() if k != "credits"}, st.options)
        assert st.start_credits == startcredits.start_credits(module, plain)


def test_a_reading_states_copies_stay_reading_states_and_record_into_its_log():
    """A rule that asks a question of a copy (an epoch counted with one fact changed, a probe) has
    read what the copy read: the copy is of the reading state's kind and shares its log."""
    m = load("megaciv").module
    st = ReadingState(m, ["Pottery"], {"players": 5, "cities": 2}, {})
    for copy in (st.with_fact("cities", 4), st.for_question(), st.probe()):
        assert type(copy) is ReadingState and copy.log is st.log
    counted = st.with_fact("cities", 4)
    assert counted.fact("cities") == 4 and st.fact("cities") == 2
    counted.option("first_game_without_start_credits")
    assert counted.holds("Pottery")
    assert {("option", "first_game_without_start_credits"), ("held", None), ("fact", "cities")} <= set(st.log)
    assert counted.held_set is st.held_set  # a copy's holdings are the same set, not a new one
