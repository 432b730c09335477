"""``lineage link`` and the cross-system templates, on the demo campaign (one consistent
campaign written in each system's real format by ``lineage.demo``, see
``tests/demo_scenario.py``) loaded by the normal loaders."""

import json

import pytest
from click.testing import CliRunner

from lineage import cli
from lineage.demo import campaign
from lineage.sources.scenario import Binary, Host, Process
from lineage.linking.rules import Inputs, match
from lineage.sources.options import LoadOptions
from lineage.sources.xalt.demo import run_record, signed_text
from lineage.sources.xalt.mapping import library_uid

from . import demo_scenario as demo
from .demo_scenario import ANALYZE, CHIMBUKO_RUN, FIRST, GZIP, SCRIPT

NAMED = LoadOptions(chimbuko_run=demo.INSTRUMENTED.name)  # the Chimbuko files' run, by name
XALT_ANALYZE, XALT_GZIP = demo.xalt(ANALYZE.process), demo.xalt(GZIP)
ATTEMPT, INVOCATION = demo.attempt(FIRST, ANALYZE), demo.invocation(FIRST, ANALYZE)
TASK = demo.task(FIRST, "ID0000004")
SUMMARIZE = SCRIPT.calls[0]


# ------------------------------------------------------------------ the rules, no server
def x(uid, start, **kw):
    return {"uid": uid, "start_time": start, "end_time": kw.pop("end", start + 10), **kw}


def test_scheduler_job_needs_a_second_fact_and_agreeing_host():
    attempt = x("j1", 100, end=200, sched_id="77", host="c1.cluster")
    cases = {
        "host and time": (x("r", 120, job_id="77", host="C1"), ("job_id", "host", "time")),
        "time only": (x("r", 120, job_id="77"), ("job_id", "time")),
        "other host": (x("r", 120, job_id="77", host="c2"), None),
        "too late": (x("r", 400, job_id="77", host="c1"), None),
        "other job": (x("r", 120, job_id="78", host="c1"), None),
        "job id alone": ({"uid": "r", "job_id": "77"}, None),
    }
    for name, (record, matched) in cases.items():
        links = match(Inputs(xalt=[record], attempts=[attempt]), ["scheduler_job"]).links
        assert [link.matched for link in links] == ([matched] if matched else []), name


def test_clock_skew_is_a_parameter():
    attempt = x("j1", 100, end=200, sched_id="77", host="c1")
    late = x("r", 290, job_id="77", host="c1")  # 90 s after the attempt ended
    assert not match(Inputs(xalt=[late], attempts=[attempt]), ["scheduler_job"]).links
    assert match(Inputs(xalt=[late], attempts=[attempt]), ["scheduler_job"], skew=120).links
    with pytest.raises(ValueError, match="skew"):
        match(Inputs(), skew=-1)
    with pytest.raises(ValueError, match="no link rule nope"):
        match(Inputs(), ["nope"])


def test_two_xalt_runs_fitting_one_invocation_are_ambiguous_not_guessed():
    inv = x("inv", 100, end=200, exec_path="/bin/solver", host="c1", attempt="j1")
    runs = [x("r1", 110, exec_path="/bin/solver", host="c1"),
            x("r2", 150, exec_path="/opt/solver", host="c1")]  # same name, other path
    result = match(Inputs(xalt=runs, invocations=[inv]), ["process"])
    assert result.links == []
    assert [(a.rule, a.record, a.candidates) for a in result.ambiguous] == [
        ("process", "inv", ("r1", "r2"))]
    # one run fitting two invocations is ambiguous too
    two = [inv, x("inv2", 105, end=200, exec_path="/bin/solver", host="c1", attempt="j2")]
    result = match(Inputs(xalt=runs[:1], invocations=two), ["process"])
    assert result.links == [] and result.ambiguous[0].candidates == ("inv", "inv2")


def test_the_one_fit_without_skew_wins_over_fits_that_need_it():
    # seven Swift test scripts ran echo within one minute (the bundled logs): the XALT run of
    # /bin/echo fits all of them within 60 s of skew, and only one with none
    apps = [x(f"a{i}", 100 + 10 * i, end=100 + 10 * i + 0.2, app_name="echo") for i in range(7)]
    run_ = x("r", 130.05, end=130.06, exec_path="/bin/echo")
    [link] = match(Inputs(xalt=[run_], swift=apps), ["app_process"]).links
    assert (link.start, link.matched) == ("a3", ("exec_name", "time", "time_exact"))
    # two inside with no skew: ambiguous
    apps.append(x("a9", 130.0, end=131, app_name="echo"))
    result = match(Inputs(xalt=[run_], swift=apps), ["app_process"])
    assert result.links == [] and result.ambiguous[0].candidates == tuple(
        sorted(f"a{i}" for i in range(7)) + ["a9"])


