"""Speed of compiled round rules: simulate 10,000 rounds of rulebooks/cardgame.civ. Run:

    python benchmarks/bench_simulate.py [--rounds 10000] [--game-length 50] [--seed 0]

Games of at most `--game-length` rounds are played from a fresh setup (seeded, one generator per
game) until the total number of rounds played reaches `--rounds`; games that end early (the
civilization collapses) are simply followed by the next. Also reported: the time of one round
of each phase, and a CPU reference (an empty loop of one million iterations) so that numbers
from different machines can be compared.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import civdsl  # noqa: E402
from civdsl.rounds import runtime  # noqa: E402
from civdsl.rounds.simulate import run_seed, simulate  # noqa: E402


def cpu_reference() -> float:
    start = time.perf_counter()
    for _ in range(1_000_000):
        pass
    return time.perf_counter() - start


def play(module, total: int, length: int, seed: int) -> tuple[int, int]:
    rounds = games = 0
    while rounds < total:
        rng = run_seed(seed, games)
        state, _ = runtime.new_game(module, rng)
        games += 1
        for _ in range(min(length, total - rounds)):
            state, _ = runtime.play_round(module, state, rng)
            rounds += 1
            if state.ended:
                break
    return rounds, games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10_000)
    ap.add_argument("--game-length", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    start = time.perf_counter()
    module = civdsl.load("cardgame").module
    load = time.perf_counter() - start
    print(f"load (compile or cache) of cardgame: {load * 1000:.0f} ms")
    print(f"CPU reference (empty loop of 1e6): {cpu_reference() * 1000:.0f} ms")

    start = time.perf_counter()
    rounds, games = play(module, args.rounds, args.game_length, args.seed)
    elapsed = time.perf_counter() - start
    print(f"{rounds:,} rounds in {games:,} games: {elapsed:.2f} s "
          f"({elapsed / rounds * 1e6:.0f} us per round, {rounds / elapsed:,.0f} rounds/s)")

    start = time.perf_counter()
    runs = max(1, args.rounds // args.game_length)
    result = simulate(module, args.game_length, runs, args.seed)
    elapsed = time.perf_counter() - start
    played = result["rounds_played"]["mean"] * runs
    print(f"`simulate` ({runs} games of up to {args.game_length} rounds, with statistics): {elapsed:.2f} s "
          f"for {played:,.0f} rounds")

    rng = random.Random(args.seed)
    state, _ = runtime.new_game(module, rng)
    for _ in range(10):
        state, _ = runtime.play_round(module, state, rng)
    print("one call of each phase function (after 10 rounds):")
    for pid, _name, fn in module.PHASES:
        n = 2000
        start = time.perf_counter()
        for _ in range(n):
            fn(state, rng)
        print(f"  {pid:<20} {(time.perf_counter() - start) / n * 1e6:8.1f} us")


if __name__ == "__main__":
    main()
