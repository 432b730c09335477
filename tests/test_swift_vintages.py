"""Every spelling of :data:`lineage.sources.swift.log.SPELLINGS`, one test each.

Each test reads a real sample log (``$LINEAGE_CORPUS/samples/swift/``, Swift r2522, March 2009), or
a minimal variant derived from its real lines: a value given spaces, a line spelled as
another Swift build writes it. ``COVERED`` names the test of each (event, vintage) pair and
a test checks that it lists exactly the pairs of the table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lineage.errors import ParseError
from lineage.sources.swift import log as swift_log
from lineage.sources.base import LoadReport
from lineage.model.records import Node

from .conftest import SAMPLES
from .corpus import needs_corpus

SWIFT = SAMPLES / "swift"
ECHO = SWIFT / "001-echo-20090316-1711-i7icnjl1.log"
STRCAT = SWIFT / "003-strcat-20090316-1712-bmdnrfi6.log"
ITERATE = SWIFT / "085-iterate-20090316-1728-d8y6za69.log"
FMRI = SWIFT / "130-fmri-20090316-1729-mxxea3a1.log"
NO_PARAM = SWIFT / "0026-function-param-20090316-1712-akkmuv7f.log"
STRCAT_DS = "tag:benc@ci.uchicago.edu,2008:swift:dataset:20090316-1712-u8b2d5ig:72000000000"
STRCAT_RUN = "003-strcat-20090316-1712-bmdnrfi6"
FMRI_RUN = "130-fmri-20090316-1729-mxxea3a1"

LATE = "provenance id, late 2009 onwards"
MARCH = "March 2009, thread only"
COVERED = {
    ("PARAM", "2008 onwards"): "test_param",
    ("CONTAINMENT", "2008 onwards"): "test_containment",
    ("FILENAME", "2008 onwards"): "test_filenames_with_spaces_stay_whole",
    ("VALUE", "2008 onwards"): "test_value_with_spaces_and_continuation",
    ("PROCEDURE", "2008 onwards"): "test_procedure",
    ("OPERATOR", "2009 onwards"): "test_operator",
    ("FUNCTION", LATE): "test_function_with_provenance_id",
    ("FUNCTION", MARCH): "test_function_march_2009_thread_only",
    ("FUNCTIONPARAMETER", LATE): "test_function_parameter_with_provenance_id",
    ("FUNCTIONPARAMETER", MARCH): "test_function_parameter_march_2009_before_its_function",
    ("SCOPE", "2009 onwards"): "test_scope",
    ("RUNID", "2007 onwards"): "test_runid",
    ("FILE_STAGE_OUT_START", "with the job id (as prov-to-sql.sh reads it)"):
        "test_stage_out_line_with_job_id",
    ("FILE_STAGE_OUT_START",
     "vdl-int.k 2008-2012: the job is the open vdl:dostageout START jobid="):
        "test_stage_out_lines_go_to_the_job_that_wrote_them",
    ("vdl:execute", "2007 onwards"): "test_execute",
    ("vdl:execute2", "2008 onwards"): "test_execute2_arguments_and_tmpdir_stay_whole",
    ("vdl:dostagein", "2008 onwards"): "test_stage_in_list_with_spaces",
    ("vdl:dostageout", "2008 onwards"): "test_stage_out_outside_dostageout_is_counted",
}


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def read(path: Path, lenient: bool = False) -> tuple[swift_log.SwiftProvenance, LoadReport]:
    report = LoadReport(str(path), "swift-log", lenient=lenient)
    return swift_log.read_log(path, report), report


def derived(tmp_path: Path, source: Path, lines: list[str]) -> Path:
    """A variant of a real log under the same file name (so the run id stays the same)."""
    path = tmp_path / source.name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def insert_after(lines: list[str], needle: str, new: list[str]) -> list[str]:
    """The lines with ``new`` after the first line containing ``needle`` (same timestamp)."""
    i = next(i for i, line in enumerate(lines) if needle in line)
    stamp = lines[i][:29]
    return lines[: i + 1] + [f"{stamp} {text}" for text in new] + lines[i + 1:]


def test_every_spelling_has_its_test():
    table = {(event, s.vintage) for event, spellings in swift_log.SPELLINGS.items()
             for s in spellings}
    assert set(COVERED) == table
    for name in COVERED.values():
        assert callable(globals()[name]), name


# ------------------------------------------------------------------ dataset lines
@needs_corpus
def test_param():
    prov, _ = read(ECHO)
    params = [ln for ln in lines_of(ECHO) if " PARAM " in ln]
    assert len(params) == len(prov.dataset_in) + len(prov.dataset_out) == 1
    [(call, ds, variable)] = prov.dataset_out
    assert (call, variable) == ("001-echo-20090316-1711-i7icnjl1:0", "t")
    assert params[0].endswith(f"provenanceid={ds}")


@needs_corpus
def test_containment():
    prov, _ = read(ITERATE)
    pairs = {re.search(r"parent=(\S+) child=(\S+)$", ln).groups()
             for ln in lines_of(ITERATE) if " CONTAINMENT " in ln}
    assert set(prov.containment) == pairs and len(pairs) == 12
    assert all(prov.datasets[parent].collection for parent, _ in pairs)


@needs_corpus
def test_filenames_with_spaces_stay_whole(tmp_path):
    # the three jpegs of the real fmri log, renamed with spaces: three files, three names
    lines = [re.sub(r"130-fmri\.(000\d)\.jpeg", r"130 fmri \1.jpeg", ln)
             for ln in lines_of(FMRI)]
    prov, report = read(derived(tmp_path, FMRI, lines))
    jpegs = sorted(d.filename for d in prov.datasets.values()
                   if d.filename and "130 fmri" in d.filename)
    assert jpegs == [f"file://localhost/130 fmri 000{i}.jpeg" for i in range(3)]
    staged = sorted(n for e in prov.execs.values() for n in e.stage_out if "130 fmri" in n)
    assert staged == jpegs
    assert not report.skipped and not report.warnings


@needs_corpus
def test_value_with_spaces_and_continuation(tmp_path):
    lines = [ln.replace("VALUE=abcqux", "VALUE=abc  qux ") for ln in lines_of(STRCAT)]
    i = next(i for i, ln in enumerate(lines) if "VALUE=abc  qux" in ln)
    lines.insert(i + 1, "second line of the value")
    prov, _ = read(derived(tmp_path, STRCAT, lines))
    assert prov.datasets[STRCAT_DS + "5"].value == "abc  qux \nsecond line of the value"
    assert prov.datasets[STRCAT_DS + "1"].value == "abc"


@needs_corpus
def test_procedure():
    prov, _ = read(FMRI)
    names = dict(re.search(r"thread=(\S+) name=(\S+)$", ln).groups()
                 for ln in lines_of(FMRI) if " PROCEDURE " in ln)
    assert len(names) == 11
    for thread, name in names.items():
        assert prov.calls[f"{FMRI_RUN}:{thread}"].name == name


@needs_corpus
def test_operator(tmp_path):
    lines = insert_after(lines_of(STRCAT), "VALUE=abcqux", [
        f'INFO  vdl:operators OPERATOR thread=0 operator="+" lhs={STRCAT_DS}1 '
        f"rhs={STRCAT_DS}2 result={STRCAT_DS}5"])
    prov, _ = read(derived(tmp_path, STRCAT, lines))
    op = f"{STRCAT_RUN}:operator:0"
    assert (prov.calls[op].type, prov.calls[op].name) == ("operator", "+")
    assert {(c, d, p) for c, d, p in prov.dataset_in if c == op} == \
        {(op, STRCAT_DS + "1", "lhs"), (op, STRCAT_DS + "2", "rhs")}
    assert (op, STRCAT_DS + "5", "result") in prov.dataset_out


# ------------------------------------------------------------------ built-in functions
def strcat_variant(tmp_path: Path, new: list[str]) -> swift_log.SwiftProvenance:
    """The real strcat log with function lines after the VALUE line of strcat's result."""
    lines = insert_after(lines_of(STRCAT), "VALUE=abcqux", new)
    prov, report = read(derived(tmp_path, STRCAT, lines))  # strict: refuses what it cannot read
    assert not report.skipped
    return prov


