"""The demo campaign loaded by the normal loaders: every file read clean in strict mode,
the counts the campaign implies, the same bytes every generation, and the cross-system
chain (output -> job -> attempt -> binary -> libraries -> anomalies) after ``link``."""

from __future__ import annotations

import sqlite3

import pytest

from lineage.demo import campaign

from . import demo_scenario as demo


def count(lin, cypher: str, **params) -> int:
    return lin.query(cypher, **params)[0]["n"]


def table_contents(path) -> dict:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {t: sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))) for t in tables}
    finally:
        conn.close()


def test_two_generations_give_the_same_files(tmp_path):
    first, second = demo.write(tmp_path / "a"), demo.write(tmp_path / "b")
    names = [[p.relative_to(tmp_path / d) for p in demo.paths(w)]
             for d, w in (("a", first), ("b", second))]
    assert names[0] == names[1] and len(names[0]) == 38
    for a, b in zip(demo.paths(first), demo.paths(second)):
        if a.suffix == ".db":
            assert table_contents(a) == table_contents(b), a.name
        else:
            assert a.read_bytes() == b.read_bytes(), a.name
    assert campaign.build() == demo.CAMPAIGN


@pytest.fixture
def loaded(lin, tmp_path):
    written, results = demo.load(lin, tmp_path)
    return lin, written, results


def test_every_file_loads_clean_in_strict_mode_with_the_expected_counts(loaded):
    lin, written, results = loaded
    assert len(results) == len(demo.paths(written)) == 38
    for r in results:
        report = r.report
        assert r.status == "loaded", (r.path, r.status, r.error)
        assert (report["skipped"], report["unknown"], report["warning_count"]) == ({}, {}, 0), \
            r.path
    formats = sorted({r.format for r in results})
    assert formats == ["chimbuko-json", "pegasus-bp", "pegasus-stampede-db", "swift-log",
                       "xalt-json"]
    first, second = demo.workflow(demo.FIRST), demo.workflow(demo.SECOND)
    rows = {r["uid"]: r for r in lin.query("runs", kind="Workflow")}
    assert (rows[first]["status"], rows[second]["status"]) == ("succeeded", "failed")
    for run in (first, second):
        assert count(lin, "MATCH (:Workflow {uid: $run})<-[:PART_OF]-(j:Job) RETURN count(j) AS n",
                     run=run) == 7
    failed = lin.query("MATCH (:Workflow {uid: $run})<-[:PART_OF]-(j:Job {status: 'failed'}) "
                       "RETURN j.job_id AS job, j.attempts AS attempts", run=second)
    assert [(r["job"], r["attempts"]) for r in failed] == [(campaign.ANA, 2)]
    retried = lin.query(
        "MATCH (:Job {uid: $job})<-[:INSTANCE_OF]-(a:JobInstance) "
        "RETURN a.status AS status, a.exitcode AS code, a.hostname AS host, "
        "a.stdout_text AS text ORDER BY a.submit_seq", job=demo.job(demo.FIRST, campaign.FIND3))
    assert [(r["status"], r["host"]) for r in retried] == [
        ("failed", "c102.halcyon.example.org"), ("succeeded", "c103.halcyon.example.org")]
    assert retried[0]["code"] == 1 and "invalid option -- 'T'" in retried[0]["text"]
    task_exit = lin.query("MATCH (i:Invocation {uid: $uid}) RETURN i.exitcode_raw AS raw, "
                          "i.exitcode AS code", uid=demo.invocation(
                              demo.FIRST, demo.attempts(demo.FIRST, campaign.FIND3)[0]))
    assert [(r["raw"], r["code"]) for r in task_exit] == [(512, 2)]  # a raw wait status
    assert count(lin, "MATCH (x:Execution) RETURN count(x) AS n") == 13
    assert count(lin, "MATCH (x:Execution) WHERE x.has_start_record AND x.has_end_record "
                      "RETURN count(x) AS n") == 13
    assert count(lin, "MATCH (b:Build {has_link_record: true}) RETURN count(b) AS n") == 5
    assert count(lin, "MATCH (e:FunctionExecution:Anomaly)-[:PART_OF]->(:Rank)-[:PART_OF]->"
                      "(:ProgramRun {uid: $run}) RETURN count(e) AS n", run=demo.CHIMBUKO_RUN) == 9
    assert count(lin, "MATCH (r:Rank)-[:PART_OF]->(:ProgramRun {uid: $run}) "
                      "RETURN count(r) AS n", run=demo.CHIMBUKO_RUN) == 2
    assert count(lin, "MATCH ()-[m:SENT_MESSAGE]->() RETURN count(m) AS n") > 0
    calls = lin.query("MATCH (c:FunctionCall {type: 'execute'})-[:PART_OF]->(:ScriptRun {uid: "
                      "$run}) RETURN c.app_name AS app ORDER BY app", run=demo.SWIFT_RUN)
    assert [r["app"] for r in calls] == ["keg-plot", "keg-summarize"]
    assert count(lin, "MATCH (e:AppExecution) RETURN count(e) AS n") == 2


