"""Two loads of overlapping inputs at the same time give the graph of loading them one after
the other: MERGE on the unique :Lineage(uid) keeps one node per uid, and conflicting writes
(lock waits, deadlocks) are transient errors the driver's managed transactions retry.
"""

from __future__ import annotations

import logging
import threading

import pytest

from lineage.server.connection import Graph
from lineage.load.fleet import load
from lineage.config.settings import LoadOptions
from lineage.load.writer import Writer

from . import graphcheck
from .bigstream import expected_size, write_stream

ROUNDS = 3


class _RetryLog(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        if "will be retried" in record.getMessage():
            self.messages.append(record.getMessage())


def _load_in_thread(settings, path, results, errors, options):
    try:
        with Graph.connect(settings) as g:
            results.extend(load(Writer(g.driver, g.database, batch_size=100), [path],
                                options=options))
    except BaseException as exc:  # reported by the test
        errors.append(exc)


@pytest.mark.parametrize("options", [LoadOptions(overlap_bytes=None), LoadOptions(overlap_bytes=0)],
                         ids=["read-then-write", "nodes-while-reading"])
def test_concurrent_overlapping_loads_equal_sequential_loads(lin, neo4j_settings, tmp_path, capsys,
                                                             options):
    # the same workflow; jobs 200-399 in both files, written in opposite orders
    a = write_stream(tmp_path / "a.bp", "shared-wf", range(0, 400))
    b = write_stream(tmp_path / "b.bp", "shared-wf", range(200, 600), reverse=True)
    nodes, rels = expected_size(a, b)
    lin.load([a])
    lin.load([b])
    sequential = graphcheck.of(lin)
    assert (sequential.nodes, sequential.rels) == (nodes, rels)

    retry_log = _RetryLog()
    logging.getLogger("neo4j").addHandler(retry_log)
    try:
        for round_ in range(ROUNDS):
            lin.reset()
            results, errors = [], []
            threads = [threading.Thread(target=_load_in_thread,
                                        args=(neo4j_settings, p, results, errors, options))
                       for p in (a, b)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=600)
            assert errors == [], errors
            assert sorted(r.status for r in results) == ["loaded", "loaded"]
            assert sum(r.write.unresolved_edges for r in results) == 0
            assert graphcheck.of(lin) == sequential, f"round {round_}"
            duplicates = lin.query("MATCH (n:Lineage) WITH n.uid AS uid, count(*) AS c "
                                   "WHERE c > 1 RETURN uid LIMIT 5")
            assert duplicates == []
    finally:
        logging.getLogger("neo4j").removeHandler(retry_log)
    constraints = lin.query("SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type "
                            "RETURN labelsOrTypes, properties, type")
    assert {"labelsOrTypes": ["Lineage"], "properties": ["uid"], "type": "UNIQUENESS"} in constraints
    with capsys.disabled():
        print(f"\nconcurrent loads: {ROUNDS} rounds, {len(retry_log.messages)} transaction "
              f"retries (e.g. {retry_log.messages[:1]})")
