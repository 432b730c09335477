"""Every generation and spelling of a Chimbuko provenance record that the mapping reads
(lineage/sources/chimbuko/spellings.py: VARIANTS) has a test here, each built from the real
samples ($LINEAGE_CORPUS/samples/chimbuko) rewritten to that variant and loaded into Neo4j.
:func:`test_every_variant_has_a_test` fails when the table gains an entry without one.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from lineage.sources.base import LoadReport
from lineage.sources.chimbuko.mapping import parse_json
from lineage.sources.chimbuko.spellings import VARIANTS

from .conftest import SAMPLES
from .corpus import needs_corpus

pytestmark = needs_corpus

CH = SAMPLES / "chimbuko"


def v0() -> dict:
    """The first anomaly of the v0 sample (func_stats inside, call stack of objects)."""
    return json.loads((CH / "provdb_v0_anomalies.json").read_text())[0]


def v2() -> dict:
    """The first anomaly of the v2 sample (version 2, new histogram keys)."""
    return json.loads((CH / "provdb_v2_anomalies.json").read_text())[0]


def metadata() -> list[dict]:
    return json.loads((CH / "provdb_v0_metadata.json").read_text())


def load(lin, tmp_path: Path, records: list[dict], name: str = "provdb_anomalies.json"):
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    f = folder / name
    f.write_text(json.dumps(records))
    [result] = lin.load([f])
    assert result.status == "loaded", result.error
    return result.report


def execution(lin, label: str) -> dict:
    rows = lin.query("MATCH (e:FunctionExecution {event_id: $l}) RETURN properties(e) AS p",
                     {"l": label})
    assert len(rows) == 1, rows
    return {k: v for k, v in rows[0]["p"].items() if k not in ("loads", "uid")}


def called_by(lin) -> int:
    return lin.query("MATCH (:FunctionExecution)-[r:CALLED_BY]->() RETURN count(r) AS n")[0]["n"]


def names_only(rec: dict) -> dict:
    """The record as generation -1 wrote it: call stack of names, no later fields."""
    out = copy.deepcopy(rec)
    out["call_stack"] = [e["func"] for e in rec["call_stack"]]
    for key in ("event_window", "gpu_location", "gpu_parent", "is_gpu_event", "io_step",
                "io_step_tstart", "io_step_tend", "__id"):
        out.pop(key, None)
    return out


# ------------------------------------------------------------------ generations
def generation_2(lin, tmp_path):
    rec = v2()
    load(lin, tmp_path, [rec])
    e = execution(lin, rec["event_id"])
    hist = rec["algo_params"]["histogram"]
    assert e["record_version"] == 2 and e["function"] == rec["func"]
    assert e["hist_counts"] == hist["Bin Counts"]
    assert e["runtime_exclusive"] == rec["runtime_exclusive"]


def generation_1(lin, tmp_path):
    rec = v2()
    load(lin, tmp_path, [rec])
    today = execution(lin, rec["event_id"])
    lin.reset(force=True)
    del rec["version"]
    load(lin, tmp_path, [rec])
    e = execution(lin, rec["event_id"])
    assert e.pop("record_version") == 1 and today.pop("record_version") == 2
    assert e == today


def generation_0(lin, tmp_path):
    rec = v0()
    load(lin, tmp_path, [rec])
    e = execution(lin, rec["event_id"])
    assert e["record_version"] == 0 and e["algo_kind"] == "sstd"
    assert e["algo_mean"] == rec["func_stats"]["mean"] and e["function"] == rec["func"]
    assert called_by(lin) >= len(rec["call_stack"]) - 1 > 0


def generation_minus_1(lin, tmp_path):
    rec = v0()
    old = names_only(rec)
    load(lin, tmp_path, [old])
    e = execution(lin, rec["event_id"])
    assert e["record_version"] == -1 and e["function"] == rec["func"] and e["fid"] == rec["fid"]
    assert e["call_stack_functions"] == [s["func"] for s in rec["call_stack"]]
    assert (e["entry"], e["exit"], e["runtime_exclusive"], e["algo_mean"]) == (
        rec["entry"], rec["exit"], rec["runtime_exclusive"], rec["func_stats"]["mean"])
    assert called_by(lin) == 0  # names carry no event labels: no stack of executions


def generation_minus_2(lin, tmp_path):
    rec = v0()
    old = names_only(rec)
    for key in ("event_id", "fid", "counter_events"):
        del old[key]
    old["func"] = rec["event_id"]  # the first writer put the event's id under 'func'
    load(lin, tmp_path, [old])
    e = execution(lin, rec["event_id"])
    assert e["record_version"] == -2 and e["function"] == rec["func"]  # the stack's first name
    assert (e["rank"], e["entry"], e["exit"], e["runtime_inclusive"], e["algo_mean"]) == (
        rec["rid"], rec["entry"], rec["exit"], rec["runtime_total"], rec["func_stats"]["mean"])
    assert "fid" not in e


# ------------------------------------------------------------------ spellings
def histogram_old(lin, tmp_path):
    rec = v2()
    load(lin, tmp_path, [rec])
    today = execution(lin, rec["event_id"])
    lin.reset(force=True)
    hist = rec["algo_params"]["histogram"]
    counts, first, width = hist["Bin Counts"], hist["First edge"], hist["Bin width"]
    rec["algo_params"]["histogram"] = {
        "Histogram Bin Counts": counts,
        "Histogram Bin Edges": [first + i * width for i in range(len(counts) + 1)]}
    load(lin, tmp_path, [rec])
    e = execution(lin, rec["event_id"])
    assert (e["hist_counts"], e["hist_edges"]) == (today["hist_counts"], today["hist_edges"])
    assert e["algo_kind"] == "histogram" and len(e["hist_edges"]) == len(counts) + 1


def histogram_new(lin, tmp_path):
    rec = v2()
    load(lin, tmp_path, [rec])
    e = execution(lin, rec["event_id"])
    hist = rec["algo_params"]["histogram"]
    assert e["hist_edges"][0] == hist["First edge"] and e["hist_bin_width"] == hist["Bin width"]
    assert (e["hist_min"], e["hist_max"]) == (hist["Min"], hist["Max"])


def _rank_props(lin) -> list:
    return lin.query("MATCH (r:Rank) RETURN r.uid AS uid, r.hostname AS host, "
                     "r.metadata AS meta ORDER BY uid")


def metadata_without_pid(lin, tmp_path):
    report = load(lin, tmp_path, metadata(), "provdb_v0_metadata.json")
    ranks = _rank_props(lin)
    assert ranks and all(r["host"] and r["meta"] for r in ranks)
    assert any("without 'pid'" in w for w in report["warnings"])


def metadata_with_pid(lin, tmp_path):
    load(lin, tmp_path, metadata(), "provdb_v0_metadata.json")
    without = _rank_props(lin)
    lin.reset(force=True)
    report = load(lin, tmp_path, [{"pid": 0, **m} for m in metadata()], "provdb_v0_metadata.json")
    assert _rank_props(lin) == without and without
    assert not any("without 'pid'" in w for w in report["warnings"])


def label_plain(lin, tmp_path):
    rec = v0()
    load(lin, tmp_path, [rec])
    e = execution(lin, rec["event_id"])
    rank, step, idx = map(int, rec["event_id"].split(":"))
    assert (e["rank"], e["io_step"], e["idx"]) == (rank, step, idx)


def label_with_eid(lin, tmp_path):
    rec = v0()
    rank, step, idx = rec["event_id"].split(":")
    label = f"{rank}-0:{step}:{idx}"
    rec["event_id"] = rec["call_stack"][0]["event_id"] = label
    load(lin, tmp_path, [rec])
    e = execution(lin, label)
    assert (e["rank"], e["io_step"], e["idx"]) == (int(rank), int(step), int(idx))
    assert e["function"] == rec["func"] and e["is_anomaly"] is True


def stack_objects(lin, tmp_path):
    rec = v0()
    load(lin, tmp_path, [rec])
    chain = [e["event_id"] for e in rec["call_stack"]]
    for callee, caller in zip(chain, chain[1:]):
        rows = lin.query("MATCH (:FunctionExecution {event_id: $a})-[:CALLED_BY]->"
                         "(:FunctionExecution {event_id: $b}) RETURN count(*) AS n",
                         {"a": callee, "b": caller})
        assert rows[0]["n"] == 1, (callee, caller)


def stack_names(lin, tmp_path):
    rec = v0()
    load(lin, tmp_path, [names_only(rec)])
    e = execution(lin, rec["event_id"])
    assert e["call_stack_functions"] == [s["func"] for s in rec["call_stack"]]
    others = lin.query("MATCH (e:FunctionExecution) WHERE e.event_id <> $l RETURN count(e) AS n",
                       {"l": rec["event_id"]})
    assert others[0]["n"] == 0  # a name is not an execution


VARIANT_TESTS = {
    "generation -2": generation_minus_2,
    "generation -1": generation_minus_1,
    "generation 0": generation_0,
    "generation 1": generation_1,
    "generation 2": generation_2,
    "histogram Histogram Bin Counts / Histogram Bin Edges": histogram_old,
    "histogram Bin Counts / First edge / Bin width / Min / Max": histogram_new,
    "metadata without pid": metadata_without_pid,
    "metadata with pid": metadata_with_pid,
    "event label rank:step:idx": label_plain,
    "event label rank-eid:step:idx": label_with_eid,
    "call stack entry as an object": stack_objects,
    "call stack entry as a function name": stack_names,
}


def test_every_variant_has_a_test():
    assert set(VARIANT_TESTS) == set(VARIANTS)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_variant_loads(lin, tmp_path, variant):
    VARIANT_TESTS[variant](lin, tmp_path)


def test_a_record_of_no_known_generation_is_counted(tmp_path):
    """A first-generation record whose 'func' is not an event label, and a record of keys
    no generation has, are skipped and counted, not guessed."""
    old = names_only(v0())
    for key in ("event_id", "fid", "counter_events"):
        del old[key]
    old["func"] = "MPI_Group_free()"
    f = tmp_path / "provdb_anomalies.json"
    f.write_text(json.dumps([old, {"rid": 0, "event_label": "0:0:1", "function": "f"}]))
    report = LoadReport(str(f), "chimbuko-json", lenient=True)
    list(parse_json(f, report))
    assert sum(report.skipped.values()) == 1 and sum(report.unknown.values()) == 1
