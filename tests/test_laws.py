"""Laws: every shipped edition's laws hold (and its house rules keep them), a changed rule breaks
one with the smallest counterexample written as a state file the commands reproduce."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_cli
import yaml

import civdsl
from civdsl import laws
from civdsl.diagnostics import Diagnostics
from civdsl.frontend import check_file

ROOT = Path(__file__).resolve().parent.parent
EDITIONS = ["megaciv", "civ1981", "civ1980", "expansion"]
HOUSE = sorted((ROOT / "rulebooks" / "house").glob("*.civ"))
BUDGET = 120  # enough to find the breaches below; `civdsl check --laws` defaults to laws.DEFAULT_BUDGET


def _laws(path: Path, tmp_path: Path, budget: int = BUDGET, seed: int = 0):
    diags = Diagnostics()
    checked = check_file(path, diags)
    assert checked.ok, diags.render(color=False)
    laws.check_declared(checked.edition, diags)
    verdicts = laws.check_laws(path, checked, diags, budget, seed, tmp_path)
    return verdicts, diags


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_shipped_edition_declares_and_keeps_its_laws(edition, tmp_path):
    verdicts, diags = _laws(ROOT / "rulebooks" / f"{edition}.civ", tmp_path)
    assert {v.prop.name for v in verdicts} == set(laws.PROPERTIES)
    assert [d for d in diags.items if d.code.startswith("CIV17")] == []


@pytest.mark.parametrize("path", HOUSE, ids=lambda p: p.stem)
def test_shipped_house_rules_keep_the_laws_they_inherit(path, tmp_path):
    verdicts, diags = _laws(path, tmp_path, budget=60)
    assert verdicts and [d for d in diags.items if d.code.startswith("CIV17")] == []


def _one(path: Path, law: str, folder: Path, budget: int = laws.DEFAULT_BUDGET, seed: int = 0):
    """One law of the rulebook searched and reported, as `check --laws` does for each."""
    diags = Diagnostics()
    checked = check_file(path, diags)
    assert checked.ok, diags.render(color=False)
    in_force = dict((l.name, (l, p)) for l, p in laws.check_declared(checked.edition, diags))
    v = laws.search(civdsl.load(path).module, checked.edition, *in_force[law], budget, seed)
    laws.report(v, checked.edition, diags, folder)
    return v, diags


def _house(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.civ"
    path.write_text(f'language 1\nedition {name} "{name}" extends megaciv\n{body}', encoding="utf-8")
    return path


GREEDY = 'change calamity "Famine" {\n  primary { damage(5 + advances) }\n  summary "More advances, more famine."\n}\n'


def test_a_rule_that_punishes_advances_breaks_the_inherited_law(tmp_path):
    path = _house(tmp_path, "greedy", GREEDY)
    _, diags = _one(path, "advances_protect", tmp_path)
    [d] = [d for d in diags.items if d.code == "CIV170"]
    assert d.level == "error" and d.item == "advances_protect" and d.span.line == 2  # at the house rule's header
    assert d.help == 'if the house rule means to break it, say so: drop law advances_protect "why"'
    assert any("Famine (primary victim) without" in n for n in d.notes)
    assert any(n.startswith("Famine (primary victim): the effects at") and "greedy.civ:4" in n for n in d.notes)


def test_the_counterexample_is_a_state_file_the_commands_reproduce(tmp_path):
    path = _house(tmp_path, "greedy", GREEDY)
    _one(path, "advances_protect", tmp_path)
    written = tmp_path / "counterexample-greedy-advances_protect.yaml"
    state = yaml.safe_load(written.read_text(encoding="utf-8"))
    commands = [line.strip()[2:].strip() for line in written.read_text().splitlines() if "civdsl resolve" in line]
    extra = commands[1].split("--holds ")[1].strip('"')
    rb = civdsl.load(path)
    facts = {k: v for k, v in state.items() if k != "holds"}
    without = rb.resolve("Famine", "primary", state["holds"], facts).taken("damage")
    with_it = rb.resolve("Famine", "primary", state["holds"] + [extra], facts).taken("damage")
    assert with_it > without
    # the command line reads the file as written
    proc = run_cli("resolve", str(path), "Famine", "--state", str(written), "--holds", extra, "--json")
    assert json.loads(proc.stdout)["effects"][0]["taken"] == with_it


def test_the_counterexample_is_the_smallest_the_search_finds(tmp_path):
    """Shrinking: no advance held, and the fewest unit points at which one more advance shows."""
    path = _house(tmp_path, "greedy", GREEDY)
    v, _ = _one(path, "advances_protect", tmp_path)
    assert v.breach.state["holds"] == []
    assert v.breach.state["unit_points"] == 6  # 5 and 6 damage both fit only from 6 unit points of the grid


def test_dropping_the_law_with_a_reason_accepts_the_breach(tmp_path):
    path = _house(tmp_path, "greedy", GREEDY + 'drop law advances_protect "at our table every advance feeds more mouths"\n')
    verdicts, diags = _laws(path, tmp_path)
    assert "advances_protect" not in [v.law.name for v in verdicts]
    assert [d for d in diags.items if d.code.startswith("CIV17")] == []


def test_unbounded_amounts_break_the_holdings_law(tmp_path):
    path = _house(tmp_path, "unbounded", "amounts { bound none }\n")
    _, diags = _one(path, "within_holdings", tmp_path)
    assert "within_holdings" in [d.item for d in diags.items if d.code == "CIV170"]


def test_the_search_is_reproducible_with_a_seed(tmp_path):
    path = _house(tmp_path, "greedy", GREEDY)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, _ = _one(path, "advances_protect", tmp_path / "a", seed=5)
    two, _ = _one(path, "advances_protect", tmp_path / "b", seed=5)
    assert one.breach.state == two.breach.state
    assert (tmp_path / "a" / "counterexample-greedy-advances_protect.yaml").read_text() == \
        (tmp_path / "b" / "counterexample-greedy-advances_protect.yaml").read_text()


def test_a_small_space_is_walked_whole(tmp_path):
    shutil.copy(ROOT / "tests" / "ui" / "CIV170_law_broken.civ", tmp_path / "crowded.civ")
    verdicts, diags = _laws(tmp_path / "crowded.civ", tmp_path)
    [v] = verdicts
    assert v.tried == "every situation (14)" and v.breach.state == {"holds": [], "cities": 10}


def test_check_searches_laws_only_when_asked(tmp_path):
    path = _house(tmp_path, "greedy", GREEDY)
    assert run_cli("check", str(path)).exit_code == 0
    res = run_cli("check", str(path), "--laws", "--counterexamples", str(tmp_path))
    assert res.exit_code == 1 and "error[CIV170]" in res.output
    assert (tmp_path / "counterexample-greedy-advances_protect.yaml").exists()