def test_host_and_time_alone_are_only_candidates():
    inv = x("inv", 100, end=200, exec_path="/bin/wrapper.sh", host="c1")
    child = x("r1", 110, exec_path="/bin/solver", host="c1")
    result = match(Inputs(xalt=[child], invocations=[inv]))
    assert result.links == [] and result.ambiguous == []
    assert [(c.rule, c.record, c.candidates) for c in result.candidates] == [
        ("host_time", "r1", ("inv",))]
    assert result.unlinked == {"xalt": 1, "attempts": 0, "invocations": 1, "swift": 0,
                               "chimbuko": 0}


def test_chimbuko_needs_program_and_host_or_full_path():
    target = x("r", 100, end=200, exec_path="/a/xgc", host="n1")
    chim = {"uid": "c", "hosts": ["n1"], "executables": [], "command_lines": ["/b/xgc -v"],
            "first_start_us": 101_000_000}
    [link] = match(Inputs(xalt=[target], chimbuko=[chim]), ["instrumented_run"]).links
    assert (link.start, link.type, link.end, link.matched) == ("c", "RAN_WITHIN", "r",
                                                   ("exec_name", "host", "time"))
    elsewhere = {**chim, "hosts": ["n2"]}
    assert not match(Inputs(xalt=[target], chimbuko=[elsewhere]), ["instrumented_run"]).links
    no_host = {**chim, "hosts": []}
    assert not match(Inputs(xalt=[target], chimbuko=[no_host]), ["instrumented_run"]).links
    same_path = {**no_host, "executables": ["/a/xgc"]}
    [link] = match(Inputs(xalt=[target], chimbuko=[same_path]), ["instrumented_run"]).links
    assert link.matched == ("exec_path", "time")


# ------------------------------------------------------------------ on the server
@pytest.fixture
def linked(lin, tmp_path):
    written, results = demo.load(lin, tmp_path)
    assert all(r.status == "loaded" for r in results)
    return lin, written


def links_in(lin):
    return {(r["start"], r["type"], r["end"]): r for r in lin.query("link/existing")}


def expected_links() -> set:
    """What ran where, as the campaign says: each program an attempt ran within it, each
    attempt's own program its invocation's process, each Swift app its program, the
    instrumented run within its program."""
    out = {(CHIMBUKO_RUN, "RAN_WITHIN", demo.xalt(demo.INSTRUMENTED.process))}
    for run in (demo.FIRST, demo.SECOND):
        for a in run.attempts:
            out |= {(demo.xalt(p), "RAN_WITHIN", demo.attempt(run, a))
                    for p in (a.process, *a.others) if p.tracked}
            if a.process.tracked:
                out.add((demo.invocation(run, a), "SAME_ACTIVITY", demo.xalt(a.process)))
    out |= {(demo.app_execution(c), "SAME_ACTIVITY", demo.xalt(c.process)) for c in SCRIPT.calls}
    return out


def test_every_rule_on_the_consistent_run_and_idempotency(linked):
    lin, _ = linked
    first = lin.link()
    made = {rule: c["made"] for rule, c in first.rules.items()}
    assert made == {"scheduler_job": 11, "process": 10, "app_process": 2, "instrumented_run": 1,
                    "instrumented_process": 0, "host_time": 0}
    assert first.ambiguous == []
    # gzip, which analyze started, ran on c101 while its invocation and post script ran
    assert [(c.record, c.candidates) for c in first.candidates] == [
        (XALT_GZIP, (demo.invocation(FIRST, ANALYZE, -2), INVOCATION))]
    links = links_in(lin)
    assert set(links) == expected_links() and len(links) == 24
    job = links[(XALT_ANALYZE, "RAN_WITHIN", ATTEMPT)]
    assert job["rule"] == "scheduler_job" and job["confidence"] == 1.0
    assert job["matched"] == ["job_id", "host", "time", "user"] and job["skew"] == 60.0
    evidence = json.loads(job["evidence"])
    assert evidence["user"] == [ANALYZE.process.user, [ANALYZE.process.user]]
    assert evidence["job_id"] == [ANALYZE.sched_id] * 2
    assert evidence["host"] == ["c101", "c101.halcyon.example.org"]  # XALT's short name
    again = lin.link()
    assert all(c["made"] == c["updated"] == c["removed"] == 0 for c in again.rules.values())
    assert sum(c["kept"] for c in again.rules.values()) == 24
    assert links_in(lin) == links


