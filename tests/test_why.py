"""`lineage why`: why a run failed, from the graph alone, on the real samples."""

import json
import shutil
import sqlite3

from click.testing import CliRunner

from lineage import cli

from .conftest import SAMPLES
from .corpus import first, needs_corpus

pytestmark = needs_corpus

FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
FAIL_WF = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
HIER_DB = SAMPLES / "pegasus" / "hierarchical_wf_success.stampede.db"
ROOT_WF = "pegasus:workflow:48f759a4-165f-47d6-8c32-571649ce311b"
XALT_RUN = first("xalt", "run.*.json")


def test_the_failed_workflow_names_its_failed_job_with_the_cause_first(lin):
    lin.load([FAIL_DB])
    summary = lin.why(FAIL_WF)
    failed = [p for p in summary["problems"] if p["status"] == "failed"]
    assert failed and summary["problems"][0]["status"] == "failed"
    # the failure's own words, pulled out of the job's output (not the tail of a long log)
    first = failed[0]
    assert first["causes"], first
    assert first["causes"][0] == "/bin/ls: invalid option -- 'z'"  # ls's own stderr first
    # a job that never ran names the failed job upstream that blocked it
    blocked = [p for p in summary["problems"] if p["blocked_by"]]
    assert all(b["status"] == "unsubmitted" for b in blocked)
    assert {b["blocked_by"] for b in blocked} <= {p["name"] for p in failed}


def test_held_jobs_and_sub_workflows(lin, tmp_path):
    db = tmp_path / "hier.stampede.db"
    shutil.copy(HIER_DB, db)
    with sqlite3.connect(db) as conn:  # a sub-workflow job fails, another is held (no exit)
        conn.execute("UPDATE job_instance SET exitcode = 256 WHERE job_instance_id = 19")
        conn.execute("INSERT INTO jobstate VALUES (16, 'JOB_HELD', 1677920700, 9, 'out of memory')")
        conn.execute("UPDATE job_instance SET exitcode = NULL WHERE job_instance_id = 16")
    lin.load([db])
    problems = lin.why(ROOT_WF)["problems"]
    by_name = {p["name"]: p for p in problems}
    assert by_name["analyze_ID0000004"]["status"] == "failed"
    assert by_name["analyze_ID0000004"]["workflow"] != ROOT_WF  # found in the sub-workflow
    held = [p for p in problems if p["status"] == "held"]
    assert held and held[0]["held_reason"] == "out of memory"


def test_an_xalt_run_without_its_end_record(lin):
    lin.load([XALT_RUN])
    [uid] = [r["uid"] for r in lin.query("MATCH (e:Execution) RETURN e.uid AS uid")]
    problems = lin.why(uid)["problems"]
    assert [p["what"] for p in problems] == ["missing end record"]
    assert problems[0]["started"].endswith("Z")


def test_why_command_json_and_table(lin, cli_env):
    lin.load([FAIL_DB])
    runner = CliRunner(env=cli_env)
    out = runner.invoke(cli.main, ["why", FAIL_WF, "--format", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["problems"]
    table = runner.invoke(cli.main, ["why", FAIL_WF])
    assert table.exit_code == 0 and "cause:" in table.output and "problems" in table.output
    unknown = runner.invoke(cli.main, ["why", "host:nowhere"])
    assert unknown.exit_code == 1 and "no node" in unknown.output


def test_a_swift_run_lists_its_failed_app_execution(lin, tmp_path):
    text = (SAMPLES / "swift" / "001-echo-20090316-1711-i7icnjl1.log").read_text()
    assert "vdl:execute2 JOB_END jobid=echo-17kp918j" in text
    log = tmp_path / "001-echo-20090316-1711-i7icnjl1.log"
    log.write_text(text.replace("vdl:execute2 JOB_END jobid=echo-17kp918j",
                                "vdl:execute2 APPLICATION_EXCEPTION jobid=echo-17kp918j"))
    lin.load([log])
    [run] = [r["uid"] for r in lin.query("MATCH (r:ScriptRun) RETURN r.uid AS uid")]
    problems = lin.why(run)["problems"]
    assert [p["job_id"] for p in problems] == ["echo-17kp918j"]
    assert problems[0]["name"] == "echo" and problems[0]["status"] == "failed"
