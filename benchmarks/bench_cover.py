"""Benchmark of `civdsl cover EDITION --text RULES.txt`: the largest edition's clauses against a copy
of its printed rules (target: under 1 s of CPU after start-up).

    python benchmarks/bench_cover.py [--runs 10] [--edition megaciv] [--text PATH]

Without --text the copy is the edition's seed from ../shared/seeds (skipped when absent). The time
is the CPU time of reading the clause list, cutting the copy into clauses (segment.py) and the
coverage report with its comparison (coverage.cover), the rulebook already checked (start-up and
the check are shown apart); the median and the worst of the runs are printed, with the ratio to
the target.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from civdsl import api, clauses, coverage, frontend  # noqa: E402
from civdsl.diagnostics import Diagnostics  # noqa: E402

TARGET_S = 1.0
SEED_OF = {"civ1980": "000", "civ1981": "001", "expansion": "002", "cardgame": "003", "megaciv": "004"}


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--runs", type=int, default=10)
    args.add_argument("--edition", default="megaciv")
    args.add_argument("--text", type=Path)
    opts = args.parse_args()
    path = opts.text
    if path is None:
        found = sorted((ROOT.parent / "shared" / "seeds").glob(f"{SEED_OF.get(opts.edition, '')}_*.txt"))
        if not found:
            print("no copy of the rules: pass --text (the seeds are not here)")
            return 0
        path = found[0]
    text = path.read_text(encoding="utf-8", errors="replace")
    started = time.process_time()
    checked = frontend.check_file(api.locate(opts.edition))
    print(f"check of {opts.edition}: {1000 * (time.process_time() - started):.0f} ms CPU (start-up, apart)")
    times = []
    for _ in range(opts.runs):
        t = time.process_time()
        listed = clauses.read(Path(checked.edition.clause_list[0]), Diagnostics())
        report = coverage.cover(checked, listed, text)
        times.append(time.process_time() - t)
    median, worst = statistics.median(times), max(times)
    print(f"cover {opts.edition} --text ({len(text):,} characters, {len(report.clauses)} clauses): "
          f"median {1000 * median:.1f} ms, worst {1000 * worst:.1f} ms CPU over {opts.runs} runs; "
          f"{median / TARGET_S:.2f}x the {TARGET_S:.0f} s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
