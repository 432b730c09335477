"""`lineage demo` end to end: it generates the campaign, loads and links it in its own
managed Neo4j (the user's graph stays as it was, whatever NEO4J_URI or the profile file
name), writes a report per run and an index with the failed runs first; ``--keep DIR``
leaves the generated files there, and without it they are removed."""

import json
import os
import re

import pytest

from lineage import server
from lineage.api import Lineage
from lineage.server.connection import Graph, Settings
from lineage.demo.run import report_name

from . import demo_scenario as demo
from .conftest import run_cli as run


def snapshot(lin):
    """Everything of the user's graph: every node's uid and properties, every relationship."""
    nodes = lin.query("MATCH (n) RETURN labels(n) AS labels, properties(n) AS p "
                      "ORDER BY n.uid")
    rels = lin.query("MATCH (a)-[r]->(b) RETURN a.uid AS a, type(r) AS t, b.uid AS b, "
                     "properties(r) AS p ORDER BY a, t, b")
    return ([json.dumps(n, sort_keys=True, default=str) for n in nodes],
            sorted(json.dumps(r, sort_keys=True, default=str) for r in rels))


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory):
    """A state directory of the module's own for the demo server, stopped afterwards."""
    home = tmp_path_factory.mktemp("home")
    yield home
    server.stop(home / "demo")


def demo_env(cli_env, home, scratch):
    """The CLI's environment with the demo's state in ``home`` and temporary files in
    ``scratch``."""
    scratch.mkdir(exist_ok=True)
    return dict(cli_env, LINEAGE_HOME=str(home), LINEAGE_NEO4J_HEAP="512m",
                LINEAGE_NEO4J_PAGECACHE="128m", TMPDIR=str(scratch))


def demo_graph(home):
    """The demo server's status and a connection to its graph."""
    info = json.loads(run(dict(os.environ, LINEAGE_HOME=str(home)), "neo4j", "status", "--demo",
                          "--json").stdout)
    return info, Lineage(Graph.connect(Settings(info["uri"], "neo4j",
                                                server.password(home / "demo"), None, True)))


def test_demo_leaves_the_users_graph_untouched_and_no_files(lin, cli_env, demo_home, tmp_path):
    written = demo.write(tmp_path / "user")
    lin.load(demo.paths(written, "pegasus")[:1])  # the user's graph (NEO4J_URI points at it)
    before = snapshot(lin)
    assert before[0] and before[1]
    env = demo_env(cli_env, demo_home, tmp_path / "scratch")
    proc = run(env, "demo", "-o", str(tmp_path / "reports"))
    assert "not to NEO4J_URI" in proc.stderr
    assert snapshot(lin) == before  # not one property or relationship changed

    status, other = demo_graph(demo_home)
    assert status["running"] and status["state_dir"] == str(demo_home / "demo" / "neo4j")
    assert status["uri"] != os.environ.get("NEO4J_URI") and status["uri"] != cli_env["NEO4J_URI"]
    assert f"password in {status['password_file']}" in proc.stdout
    assert oct(os.stat(status["password_file"]).st_mode & 0o777) == "0o600"
    try:
        runs = other.query("runs")
        loaded = other.stats()["loads"]
    finally:
        other.close()
    assert len(runs) == 17
    assert f"reports: {(tmp_path / 'reports').resolve()} (17, one per run" in proc.stdout
    assert len(list((tmp_path / "reports").glob("*.html"))) == 17 + 1  # and the index
    # no noise: no line per generated file, nothing but the answer and where things are
    assert not [line for line in proc.stderr.splitlines() if line.startswith("loaded ")]
    # the index line, a line per failed run, then the loaded files, reports and Browser
    assert len(proc.stdout.splitlines()) <= 4 + len(FAILED), proc.stdout
    assert len(loaded) == 38  # the generated files went there...
    assert all(r["path"].startswith(str(tmp_path / "scratch")) for r in loaded)
    assert list((tmp_path / "scratch").iterdir()) == []  # ...from a folder removed afterwards
    assert {r["uid"] for r in runs} - {r["uid"] for r in lin.query("runs")}  # demo-only runs
    # and no server of the user's was started in that LINEAGE_HOME: the demo's is its own
    assert not json.loads(run(env, "neo4j", "status", "--json").stdout)["running"]


#: the runs that failed: the second workflow run, and every program XALT tracked that
#: exited non-zero (a failed attempt's program, the first run's retried one included)
FAILED = {demo.workflow(demo.SECOND)} | {demo.xalt(p) for p in demo.CAMPAIGN.processes()
                                         if p.tracked and p.exit_code}

ROW = re.compile(r'<tr><td>(.*?)</td><td>(.*?)</td>\s*<td><a href="(.*?)">', re.S)


def test_keep_leaves_the_files_and_the_index_lists_every_run_failed_first(cli_env, demo_home,
                                                                          tmp_path):
    files, reports = tmp_path / "files", tmp_path / "reports"
    env = demo_env(cli_env, demo_home, tmp_path / "scratch")
    proc = run(env, "demo", "-o", str(reports), "--keep", str(files))
    assert f"files: {files.resolve()}" in proc.stdout
    kept = sorted(p.relative_to(files) for p in files.rglob("*") if p.is_file())
    again = tmp_path / "again"
    assert kept == sorted(p.relative_to(again) for p in demo.paths(demo.write(again)))

    first = proc.stdout.splitlines()[0]  # the answer first: where the index is, what failed
    failed_uid = demo.workflow(demo.SECOND)
    head = f"index: {(reports / 'index.html').resolve()} (17 runs, {len(FAILED)} failed: "
    assert first.startswith(head) and first.endswith(")"), first
    assert set(first[len(head):-1].split(", ")) == FAILED
    assert len(FAILED) == 4
    html = (reports / "index.html").read_text()
    assert f"{len(FAILED)} of 17 runs failed" in html
    rows = ROW.findall(html)
    _, other = demo_graph(demo_home)
    try:
        runs = other.query("runs")
    finally:
        other.close()
    assert sorted(href for *_, href in rows) == sorted(report_name(r["uid"]) for r in runs)
    statuses = [status for status, *_ in rows]
    assert statuses[:len(FAILED)] == ["failed"] * len(FAILED)
    assert "failed" not in statuses[len(FAILED):]
    assert {href for *_, href in rows[:len(FAILED)]} == {report_name(u) for u in FAILED}
    assert all((reports / href).is_file() for *_, href in rows)
    assert (f"failed: Workflow diamond: report "
            f"{(reports / report_name(failed_uid)).resolve()}") in proc.stdout.splitlines()
    # each run's partners across systems, linked to their reports: the failed workflow's
    # jobs ran the XALT runs of its attempts
    first_row = next(row for row in html.split("<tbody>", 1)[1].split("</tr>")
                     if f'href="{report_name(failed_uid)}"' in row)
    partners = re.findall(r'<a href="(xalt_run_[^"]+)">Execution ', first_row)
    assert len(partners) == 5 and all((reports / p).is_file() for p in partners)
