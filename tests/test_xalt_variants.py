"""Every older spelling of an XALT record (lineage/sources/xalt/spellings.py: ALIASES,
VALUE_FORMS) has a test generated from the table itself: a real sample record rewritten
to that spelling, loaded into Neo4j, gives the same graph as the sample as written today.
An entry added to the table is tested here without more code; a value form without a
test fails :func:`test_every_value_form_has_a_test`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lineage.model.records import Edge, Node
from lineage.sources.base import LoadReport
from lineage.sources.xalt.jsonfiles import detect_json, parse_json
from lineage.sources.xalt.spellings import ALIASES, KNOWN_KEYS, VALUE_FORMS, Alias

from .test_load_pegasus import graph_fingerprint
from .xalt_helpers import (BUILD_UUID, EXE_SHA1, LINK_S2, RUN_AAA, RUN_UUID, sample_run, signed,
                           zzz_from_aaa)
from .corpus import needs_corpus

#: The real samples, by kind: the run as its end record (so that end_time and run_time carry
#: a fact; the start record's are 0), the stampede2 link record.
SAMPLE = {"run": lambda: zzz_from_aaa(sample_run()),
          "link": lambda: json.loads(LINK_S2.read_text())}
NAME = {"run": RUN_AAA.name.replace(".aaa.", ".zzz."), "link": LINK_S2.name}
_CANONICAL_FINGERPRINT: dict[str, tuple] = {}


def _get(rec: dict, path: tuple[str, str]):
    table = rec if path[0] == "" else rec.get(path[0], {})
    return table.get(path[1])


def respell(record: dict, alias: Alias) -> dict:
    """The record with today's key of ``alias`` written the older way."""
    out = json.loads(json.dumps(record))
    new_table = out if alias.new[0] == "" else out[alias.new[0]]
    value = new_table.pop(alias.new[1])
    old_table = out if alias.old[0] == "" else out.setdefault(alias.old[0], {})
    old_table[alias.old[1]] = value
    return out


def dropped(record: dict, alias: Alias) -> dict:
    out = json.loads(json.dumps(record))
    (out if alias.new[0] == "" else out[alias.new[0]]).pop(alias.new[1])
    return out


def content(path: Path) -> list[str]:
    """The records parsed from ``path`` as comparable text (lenient: damage is counted)."""
    out = []
    for r in parse_json(path, LoadReport(str(path), "xalt-json", lenient=True)):
        if isinstance(r, Node):
            out.append(json.dumps(["node", r.uid, r.props], sort_keys=True, default=str))
        elif isinstance(r, Edge):
            out.append(json.dumps(["edge", r.start, r.rel, r.end, r.key, r.props],
                                  sort_keys=True, default=str))
    return sorted(out)


def load_one(lin, path: Path, text: str) -> dict:
    path.write_text(text)
    [result] = lin.load([path])
    assert result.status == "loaded", result.error
    return result.report


def canonical_fingerprint(lin, kind: str, tmp_path: Path) -> tuple:
    if kind not in _CANONICAL_FINGERPRINT:
        lin.reset(force=True)
        folder = tmp_path / "canonical"
        folder.mkdir()
        report = load_one(lin, folder / NAME[kind], signed(SAMPLE[kind]()))
        assert "older_spellings" not in report["xalt"]
        _CANONICAL_FINGERPRINT[kind] = graph_fingerprint(lin)
        lin.reset(force=True)
    return _CANONICAL_FINGERPRINT[kind]


@needs_corpus
@pytest.mark.parametrize("alias", ALIASES, ids=lambda a: f"{a.kind}:{a.old[0]}.{a.old[1]}")
def test_each_older_spelling_loads_like_today(lin, tmp_path, alias):
    sample = SAMPLE[alias.kind]()
    assert _get(sample, alias.new) is not None, f"the sample has no {alias.new} to respell"
    expected = canonical_fingerprint(lin, alias.kind, tmp_path)
    old = tmp_path / NAME[alias.kind]
    report = load_one(lin, old, signed(respell(sample, alias)))
    assert report["xalt"]["older_spellings"] == 1
    assert not report["unknown"], report["unknown"]
    assert graph_fingerprint(lin) == expected
    # the key carries a fact: without it (either spelling) the records differ
    gone = tmp_path / "gone" / NAME[alias.kind]
    gone.parent.mkdir()
    gone.write_text(signed(dropped(sample, alias)))
    today = tmp_path / "today2" / NAME[alias.kind]
    today.parent.mkdir()
    today.write_text(signed(sample))
    assert content(gone) != content(today) == content(old)


def test_the_table_is_consistent():
    """One entry per older path; today's path is one the mapping knows (never counted as
    unknown); no older key is also a key of today."""
    olds = [(a.kind, a.old) for a in ALIASES]
    assert len(olds) == len(set(olds))
    for a in ALIASES:
        assert a.new[1] in KNOWN_KEYS[(a.kind, a.new[0])], a
        assert a.old[1] not in KNOWN_KEYS.get((a.kind, a.old[0]), ()), a
        assert a.source.startswith("xalt/xalt "), a


@needs_corpus
def test_an_unknown_spelling_is_counted(tmp_path):
    rec = sample_run()
    rec["userT"]["jobID"] = rec["userT"].pop("job_id")
    f = tmp_path / RUN_AAA.name
    f.write_text(signed(rec))
    report = LoadReport(str(f), "xalt-json")
    list(parse_json(f, report))
    assert report.unknown == {"XALT run record key userT.jobID": 1}


