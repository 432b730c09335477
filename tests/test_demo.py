"""`lineage demo` loads the samples into its own managed Neo4j: the user's graph stays as it
was, whatever NEO4J_URI or the profile file name."""

import json
import os

import pytest

from lineage import server
from lineage.api import Lineage
from lineage.server.connection import Graph, Settings

from .conftest import SAMPLES
from .conftest import run_cli as run
from .corpus import needs_corpus

pytestmark = needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"



def snapshot(lin):
    """Everything of the user's graph: every node's uid and properties, every relationship."""
    nodes = lin.query("MATCH (n) RETURN labels(n) AS labels, properties(n) AS p "
                      "ORDER BY n.uid")
    rels = lin.query("MATCH (a)-[r]->(b) RETURN a.uid AS a, type(r) AS t, b.uid AS b, "
                     "properties(r) AS p ORDER BY a, t, b")
    return ([json.dumps(n, sort_keys=True, default=str) for n in nodes],
            sorted(json.dumps(r, sort_keys=True, default=str) for r in rels))


@pytest.fixture
def demo_home(tmp_path):
    """A state directory of the test's own for the demo server, stopped afterwards."""
    home = tmp_path / "home"
    yield home
    server.stop(home / "demo")


def test_demo_leaves_the_users_graph_untouched(lin, cli_env, demo_home, tmp_path):
    lin.load([BD])  # the user's graph (NEO4J_URI points at it)
    before = snapshot(lin)
    assert before[0] and before[1]
    env = dict(cli_env, LINEAGE_HOME=str(demo_home), LINEAGE_NEO4J_HEAP="512m",
               LINEAGE_NEO4J_PAGECACHE="128m")
    proc = run(env, "demo", "-o", str(tmp_path / "reports"))
    assert "not to NEO4J_URI" in proc.stderr
    assert snapshot(lin) == before  # not one property or relationship changed

    status = json.loads(run(env, "neo4j", "status", "--demo", "--json").stdout)
    assert status["running"] and status["state_dir"] == str(demo_home / "demo" / "neo4j")
    assert status["uri"] != os.environ.get("NEO4J_URI") and status["uri"] != cli_env["NEO4J_URI"]
    assert f"password in {status['password_file']}" in proc.stdout
    assert oct(os.stat(status["password_file"]).st_mode & 0o777) == "0o600"
    demo = Lineage(Graph.connect(Settings(status["uri"], "neo4j",
                                          server.password(demo_home / "demo"), None, True)))
    try:
        runs = demo.query("runs")
        loaded = demo.stats()["loads"]
    finally:
        demo.close()
    reports = [line.split("report: ", 1)[1] for line in proc.stdout.splitlines()
               if line.startswith("report: ")]
    assert runs and len(reports) == len(runs)
    assert len(loaded) > 1 and str(BD) in {r["path"] for r in loaded}  # the samples went there
    assert {r["uid"] for r in runs} - {r["uid"] for r in lin.query("runs")}  # demo-only runs
    # and no server of the user's was started in that LINEAGE_HOME: the demo's is its own
    assert not json.loads(run(env, "neo4j", "status", "--json").stdout)["running"]