def test_dry_run_writes_nothing(linked):
    lin, _ = linked
    result = lin.link(dry_run=True)
    assert result.rules["scheduler_job"]["made"] == 11 and links_in(lin) == {}


def test_incremental_linking_and_stale_links(lin, tmp_path):
    written = demo.write(tmp_path)
    lin.load(demo.paths(written, "pegasus", "swift", "xalt"))
    first = lin.link()
    assert first.rules["instrumented_run"]["links"] == 0
    lin.load(demo.paths(written, "chimbuko"), options=NAMED)
    second = lin.link()
    assert second.rules["instrumented_run"]["made"] == 1
    assert second.rules["scheduler_job"] == {**second.rules["scheduler_job"], "made": 0,
                                             "kept": 11}
    # the gzip run's records change their job id: its link goes on the next link
    records = [p for p in demo.paths(written, "xalt") if GZIP.uuid in p.name]
    assert len(records) == 2
    for path in records:
        rec = json.loads(path.read_text())
        rec["userT"]["job_id"] = "4999.0"
        path.write_text(signed_text(rec))
    lin.load(records)
    third = lin.link(rules=["scheduler_job"])
    assert third.rules["scheduler_job"]["removed"] == 1
    assert (XALT_GZIP, "RAN_WITHIN", ATTEMPT) not in links_in(lin)
    assert (CHIMBUKO_RUN, "RAN_WITHIN", XALT_ANALYZE) in links_in(lin)  # other rules' stay


def test_ambiguous_runs_are_reported_with_their_candidates(linked, tmp_path):
    lin, written = linked
    lin.link()  # first without the twin: the invocation is linked to the one run
    [end] = [p for p in demo.paths(written, "xalt")
             if ANALYZE.process.uuid in p.name and ".zzz." in p.name]
    twin = json.loads(end.read_text())
    twin["userT"]["run_uuid"] = "7a1a0000-0000-4000-8000-000000000009"
    twin["userDT"]["start_time"] += 5
    (tmp_path / "twin.json").write_text(signed_text(twin))
    lin.load([tmp_path / "twin.json"], source="xalt")
    result = lin.link()
    both = tuple(sorted(("xalt:run:7a1a0000-0000-4000-8000-000000000009", XALT_ANALYZE)))
    assert [(a.rule, a.record, a.candidates) for a in result.ambiguous] == [
        ("process", INVOCATION, both)]
    assert result.rules["process"]["ambiguous"] == 1
    assert result.rules["process"]["removed"] == 1  # the link made before the twin came
    assert not any(t == "SAME_ACTIVITY" and s == INVOCATION for s, t, _ in links_in(lin))
    # Chimbuko started before the twin: only the first run holds it without clock skew
    chim = [(t, e, r["matched"]) for (s, t, e), r in links_in(lin).items() if s == CHIMBUKO_RUN]
    assert chim == [("RAN_WITHIN", XALT_ANALYZE, ["exec_path", "host", "time", "time_exact"])]
    # the twin starting with Chimbuko too makes that ambiguous: then the invocation holds it
    twin["userDT"]["start_time"] -= 5
    (tmp_path / "twin.json").write_text(signed_text(twin))
    lin.load([tmp_path / "twin.json"], source="xalt")
    result = lin.link()
    assert ("instrumented_run", CHIMBUKO_RUN, both) in [
        (a.rule, a.record, a.candidates) for a in result.ambiguous]
    assert [(t, e) for s, t, e in links_in(lin) if s == CHIMBUKO_RUN] == [
        ("RAN_WITHIN", INVOCATION)]


