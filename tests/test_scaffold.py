"""`civdsl new NAME --from BASE`: a commented house-rule skeleton that checks as written and
after any one of its examples is uncommented."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from civdsl.frontend import check_file
from civdsl.fmt import format_text

ROOT = Path(__file__).resolve().parent.parent
CODE = re.compile(r"^# *((change|remove|advance|errata|const|credit|option|note|primary|drop|when|cost|groups|credits|"
                  r"summary)\b.*|\}.*)$")


def _new(tmp_path: Path, name: str, base: str, out: str | None = None):
    out_path = tmp_path / (out or f"{name}.civ")
    res = run_cli("new", name, "--from", base, "-o", str(out_path))
    return res, out_path


def _sections(text: str) -> list[list[int]]:
    """Line numbers of the commented code of each example section (`# --- ...` headers)."""
    sections: list[list[int]] = []
    for i, line in enumerate(text.split("\n")):
        if line.startswith("# ---"):
            sections.append([])
        elif sections and CODE.match(line):
            sections[-1].append(i)
    return [s for s in sections if s]


def _uncomment(text: str, lines: list[int]) -> str:
    out = text.split("\n")
    for i in lines:
        out[i] = out[i][2:]
    return "\n".join(out)


from civdsl.resources import shipped_rulebooks
from conftest import run_cli

SHIPPED = sorted(shipped_rulebooks())
WITH_ITEMS = [b for b in SHIPPED if b != "cardgame"]  # the card game has no advances or calamities


@pytest.mark.parametrize("base", SHIPPED)
def test_every_shipped_base_gets_a_skeleton_that_checks(tmp_path, base):
    res, path = _new(tmp_path, "my_rule", base)
    assert res.exit_code == 0, res.output
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    text = path.read_text(encoding="utf-8")
    assert format_text(text) == text
    for i, lines in enumerate(_sections(text)):
        trial = tmp_path / f"trial{i}.civ"
        trial.write_text(_uncomment(text, lines), encoding="utf-8")
        checked = check_file(trial)
        assert checked.ok, (trial.read_text(), checked.diagnostics.render())


def test_scaffold_names_no_card_of_any_edition():
    """Rules are data: the examples are chosen by the base's structure, never by card name."""
    import ast

    from civdsl.diff import load_edition

    source = (ROOT / "civdsl" / "scaffold.py").read_text(encoding="utf-8")
    literals = {n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    for base in WITH_ITEMS:
        ed = load_edition(base)
        names = set(ed.advances) | set(ed.calamities)
        assert not literals & names, (base, literals & names)


def test_examples_follow_the_declared_structure(tmp_path):
    """civ1980 declares Flood (17 damage, Engineering caps it) before Famine: the calamity example
    is the first that can lower a number, drop a modifier and add one; its new modifier names an
    advance the calamity does not already name."""
    res, path = _new(tmp_path, "my_rule", "civ1980")
    text = path.read_text(encoding="utf-8")
    assert '# change calamity "Flood" {' in text
    assert "#   primary { damage(15, area=flood_plain) }" in text
    assert '#   drop when holds("Engineering")' in text
    assert '#   when holds("Engineering") for primary' not in text
    res, path = _new(tmp_path, "my_rule2", "megaciv")
    # Medicine already prevents damage in Epidemic: the first advance protecting against that kind elsewhere
    assert '#   when holds("Medicine") for primary { prevent damage 2 }' in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("base", WITH_ITEMS)
def test_skeleton_checks_and_is_formatted(tmp_path, base):
    res, path = _new(tmp_path, "my_rule", base)
    assert res.exit_code == 0, res.output
    assert f"wrote {path}" in res.output
    text = path.read_text(encoding="utf-8")
    assert "edition my_rule " in text and f"extends {base}" in text
    assert check_file(path).ok
    assert format_text(text) == text
    for needle in ("# change calamity", "#   drop when", "# remove ", "# change advance", "# advance "):
        assert needle in text, needle


@pytest.mark.parametrize("base", WITH_ITEMS)
def test_each_example_checks_once_uncommented(tmp_path, base):
    res, path = _new(tmp_path, "my_rule", base)
    text = path.read_text(encoding="utf-8")
    sections = _sections(text)
    assert len(sections) >= 5
    for i, lines in enumerate(sections):
        trial = tmp_path / f"trial{i}.civ"
        trial.write_text(_uncomment(text, lines), encoding="utf-8")
        checked = check_file(trial)
        assert checked.ok, (trial.read_text(), checked.diagnostics.render())
        assert not [d for d in checked.diagnostics.items if d.level == "warning"], checked.diagnostics.render()


def test_examples_that_break_base_asserts_carry_their_errata(tmp_path):
    res, path = _new(tmp_path, "my_rule", "megaciv")
    text = path.read_text(encoding="utf-8")
    assert '# remove calamity "Coastal Migration"' in text
    assert '# errata CIV042 "24 calamities" "this house rule differs"' in text
    assert '# errata CIV042 "printed costs total 7,920" "this house rule differs"' in text


def test_extending_a_house_rule_by_relative_path(tmp_path):
    shutil.copy(ROOT / "rulebooks" / "house" / "gentle.civ", tmp_path / "gentle.civ")
    res, path = _new(tmp_path, "gentler", str(tmp_path / "gentle.civ"))
    assert res.exit_code == 0, res.output
    text = path.read_text(encoding="utf-8")
    assert 'edition gentler "Gentler (house rule for Gentler calamities (Mega Civilization house rule))" ' \
           'extends "gentle.civ"' in text
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    assert checked.edition.bases == ["megaciv", "gentle"]


def test_refuses_to_overwrite(tmp_path):
    target = tmp_path / "mine.civ"
    target.write_text("# my precious work\n")
    res = run_cli("new", "mine", "-o", str(target))
    assert res.exit_code == 1
    assert "already exists" in res.output
    assert target.read_text() == "# my precious work\n"


@pytest.mark.parametrize("name,message", [
    ("9lives", "not a valid edition id"),
    ("my-rule", "not a valid edition id"),
    ("note", "keyword"),
    ("megaciv", "shipped rulebook"),
])
def test_refuses_bad_names(tmp_path, name, message):
    res = run_cli("new", name, "-o", str(tmp_path / "x.civ"))
    assert res.exit_code == 1
    assert message in res.output
    assert not (tmp_path / "x.civ").exists()


def test_unknown_base(tmp_path):
    res = run_cli("new", "mine", "--from", "megacv", "-o", str(tmp_path / "x.civ"))
    assert res.exit_code == 1
    assert "did you mean `megaciv`" in res.output
    assert not (tmp_path / "x.civ").exists()


def test_default_output_is_name_dot_civ(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = run_cli("new", "mine")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "mine.civ").is_file()
    assert not list(tmp_path.glob(".civdsl-new-*"))  # trial files are cleaned up


def test_base_outside_the_new_files_tree_is_refused(tmp_path):
    (tmp_path / "bases").mkdir()
    (tmp_path / "rules").mkdir()
    shutil.copy(ROOT / "rulebooks" / "house" / "gentle.civ", tmp_path / "bases" / "gentle.civ")
    out = tmp_path / "rules" / "mine.civ"
    res = run_cli("new", "mine", "--from", str(tmp_path / "bases" / "gentle.civ"), "-o", str(out))
    assert res.exit_code == 1
    assert "outside" in res.output
    assert not out.exists()


@pytest.mark.parametrize("option", ["--base", "--extends"])
def test_base_and_extends_are_other_names_for_from(tmp_path, option):
    """The help's first line speaks of the rulebook extended; `--base` and `--extends` (the word the
    rulebook itself says) are accepted as `--from`."""
    res = run_cli("new", "mine", option, "civ1981", "-o", str(tmp_path / "x.civ"))
    assert res.exit_code == 0, res.output
    assert "extends civ1981" in (tmp_path / "x.civ").read_text(encoding="utf-8")
