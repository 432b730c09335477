"""The Pegasus templates on the real Stampede samples (and variations made from them)."""

import shutil
import sqlite3

import pytest

from .conftest import SAMPLES
from .pegasus_fixtures import failure_db_with_workflow_files
from .corpus import needs_corpus

PEGASUS = SAMPLES / "pegasus"
FAIL_DB = PEGASUS / "process_wf_failure.stampede.db"
HIER_DB = PEGASUS / "hierarchical_wf_success.stampede.db"
FAIL_UUID = "f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
FAIL_WF = f"pegasus:workflow:{FAIL_UUID}"
ROOT_WF = "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
SUB_WF = "pegasus:workflow:160be601-bda4-45fb-86cd-9cf7a269bb22"


@needs_corpus
def test_failed_jobs_on_process_wf_failure(lin):
    lin.load([FAIL_DB])
    rows = lin.query("pegasus/failed_jobs", workflow=FAIL_WF)
    assert [(r["job_id"], r["status"]) for r in rows] == [
        ("ls_ID0000001", "failed"),
        ("cleanup_process_0_local", "unsubmitted"),
        ("register_local_0_0", "unsubmitted"),
        ("stage_out_local_local_0_0", "unsubmitted"),
    ]
    ls = rows[0]
    assert ls["attempts"] == 2 and ls["last_state"] == "POST_SCRIPT_FAILED"
    assert ls["exitcode"] == 2 and ls["signal"] is None  # the task's, not the post script's 1
    assert ls["host"] == "workflow.isi.edu" and "invalid option" in ls["stdout"]
    assert "User task failed with exitcode 2" in ls["stderr"]
    # every job that never ran is explained by the failed job upstream of it
    assert {r["blocked_by"] for r in rows[1:]} == {"ls_ID0000001"}
    assert ls["blocked_by"] is None


@needs_corpus
def test_failed_jobs_recurses_into_subworkflows(lin, tmp_path):
    db = tmp_path / "hier.stampede.db"
    shutil.copy(HIER_DB, db)
    conn = sqlite3.connect(db)  # make one sub-workflow job fail, one be held
    conn.execute("UPDATE job_instance SET exitcode = 256 WHERE job_instance_id = 19")
    conn.execute("INSERT INTO jobstate VALUES (16, 'JOB_HELD', 1677920700, 9, 'out of memory')")
    # a held attempt has not ended: no exit code (a recorded exit code decides the outcome)
    conn.execute("UPDATE job_instance SET exitcode = NULL WHERE job_instance_id = 16")
    conn.commit()
    conn.close()
    lin.load([db])
    flat = lin.query("pegasus/failed_jobs", workflow=ROOT_WF)
    assert {r["job_id"] for r in flat} == {"cleanup_hierarchical-workflow_0_local", "register_local_2_0"}
    assert all(r["workflow"] == ROOT_WF for r in flat)
    deep = lin.query("pegasus/failed_jobs", workflow=ROOT_WF, recursive=True)
    sub = {r["job_id"]: r for r in deep if r["workflow"] == SUB_WF}
    assert sub["analyze_ID0000004"]["status"] == "failed"
    assert sub["findrange_ID0000002"]["status"] == "held"
    assert sub["findrange_ID0000002"]["held_reason"] == "out of memory"
    assert len(deep) == len(flat) + 2


@needs_corpus
def test_statistics_summary(lin):
    lin.load([FAIL_DB, HIER_DB])
    [s] = lin.query("pegasus/statistics", workflow=FAIL_WF)
    assert (s["jobs_total"], s["jobs_succeeded"], s["jobs_failed"], s["jobs_unsubmitted"]) == (5, 1, 1, 3)
    assert s["job_retries"] == 1 and s["jobs_incomplete"] == 3
    assert s["workflow_wall_time"] == 96.0 and s["status"] == "failed"
    assert (s["tasks_total"], s["tasks_succeeded"], s["tasks_failed"], s["task_retries"]) == (1, 0, 1, 1)
    # kickstart durations of the task invocations (inv_id >= 0): 2.22 + 0.003 + 0.003
    assert s["cumulative_job_wall_time"] == pytest.approx(2.226)
    assert s["cumulative_badput"] == pytest.approx(0.006)
    [root] = lin.query("pegasus/statistics", workflow=ROOT_WF)
    assert (root["jobs_total"], root["jobs_succeeded"], root["jobs_incomplete"]) == (12, 8, 4)  # not the dag job
    assert (root["subworkflows_total"], root["subworkflows_succeeded"]) == (1, 1)
    [deep] = lin.query("pegasus/statistics", workflow=ROOT_WF, recursive=True)
    assert (deep["jobs_total"], deep["jobs_succeeded"], deep["workflows"]) == (27, 23, 2)


