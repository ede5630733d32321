"""UI tests: each broken rulebook in tests/ui/ beside the exact report civdsl gives for it.

Re-bless after an intended change with:  CIVDSL_BLESS=1 python -m pytest tests/test_ui_diagnostics.py
"""

import os
import re
from pathlib import Path

import pytest
from conftest import run_cli

from civdsl.codes import CODES
from civdsl.frontend import check_file

UI = Path(__file__).parent / "ui"
CASES = sorted(UI.glob("*.civ"))


def _report(name: str) -> str:
    """What civdsl reports for the case: `civdsl check`'s report, or, for a case with a sibling
    `.args` file (a diagnostic only a command meets, such as a rule failing while it runs), what
    that command prints on stderr (on stdout when it reports warnings only)."""
    args = Path(name).with_suffix(".args")
    if args.exists():
        import shlex

        proc = run_cli(*shlex.split(args.read_text()), env={"NO_COLOR": "1"})
        # warnings alone go to stdout, with the line that the rulebook is fine
        return proc.stderr or proc.stdout
    checked = check_file(Path(name))
    return checked.diagnostics.render(color=False) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_ui_case(case, monkeypatch):
    monkeypatch.chdir(UI)
    actual = _report(case.name)
    expected_path = case.with_suffix(".expected")
    if os.environ.get("CIVDSL_BLESS"):
        expected_path.write_text(actual, encoding="utf-8")
    assert expected_path.exists(), f"no expected output: run with CIVDSL_BLESS=1 to create {expected_path.name}"
    assert actual == expected_path.read_text(encoding="utf-8")
    code = case.stem.split("_")[0]
    if code in CODES:
        # the case is about this code: it must be reported, at a position inside the file
        assert re.search(rf"\b(error|warning|note)\[{code}\]", actual), actual
        for m in re.finditer(r"^([^\s:]+\.civ):(\d+):(\d+): ", actual, re.M):
            named = UI / m.group(1) if (UI / m.group(1)).exists() else case  # a base the case extends
            lines = len(named.read_bytes().splitlines())
            assert 1 <= int(m.group(2)) <= max(lines, 1)


def test_every_code_has_a_ui_case():
    covered = {c.stem.split("_")[0] for c in CASES}
    missing = sorted(set(CODES) - covered - {"CIV090"})
    assert not missing, f"codes without a failing-input test in tests/ui/: {missing}"


def test_every_reported_code_is_documented():
    source = "\n".join(p.read_text() for p in (Path(__file__).parent.parent / "civdsl").rglob("*.py"))
    used = set(re.findall(r'"(CIV\d{3})"', source))
    assert used <= set(CODES) | {"CIV090"}, sorted(used - set(CODES))


def test_all_errors_are_reported_in_one_run(monkeypatch):
    monkeypatch.chdir(UI)
    report = _report("OK_all_errors_in_one_run.civ")
    for code in ("CIV012", "CIV010", "CIV023", "CIV015", "CIV013"):
        assert f"[{code}]" in report


def test_cli_check_exit_code_and_format(root):
    proc = run_cli("check", "tests/ui/CIV010_unknown_advance.civ", cwd=root)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert re.match(r"tests/ui/CIV010_unknown_advance\.civ:\d+:\d+: error\[CIV010\]: credit to unknown advance `Agriculure`", first)
    assert "help: did you mean `Agriculture`?" in proc.stderr
    assert "^" in proc.stderr


def test_cli_check_json_format(root):
    import json

    proc = run_cli("check", "--json", "tests/ui/CIV015_unknown_effect.civ", cwd=root)
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["command"] == "check" and data["rulebooks"] == ["tests/ui/CIV015_unknown_effect.civ"]
    assert data["errors"] == 1
    first = data["diagnostics"][0]
    assert first["code"] == "CIV015" and first["line"] == 6 and first["level"] == "error"


def test_explain_prints_wrong_and_right_examples(root):
    proc = run_cli("explain", "CIV012", cwd=root)
    assert proc.returncode == 0
    assert "Wrong:" in proc.stdout and "Right:" in proc.stdout and "groups craft" in proc.stdout
    bad = run_cli("explain", "CIV999", cwd=root)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
