"""Pegasus BP streams to records, without a database: counts from the real samples."""


import pytest

from lineage import model
from lineage.errors import ParseError
from lineage.sources.registry import detect
from lineage.sources.base import LoadReport
from lineage.sources.pegasus.bp import handle_events, parse, parse_lines
from lineage.model.records import Edge, Node

from .conftest import SAMPLES
from .corpus import needs_corpus

PEGASUS = SAMPLES / "pegasus"


def distinct_nodes(records, kind):
    return {r.uid for r in records if isinstance(r, Node) and r.kind is kind}


def distinct_edges(records, rel, start_kind_prefix=""):
    return {(r.start, r.end) for r in records
            if isinstance(r, Edge) and r.rel is rel and r.start.startswith(start_kind_prefix)}


@needs_corpus
def test_blackdiamond_oracle_counts():
    report = LoadReport("bd", "pegasus-bp")
    recs = list(parse(PEGASUS / "blackdiamond-4.0.bp", report))
    assert len(distinct_nodes(recs, model.kind("Task"))) == 4
    assert len(distinct_edges(recs, model.WAS_INFORMED_BY, "pegasus:task:")) == 4
    assert len(distinct_nodes(recs, model.kind("Job"))) == 14
    assert len(distinct_edges(recs, model.WAS_INFORMED_BY, "pegasus:job:")) == 25
    assert len(distinct_edges(recs, model.REL_TYPES["RUNS_TASK"], "pegasus:job:")) == 4
    assert len(distinct_nodes(recs, model.kind("Invocation"))) == 26
    assert len(distinct_nodes(recs, model.kind("Workflow"))) == 1
    assert report.skipped == {} and report.unknown == {}
    assert report.extra["events"]["job.info"] == 14


@needs_corpus
def test_blackdiamond_every_job_succeeded():
    recs = list(parse(PEGASUS / "blackdiamond-4.0.bp", LoadReport("bd", "pegasus-bp")))
    status = {}
    for r in recs:
        if isinstance(r, Node) and r.kind is model.kind("Job") and "status" in r.props:
            status[r.uid] = r.props["status"]
    assert len(status) == 14 and set(status.values()) == {"succeeded"}


@needs_corpus
def test_stdout_text_is_percent_decoded():
    recs = list(parse(PEGASUS / "blackdiamond-4.0.bp", LoadReport("bd", "pegasus-bp")))
    texts = [r.props["stdout_text"] for r in recs
             if isinstance(r, Node) and r.props.get("stdout_text")]
    assert any("Command 'globus-version' not found" in t for t in texts)
    assert all("%0A" not in t for t in texts)


@needs_corpus
def test_static_bp_of_planner_5_without_prefix_and_quoted():
    report = LoadReport("p", "pegasus-bp")
    recs = list(parse(PEGASUS / "process_wf_failure.static.bp", report))
    jobs = distinct_nodes(recs, model.kind("Job"))
    assert len(jobs) == 5
    assert "pegasus:job:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3:ls_ID0000001" in jobs
    wf = [r for r in recs if isinstance(r, Node) and r.kind is model.kind("Workflow")]
    assert any(r.props.get("meta_wf_api") == "python" for r in wf)
    assert report.unknown == {}


@needs_corpus
def test_triana_inconsistencies_are_reported():
    report = LoadReport("t", "pegasus-bp")
    list(parse(PEGASUS / "triana-messy.bp", report))
    assert report.extra["inconsistencies"] > 0
    assert any("not declared" in w for w in report.warnings)


@needs_corpus
def test_malformed_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.bp"
    good = (PEGASUS / "blackdiamond-4.0.bp").read_text().splitlines()
    bad.write_text("\n".join(good[:5] + ['ts=2012-03-13T12:35:37Z event=stampede.job.info argv="open'] + good[5:]))
    with pytest.raises(ParseError) as err:
        list(parse(bad, LoadReport(str(bad), "pegasus-bp")))
    assert str(bad) in str(err.value) and ":6:" in str(err.value)


@needs_corpus
def test_lenient_skips_and_counts(tmp_path):
    bad = tmp_path / "bad.bp"
    good = (PEGASUS / "blackdiamond-4.0.bp").read_text().splitlines()
    bad.write_text("\n".join(good[:5] + ["garbage line", "ts=x event=stampede.job.info"] + good[5:]) + "\n")
    report = LoadReport(str(bad), "pegasus-bp", lenient=True)
    recs = list(parse(bad, report))
    assert sum(report.skipped.values()) == 2
    assert len(distinct_nodes(recs, model.kind("Job"))) == 14


