"""Benchmark of the game ledger as the page runs it: the time to apply one event with the ledger's
translated modules (py2es) on an edition's page engine, in Node (target: 100 ms per event on a
phone; a phone is taken as four times slower than this machine's Node, the throttling Chromium's
tools apply for a mid-range phone, so the budget here is 25 ms).

    python benchmarks/bench_ledger_page.py [--runs 3] [GAME.yaml ...]

Each recorded game (tests/games/ by default) is replayed in Node as the differential test does
(tests/ledger_harness.py), with the refusals of every kind tried first, to its end (its calamity
steps included). Every applied event is timed around the ledger's
`apply` (its checks, the change and the log; not the answer's copy to JSON); printed per game:
the events timed, the median and the worst, the worst against the budget. Each answer must be
Python's: a difference stops the benchmark.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from civdsl.ledger import gamefile  # noqa: E402
from companion_harness import node_available  # noqa: E402
from ledger_harness import game_events, js_game, python_game  # noqa: E402

BUDGET_MS = 100 / 4  # the docstring's target on a phone taken as four times slower than this machine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("games", nargs="*", type=Path)
    args = parser.parse_args()
    if not node_available():
        print("node is not installed")
        return 1
    games = args.games or sorted((ROOT / "tests" / "games").glob("*.yaml"))
    worst_ratio = 0.0
    for path in games:
        setup, want = python_game(path)
        edition = gamefile.read(path).setup["edition"]
        times: list[float] = []
        for _ in range(args.runs):
            have, ms = js_game(edition, setup, game_events(path))
            if have != want:
                print(f"{path.name}: the page's answers differ from Python's")
                return 1
            times = ms if not times else [min(a, b) for a, b in zip(times, ms)]
        worst = max(times)
        worst_ratio = max(worst_ratio, worst / BUDGET_MS)
        print(f"{path.stem:14} {len(times):4} events  median {statistics.median(times):6.2f} ms  "
              f"worst {worst:6.2f} ms  ({worst / BUDGET_MS:.2f} of {BUDGET_MS:g} ms)")
    print(f"worst event against the budget: {worst_ratio:.2f} ({'met' if worst_ratio < 1 else 'not met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