@needs_corpus
def test_statistics_count_a_task_killed_by_a_signal_as_failed(lin, tmp_path):
    """exitcode is null when a signal ended the task: the task is failed (pegasus-statistics
    counts every non-zero raw status failed), not neither failed nor succeeded."""
    from .pegasus_oracle_compare import signalled_task_db

    lin.load([signalled_task_db(tmp_path)])
    [s] = lin.query("pegasus/statistics", workflow=FAIL_WF)
    assert (s["tasks_total"], s["tasks_succeeded"], s["tasks_failed"], s["tasks_incomplete"]) == (
        1, 0, 1, 0)
    rows = lin.query("pegasus/transformation_statistics", workflow=FAIL_WF)
    assert [(r["count"], r["succeeded"], r["failed"]) for r in rows
            if r["transformation"] == "ls"] == [(2, 0, 2)]


@needs_corpus
def test_statistics_report_subworkflow_retries(lin, tmp_path):
    """pegasus-statistics' "Sub-Workflows Retries": the extra attempts of sub-workflow jobs."""
    from .pegasus_oracle_compare import retried_subworkflow_db

    lin.load([retried_subworkflow_db(tmp_path)])
    [s] = lin.query("pegasus/statistics", workflow=ROOT_WF)
    assert (s["subworkflows_total"], s["subworkflows_succeeded"], s["subworkflow_retries"],
            s["subworkflows_incomplete"]) == (1, 1, 1, 0)
    assert s["job_retries"] == 0


@needs_corpus
def test_transformation_and_host_statistics(lin):
    lin.load([HIER_DB])
    rows = {r["transformation"]: r for r in lin.query("pegasus/transformation_statistics",
                                                        workflow=SUB_WF)}
    fr = rows["findrange"]
    assert fr["count"] == 2 and fr["succeeded"] == 2 and fr["failed"] == 0
    assert fr["min"] == pytest.approx(20.005) and fr["total"] == pytest.approx(40.01)
    assert rows["pegasus::transfer"]["count"] == 7
    hosts = lin.query("pegasus/host_statistics", workflow=SUB_WF)
    assert {(h["host"], h["site"]) for h in hosts} == {("workflow.isi.edu", "local"),
                                                       ("workflow.isi.edu", "condorpool")}
    assert sum(h["attempts"] for h in hosts) == 15
    condor = [h for h in hosts if h["site"] == "condorpool"][0]
    assert condor["attempts"] == 4 and condor["runtime"] == pytest.approx(80.021)


@needs_corpus
def test_critical_path_of_the_diamond(lin):
    lin.load([HIER_DB])
    path = lin.query("pegasus/critical_path", workflow=SUB_WF)
    ids = [r["job_id"] for r in path]
    assert ids[0] == "create_dir_blackdiamond_0_local"
    assert "preprocess_ID0000001" in ids and "analyze_ID0000004" in ids
    assert ids.index("preprocess_ID0000001") < ids.index("analyze_ID0000004")
    # consecutive steps are real dependencies, and the total is the sum of the steps
    for child, parent in zip(path[1:], path):
        assert lin.query("MATCH (:Job {uid: $c})-[r:WAS_INFORMED_BY]->(:Job {uid: $p}) "
                         "RETURN count(r) AS n", {"c": child["job_uid"], "p": parent["job_uid"]})[0]["n"] == 1
    assert path[-1]["total"] == pytest.approx(sum(r["duration"] for r in path))
    # no other chain is longer: check against every dependency chain computed in Python
    jobs = lin.query("pegasus/workflow_jobs", workflow=SUB_WF)
    dur = {j["uid"]: (j["duration"] or 0.0) for j in jobs}
    parents = {j["uid"]: j["parents"] for j in jobs}
    memo = {}

    def longest(uid):
        if uid not in memo:
            memo[uid] = dur[uid] + max((longest(p) for p in parents[uid]), default=0.0)
        return memo[uid]

    assert path[-1]["total"] == pytest.approx(max(longest(u) for u in dur))


