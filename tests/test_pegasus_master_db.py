"""Pegasus master databases (the per-user index of runs, ~/.pegasus/workflow.db): read as an
index of runs and followed to each run's Stampede database, against what Pegasus's own
dashboard lists (``pegasus_oracle.py master-index``). The databases are built in the test run
(tests/pegasus_master.py): one by Pegasus 5.1.3's own DashboardLoader, one in the layout of
Pegasus 4.5 (the three master tables only)."""

import sqlite3

import pytest

from lineage.sources.base import LoadReport
from lineage.sources.registry import detect

from .conftest import run_cli
from .corpus import needs_corpus
from .pegasus_master import pegasus5_master_db, schema_4_master_db
from .pegasus_oracle_compare import run_oracle
from .test_pegasus_oracle import graph_facts, updated_by_pegasus

#: the dashboard's state of a run -> ours
STATES = {"Successful": "succeeded", "Failed": "failed", "Running": "running"}


@pytest.fixture(scope="module")
def masters(tmp_path_factory):
    """(Pegasus 5 master database, its 4.5-layout copy, the runs' Stampede databases)."""
    made = tmp_path_factory.mktemp("master")
    master, databases = pegasus5_master_db(made)
    return master, schema_4_master_db(made, master), databases


@needs_corpus
def test_master_databases_are_recognised(masters):
    master, old, _ = masters
    assert detect(old).name == "pegasus-master-db"
    assert detect(old, "pegasus").name == "pegasus-master-db"
    # Pegasus 5 creates every table in every database: read as Stampede, index included
    assert detect(master).name == "pegasus-stampede-db"


@needs_corpus
@pytest.mark.parametrize("layout", ["pegasus5", "schema_4"])
def test_the_index_lists_the_runs_the_dashboard_lists(lin, masters, layout, tmp_path):
    master, old, _ = masters
    ours = master if layout == "pegasus5" else old
    theirs = master if layout == "pegasus5" else updated_by_pegasus(_copy(old, tmp_path))
    dashboard = run_oracle("master-index", theirs)
    [result] = lin.load([ours])  # strict
    assert result.status == "loaded" and result.report["runs_without_database"] == 1
    rows = {r["uuid"]: r for r in lin.query(
        "MATCH (w:Workflow) WHERE w.db_url IS NOT NULL RETURN w.xwf_id AS uuid, "
        "w.status AS status, w.submit_dir AS submit_dir, w.db_url AS db_url, "
        "w.label AS label, w.plan_time AS plan_time, w.archived AS archived")}
    assert len(rows) == len(dashboard["workflows"]) == 4
    for run in dashboard["workflows"]:
        mine = rows[run["wf_uuid"]]
        assert (mine["status"], mine["submit_dir"], mine["db_url"], mine["label"],
                mine["plan_time"], mine["archived"]) == (
            STATES[run["state"]], run["submit_dir"], run["db_url"], run["dax_label"],
            run["timestamp"], False)
    counts = {"total": len(rows), "success": 0, "fail": 0, "others": 0}
    for row in rows.values():
        counts[{"succeeded": "success", "failed": "fail"}.get(row["status"], "others")] += 1
    assert counts == dashboard["counts"] == {"total": 4, "success": 1, "fail": 1, "others": 2}


def _copy(path, directory):
    copy = directory / path.name
    copy.write_bytes(path.read_bytes())
    return copy


@needs_corpus
def test_following_the_index_loads_each_runs_database(lin, masters):
    """The runs' Stampede databases come with the index: the same jobs, attempts,
    invocations and files as when each is loaded on its own."""
    _, old, databases = masters
    lin.load(list(databases.values()))
    alone = graph_facts(lin)
    lin.reset()
    lin.load([old])
    followed = graph_facts(lin)
    assert set(alone) <= set(followed)
    assert {uid: alone[uid] for uid in alone if not uid.startswith("pegasus:workflow:")} == {
        uid: followed[uid] for uid in alone if not uid.startswith("pegasus:workflow:")}


@needs_corpus
def test_runs_on_a_server_are_counted_not_followed_and_their_password_kept_out(masters, tmp_path):
    old = _copy(masters[1], tmp_path)
    with sqlite3.connect(old) as conn:
        conn.execute("UPDATE master_workflow SET db_url = 'mysql://pegasus:s3cret@db.example/"
                     "stampede' WHERE dax_label = 'gone'")
    report = LoadReport(str(old), "pegasus-master-db")
    records = list(detect(old).parse(old, report))
    assert report.extra["runs_on_servers"] == 1 and "runs_without_database" not in report.extra
    assert "s3cret" not in repr(records) and "s3cret" not in repr(report.warnings)
    assert any("mysql://pegasus:***@db.example/stampede" in w for w in report.warnings)
    [gone] = [r for r in records if getattr(r, "props", {}).get("label") == "gone"]
    assert gone.props["db_url"] is None  # a server's URL is never stored


def test_a_forced_pegasus_source_on_another_sqlite_file_says_what_it_expected(cli_env, tmp_path):
    """--source pegasus on a SQLite file that is neither a Stampede nor a master database:
    an error naming the tables expected and found, not a UTF-8 error."""
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE things (x INTEGER)")
    done = run_cli(cli_env, "load", "--source", "pegasus", str(other), check=False)
    assert done.returncode != 0
    assert "UTF-8" not in done.stderr and "Traceback" not in done.stderr
    assert "master_workflow" in done.stderr and "things" in done.stderr
