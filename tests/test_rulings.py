"""Rulings: every shipped ruling holds, a changed number in a rulebook makes one fail, and house
rules that change an inherited ruling's answer say so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import civdsl
from civdsl import rulings
from civdsl.diagnostics import Diagnostics
from civdsl.frontend import check_file
from civdsl.resources import shipped_rulebooks

ROOT = Path(__file__).resolve().parent.parent
HOUSE = sorted((ROOT / "rulebooks" / "house").glob("*.civ"))


def _checked(path: Path) -> tuple[list[rulings.Outcome], Diagnostics]:
    diags = Diagnostics()
    checked = check_file(path, diags)
    assert checked.ok, diags.render(color=False)
    outcomes = rulings.check(checked.edition, civdsl.load(path), diags)
    return outcomes, diags


def _codes(diags: Diagnostics) -> list[tuple[str, str, str]]:
    return [(d.level, d.code, d.item) for d in diags.items if d.code.startswith("CIV18")]


@pytest.mark.parametrize("edition", ["civ1980", "civ1981", "expansion", "megaciv"])
def test_every_shipped_ruling_holds(edition):
    path = ROOT / "rulebooks" / f"{edition}.civ"
    outcomes, diags = _checked(path)
    assert outcomes, f"{edition} has no rulings"
    assert [o.reading.ruling.name for o in outcomes if not o.holds] == []
    assert _codes(diags) == []


def test_every_shipped_edition_with_advances_has_rulings():
    for edition in shipped_rulebooks():
        ed = check_file(ROOT / "rulebooks" / f"{edition}.civ").edition
        if ed.advances:
            assert ed.rulings, f"{edition} records no worked example as a ruling"


@pytest.mark.parametrize("path", HOUSE, ids=lambda p: p.stem)
def test_a_shipped_house_rule_overrules_every_ruling_it_changes(path):
    _, diags = _checked(path)
    assert [c for c in _codes(diags) if c[0] != "note"] == []


def test_a_house_rule_changing_an_inherited_answer_is_named_and_overruled():
    _, diags = _checked(ROOT / "rulebooks" / "house" / "gentle.civ")
    [note] = [d for d in diags.items if d.code == "CIV182"]
    assert note.level == "note" and note.item == "famine_agriculture"
    assert "expected damage == 15, got 13" in note.message


def _mutated(tmp_path: Path, edition: str, old: str, new: str) -> Path:
    """A copy of a shipped rulebook with one number changed."""
    text = (ROOT / "rulebooks" / f"{edition}.civ").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    out = tmp_path / f"{edition}.civ"
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


# one changed number per edition, and the ruling it must break
MUTATIONS = [
    ("megaciv", 'when holds("Agriculture") for primary { add damage 5 }',
     'when holds("Agriculture") for primary { add damage 6 }', "famine_agriculture"),
    ("civ1980", 'credit "Literacy" 15', 'credit "Literacy" 10', "literacy_one_credit"),
    ("expansion", 'credits arts 10, civics 5\n  credit "Architecture" 10', 'credits arts 15, civics 5\n  credit "Architecture" 10',
     "diplomacy_credits"),
]


@pytest.mark.parametrize("edition, old, new, ruling", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_changed_number_makes_a_ruling_fail(tmp_path, edition, old, new, ruling):
    outcomes, diags = _checked(_mutated(tmp_path, edition, old, new))
    failed = [d for d in diags.items if d.code == "CIV180"]
    assert ruling in [d.item for d in failed]
    assert all(d.level == "error" for d in failed)


def test_a_changed_credit_makes_the_purchase_example_fail(tmp_path):
    text = (ROOT / "rulebooks" / "civ1981.civ").read_text(encoding="utf-8")
    # Mysticism's Arts credit of 5 (17.5): the per-card credit of the Arts group
    out = tmp_path / "civ1981.civ"
    mysticism = text.index('advance "Mysticism"')
    block_end = text.index("}", mysticism)
    block = text[mysticism:block_end]
    assert "credits" in block
    import re

    changed = re.sub(r"arts 5\b", "arts 10", block, count=1)
    assert changed != block
    out.write_text(text[:mysticism] + changed + text[block_end:], encoding="utf-8")
    _, diags = _checked(out)
    assert "music_purchase" in [d.item for d in diags.items if d.code == "CIV180"]


def test_a_failing_ruling_shows_expected_got_and_the_trace(tmp_path):
    path = _mutated(tmp_path, *MUTATIONS[0][:3])
    _, diags = _checked(path)
    [d] = [d for d in diags.items if d.code == "CIV180" and d.item == "famine_agriculture"]
    assert "expected damage == 15, got 16" in d.message
    assert any("Agriculture: add damage 10 -> 16" in n for n in d.notes)
    assert any(n.startswith("cited: chapter 8") for n in d.notes)


def test_an_incomplete_answer_never_counts_as_the_expected_one(tmp_path):
    """A ruling whose answer depends on a fact the situation does not give fails, and says which."""
    path = tmp_path / "h.civ"
    path.write_text('language 1\nedition h "H" extends megaciv\n'
                    'ruling piracy "How many cities turn pirate?" {\n  player()\n  resolve("Piracy")\n'
                    '  expect(pirate_cities == 2)\n  cite("chapter 8")\n}\n', encoding="utf-8")
    _, diags = _checked(path)
    [d] = [d for d in diags.items if d.code == "CIV180"]
    assert "got 2 in an incomplete answer (the answer depends on coastal_cities)" in d.message


def test_a_table_ruling_runs_the_table_engine():
    rb = civdsl.load("expansion")
    ed = check_file(ROOT / "rulebooks" / "expansion.civ").edition
    outcome = rulings.run(rb, rulings.read(ed.rulings["tyranny_annex"]))
    assert outcome.holds
    assert outcome.got["beneficiary"] == "Africa" and outcome.got["Egypt.annex_unit_points"] == 8


def test_a_ruling_is_listed_under_the_items_it_is_about():
    ed = check_file(ROOT / "rulebooks" / "megaciv.civ").edition
    assert "famine_agriculture" in [r.name for r in rulings.rulings_of(ed, "Famine")]
    assert "famine_agriculture" in [r.name for r in rulings.rulings_of(ed, "Agriculture")]
    assert "purchase_example_2" in [r.name for r in rulings.rulings_of(ed, "Masonry")]
    assert rulings.citation_text(ed.rulings["famine_agriculture"]) == "chapter 8, Famine"


def test_the_citation_kinds_are_named():
    ed = check_file(ROOT / "rulebooks" / "civ1981.civ").edition
    assert rulings.citation_text(ed.rulings["calamity_floor_on"]).startswith("24.1")


def test_check_runs_the_rulings_of_the_whole_chain(tmp_path):
    """A house rule two files away from a ruling's base still runs it."""
    shutil.copy(ROOT / "rulebooks" / "house" / "gentle.civ", tmp_path / "gentle.civ")
    child = tmp_path / "harsh.civ"
    child.write_text('language 1\nedition harsh "Harsh" extends "gentle.civ"\n'
                     'change calamity "Famine" {\n  primary { damage(20) }\n  summary "The primary victim takes 20."\n}\n',
                     encoding="utf-8")
    _, diags = _checked(child)
    [d] = [d for d in diags.items if d.code == "CIV182"]
    # gentle overrules famine_agriculture, and that holds for a rule built on gentle too
    assert d.level == "note" and "got 25" in d.message


