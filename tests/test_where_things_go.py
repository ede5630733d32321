"""docs/architecture.md's "Where a new thing goes", each kind of change done as the document says, in
a scratch copy of the package (civdsl/, grammar/, schemas/, rulebooks/), and the tool shown using
the new thing. A case makes exactly the edits its paragraph lists, so that a paragraph that
forgets a place fails here.

The scratch copy runs as a process of its own: its modules must be imported fresh, with the
edits in them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _scratch(tmp_path: Path) -> Path:
    copy = tmp_path / "checkout"
    for name in ("civdsl", "grammar", "schemas", "rulebooks"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def _edit(path: Path, anchor: str, added: str) -> None:
    """One edit: `added` right after `anchor`, which the file holds exactly once."""
    text = path.read_text(encoding="utf-8")
    assert text.count(anchor) == 1, f"{path.name}: the anchor is not unique: {anchor!r}"
    path.write_text(text.replace(anchor, anchor + added), encoding="utf-8")


def _run(copy: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess:
    """`civdsl ARGS` (or Python `code`) on the scratch copy's package."""
    env = {**os.environ, "PYTHONPATH": str(copy), "NO_COLOR": "1"}
    argv = [sys.executable, "-c", code] if code is not None else [sys.executable, "-m", "civdsl.cli", *args]
    done = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _rulebook(copy: Path, name: str, body: str) -> Path:
    path = copy / name
    path.write_text('language 1\nedition t "T"\ngroup crafts "Crafts"\ncredit policy best_group\n' + body,
                    encoding="utf-8")
    return path


def test_the_scratch_copy_runs_its_own_package(tmp_path):
    copy = _scratch(tmp_path)
    done = _run(copy, code="import civdsl; print(civdsl.__file__)")
    assert Path(done.stdout.strip()).is_relative_to(copy)


# --- a new item field -------------------------------------------------------------------------

FIELD_ROW = '''
        FieldSpec("upkeep", "upkeep", "number", False, None, "replace", "upkeep",
                  "treasury paid each turn to keep the advance", explain="upkeep {} a turn", value="number",
                  bound=Bound(0, 50, "an upkeep")),'''
FIELD_GRAMMAR = "\n              | UPKEEP INT                           -> adv_upkeep"
FIELD_KEYWORD = '\nUPKEEP: "upkeep"'