def test_unknown_event_types_are_counted_not_fatal():
    report = LoadReport("u", "pegasus-bp")
    list(parse_lines(["ts=1 event=stampede.brand.new.event xwf.id=w"], report))
    assert report.unknown == {"event brand.new.event": 1}


def test_missing_required_key_is_an_error():
    with pytest.raises(ParseError, match="job.id"):
        list(parse_lines(["ts=1 event=stampede.job.info xwf.id=w"], LoadReport("m", "p")))


@needs_corpus
def test_detection(tmp_path):
    assert detect(PEGASUS / "blackdiamond-4.0.bp").name == "pegasus-bp"
    assert detect(PEGASUS / "process_wf_failure.static.bp").name == "pegasus-bp"
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    assert detect(other) is None


def test_exit_codes_decode_wait_status():
    lines = [
        "ts=1 event=stampede.job.info xwf.id=w job.id=j type=1",
        "ts=2 event=stampede.job_inst.main.end xwf.id=w job.id=j job_inst.id=1 status=-1 exitcode=512 site=s",
        "ts=3 event=stampede.job_inst.main.end xwf.id=w job.id=j job_inst.id=2 status=-1 exitcode=9 site=s",
    ]
    recs = list(parse_lines(lines, LoadReport("x", "p")))
    inst = {r.uid: r.props for r in recs if isinstance(r, Node) and r.kind is model.kind("JobInstance")}
    assert inst["pegasus:job_instance:w:j:1"]["exitcode"] == 2
    assert inst["pegasus:job_instance:w:j:2"]["signal"] == 9
    job = [r for r in recs if isinstance(r, Node) and r.kind is model.kind("Job") and "attempts" in r.props][-1]
    assert job.props["attempts"] == 2 and job.props["status"] == "failed"


def test_forced_source_reads_other_content_and_fails_clearly(tmp_path):
    other = tmp_path / "record.json"
    other.write_text('{"uuid": "x", "cmdlineA": ["a.out"]}\n')
    fmt = detect(other, "pegasus")
    assert fmt is not None and fmt.source == "pegasus"
    with pytest.raises(ParseError, match=r"record.json:1: expected key=value pairs"):
        list(fmt.parse(other, LoadReport(str(other), fmt.name)))


def _instance_of(records):
    return [(r.start, r.end) for r in records if isinstance(r, Edge) and r.rel is model.INSTANCE_OF]


@needs_corpus
def test_an_attempt_is_stated_instance_of_its_job_once():
    """Seven events of an attempt state its INSTANCE_OF once (it was seven records, a fifth
    of a BP stream's), and every attempt of the real sample still has it."""
    recs = list(parse(PEGASUS / "blackdiamond-4.0.bp", LoadReport("bd", "pegasus-bp")))
    links = _instance_of(recs)
    attempts = distinct_nodes(recs, model.kind("JobInstance"))
    assert len(links) == len(set(links)) == len(attempts) > 0
    assert {start for start, _ in links} == attempts


def test_instance_of_comes_with_the_first_kept_event_of_an_attempt():
    """An attempt's first event skipped (lenient: an image size that is not a number, found
    after the attempt's own records were made) does not lose its INSTANCE_OF: the next kept
    event states it."""
    head = "ts=1 event=stampede.job_inst.{} xwf.id=w job.id=j job_inst.id=1"
    lines = [head.format("image.info") + " size=x", head.format("submit.end") + " status=0",
             head.format("main.start")]
    report = LoadReport("s", "pegasus-bp", lenient=True)
    recs = list(parse_lines(lines, report))
    assert sum(report.skipped.values()) == 1
    assert _instance_of(recs) == [("pegasus:job_instance:w:j:1", "pegasus:job:w:j")]


