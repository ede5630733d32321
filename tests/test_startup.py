"""Start-up and exit of the command line, what its speed rests on besides imports (those are
tests/test_layering.py's): the collector paused only while start-up builds what it keeps, and a
run of the command line leaving its objects to the operating system at exit."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# an exit handler registered before the command line runs: handlers run last-registered first,
# so it sees what the command line's own handler left
_REPORT_AT_EXIT = ("import atexit, gc, sys\n"
                   "atexit.register(lambda: sys.stderr.write(f'\\nFROZEN {gc.get_freeze_count()} '"
                   "f'ENABLED {gc.isenabled()}\\n'))\n")


def _at_exit(code: str) -> tuple[int, bool]:
    proc = subprocess.run([sys.executable, "-c", _REPORT_AT_EXIT + code], cwd=ROOT, capture_output=True, text=True)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("FROZEN ")][-1].split()
    return int(line[1]), line[3] == "True"


def test_a_run_of_the_command_line_leaves_its_objects_to_the_system_at_exit():
    frozen, enabled = _at_exit("from civdsl.cli import main\ntry:\n    main(['resolve', 'megaciv', 'Famine'])\n"
                               "except SystemExit:\n    pass\n")
    assert frozen > 0 and enabled  # the collector is on, but walks none of them


def test_importing_the_command_line_changes_nothing_at_exit():
    frozen, enabled = _at_exit("import gc\nimport civdsl.cli\nimport civdsl.cli.questions\n"
                               "assert gc.isenabled(), 'the collector stayed paused after the import'\n")
    assert frozen == 0 and enabled


def test_the_collector_is_on_once_a_question_has_its_rulebook(monkeypatch):
    from civdsl.cli import common

    seen = []
    monkeypatch.setattr("civdsl.api.load", lambda name: seen.append(gc.isenabled()) or name)
    assert common.open_rulebook("megaciv") == "megaciv"
    assert seen == [False] and gc.isenabled()  # paused while it loads, on again after