def test_a_new_item_field_is_its_row_and_its_grammar_line(tmp_path):
    assert "**A new item field**" in DOC and "Its row\n  in `fields.py`" in DOC
    copy = _scratch(tmp_path)
    # the two places: the row, and the grammar's alternative (with its keyword, a new word)
    _edit(copy / "civdsl" / "fields.py", '''"how many cards of the advance the game has", explain="; supply {} cards",
                  value="number", bound=Bound(0, 1_000, "the number of cards of an advance")),''', FIELD_ROW)
    grammar = copy / "grammar" / "civdsl.lark"
    _edit(grammar, "              | SUPPLY INT                           -> adv_supply", FIELD_GRAMMAR)
    _edit(grammar, 'ADVANCE: "advance"', FIELD_KEYWORD)

    good = _rulebook(copy, "good.civ", 'advance "Pottery" { cost 45 groups crafts upkeep 3 }\n')
    (copy / "house.civ").write_text('language 1\nedition h "H" extends "good.civ"\n'
                                    'change advance "Pottery" { upkeep 4 }\n', encoding="utf-8")
    bad = _rulebook(copy, "bad.civ", 'advance "Pottery" { cost 45 groups crafts upkeep 99 upkeep 2 }\n')
    code = f"""
import json
from civdsl import fields
from civdsl.frontend import check_file
from civdsl.modelschema import model_schema
from civdsl import schemas
from civdsl.serialize import to_data
stale = schemas.stale(schemas.schemas_dir())
schemas.write(schemas.schemas_dir())  # as a full build does
good = check_file({str(good)!r})
house = check_file({str(copy / 'house.civ')!r})
bad = check_file({str(bad)!r})
print(json.dumps({{
    "errors": [d.code for d in good.diagnostics.errors],
    "upkeep": good.edition.advances["Pottery"].upkeep,
    "changed": house.edition.advances["Pottery"].upkeep,
    "data": to_data(good.edition)["advances"][0]["upkeep"],
    "schema": model_schema()["properties"]["advances"]["items"]["properties"]["upkeep"],
    "stale": stale,
    "valid": schemas.validate_model(good.edition),
    "range": [fields.ranges()["advance upkeep"].low, fields.ranges()["advance upkeep"].high],
    "bad": [[d.code, d.span.line, d.span.column, d.message] for d in bad.diagnostics.errors],
}}))
"""
    got = json.loads(_run(copy, code=code).stdout)
    assert got["errors"] == [] and got["upkeep"] == 3 and got["changed"] == 4 and got["data"] == 3
    assert got["schema"] == {"type": ["integer", "null"], "minimum": 0, "maximum": 50}
    # the committed schema lacks it until the build rewrites the file; then the model fits
    assert got["stale"] == ["schemas/model.schema.json: differs from its declarations (regenerated by `civdsl build`)"]
    assert got["valid"] == [] and got["range"] == [0, 50]
    # the range is checked at the number; the field may be given once
    assert ["CIV112", 5, 50, "an upkeep is 99; it must be 0 to 50"] in got["bad"]
    assert any(code == "CIV021" and "`upkeep` given twice" in message for code, _, _, message in got["bad"])

    explained = _run(copy, "explain", str(good), "Pottery")
    assert explained.returncode == 0 and "upkeep 3 a turn" in explained.stdout
    # a house rule's difference, and the formatter, know it
    diff = _run(copy, "diff", str(good), str(copy / "house.civ"))
    assert "  Pottery: upkeep 3 -> 4" in diff.stdout.splitlines()
    (copy / "messy.civ").write_text(good.read_text(encoding="utf-8").replace("upkeep 3", "upkeep    3"),
                                    encoding="utf-8")
    assert _run(copy, "fmt", str(copy / "messy.civ")).returncode == 0
    assert "upkeep 3" in (copy / "messy.civ").read_text(encoding="utf-8")
    # the language reference's field table knows it too
    tables = _run(copy, code="from civdsl import fields; print(fields.markdown())").stdout
    assert "| `upkeep` | number | no |" in tables


# --- a new effect kind and a new player fact: one entry each in vocabulary.py ---------------------

EFFECT_KIND = '''
    Kind("lose_ships", (_amount("ships"),), "lose {amount} ship{amount_s}", "Remove this many ships.",
         nouns=(("amount", "ship lost", "ships lost"),)),'''
FACT = '''
    Fact("harbours", "int", "harbours on the board", words=("harbour", "harbours")),'''


def test_a_new_effect_kind_and_a_new_fact_are_their_vocabulary_entries(tmp_path):
    assert "**A new effect kind, ability, player fact or function**: one entry in `vocabulary.py`. The" in DOC
    copy = _scratch(tmp_path)
    vocabulary = copy / "civdsl" / "vocabulary.py"
    _edit(vocabulary, '''"backward rule still reads the cities on the board.", main="delta"),''', EFFECT_KIND)
    _edit(vocabulary, '''    Fact("tokens", "int", "tokens on the board", words=("token", "tokens")),''', FACT)
    book = _rulebook(copy, "t.civ", 'calamity "Storm" { stack 2 class minor primary { lose_ships(2) }\n'
                                    '  when harbours > 1 { add lose_ships 1 } }\n')
    assert _run(copy, "check", str(book)).returncode == 0
    calm = json.loads(_run(copy, "resolve", str(book), "Storm", "--set", "harbours=1", "--json").stdout)
    windy = json.loads(_run(copy, "resolve", str(book), "Storm", "--set", "harbours=2", "--json").stdout)
    unknown = json.loads(_run(copy, "resolve", str(book), "Storm", "--json").stdout)
    assert calm["effects"] == [{"kind": "lose_ships", "amount": 2}]
    assert windy["effects"] == [{"kind": "lose_ships", "amount": 3}]
    # without the fact the answer says it is incomplete and names it
    assert unknown["complete"] is False and unknown["missing_facts"] == ["harbours"]
    # the player state's schema and the vocabulary listing know the fact; the kind's words are used
    state = json.loads(_run(copy, code="from civdsl import schemas; print(schemas.generated()['state.schema.json'])")
                       .stdout)
    assert "harbours" in json.dumps(state)
    assert "lose 3 ships" in _run(copy, "resolve", str(book), "Storm", "--set", "harbours=2").stdout
    assert "harbours" in _run(copy, "vocab").stdout


