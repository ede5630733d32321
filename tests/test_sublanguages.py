"""Sub-languages join every pass through civdsl/sublanguages.py alone: a tiny one defined here, in
the test, adds a statement that parses, resolves, is checked, compiles, serializes, shows in a
diff and in the index of references, with no edit to a core module; unregistered, its statement
is a syntax error again. The round rules are registered the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from lark import v_args

from civdsl import sublanguages
from civdsl.codegen import generate_module
from civdsl.diagnostics import span_of
from civdsl.diff import diff
from civdsl.frontend import check_file
from civdsl.references import Index
from civdsl.serialize import to_data
from civdsl.sublanguages import References, SubLanguage

GRAMMAR = """
%extend item: tally_decl
tally_decl: TALLY NAME INT
TALLY: "tally"
"""


class TallyToSyntax:
    @v_args(meta=True)
    def tally_decl(self, meta, c):
        item = self._item("tally", c[1].value, meta, [], int(c[2].value))
        item.name_span = span_of(self.file, c[1])
        return item


class TallyApplier:
    def _item_tally(self, item) -> None:
        if self._once("tally", item.name, item.span, f"tally `{item.name}`"):
            self.ed.extensions["tally"][item.name] = (item.value, item.span)


def _check(ed, diags) -> None:
    for name, (count, span) in ed.extensions["tally"].items():
        if count > 10:
            diags.error("CIV073", f"tally `{name}` counts past 10", span, item=name)


def _emit(w, consts, options, ed) -> None:
    w.line(f"TALLIES = {({k: n for k, (n, _) in ed.extensions['tally'].items()})!r}")


def _changes(a, b, add) -> None:
    old, new = a.extensions.get("tally", {}), b.extensions.get("tally", {})
    for name in new.keys() - old.keys():
        add("tally", "added", name, None, None, name, f"+ tally {name}")


def _tally(tmp_path: Path) -> SubLanguage:
    grammar = tmp_path / "tally.lark"
    grammar.write_text(GRAMMAR, encoding="utf-8")
    return SubLanguage(
        name="tally", title="Tallies", grammar=grammar, transformer=TallyToSyntax, model=dict, declared=bool,
        applier=TallyApplier, check=_check, emit=_emit, changes=_changes,
        runtime_import="from fractions import Fraction as _tally_fraction",
        to_data=lambda ed: {k: n for k, (n, _) in ed.extensions["tally"].items()},
        references=References(declares={"tally": "tally"}, name_kinds=("tally",)))


@pytest.fixture
def tally(tmp_path):
    sub = sublanguages.register(_tally(tmp_path))
    yield sub
    sublanguages.unregister("tally")


def _rulebook(tmp_path: Path, body: str, name: str = "t.civ") -> Path:
    path = tmp_path / name
    path.write_text(f'language 1\nedition t "T"\n{body}', encoding="utf-8")
    return path


def test_a_registered_sublanguage_goes_through_every_pass(tally, tmp_path):
    checked = check_file(_rulebook(tmp_path, "tally apples 3\ntally pears 4\n"))
    assert checked.ok, [d.message for d in checked.diagnostics.items]
    ed = checked.edition
    assert {k: n for k, (n, _) in ed.extensions["tally"].items()} == {"apples": 3, "pears": 4}
    assert to_data(ed)["tally"] == {"apples": 3, "pears": 4}
    source, _ = generate_module(ed, {str(tmp_path / "t.civ"): "0" * 64})
    assert "TALLIES = {'apples': 3, 'pears': 4}" in source
    assert "\nfrom fractions import Fraction as _tally_fraction\n" in source
    assert Index([loaded.ast for loaded in checked.chain]).declared.get("tally") == {"apples", "pears"}


def test_its_check_reports_and_its_names_are_indexed(tally, tmp_path):
    checked = check_file(_rulebook(tmp_path, "tally apples 30\n"))
    assert [(d.code, d.message) for d in checked.diagnostics.errors] == [("CIV073", "tally `apples` counts past 10")]
    assert Index([checked.chain[0].ast]).declared.get("tally") == {"apples"}


def test_its_changes_show_in_a_diff(tally, tmp_path):
    a = check_file(_rulebook(tmp_path, "tally apples 3\n", "a.civ")).edition
    b = check_file(_rulebook(tmp_path, "tally apples 3\ntally pears 1\n", "b.civ")).edition
    assert [(c.section, c.op, c.item) for c in diff(a, b) if c.section == "tally"] == [
        ("tally", "added", "pears")]


def test_unregistered_its_statement_is_a_syntax_error_again(tmp_path):
    assert "tally" not in {s.name for s in sublanguages.registered()}
    checked = check_file(_rulebook(tmp_path, "tally apples 3\n"))
    assert [(d.code, d.message) for d in checked.diagnostics.errors] == [("CIV001", "unexpected `tally`")]


def test_a_name_is_registered_once(tally, tmp_path):
    other = SubLanguage(name="tally", title="", grammar=tmp_path, transformer=object, model=dict, declared=bool,
                        applier=object, check=_check, emit=_emit, to_data=dict, changes=_changes)
    with pytest.raises(ValueError):
        sublanguages.register(other)


# The modules outside civdsl/rounds/ that may import it: the commands and charts that present the
# card game (its reference chart, its commands, `explain` of a round name). No pass, no foundation.
ROUND_PRESENTERS = {"civdsl.charts", "civdsl.cli.cardgame", "civdsl.cli.charts", "civdsl.roundexplain"}


def test_the_round_rules_are_a_builtin_sublanguage_and_no_main_pass_imports_them():
    from test_layering import _imports, _module_name

    assert "rounds" in {s.name for s in sublanguages.registered()}
    package = Path(sublanguages.__file__).resolve().parent
    importers = set()
    for path in sorted(package.rglob("*.py")):
        if "rounds" in path.relative_to(package).parts:
            continue
        # `from . import rounds` reads as civdsl.rounds, `from .rounds.x import y` as civdsl.rounds.x
        if any(m == "civdsl.rounds" or m.startswith("civdsl.rounds.") for m in _imports(path)):
            importers.add(_module_name(path))
    assert importers <= ROUND_PRESENTERS, sorted(importers - ROUND_PRESENTERS)
    assert "civdsl.cli.cardgame" in importers  # the scan sees the commands that do import it


def test_an_edition_carries_no_round_field():
    # the round rules live in Edition.extensions["rounds"], a RoundRules; the core model names none
    import dataclasses

    from civdsl.model import Edition
    from civdsl.rounds.model import RoundRules

    edition_fields = {f.name for f in dataclasses.fields(Edition)}
    assert "extensions" in edition_fields
    assert not edition_fields & {f.name for f in dataclasses.fields(RoundRules)}
    assert not {name for name in edition_fields if name.startswith(("round", "stat", "pool", "phase"))}


def test_the_event_plot_imports_neither_the_build_nor_the_front_end():
    from test_layering import PACKAGE, _imports, _unit

    used = {_unit(m) for m in _imports(PACKAGE / "rounds" / "event_plot.py")}
    assert not used & {"build", "api", "frontend", "loader", "codegen"}, used
    assert "rounds.simulate" in used


def test_a_sublanguage_registered_from_outside_changes_the_compiler_fingerprint(tally):
    from civdsl import cache

    with_tally = cache.compiler_fingerprint()
    sublanguages.unregister("tally")
    without = cache.compiler_fingerprint()
    sublanguages.register(tally)
    assert with_tally != without and cache.compiler_fingerprint() == with_tally


def test_the_formatter_lays_out_its_statements(tally):
    from civdsl.fmt import format_text

    text = 'language 1\nedition t "T"\ntally   apples    3 # kept\n'
    assert format_text(text).endswith("tally apples 3  # kept\n")


def test_a_sublanguage_registered_after_the_first_highlight_is_highlighted(tmp_path):
    """The editor's lexer and the highlighter's word lists, made before the sub-language is
    registered, are not reused after: its keyword is a keyword there, and no longer once it is gone."""
    from civdsl.highlight import word_lists
    from civdsl.lsp.tokens import lex_line

    line = "tally apples 3"
    assert lex_line(line)[0][0] == "name" and "tally" not in word_lists()["declaration"]
    sublanguages.register(_tally(tmp_path))
    try:
        assert [(kind, text) for kind, text, *_ in lex_line(line)] == [("kw", "tally"), ("name", "apples"),
                                                                        ("int", "3")]
        assert "tally" in word_lists()["declaration"]
    finally:
        sublanguages.unregister("tally")
    assert lex_line(line)[0][0] == "name" and "tally" not in word_lists()["declaration"]
