"""Nodes written while the input is still being read (lineage/early_nodes.py), on a real
Neo4j: the same graph as reading first, and every way a load can end after its first
nodes were written (a malformed record further on, an interrupt, a failed write) leaves
nothing of the input and no write mark.

The reading is held at its last record until the writer thread has written nodes (a gate
the test opens from that thread), so the failure lands after early writes every time.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lineage.load import fleet, inputs, loads, pipeline
from lineage.errors import ParseError
from lineage.config.settings import LoadOptions
from lineage.sources import registry
from lineage.load.writer import Writer

from . import graphcheck
from .bigstream import write_stream
from .conftest import SAMPLES
from .corpus import first, needs_corpus

EARLY = LoadOptions(overlap_bytes=0)  # every first load writes its nodes while reading
READ_FIRST = LoadOptions(overlap_bytes=None)
XALT_RUN = first("xalt", "run.*.json")


@needs_corpus
@pytest.mark.parametrize("inputs", [
    ["pegasus/blackdiamond-4.0.bp"], ["xalt"], ["chimbuko"], ["swift"],
], ids=lambda p: p[0].split("/")[0])
def test_writing_nodes_while_reading_gives_the_same_graph(lin, inputs):
    paths = [SAMPLES / p for p in inputs]
    writer = Writer(lin.graph.driver, lin.graph.database, batch_size=7)
    graphs = []
    for options in (READ_FIRST, EARLY):
        lin.reset()
        results = fleet.load(writer, paths, options=options)
        assert all(r.status in ("loaded", "unrecognised", "empty") for r in results), results
        graphs.append((graphcheck.of(lin, with_loads=True),
                       [(r.path, r.status, r.nodes, r.edges, r.write.node_rows,
                         r.write.edge_rows, r.write.unresolved_edges) for r in results]))
    assert graphs[0] == graphs[1]
    assert graphs[0][0].nodes > 10


def test_a_second_version_is_read_before_it_is_written(lin, tmp_path):
    """A reload clears what only the earlier version said, node by node, before writing:
    not done while reading (a failure would leave nodes cleared)."""
    stream = write_stream(tmp_path / "run.bp", "wf-v", range(20))
    item = next(inputs.expand([stream]))
    assert pipeline.overlapping(item, EARLY, loads.Previous())
    assert not pipeline.overlapping(item, EARLY, loads.Previous(version=1))
    assert not pipeline.overlapping(item, READ_FIRST, loads.Previous())
    big = LoadOptions(overlap_bytes=stream.stat().st_size + 1)
    assert not pipeline.overlapping(item, big, loads.Previous())


class _Gate:
    """Holds the reading at its last record until the writer has written ``after`` nodes
    (opened from the writer thread, which records how many nodes the graph held then)."""

    def __init__(self, lin, after: int = 120):
        self.lin, self.after = lin, after
        self.opened = threading.Event()
        self.nodes_seen: int | None = None

    def writer(self) -> Writer:
        gate = self

        class GatedWriter(Writer):
            def write_nodes(self, nodes, tag=None):
                def counted():
                    for i, node in enumerate(nodes, 1):
                        if i == gate.after:
                            gate.nodes_seen = gate.lin.graph.run(
                                "MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"]
                            gate.opened.set()
                        yield node
                return super().write_nodes(counted(), tag)

        return GatedWriter(self.lin.graph.driver, self.lin.graph.database, batch_size=50)

    def item(self, path: Path, hold_after: int, then=None) -> inputs.Input:
        """``path`` as an input whose reader, after ``hold_after`` records, waits for the
        gate, then calls ``then()`` (to raise) before reading on."""
        fmt = registry.detect(path, "auto")
        gate = self

        def held(source, report):
            records = fmt.parse(source, report)
            for number in itertools.count():
                if number == hold_after:  # before the next record is read
                    assert gate.opened.wait(60), "the writer thread wrote nothing while reading"
                    if then is not None:
                        then()
                record = next(records, None)
                if record is None:
                    return
                yield record

        return inputs.Input(str(path), dataclasses.replace(fmt, parse=held), True)


@pytest.fixture
def other_load(lin):
    """Another input's load in the graph (some of its nodes shared with the stream's host
    and user), and the fingerprint, tags included, everything must come back to."""
    lin.load([XALT_RUN])
    return graphcheck.of(lin, with_loads=True)


def _records(path: Path) -> int:
    fmt = registry.detect(path, "auto")
    return sum(1 for _ in fmt.parse(path, pipeline.LoadReport(str(path), fmt.name)))


def _no_trace_of(lin, path: Path, before) -> dict:
    assert graphcheck.of(lin, with_loads=True) == before
    assert not loads.being_written(lin.graph.driver, lin.graph.database)
    assert not [t for t in threading.enumerate() if t.name == "lineage-early-nodes"]
    [entry] = lin.query("MATCH (l:Load {path: $p}) RETURN l.status AS status, "
                        "l.error AS error, l.writing AS writing, l.version AS version",
                        {"p": str(path)})
    assert entry["status"] == "failed" and entry["writing"] is None
    assert entry["version"] is None
    return entry


@needs_corpus
def test_a_malformed_record_after_early_writes_leaves_nothing(lin, tmp_path, other_load):
    stream = write_stream(tmp_path / "run.bp", "wf-bad", range(1000))
    half = _records(stream) // 2  # the reader reads ahead: hold it well before the end
    with open(stream, "a") as fh:
        fh.write("ts=9999 event=stampede.job_inst.main.end xwf.id=wf-bad this is not a record\n")
    bad_line = f"{stream}:{len(stream.read_text().splitlines())}:"
    gate = _Gate(lin)
    with pytest.raises(ParseError) as info:
        pipeline.load_input(gate.writer(), gate.item(stream, half), options=EARLY)
    assert gate.nodes_seen > other_load.nodes  # written while the reading was held
    assert str(info.value).startswith(bad_line)
    assert info.value.result.status == "failed"
    entry = _no_trace_of(lin, stream, other_load)
    assert bad_line in entry["error"] and "write failed" not in entry["error"]
    # the input mended loads as a first version, whole
    stream.write_text("".join(stream.read_text().splitlines(keepends=True)[:-1]))
    [again] = fleet.load(Writer(lin.graph.driver, lin.graph.database), [stream],
                            options=EARLY)
    assert again.status == "loaded"
    assert lin.query("MATCH (l:Load {path: $p}) RETURN l.version AS v",
                     {"p": str(stream)})[0]["v"] == 1


@needs_corpus
def test_an_interrupt_while_reading_after_early_writes_leaves_nothing(lin, tmp_path,
                                                                      other_load):
    stream = write_stream(tmp_path / "run.bp", "wf-int", range(300))
    gate = _Gate(lin)

    def interrupt():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pipeline.load_input(gate.writer(), gate.item(stream, _records(stream) - 1, interrupt),
                            options=EARLY)
    assert gate.nodes_seen > other_load.nodes
    entry = _no_trace_of(lin, stream, other_load)
    # the interrupt, seen by the reading or by the writer thread (its write then failed)
    assert ("KeyboardInterrupt" in entry["error"] or entry["error"].startswith("write failed")
            or entry["error"].startswith(f"{stream}: write failed"))


@needs_corpus
def test_a_write_failing_in_the_writer_thread_stops_the_reading(lin, tmp_path, other_load):
    """Neo4j refuses a batch (a constraint the model does not have): the reading stops at its
    next hand-over, the error is the server's, what was written is removed.

    Two synchronisation points make it the same every run, whatever the machine's load: the
    writer thread takes its first chunk and then waits until the reading is half done (so
    nothing can fail before; the queue holds the rest of the first half: at most 8,001 node
    rows, 1,000 to a chunk, 8 chunks waiting); the reading then waits until the writer
    thread has failed and ended (so its failure is recorded before the next hand-over)."""
    stream = write_stream(tmp_path / "run.bp", "wf-refused", range(2000))
    lin.write("CREATE CONSTRAINT test_early_type IF NOT EXISTS "
              "FOR (j:Job) REQUIRE j.type_desc IS UNIQUE")
    half_read, failed, read = threading.Event(), threading.Event(), []
    fmt = registry.detect(stream, "auto")
    total = _records(stream)

    def held(source, report):  # at half: lets the writer go on, waits until it has ended
        for number, record in enumerate(fmt.parse(source, report), 1):
            if number == total // 2:
                half_read.set()
                assert failed.wait(60), "the writer thread did not fail"
                for thread in threading.enumerate():
                    if thread.name == "lineage-early-nodes":
                        thread.join(60)
            read.append(number)
            yield record

    def after_half(nodes):  # the writer thread's first node, then a wait for half the input
        nodes = iter(nodes)
        for node in nodes:
            assert half_read.wait(60), "the reading did not get half way"
            yield node
            break
        yield from nodes

    class FailureSeen(Writer):
        def write_nodes(self, nodes, tag=None):
            try:
                return super().write_nodes(after_half(nodes), tag)
            except Exception:
                failed.set()
                raise

    item = inputs.Input(str(stream), dataclasses.replace(fmt, parse=held), True)
    try:
        writer = FailureSeen(lin.graph.driver, lin.graph.database, batch_size=3)
        with pytest.raises(Exception) as info:
            pipeline.load_input(writer, item, options=EARLY)
    finally:
        lin.write("DROP CONSTRAINT test_early_type IF EXISTS")
    assert "type_desc" in str(info.value) or "test_early_type" in str(info.value), info.value
    assert not isinstance(info.value, ParseError)
    assert total // 2 <= len(read) < total  # the reading stopped at its next hand-over
    entry = _no_trace_of(lin, stream, other_load)
    assert entry["error"].startswith(f"{stream}: write failed: ")  # the input, then the server's
    assert "ConstraintValidationFailed" in entry["error"]


KILLED_LOADER = """
import dataclasses, os, sys, threading
from pathlib import Path
from lineage.load import inputs, pipeline
from lineage.server.connection import Graph, Settings
from lineage.config.settings import LoadOptions
from lineage.sources import registry
from lineage.load.writer import Writer
path, half = sys.argv[1], int(sys.argv[2])
fmt = registry.detect(Path(path), "auto")
def stuck(source, report):  # reads half, then waits for the kill
    for number, record in enumerate(fmt.parse(source, report)):
        if number == half:
            threading.Event().wait()
        yield record
