"""Swift logs: parse-level and graph-level counts held to the original importer's rules."""

import re
from pathlib import Path

import pytest

from lineage.sources import registry as loaders
from lineage.errors import ParseError
from lineage.sources.swift import log as swift_log
from lineage.sources.base import LoadReport
from lineage.model.records import Edge, Node

from .conftest import SAMPLES
from .swift_oracle import importer_counts
from .corpus import needs_corpus

LOGS = sorted((SAMPLES / "swift").glob("*.log"))
STAMP = "2009-03-16 17:11:31,{ms:03d}+0100"

# Checked by hand against the logs (and equal to the grep oracle below):
# runs, calls, executions, datasets, mapped file names, containment edges, parameter edges
BY_HAND = {
    "001-echo": (1, 2, 1, 3, 1, 0, 1),
    "0012-echo-map": (1, 2, 1, 3, 1, 0, 1),
    "002-param": (1, 2, 1, 3, 1, 0, 2),
    "0024-compound": (1, 3, 2, 6, 2, 0, 4),
    # no PARAM lines (provenance was off): the run, its root call and 10 VALUE datasets
    "0026-function-param": (1, 1, 0, 10, 0, 0, 0),
    "003-strcat": (1, 2, 1, 6, 2, 0, 2),
    "004-strcat-in-arg": (1, 2, 1, 5, 1, 0, 2),
    "0053-toint": (1, 2, 1, 9, 3, 0, 2),
    "085-iterate": (1, 3, 12, 55, 15, 12, 25),
    "130-fmri": (1, 28, 11, 84, 34, 40, 85),
}
KEYS = ("runs", "calls", "executions", "datasets", "mapped", "containment", "parameter_edges")


def short(path: Path) -> str:
    return path.name.split("-2009")[0]


def parse_counts(path: Path) -> dict:
    report = LoadReport(str(path), "swift-log")
    records = list(swift_log.parse(path, report))
    nodes: dict[str, dict] = {}
    for r in records:
        if isinstance(r, Node):
            nodes.setdefault(r.kind.label, {}).setdefault(r.uid, {}).update(r.props)
    edges = {(r.rel.name, r.start, r.end, r.key) for r in records if isinstance(r, Edge)}
    return dict(
        runs=len(nodes.get("ScriptRun", {})),
        calls=len(nodes.get("FunctionCall", {})),
        executions=len(nodes.get("AppExecution", {})),
        datasets=len(nodes.get("Dataset", {})),
        mapped=sum(1 for p in nodes.get("Dataset", {}).values() if p.get("filename")),
        containment=sum(1 for e in edges if e[0] == "HAD_MEMBER"),
        parameter_edges=sum(1 for e in edges if e[0] in ("USED", "WAS_GENERATED_BY")),
    )


@needs_corpus
def test_every_sample_log_is_in_the_table():
    assert {short(p) for p in LOGS} == set(BY_HAND)


@needs_corpus
@pytest.mark.parametrize("path", LOGS, ids=short)
def test_hand_counts_agree_with_the_importer_grep_rules(path):
    assert tuple(importer_counts(path)[k] for k in KEYS) == BY_HAND[short(path)]


@needs_corpus
@pytest.mark.parametrize("path", LOGS, ids=short)
def test_parse_counts_follow_the_importer(path):
    assert parse_counts(path) == importer_counts(path)