def test_explain_output_follows_a_result_across_systems(linked):
    lin, _ = linked
    lin.link()
    rows = lin.query("cross/explain_output", uid=TASK)
    same = [r for r in rows if r["how"] == "same process"]
    assert [r["execution"] for r in same] == [XALT_ANALYZE]
    [row] = same
    assert row["attempt"] == ATTEMPT and row["attempt_host"] == ANALYZE.host.name
    assert row["process"] == INVOCATION and row["link_rules"] == ["process"]
    assert links_in(lin)[(INVOCATION, "SAME_ACTIVITY", XALT_ANALYZE)]["matched"] == [
        "exec_path", "host", "time", "user"]
    binary = campaign.ANALYZE
    assert row["executable_path"] == binary.path and row["executable_sha1"] == binary.sha1
    assert row["compiler"] == "g++" and "-lkeg" in row["link_line"]
    libkeg = {"path": campaign.LIBKEG.path, "sha1": campaign.LIBKEG.sha1}
    assert libkeg in row["libraries_loaded"]
    assert row["libraries_linked"] == [{"path": lib.path, "sha1": lib.sha1} for lib in
                                       sorted(binary.build.linked, key=lambda lib: lib.path)]
    anomalies = lin.query("MATCH (e:FunctionExecution)-[:PART_OF]->(:Rank)-[:PART_OF]->"
                          "(:ProgramRun {uid: $run}) WHERE e.is_anomaly RETURN count(e) AS n",
                          run=CHIMBUKO_RUN)[0]["n"]
    assert anomalies == 9 and row["anomaly_count"] == anomalies
    assert len(row["top_anomalies"]) == 5 and all(a["function"] for a in row["top_anomalies"])
    [other] = [r for r in rows if r["how"] == "ran within"]
    assert other["execution"] == XALT_GZIP and other["anomaly_count"] == 0
    # a Swift dataset: the call that wrote it, the app execution, the program XALT saw
    [summary] = lin.query("MATCH (d:Dataset {filename: 'file://localhost/summary.txt'}) "
                          "RETURN d.uid AS uid")
    [row] = lin.query("cross/explain_output", uid=summary["uid"], top=2)
    assert (row["producer_kind"], row["attempt"], row["execution"]) == (
        "FunctionCall", demo.app_execution(SUMMARIZE), demo.xalt(SUMMARIZE.process))
    assert row["executable_path"] == campaign.SUMMARIZE.path and row["how"] == "same process"
    # before linking: the attempt, and no execution
    lin.write("MATCH ()-[r:SAME_ACTIVITY|RAN_WITHIN]->() DELETE r")
    unlinked = lin.query("cross/explain_output", uid=TASK)
    assert [(r["attempt"], r["execution"]) for r in unlinked] == [(ATTEMPT, None)]


def test_library_impact_and_path_between(linked):
    lin, _ = linked
    lin.link()
    rows = lin.query("cross/library_impact", library="libkeg")
    assert {(r["how"], r["job_or_call"], r["run"]) for r in rows
            if r["execution"] == XALT_ANALYZE} == {
        (how, demo.job(FIRST, campaign.ANA), demo.workflow(FIRST)) for how in ("loaded", "linked")}
    first_build = lin.query("cross/library_impact", library=campaign.LIBKEG.sha1)
    assert first_build and all(r in rows for r in first_build)
    # the second run loaded libkeg as rebuilt in place; its programs were linked with the first
    second = demo.workflow(demo.SECOND)
    assert {r["how"] for r in first_build if r["run"] == second} == {"linked"}
    rebuilt = lin.query("cross/library_impact", library=campaign.LIBKEG_REBUILT.sha1)
    assert rebuilt and {(r["how"], r["run"]) for r in rebuilt} == {("loaded", second)}
    libm = lin.query("cross/library_impact", library="/usr/lib64/libm.so.6")
    [swift] = [r for r in libm if r["execution"] == demo.xalt(SUMMARIZE.process)
               and r["how"] == "loaded"]
    assert swift["run"] == demo.SWIFT_RUN
    assert swift["outputs"] == ["file://localhost/summary.txt"]
    [path, *_] = lin.query("path_between", **{"from": CHIMBUKO_RUN, "to": TASK})
    assert path["hops"] == 3
    assert [r["type"] for r in path["relationships"]] == ["RAN_WITHIN", "SAME_ACTIVITY",
                                                         "RUNS_TASK"]
    assert lin.query("path_between", **{"from": CHIMBUKO_RUN, "to": TASK, "max_hops": 2}) == []