def test_a_repeated_declaration_must_repeat_the_first_one():
    """monitord replays its log after a restart: a job.info repeated with the same values (in
    another key order, another stamp and level) is harmless; one value changed is an error
    naming the line of the first declaration."""
    first = "ts=1 event=stampede.job.info xwf.id=w job.id=j type=1 argv=a executable=/bin/x"
    again = ("ts=9 level=Info event=stampede.job.info executable=/bin/x argv=a xwf.id=w type=1 "
             "job.id=j")
    report = LoadReport("r", "pegasus-bp")
    recs = list(parse_lines([first, again], report))
    assert report.skipped == {} and len(distinct_nodes(recs, model.kind("Job"))) == 1
    with pytest.raises(ParseError, match=r"declared at line 1 with other values"):
        list(parse_lines([first, again.replace("argv=a", "argv=b")], LoadReport("r", "p")))


def test_equal_declarations_are_equal_whatever_strings_hold_them():
    """Decoded events (as the JSON-lines reader hands them over) whose values are one string
    object in the first and equal copies in the repeat are the same declaration."""
    value = "".join(["a", "b"])
    shared = {"ts": "1", "event": "job.info", "xwf.id": "w", "job.id": "j", "argv": value,
              "executable": value}
    copies = {**shared, "argv": "".join(["a", "b"]), "executable": "".join(["a", "b"])}
    report = LoadReport("c", "pegasus-jsonl")
    recs = list(handle_events([(1, shared), (2, copies)], report))
    assert report.skipped == {} and len(distinct_nodes(recs, model.kind("Job"))) == 1


def _attempts_folded(records) -> dict[str, dict]:
    """Each attempt's properties as the writer folds its records: in order, a later value
    wins, None never erases one."""
    out: dict[str, dict] = {}
    for r in records:
        if isinstance(r, Node) and r.kind is model.kind("JobInstance"):
            out.setdefault(r.uid, {}).update({k: v for k, v in r.props.items() if v is not None})
    return out


def test_an_attempts_events_in_a_row_make_one_record_with_what_they_all_said(monkeypatch):
    """Consecutive events of one attempt give one JobInstance record (an attempt has an event
    per state); another attempt's event in between starts a new one; folded, the records say
    what one record per event said: a later site wins, an absent sched.id erases nothing."""
    from lineage.sources.pegasus import bp

    head = "event=stampede.job_inst.{} xwf.id=w job.id={} job_inst.id=1"
    lines = [
        "ts=1 " + head.format("submit.start", "j") + " sched.id=5",
        "ts=2 " + head.format("host.info", "j") + " hostname=h site=s1",
        "ts=3 " + head.format("main.end", "j") + " status=0 exitcode=0 site=s2",
        "ts=4 " + head.format("submit.start", "k"),
        "ts=5 " + head.format("main.start", "j"),
    ]
    merged = list(parse_lines(lines, LoadReport("m", "pegasus-bp")))
    monkeypatch.setattr(bp, "_JOB_INSTANCE", object())  # no kind is it: a record per event
    each = list(parse_lines(lines, LoadReport("m", "pegasus-bp")))
    uids = [r.uid for r in merged if isinstance(r, Node) and r.kind is model.kind("JobInstance")]
    assert uids == ["pegasus:job_instance:w:j:1", "pegasus:job_instance:w:k:1",
                    "pegasus:job_instance:w:j:1"]
    assert _attempts_folded(merged) == _attempts_folded(each)
    j = _attempts_folded(merged)["pegasus:job_instance:w:j:1"]
    assert (j["sched_id"], j["site"], j["last_state"]) == ("5", "s2", "EXECUTE")
    assert [r for r in merged if not isinstance(r, Node) or r.kind is not model.kind(
        "JobInstance")] == [r for r in each if not isinstance(r, Node) or r.kind is not
                            model.kind("JobInstance")]


@needs_corpus
@pytest.mark.parametrize("sample, fewer", [("blackdiamond-4.0.bp", 93), ("triana-messy.bp", 13)])
def test_merged_attempt_records_fold_to_what_a_record_per_event_folds_to(monkeypatch, sample,
                                                                         fewer):
    """The real streams (triana's with its skipped lines) fold to the same attempts."""
    from lineage.sources.pegasus import bp

    merged = list(parse(PEGASUS / sample, LoadReport("s", "pegasus-bp", lenient=True)))
    monkeypatch.setattr(bp, "_JOB_INSTANCE", object())
    each = list(parse(PEGASUS / sample, LoadReport("s", "pegasus-bp", lenient=True)))
    assert _attempts_folded(merged) == _attempts_folded(each)
    assert len(each) - len(merged) == fewer
