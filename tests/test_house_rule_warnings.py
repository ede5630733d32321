"""House rules that probably say less than they mean get a warning: a modifier that stacks on
the base's identical one (CIV131), and a change of what an item does that keeps the base's
summary (CIV132). Edits that replace or describe what they change get none."""

from __future__ import annotations

import textwrap

import pytest

from civdsl.frontend import check_file


def _codes(tmp_path, body: str) -> list[str]:
    path = tmp_path / "house.civ"
    path.write_text("language 1\nedition house \"House\" extends civ1981\n" + textwrap.dedent(body), encoding="utf-8")
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    return [d.code for d in checked.diagnostics.items if d.level == "warning"]


def test_a_modifier_with_the_condition_and_role_of_a_base_modifier_warns(tmp_path):
    assert _codes(tmp_path, '''
        change calamity "Famine" { when holds("Pottery") { prevent damage 2 } }
    ''') == ["CIV131"]


@pytest.mark.parametrize("body", [
    # dropped first: the new modifier replaces the base's
    'change calamity "Famine" { drop when holds("Pottery")  when holds("Pottery") { prevent damage 2 } }',
    # another role: the two apply to different victims
    'change calamity "Famine" { when holds("Pottery") for primary { prevent damage 2 } }',
    # another condition
    'change calamity "Famine" { when holds("Pottery") and holds("Agriculture") { prevent damage 2 } }',
])
def test_replacing_or_distinct_modifiers_do_not_warn(tmp_path, body):
    assert _codes(tmp_path, body) == []


@pytest.mark.parametrize("body", [
    'change advance "Cloth Making" { ability ship_range(2) }',
    'change calamity "Famine" { primary { damage(12) } }',
])
def test_changing_what_an_item_does_without_a_summary_warns(tmp_path, body):
    assert _codes(tmp_path, body) == ["CIV132"]


@pytest.mark.parametrize("body", [
    # a summary that says what it now does
    'change advance "Cloth Making" { ability ship_range(2)  summary "Ships move two more areas." }',
    # the same ability again: nothing it does has changed
    'change advance "Cloth Making" { ability ship_range(1) }',
    # cost and credits are not what the summary describes
    'change advance "Cloth Making" { vp 2 }',
])
def test_changes_that_keep_the_summary_true_do_not_warn(tmp_path, body):
    assert _codes(tmp_path, body) == []


def test_shipped_house_rules_draw_no_warning():
    from civdsl.resources import shipped_house_rules

    for path in shipped_house_rules():
        checked = check_file(path)
        assert not [d for d in checked.diagnostics.items if d.level == "warning"], checked.diagnostics.render()
