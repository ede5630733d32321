"""The printed clauses: citations in the language, clause lists, the segmenter and `civdsl cover`.

Tests that read the seed texts skip when ../shared/seeds is absent (the texts are never committed).
"""

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import run_cli

from civdsl import api, clauses, coverage, frontend
from civdsl.diagnostics import Diagnostics
from civdsl.segment import segment, segment_copy

ROOT = Path(__file__).resolve().parents[1]
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
LISTS = ROOT / "rulebooks" / "clauses"
# each shipped clause list and the seed its fingerprints were made from
SEED_OF = {"civ1980": "000", "civ1981": "001", "expansion": "002", "cardgame": "003", "megaciv": "004"}
SHIPPED = sorted(p.stem for p in LISTS.glob("*.clauses"))


def _seed(edition: str) -> Path:
    found = sorted(SEEDS.glob(f"{SEED_OF[edition]}_*.txt")) if SEEDS.is_dir() else []
    if not found:
        pytest.skip("the seed texts are not here (../shared/seeds)")
    return found[0]


def _listed(edition: str) -> clauses.ClauseList:
    diags = Diagnostics()
    listed = clauses.read(LISTS / f"{edition}.clauses", diags)
    assert not diags.items, diags.render()
    return listed


def _check(tmp_path: Path, text: str, listed: str | None = None, edition: str = "t") -> frontend.Checked:
    book = tmp_path / "book.civ"
    book.write_text(f'language 1\nedition {edition} "T"\n' + text, encoding="utf-8")
    if listed is not None:
        (tmp_path / "clauses").mkdir(exist_ok=True)
        (tmp_path / "clauses" / f"{edition}.clauses").write_text(listed, encoding="utf-8")
    return frontend.check_file(book)


SMALL_LIST = ('clauses 1\nedition t\nsegment numbered\nrequire "52"\n'
              'clause "52" rule - "Calamities"\nclause "52.3" rule - "Flood"\nclause "52.4" rule - "Famine"\n'
              'clause "53.11" rule - "Engineering"\nclause "1.1" flavour - "Introduction"\n')
FLOOD = ('calamity "Flood" {\n  cites "52.3"\n  stack 3\n  class major nontradable\n'
         '  primary { damage(17) }\n  when true { cap damage 7 }\n  cites "52.3", "53.11"\n}\n')


# --- the language -------------------------------------------------------------------------------

def test_cites_names_the_statement_before_it_or_its_block(tmp_path):
    checked = _check(tmp_path, 'const card_limit = 11 "x"\ncites "52"\n' + FLOOD
                     + 'calamity "Famine" {\n  stack 4\n  class major nontradable\n'
                       '  primary { cites "52.4" damage(9) }\n}\n', SMALL_LIST)
    assert checked.ok, checked.diagnostics.render()
    got = {(c.clauses[0][0], c.target.line, c.owner_kind, c.owner_name) for c in checked.edition.citations}
    assert got == {("52", 3, "const", "card_limit"),  # a top-level cites: the statement before it
                   ("52.3", 5, "calamity", "Flood"),  # first in a block: the block's statement
                   ("52.3", 10, "calamity", "Flood"),  # after a modifier: that modifier
                   ("52.4", 16, "calamity", "Famine")}  # first in an effect block: the role (`primary`)


def test_the_validator_rejects_an_unknown_clause_with_the_nearest_id(tmp_path):
    checked = _check(tmp_path, FLOOD.replace('cites "52.3"\n  stack', 'cites "52.33"\n  stack'), SMALL_LIST)
    errors = [d for d in checked.diagnostics.errors if d.code == "CIV161"]
    assert len(errors) == 1 and errors[0].span.line == 4
    assert "`52.33`" in errors[0].message and "52.3" in errors[0].help


