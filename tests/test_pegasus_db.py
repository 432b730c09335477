"""Pegasus Stampede databases: the real samples' oracle facts, schema variations, and one
graph from a run's .static.bp and its .stampede.db."""

import shutil
import sqlite3
from collections import Counter

import pytest

from lineage import model
from lineage.errors import ParseError
from lineage.sources.registry import detect
from lineage.sources.base import LoadReport
from lineage.sources.pegasus.db import parse, sqlite_url
from lineage.model.records import Edge, Node

from .conftest import SAMPLES
from .pegasus_fixtures import failure_db_with_workflow_files
from .corpus import needs_corpus

PEGASUS = SAMPLES / "pegasus"
FAIL_DB = PEGASUS / "process_wf_failure.stampede.db"
FAIL_BP = PEGASUS / "process_wf_failure.static.bp"
HIER_DB = PEGASUS / "hierarchical_wf_success.stampede.db"
HIER_BP = PEGASUS / "hierarchical_wf_success.static.bp"
FAIL_WF = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
ROOT_WF = "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
SUB_WF = "pegasus:workflow:160be601-bda4-45fb-86cd-9cf7a269bb22"


def merged_nodes(records, kind):
    """uid -> props, with repeated records of one node merged as the writer does."""
    out = {}
    for r in records:
        if isinstance(r, Node) and r.kind is kind:
            out.setdefault(r.uid, {}).update({k: v for k, v in r.props.items() if v is not None})
    return out


def load(path):
    report = LoadReport(str(path), "pegasus-stampede-db")
    return list(parse(path, report)), report


# ------------------------------------------------------------------ parsing, no database
@needs_corpus
def test_detects_stampede_sqlite_only():
    from lineage.sources.registry import formats

    assert detect(FAIL_DB).name == "pegasus-stampede-db"
    assert detect(FAIL_BP).name == "pegasus-bp"
    db_format = [f for f in formats() if f.name == "pegasus-stampede-db"][0]
    for other in (SAMPLES / "swift").iterdir():
        assert not db_format.detect(other, other.read_bytes()[:65536])