def function_io(prov, call_id: str) -> tuple[set, set]:
    ins = {(d, p) for c, d, p in prov.dataset_in if c == call_id}
    outs = {(d, p) for c, d, p in prov.dataset_out if c == call_id}
    return ins, outs


STRCAT_IO = ({(STRCAT_DS + "1", "undefined"), (STRCAT_DS + "2", "undefined")},
             {(STRCAT_DS + "5", "result")})


@needs_corpus
def test_function_with_provenance_id(tmp_path):
    prov = strcat_variant(tmp_path, [
        f"DEBUG VDLFunction FUNCTION id=451000 name=strcat result={STRCAT_DS}5",
        f"DEBUG VDLFunction FUNCTIONPARAMETER id=451000 input={STRCAT_DS}1 name=0",
        f"DEBUG VDLFunction FUNCTIONPARAMETER id=451000 input={STRCAT_DS}2 name=1"])
    call = prov.calls[f"{STRCAT_RUN}:451000"]
    assert (call.type, call.name) == ("function", "strcat")
    assert function_io(prov, call.id) == STRCAT_IO


@needs_corpus
def test_function_march_2009_thread_only(tmp_path):
    # two calls of strcat on one thread: two function calls, each with its own inputs
    prov = strcat_variant(tmp_path, [
        f"INFO  Misc FUNCTION thread=0 name=strcat result={STRCAT_DS}5",
        f"INFO  Misc FUNCTIONPARAMETER thread=0 input={STRCAT_DS}1",
        f"INFO  Misc FUNCTIONPARAMETER thread=0 input={STRCAT_DS}2",
        f"INFO  Misc FUNCTION thread=0 name=strcat result={STRCAT_DS}6",
        f"INFO  Misc FUNCTIONPARAMETER thread=0 input={STRCAT_DS}5"])
    first, second = (prov.calls[f"{STRCAT_RUN}:function:0:{n}"] for n in (1, 2))
    assert (first.type, first.name, second.name) == ("function", "strcat", "strcat")
    assert function_io(prov, first.id) == STRCAT_IO
    assert function_io(prov, second.id) == ({(STRCAT_DS + "5", "undefined")},
                                            {(STRCAT_DS + "6", "result")})