# --- a new command: its click command in its family's module and its row in cli/main.COMMANDS -----

COMMAND = '''

@command()
@click.argument("rulebook")
def advances(rulebook, as_json):
    """The advances RULEBOOK declares, one a line."""
    from ..api import locate
    from ..frontend import check_file

    edition = check_file(locate(rulebook)).edition
    if as_json:
        emit_json({"advances": sorted(edition.advances)}, edition.id)
        return
    click.echo("\\n".join(sorted(edition.advances)))
'''
COMMAND_ROW = '''
    "advances": ("civdsl.cli.authoring", "advances", "The advances RULEBOOK declares, one a line."),'''


def test_a_new_command_is_its_function_and_its_row(tmp_path):
    assert "**A new command**: a click command in the module of its family in `civdsl/cli/`" in DOC
    copy = _scratch(tmp_path)
    authoring = copy / "civdsl" / "cli" / "authoring.py"
    authoring.write_text(authoring.read_text(encoding="utf-8") + COMMAND, encoding="utf-8")
    _edit(copy / "civdsl" / "cli" / "main.py", "COMMANDS = {", COMMAND_ROW)
    if "emit_json" not in authoring.read_text(encoding="utf-8").split("def build")[0]:
        pytest.fail("cli/authoring.py no longer imports emit_json: adjust the case")
    listed = _run(copy, "--help").stdout
    assert "advances" in listed and "The advances RULEBOOK declares, one a line." in listed
    assert _run(copy, "advances", "civ1980").stdout.splitlines()[:2] == ["Agriculture", "Architecture"]
    answer = json.loads(_run(copy, "advances", "civ1980", "--json").stdout)
    assert answer["command"] == "advances" and "Astronomy" in answer["advances"]


# --- a new chart format: its name, its writer, and its renderer of a table of cells ---------------

TSV_RENDERER = '''


def tsv_table(t: CellTable) -> str:
    """A table of cells as tab-separated text: each cell's plain words on one line."""
    rows = [[c.name for c in t.columns]] + [[cell.plain(" / ") for cell in r.cells] for r in t.rows]
    return "".join("\\t".join(value.replace("\\t", " ") for value in row) + "\\n" for row in rows)
'''
TSV_WRITER = '''


def _tsv_files(edition, kind: str, chosen: list, diff, reference: str | None) -> dict[str, str]:
    from ..charts.markdown import tsv_table

    return {f"{t.slug}.tsv": tsv_table(t) for c in chosen for t in c.tables if t.csv}
'''


