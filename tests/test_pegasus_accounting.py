"""Pegasus readers account for all input: every BP event and every Stampede row they do not
turn into graph facts is counted by reason (``ignored_events``, ``orphan_rows``,
``rows_without_id``), and damage in a database gets one warning per table."""

import shutil
import sqlite3

import pytest

from lineage.model.records import Edge, Node
from lineage.sources.base import LoadReport
from lineage.sources.pegasus import bp, db, jsonl

from .conftest import SAMPLES
from .pegasus_fixtures import failure_db_with_workflow_files
from .corpus import needs_corpus

PEGASUS = SAMPLES / "pegasus"
FAIL_DB = PEGASUS / "process_wf_failure.stampede.db"
SAMPLE_DBS = sorted(PEGASUS.glob("*.stampede.db"))
SAMPLE_BPS = sorted(PEGASUS.glob("*.bp"))
READ_TABLES = ("workflow", "workflowstate", "workflow_meta", "host", "task", "task_edge",
               "task_meta", "job_edge", "job", "job_instance", "jobstate", "invocation", "tag",
               "integrity", "rc_lfn", "rc_pfn", "rc_meta", "workflow_files")


def read_db(path, lenient=False):
    report = LoadReport(str(path), "pegasus-stampede-db", lenient=lenient)
    return list(db.parse(path, report)), report


def damaged(tmp_path, *statements, source=FAIL_DB):
    """A copy of a sample Stampede database with ``statements`` applied."""
    path = tmp_path / "damaged.stampede.db"
    shutil.copy(source, path)
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def table_rows(path) -> dict:
    """Rows per table the reader reads (tables with rows only)."""
    conn = sqlite3.connect(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                  for t in READ_TABLES if t in tables}
    finally:
        conn.close()
    return {t: n for t, n in counts.items() if n}


def facts(records) -> set:
    """The records as comparable facts."""
    out = set()
    for r in records:
        if isinstance(r, Node):
            out.add(("node", r.uid, repr(sorted(r.props.items()))))
        elif isinstance(r, Edge):
            out.add(("edge", r.rel.name, r.start, r.end, repr(sorted((r.props or {}).items()))))
    return out


def drop_warnings(report, table):
    return [w for w in report.warnings if f" {table} row" in w]


# ------------------------------------------------------------------ untouched samples
@needs_corpus
@pytest.mark.parametrize("path", SAMPLE_DBS, ids=lambda p: p.name)
def test_samples_have_no_orphans_and_every_row_is_read(path):
    _, report = read_db(path)
    assert "orphan_rows" not in report.extra
    assert "rows_without_id" not in report.extra
    assert report.warnings == [] and dict(report.skipped) == {}
    assert report.extra["rows"] == table_rows(path)


# ------------------------------------------------------------------ orphan rows
@needs_corpus
def test_jobstate_of_a_missing_job_instance(tmp_path):
    path = damaged(tmp_path, *(
        f"INSERT INTO jobstate VALUES (9999, 'SUBMIT', 1677913789, {seq}, NULL)"
        for seq in (1, 2, 3)))
    records, report = read_db(path)
    assert report.extra["orphan_rows"] == {"jobstate": 3}
    assert report.extra["rows"] == table_rows(path)  # read + orphans = every row
    [warning] = drop_warnings(report, "jobstate")
    assert "3 orphan jobstate rows" in warning and "job_instance_id 9999" in warning
    assert str(path) in warning
    assert report.warning_count == 1 and dict(report.skipped) == {}  # strict: not refused
    assert facts(records) == facts(read_db(FAIL_DB)[0])  # the intact rows load as before


