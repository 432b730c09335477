"""Parsing leaves no reference cycles behind: a reader's state goes when the parse ends.

A reader whose handler table holds its own bound methods makes a cycle that keeps the whole
stream state (every Pegasus attempt, every Swift dataset) alive until a full garbage
collection; loads run with fewer collections (lineage/collector.py), so that state lingered
through the rest of a load (a bulk load of 10^6 elements peaked 150 MiB higher). Stampede
databases are left out: SQLAlchemy's engine and reflected schema form cycles of their own,
a fixed cost per input, not per record.
"""

from __future__ import annotations

import collections
import gc

import pytest

from lineage.load.pipeline import parse_to_spool
from lineage.sources.base import LoadReport

from .corpus import inputs, needs_corpus

pytestmark = needs_corpus

INPUTS = [item for item in inputs() if item.format.name != "pegasus-stampede-db"]


def collect_all() -> None:
    """Collect until a pass finds nothing: garbage an earlier test left may need two passes
    (a failed Stampede parse: its engine's cycles went only when the first pass had run the
    finalizers of what held them; one pass once left 5,616 objects for the measured one)."""
    for _ in range(10):
        if not gc.collect():
            return


@pytest.mark.parametrize("item", INPUTS, ids=lambda item: item.path.rsplit("/", 1)[-1])
def test_a_parse_leaves_no_cyclic_garbage(item):
    collect_all()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        spool = parse_to_spool(item, LoadReport(item.path, item.format.name))
        records = sum(spool.node_counts.values())
        spool.close()
        gc.collect()
        left = collections.Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert records > 0
    assert not left, f"{item.path}: cyclic garbage after the parse: {left.most_common(5)}"


def test_every_format_of_the_samples_is_checked():
    assert {item.format.name for item in INPUTS} >= {"pegasus-bp", "swift-log",
                                                     "chimbuko-json", "xalt-json"}
