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
    _rulebook(copy, "house.civ", "")
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
    # the language reference's field table knows it too
    tables = _run(copy, code="from civdsl import fields; print(fields.markdown())").stdout
    assert "| `upkeep` | number | no |" in tables