def test_acknowledgements_are_checked(tmp_path):
    checked = _check(tmp_path, FLOOD + 'clause "52.4" covered_by "52.9"\nclause "52" errata CIV040\n'
                     'clause "53.11" out_of_scope bord "the board"\n', SMALL_LIST)
    codes = sorted(d.code for d in checked.diagnostics.errors)
    assert codes == ["CIV161", "CIV164", "CIV164"], checked.diagnostics.render()


def test_citing_without_a_clause_list_is_an_error(tmp_path):
    checked = _check(tmp_path, FLOOD)
    assert [d.code for d in checked.diagnostics.errors] == ["CIV162"]


def test_a_malformed_clause_list_is_reported_at_its_line(tmp_path):
    checked = _check(tmp_path, FLOOD, SMALL_LIST + 'clause "52.5" rules - "Civil War"\n')
    (error,) = checked.diagnostics.errors
    assert error.code == "CIV163" and error.span.line == 10 and error.span.path.endswith("t.clauses")


# --- fingerprints and the segmenter ---------------------------------------------------------------

def test_fingerprints_survive_scanning_damage_but_not_a_changed_figure():
    assert clauses.fingerprint("(IVIL WAR\nSelect all but 35") == clauses.fingerprint("Civil War: select all but 35")
    assert clauses.fingerprint("Y(LONE") == clauses.fingerprint("CYCLONE")
    assert clauses.fingerprint("VNITS") == clauses.fingerprint("units")
    assert clauses.fingerprint("Take 10 damage") != clauses.fingerprint("Take 12 damage")


def test_numbered_paragraphs_in_headings_lists_and_run_on_text():
    text = ("## 19. CALAMITIES\n\n**19.1**\n\nAt the start.\n\n- 19.2 Red backs are never traded.\n"
            "**20. MOVE MARKERS****20.1 MOVING MARKERS**\n\nMarkers move. 20.2 Each marker moves.\n"
            "6 tokens at a city site make a city.\n\t20.3\tin a table\n31\n")
    found = [(s.id, s.title) for s in segment(text, clauses.ClauseList("t", "t", ""))]
    assert found == [("19", "Calamities"), ("19.1", "Calamities"), ("19.2", "Calamities"),
                     ("20", "Move Markers"), ("20.1", "Moving Markers"), ("20.2", "Move Markers")]


def test_headings_with_damaged_names_and_modifier_lines():
    listed = clauses.ClauseList("t", "t", "", scheme="headings",
                                chapters=[clauses.Chapter("8", "The Calamities"), clauses.Chapter("9", "Advances", True)])
    text = ("# 8. THE CALAMITIES\nintro\n#### (IVIL WAR\nSelect all but 35.\nY(LONE Reduce 3 cities.\n"
            "# 9. ADVANCES\n#### MONARCHY\nCIVIL WAR: Select 5 less unit points.\nMASONRY + CYCLONE: Reduce 1 less.\n")
    names = {"ch 8": ["Civil War", "Cyclone"], "ch 9": ["Monarchy", "Masonry", "Civil War"]}
    found = [s.id for s in segment(text, listed, names)]
    assert found == ["ch 8", "ch 8 / Civil War", "ch 8 / Cyclone", "ch 9", "ch 9 / Monarchy", "ch 9 / Masonry"]


_PARAGRAPH = re.compile(r"^(?:<\|[^|\n]*\|>)*[#*\->_ ]*(\d{1,3}(?:\.\d{1,5})+)\.?(?=[\s*]|$)(?!\t)")


@pytest.mark.parametrize("edition", ["civ1980", "civ1981", "expansion"])
def test_the_segmenter_finds_every_numbered_paragraph_of_the_seed(edition):
    text = _seed(edition).read_text(encoding="utf-8")
    found = {s.id for s in segment(text, clauses.ClauseList(edition, "", ""))}
    printed = {m.group(1) for line in text.splitlines() if not line.startswith("\t")
               for m in [_PARAGRAPH.match(line)] if m and not re.search(r"\.{4,}", line)}
    assert printed, "the scan found no numbered paragraph"
    assert printed - found == set()


