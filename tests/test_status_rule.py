"""One status rule: the model's closed list of statuses is all a loader can write, and every
reader of an outcome (the ``:Failed`` label, reports, ``why``, ``diff``, OpenLineage, the
templates) takes it from the model.

The end-to-end case is the one that used to disagree: an XALT run whose end record says exit
status 1 (stored as ``ended`` then, with no ``:Failed`` label and no highlight in reports,
while ``why`` called it failed and OpenLineage said FAIL)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from lineage import model
from lineage.query import templates
from lineage.model import ModelError, status
from lineage.report.build import report_data, stands_out
from lineage.sources.xalt.model import EXECUTION

from . import demo_scenario as demo
from .bigstream import write_stream
from .corpus import REPO, SAMPLES, needs_corpus
from .xalt_helpers import RUN_AAA, RUN_UUID, sample_run, signed, zzz_from_aaa


def test_every_kind_with_an_outcome_declares_the_status_type_and_its_rule():
    with_status = [k for k in model.NODE_KINDS.values() if "status" in k.props]
    assert {k.label for k in with_status} >= {"Job", "JobInstance", "Workflow", "Execution",
                                               "ScriptRun", "FunctionCall", "AppExecution"}
    for k in with_status:
        assert k.props["status"] == "status" and k.outcome, k.label


def test_a_status_the_model_does_not_declare_is_refused():
    with pytest.raises(ModelError, match="'ended' is not a status the model declares"):
        EXECUTION.check({"status": "ended"})
    assert EXECUTION.check({"status": status.FAILED}) == {"status": "failed"}
    with pytest.raises(ValueError, match="declare it of type status"):
        model.NodeKind("Toy", model.Role.ACTIVITY, "toy", props={"status": "string"})


def test_no_template_spells_a_status():
    words = "|".join(model.STATUSES) + "|ended"
    spelled = re.compile(rf"""['"]({words})['"]""")
    found = [(t.name, m.group(0)) for t in templates.all_templates()
             for m in spelled.finditer(t.text)]
    assert found == []


def _generated_bp(directory: Path) -> Path:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from gen_bp import generate
    finally:
        sys.path.remove(str(REPO / "bench"))
    path = directory / "generated.bp"
    generate(path, 2000)
    return path


@needs_corpus
def test_every_sample_and_generated_input_holds_declared_statuses_only(lin, tmp_path):
    """The real samples, the demo campaign (every source's writer), a generated BP chain and
    bench/gen_bp.py's stream."""
    _, campaign = demo.load(lin, tmp_path / "campaign")
    results = campaign + lin.load([SAMPLES, _generated_bp(tmp_path), write_stream(
        tmp_path / "chain.bp", "wf-generated", range(50))])
    assert all(r.status in ("loaded", "unchanged", "unrecognised") for r in results), \
        [(r.path, r.status, r.error) for r in results if r.status == "failed"]
    found = lin.query("MATCH (n:Lineage) WHERE n.status IS NOT NULL "
                      "RETURN DISTINCT n.status AS status, collect(DISTINCT n.kind) AS kinds")
    assert {r["status"] for r in found} <= set(model.STATUSES), found
    assert {r["status"] for r in found} >= {"succeeded", "failed"}
    labelled = lin.query("MATCH (n:Failed) RETURN count(n) AS n")[0]["n"]
    failed = lin.query("MATCH (n:Lineage) WHERE n.status IN $failed RETURN count(n) AS n",
                       failed=sorted(model.FAILED_STATUSES))[0]["n"]
    assert labelled == failed > 0


@needs_corpus
def test_an_xalt_run_that_exited_1_is_failed_for_every_reader(lin, tmp_path):
    start = tmp_path / RUN_AAA.name
    start.write_text(signed(sample_run()))
    end_record = zzz_from_aaa(sample_run())
    end_record["userT"]["exit_status"] = "1"
    end = tmp_path / RUN_AAA.name.replace(".aaa.", ".zzz.")
    end.write_text(signed(end_record))
    lin.load([start, end])
    uid = EXECUTION.uid(RUN_UUID)
    [node] = lin.query("node", uid=uid)
    assert node["properties"]["status"] == "failed" and node["properties"]["exit_status"] == 1
    assert model.FAILED_LABEL in node["labels"]  # the label, so Browser styles it
    assert stands_out({"status": node["properties"]["status"]})  # reports never hide it
    page = report_data(lin, uid)
    assert page["root"]["status"] == "failed"
    assert [p["status"] for p in lin.why(uid)["problems"]] == ["failed"]
    events = tmp_path / "events.jsonl"
    lin.export(uid, events, fmt="openlineage")
    states = [json.loads(line)["eventType"] for line in events.read_text().splitlines()]
    assert states == ["START", "FAIL"]


@needs_corpus
def test_an_xalt_run_that_exited_0_succeeded_and_one_without_its_end_has_no_status(lin,
                                                                                   tmp_path):
    start = tmp_path / RUN_AAA.name
    start.write_text(signed(sample_run()))
    lin.load([start])
    uid = EXECUTION.uid(RUN_UUID)
    assert lin.query("node", uid=uid)[0]["properties"].get("status") is None
    assert [p["status"] for p in lin.why(uid)["problems"]] == ["incomplete"]
    end = tmp_path / RUN_AAA.name.replace(".aaa.", ".zzz.")
    end.write_text(signed(zzz_from_aaa(sample_run())))
    lin.load([end])
    assert lin.query("node", uid=uid)[0]["properties"]["status"] == "succeeded"
    assert lin.why(uid)["problems"] == []