def test_cli_link_and_load_link(lin, tmp_path, cli_env):
    written = demo.write(tmp_path)
    runner = CliRunner(env=cli_env)
    out = runner.invoke(cli.main, ["load", "--link", "-q", "--chimbuko-run",
                                   demo.INSTRUMENTED.name, *map(str, demo.paths(written))])
    assert out.exit_code == 0, out.output
    assert "scheduler_job" in out.output and "candidate (host_time)" in out.output
    out = runner.invoke(cli.main, ["link", "--format", "json", "--rule", "process"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert list(data["rules"]) == ["process"] and data["rules"]["process"]["kept"] == 10
    out = runner.invoke(cli.main, ["link", "--rule", "nope"])
    assert out.exit_code == 2 and "nope" in out.output


def test_hostile_values_go_through_linking(lin, tmp_path, cli_env):
    evil = '/tmp/a"b\'<script>alert(1)</script>\nx/prog'
    host = Host("n1", "10.0.0.1", "local")
    uuid = "e0000000-0000-4000-8000-000000000001"
    program = Process(uuid, Binary(evil, "e" * 40, (), None), host, "u",
                      (evil, "--x=<b>", "a\nb"), "/tmp", 1.7e9, 1.7e9 + 10.0)
    (tmp_path / f"run.n1.2023_11_14_00_00_00.u.zzz.{uuid}.json").write_text(
        signed_text(run_record(program, "n1", "login1", ended=True)))
    metadata = [{"pid": 3, "rid": 0, "tid": 0, "descr": d, "value": v, "__id": i}
                for i, (d, v) in enumerate([("Hostname", host.name), ("Executable", evil),
                                            ("Starting Timestamp", str(int(1.7e15 + 1e6)))])]
    (tmp_path / "provdb_evil_metadata.json").write_text(json.dumps(metadata))
    lin.load([tmp_path])
    result = lin.link()
    assert result.rules["instrumented_run"]["made"] == 1
    [link] = lin.query("link/existing", rule="instrumented_run")
    assert json.loads(link["evidence"])["exec_path"] == [evil, evil]
    [row] = lin.query("cross/explain_output", uid=f"xalt:run:{uuid}")
    assert row["executable_path"] == evil and row["how"] == "the run itself"
    out = CliRunner(env=cli_env).invoke(cli.main, ["query", "link/existing"])
    assert out.exit_code == 0 and "<script>alert(1)</script>\nx" not in out.output


def test_run_views_of_xalt_chimbuko_and_library_reports(linked, tmp_path):
    """An XALT run's report shows what it ran, its build and its links; a Chimbuko run's its
    anomalies first; a library's the runs that loaded it."""
    lin, _ = linked
    lin.link()
    page = (tmp_path / "x.html")
    lin.report(XALT_ANALYZE, page)
    html = page.read_text()
    for text in ("What it ran: executable and libraries", campaign.LIBKEG.path,
                 "How its program was built", "g++",
                 "-lkeg", "Across systems (lineage link)", INVOCATION, "scheduler_job"):
        assert text in html, text
    lin.report(CHIMBUKO_RUN, tmp_path / "c.html")
    html = (tmp_path / "c.html").read_text()
    first = html.index("Anomalies, most severe first")
    assert first < html.index("Parts of the run") and "MPI_Allreduce()" in html
    lib = library_uid(campaign.LIBKEG.path, campaign.LIBKEG.sha1)
    lin.report(lib, tmp_path / "l.html")
    html = (tmp_path / "l.html").read_text()
    assert "Runs that loaded it or were linked with it" in html and XALT_ANALYZE in html


def test_export_with_links_round_trips_the_links(linked, tmp_path, cli_env):
    lin, _ = linked
    lin.link()
    wf = demo.workflow(FIRST)
    out = CliRunner(env=cli_env).invoke(cli.main, ["export", wf, "-o", str(tmp_path / "wf.json"),
                                                   "--with-links"])
    assert out.exit_code == 0, out.output
    plain = tmp_path / "plain.json"
    lin.export(wf, plain)
    doc = json.loads((tmp_path / "wf.json").read_text())
    text = json.dumps(doc)
    assert XALT_ANALYZE in text and campaign.LIBKEG.path in text and "RAN_WITHIN" in text
    assert XALT_ANALYZE not in plain.read_text()
    before = links_in(lin)
    lin.reset()
    lin.load([tmp_path / "wf.json"])
    after = links_in(lin)
    assert after and set(after) <= set(before)
    assert (XALT_ANALYZE, "RAN_WITHIN", ATTEMPT) in after


def test_a_run_without_its_end_record_still_holds_what_started_later():
    """An XALT run whose end record never came (killed, or still running) is open-ended: a
    Chimbuko run that started hours later on its host is still inside it."""
    short = x("r0", 0, end=5, exec_path="/a/xgc", host="n1")  # makes the bucket's longest 5 s
    open_ended = {"uid": "r1", "start_time": 100.0, "end_time": None, "exec_path": "/a/xgc",
                  "host": "n1"}
    chim = {"uid": "c", "hosts": ["n1"], "executables": ["/a/xgc"], "command_lines": [],
            "first_start_us": 7_300_000_000}  # two hours later
    [link] = match(Inputs(xalt=[short, open_ended], chimbuko=[chim]), ["instrumented_run"]).links
    assert (link.start, link.end) == ("c", "r1")
