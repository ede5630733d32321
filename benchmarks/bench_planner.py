"""Benchmark of the purchase planner on random mid-game Mega Civilization states.

    python benchmarks/bench_planner.py [--states 1000] [--seed 12] [--check 50]

Each state holds 10-25 advances, 6-12 commodity cards (drawn so that sets form, as they do by
trading) and 0-40 treasury, with 5-18 players; a random half has free credit points too. The
time is that of one `civdsl.planner.plan` call (state checking, search, pricing of the plan
with runtime.prices and the payment), the rulebook already loaded, on one core. `--check N`
also compares the first N plans with an exhaustive search restricted to the same candidates
(slow: it prices every affordable subset of up to four advances with runtime.prices).

Also runs under pytest-benchmark: `pytest benchmarks/bench_planner.py --benchmark-enable`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import civdsl  # noqa: E402
from civdsl import planner  # noqa: E402


def random_state(module, rng: random.Random) -> dict:
    names = list(module.ADVANCES)
    # cheaper advances are bought first: weight by inverse cost
    held: list[str] = []
    pool = names[:]
    for _ in range(rng.randint(10, 25)):
        weights = [1.0 / (module.ADVANCES[n]["cost"] or 100) ** 1.5 for n in pool]
        pick = rng.choices(pool, weights)[0]
        pool.remove(pick)
        held.append(pick)
    commodities = [c for c, v in module.COMMODITIES.items() if v["value"] > 0]
    hand: dict[str, int] = {}
    for _ in range(rng.randint(6, 12)):
        if hand and rng.random() < 0.55:
            c = rng.choice(list(hand))
        elif rng.random() < 0.05 and "Water" in module.COMMODITIES:
            c = "Water"
        else:
            c = rng.choices(commodities, [10 - module.COMMODITIES[c]["value"] for c in commodities])[0]
        hand[c] = hand.get(c, 0) + 1
    state = {"holds": held, "commodities": hand, "treasury": rng.randint(0, 40), "players": rng.randint(5, 18)}
    if rng.random() < 0.5:
        groups = list(module.GROUPS)
        state["credits"] = {g: rng.choice([0, 0, 5, 10]) for g in groups}
    return state


def run(states: int = 1000, seed: int = 12, check: int = 0) -> dict:
    rb = civdsl.load("megaciv")
    rng = random.Random(seed)
    samples = [random_state(rb.module, rng) for _ in range(states)]
    planner.plan(rb, samples[0])  # warm caches (imports, per-module tables)
    times = []
    visited = []
    worst = None
    for st in samples:
        t0 = time.perf_counter()
        report = planner.plan(rb, st)
        dt = time.perf_counter() - t0
        times.append(dt)
        visited.append(report["searched"])
        if worst is None or dt > worst[0]:
            worst = (dt, st, report)
    mismatches = 0
    for st in samples[:check]:
        if not _agrees(rb, st):
            mismatches += 1
    times_ms = sorted(t * 1000 for t in times)
    return {
        "states": states,
        "median_ms": statistics.median(times_ms),
        "p90_ms": times_ms[int(0.9 * len(times_ms)) - 1],
        "p99_ms": times_ms[int(0.99 * len(times_ms)) - 1],
        "worst_ms": times_ms[-1],
        "mean_ms": statistics.fmean(times_ms),
        "median_sets_examined": statistics.median(visited),
        "max_sets_examined": max(visited),
        "worst_state": worst[1],
        "checked": check,
        "mismatches": mismatches,
    }


def _agrees(rb, st) -> bool:
    """The planner's best key equals an exhaustive search's over sets of at most 4 advances
    (enough for these budgets: no state affords five advances at once is asserted too)."""
    from itertools import combinations

    report = planner.plan(rb, st)
    held, facts = rb.state((), st).held, rb.state((), st).facts
    obj = planner.objective(rb.module)
    problem = planner.PurchaseProblem(rb.module, held, facts, obj)
    best = None
    affordable_max = 0
    for r in range(0, 6):
        for combo in combinations(problem.candidates, r):
            priced = civdsl.runtime.prices(rb.module, held, list(combo), facts.get("credits"))
            price = priced["total"]
            limit = problem.hand_limit(combo)
            spent = problem.payments.spent(price, limit)
            if spent is None:
                continue
            affordable_max = max(affordable_max, r)
            key = (obj.of(combo), -spent, problem.credit(combo), -len(combo),
                   tuple(-i for i in sorted(problem.order[n] for n in combo)))
            if best is None or key > best[0]:
                best = (key, combo)
    if affordable_max >= 5:
        return False
    return list(best[1]) == report["plans"][0]["buy"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--check", type=int, default=0)
    args = ap.parse_args(argv)
    r = run(args.states, args.seed, args.check)
    print(f"{r['states']} random mid-game Mega Civilization states (seed {args.seed}), one plan each:")
    print(f"  median {r['median_ms']:.2f} ms, p90 {r['p90_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, "
          f"worst {r['worst_ms']:.2f} ms, mean {r['mean_ms']:.2f} ms")
    print(f"  sets examined: median {r['median_sets_examined']}, most {r['max_sets_examined']}")
    if r["checked"]:
        print(f"  exhaustive check of the first {r['checked']}: {r['mismatches']} mismatches")
    print(f"  slowest state: {r['worst_state']}")


def test_bench_plan(benchmark):  # pytest-benchmark entry point
    rb = civdsl.load("megaciv")
    rng = random.Random(7)
    samples = [random_state(rb.module, rng) for _ in range(50)]
    it = iter(range(10 ** 9))
    benchmark(lambda: planner.plan(rb, samples[next(it) % len(samples)]))


if __name__ == "__main__":
    main()