def test_links_form_and_the_chain_runs_from_output_to_anomalies(loaded):
    lin, _, _ = loaded
    result = lin.link()
    assert result.ambiguous == []
    assert {r: c["links"] for r, c in result.rules.items()} == {
        "scheduler_job": 11, "process": 10, "app_process": 2, "instrumented_run": 1,
        "instrumented_process": 0, "host_time": 0}
    links = {(r["start"], r["type"], r["end"]) for r in lin.query("link/existing")}
    analyze = demo.ANALYZE
    run_uid = demo.xalt(analyze.process)
    assert {(run_uid, "RAN_WITHIN", demo.attempt(demo.FIRST, analyze)),
            (demo.invocation(demo.FIRST, analyze), "SAME_ACTIVITY", run_uid),
            (demo.CHIMBUKO_RUN, "RAN_WITHIN", run_uid)} <= links
    for call in demo.SCRIPT.calls:
        assert (demo.app_execution(call), "SAME_ACTIVITY", demo.xalt(call.process)) in links
    # the chain from the workflow's output: f.d -> analyze -> its attempt -> the binary
    # XALT saw -> its libraries -> the anomalies Chimbuko found in that run
    [row] = [r for r in lin.query("cross/explain_output", uid=demo.file(demo.FIRST, "f.d"))
             if r["how"] == "same process"]
    assert row["producer"] == demo.task(demo.FIRST, "ID0000004")
    assert row["attempt"] == demo.attempt(demo.FIRST, analyze)
    assert row["execution"] == run_uid and row["executable_path"] == "/opt/keg/bin/analyze"
    assert {"path": campaign.LIBKEG.path, "sha1": campaign.LIBKEG.sha1} in row["libraries_loaded"]
    assert row["anomaly_count"] == 9
    assert {a["function"] for a in row["top_anomalies"]} <= set(campaign.ANALYZE_FUNCTIONS)
    chain = [r for r in lin.query("cross/run_chain", run=demo.workflow(demo.FIRST))
             if r["how"] == "same process"]
    assert [(r["job"], r["anomaly_count"]) for r in chain] == [
        (campaign.ANA, 9), (campaign.FIND2, 0), (campaign.FIND3, 0), (campaign.FIND3, 0),
        (campaign.PRE, 0)]
    # why the first findrange attempt failed, as XALT saw it: another build at that path
    failed, retry = (r for r in chain if r["job"] == campaign.FIND3)
    assert failed["executable_sha1"] == campaign.FINDRANGE_OLD.sha1 != retry["executable_sha1"]
    assert campaign.LIBKEG_OLD.path in failed["libraries"]


def test_xalt_says_failed_exactly_for_the_programs_that_exited_non_zero(loaded):
    """The campaign's program exit codes reach the graph through XALT's end records: a run
    XALT tracked is failed exactly when its program exited non-zero."""
    lin, _, _ = loaded
    tracked = [p for p in demo.CAMPAIGN.processes() if p.tracked]
    rows = {r["uid"]: (r["status"], r["exit"]) for r in lin.query(
        "MATCH (e:Execution) RETURN e.uid AS uid, e.status AS status, e.exit_status AS exit")}
    expected = {demo.xalt(p): ("failed" if p.exit_code else "succeeded", p.exit_code)
                for p in tracked}
    assert rows == expected
    assert sum(1 for status, _ in rows.values() if status == "failed") >= 2
