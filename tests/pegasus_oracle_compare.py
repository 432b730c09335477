"""Run Pegasus's own tools (tests/oracle/pegasus_oracle.py in .venv-oracle) and compare our
Pegasus templates with what they compute.

Each ``*_differences`` function returns a list of ``(what, ours, pegasus)`` tuples, one per
number or list that differs, so a test can state exactly which differences it expects.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from .conftest import REPO, SAMPLES

ORACLE_PYTHON = REPO / ".venv-oracle" / "bin" / "python"
DRIVER = Path(__file__).resolve().parent / "oracle" / "pegasus_oracle.py"
PEGASUS = SAMPLES / "pegasus"
BLACKDIAMOND_BP = PEGASUS / "blackdiamond-4.0.bp"
FAIL_DB = PEGASUS / "process_wf_failure.stampede.db"
HIER_DB = PEGASUS / "hierarchical_wf_success.stampede.db"


#: wf.plan keys from workflow columns (what monitord puts on the event).
PLAN_KEYS = {"wf_uuid": "xwf.id", "dax_label": "dax.label", "dax_version": "dax.version",
             "dax_file": "dax.file", "dag_file_name": "dag.file.name",
             "submit_hostname": "submit.hostname", "submit_dir": "submit.dir",
             "planner_version": "planner.version", "user": "user",
             "planner_arguments": "argv"}


def bp_time(seconds) -> str:
    """An epoch time as a BP timestamp.

    >>> bp_time(0)
    '1970-01-01T00:00:00.000000Z'
    """
    return datetime.fromtimestamp(float(seconds), timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def plan_event(wf) -> str:
    """The wf.plan line monitord sends for a ``workflow`` row (a root workflow)."""
    def quoted(value) -> str:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'

    keys = " ".join(f"{key}={quoted(wf[column])}" for column, key in PLAN_KEYS.items()
                    if wf[column] is not None)
    return (f"ts={bp_time(wf['timestamp'])} event=stampede.wf.plan {keys} "
            f"root.xwf.id={wf['wf_uuid']}")


def with_plan(static_bp: Path, db: Path, tmp_path: Path) -> Path:
    """A planner's ``.static.bp`` as monitord sends it: after the run's ``wf.plan`` (which
    monitord makes from braindump.txt; here from the run's root ``workflow`` row in ``db``)."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        plans = [plan_event(wf) for wf in
                 conn.execute("SELECT * FROM workflow WHERE parent_wf_id IS NULL")]
    finally:
        conn.close()
    stream = tmp_path / static_bp.name
    stream.write_text("\n".join(plans) + "\n" + static_bp.read_text(encoding="utf-8"),
                      encoding="utf-8")
    return stream