# ------------------------------------------------------------------ whole vintages
def xalt0_run() -> dict:
    """The sample run as XALT 0.x wrote runs: times and counts in userT, no userDT, no
    cmdlineA, the watermark with dotted keys (src/xalt_run_submission.in.py)."""
    rec = sample_run()
    for alias in ALIASES:
        if alias.kind == "run" and _get(rec, alias.new) is not None and \
                alias.old[1] != "Build.Machine":
            rec = respell(rec, alias)
    for key in ("userDT", "cmdlineA", "ptA", "XALT_measureT"):
        rec.pop(key, None)
    return rec


def xalt0_link() -> dict:
    """The sample link as XALT 0.x wrote it: flat, linkA bare paths, build_host."""
    rec = json.loads(LINK_S2.read_text())
    flat = {k: v for k, v in rec["resultT"].items() if k != "build_syshost"}
    flat["build_host"] = rec["resultT"]["build_syshost"]
    flat["exit_code"] = "0"
    flat["linkA"] = sorted({p for p, _sha1 in rec["linkA"]})
    return flat


@needs_corpus
def test_xalt0_run_record_loads_its_facts(lin, tmp_path):
    rec = xalt0_run()
    assert "userDT" not in rec and "Build.UUID" in rec["xaltLinkT"]
    f = tmp_path / RUN_AAA.name
    f.write_text(json.dumps(rec, indent=2, sort_keys=True))  # as XALT 0.x wrote it
    assert detect_json(f, f.read_bytes()[:65536])
    [result] = lin.load([f])
    assert result.status == "loaded" and not result.report["unknown"]
    today = sample_run()
    row = lin.query(
        "MATCH (r:Execution {uid: $u})-[:USED {role: 'executable'}]->(e:Executable)"
        "-[:WAS_GENERATED_BY]->(b:Build) RETURN r, e.sha1 AS sha1, b",
        {"u": f"xalt:run:{RUN_UUID}"})
    assert len(row) == 1
    run, build = row[0]["r"], row[0]["b"]
    assert row[0]["sha1"] == EXE_SHA1 and build["uuid"] == BUILD_UUID
    dt = today["userDT"]
    assert (run["start_time"], run["cores"], run["nodes"], run["tasks"], run["threads"]) == (
        dt["start_time"], dt["num_cores"], dt["num_nodes"], dt["num_tasks"], dt["num_threads"])
    link = today["xaltLinkT"]
    assert (build["compiler"], build["build_user"], build["build_host"], build["build_os"],
            build["build_date"], build["build_epoch"]) == (
        link["Build_compiler"], link["Build_User"], link["Build_Syshost"], link["Build_OS"],
        link["Build_date"], float(link["Build_Epoch"]))


@needs_corpus
def test_xalt0_flat_link_record_loads_its_facts(lin, tmp_path):
    rec = xalt0_link()
    f = tmp_path / LINK_S2.name
    f.write_text(json.dumps(rec, indent=2, sort_keys=True))
    assert detect_json(f, f.read_bytes())
    [result] = lin.load([f])
    assert result.status == "loaded" and not result.report["unknown"]
    today = json.loads(LINK_S2.read_text())["resultT"]
    [row] = lin.query("MATCH (e:Executable)-[:WAS_GENERATED_BY]->(b:Build {uuid: $u}) "
                      "OPTIONAL MATCH (b)-[:USED {role: 'linked'}]->(x) "
                      "RETURN e.sha1 AS sha1, b, collect(x.path) AS linked, "
                      "collect(x.sha1) AS sha1s", {"u": BUILD_UUID})
    assert row["sha1"] == EXE_SHA1
    b = row["b"]
    assert (b["compiler"], b["compiler_path"], b["build_user"], b["build_host"], b["wd"],
            b["exec_path"], b["build_epoch"]) == (
        today["link_program"], today["link_path"], today["build_user"],
        today["build_syshost"], today["wd"], today["exec_path"], float(today["build_epoch"]))
    assert sorted(row["linked"]) == rec["linkA"] and row["sha1s"] == []  # no sha1 then


# ------------------------------------------------------------------ value forms
def _bare_link_paths(lin, tmp_path):
    test_xalt0_flat_link_record_loads_its_facts(lin, tmp_path)


def _unknown_sha1(lin, tmp_path):
    """'unknown' (Python writers) and '0' (C writers) both mean: no sha1."""
    def libraries(placeholder: str) -> list:
        lin.reset(force=True)
        rec = sample_run()
        rec["libA"] = [[path, placeholder] for path, _ in rec["libA"]]
        f = tmp_path / placeholder / RUN_AAA.name
        f.parent.mkdir()
        f.write_text(signed(rec))
        lin.load([f])
        return lin.query("MATCH (:Execution)-[:USED {role: 'loaded'}]->(l:Library) "
                         "RETURN l.uid AS uid, l.sha1 AS sha1 ORDER BY uid")
    zero, unknown = libraries("0"), libraries("unknown")
    assert unknown == zero and zero and all(r["sha1"] is None for r in zero)
    assert all(r["uid"].startswith("xalt:library:0:") for r in zero)


VALUE_FORM_TESTS = {
    "linkA entry as a bare path": _bare_link_paths,
    "sha1 placeholder 'unknown'": _unknown_sha1,
}


@needs_corpus
def test_every_value_form_has_a_test():
    assert set(VALUE_FORM_TESTS) == set(VALUE_FORMS)


@needs_corpus
@pytest.mark.parametrize("form", sorted(VALUE_FORMS))
def test_each_value_form_loads(lin, tmp_path, form):
    VALUE_FORM_TESTS[form](lin, tmp_path)