# --- an item's rulings, shown under it ---------------------------------------------------------

def test_the_answer_is_shown_in_a_players_words():
    ed = check_file(ROOT / "rulebooks" / "megaciv.civ").edition
    s = rulings.summary(ed.rulings["famine_agriculture"])
    assert s["answer"] == "points of damage: 15; secondary victims: 3; each secondary victim, points of damage: 5"
    assert rulings.summary(ed.rulings["purchase_example_1"])["answer"] == "Drama and Poetry costs 70; Mysticism costs 40"


def test_explain_lists_the_items_rulings():
    from civdsl.itemexplain import explain_item

    text = explain_item("megaciv", "Famine")
    section = text[text.index("\nRulings:"):]
    assert "Does Agriculture make famine worse for its primary victim? points of damage: 15" in section
    assert "(chapter 8, Famine)  rulebooks/megaciv.civ:" in section
    assert "\nRulings:" not in explain_item("megaciv", "Tempest")


def test_the_calamities_and_advances_charts_list_rulings_under_their_items():
    from civdsl.charts import builders

    ed = check_file(ROOT / "rulebooks" / "megaciv.civ").edition
    [cal] = [t for t in builders.calamities_chart(ed).tables if t.slug == "calamity-rulings"]
    about = [r.cells[0] for r in cal.rows]
    assert len(about) == len([1 for n in ed.calamities for _ in rulings.rulings_of(ed, n)])
    [adv] = [t for t in builders.advances_chart(ed).tables if t.slug == "advance-rulings"]
    assert len(adv.rows) == len([1 for n in ed.advances for _ in rulings.rulings_of(ed, n)])
    cardgame = check_file(ROOT / "rulebooks" / "cardgame.civ").edition
    assert not [t for t in builders.calamities_chart(cardgame).tables if t.slug == "calamity-rulings"]


def test_hover_on_an_item_lists_its_rulings():
    from civdsl.lsp import Engine, hover_text

    path = ROOT / "rulebooks" / "megaciv.civ"
    text = path.read_text(encoding="utf-8")
    engine = Engine()
    doc = engine.open(path.resolve().as_uri(), text, 1)
    analysis = engine.analyse(doc)
    hover, _ = hover_text(analysis, text.index('calamity "Famine"') + 11)
    assert "Rulings:\n- Does Agriculture make famine worse for its primary victim? points of damage: 15" in hover


def test_the_companion_page_lists_the_rulings_escaped():
    from civdsl.companion.page import rulings_section

    ed = check_file(ROOT / "rulebooks" / "civ1981.civ").edition
    html = rulings_section(ed)
    assert html.count("<li>") == len(ed.rulings)
    assert "Mysticism&#x27;s 20 Sciences credit" in html and "Music costs 55" in html
    cardgame = check_file(ROOT / "rulebooks" / "cardgame.civ").edition
    assert rulings_section(cardgame) == ""


@pytest.mark.parametrize("calls, message", [
    ('player() border("a") table("Famine", victim="a") expect(complete) cite("x")',
     "`border` names two players and how they border"),
    ('player() cost("Pottery") expect(total == 60) cite(faq=3)', "cite `faq` is words in quotes"),
    ('player(holds(1)) resolve("Famine") expect(damage == 1) cite("x")', "`holds` takes names (strings)"),
    ('player() score() expect(total > 3) cite("x")', "an expectation compares a value of the answer with a literal"),
    ('player() resolve("Famine", role="tertiary") expect(damage == 10) cite("x")', "role must be primary or secondary"),
    ('player("a") table("Famine", victim="zz") expect(complete) cite("x")', "unknown player `zz`"),
])
def test_a_malformed_ruling_is_a_located_error_never_a_crash(tmp_path, calls, message):
    path = tmp_path / "h.civ"
    path.write_text(f'language 1\nedition h "H" extends megaciv\nruling r "?" {{ {calls} }}\n', encoding="utf-8")
    _, diags = _checked(path)
    [d] = [d for d in diags.items if d.code == "CIV181"]
    assert message in d.message and d.span.line == 3