def run_oracle(*args) -> dict:
    """The JSON the oracle driver prints for ``args`` (a command and its paths)."""
    if not ORACLE_PYTHON.exists():
        pytest.fail(f"{ORACLE_PYTHON} is missing: run `bash scripts/setup.sh` (it makes .venv-oracle)")
    done = subprocess.run([str(ORACLE_PYTHON), str(DRIVER), *map(str, args)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"pegasus_oracle.py {args[0]} failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


def restarted_and_held_db(tmp_path: Path) -> Path:
    """process_wf_failure.stampede.db made to hold the cases issue 12 names:

    - the workflow was restarted once (a second start/end pair 100 s long, a day later);
    - create_dir_process_0_local was held and released before it succeeded;
    - the last attempt of ls_ID0000001 is held (SUBMIT, EXECUTE, JOB_HELD; no exit code, no
      invocation yet), after a failed first attempt;
    - stage_out_local_local_0_0 was submitted and removed (SUBMIT, JOB_ABORTED; no exit code):
      a failed last state without an exit code, which pegasus-statistics and pegasus-analyzer
      count as neither succeeded nor failed.
    """
    db = tmp_path / "restarted_held.stampede.db"
    shutil.copy(FAIL_DB, db)
    conn = sqlite3.connect(db)
    conn.executescript("""
        INSERT INTO workflowstate VALUES (1, 'WORKFLOW_STARTED', 1678000000, 1, NULL, NULL);
        INSERT INTO workflowstate VALUES (1, 'WORKFLOW_TERMINATED', 1678000100, 1, 1, NULL);
        UPDATE jobstate SET jobstate_submit_seq = jobstate_submit_seq + 2
         WHERE job_instance_id = 1 AND jobstate_submit_seq >= 3;
        INSERT INTO jobstate VALUES (1, 'JOB_HELD', 1677913794, 3, 'disk quota exceeded');
        INSERT INTO jobstate VALUES (1, 'JOB_RELEASED', 1677913795, 4, NULL);
        DELETE FROM jobstate WHERE job_instance_id = 3 AND jobstate_submit_seq > 2;
        INSERT INTO jobstate VALUES (3, 'JOB_HELD', 1677913876, 3, 'out of memory');
        DELETE FROM invocation WHERE job_instance_id = 3;
        UPDATE job_instance SET exitcode = NULL, local_duration = NULL WHERE job_instance_id = 3;
        INSERT INTO job_instance (job_instance_id, job_id, job_submit_seq, sched_id, site,
                                  multiplier_factor, exitcode)
             VALUES (4, 3, 4, '11.0', 'local', 1, NULL);
        INSERT INTO jobstate VALUES (4, 'SUBMIT', 1677913877, 1, NULL);
        INSERT INTO jobstate VALUES (4, 'JOB_ABORTED', 1677913880, 2, 'removed by user');
    """)
    conn.commit()
    conn.close()
    return db


def signalled_task_db(tmp_path: Path) -> Path:
    """process_wf_failure.stampede.db with the last attempt of task ID0000001 (ls) killed by
    signal 9 (raw wait status 9) instead of exiting with code 2: a task that pegasus-statistics
    counts failed."""
    db = tmp_path / "signalled.stampede.db"
    shutil.copy(FAIL_DB, db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE invocation SET exitcode = 9 WHERE invocation_id = 5")
    return db


def retried_subworkflow_db(tmp_path: Path) -> Path:
    """hierarchical_wf_success.stampede.db whose sub-workflow job
    (pegasus-plan_diamond_subworkflow, a dax job) failed once before it planned and ran the
    sub-workflow: a first attempt (submit seq 5) whose pre script (the planner) exited 1,
    the successful attempt renumbered 16."""
    db = tmp_path / "retried-subworkflow.stampede.db"
    shutil.copy(HIER_DB, db)
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            UPDATE job_instance SET job_submit_seq = 16 WHERE job_instance_id = 5;
            INSERT INTO job_instance (job_instance_id, job_id, job_submit_seq, sched_id, site,
                                      multiplier_factor, exitcode)
                 VALUES (27, 13, 5, NULL, 'local', 1, 256);
            INSERT INTO jobstate VALUES (27, 'PRE_SCRIPT_STARTED', 1677920400, 1, NULL);
            INSERT INTO jobstate VALUES (27, 'PRE_SCRIPT_TERMINATED', 1677920409, 2, NULL);
            INSERT INTO jobstate VALUES (27, 'PRE_SCRIPT_FAILED', 1677920409, 3, NULL);
            INSERT INTO invocation (invocation_id, wf_id, job_instance_id, task_submit_seq,
                                    start_time, remote_duration, exitcode, transformation,
                                    executable)
                 VALUES (51, 1, 27, -1, 1677920400, 9, 256, 'dagman::pre',
                         '00/00/pegasus-plan_diamond_subworkflow.pre.sh');
        """)
    return db


def restarted_held_bp(tmp_path: Path) -> Path:
    """blackdiamond-4.0.bp with the same two cases as a monitord stream:

    - analyze_j4 is held for 30 s after its submission (job_inst.held.start / held.end, the
      later states of its attempt renumbered);
    - the workflow is restarted once, a day later, for 100 s (a second xwf.start / xwf.end
      pair with restart_count=1).
    """
    xwf = "ea17e8ac-02ac-4909-b5e3-16e367392556"
    ids = f"xwf.id={xwf} job.id=analyze_j4 sched.id=79.0"
    lines = []
    for line in BLACKDIAMOND_BP.read_text(encoding="utf-8").splitlines():
        if "job.id=analyze_j4" in line and "job_inst.id=13" in line:
            line = re.sub(r"\bjs\.id=(\d+)",
                          lambda m: f"js.id={int(m[1]) + 2 if int(m[1]) >= 2 else m[1]}", line)
        if "event=stampede.job_inst.main.start" in line and "job.id=analyze_j4" in line:
            lines.append(f"ts=2012-03-13T12:48:20.000000Z event=stampede.job_inst.held.start "
                         f"level=Info {ids} js.id=2 job_inst.id=13 reason=\"disk quota exceeded\"")
            lines.append(f"ts=2012-03-13T12:48:50.000000Z event=stampede.job_inst.held.end "
                         f"level=Info {ids} js.id=3 job_inst.id=13")
        lines.append(line)
    lines.append(f"ts=2012-03-14T10:00:00.000000Z event=stampede.xwf.start level=Info "
                 f"xwf.id={xwf} restart_count=1")
    lines.append(f"ts=2012-03-14T10:01:40.000000Z event=stampede.xwf.end level=Info status=0 "
                 f"xwf.id={xwf} restart_count=1")
    bp = tmp_path / "blackdiamond-restarted-held.bp"
    bp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return bp


# --- comparisons -------------------------------------------------------------------------

def _num(value):
    """Numbers rounded for comparison (SQLite numerics and Cypher floats differ in the last bits)."""
    return None if value is None else round(float(value), 3)


#: pegasus/statistics column -> (part of the oracle summary, key)
STATISTICS_COLUMNS = {
    "jobs_total": ("jobs", "total"), "jobs_succeeded": ("jobs", "succeeded"),
    "jobs_failed": ("jobs", "failed"), "jobs_incomplete": ("jobs", "incomplete"),
    "job_retries": ("jobs", "retries"),
    "tasks_total": ("tasks", "total"), "tasks_succeeded": ("tasks", "succeeded"),
    "tasks_failed": ("tasks", "failed"), "tasks_incomplete": ("tasks", "incomplete"),
    "task_retries": ("tasks", "retries"),
    "subworkflows_total": ("sub_workflows", "total"),
    "subworkflows_succeeded": ("sub_workflows", "succeeded"),
    "subworkflows_failed": ("sub_workflows", "failed"),
    "subworkflows_incomplete": ("sub_workflows", "incomplete"),
    "subworkflow_retries": ("sub_workflows", "retries"),
    "workflow_wall_time": (None, "workflow_wall_time"),
    "cumulative_job_wall_time": (None, "cumulative_job_wall_time"),
    "cumulative_job_wall_time_submit_side": (None, "submit_side_job_wall_time"),
    "cumulative_badput": (None, "cumulative_job_badput"),
    "restarts": (None, "workflow_retries"),
}


def statistics_differences(lin, uuid: str, summary: dict, recursive: bool) -> list[tuple]:
    """pegasus/statistics against pegasus-statistics' summary of one workflow."""
    [ours] = lin.query("pegasus/statistics", workflow=f"pegasus:workflow:{uuid}", recursive=recursive)
    differences = []
    for column, (part, key) in STATISTICS_COLUMNS.items():
        theirs = summary[part][key] if part else summary[key]
        if _num(ours[column]) != _num(theirs):
            differences.append((column, ours[column], theirs))
    if ours["jobs_held"] != len(summary["held_jobs"]):
        differences.append(("jobs_held", ours["jobs_held"], summary["held_jobs"]))
    return differences


def transformation_differences(lin, uuid: str, summary: dict, recursive: bool) -> list[tuple]:
    """pegasus/transformation_statistics against pegasus-statistics' breakdown (breakdown.txt)."""
    theirs: dict[str, dict] = {}
    for row in summary["transformations"]:
        entry = theirs.setdefault(row["transformation"], {"count": 0, "succeeded": 0, "total": 0.0})
        entry["count"] += row["count"]
        entry["succeeded"] += row["count"] if row["type"] == "successful" else 0
        entry["total"] += row["sum"] or 0.0
    rows = lin.query("pegasus/transformation_statistics",
                     workflow=f"pegasus:workflow:{uuid}", recursive=recursive)
    ours = {r["transformation"]: {"count": r["count"], "succeeded": r["succeeded"],
                                  "total": r["total"] or 0.0} for r in rows}
    differences = []
    for name in sorted(set(ours) | set(theirs)):
        mine, other = ours.get(name), theirs.get(name)
        if mine is None or other is None:
            differences.append((f"transformation {name}", mine, other))
            continue
        for key in ("count", "succeeded", "total"):
            if _num(mine[key]) != _num(other[key]):
                differences.append((f"transformation {name} {key}", mine[key], other[key]))
    return differences


def _exit_of(row: dict) -> int | None:
    """Our exit code or signal as pegasus-analyzer prints it (a signal is negative)."""
    return -row["signal"] if row["signal"] is not None else row["exitcode"]


def _analyzer_exit(job: dict) -> int | None:
    """The first failing task's exit code in pegasus-analyzer's task list (pre script last)."""
    tasks = sorted(job["tasks"].values(), key=lambda t: (t["task_submit_seq"] < 0, t["task_submit_seq"]))
    return next((t["exitcode"] for t in tasks if t["exitcode"] not in (0, None)), None)


def failed_jobs_differences(lin, uuid: str, analysis: dict) -> list[tuple]:
    """pegasus/failed_jobs against pegasus-analyzer's failed and held lists of one workflow."""
    rows = lin.query("pegasus/failed_jobs", workflow=f"pegasus:workflow:{uuid}")
    by_status = {"failed": sorted(r["job_id"] for r in rows if r["status"] == "failed"),
                 "held": sorted(r["job_id"] for r in rows if r["held"])}
    differences = []
    for status, theirs in (("failed", sorted(analysis["failed_jobs"])),
                           ("held", sorted(analysis["held_jobs"]))):
        if by_status[status] != theirs:
            differences.append((f"{status} jobs", by_status[status], theirs))
    for name, held in analysis["held_jobs"].items():
        reason = next((r["held_reason"] for r in rows if r["job_id"] == name), None)
        if (reason or "-") != held["reason"]:
            differences.append((f"{name} held_reason", reason, held["reason"]))
    for row in rows:
        if row["exitcode"] is not None and row["signal"] is not None:
            differences.append((f"{row['job_id']} exitcode and signal",
                                (row["exitcode"], row["signal"]), "one of them"))
        job = analysis["failed_jobs"].get(row["job_id"])
        if row["status"] != "failed" or job is None:
            continue
        checks = {"exit": (_exit_of(row), _analyzer_exit(job)),
                  "last_state": (row["last_state"], job["state"]),
                  "host": (row["host"], job["hostname"]),
                  "stdout": ((row["stdout"] or "").strip(), job["stdout_text"]),
                  "stderr": ((row["stderr"] or "").strip(), job["stderr_text"])}
        differences += [(f"{row['job_id']} {k}", a, b) for k, (a, b) in checks.items() if a != b]
    return differences


def attempts_differences(lin, uuid: str, job_instances: list[dict]) -> list[tuple]:
    """pegasus/attempts (all) against pegasus-statistics' job breakdown (jobs.txt)."""
    rows = lin.query("pegasus/attempts", workflow=f"pegasus:workflow:{uuid}", all=True)
    ours = {(r["job_id"], r["attempt"]): r for r in rows}
    theirs = {(j["job_name"], j["retry_count"]): j for j in job_instances}
    differences = []
    for key in sorted(set(ours) | set(theirs)):
        mine, other = ours.get(key), theirs.get(key)
        if mine is None or other is None:
            differences.append((f"attempt {key}", mine and mine["status"], other and other["exitcode"]))
            continue
        if _exit_of(mine) != other["exitcode"]:
            differences.append((f"attempt {key} exit", _exit_of(mine), other["exitcode"]))
        if mine["host"] != other["hostname"]:
            differences.append((f"attempt {key} host", mine["host"], other["hostname"]))
    return differences


def subworkflow_differences(lin, uuid: str, analysis: dict) -> list[tuple]:
    """pegasus/subworkflows against pegasus-analyzer run on every sub-workflow (--traverse-all)."""
    rows = lin.query("pegasus/subworkflows", workflow=f"pegasus:workflow:{uuid}")
    status = {"success": "succeeded", "failure": "failed", "running": "running"}
    differences = []
    for row in rows:
        sub = analysis[row["uid"].removeprefix("pegasus:workflow:")]
        for column, theirs in (("status", status.get(sub["wf_status"], sub["wf_status"])),
                               ("jobs", sub["total"]), ("jobs_succeeded", sub["success"]),
                               ("jobs_failed", sub["failed"])):
            if row[column] != theirs:
                differences.append((f"subworkflow {row['label']} {column}", row[column], theirs))
    return differences