@needs_corpus
def test_function_parameter_with_provenance_id(tmp_path):
    # the late spelling adds name= after input=; the input id must not swallow it
    prov = strcat_variant(tmp_path, [
        f"DEBUG VDLFunction FUNCTION id=451001 name=strcat result={STRCAT_DS}5",
        f"DEBUG VDLFunction FUNCTIONPARAMETER id=451001 input={STRCAT_DS}1 name=s1"])
    assert function_io(prov, f"{STRCAT_RUN}:451001")[0] == {(STRCAT_DS + "1", "undefined")}


@needs_corpus
def test_function_parameter_march_2009_before_its_function(tmp_path):
    prov = strcat_variant(tmp_path, [
        f"INFO  Misc FUNCTIONPARAMETER thread=0-1 input={STRCAT_DS}1",
        f"INFO  Misc FUNCTIONPARAMETER thread=0-1 input={STRCAT_DS}2",
        f"INFO  Misc FUNCTION thread=0-1 result={STRCAT_DS}5"])
    call = prov.calls[f"{STRCAT_RUN}:function:0-1:1"]
    assert (call.type, call.name) == ("function", None)
    assert function_io(prov, call.id) == STRCAT_IO
    assert prov.calls[f"{STRCAT_RUN}:0-1"].type == "execute"  # the app call is its own


