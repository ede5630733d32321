"""heapq's `heappush`, `heappop` and `heapreplace`: CPython's algorithm (Lib/heapq.py's
`_siftdown` and `_siftup`, step for step), so that equal entries end where Python's do and the
planner's heaps are the same on the command line and in the page (tests/test_pystd.py checks
them against heapq)."""

from __future__ import annotations


def heappush(heap: list, item) -> None:
    """Push ITEM onto HEAP, keeping the heap invariant."""
    heap.append(item)
    _siftdown(heap, 0, len(heap) - 1)


def heappop(heap: list):
    """Pop the smallest item off HEAP, keeping the heap invariant."""
    last = heap.pop()
    if heap:
        top = heap[0]
        heap[0] = last
        _siftup(heap, 0)
        return top
    return last


def heapreplace(heap: list, item):
    """Pop the smallest item and push ITEM in one step (an empty heap: IndexError, as heapq)."""
    top = heap[0]
    heap[0] = item
    _siftup(heap, 0)
    return top


def _siftdown(heap: list, start: int, pos: int) -> None:
    """Move the item at POS up towards START until its parent is not greater."""
    item = heap[pos]
    while pos > start:
        parent_pos: int = (pos - 1) >> 1
        parent = heap[parent_pos]
        if item < parent:
            heap[pos] = parent
            pos = parent_pos
            continue
        break
    heap[pos] = item


def _siftup(heap: list, pos: int) -> None:
    """Move the smaller child up until a leaf is reached, then sift the item down into place (the
    fewer comparisons of CPython's "bottom-up" variant)."""
    end: int = len(heap)
    start: int = pos
    item = heap[pos]
    child: int = 2 * pos + 1
    while child < end:
        right: int = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _siftdown(heap, start, pos)
