"""Older spellings of Stampede streams (lineage.sources.pegasus.mapping.KEY_ALIASES and
task_of_edge_end): a stream rewritten in the Pegasus 3.x spelling gives the same graph as the
original, as Pegasus's own loader reads both."""

import re

from lineage.sources.base import LoadReport
from lineage.sources.pegasus.bp import parse_lines
from lineage.records import Node

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
