"""The README stays true: its example output is what the command prints, and the commands it
names are the ones CI runs."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_first_example_prints_what_the_readme_shows():
    block = re.search(r"```\n\$ (civdsl [^\n]+)\n(.*?)```", README, re.S)
    command, shown = block.group(1), block.group(2)
    args = re.findall(r'"[^"]*"|\S+', command)[1:]
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), *[a.strip('"') for a in args]], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == shown


def test_ci_runs_the_readme_test_command():
    assert "python -m pytest" in README and "pip install '.[test]' && civdsl build" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 -m pytest" in ci and "apt-get update" in ci and "graphviz" in ci