@needs_corpus
@pytest.mark.parametrize("path", LOGS, ids=short)
def test_graph_counts_follow_the_importer(lin, path):
    [result] = lin.load([path])
    want = importer_counts(path)
    if want["runs"] == 0:
        assert result.status == "empty"
        assert any("no provenance lines" in w for w in result.report["warnings"])
        assert lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"] == 0
        return
    assert result.status == "loaded" and result.write.unresolved_edges == 0

    def n(cypher):
        return lin.query(cypher)[0]["n"]

    got = dict(
        runs=n("MATCH (r:ScriptRun:Run:Activity) RETURN count(r) AS n"),
        calls=n("MATCH (:ScriptRun)<-[:PART_OF]-(c:FunctionCall) RETURN count(c) AS n"),
        executions=n("MATCH (:ScriptRun)<-[:PART_OF]-(:FunctionCall)<-[:INSTANCE_OF]-"
                     "(e:AppExecution) RETURN count(e) AS n"),
        datasets=n("MATCH (d:Dataset:Entity) RETURN count(d) AS n"),
        mapped=n("MATCH (d:Dataset) WHERE d.filename IS NOT NULL RETURN count(d) AS n"),
        containment=n("MATCH (:Dataset)-[r:HAD_MEMBER]->(:Dataset) RETURN count(r) AS n"),
        parameter_edges=n("MATCH (:FunctionCall)-[r:USED]->(:Dataset) RETURN count(r) AS n")
        + n("MATCH (:Dataset)-[r:WAS_GENERATED_BY]->(:FunctionCall) RETURN count(r) AS n"),
    )
    assert got == want
    assert n("MATCH (r:ScriptRun {status: 'succeeded', final_state: 'SUCCESS'}) "
             "RETURN count(r) AS n") == 1
    assert n("MATCH ()-[r:USED|WAS_GENERATED_BY]->() WHERE r.parameter IS NULL "
             "OR r.parameter <> r.key RETURN count(r) AS n") == 0


@needs_corpus
def test_fmri_details(lin):
    fmri = SAMPLES / "swift" / "130-fmri-20090316-1729-mxxea3a1.log"
    lin.load([fmri])
    run = "130-fmri-20090316-1729-mxxea3a1"
    [r] = lin.query("MATCH (r:ScriptRun {uid: $u}) RETURN r.swift_version AS sv, "
                    "r.cog_version AS cv, r.script_filename AS sf, r.duration AS d, "
                    "r.start_time AS st", u=f"swift:run:{run}")
    assert (r["sv"], r["cv"], r["sf"]) == ("2522", "2325", "130-fmri.swift")
    assert r["d"] > 0 and r["st"] > 1237000000
    [c] = lin.query("MATCH (c:FunctionCall {uid: $u}) RETURN c.type AS t, c.name AS n, "
                    "c.app_name AS a, c.final_state AS s, c.attempts AS k",
                    u=f"swift:call:{run}:0-4-1")
    assert c == {"t": "execute", "n": "align", "a": "touch", "s": "END_SUCCESS", "k": 1}
    ds = "tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1729-x8j87htb:720000000052"
    params = lin.query("MATCH (d:Dataset {uid: $d})-[g:WAS_GENERATED_BY]->(c) "
                       "RETURN c.call_id AS c, g.parameter AS p ORDER BY c",
                       d=f"swift:dataset:{ds}")
    assert params == [{"c": f"{run}:0-4-1", "p": "o"},
                      {"c": f"{run}:x8j87htb:720000000052", "p": "collection"}]
    [e] = lin.query("MATCH (e:AppExecution)-[:INSTANCE_OF]->(:FunctionCall {uid: $u}) "
                    "RETURN e.site AS site, e.attempt AS a, e.final_state AS s, e.name AS job",
                    u=f"swift:call:{run}:0-4-1")
    assert e == {"site": "localhost", "a": 1, "s": "JOB_END", "job": "touch-3tdga18j"}


@needs_corpus
def test_a_thread_reused_by_an_iteration_is_one_call_with_many_executions():
    # r2522 reused thread 0-2 for all 12 iterations: the importer's ids make it one call
    path = SAMPLES / "swift" / "085-iterate-20090316-1728-d8y6za69.log"
    prov = swift_log.read_log(path, LoadReport(str(path), "swift-log"))
    call = prov.calls["085-iterate-20090316-1728-d8y6za69:0-2"]
    assert (call.type, call.name, call.app_name, call.attempts) == \
        ("execute", "greeting", "echo", 12)
    outputs = [k for k in prov.dataset_out if k[0] == call.id]
    assert len(outputs) == 12 and {k[2] for k in outputs} == {"t"}


def log_text(*messages: str) -> str:
    return "\n".join(STAMP.format(ms=i) + " " + m for i, m in enumerate(messages)) + "\n"


