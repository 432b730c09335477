"""Stampede databases of older schema versions (lineage.sources.pegasus.stampede): each shape
is built in the test run from a real sample (tests/pegasus_vintages.py) and must give the
facts the sample gives, as far as the older layout holds them. The oracle comparisons of the
same shapes with pegasus-statistics are in test_pegasus_oracle.py."""

import sqlite3
from collections import Counter

import pytest

from lineage import model
from lineage.errors import ParseError
from lineage.sources.base import LoadReport
from lineage.sources.pegasus import mapping
from lineage.sources.pegasus.db import parse

from . import pegasus_vintages as vintages
from .corpus import needs_corpus
from .test_pegasus_db import merged_nodes

pytestmark = needs_corpus  # every shape is built from a real sample

FILE = model.kind("File")
JOB = model.kind("Job")


def read(path, lenient=False):
    report = LoadReport(str(path), "pegasus-stampede-db", lenient=lenient)
    return list(parse(path, report)), report


@pytest.mark.parametrize("lenient", [False, True])
def test_schema_4_replica_catalogue_gives_the_samples_files(tmp_path, lenient):
    """Pegasus 4.5's rc_lfn(id, lfn, pfn, site) and rc_attr: no traceback (was
    ``AttributeError: lfn_id``), and every replicated file with its pfn, site and metadata,
    as the version-14 sample it was made from says them."""
    old = vintages.schema_4_db(tmp_path)
    recs, report = read(old, lenient)
    files = merged_nodes(recs, FILE)
    original = merged_nodes(read(vintages.HIER_DB)[0], FILE)
    with_pfn = {uid: props for uid, props in original.items() if props.get("pfn")}
    assert len(with_pfn) == 6 and files == with_pfn
    assert report.extra["rows"]["rc_lfn"] == 6 and report.extra["rows"]["rc_attr"] == 36
    assert report.warnings == [] and report.skipped == {} and report.unknown == {}
    assert set(report.extra["older_schema_columns"]) == {
        "workflowstate.reason", "jobstate.reason", "invocation.maxrss", "invocation.avg_cpu"}


@pytest.mark.parametrize("lenient", [False, True])
def test_schema_4_with_an_empty_replica_catalogue_loads(tmp_path, lenient):
    old = vintages.empty_old_replica_catalog_db(tmp_path)
    recs, report = read(old, lenient)
    assert merged_nodes(recs, JOB) == merged_nodes(read(vintages.FAIL_DB)[0], JOB)
    assert not merged_nodes(recs, FILE) and report.warnings == []


def test_before_schema_1_an_attempts_last_state_gives_its_outcome(tmp_path):
    """No job_instance.exitcode (Pegasus 4.2 and older): an attempt that ended in a success
    state succeeded, in a failed state failed (Pegasus's own migration to schema 0); the
    sample's one job that ended in a success state without an exit code now succeeded."""
    recs, report = read(vintages.before_schema_1_db(tmp_path))
    old = merged_nodes(recs, JOB)
    new = merged_nodes(read(vintages.HIER_DB)[0], JOB)
    assert set(old) == set(new)
    changed = {uid for uid in old if old[uid]["status"] != new[uid]["status"]}
    assert changed and all(new[uid]["status"] == "incomplete"
                           and new[uid]["last_state"] in mapping.SUCCESS_STATES
                           and old[uid]["status"] == "succeeded" for uid in changed)
    assert Counter(j["status"] for j in old.values()) == {"succeeded": 25, "running": 1,
                                                          "unsubmitted": 2}
    assert all("exitcode" not in j for j in old.values())  # unknown, not made up
    assert {"job_instance.exitcode", "job_instance.multiplier_factor",
            "invocation.remote_cpu_time"} <= set(report.extra["older_schema_columns"])
    assert report.warnings == []


