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

import atexit
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
        _promote()
        gc.enable()


def _promote() -> None:
    """Move every tracked object into the oldest generation, without walking any.

    What a paused block built is mostly kept (syntax trees, the model, the module's code): left
    in the youngest generation, the first allocation after the pause made the collector walk
    all of it, and every tenth such walk all of it again one generation up, which cost about a
    ninth of compiling the shipped rulebooks and found almost nothing (the passes make a few
    hundred objects of cyclic garbage per rulebook). gc.freeze() followed by gc.unfreeze()
    moves the young generations into the oldest in constant time; their rare cyclic garbage is
    freed by the next full collection, as old garbage always is. Skipped when the program froze
    objects itself: unfreeze() would give them back to the collector."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def skip_collections_at_exit() -> None:
    """When this process ends, leave the objects still alive to the operating system instead of
    having the collector walk them (for a process that runs one command and ends).

    Ending, the interpreter runs full collections over every object still alive (modules,
    classes, a compiled rulebook's tables) to finalize cycles of garbage; for a command those
    walks free nothing that matters to it and cost about a tenth of its CPU time (`civdsl
    resolve`: about 5 ms). Objects gc.freeze() moved to the permanent generation are never
    walked, so freezing everything at exit skips the walks. Output and files are unaffected:
    civdsl closes what it writes, sys.stdout and sys.stderr are flushed before the collections,
    and the other exit handlers still run. Registered once however often it is asked for."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
