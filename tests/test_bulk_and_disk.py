"""Bulk loads and disks: one bulk load at a time (a second refuses before it stops anything),
the state an interrupted bulk load leaves is reported with the way to recover, a load refuses
before writing when a disk lacks room, and a database that cannot recover is named as such.

The refusals come before a bulk load stops the server, so these tests need no server of
their own: ``LINEAGE_HOME`` points at a state directory in the test's tmp_path."""

import json
import socket
import subprocess
import sys

import pytest

from lineage import server
from lineage.bulk import BulkRefused
from lineage.errors import LineageError

from . import graphcheck
from .conftest import SAMPLES, run_cli
from .corpus import needs_corpus

BP = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A managed-server state directory of the test's own (nothing runs there)."""
    monkeypatch.setenv("LINEAGE_HOME", str(tmp_path / "home"))
    return server.ServerPaths.under(tmp_path / "home")


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_a_second_bulk_load_refuses_while_one_holds_the_lock(lin, home):
    with server.bulk_lock(home):  # as a first bulk load holds it, from its start to its end
        with pytest.raises(BulkRefused, match=r"another `lineage load --bulk` \(pid \d+\)"):
            lin.load([BP], bulk=True)
    assert graphcheck.of(lin).nodes == 0
    # the lock goes with its holder: the next one gets past it (and on to the next check)
    with pytest.raises(BulkRefused, match="managed local server only"):
        lin.load([BP], bulk=True)


def test_an_interrupted_bulk_load_is_reported_with_the_way_to_recover(lin, home, tmp_path):
    home.root.mkdir(parents=True)
    home.bulk_state.write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname(),
                                           "step": "importing with neo4j-admin", "at": 0}))
    told = server.interrupted_bulk(home)
    assert "interrupted while importing with neo4j-admin" in told
    assert "without its :Load records" in told and "lineage reset --yes" in told
    assert server.status(home.root.parent)["interrupted_bulk_load"] == told
    out = subprocess.run([sys.executable, "-m", "lineage", "neo4j", "status"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and f"warning: {told}" in out.stdout
    with pytest.raises(BulkRefused, match="was interrupted while importing"):
        lin.load([BP], bulk=True)
    # a bulk load that is still running is not an interrupted one
    home.bulk_state.write_text(json.dumps({"pid": subprocess.os.getpid(),
                                           "host": socket.gethostname(), "step": "x"}))
    assert server.interrupted_bulk(home) is None


@needs_corpus
def test_a_load_refuses_before_writing_when_a_disk_lacks_room(lin, tmp_path, cli_env):
    with pytest.raises(LineageError, match=r"not enough free space for a load: the spool"):
        lin.load([BP], options=lin.settings.load.with_(min_free_bytes=10**18))
    assert graphcheck.of(lin).nodes == 0
    out = run_cli(dict(cli_env, LINEAGE_MIN_FREE_BYTES=str(10**18)), "load", str(BP),
                  check=False)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "not enough free space" in out.stderr and "LINEAGE_MIN_FREE_BYTES" in out.stderr
    assert graphcheck.of(lin).nodes == 0
    run_cli(dict(cli_env, LINEAGE_MIN_FREE_BYTES="off"), "load", str(BP))
    assert graphcheck.of(lin).nodes > 0


def test_a_database_that_cannot_recover_is_named_with_its_cause(tmp_path):
    """What Neo4j's debug.log says when recovery fails (missing transaction logs, a corrupt
    log) decides the message, instead of "did not start within the time allowed"."""
    debug = "\n".join([
        "2026-01-01 INFO [o.n.k.d.Database] [neo4j] Recovery required from position 12",
        "2026-01-01 ERROR [o.n.k.d.Database] [neo4j] Failed to start: Transaction logs are "
        "missing and recovery is not possible.",
    ])
    line = server.recovery_failure(debug)
    assert line.startswith("2026-01-01 ERROR") and "recovery is not possible" in line
    assert server.recovery_failure("INFO Recovery completed. 5 transactions replayed") is None
    assert server.recovery_failure("INFO Started.") is None
