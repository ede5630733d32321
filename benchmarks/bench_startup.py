"""Start-up of the command line against `python -c "import click"`, paired in one run so that the
ratios hold on any machine. Run:  python benchmarks/bench_startup.py [--rounds N]

Each round runs the baseline and every command once, in turn (so that a busy machine slows
them alike); the figure per command is its median CPU time (user + system) over the rounds
divided by the baseline's. Goals (issue 15): `civdsl --help` at most 1.2x; `resolve`, `cost`, `epoch`,
`score`, `plan` and `table` (issue 30) at most 1.5x (answered from a current compiled-module
cache, which the first, unmeasured round fills); `check` of an unchanged rulebook (its kept result)
too.

A run of the command line leaves its objects to the operating system at exit instead of having
the collector walk them (civdsl.gcpause.skip_collections_at_exit); `import click` alone pays for
those walks. The last column divides by a baseline that skips them too (`like for like`), so
that what start-up itself costs beyond click is seen apart from what the exit saves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import resource
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BASELINE = [sys.executable, "-c", "import click"]
BASELINE_FROZEN = [sys.executable, "-c", "import atexit, gc, click; atexit.register(gc.freeze)"]
CLI = [sys.executable, "-c", "import sys; from civdsl.cli import main; sys.argv[0] = 'civdsl'; main()"]
COMMANDS = {
    "--help": (["--help"], 1.2),
    "resolve": (["resolve", "megaciv", "Famine", "--holds", "Pottery"], 1.5),
    "cost": (["cost", "megaciv", "--holds", "Pottery", "--buy", "Agriculture,Medicine"], 1.5),
    "epoch": (["epoch", "megaciv", "--holds", "Pottery"], 1.5),
    "score": (["score", "megaciv", "--holds", "Pottery,Medicine"], 1.5),
    "plan": (["plan", "megaciv", "--set", "treasury=30", "--set", "players=5"], 1.5),
    "table": (["table", "megaciv", "examples/table.yaml"], 1.5),
    "check": (["check", "rulebooks/megaciv.civ"], 1.5),
}


# Bytecode as an installed copy has it (pip compiles on install): without this, a shell that
# sets PYTHONDONTWRITEBYTECODE would recompile civdsl's modules on every run while click,
# installed with its bytecode, would not, and the ratios would measure that difference.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu(cmd: list[str]) -> float:
    """CPU time (user + system) of one run of `cmd`: steadier than wall time on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15, help="Paired rounds (default 15).")
    opts = ap.parse_args()
    for args, _ in COMMANDS.values():  # warm the compiled-module cache and the OS file cache
        subprocess.run(CLI + args, cwd=ROOT, env=ENV, capture_output=True, check=False)
    times: dict[str, list[float]] = {"baseline": [], "frozen": [], **{name: [] for name in COMMANDS}}
    for _ in range(opts.rounds):
        times["baseline"].append(cpu(BASELINE))
        times["frozen"].append(cpu(BASELINE_FROZEN))
        for name, (args, _) in COMMANDS.items():
            times[name].append(cpu(CLI + args))
    base = statistics.median(times["baseline"])
    # how busy the machine was: ratios from one run hold under load, but are steadiest when quiet
    print("load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    frozen = statistics.median(times["frozen"])
    print(f"python -c 'import click': {base * 1000:.1f} ms (median of {opts.rounds}); "
          f"skipping its collections at exit: {frozen * 1000:.1f} ms")
    failed = False
    for name, (args, goal) in COMMANDS.items():
        t = statistics.median(times[name])
        ratio = t / base
        ok = ratio <= goal
        failed |= not ok
        print(f"civdsl {name:<8} {t * 1000:6.1f} ms  {ratio:4.2f}x  (goal <= {goal}x) {'ok' if ok else 'OVER'}"
              f"   like for like {t / frozen:4.2f}x")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
