"""Single-node reports show a node's structural neighbours beside its lineage (a Pegasus job's
attempts with their output, a Chimbuko execution's call stack and execution window), times in
the page are for people, the search finds transformations, and the graph can be navigated
with the keyboard (both renderers), in headless Chromium."""

from __future__ import annotations

from lineage.report.build import report_data
from lineage.report.render import render

from .browser import chromium, screenshot
from .conftest import SAMPLES
from .test_report_browser import _open
from .corpus import needs_corpus

FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
FAIL_JOB = "pegasus:job:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3:ls_ID0000001"
BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
CHIMBUKO = SAMPLES / "chimbuko"


def _one(lin, cypher, **params):
    [row] = lin.query(cypher, **params)
    return row


@needs_corpus
def test_failed_job_report_shows_its_attempts_and_their_output(lin, tmp_path):
    lin.load([FAIL_DB])
    data = report_data(lin, FAIL_JOB)
    attempts = _one(lin, "MATCH (:Job {uid: $uid})<-[:INSTANCE_OF]-(a:JobInstance) "
                         "RETURN collect(a.uid) AS uids", uid=FAIL_JOB)["uids"]
    assert len(attempts) == 2
    drawn = {n["uid"] for n in data["nodes"]}
    assert set(attempts) <= drawn  # the attempts are drawn beside the job's lineage
    assert [a["attempt"] for a in data["attempts"]] == [1, 2]
    assert all(a["status"] == "failed" for a in data["attempts"])
    out = tmp_path / "job.html"
    lin.report(FAIL_JOB, out)
    with chromium() as context:
        page, errors, _ = _open(context, out)
        # the panel shows the report's own node and its attempts before any click
        details = page.inner_text("#details")
        assert "ls_ID0000001" in details and "Attempts (2)" in details
        assert page.locator("#details table.attempts tr").count() == 3  # header + 2 attempts
        assert "invalid option" in details  # the end of the attempt's output, as text
        assert page.locator("#gantt rect.bar").count() == 2
        screenshot(page, "report-failed-job.png")
        assert errors == []


@needs_corpus
def test_anomaly_report_draws_its_call_stack_and_window(lin, tmp_path):
    lin.load([CHIMBUKO], lenient=True)
    anomaly = _one(lin, "MATCH (a:Anomaly)-[:CALLED_BY]->(:FunctionExecution) RETURN a.uid AS uid "
                        "ORDER BY a.outlier_severity DESC, a.uid LIMIT 1")["uid"]
    frames = [r["uid"] for r in lin.query("chimbuko/anomaly_call_stack", uid=anomaly)]
    assert len(frames) >= 3 and frames[-1] == anomaly
    data = report_data(lin, anomaly)
    drawn = {n["uid"] for n in data["nodes"]}
    assert set(frames) <= drawn  # the whole stack, not only the lineage (which has none)
    called_by = {(e["source"], e["target"]) for e in data["edges"] if e["type"] == "CALLED_BY"}
    assert {(a, b) for a, b in zip(frames[1:], frames[:-1])} <= called_by
    titles = [t["title"] for t in data["tables"]]
    assert titles[0].startswith("Call stack") and titles[1].startswith("Execution window")
    assert [r["uid"] for r in data["tables"][0]["rows"]] == frames
    window = lin.query("chimbuko/anomaly_context", uid=anomaly)
    assert data["tables"][1]["total"] == len(window) > 0
    out = tmp_path / "anomaly.html"
    lin.report(anomaly, out)
    with chromium() as context:
        page, errors, _ = _open(context, out)
        details = page.inner_text("#details")
        # Chimbuko times are microseconds since the epoch, shown as ISO 8601 in UTC; runtimes in µs
        assert "entry\n20" in details and "Z\n" in details and " µs" in details
        screenshot(page, "report-anomaly.png")
        assert errors == []


def _page_graph():
    """A small hand-made graph: three jobs whose names do not contain their transformation."""
    jobs = [{"uid": f"j{i}", "kind": "Job", "name": f"ID00000{i}", "status": "succeeded",
             "label": label, "properties": {"transformation": f"pegasus::{label}:4.0",
                                            "start_time": 1331642943 + i}}
            for i, label in enumerate(["preprocess", "findrange", "analyze"])]
    files = [{"uid": f"f{i}", "kind": "File", "name": f"f.{i}", "properties": {}} for i in range(2)]
    edges = [  # data flow: j0 -> f0 -> j1 -> f1 -> j2, in PROV direction as stored
        {"source": "f0", "type": "WAS_GENERATED_BY", "target": "j0"},
        {"source": "j1", "type": "USED", "target": "f0"},
        {"source": "f1", "type": "WAS_GENERATED_BY", "target": "j1"},
        {"source": "j2", "type": "USED", "target": "f1"},
    ]
    for x, n in enumerate([jobs[0], files[0], jobs[1], files[1], jobs[2]]):
        n["x"], n["y"] = x * 200.0, 0.0
    return jobs + files, edges


