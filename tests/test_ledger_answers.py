"""Every recorded game's `game show` answers (text, `--json`, `--turn N --json`) stay byte for byte
what they were when their digests were recorded: a change of how the ledger computes a state (states
kept and updated in place, a cache of derived values) must never change an answer.

After an intended change of an answer, record the new digests with:
    CIVDSL_BLESS=1 python -m pytest tests/test_ledger_answers.py"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "tests" / "games").glob("*.yaml"))
DIGESTS = ROOT / "tests" / "games" / "show-digests.json"
# the questions asked of each game: the whole game in words and as data, and two points of time travel
QUESTIONS = [(), ("--json",), ("--turn", "2", "--json"), ("--turn", "7", "--json")]


def _key(game: Path, question: tuple) -> str:
    return " ".join((game.name,) + question)


def _digest(game: Path, question: tuple) -> str:
    ran = run_cli("game", "show", game.relative_to(ROOT), *question, cwd=ROOT)
    assert ran.returncode == 0, ran.stderr
    return hashlib.sha256(ran.stdout.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("game", GAMES, ids=[g.stem for g in GAMES])
def test_a_recorded_game_answers_as_recorded(game):
    recorded = json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.exists() else {}
    answers = {_key(game, q): _digest(game, q) for q in QUESTIONS}
    if os.environ.get("CIVDSL_BLESS"):
        recorded = json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.exists() else {}
        recorded.update(answers)
        DIGESTS.write_text(json.dumps(dict(sorted(recorded.items())), indent=1) + "\n", encoding="utf-8")
        return
    missing = [k for k in answers if k not in recorded]
    assert not missing, f"no recorded digest for {missing}: run with CIVDSL_BLESS=1 to record them"
    changed = [k for k, v in answers.items() if recorded[k] != v]
    assert not changed, f"`game show` answers differently from the recorded answer: {changed}"