graph = Graph.connect(Settings(os.environ["T_URI"], os.environ["T_USER"],
                               os.environ["T_PASSWORD"], os.environ.get("T_DATABASE"), True))
item = inputs.Input(path, dataclasses.replace(fmt, parse=stuck), True)
pipeline.load_input(Writer(graph.driver, graph.database, batch_size=50), item,
                    options=LoadOptions(overlap_bytes=0))
"""


def test_a_load_killed_while_reading_is_mended_by_loading_again(lin, neo4j_settings,
                                                               tmp_path):
    """SIGKILL (out of memory, say) after the first nodes were written while reading: they
    stay with a write mark of a gone process; the same load again gives the clean graph."""
    stream = write_stream(tmp_path / "run.bp", "wf-killed", range(1000))
    fleet.load(Writer(lin.graph.driver, lin.graph.database), [stream], options=EARLY)
    clean = graphcheck.of(lin, with_loads=True)
    lin.reset()
    env = dict(os.environ, T_URI=neo4j_settings.uri, T_USER=neo4j_settings.user,
               T_PASSWORD=neo4j_settings.password, T_DATABASE=neo4j_settings.database or "",
               PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    if not env["T_DATABASE"]:
        env.pop("T_DATABASE")
    child = subprocess.Popen([sys.executable, "-c", KILLED_LOADER, str(stream),
                              str(_records(stream) // 2)], env=env)
    try:
        deadline, written = time.monotonic() + 120, 0
        while time.monotonic() < deadline and child.poll() is None and written == 0:
            written = lin.graph.run("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"]
            time.sleep(0.05)
        assert child.poll() is None, "the loader ended before it was killed"
        assert written > 0, "no node was written while the loader read"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert 0 < graphcheck.of(lin).nodes < clean.nodes
    assert not loads.being_written(lin.graph.driver, lin.graph.database)  # its writer is gone
    [again] = fleet.load(Writer(lin.graph.driver, lin.graph.database), [stream],
                            options=EARLY)
    assert again.status == "loaded"
    assert graphcheck.of(lin, with_loads=True) == clean
