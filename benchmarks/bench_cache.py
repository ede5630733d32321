"""What the caches save, command by command (wall time of the real CLI, best of 3).

    python benchmarks/bench_cache.py

Each command runs cold (a cache folder holding only the analysed grammar) and warm (the same
command just ran); the ratio cold/warm is printed. `PYTHONDONTWRITEBYTECODE=1` is set, as in
many containers and CI images: the compiled modules' bytecode is cached by civdsl itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, str(ROOT / "cli.py")]
COMMANDS = {
    "check (all shipped rulebooks)": ["check"],
    "build (all shipped rulebooks)": ["build", "-o", "{out}"],
    "resolve megaciv Famine": ["resolve", "megaciv", "Famine", "--holds", "Pottery"],
}


def run(args: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(CLI + args, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="civdsl-cache-bench-") as tmp:
        tmp = Path(tmp)
        seed = tmp / "seed"
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-c", "from civdsl import parser; parser.lark_parser()"], check=True,
                       env={**env, "CIVDSL_CACHE": str(seed)})
        for label, command in COMMANDS.items():
            args = [a.replace("{out}", str(tmp / "out")) for a in command]
            cold, warm = [], []
            for i in range(3):
                cache = tmp / f"cache-{i}"
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(seed, cache)
                run_env = {**env, "CIVDSL_CACHE": str(cache)}
                cold.append(run(args, run_env))
                warm.append(run(args, run_env))
            print(f"{label:32s} cold {min(cold) * 1000:6.0f} ms, warm {min(warm) * 1000:6.0f} ms, "
                  f"cold/warm = {min(cold) / min(warm):.1f}")


if __name__ == "__main__":
    main()
