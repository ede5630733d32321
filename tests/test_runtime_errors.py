"""Runtime errors are located right: a rule that fails while running is reported at the file,
line and column that state it (for a rule a house rule inherits, the base's), and the command
line prints a diagnostic, never a traceback."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import run_cli

import civdsl
from civdsl.errors import RulebookRuntimeError
from civdsl.rounds import runtime as rounds_runtime
from civdsl.sourcemap import source_entries

ROOT = Path(__file__).resolve().parent.parent

BASE = """\
language 1
edition divbase "A base whose rule divides by a fact"
credit policy per_card

calamity "Quake" {
  stack 1
  class minor
  primary { damage(12 // cities) }
}
"""

HOUSE = """\
language 1
edition divhouse "A house rule" extends "base.civ"
note "Quake is inherited as it is."
"""


@pytest.fixture
def house(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.civ").write_text(BASE, encoding="utf-8")
    (tmp_path / "house.civ").write_text(HOUSE, encoding="utf-8")
    return tmp_path / "house.civ"


def test_an_inherited_rule_that_divides_by_zero_names_the_base_file_and_line(house):
    rb = civdsl.load(house)
    with pytest.raises(RulebookRuntimeError) as caught:
        rb.resolve("Quake", "primary", [], {"cities": 0})
    err = caught.value
    assert (Path(err.path).name, err.line, err.column) == ("base.civ", 8, 13)
    assert str(err).startswith(f"{err.path}:8: ZeroDivisionError")
    assert err.reason == "a division by zero"


def test_the_source_map_records_the_file_of_every_rule_line(house):
    module = civdsl.load(house).module
    sources = source_entries(module.LINE_SOURCES)
    assert len(sources) == len(module.LINES)
    files = {Path(module.LINE_FILES[f]).name for f, _column, _end in sources}
    assert files == {"base.civ"}  # the house rule states no rule of its own
    assert [Path(p).name for p in module.LINE_FILES] == ["base.civ", "house.civ"]


def test_resolve_prints_a_diagnostic_at_the_base_not_a_traceback(house):
    proc = run_cli("resolve", "house.civ", "Quake", "--set", "cities=0", cwd=house.parent)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == "base.civ:8:13: error[CIV130]: this rule failed while running: a division by zero"
    assert lines[2] == "8 |   primary { damage(12 // cities) }"
    assert lines[3].endswith("^" * len("damage(12 // cities)"))


ROUND_BASE = """\
language 1
edition roundbase "Round rules that fail on some states"
stat b "B" initial 0 bounds 0..
stat a "A" initial 0 bounds 0..
pool dice "Dice" {
  sides b
  base 1
}
phase share "Share" {
  set a = 10 // b
}
phase roll "Roll" {
  roll r = dice
}
"""

ROUND_HOUSE = """\
language 1
edition roundhouse "A house rule of the round rules" extends "roundbase.civ"
note "Every phase is inherited."
"""


@pytest.fixture
def round_house(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "roundbase.civ").write_text(ROUND_BASE, encoding="utf-8")
    (tmp_path / "roundhouse.civ").write_text(ROUND_HOUSE, encoding="utf-8")
    return civdsl.load(tmp_path / "roundhouse.civ").module


def test_an_inherited_phase_that_divides_by_zero_names_the_base(round_house):
    with pytest.raises(RulebookRuntimeError) as caught:
        rounds_runtime.run_phase(round_house, "share", rounds_runtime.new_state(round_house), random.Random(0))
    assert (Path(caught.value.path).name, caught.value.line) == ("roundbase.civ", 10)


def test_a_round_rule_failing_its_own_check_names_the_base(round_house):
    # a pool of 0 sides cannot be rolled: the round runtime's own check, located through the source map
    with pytest.raises(RulebookRuntimeError, match="has 0 sides") as caught:
        rounds_runtime.run_phase(round_house, "roll", rounds_runtime.new_state(round_house), random.Random(0))
    assert (Path(caught.value.path).name, caught.value.line) == ("roundbase.civ", 13)


def test_step_prints_a_diagnostic_for_a_failing_round_rule(round_house, tmp_path):
    proc = run_cli("step", "roundhouse.civ", "--phase", "share", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("roundbase.civ:10:3: error[CIV130]: this rule failed while running")


def test_a_rule_of_the_edition_itself_names_its_own_file(tmp_path):
    (tmp_path / "solo.civ").write_text(BASE.replace("divbase", "solo"), encoding="utf-8")
    with pytest.raises(RulebookRuntimeError) as caught:
        civdsl.load(tmp_path / "solo.civ").resolve("Quake", "primary", [], {"cities": 0})
    assert (Path(caught.value.path).name, caught.value.line) == ("solo.civ", 8)
    assert ": ZeroDivisionError" in str(caught.value)


SCORE = """\
language 1
edition scored "A score line that divides by a fact"
credit policy per_card

score {
  points "Cities per player" 12 // cities
}
"""


def test_score_prints_a_diagnostic_for_a_failing_score_line(tmp_path):
    (tmp_path / "scored.civ").write_text(SCORE, encoding="utf-8")
    with pytest.raises(RulebookRuntimeError) as caught:
        civdsl.load(tmp_path / "scored.civ").score([], {"cities": 0})
    assert (Path(caught.value.path).name, caught.value.line, caught.value.column) == ("scored.civ", 6, 3)
    proc = run_cli("score", "scored.civ", "--set", "cities=0", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.endswith("scored.civ:6:3: error[CIV130]: this rule failed while running: a division by zero")


def test_errors_not_raised_by_a_rule_pass_unchanged(house):
    from civdsl.sourcemap import rules_of

    module = civdsl.load(house).module
    with pytest.raises(KeyError):
        with rules_of(module):
            {}["not a rule"]
