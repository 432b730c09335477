"""Fewer runs of Python's cyclic garbage collector while a load builds many objects.

CPython runs a young collection every 700 net allocations and, every 100 of those, one
over every live object. A parse allocates a dict or two per record, and a bulk load keeps
every folded element of 10^6 in dicts, which each full collection walks again: the fold of
10^6 elements took 18.0 s with the default thresholds and 9.6 s inside
:func:`fewer_collections` (8.5 s with the collector off; README, Benchmarks). Inside it the
thresholds are ``THRESHOLDS``: cycles are still collected, about a hundred times less often,
so memory stays bounded; the thresholds in effect before come back on exit.

>>> import gc
>>> before = gc.get_threshold()
>>> with fewer_collections():
...     gc.get_threshold() == THRESHOLDS
True
>>> gc.get_threshold() == before
True
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

#: young collection every 100,000 net allocations; a full one every 400 of those
THRESHOLDS = (100_000, 20, 20)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect cyclic garbage less often within the block (process-wide, restored after)."""
    before = gc.get_threshold()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