def test_the_segmenter_finds_every_calamity_and_advance_heading_of_mega_civilization():
    text = _seed("megaciv").read_text(encoding="utf-8")
    ed = frontend.check_file(api.locate("megaciv")).edition
    listed = _listed("megaciv")
    found = {s.id for s in segment(text, listed, {"ch 8": list(ed.calamities), "ch 9": list(ed.advances)}) if s.name}
    lost = {c.id for c in listed.clauses.values() if c.fingerprint is None}
    assert lost == {"ch 9 / Law", "ch 9 / Medicine", "ch 9 / Music"}  # the copy printed their headings empty
    assert {f"ch 8 / {c}" for c in ed.calamities} <= found
    assert {f"ch 9 / {a}" for a in ed.advances} - lost <= found


# --- cover ---------------------------------------------------------------------------------------

def _report(edition_or_path, copy: str | None = None) -> coverage.Report:
    checked = frontend.check_file(api.locate(edition_or_path))
    assert checked.ok, checked.diagnostics.render()
    diags = Diagnostics()
    listed = clauses.read(Path(checked.edition.clause_list[0]), diags)
    return coverage.cover(checked, listed, copy)


@pytest.mark.parametrize("edition", SHIPPED)
def test_every_required_clause_of_a_shipped_edition_is_covered_or_acknowledged(edition):
    report = _report(edition)
    assert [c.id for c in report.required_uncovered] == []


@pytest.mark.parametrize("edition", SHIPPED)
def test_a_shipped_clause_list_matches_its_seed(edition):
    report = _report(edition, _seed(edition).read_text(encoding="utf-8"))
    assert [c.id for c in report.clauses if c.text in ("differs", "gone")] == []
    assert report.new_in_copy == []


def test_a_changed_clause_text_is_reported():
    text = _seed("megaciv").read_text(encoding="utf-8")
    changed = text.replace("Take 10 damage and assign 5 damage", "Take 12 damage and assign 5 damage")
    assert changed != text
    report = _report("megaciv", changed)
    assert [c.id for c in report.clauses if c.text == "differs"] == ["ch 8 / Famine"]


def test_an_uncited_required_clause_fails_the_check(tmp_path):
    shutil.copytree(ROOT / "rulebooks", tmp_path / "rulebooks")
    book = tmp_path / "rulebooks" / "megaciv.civ"
    text = book.read_text(encoding="utf-8")
    book.write_text(text.replace('  cites "ch 8 / Tempest"\n', "", 1), encoding="utf-8")
    report = _report(str(book))
    # and the clause acknowledged as covered by it is uncovered with it
    assert [c.id for c in report.required_uncovered] == ["ch 8 / Minor Calamities", "ch 8 / Tempest"]


def test_cross_chapter_clauses_are_linked_both_ways():
    report = {c.id: c for c in _report("megaciv").clauses}
    # chapter 9 prints Barbarian Hordes' Politics modifier on the card only: the modifier cites the card,
    # and the card's clause lists the advance and the calamity modifier
    politics = {i.owner for i in report["ch 9 / Politics"].implementations}
    assert {'advance "Politics" {', 'calamity "Barbarian Hordes" {'} <= politics
    famine = [i.text for i in report["ch 8 / Famine"].implementations]
    assert 'when holds("Pottery") { prevent damage 5 }' in famine


def test_a_house_rule_reports_the_clauses_it_changes():
    report = _report(str(ROOT / "rulebooks" / "house" / "granary.civ"))
    changed = [c.id for c in report.changed_by_house_rule]
    assert "ch 8 / Famine" in changed and "ch 8 / Flood" not in changed
    assert report.required_uncovered == []


