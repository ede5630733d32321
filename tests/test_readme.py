"""The README stays true: its example output is what the command prints, every command it shows
runs as written (with the sample files it names), and the commands it tells a new user to run
are the ones CI runs, in a virtual environment as a user would."""

import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced code block."""
    out, info, body, inside = [], "", [], False
    for line in text.splitlines():
        if line.startswith("```"):
            if inside:
                out.append((info, "\n".join(body)))
                body = []
            else:
                info = line[3:].strip()
            inside = not inside
        elif inside:
            body.append(line)
    return out


def _example_commands() -> list[str]:
    """Every `civdsl ...` line of a plain code block (not the walkthrough's `$ ` transcripts,
    which tests/test_walkthrough.py runs), with optional [...] parts dropped; synopses that
    list alternatives (`a|b`) are left out. A comment saying `(exit 1)` is kept: the exit code
    the example shows."""
    commands = []
    for info, body in _blocks(README):
        if info:
            continue
        for line in body.splitlines():
            line, _, comment = line.partition("  #")
            line = line.strip() + ("  # (exit 1)" if "(exit 1)" in comment else "")
            line = re.sub(r"\s*\[[^\]]*\]", "", line)
            if not line.startswith("civdsl ") or "|" in line or "..." in line:
                continue
            if re.search(r"\b[A-Z]{2,}\b", line.replace("CIV012", "")):  # a placeholder such as RULEBOOK or FILE
                continue
            commands.append(line)
    return commands


@pytest.fixture(scope="module")
def checkout_copy(tmp_path_factory) -> Path:
    """A copy of the checkout's inputs to run the README's commands in: `civdsl build` and `fmt`
    act on the folder they run in, and must never rewrite the real generated/ or rulebooks."""
    copy = tmp_path_factory.mktemp("checkout")
    for folder in ("rulebooks", "examples", "grammar", "schemas"):
        shutil.copytree(ROOT / folder, copy / folder)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, copy / name)
    return copy


def test_first_example_prints_what_the_readme_shows(checkout_copy):
    block = re.search(r"```\n\$ (civdsl [^\n]+)\n(.*?)```", README, re.S)
    command, shown = block.group(1), block.group(2)
    args = re.findall(r'"[^"]*"|\S+', command)[1:]
    proc = run_cli(*[a.strip('"') for a in args], cwd=checkout_copy)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == shown


def test_the_examples_are_found():
    found = _example_commands()
    assert any(c.startswith("civdsl plan megaciv --state examples/state.yaml") for c in found)
    assert any(c.startswith("civdsl step cardgame --state examples/cardgame-state.yaml") for c in found)
    assert "civdsl resolve megaciv Famine --set commodities.Grain=2" in found


@pytest.mark.parametrize("command", _example_commands())
def test_every_example_command_runs_as_written(command, checkout_copy):
    command, _, comment = command.partition("  #")
    args = shlex.split(command)[1:]
    proc = run_cli(*args, cwd=checkout_copy)
    expected = 1 if "(exit 1)" in comment else 0
    assert proc.returncode == expected, f"{command}\n{proc.stdout[-1000:]}{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr


def test_the_sample_state_is_the_one_the_readme_shows():
    block = re.search(r"is `examples/state\.yaml`:\n\n```yaml\n(.*?)```", README, re.S).group(1)
    assert (ROOT / "examples" / "state.yaml").read_text(encoding="utf-8") == block


def test_quick_start_installs_the_checkout_editable():
    assert "pip install -e '.[test,fast]' && civdsl build" in README
    assert "python -m pytest" in README
    assert "pip install '.[test" not in README  # a copy would ignore the user's edits


def test_ci_runs_the_readme_commands_in_a_venv():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "apt-get update" in ci and "graphviz" in ci and "chromium-driver" in ci
    assert re.search(r"python3 -m venv \S+", ci)
    assert re.search(r"pip install .*-e '\.\[test", ci)
    assert re.search(r"^python -m pytest", ci, re.M)  # the README's test command, in the venv
    command = re.search(r"Run the tests.*?```\n(python -m pytest[^\n]*)\n```", README, re.S).group(1)
    assert re.search(rf"^{re.escape(command)}(\s|$)", ci, re.M), command


def test_readme_names_the_system_packages_and_what_they_are_for():
    for package in ("python3-venv", "graphviz", "chromium", "chromium-driver", "fonts-dejavu-core"):
        assert f"`{package}`" in README
    assert "apt-get install python3-venv " in README  # the quick start's venv needs it on Debian


def test_readme_says_how_long_the_suite_takes():
    said = re.search(r"The whole suite is about [\d,]+ tests and takes (.+?) minutes", README)
    assert said, "the README does not say how long `python -m pytest` takes"
    assert "python -m pytest tests/test_scenarios.py" in README  # and how to run less of it