@needs_corpus
def test_job_of_a_missing_workflow_and_everything_under_it(tmp_path):
    path = damaged(
        tmp_path,
        "INSERT INTO job VALUES (77, 42, 'ghost_job', 'ghost.sub', 'compute', 0, 1, "
        "'/bin/true', NULL, 1)",
        "INSERT INTO job_instance (job_instance_id, job_id, job_submit_seq, "
        "multiplier_factor) VALUES (70, 77, 1, 1)",
        "INSERT INTO jobstate VALUES (70, 'SUBMIT', 1677913789, 1, NULL)",
        "INSERT INTO jobstate VALUES (70, 'EXECUTE', 1677913790, 2, NULL)",
        "INSERT INTO invocation (invocation_id, wf_id, job_instance_id, task_submit_seq, "
        "start_time, remote_duration, exitcode, transformation, executable) "
        "VALUES (700, 42, 70, 1, 1677913790, 1.0, 0, 'true', '/bin/true')",
        "INSERT INTO integrity VALUES (700, 42, 70, 'compute', 'output', 1, 0)",
        "INSERT INTO workflowstate (wf_id, state, timestamp, restart_count, status) "
        "VALUES (42, 'WORKFLOW_STARTED', 1677913780, 0, NULL)",
        "INSERT INTO workflow_meta VALUES (42, 'owner', 'nobody')",
        "INSERT INTO job_edge VALUES (42, 'ghost_job', 'other_job')",
        "INSERT INTO task_edge VALUES (42, 'ID1', 'ID2')",
    )
    records, report = read_db(path)
    assert report.extra["orphan_rows"] == {
        "job": 1, "job_instance": 1, "jobstate": 2, "invocation": 1, "integrity": 1,
        "workflowstate": 1, "workflow_meta": 1, "job_edge": 1, "task_edge": 1}
    assert report.extra["rows"] == table_rows(path)
    for table, n in report.extra["orphan_rows"].items():
        [warning] = drop_warnings(report, table)  # one per table, not one per row
        assert f"{n} orphan {table} row" in warning and "wf_id 42" in warning
    assert "ghost_job" in drop_warnings(report, "job")[0]
    assert not any("ghost" in str(r.uid if isinstance(r, Node) else r.start) for r in records)
    assert facts(records) == facts(read_db(FAIL_DB)[0])


@needs_corpus
def test_attempt_of_a_missing_job(tmp_path):
    """A job_instance whose job row is gone takes its states, invocations and integrity
    rows with it: the join drops them, the reader counts them."""
    path = damaged(
        tmp_path,
        "INSERT INTO job_instance (job_instance_id, job_id, job_submit_seq, "
        "multiplier_factor) VALUES (80, 555, 1, 1)",
        "INSERT INTO jobstate VALUES (80, 'SUBMIT', 1677913789, 1, NULL)",
        "INSERT INTO invocation (invocation_id, wf_id, job_instance_id, task_submit_seq, "
        "start_time, remote_duration, exitcode, transformation, executable) "
        "VALUES (800, 1, 80, 1, 1677913790, 1.0, 0, 'true', '/bin/true')",
        "INSERT INTO integrity VALUES (800, 1, 80, 'compute', 'output', 1, 0)",
        "INSERT INTO tag VALUES (800, 1, 80, 'x', 1)",
    )
    records, report = read_db(path)
    assert report.extra["orphan_rows"] == {
        "job_instance": 1, "jobstate": 1, "invocation": 1, "integrity": 1, "tag": 1}
    assert report.extra["rows"] == table_rows(path)
    assert "job_id 555" in drop_warnings(report, "job_instance")[0]
    assert "job_instance_id 80" in drop_warnings(report, "invocation")[0]
    assert facts(records) == facts(read_db(FAIL_DB)[0])


@needs_corpus
def test_orphans_of_task_and_file_tables(tmp_path):
    source = failure_db_with_workflow_files(tmp_path)  # files.stampede.db: task 1, rc_lfn 1-2
    path = damaged(
        tmp_path,
        "INSERT INTO task_meta VALUES (404, 'k', 'v')",
        "INSERT INTO workflow_files VALUES (1, 404, 1, 'input')",  # no task 404
        "INSERT INTO workflow_files VALUES (1, 1, 505, 'input')",  # no rc_lfn 505
        "INSERT INTO workflow_files VALUES (42, 1, 2, 'output')",  # no workflow 42
        "INSERT INTO rc_pfn VALUES (900, 505, 'file:///x', 'local')",
        "INSERT INTO rc_meta VALUES (505, 'size', '3')",
        source=source,
    )
    records, report = read_db(path)
    assert report.extra["orphan_rows"] == {
        "task_meta": 1, "workflow_files": 3, "rc_pfn": 1, "rc_meta": 1}
    assert report.extra["rows"] == table_rows(path)
    assert "task_id 404" in drop_warnings(report, "task_meta")[0]
    assert "lfn_id 505" in drop_warnings(report, "rc_pfn")[0]
    assert facts(records) == facts(read_db(source)[0])


