"""The benchmark scripts as modules, for tests that take their cases (the planner's stress states,
its capped single-use purchase, its random mid-game states): benchmarks/ is a folder of scripts,
not a package, so each is loaded from its file, once per test process."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@functools.cache
def bench_planner() -> ModuleType:
    """benchmarks/bench_planner.py."""
    spec = importlib.util.spec_from_file_location("bench_planner", BENCHMARKS / "bench_planner.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