HEAD = ("INFO  Loader t.swift: source file is new. Recompiling.",
        "INFO  unknown RUNID id=tag:x,2007:swift:run:20090316-1711-abc")
DS = "tag:x,2008:swift:dataset:20090316-1711-zzz:72000000000"


def test_multi_line_entries_do_not_start_facts(tmp_path):
    text = log_text(
        *HEAD,
        f"INFO  vdl:parameterlog PARAM thread=0 direction=input variable=s provenanceid={DS}1",
        f"INFO  AbstractDataNode VALUE dataset={DS}1 VALUE=two\nlines",
        "INFO  Karajan <xml>\n  PARAM thread=9 direction=output variable=x provenanceid=FAKE\n"
        f"  CONTAINMENT parent={DS}1 child={DS}9\n</xml>",
        "DEBUG Loader Swift finished with no errors",
    )
    path = tmp_path / "t-20090316-1711-abc.log"
    path.write_text(text)
    prov = swift_log.read_log(path, LoadReport(str(path), "swift-log"))
    assert sorted(prov.datasets) == [f"{DS}1"]
    assert prov.datasets[f"{DS}1"].value == "two\nlines"
    assert list(prov.dataset_in) == [("t-20090316-1711-abc:0", f"{DS}1", "s")]
    assert not prov.containment and prov.run.final_state == "SUCCESS"
    assert prov.run.id == "t-20090316-1711-abc"


def test_script_source_operators_and_parallel_parameters(tmp_path):
    text = log_text(
        *HEAD,
        "INFO  Loader BEGIN SWIFTSCRIPT:\nint a = 1;\nPARAM thread=7 direction=x\nEND SWIFTSCRIPT:",
        f'INFO  vdl:operators OPERATOR thread=0-1 operator="+" lhs={DS}1 rhs={DS}1 result={DS}2',
        f"INFO  vdl:parameterlog PARAM thread=0 direction=input variable=s provenanceid={DS}2",
        "INFO  vdl:scope SCOPE thread=0-3",
    )
    path = tmp_path / "t.log"
    path.write_text(text)
    records = list(swift_log.parse(path, LoadReport(str(path), "swift-log")))
    used = [(r.start, r.end, r.key) for r in records
            if isinstance(r, Edge) and r.rel.name == "USED"]
    op = "swift:call:t-20090316-1711-abc:operator:0-1"
    assert (op, f"swift:dataset:{DS}1", "lhs") in used
    assert (op, f"swift:dataset:{DS}1", "rhs") in used
    scripts = [r for r in records if isinstance(r, Node) and r.kind.label == "Script"]
    assert any(r.props.get("source") == "int a = 1;\nPARAM thread=7 direction=x\n" for r in scripts)
    types = {r.props["call_id"]: r.props["type"] for r in records
             if isinstance(r, Node) and r.kind.label == "FunctionCall" and "type" in r.props}
    assert types["t-20090316-1711-abc:0-3"] == "scope"
    runs = [r for r in records if isinstance(r, Node) and r.kind.label == "ScriptRun"]
    assert runs[0].props["final_state"] == "FAIL" and runs[0].props["status"] == "failed"


def test_malformed_param_is_an_error_or_skipped_when_lenient(tmp_path):
    path = tmp_path / "bad.log"
    path.write_text(log_text(*HEAD, "INFO  vdl:parameterlog PARAM thread=0 direction=input",
                             f"INFO  vdl:parameterlog PARAM thread=0 direction=input "
                             f"variable=s provenanceid={DS}1"))
    with pytest.raises(ParseError) as err:
        list(swift_log.parse(path, LoadReport(str(path), "swift-log")))
    assert "bad.log" in str(err.value) and "3" in str(err.value)
    lenient = LoadReport(str(path), "swift-log", lenient=True)
    records = list(swift_log.parse(path, lenient))
    assert sum(lenient.skipped.values()) == 1 and any(isinstance(r, Edge) for r in records)


