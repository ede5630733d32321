"""itertools' `combinations` and `chain.from_iterable`, and a list repeated (`items * times`),
written in the engine subset: the same tuples in the same order as Python's (CPython's
documented equivalent: the indices of the last combination advanced from the right), so the
planner walks the same subsets on the command line and in the page (tests/test_pystd.py checks
them against itertools and `*`)."""

from __future__ import annotations

from typing import Iterable


def combinations(iterable, r: int) -> Iterable[tuple]:
    """Every R-long tuple of ITERABLE's items, in the order of their positions."""
    pool = tuple(iterable)
    n: int = len(pool)
    if r < 0:
        raise ValueError("r must be non-negative")
    if r > n:
        return
    indices = list(range(r))
    while True:
        yield tuple(pool[i] for i in indices)
        i: int = r - 1
        while i >= 0 and indices[i] == i + n - r:
            i = i - 1
        if i < 0:
            return
        indices[i] = indices[i] + 1
        for j in range(i + 1, r):
            indices[j] = indices[j - 1] + 1


def chain_from_iterable(iterables) -> Iterable:
    """The items of each iterable of ITERABLES in turn (itertools.chain.from_iterable)."""
    for items in iterables:
        yield from items


def repeated(items, times: int) -> list:
    """ITEMS (a list or tuple) TIMES over, as `items * times` (none for TIMES of 0 or less): what
    the page's `*` of a list and a whole number gives."""
    out = []
    for _ in range(times):
        out.extend(items)
    return out
