"""`civdsl explain` words an item's fields from their declaration (civdsl/fields.py): the parts of
its first line, its field lines and its sections come from the table, not from code per field."""

from pathlib import Path

from civdsl import fields
from civdsl.itemexplain import explain_item

HEAD = 'language 1\nedition t "T"\ngroup crafts "Crafts"\ngroup arts "Arts"\ncredit policy best_group\n'


def _explain(tmp_path, body: str, item: str) -> list[str]:
    path = tmp_path / "t.civ"
    path.write_text(HEAD + body, encoding="utf-8")
    return explain_item(str(path), item).splitlines()


def test_every_part_of_a_first_line_is_a_declared_field_with_words():
    for kind, keys in fields.EXPLAIN_HEAD.items():
        for key in keys:
            spec = fields.field(kind, key)
            assert spec is not None and spec.explain, (kind, key)


def test_every_kind_lists_its_notes_last_under_the_declared_title(tmp_path):
    lines = _explain(tmp_path, 'advance "Pottery" { cost 45 groups crafts note "first" note "second" }\n', "Pottery")
    assert lines[lines.index("Notes:"):lines.index("Notes:") + 3] == ["Notes:", "  first", "  second"]
    assert lines.index("Notes:") > lines.index("Prerequisites:")


def test_the_first_line_follows_the_declared_order_and_words(tmp_path):
    lines = _explain(tmp_path, 'advance "Pottery" { cost unknown groups crafts, arts vp 2 supply 3 }\n', "Pottery")
    assert lines[2] == "cost unknown, 2 VP; groups Crafts, Arts; supply 3 cards"
    lines = _explain(tmp_path, 'advance "Pottery" { cost 45 groups crafts }\n', "Pottery")
    assert lines[2] == "cost 45; group Crafts"


def test_a_commodity_without_a_stack_says_none(tmp_path):
    lines = _explain(tmp_path, 'commodity "Water" { value 0 count 2 printed 0, 0 aka "Aqua" }\n', "Water")
    assert lines[2:6] == ["value 0, 2 cards, stack none", "defined at " + str(tmp_path / "t.civ") + ":6",
                          "printed set values: 0, 0", "also called: Aqua"]


def test_a_section_with_nothing_in_it_says_the_declared_words_or_is_left_out(tmp_path):
    lines = _explain(tmp_path, 'calamity "Flood" { stack 3 class minor primary { damage(1) } }\n', "Flood")
    modifiers = fields.field("calamity", "modifier").section
    assert lines[lines.index(f"{modifiers}:") + 1] == "  none"
    assert "Secondary victims:" not in lines and "Cancelled when:" not in lines
    assert "Who may not be a secondary victim:" not in lines


def test_a_player_fact_is_explained_with_every_rule_that_reads_it(tmp_path):
    lines = _explain(tmp_path, 'calamity "Flood" { stack 3 class minor primary { damage(1) }\n'
                               '  cancel when cities >= 3 }\n', "cities")
    assert lines[0].startswith("cities: a player fact in ")
    assert "a state gives it as `cities: 3`" in lines
    assert "Rules of this rulebook that read it (1):" in lines
    assert any(line.startswith("  calamity Flood  ") and line.endswith("t.civ:7") for line in lines)
    unread = _explain(tmp_path, "", "others_hold")
    assert "a state gives it as `others_hold: {Pottery: 2}`" in unread
    assert unread[-1] == "Rules of this rulebook that read it: none"
