"""Pausing Python's cyclic garbage collector while a compiler pass builds its data.

A compilation allocates tens of thousands of objects that all stay alive until it ends (parse
trees, syntax trees, the model, generated source) and frees almost none in cycles. Each
allocation threshold crossed makes the collector walk the young objects, and every tenth walk
the older ones as well: at the shipped rulebooks' sizes this was about an eighth of the time,
and more than half at 64 times their size, for no garbage found. The passes free what they
drop by reference counting, so nothing accumulates while the collector waits; it runs again,
as usual, once the outermost paused block is over.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; nested blocks leave it to the outermost."""
    if not gc.isenabled():  # already paused by a caller (or by the embedding program): leave it so
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