def test_cover_command_json_and_exit_code(tmp_path):
    proc = run_cli("cover", "civ1981", "--json", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    rows = {c["id"]: c for c in data["clauses"]}
    assert rows["22.2.7.4"]["status"] == "implemented"
    assert any(i["statement"].startswith('when holds("Engineering")') for i in rows["22.2.7.4"]["implemented_by"])
    # drawing trade cards is the ledger's turn step; keeping the hand secret is the table's
    assert rows["15.1"]["status"] == "implemented"
    assert any(i["statement"].startswith('step "Acquire trade cards') for i in rows["15.1"]["implemented_by"])
    assert rows["15.5.2"]["status"] == "acknowledged" and rows["15.5.2"]["acknowledged"].startswith("out of scope (table)")
    html = run_cli("cover", "megaciv", "--format", "html", cwd=ROOT).stdout
    assert "<table>" in html and "ch 8 / Famine" in html and "<script" not in html


def test_each_file_of_a_chain_is_checked_against_its_own_clause_list(tmp_path):
    # the house rule brings its own list: its citations are checked against it, the base's against the base's
    (tmp_path / "clauses").mkdir()
    (tmp_path / "clauses" / "mine.clauses").write_text('clauses 1\nedition mine\nclause "H1" rule - "Mine"\n')
    book = tmp_path / "mine.civ"
    book.write_text(f'language 1\nedition mine "Mine" extends civ1981\nconst house = 1\ncites "H1"\n'
                    'const other = 2\ncites "22.2.7.4"\n', encoding="utf-8")
    checked = frontend.check_file(book)
    assert [(d.code, d.span.line) for d in checked.diagnostics.errors] == [("CIV161", 6)]


def test_explain_lists_the_printed_clauses_of_an_item():
    from civdsl.itemexplain import explain_item

    text = explain_item("megaciv", "Pottery")
    section = text.split("Printed clauses it implements")[1].split("Source lines")[0]
    assert "ch 9 / Pottery" in section and "also in calamity Famine" in section


def test_the_charts_cite_the_clause_beside_each_rule():
    from civdsl.charts.builders import advances_chart, calamities_chart

    ed = frontend.check_file(api.locate("civ1981")).edition
    detail = calamities_chart(ed).tables[1]
    column = [c.name for c in detail.columns].index("Printed rule")
    flood = next(r for r in detail.rows if "Flood" in r.cells[1].plain())
    assert "22.2.7.4" in flood.cells[column].plain().split("\n")
    advances = advances_chart(ed).tables[0]
    column = [c.name for c in advances.columns].index("Printed rule")
    pottery = next(r for r in advances.rows if r.cells[0].plain().startswith("Pottery"))
    assert pottery.cells[column].plain().split("\n")[0] == "22.3.4"


def test_a_change_block_cites_for_the_item_it_changes(tmp_path):
    book = tmp_path / "granaries.civ"
    book.write_text('language 1\nedition granaries "G" extends megaciv\nchange calamity "Famine" {\n'
                    '  drop when holds("Pottery")\n  when holds("Pottery") { prevent damage 4 per cards("Grain") }\n'
                    '  cites "ch 8 / Famine", "ch 9 / Pottery"\n}\n', encoding="utf-8")
    checked = frontend.check_file(book)
    assert checked.ok, checked.diagnostics.render()
    mine = [c for c in checked.edition.citations if c.span.path.endswith("granaries.civ")]
    assert [(c.owner_kind, c.owner_name, c.target.line) for c in mine] == [("calamity", "Famine", 5)]
    report = _report(str(book))
    pottery = {c.id: c for c in report.clauses}["ch 9 / Pottery"]
    assert any(i.changed_by_house_rule and i.path.endswith("granaries.civ") for i in pottery.implementations)


def test_the_companion_page_cites_each_items_printed_clauses():
    from civdsl.companion.page import clauses_section

    ed = frontend.check_file(ROOT / "rulebooks" / "civ1981.civ").edition
    html = clauses_section(ed)
    civil_war = next(line for line in html.splitlines() if "<strong>Civil War</strong>" in line)
    assert "22.2.6.4" in civil_war and "5.3" in civil_war
    music = next(line for line in html.splitlines() if "<strong>Music</strong>" in line)
    assert "17.5.2" in music
    cited = [n for n in [*ed.calamities, *ed.advances] if f"<strong>{n}</strong>" in html]
    assert len(cited) == html.count("<li>") and len(cited) >= len(ed.calamities)


# --- kinds of clauses ------------------------------------------------------------------------------

def _generator():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import make_clauses
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return make_clauses


def test_the_generator_reads_a_clause_kind_from_its_heading_and_opening_words():
    guess = _generator().guess_kind
    assert guess("Trade", "Trade\nExample: A player, wishing to trade 2 salt...") == "example"
    assert guess("Credits", "**Credits** For example, a player holding Astronomy...") == "example"
    assert guess("Examples of play", "John has 5 cities.") == "example"
    # an example in the middle of a rule's paragraph leaves it a rule
    assert guess("Trade", "Trade\nCards are traded face down. Example: A player...") == "rule"
    assert guess("Designer's Notes", "We wanted a game...") == "flavour"
    assert guess("Historical Notes", "The Minoans...") == "flavour"
    assert guess("Game components", "1 map-board, 9 A.S.T. cards") == "components"
    assert guess("Movement of Ships", "Ships may carry 5 tokens.") == "map"
    # below a heading of the board, a clause of its own heading is of the board too
    assert guess("Volcanoes", "Some areas hold volcanoes.", parent_kind="map") == "map"
    assert guess("Famine", "Take 10 damage.", parent_kind="rule") == "rule"


def _kinds_from_seed(edition: str) -> dict[str, str]:
    """Each clause's kind as the generator reads it from the seed (hand-read kinds win)."""
    make = _generator()
    listed = _listed(edition)
    found = segment_copy(_seed(edition).read_text(encoding="utf-8"), listed)  # its headings are the names
    kinds: dict[str, str] = {}
    for s in found:
        parent = kinds.get(listed.parent_of(s.id), "rule")
        kinds[s.id] = listed.hand_kind(s.id) or make.guess_kind(s.title, s.body, parent)
    return kinds


@pytest.mark.parametrize("edition", SHIPPED)
def test_a_shipped_list_has_the_kinds_the_generator_reads_from_its_seed(edition):
    kinds = _kinds_from_seed(edition)
    listed = _listed(edition)
    assert {i: c.kind for i, c in listed.clauses.items() if i in kinds} == kinds


@pytest.mark.parametrize("edition,clause_id,kind", [
    ("civ1980", "51 example", "example"), ("civ1981", "16.3 example", "example"),
    ("expansion", "36.1 example", "example"), ("expansion", "28.3 example", "example"),
    ("civ1981", "16.3", "rule"), ("expansion", "28.3", "rule"),
    ("civ1981", "31.1", "flavour"), ("civ1981", "2.1", "components"), ("civ1981", "10.3", "map"),
    ("expansion", "1.1", "flavour"), ("expansion", "5.2", "components"), ("expansion", "22.52", "map"),
    ("civ1980", "43.5", "map"), ("civ1980", "32", "components"),
    ("megaciv", "ch 1", "flavour"), ("megaciv", "ch 6 / Ship movement", "map"),
    # read by hand: the generator reads the heading's word `conflict` as the board's, but it is a calamity
    ("megaciv", "ch 8 / Tribal Conflict", "rule"), ("expansion", "30.73", "rule"),
])
def test_known_paragraphs_of_the_seeds_have_their_kind(edition, clause_id, kind):
    assert _kinds_from_seed(edition)[clause_id] == kind


def test_counts_per_kind_are_stable():
    # the numbered seeds print their worked examples inside numbered paragraphs, cut out as
    # `ID example`; the two seeds cut by headings keep theirs inside the heading's clause
    counts = {e: {k: sum(c.kind == k for c in _listed(e).clauses.values()) for k in clauses.KINDS} for e in SHIPPED}
    assert counts == {
        "cardgame": {"rule": 18, "example": 0, "flavour": 1, "components": 1, "map": 0},
        "civ1980": {"rule": 66, "example": 1, "flavour": 0, "components": 1, "map": 3},
        "civ1981": {"rule": 226, "example": 2, "flavour": 2, "components": 26, "map": 48},
        "expansion": {"rule": 531, "example": 6, "flavour": 4, "components": 10, "map": 78},
        "megaciv": {"rule": 200, "example": 0, "flavour": 3, "components": 1, "map": 11},
    }


def test_a_guessed_kind_does_not_acknowledge_a_clause_of_a_required_chapter(tmp_path):
    guessed = SMALL_LIST.replace('clause "52.4" rule', 'clause "52.4" map')
    report = coverage.cover(_check(tmp_path, FLOOD, guessed), clauses.parse(guessed, "t.clauses", Diagnostics()))
    rows = {c.id: c for c in report.clauses}
    assert rows["52.4"].status == "uncovered" and rows["1.1"].status == "acknowledged"
    by_hand = guessed.replace('require "52"\n', 'require "52"\nkind "52.4" map\n')
    report = coverage.cover(_check(tmp_path, FLOOD, by_hand), clauses.parse(by_hand, "t.clauses", Diagnostics()))
    assert {c.id: c for c in report.clauses}["52.4"].acknowledged == "map: a rule of the board only"
    assert ("map", 1, 0) in coverage.kinds(report)
    assert "Clauses per kind:" in coverage.render_text(report)


def test_a_kind_line_of_no_kind_is_an_error():
    diags = Diagnostics()
    clauses.parse('clauses 1\nedition t\nkind "1.1" anecdote\n', "t.clauses", diags)
    assert "CIV163" in diags.render() and "anecdote" in diags.render()


def test_a_worked_example_inside_a_numbered_paragraph_is_a_clause_of_its_own():
    text = ("**28.3** Cards are traded face down.\nExample: A player offers 3 cards.\n"
            "**Example of a deal**: two players agree.\n28.4 Trading ends.\nFor example, it ends.\n")
    found = [(s.id, s.title) for s in segment(text, clauses.ClauseList("t", "t", ""))]
    assert [i for i, _ in found] == ["28.3", "28.3 example", "28.3 example 2", "28.4", "28.4 example"]
    listed = clauses.ClauseList("t", "t", "")
    assert listed.parent_of("28.3 example 2") == "28.3" and listed.parent_of("28.3") == "28"
    # the rule's own fingerprint leaves its example out: a changed example does not change the rule
    changed = text.replace("3 cards", "4 cards")
    before = {s.id: s.fingerprint for s in segment(text, listed)}
    after = {s.id: s.fingerprint for s in segment(changed, listed)}
    assert before["28.3"] == after["28.3"] and before["28.3 example"] != after["28.3 example"]


def _required_words(listed: clauses.ClauseList) -> str:
    """The docs' words for the chapters a list requires complete: "every chapter" where it names
    each chapter its clauses belong to, else the chapters (or sections) it names."""
    chapters = {listed.chapter_of(c) for c in listed.clauses}
    if chapters <= set(listed.required):
        return "every chapter"
    return ", ".join(listed.required)


def test_the_docs_table_of_shipped_clause_lists_says_what_each_list_holds_and_requires():
    docs = (ROOT / "docs" / "clauses.md").read_text(encoding="utf-8")
    for edition in SHIPPED:
        listed = _listed(edition)
        row = f"| `{edition}` | {len(listed.clauses)} | {_required_words(listed)} |"
        assert row in docs, f"docs/clauses.md lacks the row {row}"


def test_a_worked_example_printed_in_a_chapter_belongs_to_that_chapter():
    listed = clauses.ClauseList("t", "t.clauses", "", required=["51", "16"])
    assert listed.chapter_of("51 example") == listed.chapter_of("51.2") == "51"
    assert listed.is_required("51 example") and listed.is_required("16.3 example")
    assert not listed.is_required("5 example") and not listed.is_required("510")
