"""The package's measures (docs/architecture.md, "Measured"): no module of civdsl/ over 1,000
lines, and no block that radon ranks D or worse (a cyclomatic complexity over 20). Import cycles
and arrows running back up are tests/test_layering.py's."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted((ROOT / "civdsl").rglob("*.py"))
MAX_LINES = 1_000


def test_no_module_is_over_a_thousand_lines():
    long = {str(p.relative_to(ROOT)): n for p in MODULES
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, "split the module by job (docs/architecture.md, \"Where a new thing goes\")"
    assert len(MODULES) > 100


def test_no_block_ranks_d_or_worse():
    worse = []  # what `radon cc -n D civdsl` prints
    for path in MODULES:
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if cc_rank(block.complexity) >= "D":
                worse.append(f"{path.relative_to(ROOT)}:{block.lineno} {block.name} {block.complexity}")
    assert worse == []


def test_the_rank_reader_sees_a_d():
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(25))
    [block] = cc_visit(f"def f(x):\n{branches}    return -1\n")
    assert cc_rank(block.complexity) == "D"
