"""Start-up of the command line against `python -c "import click"`, paired in one run so that the
ratios hold on any machine. Run:  python benchmarks/bench_startup.py [--rounds N]

Each round runs the baseline and every command once, in turn (so that a busy machine slows
them alike); the figure per command is its median wall time over the rounds divided by the
baseline's. Goals (issue 15): `civdsl --help` at most 1.2x; `resolve`, `cost`, `epoch`,
`score` and `plan` at most 1.5x (answered from a current compiled-module cache, which the
first, unmeasured round fills).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BASELINE = [sys.executable, "-c", "import click"]
CLI = [sys.executable, "-c", "import sys; from civdsl.cli import main; sys.argv[0] = 'civdsl'; main()"]
COMMANDS = {
    "--help": (["--help"], 1.2),
    "resolve": (["resolve", "megaciv", "Famine", "--holds", "Pottery"], 1.5),
    "cost": (["cost", "megaciv", "--holds", "Pottery", "--buy", "Agriculture,Medicine"], 1.5),
    "epoch": (["epoch", "megaciv", "--holds", "Pottery"], 1.5),
    "score": (["score", "megaciv", "--holds", "Pottery,Medicine"], 1.5),
    "plan": (["plan", "megaciv", "--set", "treasury=30", "--set", "players=5"], 1.5),
}


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15, help="Paired rounds (default 15).")
    opts = ap.parse_args()
    for args, _ in COMMANDS.values():  # warm the compiled-module cache and the OS file cache
        subprocess.run(CLI + args, cwd=ROOT, capture_output=True, check=False)
    times: dict[str, list[float]] = {"baseline": [], **{name: [] for name in COMMANDS}}
    for _ in range(opts.rounds):
        times["baseline"].append(wall(BASELINE))
        for name, (args, _) in COMMANDS.items():
            times[name].append(wall(CLI + args))
    base = statistics.median(times["baseline"])
    print(f"python -c 'import click': {base * 1000:.1f} ms (median of {opts.rounds})")
    failed = False
    for name, (args, goal) in COMMANDS.items():
        t = statistics.median(times[name])
        ratio = t / base
        ok = ratio <= goal
        failed |= not ok
        print(f"civdsl {name:<8} {t * 1000:6.1f} ms  {ratio:4.2f}x  (goal <= {goal}x) {'ok' if ok else 'OVER'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