def test_a_new_chart_format_is_its_name_its_writer_and_its_renderer(tmp_path):
    assert "**A new chart format**" in DOC
    copy = _scratch(tmp_path)
    markdown = copy / "civdsl" / "charts" / "markdown.py"
    markdown.write_text(markdown.read_text(encoding="utf-8") + TSV_RENDERER, encoding="utf-8")
    charts = copy / "civdsl" / "cli" / "charts.py"
    _edit(charts, '''FORMATS = ("md", "html", "csv", "json", "yaml", "svg", "dot"''', ', "tsv"')
    _edit(charts, '''    return {f"{t.slug}.csv": csv_table(t) for c in chosen for t in c.tables if t.csv}''', TSV_WRITER)
    _edit(charts, '''_CHART_FILES = {"md": _md_files, "html": _html_files, "csv": _csv_files''', ', "tsv": _tsv_files')
    drawn = _run(copy, "chart", "civ1980", "--kind", "commodities", "--format", "tsv", "-o", str(tmp_path / "out"))
    assert drawn.returncode == 0, drawn.stderr
    tables = {p.name: p.read_text(encoding="utf-8").splitlines() for p in (tmp_path / "out").iterdir()}
    assert tables and all(name.endswith(".tsv") for name in tables)
    assert any(lines[0].count("\t") and any(line.startswith("Grain\t") for line in lines) for lines in tables.values())


# --- a new edition: its rulebook in rulebooks/ ------------------------------------------------------

EDITION = '''language 1
edition tiny "Tiny Civilization"
group crafts "Crafts" color "#2e7d32"
credit policy best_group
advance "Pottery" { cost 45 groups crafts credits crafts 10 summary "keeps grain" }
advance "Mining" { cost 80 groups crafts }
'''


def test_a_new_edition_is_its_rulebook(tmp_path):
    assert "**A new edition**: its rulebook in `rulebooks/`" in DOC
    copy = _scratch(tmp_path)
    (copy / "rulebooks" / "tiny.civ").write_text(EDITION, encoding="utf-8")
    shipped = len(list((ROOT / "rulebooks").glob("*.civ")) + list((ROOT / "rulebooks" / "house").glob("*.civ")))
    assert _run(copy, "check").stdout == f"ok: {shipped + 1} rulebooks checked\n"
    assert _run(copy, "check", "tiny").stdout == "ok: 1 rulebook checked\n"
    cost = json.loads(_run(copy, "cost", "tiny", "--holds", "Pottery", "--buy", "Mining", "--json").stdout)
    assert cost["rulebook"] == "tiny" and cost["total"] == 70 and cost["items"][0]["printed"] == 80
    assert "keeps grain" in _run(copy, "explain", "tiny", "Pottery").stdout
    built = _run(copy, "build", "tiny", "-o", str(tmp_path / "out"))
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "out" / "tiny" / "model.json").is_file()


# --- a new round statement ------------------------------------------------------------------------
# Written while the round rules became a registered sub-language (civdsl/sublanguages.py); it
# passes against both, since a statement's places stayed inside civdsl/rounds/.

ROUND_STATEMENT = {
    ("rounds", "grammar.lark"): [
        ("           | RESET NAME                       -> ps_reset",
         "\n           | DOUBLE NAME                      -> ps_double"),
        ('STAT: "stat"', '\nDOUBLE: "double"'),
    ],
    ("rounds", "syntax.py"): [
        ('''    keyword: ClassVar[str] = "reset"
''', '''

@dataclass
class DoubleStmt(RoundStmt):
    """`double NAME`: a stat doubles."""
    target: str
    target_span: Span
    keyword: ClassVar[str] = "double"
'''),
        ("ResetStmt, ShuffleStmt, DrawStmt, DiscardStmt, RuleStmt, NoteStmt", ", DoubleStmt"),
        ('''        return ResetStmt(self._span(meta), **self._target(c[1]))
''', '''
    @v_args(meta=True)
    def ps_double(self, meta, c):
        return DoubleStmt(self._span(meta), **self._target(c[1]))
'''),
    ],
    ("rounds", "checks.py"): [
        ('''        self._target(s, env, item, ("track", "stat", "flag"))
''', '''
    def visit_DoubleStmt(self, s, env: dict, item: str, previous) -> None:
        self._target(s, env, item, ("stat",))
'''),
    ],
    ("rounds", "codegen.py"): [
        ('''        self.w.line(f"{indent}s.reset({s.target!r}, {s.span.line!r})", s.span)
''', '''
    def visit_DoubleStmt(self, s, indent: str) -> None:
        self.w.line(f"{indent}s.double({s.target!r}, {s.span.line!r})", s.span)
'''),
    ],
    ("rounds", "reference.py"): [
        ('''        self.line(indent, f"put {self.w.name(s.target)} back to its start{start}")
''', '''
    def visit_DoubleStmt(self, s, indent: str) -> None:
        self.line(indent, f"double {self.w.name(s.target)}")
'''),
    ],
    ("rounds", "runtime.py"): [
        ('''        self._entry("reset", line, name=name, before=before, after=after)
        self._after(name, before, after)
''', '''
    def double(self, name: str, line: int) -> None:
        before, after = self._store(name, self.v[name] * 2, line)
        self._entry("double", line, name=name, before=before, after=after)
        self._after(name, before, after)
'''),
    ],
    ("rounds", "simulate.py"): [
        ('''    "reset": lambda e: f"{words(e['name'])} reset to {shown(e['after'])}",''',
         '''\n    "double": lambda e: f"{words(e['name'])} doubled to {shown(e['after'])}",'''),
    ],
}