@needs_corpus
def test_a_function_line_of_no_known_spelling_is_an_error_or_skipped(tmp_path):
    lines = insert_after(lines_of(STRCAT), "VALUE=abcqux",
                         [f"INFO  Misc FUNCTION name=strcat result={STRCAT_DS}5"])
    path = derived(tmp_path, STRCAT, lines)
    bad_line = next(i for i, ln in enumerate(lines, 1) if "FUNCTION name=" in ln)
    with pytest.raises(ParseError) as err:
        read(path)
    message = str(err.value)
    assert str(path) in message and f":{bad_line}" in message
    assert "FUNCTION with id= name= result=" in message and "thread= result=" in message
    prov, report = read(path, lenient=True)
    assert sum(report.skipped.values()) == 1
    assert not any(c.type == "function" for c in prov.calls.values())


# ------------------------------------------------------------------ calls, runs, jobs
@needs_corpus
def test_scope(tmp_path):
    lines = insert_after(lines_of(ECHO), " PARAM ", ["INFO  vdl:scope SCOPE thread=0-2"])
    prov, _ = read(derived(tmp_path, ECHO, lines))
    scope = prov.calls["001-echo-20090316-1711-i7icnjl1:0-2"]
    assert (scope.type, scope.name) == ("scope", "scope")


@needs_corpus
def test_runid():
    prov, _ = read(ECHO)
    [runid] = [ln for ln in lines_of(ECHO) if " RUNID " in ln]
    assert runid.endswith("id=tag:benc@ci.uchicago.edu,2007:swift:run:20090316-1711-i7icnjl1")
    assert prov.run.id == "001-echo-20090316-1711-i7icnjl1"  # script name + the id's tail


@needs_corpus
def test_execute():
    prov, _ = read(FMRI)
    threads = {re.search(r"thread=(\S+)", ln).group(1)
               for ln in lines_of(FMRI) if " vdl:execute START " in ln}
    executes = {c.thread for c in prov.calls.values() if c.type == "execute"}
    assert executes == threads and len(threads) == 11
    call = prov.calls[f"{FMRI_RUN}:0-4-1"]
    assert (call.app_name, call.final_state) == ("touch", "END_SUCCESS")


@needs_corpus
def test_execute2_arguments_and_tmpdir_stay_whole():
    prov, _ = read(FMRI)
    [start] = [ln for ln in lines_of(FMRI) if "JOB_START jobid=touch-3tdga18j " in ln]
    arguments = re.search(r"arguments=(\[.*\]) tmpdir=", start).group(1)
    assert ", " in arguments  # a value with a blank in it
    ex = prov.execs[f"{FMRI_RUN}:touch-3tdga18j"]
    assert ex.extra["arguments"] == arguments
    assert ex.extra["scratch"] == f"{FMRI_RUN}/jobs/3/touch-3tdga18j"
    assert (ex.site, ex.extra["thread"], ex.extra["attempt"]) == ("localhost", "0-4-1-1", 1)


@needs_corpus
def test_stage_in_list_with_spaces(tmp_path):
    # r2522 writes an empty list; later builds the Java list of the files staged in
    lines = [ln + " [file://localhost/in put 1.txt, file://localhost/./b.txt]"
             if "vdl:dostagein START jobid=echo-17kp918j" in ln else ln
             for ln in lines_of(ECHO)]
    prov, _ = read(derived(tmp_path, ECHO, lines))
    ex = prov.execs["001-echo-20090316-1711-i7icnjl1:echo-17kp918j"]
    assert ex.stage_in == ["file://localhost/in put 1.txt", "file://localhost/b.txt"]