@needs_corpus
def test_strict_mode_is_unchanged_for_orphans(tmp_path):
    path = damaged(tmp_path, "INSERT INTO jobstate VALUES (9999, 'SUBMIT', 1, 1, NULL)")
    strict, lenient = read_db(path), read_db(path, lenient=True)
    assert facts(strict[0]) == facts(lenient[0])
    assert strict[1].extra["orphan_rows"] == lenient[1].extra["orphan_rows"] == {"jobstate": 1}
    assert dict(strict[1].skipped) == dict(lenient[1].skipped) == {}


# ------------------------------------------------------------------ rows without an id
@needs_corpus
def test_rows_without_id(tmp_path):
    path = damaged(
        tmp_path,
        "INSERT INTO host VALUES (30, 1, 'local', '', '10.0.0.1', NULL, NULL)",
        "INSERT INTO task VALUES (31, 1, NULL, '', 'true', NULL, 'compute')",
    )
    records, report = read_db(path)
    assert report.extra["rows_without_id"] == {"host": 1, "task": 1}
    assert "orphan_rows" not in report.extra
    assert report.extra["rows"] == table_rows(path)
    assert "host_id 30" in drop_warnings(report, "host")[0]
    [task_warning] = drop_warnings(report, "task")
    assert "1 task row " in task_warning and "task_id 31: no abs_task_id" in task_warning
    assert report.warning_count == 2
    assert facts(records) == facts(read_db(FAIL_DB)[0])


@needs_corpus
def test_warnings_per_table_do_not_grow_with_the_rows(tmp_path):
    path = damaged(tmp_path, *(
        f"INSERT INTO jobstate VALUES ({1000 + i}, 'SUBMIT', 1, 1, NULL)" for i in range(200)))
    _, report = read_db(path)
    assert report.extra["orphan_rows"] == {"jobstate": 200}
    assert report.warning_count == 1
    assert "job_instance_id 1000" in report.warnings[0]


# ------------------------------------------------------------------ BP and JSON streams
STATIC = ('ts=2023-03-04T07:09:39.000000Z event=static.meta.start level=INFO '
          'xwf.id=w\n'
          'ts=2023-03-04T07:09:39.000000Z event=job.info level=INFO xwf.id=w job.id=j '
          'type=1 type_desc=compute\n'
          'ts=2023-03-04T07:09:39.000000Z event=static.meta.end level=INFO xwf.id=w\n'
          'ts=2023-03-04T07:09:39.000000Z event=stampede.static.start level=INFO\n'
          'ts=2023-03-04T07:09:39.000000Z event=stampede.static.end level=INFO\n'
          'ts=2023-03-04T07:09:39.000000Z event=job_inst.submit.start.ignored level=INFO\n')


def test_bp_ignored_events_are_counted():
    report = LoadReport("x.bp", "pegasus-bp")
    records = list(bp.parse_lines(STATIC.splitlines(), report))
    assert report.extra["ignored_events"] == {
        "static.meta.start": 1, "static.meta.end": 1, "static.start": 1, "static.end": 1,
        "job_inst.submit.start.ignored": 1}
    assert dict(report.unknown) == {} and dict(report.skipped) == {}
    assert report.extra["events"] == {"job.info": 1}
    assert any(isinstance(r, Node) and r.uid == "pegasus:job:w:j" for r in records)


def test_json_ignored_events_are_counted(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"event": "stampede.static.start", "ts": 1}\n'
                    '{"event": "stampede.job.info", "ts": 1, "xwf_id": "w", "job_id": "j"}\n'
                    '{"event": "stampede.static.end", "ts": 2}\n')
    report = LoadReport(str(path), "pegasus-json")
    list(jsonl.parse(path, report))
    assert report.extra["ignored_events"] == {"static.start": 1, "static.end": 1}
    assert report.extra["events"] == {"job.info": 1}


@needs_corpus
@pytest.mark.parametrize("path", SAMPLE_BPS, ids=lambda p: p.name)
def test_bp_samples_account_for_every_event_line(path):
    report = LoadReport(str(path), "pegasus-bp")
    list(bp.parse(path, report))
    events = sum(1 for line in path.read_text(encoding="utf-8").splitlines()
                 if line.strip() and not line.lstrip().startswith("#"))
    counted = (sum(n for k, n in report.extra["events"].items() if k != "older key spellings")
               + sum(report.extra.get("ignored_events", {}).values())
               + sum(report.unknown.values()) + sum(report.skipped.values()))
    assert counted == events
