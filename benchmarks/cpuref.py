"""The CPU reference the benchmarks print beside their figures: an empty Python loop of a million
iterations, so that times taken on machines of different speed (or under different load) can be
compared as ratios to it."""

from __future__ import annotations

import time


def cpu_reference_ms(clock=time.process_time) -> float:
    """Milliseconds of an empty loop of a million iterations by CLOCK, the least of three."""
    best = float("inf")
    for _ in range(3):
        start = clock()
        for _ in range(1_000_000):
            pass
        best = min(best, clock() - start)
    return best * 1000