def _status(page):
    return page.inner_text("#status-line")


def _selected(page):
    return page.evaluate("window.lineageReport.view.selected()")


def test_keyboard_search_and_times_in_both_renderers(tmp_path):
    nodes, edges = _page_graph()
    root = {"uid": "j1", "kind": "Job", "name": "ID000001"}
    for renderer in ("vis", "canvas"):
        out = tmp_path / f"keys-{renderer}.html"
        out.write_text(render("t", root, [dict(n) for n in nodes], edges, [], renderer=renderer),
                       encoding="utf-8")
        with chromium() as context:
            page, errors, _ = _open(context, out)
            assert page.evaluate("window.lineageReport.renderer") == (
                "canvas" if renderer == "canvas" else "vis-network")
            # times in tooltips and details are ISO 8601 UTC, not epoch seconds
            assert "start_time\n2012-03-13T12:49:04.000Z" in page.inner_text("#details")
            # the search finds a job by its transformation, which its name does not contain
            page.fill("#search", "findrange")
            assert _selected(page) == ["j1"]
            page.fill("#search", "")
            graph = page.locator("#graph")
            graph.focus()
            page.keyboard.press("n")
            assert _selected(page) == ["j0"] and "node 1 of 5" in _status(page)
            # Shift+Right follows data flow: the job's output file, then the job that used it
            page.keyboard.press("Shift+ArrowRight")
            assert _selected(page) == ["f0"] and "output 1 of 1" in _status(page)
            page.keyboard.press("Shift+ArrowRight")
            assert _selected(page) == ["j1"]
            page.keyboard.press("Shift+ArrowLeft")
            assert _selected(page) == ["f0"] and "input 1 of 1" in _status(page)
            page.keyboard.press("p")
            assert _selected(page) == ["j0"]
            page.keyboard.press("Shift+ArrowLeft")  # j0 has no input
            assert _selected(page) == ["j0"] and "no input" in _status(page)
            # Enter focuses the selected node's lineage; Escape shows everything again
            page.keyboard.press("n")
            page.keyboard.press("Enter")
            assert page.evaluate("window.lineageReport.focused().id") == "f0"
            assert page.evaluate("window.lineageReport.view.shown()") == 4  # 2 hops: not j2
            page.keyboard.press("Escape")
            assert page.evaluate("window.lineageReport.focused()") is None
            assert page.evaluate("window.lineageReport.view.shown()") == 5
            # zoom and pan keys move the view (compared on the renderer's own state)
            before = page.evaluate(_VIEW_STATE)
            page.keyboard.press("+")
            page.keyboard.press("ArrowLeft")
            assert page.evaluate(_VIEW_STATE) != before
            assert errors == []


_VIEW_STATE = """() => {
  const r = window.lineageReport;
  if (r.network) { const p = r.network.getViewPosition(); return [r.network.getScale(), p.x, p.y]; }
  return [r.view.toScreen('j0'), r.view.toScreen('j2')];
}"""


@needs_corpus
def test_xalt_run_view_draws_what_the_run_was_made_of(lin):
    lin.load([SAMPLES / "xalt"])
    run = _one(lin, "MATCH (r:Execution) RETURN r.uid AS uid ORDER BY r.uid LIMIT 1")["uid"]
    data = report_data(lin, run)
    assert data["view"] == "run"
    by_kind = {}
    for n in data["nodes"]:
        by_kind.setdefault(n["kind"], set()).add(n["uid"])
    # the executable and the libraries it loaded (the run's own table), its user and host
    inputs = lin.query("xalt/run_inputs", run=run)
    paths = {n["properties"].get("path") for n in data["nodes"]}
    assert {r["path"] for r in inputs} <= paths and inputs
    expected = _one(lin, "MATCH (r:Execution {uid: $uid}) "
                         "OPTIONAL MATCH (r)-[:WAS_ASSOCIATED_WITH]->(a) "
                         "OPTIONAL MATCH (r)-[:USED]->(:Executable)-[:WAS_GENERATED_BY]->(b:Build) "
                         "RETURN collect(DISTINCT a.uid) AS agents, collect(DISTINCT b.uid) AS builds",
                    uid=run)
    assert expected["agents"] and set(expected["agents"]) <= by_kind["User"] | by_kind["Host"]
    assert set(expected["builds"]) <= by_kind.get("Build", set())
    # and the edges among what is drawn, as the graph has them
    drawn = sorted({n["uid"] for n in data["nodes"]})
    count = _one(lin, "MATCH (a:Lineage)-[r]->(b:Lineage) WHERE a.uid IN $u AND b.uid IN $u "
                      "RETURN count(r) AS n", u=drawn)["n"]
    assert len(data["edges"]) == count > len(inputs)
