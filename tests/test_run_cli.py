"""conftest.run_cli, the command line run in the test process: it gives what a process would (exit
code, stdout and stderr apart), leaves nothing behind for the next test, and never hides a crash."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import RanTooLong, run_cli

ROOT = Path(__file__).resolve().parent.parent
BAD = "tests/ui/CIV015_unknown_effect.civ"


def test_exit_code_and_the_two_streams_apart():
    ran = run_cli("check", BAD, "--json", cwd=ROOT)
    assert ran.returncode == 1 and ran.stdout.startswith("{") and ran.stderr == ""
    ran = run_cli("check", BAD, cwd=ROOT)
    assert ran.returncode == 1 and ran.stdout == "" and "error[CIV015]" in ran.stderr
    assert run_cli("no-such-command").returncode == 2


def test_folder_and_environment_are_the_runs_own(tmp_path):
    before, had = os.getcwd(), os.environ.get("NO_COLOR")
    (tmp_path / "mine.civ").write_text('language 1\nedition mine "Mine"\ncredit policy nope\n', encoding="utf-8")
    ran = run_cli("check", "mine.civ", cwd=tmp_path, env={"NO_COLOR": "1"})
    assert ran.returncode == 1 and ran.stderr.startswith("mine.civ:3:"), ran.stderr
    assert os.getcwd() == before and os.environ.get("NO_COLOR") == had


def test_colour_asked_for_in_one_run_is_not_left_for_the_next():
    from civdsl.cli import terminal

    assert "\x1b[" in run_cli("check", BAD, "--color", "always", cwd=ROOT).stderr
    assert terminal._STYLES_ASKED is False


def test_a_crash_is_raised_not_turned_into_an_exit_code(monkeypatch):
    def crash():
        raise RuntimeError("a bug in the command")

    monkeypatch.setattr("civdsl.resources.install_drift", crash)
    with pytest.raises(RuntimeError, match="a bug in the command"):
        run_cli("vocab")


def test_a_run_past_its_timeout_is_stopped(monkeypatch):
    monkeypatch.setattr("civdsl.resources.install_drift", lambda: time.sleep(30))
    with pytest.raises(RanTooLong):  # without the timer the command would sleep and return
        run_cli("vocab", timeout=0.2)
