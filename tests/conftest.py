"""Test fixtures: a real Neo4j for every test that needs one.

Which server: ``NEO4J_URI`` when set (with NEO4J_USERNAME / NEO4J_PASSWORD); otherwise a
Neo4j testcontainer when a Docker engine answers; otherwise the managed server, run from a
state directory of the test session's own (``.test-state/`` in the repository, never the
user's graph), started here and stopped at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lineage import server
from lineage.api import Lineage
from lineage.server.connection import Graph, Settings

from .corpus import CORPUS, MISSING, ORACLES, REPO, SAMPLES, needs_corpus  # noqa: F401

TEST_STATE = Path(os.environ.get("LINEAGE_TEST_STATE", REPO / ".test-state"))


def _docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="session")
def neo4j_settings():
    """Settings of the Neo4j the tests use (see the module docstring)."""
    if os.environ.get("NEO4J_URI"):
        yield Settings.from_env(start_managed=False)
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer(f"neo4j:{server.NEO4J_VERSION}-community") as box:
            yield Settings(box.get_connection_url(), "neo4j", box.password, None, False)
        return
    info = server.start(TEST_STATE)
    yield Settings(info["uri"], info["user"], server.password(TEST_STATE), None, True)
    server.stop(TEST_STATE)


@pytest.fixture(scope="session")
def test_state_dir(neo4j_settings) -> Path:
    """The managed test server's state directory (tests that inspect the server use it)."""
    if not neo4j_settings.managed:
        pytest.skip("needs the managed server (NEO4J_URI or Docker is in use)")
    return TEST_STATE


@pytest.fixture(scope="session")
def session_lineage(neo4j_settings):
    lin = Lineage(Graph.connect(neo4j_settings))
    yield lin
    lin.close()


@pytest.fixture
def lin(session_lineage) -> Lineage:
    """A connected API handle on an empty graph."""
    session_lineage.reset(force=True)  # a test's load left writing must not block the next
    return session_lineage


@pytest.fixture
def cli_env(neo4j_settings, monkeypatch):
    """Environment for running the `lineage` CLI against the test server."""
    monkeypatch.setenv("NEO4J_URI", neo4j_settings.uri)
    monkeypatch.setenv("NEO4J_USERNAME", neo4j_settings.user)
    monkeypatch.setenv("NEO4J_PASSWORD", neo4j_settings.password)
    return dict(os.environ)


#: Fixtures that need the real Neo4j server: tests using them get the ``neo4j`` marker, so
#: ``pytest -m "not neo4j"`` runs the parser, model and doctest checks without a server.
SERVER_FIXTURES = {"neo4j_settings", "session_lineage", "lin", "cli_env", "test_state_dir"}


def pytest_report_header(config):
    return f"real samples: {SAMPLES}" if SAMPLES.is_dir() else f"SKIPPING their tests: {MISSING}"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.neo4j)


def run_cli(env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python -m lineage ARGS`` in ``env``; with ``check``, a non-zero exit fails the test
    (showing its stderr)."""
    proc = subprocess.run([sys.executable, "-m", "lineage", *args], capture_output=True,
                          text=True, env=env)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def demo_campaign(session_lineage, tmp_path_factory):
    """The demo campaign loaded and linked, as ``lineage demo`` does it (once per module;
    the graph emptied after)."""
    from . import demo_scenario

    lin = session_lineage
    lin.reset(force=True)
    demo_scenario.load(lin, tmp_path_factory.mktemp("campaign"))
    lin.link()
    yield lin
    lin.reset(force=True)
