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


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_the_tally_of_cards_in_hands_follows_every_event(path):
    # the supply check reads one tally the players share (players.share_tally) instead of walking
    # every hand: after every event, and in the copy an added event is applied to, it is the hands' sum
    gf = gamefile.read(path)
    game = gamefile.start(load(gf.setup["edition"]), gf.setup)
    for i, event in enumerate(gf.events):
        gamefile.apply(game, event, keep_on_refusal=i % 2 == 0)
        hands: dict = {}
        for p in game.players.values():
            for card, n in p.cards.items():
                hands[card] = hands.get(card, 0) + n
        tallies = {id(p.tally) for p in game.players.values()}
        tally = next(iter(game.players.values())).tally
        assert len(tallies) == 1 and {c: n for c, n in tally.items() if n} == hands, (i, event)