@needs_corpus
def test_stage_out_lines_go_to_the_job_that_wrote_them():
    prov, report = read(FMRI)
    mapped = {d.filename for d in prov.datasets.values() if d.filename}
    staged = {(e.extra["job_id"], n) for e in prov.execs.values() for n in e.stage_out}
    assert len(staged) == sum(" FILE_STAGE_OUT_START " in ln for ln in lines_of(FMRI)) == 16
    assert {n for _, n in staged} <= mapped  # spelled as the FILENAME lines spell them
    # touch-5 and touch-6 stage out in parallel (both vdl:dostageout START lines come first)
    elt = "file://localhost/_concurrent/aligned-f653668b-86c9-4171-8f2f-571168491b57--array//"
    assert prov.execs[f"{FMRI_RUN}:touch-5tdga18j"].stage_out == [elt + "elt-4.-field/h",
                                                                  elt + "elt-4.-field/v"]
    assert prov.execs[f"{FMRI_RUN}:touch-6tdga18j"].stage_out == [elt + "elt-2.-field/h",
                                                                  elt + "elt-2.-field/v"]
    assert "stage_out_ambiguous" not in report.extra and not report.unknown


@needs_corpus
@pytest.mark.parametrize("path", sorted(SWIFT.glob("*.log")), ids=lambda p: p.name[:12])
def test_every_stage_out_line_of_the_samples_is_used(path):
    prov, report = read(path)
    staged = [n for e in prov.execs.values() for n in e.stage_out]
    lines = [ln for ln in lines_of(path) if " FILE_STAGE_OUT_START " in ln]
    assert len(staged) == len(set(staged)) == len(lines)
    for execution in prov.execs.values():
        call = prov.calls[execution.call_id]
        outputs = {d for c, d, _ in prov.dataset_out if c == call.id}
        members = {child for parent, child in prov.containment if parent in outputs}
        files = {prov.datasets[d].filename for d in outputs | members}
        assert set(execution.stage_out) <= files, execution.id
    assert not report.unknown


@needs_corpus
def test_stage_out_line_with_job_id(tmp_path):
    # the spelling prov-to-sql.sh reads: jobid= on the line, no enclosing dostageout needed
    lines = []
    for line in lines_of(ECHO):
        if "vdl:dostageout START" in line:
            continue
        if "FILE_STAGE_OUT_START" in line:
            line = line.replace("srcname=001-echo.out", "srcname=001 echo.out") + \
                " jobid=echo-17kp918j"
        lines.append(line)
    prov, report = read(derived(tmp_path, ECHO, lines))
    ex = prov.execs["001-echo-20090316-1711-i7icnjl1:echo-17kp918j"]
    assert ex.stage_out == ["file://localhost/001 echo.out"]
    assert not report.unknown


@needs_corpus
def test_stage_out_outside_dostageout_is_counted(tmp_path):
    lines = [ln for ln in lines_of(ECHO) if "vdl:dostageout START" not in ln]
    prov, report = read(derived(tmp_path, ECHO, lines))
    assert report.unknown == {"FILE_STAGE_OUT_START outside vdl:dostageout START..END": 1}
    assert all(not e.stage_out for e in prov.execs.values())


@needs_corpus
def test_a_dostageout_line_without_job_is_an_error_naming_file_and_line(tmp_path):
    lines = [ln.replace("START jobid=echo-17kp918j - Staging out", "START - Staging out")
             for ln in lines_of(ECHO)]
    path = derived(tmp_path, ECHO, lines)
    bad_line = next(i for i, ln in enumerate(lines, 1) if "START - Staging out" in ln)
    with pytest.raises(ParseError) as err:
        read(path)
    assert str(path) in str(err.value) and f":{bad_line}" in str(err.value)
    _, report = read(path, lenient=True)
    assert report.skipped == {"expected vdl:dostageout with jobid= (2008 onwards)": 1}


