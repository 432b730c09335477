"""OpenLineage run events of loaded runs (``lineage export --format openlineage``)."""

import json
import uuid

from click.testing import CliRunner

from lineage import cli
from lineage.answers.openlineage import run_id

from .conftest import SAMPLES
from .corpus import needs_corpus

pytestmark = needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
ECHO = SAMPLES / "swift" / "001-echo-20090316-1711-i7icnjl1.log"
STATES = {"START", "COMPLETE", "FAIL", "ABORT", "RUNNING", "OTHER"}


def read_events(path):
    events = [json.loads(line) for line in path.read_text().splitlines()]
    for e in events:  # what the OpenLineage RunEvent schema requires of every event
        assert e["eventType"] in STATES and "T" in e["eventTime"]
        uuid.UUID(e["run"]["runId"])
        assert e["job"]["namespace"] and e["job"]["name"]
        assert e["producer"].startswith("https://")
        assert e["schemaURL"].startswith("https://openlineage.io/spec/")
        assert "OpenLineage.json" in e["schemaURL"]
        for d in e.get("inputs", []) + e.get("outputs", []):
            assert d["namespace"] and d["name"]
    by_run = {}
    for e in events:
        by_run.setdefault(e["run"]["runId"], []).append(e["eventType"])
    for states in by_run.values():  # one START, then at most one end
        assert states[0] == "START" and len(states) <= 2
    return events


def test_workflow_events_with_jobs_as_child_runs(lin, tmp_path, cli_env):
    lin.load([BD, FAIL_DB])
    wf = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
    out = tmp_path / "bd.jsonl"
    result = CliRunner(env=cli_env).invoke(cli.main, ["export", wf, "--format", "openlineage",
                                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    events = read_events(out)
    root = [e for e in events if e["run"]["runId"] == run_id(wf)]
    assert [e["eventType"] for e in root] == ["START", "COMPLETE"]
    jobs = lin.query("MATCH (j:Job)-[:PART_OF]->(:Workflow {uid: $wf}) RETURN j.uid AS uid, "
                     "j.name AS name", wf=wf)
    children = [e for e in events if e["run"]["runId"] != run_id(wf)]
    assert {e["run"]["runId"] for e in children} <= {run_id(j["uid"]) for j in jobs}
    assert {e["job"]["name"] for e in children} >= {"analyze_j4", "findrange_j2"}
    for e in children:
        parent = e["run"]["facets"]["parent"]
        assert parent["run"]["runId"] == run_id(wf) and parent["job"]["name"] == root[0]["job"]["name"]
    # the failed workflow ends in FAIL, and exporting twice gives the same events
    failed = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
    lin.export(failed, tmp_path / "f.jsonl", fmt="openlineage")
    lin.export(failed, tmp_path / "g.jsonl", fmt="openlineage")
    events = read_events(tmp_path / "f.jsonl")
    assert [e["eventType"] for e in events if e["run"]["runId"] == run_id(failed)][-1] == "FAIL"
    assert (tmp_path / "f.jsonl").read_text() == (tmp_path / "g.jsonl").read_text()


def test_swift_run_outputs_and_a_non_run_refused(lin, tmp_path):
    lin.load([ECHO])
    run = "swift:run:001-echo-20090316-1711-i7icnjl1"
    lin.export(run, tmp_path / "s.jsonl", fmt="openlineage")
    events = read_events(tmp_path / "s.jsonl")
    [end] = [e for e in events if e["run"]["runId"] == run_id(run) and e["eventType"] != "START"]
    assert end["eventType"] == "COMPLETE"
    assert [d["name"] for d in end["outputs"]] == ["file://localhost/001-echo.out"]
    call = [e for e in events if e["run"]["runId"] != run_id(run) and e["eventType"] != "START"]
    assert [d["name"] for e in call for d in e["outputs"]] == ["file://localhost/001-echo.out"]
    import pytest

    from lineage.errors import LineageError
    with pytest.raises(LineageError, match="not a run"):
        lin.export("swift:exec:001-echo-20090316-1711-i7icnjl1:echo-17kp918j",
                   tmp_path / "x.jsonl", fmt="openlineage")


def test_a_chimbuko_program_run_starts_when_its_first_rank_started(lin, tmp_path):
    """A Chimbuko program run exported a 0-byte file, exit 0: it had no start time. Its
    ranks' TAU ``Starting Timestamp`` says when it started; Chimbuko records no end."""
    import datetime as dt

    chimbuko = SAMPLES / "chimbuko"
    lin.load([chimbuko / "provdb_v0_anomalies.json", chimbuko / "provdb_v0_metadata.json"])
    [run] = lin.query("MATCH (r:ProgramRun) RETURN r.uid AS uid")
    starts = [int(r["s"]) for r in lin.query(
        "MATCH (k:Rank)-[:PART_OF]->(:ProgramRun {uid: $uid}) RETURN k.start_timestamp AS s",
        uid=run["uid"]) if r["s"]]
    assert starts
    out = tmp_path / "chimbuko.jsonl"
    lin.export(run["uid"], out, fmt="openlineage")
    [start] = read_events(out)
    assert start["eventType"] == "START" and start["run"]["runId"] == run_id(run["uid"])
    first = dt.datetime.fromtimestamp(min(starts) / 1e6, dt.timezone.utc)
    assert dt.datetime.fromisoformat(start["eventTime"].replace("Z", "+00:00")) == first


def test_a_run_whose_start_is_unknown_is_an_error_and_no_file(lin, tmp_path, cli_env):
    """Anomalies without their run's metadata: no rank says when the program started."""
    lin.load([SAMPLES / "chimbuko" / "provdb_v2_anomalies.json"])
    [run] = lin.query("MATCH (r:ProgramRun) RETURN r.uid AS uid")
    out = tmp_path / "none.jsonl"
    result = CliRunner(env=cli_env).invoke(cli.main, ["export", run["uid"], "--format",
                                                      "openlineage", "-o", str(out)])
    assert result.exit_code != 0 and "start is not known" in result.output
    assert run["uid"] in result.output and not out.exists()
