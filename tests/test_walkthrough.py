"""README.md, "Write your own house rules", run as written.

The page is the script: every ```console block after a `<!-- walkthrough: run -->` marker is
run (`civdsl` becomes `python cli.py`) in a copy of the checkout, and its output must be the
one the page shows; `<!-- walkthrough: ... -->` markers before a block stand for the edits
the reader makes by hand. So the page cannot drift from what civdsl does.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "README.md"
HOUSE_FILE = "rulebooks/house/kind_famine.civ"

_BLOCK = re.compile(r"<!-- walkthrough: ([\w-]+) -->|```(\w+)\n(.*?)```", re.S)


def _steps():
    """(markers, language, body) for every fenced block of the page, in order."""
    markers: list[str] = []
    for m in _BLOCK.finditer(DOC.read_text(encoding="utf-8")):
        if m.group(1):
            markers.append(m.group(1))
        else:
            yield markers, m.group(2), m.group(3)
            markers = []


def _commands(body: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    out: list[tuple[str, list[str]]] = []
    for line in body.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            out[-1][1].append(line)
    return [(cmd, "\n".join(lines)) for cmd, lines in out]


def _normalise(text: str) -> str:
    # the page's file counts are compared as printed: a reader counts what the build wrote
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A private copy of the checkout: the walkthrough writes files into it."""
    dest = tmp_path_factory.mktemp("walkthrough") / "civdsl"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    dest.mkdir()
    shutil.copy(ROOT / "cli.py", dest / "cli.py")
    for folder in ("civdsl", "grammar", "rulebooks", "schemas"):
        if (ROOT / folder).is_dir():
            shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
    (dest / HOUSE_FILE).unlink(missing_ok=True)
    return dest


def _run(checkout: Path, command: str) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    assert argv[0] == "civdsl", command
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               CIVDSL_CACHE=str(checkout.parent / "cache"))
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "cli.py", *argv[1:]], cwd=checkout, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)


def _edit(checkout: Path, marker: str) -> None:
    path = checkout / HOUSE_FILE
    text = path.read_text(encoding="utf-8")
    if marker == "uncomment-famine":
        lines = text.split("\n")
        start = lines.index('# change calamity "Famine" {')
        end = lines.index("# }", start)
        for i in range(start, end + 1):
            lines[i] = lines[i][2:]
        text = "\n".join(lines)
    elif marker == "typo":
        assert 'holds("Medicine")' in text
        text = text.replace('holds("Medicine")', 'holds("Medecine")')
    elif marker == "fix":
        text = text.replace('holds("Medecine")', 'holds("Medicine")')
    elif marker == "overrule":
        text = text.rstrip("\n") + "\n\n" + OVERRULE + "\n"
    else:
        raise AssertionError(f"unknown walkthrough marker {marker!r}")
    path.write_text(text, encoding="utf-8")


# the line the reader adds once `check` names the ruling the house rule overturns
OVERRULE = 'overrules famine_agriculture "Agriculture no longer adds famine damage at our table"'

CHART_COMMANDS: list[str] = []
CHART_EXCERPTS: list[str] = []


def test_walkthrough(checkout):
    ran = 0
    for markers, lang, body in _steps():
        for marker in markers:
            if marker in ("uncomment-famine", "typo", "fix", "overrule"):
                _edit(checkout, marker)
        if "file-contains" in markers or "typo" in markers or "overrule" in markers:
            assert body.rstrip("\n") in (checkout / HOUSE_FILE).read_text(encoding="utf-8"), body
        if "chart" in markers:
            CHART_COMMANDS.extend(cmd for cmd, _ in _commands(body))
            continue
        if "chart-contains" in markers:
            CHART_EXCERPTS.append(body.rstrip("\n"))
            continue
        if "run" not in markers:
            continue
        assert lang == "console"
        for command, expected in _commands(body):
            if shutil.which("dot") is None:  # the page says: one file fewer, the SVG Graphviz draws
                expected = re.sub(r"\((\d+) files\)", lambda m: f"({int(m.group(1)) - 1} files)", expected)
            res = _run(checkout, command)
            want_exit = 1 if "error[" in expected else 0
            assert _normalise(res.stdout) == _normalise(expected), f"$ {command}\n{res.stdout}"
            assert res.returncode == want_exit, f"$ {command} exited {res.returncode}\n{res.stdout}"
            ran += 1
    assert ran >= 7
    # what the walkthrough built is really there, and the page's claim about Mega Civilization holds
    assert (checkout / "generated" / "kind_famine" / "model.json").is_file()
    res = _run(checkout, "civdsl resolve megaciv Famine --holds Agriculture,Medicine")
    assert "take 15 damage" in res.stdout


def _chart_available() -> bool:
    from civdsl.cli import main

    return main.get_command(click.Context(main), "chart") is not None


@pytest.mark.skipif(not _chart_available(), reason="`civdsl chart` is not available yet (civdsl.cli.charts): "
                                                   "the walkthrough's chart step is not run")
def test_walkthrough_chart(checkout):
    if not (checkout / HOUSE_FILE).is_file():
        pytest.skip("the walkthrough did not get as far as the chart")
    assert CHART_COMMANDS, "the page shows no chart command"
    for command in CHART_COMMANDS:
        res = _run(checkout, command)
        assert res.returncode == 0, f"$ {command}\n{res.stdout}"
        for excerpt in CHART_EXCERPTS:
            assert excerpt in res.stdout, res.stdout


def test_the_skeleton_shown_is_the_one_new_writes(monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"The top of the new file:\n\n```civ\n(.*?)```", readme, re.S).group(1)
    from civdsl.scaffold import skeleton

    text = skeleton("kind_famine", "megaciv", Path(HOUSE_FILE))
    header = shown.split("language 1")[0]
    assert header in text, "the README shows a skeleton header `civdsl new` no longer writes"