@needs_corpus
def test_detection_is_specific():
    for path in LOGS:
        assert loaders.detect(path).name == "swift-log"
    others = [p for p in SAMPLES.rglob("*") if p.is_file() and p.parent.name != "swift"]
    assert others
    for path in others:
        fmt = loaders.detect(path)
        assert fmt is None or fmt.source != "swift", path
    assert not swift_log.detect(Path("x.log"), b"2009-03-16 17:11:31,599+0100 INFO  app started\n")
    assert not swift_log.detect(Path("x.log"), b"ts=2009 event=stampede.xwf.start RUNID id=1\n")


def test_hostile_bytes_and_crlf_are_read(tmp_path):
    text = log_text(*HEAD,
                    f"INFO  vdl:parameterlog PARAM thread=0 direction=input variable=s "
                    f"provenanceid={DS}1",
                    f"INFO  AbstractDataNode VALUE dataset={DS}1 VALUE=<script>'\"x")
    path = tmp_path / "h.log"
    path.write_bytes(text.replace("\n", "\r\n").encode()
                     .replace(b"<script>'\"x", b"<script>'\"x\xff"))
    prov = swift_log.read_log(path, LoadReport(str(path), "swift-log"))
    assert prov.datasets[f"{DS}1"].value == "<script>'\"x\ufffd"
    assert list(prov.dataset_in) == [("t-20090316-1711-abc:0", f"{DS}1", "s")]


#: What a run without provenance logging or any Swift fact leaves in its log: no provenance
#: lines, no datasets, no app calls (the words of the lines dropped from a sample).
FACT_WORDS = (" PARAM ", " CONTAINMENT ", " FILENAME ", " VALUE ", " PROCEDURE ", " OPERATOR ",
              " FUNCTION", " SCOPE ", "vdl:execute", "vdl:dostage", "FILE_STAGE", " ROOTPATH ",
              "swift:dataset:")


def without_facts(path: Path, tmp_path: Path, finished: bool = True) -> Path:
    """A sample log as a run without provenance logging and without datasets or app calls
    writes it (a script that only traces): every fact line dropped, with its continuation
    lines; the run's lines kept (RUNID, the Swift version, the source file, and, when
    ``finished``, 'Swift finished with no errors')."""
    out, dropping = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = line[:4].isdigit()
        if entry:
            dropping = any(word in line for word in FACT_WORDS) or (
                not finished and "Swift finished with no errors" in line)
        if not dropping:  # an entry's continuation lines go with it
            out.append(line)
    bare = tmp_path / path.name
    bare.write_text("\n".join(out) + "\n", encoding="utf-8")
    return bare


@needs_corpus
@pytest.mark.parametrize("finished", [True, False], ids=["success", "failure"])
def test_a_run_without_provenance_lines_is_a_script_run(lin, tmp_path, finished):
    """A log of a run with no provenance line and no Swift fact is still a run the log
    names: a ScriptRun with its run id, Swift and CoG versions, final state, start and
    duration (it loaded as empty)."""
    bare = without_facts(LOGS[0], tmp_path, finished)
    text = bare.read_text()
    assert "RUNID id=" in text and " PARAM " not in text and "swift:dataset:" not in text
    assert ("Swift finished with no errors" in text) is finished
    [result] = lin.load([bare])  # strict
    assert result.status == "loaded"
    assert any("no provenance lines" in w for w in result.report["warnings"])
    [run] = lin.query("MATCH (r:ScriptRun:Run) RETURN properties(r) AS p")
    run = run["p"]
    stamps = re.findall(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+)(\+\d{4}) ", text, re.M)
    times = [swift_log.parse_time(stamp, zone) for stamp, zone in stamps]
    assert (run["run_id"], run["swift_version"], run["cog_version"], run["final_state"],
            run["start_time"], run["duration"], run["script_filename"]) == (
        "001-echo-20090316-1711-i7icnjl1", "2522", "2325", "SUCCESS" if finished else "FAIL",
        times[0], round(times[-1] - times[0], 3), "001-echo.swift")
    assert lin.query("MATCH (d:Dataset) RETURN count(d) AS n") == [{"n": 0}]