def test_a_new_round_statement_is_done_where_the_document_says(tmp_path):
    paragraph = DOC[DOC.index("- **A new round statement**"):].split("\n- **")[0]
    for part in ("rounds/grammar.lark", "rounds/syntax.py", "STATEMENT_TYPES", "rounds/checks.py",
                 "rounds/codegen.py", "rounds/reference.py", "rounds/runtime.py", "rounds/simulate.py"):
        assert part in paragraph, part
    copy = _scratch(tmp_path)
    for (folder, name), edits in ROUND_STATEMENT.items():
        for anchor, added in edits:
            _edit(copy / "civdsl" / folder / name, anchor, added)
    book = copy / "rulebooks" / "cardgame.civ"
    _edit(book, '''    set actions = 0
''', "    double food\n")
    stepped = json.loads(_run(copy, "step", "cardgame", "--phase", "cleanup", "--set", "food=3", "--json").stdout)
    assert stepped["state"]["stats"]["food"] == 6
    assert [e["op"] for e in stepped["trace"]][-1] == "double"
    assert "food doubled to 6" in _run(copy, "step", "cardgame", "--phase", "cleanup", "--set", "food=3").stdout
    reference = _run(copy, "chart", "cardgame", "--kind", "reference").stdout
    assert "- double food" in reference.lower()
    # the checker holds it to a stat
    wrong = copy / "rulebooks" / "cardgame.civ"
    wrong.write_text(wrong.read_text(encoding="utf-8").replace("    double food\n", "    double rebellion_active\n"),
                     encoding="utf-8")
    refused = _run(copy, "check", "cardgame")
    assert refused.returncode == 1 and "rebellion_active" in refused.stderr


# --- a place forgotten: a clear error, never a value dropped or a KeyError -------------------------

def test_a_grammar_alternative_without_its_row_or_callback_is_refused(monkeypatch):
    # a field's grammar line without its row in fields.py would parse and be dropped in silence:
    # the transformer refuses to be composed, naming the alternative and the two places
    from civdsl import syntax

    assert syntax.unhandled_alternatives(syntax.transformer_class(), syntax.named_alternatives()) == []
    assert len(syntax.named_alternatives()) > 50 and "adv_cost" in syntax.named_alternatives()
    monkeypatch.setattr(syntax, "named_alternatives", lambda: frozenset({"adv_cost", "adv_upkeep"}))
    syntax._composed.cache_clear()
    try:
        with pytest.raises(TypeError, match=r"`-> adv_upkeep` has no callback: an item field's alternative needs "
                                            r"its row in fields.ITEM_FIELDS"):
            syntax.transformer_class()
    finally:
        monkeypatch.undo()
        syntax._composed.cache_clear()
    assert syntax.transformer_class()._rule_functions
