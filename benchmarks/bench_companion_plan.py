"""Benchmark of the companion page's planner and prices (civdsl/companion/runtime/plan.js, credits.js)
in Node against the Python planner, on the planner benchmark's stress states and random mid-game
Mega Civilization states.

    python benchmarks/bench_companion_plan.py [--states 200] [--seed 12] [--repeat 5] [--random-horizon 200]

Times are CPU times (Node's process.cpuUsage, Python's process_time: the machine may be busy).
For every named state of `benchmarks/bench_planner.py --bound` (the stress states, the strict
credits', the bound's, the look-ahead's and the strict `cost` questions) it prints the CPU of the
first `civdsl.plan(state, options)` (or `civdsl.cost`) call of the generated engine in a fresh Node
process (what a player waits for), the least of `--repeat` more, and the least of up to 3 calls in
Python, with their ratio; then `--horizon 2` on the bound's random mid-game states (seed 7) in one
Node process, and the bound's verdict on the page's engine: the worst first call, how many pass
200 ms and 1 s (the goal: none past 1 s). Then the median, 90th percentile and worst times of
both engines over `--states` random states (bench_planner.random_state), and of `civdsl.cost` on
a random purchase. Every answer is checked equal to Python's as the equality tests check it (a
difference is reported and the exit code is 1). Needs `node` (Debian's nodejs).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import civdsl  # noqa: E402
from civdsl.plan import plan  # noqa: E402
from civdsl.companion.jsgen import engine_script  # noqa: E402
from companion_harness import checked_edition  # noqa: E402

# Times each query in Node: a warm-up run (the cold time), then the least of `repeat` runs.
_DRIVER = r"""
"use strict";
require(process.argv[2]);
const repeat = Number(process.argv[3]);
const api = globalThis.civdsl;
let input = "";
process.stdin.on("data", (c) => { input += c; });
process.stdin.on("end", () => {
  const out = JSON.parse(input).map((q) => {
    // CPU time (user + system) of this process: the machine may be busy with other work
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
    let t = cpu();
    const answer = api[q.command](q.state, q.options);
    const cold = cpu() - t;
    let best = Infinity;
    for (let i = 0; i < repeat; i++) {
      t = cpu();
      api[q.command](q.state, q.options);
      best = Math.min(best, cpu() - t);
    }
    return {answer: answer, cold: cold, best: repeat ? best : cold};
  });
  process.stdout.write(api.dumps(out));
});
"""


def node_times(rulebook: str, queries: list, repeat: int) -> list[dict]:
    script = engine_script(checked_edition(rulebook), civdsl.load(rulebook).module)
    with tempfile.TemporaryDirectory(prefix="civdsl-bench-") as tmp:
        engine, driver = Path(tmp) / "engine.js", Path(tmp) / "driver.js"
        engine.write_text(script, encoding="utf-8")
        driver.write_text(_DRIVER, encoding="utf-8")
        done = subprocess.run(["node", str(driver), str(engine), str(repeat)], input=json.dumps(queries),
                              capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def python_time(fn, repeat: int) -> float:
    """The least CPU time of `repeat` calls, in ms."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best * 1000


def _same(rulebook: str, query: dict, got: dict) -> str | None:
    from companion_harness import cli_answer, first_difference
    import test_companion_cost_plan  # noqa: F401  (registers the cost and plan answers)

    return first_difference(cli_answer(rulebook, query), got)


def _bench_planner():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_planner", ROOT / "benchmarks" / "bench_planner.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _query(bench, rb, state: dict, options: dict) -> tuple[dict, dict, dict]:
    """The page's query for a named state of bench_planner.bound_cases (a `cost` question where its
    options say so), the state, and the Python planner's options."""
    st = bench.stress_state(rb.module, state)
    options = {k: v for k, v in options.items() if k != "stops"}  # the bench's mark, no option
    if "cost" in options:
        return {"command": "cost", "state": st, "options": {"buy": options["cost"]}}, st, options
    flags = {"objective_spec": "objective", "explain": "explain"}
    return {"command": "plan", "state": st, "options": {flags.get(k, k): v for k, v in options.items()}}, st, options


def stress(repeat: int) -> list[dict]:
    """Every named state of bench_planner.py --bound (its stress states, the strict variant's, the
    bound's, the look-ahead's and the strict `cost` questions), each in a fresh Node process: the
    first call's CPU (what the page's user waits for), the least of `repeat` more, Python's."""
    bench = _bench_planner()
    rows = []
    for name, rid, state, options in bench.bound_cases():
        rb = civdsl.load(rid)
        query, st, options = _query(bench, rb, state, options)
        [js] = node_times(rid, [query], repeat)
        if query["command"] == "cost":
            holds = st["holds"]
            rest = {k: v for k, v in st.items() if k != "holds"}
            py = python_time(lambda: rb.cost(holds, options["cost"], dict(rest)), min(repeat, 3))
        else:
            py = python_time(lambda: plan(rb, dict(st), **options), min(repeat, 3))
        rows.append({"case": name, "node": js["best"], "node_cold": js["cold"], "python": py,
                     "search": js["answer"].get("search", query["command"]),
                     "difference": _same(rid, query, js["answer"])})
    return rows


