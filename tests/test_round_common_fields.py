"""`summary`, `aka` and `note` inside a dice pool, track, event table or deck: a round item keeps
them as an advance or a calamity does, and they reach the model, its JSON and the round reference."""

from __future__ import annotations

import textwrap
from pathlib import Path

from civdsl.frontend import check_file
from civdsl.rounds.reference import render_round_reference
from civdsl.serialize import to_data
from civdsl.rounds.model import rules

RULES = textwrap.dedent("""\
    language 1
    edition tiny "A tiny round game"
    source "test"
    stat gold "Gold" initial 0
    pool coins "Coin dice" {
      sides 6
      base 2
      summary "Two dice, for the coins of a round."
      aka "Treasury dice"
      note "Rolled at the start of every round."
    }
    track fame "Fame track" {
      start 0
      bounds 0..5
      summary "How famous the city is."
      aka "Glory track"
      note "The marker never leaves the track."
    }
    event_table omens "Omens" die 2 {
      1: "Good omen" { add gold 1 }
      2: "Bad omen" { add gold -1 }
      summary "One die of two sides, every round."
      aka "Signs"
      note "The seed names only two omens; we read one each."
    }
    deck hand "Hand cards" {
      suit "Coins" gold_suit
      rank "Ace" value 1
      summary "One card of each rank in each suit."
      aka "The deck"
      note "A single suit in this test."
    }
    phase income "Income" { add gold 1 }
    end when gold >= 10 "Ten gold wins."
    """)


def _check(tmp_path: Path, text: str = RULES):
    path = tmp_path / "tiny.civ"
    path.write_text(text, encoding="utf-8")
    return check_file(path)


def test_round_items_keep_summary_aka_and_notes(tmp_path):
    checked = _check(tmp_path)
    assert checked.ok, checked.diagnostics.render()
    ed = rules(checked.edition)
    for item, summary, aka, note in [
        (ed.pools["coins"], "Two dice, for the coins of a round.", "Treasury dice", "Rolled at the start of every round."),
        (ed.tracks["fame"], "How famous the city is.", "Glory track", "The marker never leaves the track."),
        (ed.event_tables["omens"], "One die of two sides, every round.", "Signs",
         "The seed names only two omens; we read one each."),
        (ed.card_decks["hand"], "One card of each rank in each suit.", "The deck", "A single suit in this test."),
    ]:
        assert (item.summary, item.aka, item.notes) == (summary, [aka], [note]), item.name
    assert [r.label for r in ed.event_tables["omens"].rows] == ["Good omen", "Bad omen"]


def test_the_json_model_carries_them(tmp_path):
    rounds = to_data(_check(tmp_path).edition)["rounds"]
    table = rounds["event_tables"][0]
    assert table["notes"] == ["The seed names only two omens; we read one each."]
    assert table["summary"] == "One die of two sides, every round." and table["aka"] == ["Signs"]
    for key in ("pools", "tracks", "decks"):
        item = rounds[key][0]
        assert item["summary"] and item["aka"] and item["notes"], key


def test_the_round_reference_shows_them(tmp_path):
    text = render_round_reference(_check(tmp_path).edition)["reference.md"]
    assert "*Two dice, for the coins of a round.*" in text and "also called Treasury dice" in text
    assert "**Fame track** (also called Glory track) \u2014 *How famous the city is.*" in text
    assert "**Omens** (also called Signs) \u2014 *One die of two sides, every round.*: roll one 2-sided die" in text
    assert "- *Reading:* The seed names only two omens; we read one each." in text
    assert "*One card of each rank in each suit.*" in text


def test_a_second_summary_is_an_error(tmp_path):
    text = RULES.replace('  aka "Signs"\n', '  summary "Again."\n')
    checked = _check(tmp_path, text)
    assert not checked.ok
    [d] = checked.diagnostics.errors
    assert d.code == "CIV021" and "`summary` given twice for `omens`" in d.message


def test_fmt_keeps_the_common_fields_of_an_event_table(tmp_path):
    from civdsl.fmt import format_text

    once = format_text(RULES)
    assert format_text(once) == once
    assert '  2: "Bad omen" { add gold -1 }\n  summary "One die of two sides, every round."\n  aka "Signs"\n' in once
    assert rules(_check(tmp_path, once).edition).event_tables["omens"].notes == [
        "The seed names only two omens; we read one each."]