# ------------------------------------------------------------------ logs without PARAM lines
@needs_corpus
def test_a_log_without_provenance_lines_loads_what_it_holds(lin):
    values = dict(re.search(r"dataset=(\S+) VALUE=(.*)$", ln).groups()
                  for ln in lines_of(NO_PARAM) if " VALUE " in ln)
    assert len(values) == 10 and "provenanceid" not in NO_PARAM.read_text()
    [result] = lin.load([NO_PARAM])
    assert result.status == "loaded" and result.write.unresolved_edges == 0
    assert any("no provenance lines" in w for w in result.report["warnings"])
    rows = lin.query("MATCH (d:Dataset) RETURN d.dataset_id AS id, d.value AS v")
    assert {r["id"]: r["v"] for r in rows} == values
    [run] = lin.query("MATCH (r:ScriptRun)<-[:PART_OF]-(c:FunctionCall) "
                      "RETURN r.run_id AS run, r.status AS st, collect(c.type) AS types")
    assert run == {"run": "0026-function-param-20090316-1712-akkmuv7f", "st": "succeeded",
                   "types": ["rootthread"]}


@needs_corpus
def test_a_log_with_executions_but_no_param_lines_keeps_them(tmp_path):
    lines = [ln for ln in lines_of(FMRI) if " PARAM " not in ln]
    prov, report = read(derived(tmp_path, FMRI, lines))
    assert prov.provenance_lines == 0 and report.extra["provenance"] == "partial"
    assert len(prov.execs) == 11 and len(prov.containment) == 40
    assert prov.calls[f"{FMRI_RUN}:0-4-1"].name == "align"


@needs_corpus
def test_a_log_that_names_its_run_but_holds_no_fact_is_that_run(tmp_path):
    """Without its VALUE lines the log holds no Swift fact, but it names its run (RUNID, the
    Swift version, 'Swift finished with no errors'): the run and its root thread (issue 43)."""
    lines = [ln for ln in lines_of(NO_PARAM) if " VALUE " not in ln]
    prov, report = read(derived(tmp_path, NO_PARAM, lines))
    run = prov.run
    assert (run.id, run.swift_version, run.final_state, run.script_filename) == (
        "0026-function-param-20090316-1712-akkmuv7f", "2522", "SUCCESS",
        "0026-function-param.swift")
    assert list(prov.calls) == [f"{run.id}:R"] and not prov.datasets
    assert report.extra["provenance"] == "partial"


@needs_corpus
def test_a_log_with_no_run_and_no_swift_facts_is_empty(tmp_path):
    lines = [ln for ln in lines_of(NO_PARAM) if not any(
        word in ln for word in (" VALUE ", "RUNID", "swift-r", "Swift finished"))]
    prov, report = read(derived(tmp_path, NO_PARAM, lines))
    assert prov.run is None and report.extra["provenance"] == "none"
    assert list(prov.records()) == []


# ------------------------------------------------------------------ what `procedure` means
@needs_corpus
def test_procedure_is_the_procedure_name_or_nothing(lin):
    lin.load([FMRI])
    rows = lin.query("MATCH (c:FunctionCall) RETURN c.type AS type, c.name AS name, "
                     "c.procedure AS procedure")
    by_type: dict = {}
    for r in rows:
        by_type.setdefault(r["type"], set()).add((r["name"], r["procedure"]))
    assert by_type["rootthread"] == {(FMRI_RUN, None)}
    assert {p for _, p in by_type["constructor"]} == {None} and len(rows) == 28
    assert all(name == procedure for name, procedure in by_type["execute"])
    assert {p for _, p in by_type["execute"]} == {"align", "average", "slicer", "convert"}


@needs_corpus
def test_records_carry_the_procedure_of_a_function_call(tmp_path):
    lines = insert_after(lines_of(STRCAT), "VALUE=abcqux", [
        f"INFO  Misc FUNCTION thread=0 name=strcat result={STRCAT_DS}5"])
    path = derived(tmp_path, STRCAT, lines)
    records = list(swift_log.parse(path, LoadReport(str(path), "swift-log")))
    calls = {r.props["call_id"]: r.props for r in records
             if isinstance(r, Node) and r.kind.label == "FunctionCall" and "type" in r.props}
    assert calls[f"{STRCAT_RUN}:function:0:1"]["procedure"] == "strcat"
    assert calls[f"{STRCAT_RUN}:R"]["procedure"] is None
