"""Faults in the middle of a load: a Neo4j server killed (SIGKILL) and dropped connections.

The kill test runs its own managed server from a temporary state directory (started with
umask 000, so it also checks the server keeps its files private whatever the user's umask),
never the session's server.
"""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from lineage import server
from lineage.api import Lineage
from lineage.server.connection import Graph, Settings
from lineage.load.fleet import load
from lineage.load.writer import Writer

from . import graphcheck
from .bigstream import expected_size, write_stream
from .tcpproxy import Proxy

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def own_server(tmp_path_factory, neo4j_settings):
    """A second managed server in a temporary state directory, started under umask 000."""
    if not neo4j_settings.managed:
        pytest.skip("needs the managed server (NEO4J_URI or Docker is in use)")
    state = tmp_path_factory.mktemp("fault-state")
    saved = {k: os.environ.get(k) for k in ("LINEAGE_NEO4J_HEAP", "LINEAGE_NEO4J_PAGECACHE")}
    os.environ["LINEAGE_NEO4J_HEAP"] = "512m"
    os.environ["LINEAGE_NEO4J_PAGECACHE"] = "128m"
    old_umask = os.umask(0)
    try:
        server.start(state)
    finally:
        os.umask(old_umask)
    yield state
    server.stop(state)
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def settings_of(state: Path) -> Settings:
    info = server.status(state)
    assert info["running"], info
    return Settings(info["uri"], info["user"], server.password(state), None, True)


def test_state_is_private_even_with_umask_000(own_server):
    paths = server.ServerPaths.under(own_server)
    assert stat.S_IMODE(os.stat(own_server).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(paths.password_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(paths.data_dir).st_mode) == 0o700
    opened = []
    for root, dirs, files in os.walk(own_server):
        for name in dirs + files:
            path = Path(root) / name
            if path.is_symlink():
                continue
            if stat.S_IMODE(os.lstat(path).st_mode) & 0o077:
                opened.append(f"{path} {oct(stat.S_IMODE(os.lstat(path).st_mode))}")
    assert opened == [], opened[:10]


LOADER = textwrap.dedent("""
    import sys
    from lineage.server.connection import Graph, Settings
    from lineage.load.fleet import load
    from lineage.load.writer import Writer
    uri, user, password, path = sys.argv[1:5]
    graph = Graph.connect(Settings(uri, user, password, None, True))
    print("connected", flush=True)
    load(Writer(graph.driver, None, batch_size=100), [path])
    print("done", flush=True)
""")


def _counts(driver) -> tuple[int, int]:
    records, _, _ = driver.execute_query(
        "CALL () { MATCH (n:Lineage) RETURN count(n) AS n } "
        "CALL () { MATCH (:Lineage)-[r]->(:Lineage) RETURN count(r) AS r } RETURN n, r")
    return records[0]["n"], records[0]["r"]


def test_server_killed_mid_load_then_rerun_equals_a_clean_load(own_server, tmp_path):
    stream = write_stream(tmp_path / "big.bp", "fault-wf", range(2000))
    total_nodes, total_rels = expected_size(stream)
    settings = settings_of(own_server)
    with Graph.connect(settings) as g:
        Lineage(g).reset()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-c", LOADER, settings.uri, settings.user, settings.password, str(stream)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    partial = (0, 0)
    try:
        with GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as drv:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and proc.poll() is None:
                partial = _counts(drv)
                if partial[0] > total_nodes // 4 or partial[1] > 0:
                    break
                time.sleep(0.05)
        assert proc.poll() is None, f"the load ended before the kill:\n{proc.stdout.read()}"
        server.kill(own_server)
    finally:
        proc.kill()  # the loader we started; its driver would retry for 30 s
        out = proc.communicate()[0]
    assert "done" not in out
    assert 0 < partial[0] + partial[1] < total_nodes + total_rels, partial

    server.start(own_server)
    settings = settings_of(own_server)
    with Graph.connect(settings) as g:
        lin = Lineage(g)
        after_crash = graphcheck.of(lin)
        assert after_crash.nodes + after_crash.rels < total_nodes + total_rels  # really partial
        [result] = lin.load([stream])
        assert result.status == "loaded" and result.write.unresolved_edges == 0
        rerun = graphcheck.of(lin)
        lin.reset()
        lin.load([stream])
        clean = graphcheck.of(lin)
    assert (rerun.nodes, rerun.rels) == (total_nodes, total_rels)
    assert rerun == clean


class _RetryLog(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.retries = 0

    def emit(self, record):
        if "will be retried" in record.getMessage():
            self.retries += 1


def test_dropped_connections_are_retried_by_managed_transactions(lin, neo4j_settings, tmp_path):
    stream = write_stream(tmp_path / "drops.bp", "drop-wf", range(600))
    total_nodes, total_rels = expected_size(stream)
    lin.load([stream])
    clean = graphcheck.of(lin)
    lin.reset()
    host, port = neo4j_settings.uri.removeprefix("bolt://").rsplit(":", 1)
    retry_log = _RetryLog()
    logging.getLogger("neo4j").addHandler(retry_log)
    try:
        with Proxy((host, int(port))) as proxy:
            # drop the connection as the 3rd, 9th and 20th write batch is sent
            proxy.drop_when(b"UNWIND $rows", {3, 9, 20})
            with Graph.connect(Settings(proxy.uri, neo4j_settings.user, neo4j_settings.password,
                                        None, False)) as g:
                results = load(Writer(g.driver, g.database, batch_size=50), [stream])
            drops = proxy.drops
    finally:
        logging.getLogger("neo4j").removeHandler(retry_log)
    assert drops == 3
    assert retry_log.retries >= 3
    assert results[0].status == "loaded" and results[0].write.unresolved_edges == 0
    assert graphcheck.of(lin) == clean
    assert (clean.nodes, clean.rels) == (total_nodes, total_rels)
