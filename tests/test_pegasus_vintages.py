"""Older spellings of Stampede streams (lineage.sources.pegasus.mapping.KEY_ALIASES and
task_of_edge_end): a stream rewritten in the Pegasus 3.x spelling gives the same graph as the
original, as Pegasus's own loader reads both."""

import re

from lineage.sources.base import LoadReport
from lineage.sources.pegasus.bp import parse_lines
from lineage.model.records import Node

from . import graphcheck
from .conftest import SAMPLES
from .corpus import needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"


def as_pegasus3(text: str) -> str:
    """The stream as Pegasus 3.x monitord spells it: ``exec_job.id`` in host records, and
    task edge ends named by the job-qualified id (``<transformation>_<task id>``)."""
    out = []
    for line in text.splitlines(keepends=True):
        if "event=stampede.job_inst.host.info" in line:
            line = line.replace(" job.id=", " exec_job.id=")
        if "event=stampede.task.edge" in line:
            line = re.sub(r"(child|parent)\.task\.id=(\S+)", r"\1.task.id=preprocess_\2", line)
        out.append(line)
    return "".join(out)


@needs_corpus
def test_pegasus3_spellings_give_the_same_graph(lin, tmp_path):
    lin.load([BD])
    original = graphcheck.of(lin)
    lin.reset()
    old = tmp_path / "blackdiamond-3x.bp"
    old.write_text(as_pegasus3(BD.read_text()))
    assert "exec_job.id=" in old.read_text() and "task.id=preprocess_j1" in old.read_text()
    [result] = lin.load([old])  # strict: every line understood
    assert result.status == "loaded" and result.write.unresolved_edges == 0
    assert result.report["events"]["older key spellings"] > 0
    assert graphcheck.of(lin) == original


def test_eviction_and_grid_submission_states():
    lines = [
        "ts=2012-03-13T12:35:38Z event=stampede.job_inst.grid.submit.end xwf.id=w job.id=j "
        "job_inst.id=1 status=0",
        "ts=2012-03-13T12:35:39Z event=stampede.job_inst.main.term xwf.id=w job.id=j "
        "job_inst.id=1 status=-1",
    ]
    nodes = [r for r in parse_lines(lines, LoadReport("x.bp", "pegasus-bp")) if isinstance(r, Node)]
    attempt = [n for n in nodes if n.kind.label == "JobInstance"][-1]
    assert attempt.props["states"] == ["GRID_SUBMIT", "JOB_EVICTED"]


@needs_corpus
def test_a_stream_cut_mid_value_is_refused_and_leaves_no_phantoms(lin, tmp_path):
    text = BD.read_text()
    cut = tmp_path / "being-written.bp"
    cut.write_text(text[: text.index("job.id=", len(text) // 2) + len("job.id=create")])
    import pytest

    from lineage.errors import ParseError

    with pytest.raises(ParseError, match="cut short"):
        lin.load([cut])
    assert graphcheck.of(lin).nodes == 0
    [result] = lin.load([cut], lenient=True)  # lenient: the complete lines, counted skip
    assert sum(result.report["skipped"].values()) == 1
    cut.write_text(text)  # the complete stream: nothing of the cut uid survives
    lin.load([cut])
    assert lin.query("MATCH (n:Lineage) WHERE n.uid ENDS WITH ':create' RETURN n.uid AS u") == []


# --- Pegasus 3.x monitord: no exit code on job_inst.main.end / post.end -------------------
def _jobs_and_attempts(lin):
    jobs = {r["job"]: r["status"] for r in lin.query(
        "MATCH (j:Job) RETURN j.job_id AS job, j.status AS status")}
    attempts = {(r["job"], r["seq"]): (r["status"], r["local"]) for r in lin.query(
        "MATCH (a:JobInstance) RETURN a.job_id AS job, a.submit_seq AS seq, "
        "a.status AS status, a.local_duration AS local")}
    return jobs, attempts


@needs_corpus
def test_pegasus3_stream_jobs_succeed_by_their_states(lin, tmp_path):
    """A 3.x stream (main.end / post.end with status=0 and no exitcode key, local_duration=)
    gives the outcomes and submit-side times of the 4.0 stream it was made from: every job
    succeeded (Pegasus 3.1's statistics count a job that reached JOB_SUCCESS as succeeded),
    and local_duration is the attempt's local duration, not dropped."""
    from .pegasus_vintages import pegasus3_bp

    workflow = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"

    def statistics():  # sums of floats, rounded: Neo4j may add them in another order
        [row] = lin.query("pegasus/statistics", workflow=workflow)
        return {k: round(v, 6) if isinstance(v, float) else v for k, v in row.items()}

    lin.load([BD])
    original = _jobs_and_attempts(lin)
    stats = statistics()
    lin.reset()
    old = pegasus3_bp(tmp_path)
    text = old.read_text()
    assert " exitcode=" not in "".join(line for line in text.splitlines() if "job_inst.main.end" in line)
    assert "local_duration=" in text and "local.dur=" not in text
    [result] = lin.load([old])  # strict
    assert result.status == "loaded" and result.report["events"]["older key spellings"] > 0
    assert _jobs_and_attempts(lin) == original
    assert set(original[0].values()) == {"succeeded"} and len(original[0]) == 14
    assert any(local for _, local in original[1].values())
    assert statistics() == stats and stats["cumulative_job_wall_time_submit_side"] > 0


def test_pegasus3_failed_status_fails_the_attempt():
    """status=-1 on a 3.x post.end: the attempt's last state is POST_SCRIPT_FAILED: failed;
    a 5.x attempt that ended with an unknown exit code stays incomplete."""
    ids = "xwf.id=w job.id=j job_inst.id=1"
    lines = ["ts=1 event=stampede.job.info xwf.id=w job.id=j type=1",
             f"ts=2 event=stampede.job_inst.submit.end {ids} status=0",
             f"ts=3 event=stampede.job_inst.main.end {ids} status=0 local_duration=12.5",
             f"ts=4 event=stampede.job_inst.post.end {ids} status=-1"]
    nodes = [r for r in parse_lines(lines, LoadReport("x.bp", "pegasus-bp")) if isinstance(r, Node)]
    attempt = [n for n in nodes if n.kind.label == "JobInstance"][-1].props
    job = [n for n in nodes if n.kind.label == "Job"][-1].props
    assert attempt["last_state"] == "POST_SCRIPT_FAILED" and attempt["status"] == "failed"
    assert attempt["local_duration"] == 12.5 and job["status"] == "failed"
    unknown = lines[:2] + [f"ts=3 event=stampede.job_inst.main.end {ids} status=0 exitcode=None"]
    nodes = [r for r in parse_lines(unknown, LoadReport("x.bp", "pegasus-bp")) if isinstance(r, Node)]
    assert [n for n in nodes if n.kind.label == "Job"][-1].props["status"] == "incomplete"
