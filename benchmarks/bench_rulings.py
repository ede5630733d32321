"""Speed of rulings and of the impact of a house rule, in CPU seconds (process time, which the
machine's other work does not inflate). Run:  python benchmarks/bench_rulings.py

1. `civdsl check` of every shipped rulebook with a warm cache, with and without running the
   rulings (the part `check` and `build` add for them);
2. every ruling of every shipped rulebook run on its compiled rules (loaded);
3. `civdsl diff megaciv rulebooks/house/gentle.civ --impact` as a command, cold start included
   (goal: under 2 s of CPU), and the impact of each shipped house rule against its base.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import civdsl  # noqa: E402
from civdsl import rulings  # noqa: E402
from civdsl.diagnostics import Diagnostics  # noqa: E402
from civdsl.frontend import check_file  # noqa: E402
from civdsl.api import impact_of  # noqa: E402

HOUSE = ROOT / "rulebooks" / "house"


def child_cpu(args: list[str]) -> float:
    """User + system CPU seconds of a `civdsl` command run as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT, capture_output=True,
                   env={**os.environ, "NO_COLOR": "1"}, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    child_cpu(["check"])  # warm the caches
    print(f"civdsl check (9 rulebooks, warm cache, rulings run): {min(child_cpu(['check']) for _ in range(3)):.3f} s CPU")
    paths = sorted((ROOT / "rulebooks").glob("*.civ")) + sorted(HOUSE.glob("*.civ"))
    loaded = [(check_file(p, reuse=True), civdsl.load(p)) for p in paths]
    count = sum(len(c.edition.rulings) for c, _ in loaded)

    def run_all():
        for c, rb in loaded:
            rulings.check(c.edition, rb, Diagnostics())

    print(f"every ruling of every shipped rulebook ({count} runs, rules loaded): {best(run_all) * 1000:.1f} ms CPU")
    child_cpu(["diff", "megaciv", "rulebooks/house/gentle.civ", "--impact"])
    cpu = min(child_cpu(["diff", "megaciv", "rulebooks/house/gentle.civ", "--impact"]) for _ in range(3))
    print(f"civdsl diff megaciv rulebooks/house/gentle.civ --impact (command, cold start): {cpu:.3f} s CPU "
          f"(goal: under 2 s)")
    for house, base in (("gentle", "megaciv"), ("granary", "megaciv"), ("strict_credits", "megaciv"),
                        ("gentle_granary", str(HOUSE / "gentle.civ"))):
        cpu = best(lambda: impact_of(base, str(HOUSE / f"{house}.civ")), repeat=1)
        print(f"  impact of {house} against its base (in process): {cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
