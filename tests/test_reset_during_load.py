"""A reset (or unload) while a load is writing: refused with the load named, or (--force)
the load is interrupted, removes what it wrote after the reset and fails with a clear
error; the graph never keeps part of an input under a "loaded" record.

The load is paused at a chosen point by a writer whose record stream calls back, so the
reset lands mid-write every time (no timing luck).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from lineage.load import loads
from lineage.errors import LoadInterrupted
from lineage.load.fleet import load
from lineage.config.settings import LoadOptions
from lineage.load.writer import Writer

from . import graphcheck
from .bigstream import write_stream



class _PausingWriter(Writer):
    """Calls ``pause()`` once, when the ``after``-th node has been handed to the writer
    (earlier batches are in the graph by then), or before the first edge with ``after=None``."""

    def __init__(self, driver, database, pause, after: int | None):
        super().__init__(driver, database, batch_size=50)
        self.pause, self.after = pause, after

    def write_nodes(self, nodes, tag=None):
        if self.after is None:
            return super().write_nodes(nodes, tag)

        def counted():
            for i, node in enumerate(nodes, 1):
                if i == self.after:
                    self.pause()
                yield node
        return super().write_nodes(counted(), tag)

    def write_edges(self, edges, tag=None):
        if self.after is None:
            self.pause()
        return super().write_edges(edges, tag)


def _lineage_nodes(lin) -> int:
    return lin.graph.run("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"]


@pytest.fixture
def stream(tmp_path) -> Path:
    """A generated Pegasus BP stream of 300 jobs (1,200 nodes: several write batches)."""
    return write_stream(tmp_path / "run.bp", "wf-reset", range(300))


@pytest.fixture
def clean(lin, stream):
    """The fingerprint of the stream loaded alone, and an empty graph again."""
    lin.load([stream])
    expected = graphcheck.of(lin)
    lin.reset()
    return expected


def test_reset_refuses_while_a_load_writes_and_the_load_completes(lin, stream, clean, cli_env):
    refused = {}

    def try_reset():
        with pytest.raises(loads.BusyError) as api:
            lin.reset()
        refused["api"] = str(api.value)
        refused["cli"] = subprocess.run([sys.executable, "-m", "lineage", "reset", "--yes"],
                                        env=cli_env, capture_output=True, text=True)
        with pytest.raises(loads.BusyError) as unload:
            lin.unload(str(stream))
        refused["unload"] = str(unload.value)

    writer = _PausingWriter(lin.graph.driver, lin.graph.database, try_reset, after=700)
    [result] = load(writer, [stream])
    assert result.status == "loaded"
    assert refused, "the load never paused"
    for message in (refused["api"], refused["unload"], refused["cli"].stderr):
        assert str(stream) in message and loads.this_writer() in message, message
        assert "--force" in message
    assert refused["cli"].returncode == 1
    assert "deleted" not in refused["cli"].stdout
    assert graphcheck.of(lin) == clean
    assert lin.stats()["loads"][0]["status"] == "loaded"
    assert not loads.being_written(lin.graph.driver, lin.graph.database)


@pytest.mark.parametrize("options", [LoadOptions(overlap_bytes=None), LoadOptions(overlap_bytes=0)],
                         ids=["read-then-write", "nodes-while-reading"])
@pytest.mark.parametrize("after", [700, None], ids=["among-nodes", "before-edges"])
def test_forced_reset_interrupts_the_load_which_removes_its_writes(lin, stream, clean, after,
                                                                   options):
    deleted = []
    writer = _PausingWriter(lin.graph.driver, lin.graph.database,
                            lambda: deleted.append(lin.reset(force=True)), after=after)
    with pytest.raises(LoadInterrupted) as info:
        load(writer, [stream], options=options)
    assert str(stream) in str(info.value) and "load it again" in str(info.value)
    # the reset found the first batches written: 700 nodes handed on, or all of them before
    # the first relationship; while reading, relationships are written as soon as their
    # ends are, so the first one comes after the first batch of nodes (50)
    early_edges = after is None and options.overlap_bytes == 0
    assert deleted and deleted[0] >= (50 if early_edges else 500), deleted
    assert _lineage_nodes(lin) == 0  # nothing written after the reset stays
    rels = lin.graph.run("MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"]
    assert rels == 0
    [entry] = lin.stats()["loads"]
    assert entry["status"] == "failed" and entry["version"] is None
    # loading again gives the clean graph
    [again] = lin.load([stream])
    assert again.status == "loaded"
    assert graphcheck.of(lin) == clean


def test_the_cli_names_the_interruption(lin, stream, cli_env, tmp_path):
    """`lineage load` interrupted by a forced reset: exit 1 and one line naming the input."""
    script = tmp_path / "interrupted_load.py"
    script.write_text(
        "import sys\n"
        "from lineage import cli; from lineage.load import pipeline\n"
        "real = pipeline.Writer.write_edges\n"
        "def write_edges(self, edges, tag=None):\n"
        "    with cli._connect() as other:\n"
        "        other.reset(force=True)\n"
        "    return real(self, edges, tag)\n"
        "pipeline.Writer.write_edges = write_edges\n"
        "sys.argv = ['lineage', 'load', sys.argv[1]]\n"
        "cli.main()\n")
    run = subprocess.run([sys.executable, str(script), str(stream)], env=cli_env,
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert f"{stream}: the graph was reset" in run.stderr
    assert _lineage_nodes(lin) == 0


def test_a_mark_left_by_a_killed_load_does_not_block(lin, stream):
    """A load killed mid-write leaves its mark; on this host a gone process is seen as gone,
    a process elsewhere cannot be checked and still blocks (until --force)."""
    lin.load([stream])
    [entry] = lin.stats()["loads"]
    driver, database = lin.graph.driver, lin.graph.database

    def mark(writer):
        driver.execute_query("MATCH (l:Load {id: $id}) SET l.writing = 'x:1', "
                             "l.writing_since = 0.0, l.writer = $writer",
                             id=entry["id"], writer=writer, database_=database)

    mark(f"{socket.gethostname()}:{_dead_pid()}")
    assert loads.being_written(driver, database) == []
    assert lin.reset() > 0
    lin.load([stream])
    entry = lin.stats()["loads"][0]
    mark("another-login-node:4242")
    with pytest.raises(loads.BusyError, match="another-login-node:4242"):
        lin.reset()
    assert _lineage_nodes(lin) > 0
    assert lin.reset(force=True) > 0
    assert _lineage_nodes(lin) == 0


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    try:
        os.kill(child.pid, 0)
    except ProcessLookupError:
        return child.pid
    pytest.fail("a reaped child's pid is still in use")