def random_horizon(count: int) -> list[dict]:
    """`--horizon 2` on bench_planner.py --bound's random mid-game states (random_state, seed 7), in
    one Node process as Python times them in one process: the first call of each."""
    if not count:
        return []
    bench = _bench_planner()
    rb = civdsl.load("megaciv")
    rng = random.Random(7)
    queries = [{"command": "plan", "state": bench.random_state(rb.module, rng), "options": {"horizon": 2}}
               for _ in range(count)]
    got = node_times("megaciv", queries, 0)
    return [{"case": f"--horizon 2, random mid-game state {i} (seed 7)", "node_cold": g["cold"],
             "difference": _same("megaciv", q, g["answer"])} for i, (q, g) in enumerate(zip(queries, got))]


def verdict(rows: list[dict]) -> list[str]:
    """bench_planner.py --bound's verdict, on the page's engine: the first call's CPU of each (the
    functions it reaches compiled then), and the least of the later ones (where there are any)."""
    lines = []
    for key, label in (("node_cold", "first call"), ("node", "later calls")):
        timed = [r for r in rows if key in r]
        worst = max(timed, key=lambda r: r[key])
        over_200 = sum(r[key] > 200 for r in timed)
        over_1 = sum(r[key] > 1000 for r in timed)
        lines.append(f"page, {label}: worst {worst[key]:.0f} ms ({worst['case']}); over 200 ms: {over_200} of "
                     f"{len(timed)}; over 1 s: {over_1} of {len(timed)}")
    first_over = sum(r["node_cold"] > 1000 for r in rows)
    lines.append(f"goal: every answer of the page within 1 s of CPU: {'met' if first_over == 0 else 'NOT met'}")
    return lines


def random_states(states: int, seed: int, repeat: int) -> dict:
    bench = _bench_planner()
    rb = civdsl.load("megaciv")
    rng = random.Random(seed)
    samples = []
    while len(samples) < states:
        st = bench.random_state(rb.module, rng)
        try:  # a hand with more cards of a commodity than its deck holds is an error: not timed
            rb.state((), dict(st))
        except civdsl.api.StateError:
            continue
        samples.append(st)
    queries = []
    for st in samples:
        queries.append({"command": "plan", "state": st, "options": {}})
        unheld = [n for n in rb.module.ADVANCES if n not in st["holds"]]
        queries.append({"command": "cost", "state": st, "options": {"buy": rng.sample(unheld, 3)}})
    got = node_times("megaciv", queries, repeat)
    py_plan = [python_time(lambda: plan(rb, dict(st)), 1) for st in samples]
    differences = [d for q, g in zip(queries, got) if (d := _same("megaciv", q, g["answer"]))]

    def stats(times):
        times = sorted(times)
        return {"median": statistics.median(times), "p90": times[int(0.9 * len(times)) - 1], "worst": times[-1]}

    return {"plan_node": stats([g["best"] for g in got[0::2]]), "plan_node_cold": stats([g["cold"] for g in got[0::2]]),
            "plan_python": stats(py_plan), "cost_node": stats([g["best"] for g in got[1::2]]),
            "differences": differences}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=200)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--random-horizon", type=int, default=200,
                    help="random mid-game states timed with --horizon 2, as bench_planner.py --bound (default 200)")
    args = ap.parse_args(argv)
    bad = 0
    print("every named state of bench_planner.py --bound: CPU time of one call, Node (first call in a fresh "
          "process; best of the next runs) against Python")
    rows = stress(args.repeat)
    for r in rows:
        ratio = r["node"] / r["python"] if r["python"] else float("inf")
        same = "same answer" if r["difference"] is None else f"DIFFERS: {r['difference']}"
        bad += r["difference"] is not None
        print(f"  {r['case']:<38} node {r['node']:8.1f} ms (first {r['node_cold']:8.1f})  python {r['python']:8.1f} ms"
              f"  Node/Python {ratio:4.1f}x  ({r['search']}; {same})", flush=True)
    horizon = random_horizon(args.random_horizon)
    if horizon:
        times = sorted(r["node_cold"] for r in horizon)
        print(f"  --horizon 2 on {len(horizon)} random mid-game states (seed 7), one Node process: median "
              f"{statistics.median(times):.0f} ms, worst {times[-1]:.0f} ms, over 200 ms "
              f"{sum(t > 200 for t in times)}, over 1 s {sum(t > 1000 for t in times)}")
        for r in horizon:
            if r["difference"] is not None:
                print(f"  {r['case']} DIFFERS: {r['difference']}")
                bad += 1
    for line in verdict(rows + horizon):
        print(line)
    got = random_states(args.states, args.seed, args.repeat)
    print(f"{args.states} random Mega Civilization states (bench_planner.random_state, seed {args.seed}):")
    for key, label in (("plan_node", "plan, Node"), ("plan_node_cold", "plan, Node, first run"),
                       ("plan_python", "plan, Python"), ("cost_node", "cost, Node")):
        s = got[key]
        print(f"  {label:<24} median {s['median']:7.2f} ms  p90 {s['p90']:7.2f} ms  worst {s['worst']:7.2f} ms")
    for d in got["differences"]:
        print(f"  DIFFERS: {d}")
    bad += len(got["differences"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
