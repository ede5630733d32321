"""`civdsl diff A B`: a semantic diff of two rulebooks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from civdsl.diff import diff, load_edition, render_md, render_text
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "rulebooks" / "house"


def _texts(a, b) -> list[str]:
    """The changes to the rules (summaries and notes left out)."""
    return [c.text for c in diff(load_edition(a), load_edition(b)) if c.section != "prose"]


def _write(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(body, encoding="utf-8")
    return path


BASE = '''language 1
edition base "Base"
const hand_limit = 8
group crafts "Crafts"
group arts "Arts"
credit policy best_group
advance "Pottery" { cost 60 groups crafts credits crafts 10 credit "Agriculture" 10 }
advance "Agriculture" { cost 120 groups crafts credits crafts 10 }
advance "Drama & Poetry" { cost 80 groups arts credits arts 10 }
calamity "Famine" {
  stack 3
  class major nontradable
  primary { damage(10) }
  secondary count 3 { damage(5) }
  when holds("Pottery") { prevent damage 5 }
  when holds("Agriculture") for primary { add damage 5 }
}
calamity "Epidemic" {
  stack 6
  class major tradable
  primary { damage(15) }
  when holds("Drama & Poetry") { prevent damage 1 }
}
commodity "Grain" { value 4 count 8 stack 4 }
ast basic "Basic" {
  epoch "Stone Age" { }
  epoch "Bronze Age" { require cities >= 2 "two cities" }
}
score {
  points "Cities" cities
  tiebreak "A" ast_position
}
'''

NEXT = '''language 1
edition next "Next"
const hand_limit = 9
group crafts "Crafts"
group arts "Arts"
credit policy per_card
advance "Pottery" { cost 50 groups crafts credits crafts 10, arts 5 credit "Agriculture" 20 }
advance "Agriculture" { cost 120 groups crafts credits crafts 10 requires "Pottery" }
advance "Drama and Poetry" { cost 80 groups arts credits arts 10 aka "Drama & Poetry" }
advance "Anatomy" { cost 270 groups crafts }
calamity "Famine" {
  stack 3
  class major nontradable
  primary { damage(8) }
  secondary count 3 { damage(5) }
  when holds("Pottery") { prevent damage 8 }
}
calamity "Epidemic" {
  stack 6
  class major tradable
  primary { damage(15) }
  when holds("Drama and Poetry") { prevent damage 1 }
  when holds("Anatomy") for secondary { prevent damage 5 }
}
commodity "Grain" { value 4 count 9 stack 4 }
ast basic "Basic" {
  epoch "Stone Age" { }
  epoch "Bronze Age" { require cities >= 3 "three cities" }
  epoch "Iron Age" { require advances >= 3 }
}
score {
  points "Cities" cities * 2
  points "Advances" advance_points
  tiebreak "A" ast_position
}
'''


@pytest.fixture
def pair(tmp_path):
    return _write(tmp_path, "base.civ", BASE), _write(tmp_path, "next.civ", NEXT)


def test_field_by_field(pair):
    texts = _texts(str(pair[0]), str(pair[1]))
    for expected in [
        "const hand_limit 8 -> 9",
        "credit policy best_group -> per_card",
        "Pottery: cost 60 -> 50",
        "Pottery: + credits arts 5",
        'Pottery: credit "Agriculture" 10 -> 20',
        'Agriculture: + requires "Pottery"',
        "+ Anatomy: cost 270; crafts",
        "Famine: primary damage 10 -> 8",
        "Famine: modifier Pottery: 5 fewer points of damage -> 8 fewer points of damage",
        "Famine: - modifier Agriculture (primary victim): 5 more points of damage",
        "Epidemic: + modifier Anatomy (secondary victim): 5 fewer points of damage",
        "Grain: count 8 -> 9",
        'basic / Bronze Age: - require cities >= 2 "two cities"',
        'basic / Bronze Age: + require cities >= 3 "three cities"',
        'basic: + epoch "Iron Age" (position 3): advances >= 3',
        'points "Cities" cities -> cities * 2',
        '+ points "Advances" advance_points',
    ]:
        assert any(t.startswith(expected) for t in texts), (expected, texts)


def test_renames_follow_aka_and_rename_references(pair):
    texts = _texts(str(pair[0]), str(pair[1]))
    assert "Drama & Poetry is now called Drama and Poetry (aka)" in texts
    # the modifier that names the renamed advance is not reported as removed and added
    assert not any("Epidemic" in t and "Drama" in t for t in texts), texts
    assert not any(t.startswith("- Drama") or t.startswith("+ Drama") for t in texts)


def test_identical_rulebooks_have_no_differences(pair):
    assert diff(load_edition(str(pair[0])), load_edition(str(pair[0]))) == []
    a = load_edition(str(pair[0]))
    assert "no differences in the rules" in render_text(a, a, [])


def test_editions_1980_and_1981():
    texts = _texts("civ1980", "civ1981")
    assert "Drama & Poetry is now called Drama and Poetry (aka)" in texts
    assert 'Drama and Poetry: + credit "Democracy" 10' in texts
    assert "Iconoclasm & Heresy is now called Iconoclasm and Heresy (aka)" in texts
    assert "Spices is now called Spice (aka)" in texts
    assert "Famine: stack 4 -> 3" in texts
    assert "Civil War: + cancel when unit_points <= 35" in texts
    assert 'standard: epoch 1 "1st Epoch" is now called "New Stone Age"' in texts
    # a renamed calamity's modifiers are compared with its old self, not added wholesale
    assert not any(t.startswith("+ Iconoclasm") for t in texts)


def test_house_rule_against_its_base():
    texts = _texts("megaciv", str(HOUSE / "gentle.civ"))
    assert "Famine: primary damage 10 -> 8" in texts
    assert "Famine: secondary damage 5 -> 4" in texts
    assert "Famine: modifier Pottery: 5 fewer points of damage -> 8 fewer points of damage" in texts
    assert "Epidemic: primary damage 15 -> 12" in texts
    assert "extends nothing -> megaciv" in texts
    # the ruling whose answer it changes on purpose, with its question and why
    assert ('+ overrules ruling famine_agriculture ("Does Agriculture make famine worse for its primary victim?"): '
            '"the primary victim starts from 8 damage, not 10, so Agriculture\'s 5 more make 13"') in texts
    # nothing it does not touch
    assert not any(t.startswith(("Tempest", "Pottery", "+ ", "- ")) for t in texts if "overrules" not in t), texts


def test_house_on_house_and_mixed_arguments():
    texts = _texts(str(HOUSE / "gentle.civ"), str(HOUSE / "gentle_granary.civ"))
    assert "Pottery: cost 60 -> 50" in texts
    assert "Famine: modifier Pottery: 8 fewer points of damage -> 4 fewer points of damage per Grain card held" in texts
    assert not any(t.startswith("Epidemic") for t in texts)


def test_text_md_and_json_output(pair):
    res = run_cli("diff", str(pair[0]), str(pair[1]))
    assert res.exit_code == 0, res.output
    assert "Famine: primary damage 10 -> 8" in res.output
    assert "\x1b[" not in res.output  # colour only on a terminal
    assert "Advances (1 added" in res.output
    res = run_cli("diff", str(pair[0]), str(pair[1]), "--format", "md")
    assert res.exit_code == 0
    assert res.output.startswith("# Base → Next")
    assert "## Calamities" in res.output and "- Famine: primary damage 10 -> 8" in res.output
    res = run_cli("diff", str(pair[0]), str(pair[1]), "--json")
    data = json.loads(res.output)
    assert data["command"] == "diff" and data["rulebooks"] == ["base", "next"]
    assert data["format"] == "civdsl-diff/1"
    assert data["from"]["id"] == "base" and data["to"]["id"] == "next"
    famine = [c for c in data["changes"] if c["item"] == "Famine" and c["field"] == "primary damage.amount"]
    assert famine == [{"section": "calamities", "op": "changed", "item": "Famine", "field": "primary damage.amount",
                       "old": "10", "new": "8", "text": "Famine: primary damage 10 -> 8"}]


def test_colour_when_asked(pair):
    a, b = load_edition(str(pair[0])), load_edition(str(pair[1]))
    out = render_text(a, b, diff(a, b), color=True)
    assert "\x1b[32m+ Anatomy" in out  # green for added
    md = render_md(a, b, diff(a, b))
    assert "\x1b[" not in md


def test_prose_is_counted_or_listed(tmp_path):
    a = _write(tmp_path, "a.civ", 'language 1\nedition a "A"\nnote "one"\n')
    b = _write(tmp_path, "b.civ", 'language 1\nedition b "A"\nnote "two"\n')
    res = run_cli("diff", str(a), str(b))
    assert "to summaries, notes or descriptions not shown" in res.output
    res = run_cli("diff", str(a), str(b), "--prose")
    assert '+ note "two"' in res.output and '- note "one"' in res.output


def test_a_field_sharing_its_keyword_is_named_by_its_words(tmp_path):
    house = _write(tmp_path, "h.civ", 'language 1\nedition h "Fewer mystics" extends civ1981\n'
                                      'table mystics "Mysticism in use" {\n  2..7: 1,\n}\n'
                                      'change advance "Mysticism" { supply table mystics }\n')
    a, b = load_edition("civ1981"), load_edition(str(house))
    lines = render_text(a, b, diff(a, b)).splitlines()
    assert "  Mysticism: cards in use by players mysticism_cards_by_players -> mystics" in lines


def test_errors_are_reported(tmp_path):
    res = run_cli("diff", "megaciv", "megacv")
    assert res.exit_code == 1
    assert "did you mean `megaciv`" in res.output
    bad = _write(tmp_path, "bad.civ", 'language 1\nedition bad "B"\nconst x = \n')
    res = run_cli("diff", str(bad), "megaciv")
    assert res.exit_code == 1
    assert "error[CIV001]" in res.output


def test_round_rules_are_compared_generically(tmp_path):
    from civdsl.resources import shipped_rulebooks

    if "cardgame" not in shipped_rulebooks():
        pytest.skip("no shipped rulebook with round rules")
    text = (ROOT / "rulebooks" / "cardgame.civ").read_text(encoding="utf-8")
    stat = re.search(r'^stat food "Food" initial (\d+)', text, re.M)
    if stat is None:
        pytest.skip("cardgame.civ no longer declares `stat food` as this test expects")
    house = _write(tmp_path, "h.civ", 'language 1\nedition h "H" extends cardgame\n'
                                      f'stat food "Food" initial {int(stat.group(1)) + 2} bounds 0..\n')
    texts = _texts("cardgame", str(house))
    assert f"stat food: initial {stat.group(1)} -> {int(stat.group(1)) + 2}" in texts
    assert not any(t.startswith("stat food: line") for t in texts)


def test_every_item_field_is_compared():
    """The one diff engine compares items field by field from fields.ITEM_FIELDS: a field has a
    comparer of its own (`_<kind>_<key>`) or its model attribute is compared as a value."""
    from civdsl import fields
    from civdsl import model
    from civdsl.diff import Differ

    classes = {"advance": model.Advance, "calamity": model.Calamity, "commodity": model.Commodity}
    for kind, cls in classes.items():
        sample = cls("x", None)
        for spec in fields.ITEM_FIELDS[kind]:
            if spec.prose or spec.change_only:
                continue
            assert hasattr(Differ, f"_{kind}_{spec.key}") or hasattr(sample, spec.model_attr), (kind, spec.key)


def test_a_changed_amounts_setting_is_a_difference(tmp_path):
    from civdsl.diff import diff, load_edition

    house = tmp_path / "h.civ"
    house.write_text('language 1\nedition h "H" extends megaciv\n'
                     'change calamity "Famine" { amounts { order add_prevent, set, cap } }\n', encoding="utf-8")
    changes = [c for c in diff(load_edition("megaciv"), load_edition(str(house))) if c.field == "amounts"]
    assert [(c.item, c.op) for c in changes] == [("Famine", "changed")]
    assert changes[0].text.startswith("Famine: amounts the edition's -> order add_prevent, set, cap")