def test_detect_rejects_other_sqlite(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE workflow (x INTEGER)")
    conn.commit()
    conn.close()
    assert detect(other) is None


@needs_corpus
def test_process_wf_failure_oracle():
    recs, report = load(FAIL_DB)
    jobs = merged_nodes(recs, model.kind("Job"))
    assert len(jobs) == 5
    assert Counter(j["status"] for j in jobs.values()) == {
        "succeeded": 1, "failed": 1, "unsubmitted": 3}
    [failed] = [j for j in jobs.values() if j["status"] == "failed"]
    assert failed["job_id"] == "ls_ID0000001"
    assert failed["last_state"] == "POST_SCRIPT_FAILED"
    assert failed["attempts"] == 2 and failed["retries"] == 1
    invs = merged_nodes(recs, model.kind("Invocation"))
    task_invs = [i for i in invs.values() if i.get("task_id") == "ID0000001"]
    assert len(task_invs) == 2
    assert {i["exitcode"] for i in task_invs} == {2} and {i["exitcode_raw"] for i in task_invs} == {512}
    [wf] = merged_nodes(recs, model.kind("Workflow")).values()
    assert wf["exit_status"] == 1 and wf["status"] == "failed" and wf["wall_time"] == 96.0
    assert report.skipped == {} and report.warnings == []


@needs_corpus
def test_attempt_states_are_time_ordered_and_text_decoded():
    recs, _ = load(FAIL_DB)
    attempts = merged_nodes(recs, model.kind("JobInstance"))
    first = attempts[f"pegasus:job_instance:{FAIL_WF.split(':')[-1]}:ls_ID0000001:2"]
    assert first["states"][0] == "SUBMIT" and first["states"][-1] == "POST_SCRIPT_FAILED"
    assert first["state_times"] == sorted(first["state_times"])
    assert first["exitcode"] == 1 and first["hostname"] == "workflow.isi.edu"
    assert "/bin/ls: invalid option -- 'z'" in first["stdout_text"]
    assert "%0A" not in first["stderr_text"] and "\n" in first["stderr_text"]
    create = attempts[f"pegasus:job_instance:{FAIL_WF.split(':')[-1]}:create_dir_process_0_local:1"]
    # JOB_SUCCESS (seq 4) and POST_SCRIPT_STARTED (seq 5) share a timestamp: seq breaks the tie
    assert create["states"] == ["SUBMIT", "EXECUTE", "JOB_TERMINATED", "JOB_SUCCESS",
                                "POST_SCRIPT_STARTED", "POST_SCRIPT_TERMINATED",
                                "POST_SCRIPT_SUCCESS"]


@needs_corpus
def test_hierarchical_oracle():
    recs, _ = load(HIER_DB)
    jobs = merged_nodes(recs, model.kind("Job"))
    root = [j for j in jobs.values() if j["xwf_id"] == ROOT_WF.split(":")[-1]]
    sub = [j for j in jobs.values() if j["xwf_id"] == SUB_WF.split(":")[-1]]
    assert len(root) == 13 and len(sub) == 15
    root_status = Counter(j["status"] for j in root)
    assert root_status["succeeded"] == 9
    # pegasus-analyzer counts every job without a recorded outcome as unsubmitted: 4
    assert len(root) - root_status["succeeded"] - root_status["failed"] - root_status["held"] == 4
    # one of the two ended with no exit code (incomplete), one had not ended (running)
    assert root_status == {"succeeded": 9, "running": 1, "incomplete": 1, "unsubmitted": 2}
    assert Counter(j["status"] for j in sub) == {"succeeded": 15}
    started_by = {(e.start, e.end) for e in recs if isinstance(e, Edge) and e.rel is model.WAS_STARTED_BY}
    job = f"pegasus:job:{ROOT_WF.split(':')[-1]}:pegasus-plan_diamond_subworkflow"
    assert started_by == {(SUB_WF, job), (SUB_WF, f"pegasus:job_instance:{ROOT_WF.split(':')[-1]}"
                                                   ":pegasus-plan_diamond_subworkflow:5")}
    part_of = {(e.start, e.end) for e in recs if isinstance(e, Edge) and e.rel is model.PART_OF}
    assert (SUB_WF, ROOT_WF) in part_of
    wfs = merged_nodes(recs, model.kind("Workflow"))
    assert wfs[SUB_WF]["root_xwf_id"] == ROOT_WF.split(":")[-1]
    assert wfs[ROOT_WF]["status"] == "running" and wfs[SUB_WF]["status"] == "succeeded"


@needs_corpus
def test_replica_catalog_files_and_checksums():
    recs, _ = load(HIER_DB)
    files = merged_nodes(recs, model.kind("File"))
    assert len(files) == 13  # rc_lfn rows, attached to the one root workflow
    fd = files[f"pegasus:file:{ROOT_WF.split(':')[-1]}:f.d"]
    assert fd["pfn"].endswith("/outputs/local-site/f.d") and fd["site"] == "local"
    assert len(fd["checksum"]) == 64 and fd["meta_checksum_type"] == "sha256"


# ------------------------------------------------------------------ schema variations
def _damaged_db(path):
    """A Stampede database no Pegasus version wrote: no task / invocation / rc tables, and
    columns every schema version has are missing (workflow.dag_file_name, job_instance.site
    ...)."""
    conn = sqlite3.connect(path)
    conn.executescript("""
    CREATE TABLE workflow (wf_id INTEGER PRIMARY KEY, wf_uuid TEXT, dax_label TEXT,
                           parent_wf_id INTEGER, root_wf_id INTEGER);
    CREATE TABLE job (job_id INTEGER PRIMARY KEY, wf_id INTEGER, exec_job_id TEXT,
                      submit_file TEXT, type_desc TEXT, clustered INTEGER, max_retries INTEGER,
                      executable TEXT, argv TEXT, task_count INTEGER);
    CREATE TABLE job_instance (job_instance_id INTEGER PRIMARY KEY, job_id INTEGER,
                               host_id INTEGER, job_submit_seq INTEGER, exitcode INTEGER);
    CREATE TABLE jobstate (job_instance_id INTEGER, state TEXT, timestamp NUMERIC,
                           jobstate_submit_seq INTEGER, reason TEXT);
    CREATE TABLE file (file_id INTEGER PRIMARY KEY, task_id INTEGER, lfn TEXT);
    CREATE TABLE leftover (x INTEGER);
    INSERT INTO workflow VALUES (1, 'legacy-uuid', 'old', NULL, 1);
    INSERT INTO job VALUES (1, 1, 'a', 'a.sub', 'compute', 0, 3, '/bin/a', NULL, 1);
    INSERT INTO job VALUES (2, 1, 'b', 'b.sub', 'compute', 0, 3, '/bin/b', NULL, 1);
    INSERT INTO job_instance VALUES (1, 1, NULL, 1, NULL);
    INSERT INTO jobstate VALUES (1, 'SUBMIT', 10, 1, NULL);
    INSERT INTO jobstate VALUES (1, 'JOB_HELD', 11, 2, 'disk quota exceeded');
    INSERT INTO job_instance VALUES (2, 2, NULL, 2, 9);
    INSERT INTO jobstate VALUES (2, 'SUBMIT', 10, 1, NULL);
    INSERT INTO jobstate VALUES (2, 'JOB_FAILURE', 12, 2, NULL);
    INSERT INTO file VALUES (1, 7, 'f.a');
    """)
    conn.commit()
    conn.close()


def test_missing_columns_are_an_error_or_a_warning_naming_them(tmp_path):
    """Strict: an error naming the file, the table and the column. Lenient: loaded without
    them, each missing column named once in a warning and listed; the rows of a table that
    cannot be read (file, without its task table) are counted."""
    db = tmp_path / "damaged.stampede.db"
    _damaged_db(db)
    assert detect(db).name == "pegasus-stampede-db"
    with pytest.raises(ParseError, match=r"damaged.stampede.db:table workflow: expected a "
                                         r"column workflow.dag_file_name"):
        load(db)
    report = LoadReport(str(db), "pegasus-stampede-db", lenient=True)
    recs = list(parse(db, report))
    jobs = merged_nodes(recs, model.kind("Job"))
    assert jobs["pegasus:job:legacy-uuid:a"]["status"] == "held"
    assert jobs["pegasus:job:legacy-uuid:a"]["held_reason"] == "disk quota exceeded"
    b = jobs["pegasus:job:legacy-uuid:b"]
    assert b["status"] == "failed" and b["signal"] == 9 and "exitcode" not in b
    assert "workflow.dag_file_name" in report.extra["missing_columns"]
    assert "job_instance.sched_id" in report.extra["missing_columns"]
    assert any("table job_instance has no column site" in w for w in report.warnings)
    assert report.unknown == {"table leftover": 1}
    assert report.extra["orphan_rows"] == {"file": 1}
    assert "invocation" in report.extra["absent_tables"]
    assert not merged_nodes(recs, model.kind("Invocation"))


@needs_corpus
def test_workflow_files_give_file_lineage(tmp_path):
    db = failure_db_with_workflow_files(tmp_path)
    recs, _ = load(db)
    wf = FAIL_WF.split(":")[-1]
    task = f"pegasus:task:{wf}:ID0000001"
    used = {(e.start, e.end) for e in recs if isinstance(e, Edge) and e.rel is model.USED}
    made = {(e.start, e.end) for e in recs if isinstance(e, Edge) and e.rel is model.WAS_GENERATED_BY}
    assert used == {(task, f"pegasus:file:{wf}:input.txt")}
    assert made == {(f"pegasus:file:{wf}:listing.txt", task)}


def test_not_a_stampede_database_is_a_parse_error(tmp_path):
    db = tmp_path / "x.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE workflow (wf_id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(ParseError, match="missing job, job_instance, jobstate"):
        load(db)


@needs_corpus
def test_sqlite_is_opened_read_only(tmp_path):
    db = tmp_path / "ro.stampede.db"
    shutil.copy(FAIL_DB, db)
    before = db.read_bytes()
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import OperationalError

    engine = create_engine(sqlite_url(db))
    with pytest.raises(OperationalError, match="readonly"):
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM job"))
    engine.dispose()
    load(db)
    assert db.read_bytes() == before


# ------------------------------------------------------------------ in the graph
def count(lin, cypher, **params):
    return lin.query(cypher, params)[0]["n"]


@needs_corpus
def test_database_in_the_graph(lin):
    [result] = lin.load([FAIL_DB])
    assert result.status == "loaded" and result.format == "pegasus-stampede-db"
    assert result.write.unresolved_edges == 0
    rows = lin.query("MATCH (w:Workflow {uid: $wf})<-[:PART_OF]-(j:Job) "
                     "RETURN j.status AS status, count(*) AS n ORDER BY status", {"wf": FAIL_WF})
    assert {r["status"]: r["n"] for r in rows} == {"failed": 1, "succeeded": 1, "unsubmitted": 3}
    assert count(lin, "MATCH (:JobInstance)-[:INSTANCE_OF]->(j:Job {job_id: 'ls_ID0000001'}) "
                      "RETURN count(*) AS n") == 2


@needs_corpus
def test_database_url_loads_the_same(lin):
    [result] = lin.load([f"sqlite:///{FAIL_DB}"])
    assert result.status == "loaded"
    assert count(lin, "MATCH (j:Job) RETURN count(j) AS n") == 5


@needs_corpus
def test_bp_and_database_of_one_run_give_one_graph(lin):
    for db in (FAIL_DB, HIER_DB):
        lin.load([db])
    alone = (count(lin, "MATCH (n:Lineage) RETURN count(n) AS n"),
             count(lin, "MATCH (:Lineage)-[r]->(:Lineage) RETURN count(r) AS n"))
    lin.load([FAIL_BP, HIER_BP])
    assert count(lin, "MATCH (j:Job) RETURN count(j) AS n") == 5 + 13 + 15
    assert count(lin, "MATCH (t:Task) RETURN count(t) AS n") == 1 + 7
    assert count(lin, "MATCH (w:Workflow) RETURN count(w) AS n") == 3
    # the static.bp adds nothing new: same nodes, same edges (only properties such as type)
    assert (count(lin, "MATCH (n:Lineage) RETURN count(n) AS n"),
            count(lin, "MATCH (:Lineage)-[r]->(:Lineage) RETURN count(r) AS n")) == alone
    [job] = lin.query("MATCH (j:Job {job_id: 'ls_ID0000001'}) RETURN j.type AS type, "
                      "j.status AS status, j.attempts AS attempts")
    assert job == {"type": 1, "status": "failed", "attempts": 2}


@needs_corpus
def test_subworkflow_hangs_off_its_job_in_the_graph(lin):
    lin.load([HIER_DB])
    rows = lin.query("MATCH (sub:Workflow)-[:WAS_STARTED_BY]->(j:Job), (sub)-[:PART_OF]->(root:Workflow) "
                     "RETURN sub.uid AS sub, j.job_id AS job, root.uid AS root")
    assert rows == [{"sub": SUB_WF, "job": "pegasus-plan_diamond_subworkflow", "root": ROOT_WF}]


@needs_corpus
def test_text_that_is_not_utf8_is_a_clear_error(tmp_path):
    """Found by the fuzzer: a damaged database whose schema or a row holds bytes that are not
    UTF-8 stopped the load with a raw UnicodeDecodeError."""
    import shutil
    import sqlite3

    from lineage.errors import ParseError
    from lineage.sources.base import LoadReport
    from lineage.sources.pegasus import db as pegasus_db

    sample = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
    row = tmp_path / "row.stampede.db"
    shutil.copy(sample, row)
    with sqlite3.connect(row) as conn:
        conn.execute("UPDATE job SET argv = CAST(x'a2a2' AS TEXT)")
    schema = tmp_path / "schema.stampede.db"
    data = bytearray(sample.read_bytes())
    at = data.index(b"CREATE TABLE")
    data[at + 2] = 0xA2
    schema.write_bytes(bytes(data))
    for path in (row, schema):
        with pytest.raises(ParseError, match="UTF-8"):
            list(pegasus_db.parse(path, LoadReport(str(path), "pegasus-stampede-db")))
        lenient = LoadReport(str(path), "pegasus-stampede-db", lenient=True)
        list(pegasus_db.parse(path, lenient))
        assert lenient.skipped