def _second_run(tmp_path):
    """The same workflow run again: ls now succeeds on another host, cleanup is gone and a
    new job is added."""
    db = tmp_path / "run2.stampede.db"
    shutil.copy(FAIL_DB, db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE workflow SET wf_uuid = 'second-run'")
    conn.execute("INSERT INTO host VALUES (3, 1, 'condorpool', 'node7', '10.0.0.7', NULL, NULL)")
    conn.execute("UPDATE job_instance SET exitcode = 0, host_id = 3 WHERE job_instance_id = 3")
    conn.execute("DELETE FROM jobstate WHERE job_instance_id = 3 AND state = 'POST_SCRIPT_FAILED'")
    conn.execute("DELETE FROM job WHERE exec_job_id = 'cleanup_process_0_local'")
    conn.execute("INSERT INTO job VALUES (9, 1, 'extra_job', 'x.sub', 'compute', 0, 1, '/bin/x', NULL, 1)")
    conn.commit()
    conn.close()
    return db


@needs_corpus
def test_compare_runs(lin, tmp_path):
    lin.load([FAIL_DB, _second_run(tmp_path)])
    rows = lin.query("pegasus/compare_runs", first=FAIL_WF, second="pegasus:workflow:second-run")
    by_id = {r["job_id"]: r for r in rows}
    assert by_id["extra_job"]["change"] == "added"
    assert by_id["cleanup_process_0_local"]["change"] == "removed"
    ls = by_id["ls_ID0000001"]
    assert ls["change"] == "changed" and ls["same_label"] is True
    assert (ls["status_first"], ls["status_second"]) == ("failed", "succeeded")
    assert (ls["host_first"], ls["host_second"]) == ("workflow.isi.edu", "node7")
    assert "create_dir_process_0_local" not in by_id  # unchanged
    everything = lin.query("pegasus/compare_runs", first=FAIL_WF,
                           second="pegasus:workflow:second-run", all=True)
    assert len(everything) == 6


@needs_corpus
def test_file_lineage(lin, tmp_path):
    db = failure_db_with_workflow_files(tmp_path)
    lin.load([db])
    [made] = lin.query("pegasus/file_lineage", lfn="listing.txt")
    assert made["role"] == "produced" and made["job_id"] == "ls_ID0000001"
    assert made["task_id"] == "ID0000001" and made["workflow"] == FAIL_WF
    assert made["checksum"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    [used] = lin.query("pegasus/file_lineage", lfn="input.txt", workflow=FAIL_WF)
    assert used["role"] == "consumed" and used["job_id"] == "ls_ID0000001"
    assert lin.query("pegasus/file_lineage", lfn="input.txt", workflow=ROOT_WF) == []


@needs_corpus
def test_file_without_known_jobs_is_listed_once(lin):
    lin.load([HIER_DB])
    [row] = lin.query("pegasus/file_lineage", lfn="f.d")
    assert row["role"] is None and row["pfn"].endswith("/f.d") and len(row["checksum"]) == 64


@needs_corpus
def test_attempts_and_subworkflows(lin):
    lin.load([FAIL_DB, HIER_DB])
    tries = lin.query("pegasus/attempts", workflow=FAIL_WF)
    assert [(r["job_id"], r["attempt"], r["status"]) for r in tries] == [
        ("ls_ID0000001", 1, "failed"), ("ls_ID0000001", 2, "failed")]
    assert len(lin.query("pegasus/attempts", workflow=FAIL_WF, all=True)) == 3
    [sub] = lin.query("pegasus/subworkflows", workflow=ROOT_WF)
    assert sub["uid"] == SUB_WF and sub["started_by_job"] == "pegasus-plan_diamond_subworkflow"
    assert sub["started_by_attempt"] == 5 and sub["depth"] == 1
    assert (sub["jobs"], sub["jobs_succeeded"], sub["status"]) == (15, 15, "succeeded")


def _hits(plan):
    return plan.get("dbHits", 0) + sum(_hits(c) for c in plan.get("children", []))


def test_blocked_by_search_prunes_on_a_wide_diamond(lin):
    """12 layers of 10 fully connected jobs (10**11 paths): the upstream search for the job
    that blocked the never-submitted one must cost in proportion to nodes and edges."""
    from lineage.query import templates

    width, layers = 10, 12
    jobs = [{"uid": f"d:{layer}:{i}", "status": "failed" if layer == layers - 1 else "running"}
            for layer in range(layers) for i in range(width)]
    lin.graph.run("CREATE (:Lineage:Activity:Workflow:Run {uid: 'wf:d'})", {}, write=True)
    lin.graph.run("MATCH (w:Workflow {uid: 'wf:d'}) UNWIND $rows AS r "
                  "CREATE (j:Lineage:Activity:Job {uid: r.uid, job_id: r.uid, status: r.status})"
                  "-[:PART_OF]->(w) "
                  "CREATE (:Lineage:Activity:JobInstance {uid: r.uid + '#1', submit_seq: 1, "
                  "status: r.status})-[:INSTANCE_OF]->(j)", {"rows": jobs}, write=True)
    lin.graph.run("MATCH (w:Workflow {uid: 'wf:d'}) "
                  "CREATE (:Lineage:Activity:Job {uid: 'd:top', job_id: 'd:top'})-[:PART_OF]->(w)",
                  {}, write=True)
    edges = [{"a": f"d:{layer}:{i}", "b": f"d:{layer + 1}:{j}"}
             for layer in range(layers - 1) for i in range(width) for j in range(width)]
    edges += [{"a": "d:top", "b": f"d:0:{i}"} for i in range(width)]
    lin.graph.run("UNWIND $rows AS r MATCH (a:Lineage {uid: r.a}), (b:Lineage {uid: r.b}) "
                  "CREATE (a)-[:WAS_INFORMED_BY]->(b)", {"rows": edges}, write=True)
    t = templates.get("pegasus/failed_jobs")
    from neo4j import Query

    # an enumeration of the 10**11 paths would never end: the server stops it after 60 s
    result = lin.graph.driver.execute_query(Query("PROFILE " + t.text, timeout=60),
                                            t.bind({"workflow": "wf:d"}))
    top = [r for r in result.records if r["job_id"] == "d:top"][0]
    assert top["status"] == "unsubmitted" and top["blocked_by"] == f"d:{layers - 1}:0"
    assert len(result.records) == width + 1
    # one breadth-first sweep per failed job (10 here): hits grow with failed x (nodes + edges)
    failed = sum(1 for j in jobs if j["status"] == "failed")
    assert _hits(result.summary.profile) < 8 * failed * (len(jobs) * 2 + len(edges))
