"""What the ledger's speed rests on (benchmarks/bench_ledger.py measures the speed itself)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from civdsl.api import load
from civdsl.ledger import gamefile

GAMES = sorted((Path(__file__).parent / "games").glob("*.yaml"))


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_a_replay_leaves_no_cyclic_garbage(path):
    # `game show` replays with the cyclic collector paused (cli/game.py, gcpause): what a replay
    # drops must be freed by reference counting, or a paused replay would hold it until the next
    # collection
    gf = gamefile.read(path)
    rb = load(gf.setup["edition"])
    gc.collect()
    gc.disable()
    try:
        game = gamefile.replay(rb, gf)
        assert game.events == len(gf.events)
        del game
        assert gc.collect() == 0
    finally:
        gc.enable()
