"""Nothing is dropped silently: what the Swift log, Swift database and PROV readers do not turn
into graph facts is counted by reason in the load report (damage also warned about, once)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import psycopg
import pytest

from lineage import model
from lineage.answers import exchange
from lineage.model.records import Edge
from lineage.sources.base import LoadReport
from lineage.sources.prov.provjson import parse_provjson
from lineage.sources.swift import db as swift_db
from lineage.sources.swift import log as swift_log

from .conftest import SAMPLES
from .swift_pg import postgres  # noqa: F401  (the session fixture)
from .corpus import needs_corpus

LOGS = sorted((SAMPLES / "swift").glob("*.log"))
STRCAT = SAMPLES / "swift" / "003-strcat-20090316-1712-bmdnrfi6.log"
STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\S*\s+[A-Z]+\s+(\S+)\s?(.*)$")
PROVENANCE_WORDS = {"PARAM", "CONTAINMENT", "FILENAME", "VALUE", "PROCEDURE", "OPERATOR",
                    "FUNCTION", "FUNCTIONPARAMETER", "SCOPE", "RUNID", "FILE_STAGE_OUT_START"}


def read(path: Path, lenient: bool = False):
    report = LoadReport(str(path), "swift-log", lenient=lenient)
    prov = swift_log.read_log(path, report)
    return prov, report, report.extra["swift_log"]


def expected_counts(path: Path) -> Counter:
    """The counters of one log, classified here line by line (independently of the reader)."""
    want: Counter = Counter()
    facts: set[str] = set()
    said: dict[tuple[str, str], str] = {}
    for line in path.read_text().splitlines():
        want["lines"] += 1
        m = STAMP.match(line)
        if m is None:
            want["other_continuation_lines"] += 1  # the samples continue no provenance line
            continue
        want["entries"] += 1
        cls, message = m.groups()
        word = message.split(" ", 1)[0]
        if word in ("VALUE", "PROCEDURE"):
            key = re.search(r"(?:dataset|thread)=(\S+)", message).group(1)
            value = re.search(r"(?:VALUE|name)=(.*)$", message).group(1)
            if (word, key) in said:
                want["repeated_values" if said[(word, key)] == value
                     else "duplicate_values"] += 1
            said.setdefault((word, key), value)
        if word in PROVENANCE_WORDS or cls in ("vdl:execute", "vdl:execute2"):
            continue
        if cls == "vdl:dostagein":
            used = word == "START" and "Staging in files" in message
            want["other_stage_events"] += not used
        elif cls == "vdl:dostageout":
            want["other_stage_events"] += word not in ("START", "END")
        elif "Swift finished with no errors" in message:
            continue
        elif cls == "Loader" and ": source file" in message and "script" not in facts:
            facts.add("script")
        elif "swift-r" in message and "version" not in facts:
            facts.add("version")
        else:
            want["other_entries"] += 1
    return +want


# ------------------------------------------------------------------ Swift logs
@needs_corpus
@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:14])
def test_every_line_of_a_sample_log_is_accounted_for(path):
    prov, report, counts = read(path)
    assert counts == expected_counts(path)
    assert counts["other_entries"] > 0
    assert set(counts) <= set(swift_log.COUNTERS)  # every counter is documented
    assert counts["lines"] == (counts["entries"] + counts.get("other_continuation_lines", 0)
                               + counts.get("value_continuation_lines", 0))
    # the real samples hold no damage: only the partial-provenance note, no skips
    assert not set(counts) & set(swift_log.DAMAGE)
    assert not report.skipped and not report.unknown
    assert all("no provenance lines" in w for w in report.warnings)


@needs_corpus
def test_entries_used_and_other_add_up_on_the_largest_sample():
    fmri = SAMPLES / "swift" / "130-fmri-20090316-1729-mxxea3a1.log"
    _, _, counts = read(fmri)
    total = sum(1 for line in fmri.read_text().splitlines() if STAMP.match(line))
    used = total - counts["other_entries"] - counts["other_stage_events"]
    assert counts["entries"] == total and 0 < used < total
    assert counts["repeated_values"] == 6  # VALUE lines Swift logs twice, same value


def with_lines(tmp_path: Path, source: Path, edit) -> Path:
    """A copy of a sample log with its lines edited."""
    lines = source.read_text().splitlines()
    path = tmp_path / source.name
    path.write_text("\n".join(edit(lines)) + "\n")
    return path


@needs_corpus
def test_conflicting_values_are_counted_and_warned_once(tmp_path):
    lines = STRCAT.read_text().splitlines()
    i, value_line = next((i, ln) for i, ln in enumerate(lines) if " VALUE dataset=" in ln)
    first = value_line.rsplit("VALUE=", 1)[1]
    stamp = value_line.split(" INFO ", 1)[0]
    dataset = re.search(r"dataset=(\S+)", value_line).group(1)
    extra = [value_line,  # a repeat: benign
             value_line.replace(f"VALUE={first}", "VALUE=other one"),
             value_line.replace(f"VALUE={first}", "VALUE=third"),
             f"{stamp} INFO  greeting PROCEDURE thread=0-9 name=one",
             f"{stamp} INFO  greeting PROCEDURE thread=0-9 name=two"]
    path = with_lines(tmp_path, STRCAT, lambda ls: ls[:i + 1] + extra + ls[i + 1:])
    prov, report, counts = read(path)  # strict: counted, not an error
    assert prov.datasets[dataset].value == first
    assert counts["duplicate_values"] == 3 and counts["repeated_values"] == 1
    [warning] = [w for w in report.warnings if "second, different value" in w]
    assert f"{first!r}, then 'other one'" in warning and ": 3 (the first: line " in warning
    assert counts == expected_counts(path)
    assert set(counts) <= set(swift_log.COUNTERS) | set(swift_log.DAMAGE)


@needs_corpus
def test_lines_before_the_first_entry_are_counted(tmp_path):
    path = with_lines(tmp_path, STRCAT, lambda ls: ["junk before", "more junk", *ls])
    _, report, counts = read(path)
    assert counts["lines_without_entry"] == 2
    [warning] = [w for w in report.warnings if "belong to no log entry" in w]
    assert "line 1: 'junk before'" in warning


@needs_corpus
def test_continuation_lines_are_counted_by_what_they_continue(tmp_path):
    lines = STRCAT.read_text().splitlines()
    stamp = lines[0].split(" INFO ", 1)[0]
    tail = [f"{stamp} INFO  AbstractDataNode FILENAME dataset=d:1 filename=file://localhost/a",
            "b.txt",
            f"{stamp} INFO  AbstractDataNode VALUE dataset=d:2 VALUE=two",
            "lines",
            f"{stamp} INFO  Karajan a stack trace",
            "\tat x.y(Z.java:1)"]
    path = with_lines(tmp_path, STRCAT, lambda ls: ls + tail)
    prov, report, counts = read(path)
    base = expected_counts(STRCAT)
    assert counts["provenance_continuation_lines"] == 1
    assert counts["value_continuation_lines"] == 1
    assert counts["other_continuation_lines"] == base["other_continuation_lines"] + 1
    assert prov.datasets["d:2"].value == "two\nlines"
    assert prov.datasets["d:1"].filename == "file://localhost/a"
    assert sum("continuation lines of provenance lines" in w for w in report.warnings) == 1


SCRIPT_LOG = """\
2012-05-02 07:37:10,001-0500 INFO  Loader s.swift: source file is new. Recompiling.
2012-05-02 07:37:10,002-0500 INFO  Loader BEGIN SWIFTSCRIPT:
{script}
{end}2012-05-02 07:37:11,004-0500 INFO  unknown RUNID id=run:20120502-0737-s01
2012-05-02 07:37:11,006-0500 INFO  AbstractDataNode VALUE dataset=dataset:S:1 VALUE=1
2012-05-02 07:37:12,011-0500 DEBUG Loader Swift finished with no errors
"""


def test_script_lines_past_the_limit_are_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(swift_log, "MAX_SCRIPT", 40)
    script = "\n".join(f"int a{i} = {i}; // line {i}" for i in range(6))  # 27 bytes a line
    path = tmp_path / "s-20120502-0737-s01.log"
    path.write_text(SCRIPT_LOG.format(script=script, end="END SWIFTSCRIPT:\n"))
    prov, report, counts = read(path)
    assert prov.script == "int a0 = 0; // line 0\nint a1 = 1; // line 1\n"
    assert counts["script_lines"] == 8 and counts["script_lines_dropped"] == 4
    assert counts["entries"] == 4 and counts["lines"] == 12  # BEGIN SWIFTSCRIPT is no entry
    [warning] = [w for w in report.warnings if "script lines past" in w]
    assert "(the first: line 5)" in warning


def test_a_script_block_without_its_end_is_warned_about(tmp_path):
    path = tmp_path / "s-20120502-0737-s01.log"
    path.write_text(SCRIPT_LOG.format(script="int a = 1;", end=""))
    _, report, counts = read(path)
    assert counts["unterminated_script"] == 1 and counts["script_lines"] == 5
    assert sum("no END SWIFTSCRIPT" in w for w in report.warnings) == 1


# ------------------------------------------------------------------ Swift database
def test_unread_tables_and_tables_missing_columns_are_reported(postgres):  # noqa: F811
    url = postgres.create_database("provdb_accounting")
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE provenance_notes (id text, note text)")
        conn.execute("CREATE VIEW run_ids AS SELECT id FROM run")  # a view: not reported
        conn.execute("ALTER TABLE dataset_in DROP COLUMN parameter")
        conn.execute("ALTER TABLE annot_dataset_text DROP COLUMN value")
        conn.execute("ALTER TABLE rt_info DROP COLUMN io_write")
    report = LoadReport(url, "swift-db")  # strict: reported, not an error
    assert list(swift_db.parse(url, report)) == []
    assert report.extra["unread_tables"] == ["provenance_notes"]
    assert dict(report.unknown) == {"table provenance_notes": 1}
    assert report.extra["tables_missing_columns"] == {
        "annot_dataset_text": ["value"], "dataset_in": ["parameter"], "rt_info": ["io_write"]}
    [warning] = [w for w in report.warnings if "columns read from them" in w]
    assert "dataset_in (no parameter)" in warning and "rt_info (no io_write)" in warning


def test_a_complete_database_reports_nothing_unread(postgres):  # noqa: F811
    url = postgres.create_database("provdb_complete", id_style="entity")
    report = LoadReport(url, "swift-db")
    list(swift_db.parse(url, report))
    assert "unread_tables" not in report.extra and "tables_missing_columns" not in report.extra
    assert not report.unknown and not report.warnings


# ------------------------------------------------------------------ PROV relations
FOREIGN = {
    "prefix": {"ex": "http://example.org/"},
    "entity": {"ex:in": {}, "ex:out": {}},
    "activity": {"ex:run": {}},
    "agent": {"ex:alice": {}},
    "used": {"_:u1": {"prov:activity": "ex:run", "prov:entity": "ex:in",
                      "prov:time": "2020-01-01T00:00:00Z",
                      "prov:role": {"$": "ex:input", "type": "prov:QUALIFIED_NAME"},
                      "ex:note": "read twice"}},
    "wasGeneratedBy": {"_:g1": {"prov:entity": "ex:out", "prov:activity": "ex:run",
                                "prov:time": "2020-01-01T00:01:00Z",
                                "prov:role": {"$": "ex:result", "type": "prov:QUALIFIED_NAME"}}},
    "wasAssociatedWith": {"_:a1": {"prov:activity": "ex:run", "prov:agent": "ex:alice",
                                   "prov:plan": "ex:in", "prov:role": "operator"}},
    "wasDerivedFrom": {"_:d1": {"prov:generatedEntity": "ex:out", "prov:usedEntity": "ex:in",
                                "prov:activity": "ex:run"}},
}


def parse_document(tmp_path: Path, document: dict):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    report = LoadReport(str(path), "prov-json")
    records = list(parse_provjson(path, report))
    return [r for r in records if isinstance(r, Edge)], report


def test_relation_attributes_are_kept(tmp_path):
    """Another tool's relations keep every attribute: exactly, in ``prov_record`` (which the
    export writes back), and their time and one role as properties."""
    edges, report = parse_document(tmp_path, FOREIGN)
    props = {e.rel.name: e.props for e in edges if e.rel is not model.PART_OF}
    assert {name: {k: v for k, v in p.items() if k != "prov_record"}
            for name, p in props.items()} == {
        "USED": {"role": "ex:input", "time": 1577836800.0, "prov_id": None, "bundle": None},
        "WAS_GENERATED_BY": {"time": 1577836860.0, "prov_id": None, "bundle": None},
        "WAS_ASSOCIATED_WITH": {"role": "operator", "prov_id": None, "bundle": None},
        "WAS_DERIVED_FROM": {"prov_id": None, "bundle": None}}
    kept = {name: json.loads(p["prov_record"]) for name, p in props.items()}
    assert kept["USED"]["used"]["_:r"]["ex:note"] == "read twice"
    assert kept["WAS_GENERATED_BY"]["wasGeneratedBy"]["_:r"]["prov:role"]["$"] == "ex:result"
    assert kept["WAS_ASSOCIATED_WITH"]["wasAssociatedWith"]["_:r"]["prov:plan"] == "ex:in"
    assert kept["WAS_DERIVED_FROM"]["wasDerivedFrom"]["_:r"]["prov:activity"] == "ex:run"
    for edge in edges:  # only properties the model declares
        assert edge.rel.check(edge.props) == {k: v for k, v in edge.props.items()
                                              if v is not None}
    assert "dropped_relation_attributes" not in report.extra and not report.warnings
    assert not report.skipped and not report.unknown


def test_several_roles_are_all_kept(tmp_path):
    used = {"prov:activity": "ex:run", "prov:entity": "ex:in", "prov:role": ["ex:a", "ex:b"]}
    edges, report = parse_document(tmp_path, dict(FOREIGN, used={"_:u1": used}))
    [props] = [e.props for e in edges if e.rel is model.USED]
    assert "role" not in props  # not one role: the record holds them
    assert json.loads(props["prov_record"])["used"]["_:r"]["prov:role"] == ["ex:a", "ex:b"]
    assert "dropped_relation_attributes" not in report.extra


def test_a_document_lineage_wrote_drops_nothing(tmp_path, monkeypatch):
    """Our own (signed) export: relations come back as they were, nothing counted."""
    monkeypatch.setenv("LINEAGE_HOME", str(tmp_path / "home"))
    nodes = [{"uid": "xalt:run:r1", "kind": "Execution", "properties": {"uuid": "r1"}},
             {"uid": "xalt:library:0:/lib/libc.so", "kind": "Library",
              "properties": {"sha1": "0", "path": "/lib/libc.so"}}]
    edge = {"source": "xalt:run:r1", "type": "USED", "target": "xalt:library:0:/lib/libc.so",
            "properties": {"role": "loaded", "key": "libc"}}
    path = exchange.write(iter(nodes), iter([edge]), tmp_path / "ours.json", "prov-json")
    report = LoadReport(str(path), "prov-json")
    edges = [r for r in parse_provjson(path, report) if isinstance(r, Edge)]
    [used] = edges
    assert used.rel is model.USED and used.props == {"role": "loaded"} and used.key == "libc"
    assert "dropped_relation_attributes" not in report.extra and not report.warnings
