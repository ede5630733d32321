"""The measurements of docs/engine-route.md: the prototype translator (py2es_prototype.py) run over
the real planner source (civdsl/plan/search.py): which functions its subset takes and why it
refuses the others; then two translated functions checked against Python on random inputs
(seeded) and timed in node against the hand-written page engine's twin (plan.js `leastPrice`).

    python benchmarks/engine_route/measure.py        (needs node for the second part)
"""
from __future__ import annotations

import ast
import collections
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from py2es_prototype import PRELUDE, Refused, translate  # noqa: E402

from civdsl.plan import search as plan_search  # noqa: E402

# plan.js's leastPrice (a closure over `whole` there), as written, for the comparison
HAND_WRITTEN = """
function handLeast(rows, need, price) {
  const whole = true; let cost = 0;
  for (const r of rows) { if (need <= 0) break;
    if (r[1] >= need) { const x = r[2] * need / r[1]; return price + cost + (whole ? Math.floor(r[2] * need / r[1]) : x); }
    cost += r[2]; need -= r[1]; }
  return need <= 0 ? price + cost : null;
}
"""
# what the translator would write for _least_price if the subset declared its numbers `int`
# (annotations): plain operators with the runtime's safe-integer check instead of the generic
# exact arithmetic; written by hand here to measure the gain before building it
TYPED_SKETCH = """
function _least_price_typed(rows, need, price) {
  if (need <= 0) return price;
  for (const [value, cost] of rows) {
    if (value >= need) return exact(price + Math.floor(exact(cost * need) / value));
    price = exact(price + cost);
    need = exact(need - value);
  }
  return null;
}
"""
DRIVER = """
const data = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const gen = [], hand = [];
for (const [rows, need, price] of data.cases) {
  let g; try { g = _least_price(rows, need, price); g = g === null ? null : +g; } catch (e) { g = 'refused'; }
  gen.push(g); hand.push(handLeast(rows.map((r) => [null, r[0], r[1]]), need, price));
}
const sorted = data.sorts.map((s) => _by_price(s).map((c) => c.id));
function timed(f, rows) {  // the best of 5 rounds of 20 passes, after the JIT has warmed up
  let best = Infinity;
  for (let round = 0; round < 6; round++) {
    const t0 = process.hrtime.bigint(); let n = 0;
    for (let k = 0; k < 20; k++) for (const [r, nd, p] of rows) { f(r, nd, p); n++; }
    if (round) best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
  }
  return best; }
const handRows = data.small.map(([rows, need, price]) => [rows.map((r) => [null, r[0], r[1]]), need, price]);
const typedSame = data.small.every(([r, n, p]) => { const g = _least_price(r, n, p);
  return _least_price_typed(r, n, p) === (g === null ? null : +g); });
console.log(JSON.stringify({gen, hand, sorted, typedSame, ns_generated: timed(_least_price, data.small),
                            ns_typed: timed(_least_price_typed, data.small), ns_hand: timed(handLeast, handRows)}));
"""


def coverage() -> None:
    source = (ROOT / "civdsl" / "plan" / "search.py").read_text(encoding="utf-8")
    functions = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]
    taken, reasons = 0, collections.Counter()
    for fn in functions:
        try:
            translate(ast.get_source_segment(source, fn))
            taken += 1
        except Refused as exc:
            reasons[str(exc).split(": ", 1)[1]] += 1
    print(f"plan/search.py: {len(functions)} functions, {taken} inside the prototype's subset; first refusal of the rest:")
    for why, count in reasons.most_common():
        print(f"  {count:3d}  {why}")


def differential() -> None:
    rnd = random.Random(25)
    cases = []
    for _ in range(10_000):
        top = 2**40 if rnd.random() < 0.05 else 60
        rows = [(rnd.randint(1, top), rnd.randint(0, top)) for _ in range(rnd.randint(0, 6))]
        cases.append([rows, rnd.randint(-3, top * 3), rnd.randint(0, top)])
    sorts = [[{"base": rnd.randint(0, 12), "name": rnd.choice("abcdeABé") + rnd.choice(["", "x", "10", "9"]), "id": i}
              for i in range(rnd.randint(0, 9))] for _ in range(2000)]
    small = [c for c in cases if all(v < 100 for r in c[0] for v in r)]
    py_least = [plan_search._least_price(r, n, p) for r, n, p in cases]
    py_sorted = [[c.id for c in plan_search._by_price([SimpleNamespace(**c) for c in s])] for s in sorts]
    t = time.perf_counter()
    for _ in range(20):
        for r, n, p in small:
            plan_search._least_price(r, n, p)
    ns_python = (time.perf_counter() - t) / (20 * len(small)) * 1e9
    generated = "".join(translate(ast.unparse(next(n for n in ast.parse((ROOT / "civdsl" / "plan" / "search.py")
                                                     .read_text(encoding="utf-8")).body
                                                     if isinstance(n, ast.FunctionDef) and n.name == name)))
                        for name in ("_least_price", "_by_price"))
    core = (ROOT / "civdsl" / "companion" / "runtime" / "core.js").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        data, script = Path(tmp) / "cases.json", Path(tmp) / "run.js"
        data.write_text(json.dumps({"cases": cases, "sorts": sorts, "small": small}), encoding="utf-8")
        script.write_text(core + PRELUDE + generated + TYPED_SKETCH + HAND_WRITTEN + DRIVER, encoding="utf-8")
        out = json.loads(subprocess.run(["node", str(script), str(data)], capture_output=True, text=True,
                                        check=True).stdout)
    refused = sum(g == "refused" for g in out["gen"])
    wrong = sum(g not in (p, "refused") for p, g in zip(py_least, out["gen"]))
    hand_wrong = sum(h != p for p, h in zip(py_least, out["hand"]))
    print(f"_least_price: {len(cases)} random cases; generated JS equal {len(cases) - refused - wrong}, "
          f"refused (a whole number beyond 2^53) {refused}, different {wrong}; hand-written different {hand_wrong}")
    print(f"_by_price: {len(sorts)} random lists; generated JS equal "
          f"{sum(a == b for a, b in zip(py_sorted, out['sorted']))}")
    print(f"time per call ({len(small)} small cases, best of 5 x20 after warm-up): generated JS "
          f"{out['ns_generated']:.0f} ns, typed sketch {out['ns_typed']:.0f} ns (same answers: {out['typedSame']}), "
          f"hand-written JS {out['ns_hand']:.0f} ns, Python {ns_python:.0f} ns")
    print(f"lines: {generated.count(chr(10))} generated for 16 lines of Python; translator "
          f"{(HERE / 'py2es_prototype.py').read_text(encoding='utf-8').count(chr(10))} lines")


if __name__ == "__main__":
    coverage()
    if shutil.which("node"):
        differential()
    else:
        print("node not found: the differential part is skipped")
