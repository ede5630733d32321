"""Properties of the ledger over the recorded games (Hypothesis picks the point and the change):
replaying equals applying one by one, undo then re-add is identity, and a refused event leaves
the game and the file exactly as they were."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from civdsl.api import load
from civdsl.ledger import gamefile
from civdsl.ledger.play import Refused

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "tests" / "games").glob("*.yaml"))
SETTINGS = settings(max_examples=25, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@lru_cache(maxsize=None)
def recorded(i: int):
    gf = gamefile.read(GAMES[i])
    return gf, load(gf.setup["edition"])


def snapshot(game) -> tuple:
    return (game.turn, game.step, game.ended, [p.to_data() for p in game.players.values()],
            [e.to_data() for e in game.log])


@SETTINGS
@given(st.integers(0, len(GAMES) - 1), st.floats(0, 1))
def test_replaying_a_prefix_equals_applying_its_events_one_by_one(i, where):
    gf, rb = recorded(i)
    upto = int(where * len(gf.events))
    game = gamefile.start(rb, gf.setup)
    for event in gf.events[:upto]:
        game.apply(event)
    assert snapshot(game) == snapshot(gamefile.replay(rb, gf, upto))


@SETTINGS
@given(st.integers(0, len(GAMES) - 1), st.floats(0, 1))
def test_undo_then_add_again_is_identity(i, where):
    gf, rb = recorded(i)
    upto = max(1, int(where * len(gf.events)))
    after = gamefile.replay(rb, gf, upto)
    undone = gamefile.replay(rb, gf, upto - 1)
    undone.apply(gf.events[upto - 1])
    assert snapshot(undone) == snapshot(after)


def _changed(event: dict, how: int, value) -> dict:
    """The event with one thing changed: a player, a number, a card, or the kind."""
    out = dict(event)
    keys = [k for k in out if k not in ("turn", "step")]
    key = keys[how % len(keys)]
    out[key] = value
    return out


@SETTINGS
@given(st.integers(0, len(GAMES) - 1), st.floats(0, 1), st.integers(0, 50),
       st.one_of(st.integers(-5, 500), st.sampled_from(["zed", "", "Ochre", "Pottery", "next", "buy", "forward"]),
                 st.lists(st.sampled_from(["Ochre", "Gold", "Famine", "Salt", "Pottery", "x"]), max_size=12),
                 st.none(), st.dictionaries(st.sampled_from(["cities", "zed"]), st.integers(-1, 3), max_size=2)))
def test_a_changed_event_is_applied_or_refused_leaving_the_game_as_it_was(i, where, how, value):
    gf, rb = recorded(i)
    upto = int(where * (len(gf.events) - 1))
    game = gamefile.replay(rb, gf, upto)
    before = snapshot(game)
    try:
        game.apply(_changed(gf.events[upto], how, value))
    except Refused:
        assert snapshot(game) == before
        return
    except (KeyError, TypeError, AttributeError, ValueError) as exc:  # never a crash on a bad event
        raise AssertionError(f"the ledger crashed instead of refusing: {exc!r}") from exc
    pieces = game.pieces
    for p in game.players.values():
        assert min(p.cities, p.tokens, p.ships, p.treasury, p.ast_position, *p.cards.values(), 0) == 0
        assert pieces["cities"] is None or p.cities <= pieces["cities"]


def test_a_refused_event_leaves_the_game_file_byte_identical(tmp_path):
    source = next(p for p in GAMES if p.stem == "megaciv-5")
    game = tmp_path / "g.yaml"
    game.write_bytes(source.read_bytes())
    before = game.read_bytes()
    for words in (["census", "anna", "cities=10"], ["buy", "anna", "Pottery"], ["trade", "anna", "Ochre", "for",
                  "zed", "Salt"], ["draw", "anna", "Gold"], ["frobnicate"], ["census", "anna", "cities=2", "/",
                  "census", "anna", "cities=99"]):
        proc = run_cli("game", "add", str(game), *words)
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr and "error[CIV14" in proc.stderr
        assert game.read_bytes() == before
