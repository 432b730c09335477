"""XALT run uuids reused by different programs: the first record wins, the others are
counted and reported as duplicates (as XALT's own loader does), never merged."""

import json

from lineage.model.records import Edge, Node
from lineage.sources.base import LoadReport
from lineage.sources.xalt.syslog import parse_syslog_lines

from .xalt_helpers import syslog_lines
from .corpus import first, needs_corpus

pytestmark = needs_corpus

RUN = first("xalt", "run.*.json")


def _records(lines):
    report = LoadReport("dup.log", "xalt-syslog")
    return list(parse_syslog_lines(lines, report)), report


def test_a_reused_run_uuid_of_another_program_is_a_counted_duplicate():
    rec = json.loads(RUN.read_text())
    other = json.loads(RUN.read_text())
    other["userT"]["exec_path"] = "/usr/bin/other-program"
    other["hash_id"] = "f" * 40
    uuid = rec["userT"]["run_uuid"]
    lines = (syslog_lines(json.dumps(rec), key=f"run_{uuid}_a")
             + syslog_lines(json.dumps(other), key=f"run_{uuid}_b"))
    records, report = _records(lines)
    executions = {r.uid for r in records if isinstance(r, Node) and r.kind.label == "Execution"}
    used = {r.end for r in records if isinstance(r, Edge) and r.rel.name == "USED"
            and r.start in executions and r.end.startswith("xalt:executable:")}
    assert len(executions) == 1 and len(used) == 1  # one run, one program: the first
    assert report.summary()["xalt"]["duplicate_run_uuid"] == 1
    [warning] = [w for w in report.warnings if "duplicate" in w]
    assert rec["userT"]["exec_path"] in warning and "/usr/bin/other-program" in warning


def test_start_and_end_records_of_one_run_are_still_one_run():
    rec = json.loads(RUN.read_text())
    end = json.loads(RUN.read_text())
    end["userDT"]["end_time"] = float(rec["userDT"]["start_time"]) + 10
    uuid = rec["userT"]["run_uuid"]
    records, report = _records(syslog_lines(json.dumps(rec), key=f"run_{uuid}_aaa")
                               + syslog_lines(json.dumps(end), key=f"run_{uuid}_zzz"))
    assert "duplicate_run_uuid" not in report.summary()["xalt"]
    nodes = [r for r in records if isinstance(r, Node) and r.kind.label == "Execution"]
    assert {n.uid for n in nodes} == {f"xalt:run:{uuid}"}
    assert any(n.props.get("has_end_record") for n in nodes)


def test_a_damaged_record_in_a_syslog_is_skipped_and_counted_even_strict():
    """A broken \\u00 escape in one record: XALT's loader skips that record; so do we."""
    rec = json.loads(RUN.read_text())
    uuid = rec["userT"]["run_uuid"]
    good = syslog_lines(json.dumps(rec), key=f"run_{uuid}_aaa")
    damaged = json.dumps(dict(rec, extra="x")).replace('"extra": "x"', '"extra": "\\u00"')
    bad = syslog_lines(damaged, key="run_other_aaa")
    records, report = _records(bad + good)  # strict (the default)
    assert any(isinstance(r, Node) and r.uid == f"xalt:run:{uuid}" for r in records)
    assert dict(report.skipped) == {"expected a JSON XALT record": 1}
    assert "dup.log" in report.warnings[0]


def test_start_and_end_records_in_either_order_give_one_graph(lin, tmp_path):
    """XALT keeps the start record's environment; the end record's is kept apart (end_env),
    so aaa-then-zzz and zzz-then-aaa give identical graphs."""
    from . import graphcheck

    rec = json.loads(RUN.read_text())
    end = json.loads(RUN.read_text())
    end["userDT"]["end_time"] = float(rec["userDT"]["start_time"]) + 10
    end["envT"] = dict(end.get("envT") or {}, XALT_STAGE="end")
    start_file, end_file = tmp_path / "run.x.aaa.json", tmp_path / "run.x.zzz.json"
    start_file.write_text(json.dumps(rec))
    end_file.write_text(json.dumps(end))
    lin.load([start_file])
    lin.load([end_file])
    forward = graphcheck.of(lin)
    lin.reset()
    lin.load([end_file])
    lin.load([start_file])
    assert graphcheck.of(lin) == forward
    [row] = lin.query("MATCH (e:Execution) RETURN e.env AS env, e.end_env AS end_env")
    assert "XALT_STAGE" not in json.loads(row["env"])
    assert json.loads(row["end_env"])["XALT_STAGE"] == "end"


def test_the_load_record_keeps_the_counts_by_reason(lin, tmp_path):
    rec = json.loads(RUN.read_text())
    other = json.loads(RUN.read_text())
    other["userT"]["exec_path"] = "/usr/bin/other-program"
    other["hash_id"] = "0" * 39 + "1"
    uuid = rec["userT"]["run_uuid"]
    log = tmp_path / "dup.xalt.log"
    log.write_text("\n".join(syslog_lines(json.dumps(rec), key=f"run_{uuid}_a")
                             + syslog_lines(json.dumps(other), key=f"run_{uuid}_b")) + "\n")
    [result] = lin.load([log])
    [row] = lin.query("MATCH (l:Load) RETURN l.counts AS counts")
    counts = json.loads(row["counts"])
    assert counts["xalt"]["duplicate_run_uuid"] == 1 and counts["nodes"]["Execution"] >= 1
    assert counts["warning_count"] == result.report["warning_count"] >= 1


def test_a_run_uuid_reused_in_another_input_is_a_duplicate_not_a_merge(lin, tmp_path):
    """The first input's run stays; the second input's record of another program under the
    same run uuid is counted and warned about, never merged into it."""
    from .xalt_helpers import signed

    rec = json.loads(RUN.read_text())
    uuid = rec["userT"]["run_uuid"]
    other = json.loads(RUN.read_text())
    other["userT"]["exec_path"] = "/usr/bin/other-program"
    other["hash_id"] = "e" * 40
    first, second = tmp_path / "a" / f"run.x.aaa.{uuid}.json", tmp_path / "b" / f"run.y.aaa.{uuid}.json"
    for path, record in ((first, rec), (second, other)):
        path.parent.mkdir()
        path.write_text(signed(record))
    same = tmp_path / "c" / f"run.z.aaa.{uuid}.json"  # the same record again: one run
    same.parent.mkdir()
    same.write_bytes(first.read_bytes())
    [_], [two], [three] = lin.load([first]), lin.load([second]), lin.load([same])
    assert two.status == "loaded" and two.report["duplicate_uids_of_other_inputs"] == 1
    assert any("/usr/bin/other-program" in w and "duplicate" in w for w in two.report["warnings"])
    assert "duplicate_uids_of_other_inputs" not in three.report
    [run] = lin.query("MATCH (x:Execution {uid: $u})-[:USED]->(e:Executable) "
                      "RETURN x.exec_path AS path, collect(e.path) AS exes", u=f"xalt:run:{uuid}")
    assert run == {"path": rec["userT"]["exec_path"], "exes": [rec["userT"]["exec_path"]]}
    counts = json.loads(lin.query("MATCH (l:Load) WHERE l.path = $p RETURN l.counts AS c",
                                  p=str(second))[0]["c"])
    assert counts["duplicate_uids_of_other_inputs"] == 1
