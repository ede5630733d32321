"""How check, build and the language server grow with the size of the rulebooks.

    python benchmarks/bench_scale.py                 # sizes 1, 4, 16 (build) and 1, 4, 16, 64 (the others)
    python benchmarks/bench_scale.py --large         # build at 64x too (about a minute more)
    python benchmarks/bench_scale.py --only build,cost   # just these commands

Synthetic rulebooks N times megaciv.civ's size (benchmarks/synthetic.py). Each command runs in
a fresh process with an empty cache (so nothing is reused), and reports its CPU time and peak
memory (the parser built before timing); `build` also what it wrote. For each command the growth exponent is fitted (least
squares of log time against log size: 1 is linear, 2 quadratic), for build also against the
bytes it writes. `resolve` and `cost` are the questions as a user asks them again and again:
a fresh process loading the compiled rulebook from a warm cache (one earlier process compiled
it), resolving a calamity for a player holding ten advances, or pricing three advances for
one holding ten. The language server is timed per edit (median CPU time of `Engine.analyse`
after a one-character change of the buffer, the last file of the chain), with the budget of
200 ms checked at ten times megaciv's size.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import synthetic  # noqa: E402

LSP_BUDGET_MS = 200.0


def _child(command: str, path: Path) -> dict:
    from civdsl import parser

    parser.lark_parser()  # the grammar's analysis (cached per user, not per rulebook) is not what is measured
    if command == "check":
        from civdsl.frontend import check_file

        start = time.process_time()
        checked = check_file(path)
        assert checked.ok, checked.diagnostics.render()
        return {"cpu": time.process_time() - start}
    if command == "build":
        from civdsl.build import compile_all, write
        from civdsl.diagnostics import Diagnostics

        out = Path(tempfile.mkdtemp(prefix="civdsl-bench-"))
        start = time.process_time()
        diags = Diagnostics()
        results = compile_all([path], diags)
        assert results, diags.render()
        write(results, out)
        cpu = time.process_time() - start
        written = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
        return {"cpu": cpu, "written": written}
    if command in ("resolve", "cost"):
        from civdsl import api

        if os.environ.get("BENCH_SCALE_PRIME"):  # compile into the cache; not what is measured
            api.load(path)
            return {"cpu": 0.0}
        start = time.process_time()
        rb = api.load(path)
        names = list(rb.advances)
        if command == "resolve":
            calamity = next(n for n in rb.calamities if n.startswith("Famine"))
            rb.resolve(calamity, "primary", names[:10])
        else:
            rb.cost(names[:10], names[-3:])
        return {"cpu": time.process_time() - start}
    if command == "lsp":
        from civdsl.lsp import Engine

        text = path.read_text(encoding="utf-8")
        engine = Engine()
        doc = engine.open(path.resolve().as_uri(), text, 1)
        engine.analyse(doc)
        at = text.index("cost ") + len("cost ")  # a digit of the first price in the buffer, or its header
        times = []
        for version in range(2, 9):
            edited = text[:at] + ("9" if version % 2 else "8") + text[at + 1:]
            engine.update(doc.uri, edited, version)
            start = time.process_time()
            analysis = engine.analyse(doc)
            times.append(time.process_time() - start)
        assert analysis.edition is not None
        return {"cpu": statistics.median(times)}
    raise SystemExit(f"unknown command {command}")


def measure(command: str, path: Path, cache: Path, seed: Path) -> dict:
    """`command` on `path` in a fresh process whose cache holds only the analysed grammar (`seed`)."""
    shutil.copytree(seed, cache)
    env = {**os.environ, "CIVDSL_CACHE": str(cache)}
    if command in ("resolve", "cost"):  # the questions are asked of a rulebook compiled before
        subprocess.run([sys.executable, __file__, "--child", command, str(path)], capture_output=True, check=True,
                       env={**env, "BENCH_SCALE_PRIME": "1"})
    out = subprocess.run([sys.executable, __file__, "--child", command, str(path)], capture_output=True, text=True,
                         env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def exponent(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main(large: bool, only: set[str] | None) -> None:
    sizes = {"check": [1, 4, 16, 64], "build": [1, 4, 16] + ([64] if large else []), "resolve": [1, 4, 16, 64],
             "cost": [1, 4, 16, 64], "lsp": [1, 4, 10, 16, 64]}
    if only:
        sizes = {c: ns for c, ns in sizes.items() if c in only}
    megaciv = synthetic.MEGACIV.stat().st_size
    with tempfile.TemporaryDirectory(prefix="civdsl-scale-") as tmp:
        tmp = Path(tmp)
        books = {}
        for n in sorted({n for ns in sizes.values() for n in ns}):
            main_file = synthetic.generate(n, tmp / f"x{n}")
            books[n] = (main_file, sum(p.stat().st_size for p in main_file.parent.glob("*.civ")))
        seed = tmp / "seed"
        subprocess.run([sys.executable, "-c", "from civdsl import parser; parser.lark_parser()"], check=True,
                       env={**os.environ, "CIVDSL_CACHE": str(seed), "PYTHONPATH": str(ROOT)})
        print(f"synthetic rulebooks, sizes in multiples of megaciv.civ ({megaciv:,} bytes); CPU time, peak memory")
        for command, ns in sizes.items():
            rows = []
            for n in ns:
                path, size = books[n]
                result = measure(command, path, tmp / f"cache-{command}-{n}", seed)
                rows.append((n, size, result))
                extra = f", wrote {result['written'] / 1e6:7.1f} MB" if "written" in result else ""
                unit = {"lsp": "ms per edit", "resolve": "ms", "cost": "ms"}.get(command, "s")
                value = result["cpu"] * 1000 if unit.startswith("ms") else result["cpu"]
                print(f"  {command:5s} {n:3d}x ({size / 1e6:5.2f} MB): {value:8.2f} {unit}, "
                      f"peak memory {result['rss'] / 1024:6.0f} MB{extra}")
            xs = [size for _, size, _ in rows]
            line = (f"{command}: growth exponent {exponent(xs, [r['cpu'] for _, _, r in rows]):.2f} in time, "
                    f"{exponent(xs, [r['rss'] for _, _, r in rows]):.2f} in memory (against rulebook size)")
            if command == "build":
                written = [r["written"] for _, _, r in rows]
                line += (f"; {exponent(written, [r['cpu'] for _, _, r in rows]):.2f} in time and "
                         f"{exponent(written, [r['rss'] for _, _, r in rows]):.2f} in memory against bytes written "
                         f"(output grows with exponent {exponent(xs, written):.2f})")
            print(line)
            if command == "lsp":
                ten = next(r for n, _, r in rows if n == 10)
                print(f"lsp at 10x: {ten['cpu'] * 1000:.0f} ms per edit (budget {LSP_BUDGET_MS:.0f} ms)")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        result = _child(sys.argv[2], Path(sys.argv[3]))
        result["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        print(json.dumps(result))
    else:
        chosen = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
        main("--large" in sys.argv, set(chosen) if chosen else None)