def test_before_schema_1_a_replicas_site_is_its_pool_attribute(tmp_path):
    db = vintages.schema_4_db(tmp_path)
    with_site = merged_nodes(read(db)[0], FILE)
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE rc_lfn_v0 (id INTEGER PRIMARY KEY, lfn VARCHAR(245) NOT NULL,
                                    pfn VARCHAR(245) NOT NULL);
            INSERT INTO rc_lfn_v0 SELECT id, lfn, pfn FROM rc_lfn;
            INSERT INTO rc_attr SELECT id, 'pool', site FROM rc_lfn;
            DROP TABLE rc_lfn; ALTER TABLE rc_lfn_v0 RENAME TO rc_lfn;
            DROP TABLE dbversion;  -- before schema 1 there was none (else: damage)
        """)
    recs, report = read(db)
    files = merged_nodes(recs, FILE)
    assert {uid: f["site"] for uid, f in files.items()} == {
        uid: f["site"] for uid, f in with_site.items()}
    assert "rc_lfn.site" in report.extra["older_schema_columns"]


def test_schema_4_file_table_gives_task_files(tmp_path):
    db = vintages.schema_4_db(tmp_path)
    with sqlite3.connect(db) as conn:
        task = conn.execute("SELECT task_id, abs_task_id, wf_id FROM task "
                            "ORDER BY task_id LIMIT 1").fetchone()
        uuid = conn.execute("SELECT wf_uuid FROM workflow WHERE wf_id = ?", (task[2],)).fetchone()[0]
        conn.execute("INSERT INTO file VALUES (1, ?, 'in.txt', 120, 'ab12', 'input')", (task[0],))
        conn.execute("INSERT INTO file VALUES (2, ?, 'out.txt', NULL, NULL, 'output')", (task[0],))
        conn.execute("INSERT INTO file VALUES (3, 999, 'lost.txt', NULL, NULL, 'input')")
    recs, report = read(db, lenient=True)
    task_uid = f"pegasus:task:{uuid}:{task[1]}"
    edges = {(e.rel.name, e.start, e.end) for e in recs if hasattr(e, "rel")}
    assert ("USED", task_uid, f"pegasus:file:{uuid}:in.txt") in edges
    assert ("WAS_GENERATED_BY", f"pegasus:file:{uuid}:out.txt", task_uid) in edges
    made = merged_nodes(recs, FILE)[f"pegasus:file:{uuid}:in.txt"]
    assert made["size"] == 120 and made["checksum"] == "ab12"
    assert report.extra["orphan_rows"] == {"file": 1} and report.extra["rows"]["file"] == 3


def test_integrity_metrics_is_the_older_name_of_integrity(tmp_path):
    db = tmp_path / "v10.stampede.db"
    db.write_bytes(vintages.HIER_DB.read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE integrity RENAME TO integrity_metrics")
    recs, report = read(db)
    assert recs == read(vintages.HIER_DB)[0]
    assert report.extra["rows"]["integrity"] == 19 and report.unknown == {}


def test_a_table_without_its_identifying_column(tmp_path):
    """Strict: an error naming the file, the table and the column. Lenient: the table is
    not read, its rows counted and named in a warning; the rest loads."""
    db = tmp_path / "no-link.stampede.db"
    db.write_bytes(vintages.FAIL_DB.read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE invocation RENAME COLUMN job_instance_id TO instance")
    with pytest.raises(ParseError, match=r"no-link.stampede.db:table invocation: expected a "
                                         r"column job_instance_id"):
        read(db)
    recs, report = read(db, lenient=True)
    assert report.extra["unread_rows"] == {"invocation": 6}
    assert any("table invocation has no column job_instance_id: its 6 rows are not loaded" in w
               for w in report.warnings)
    assert merged_nodes(recs, JOB) == merged_nodes(read(vintages.FAIL_DB)[0], JOB)
    assert not merged_nodes(recs, model.kind("Invocation"))


def test_schema_4_database_in_the_graph(lin, tmp_path):
    """Loaded strict through the pipeline, as the issue's real 4.5-era files are."""
    [result] = lin.load([vintages.schema_4_db(tmp_path)])
    assert result.status == "loaded" and result.write.unresolved_edges == 0
    rows = lin.query("MATCH (f:File) WHERE f.pfn IS NOT NULL RETURN count(f) AS n")
    assert rows == [{"n": 6}]
