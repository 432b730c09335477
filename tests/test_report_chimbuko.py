"""A Chimbuko program run's report: its anomalies table first; a clicked anomaly (a node of the
graph or a row of the table) shows its call stack and execution window in the details panel,
from data the page carries (lineage/sources/chimbuko/report.py); anomalies never go into groups."""

import json
import time

import pytest

from lineage.sources.chimbuko import report as chimbuko_panel
from lineage.report.build import report_data
from lineage.humanize import human

from .browser import chromium, external_requests, screenshot
from .conftest import SAMPLES
from .test_report_browser import _open
from .corpus import needs_corpus

pytestmark = needs_corpus

ANOMALIES_CYPHER = """
MATCH (:ProgramRun {uid: $run})<-[:PART_OF]-(:Rank)<-[:PART_OF]-(a:Anomaly)
RETURN a.uid AS uid
"""
SEVERE_CYPHER = """
MATCH (:ProgramRun {uid: $run})<-[:PART_OF]-(:Rank)<-[:PART_OF]-(a:Anomaly)
RETURN count(coalesce(a.outlier_severity, a.runtime_exclusive)) AS n
"""
EVIL = "<script>window.__pwned=1</script>"
EVIL_IMG = "<img src=x onerror=window.__pwned=1>"


def _load_samples(lin, folder=None):
    files = sorted((SAMPLES / "chimbuko").glob("*.json"))
    if folder is not None:  # the same records, with hostile function names
        folder.mkdir()
        for f in files:
            text = f.read_text(encoding="utf-8")
            text = text.replace("the_function(int, double)", "the_function" + EVIL + "(int)")
            text = text.replace("MPI_Scan()", "MPI_Scan" + EVIL_IMG)
            (folder / f.name).write_text(text, encoding="utf-8")
        files = sorted(folder.glob("*.json"))
    lin.load(files)
    [run] = [r["uid"] for r in lin.query("runs", kind="ProgramRun")]
    return run


@pytest.fixture
def chimbuko_run(session_lineage):
    """The bundled Chimbuko samples' program run (loaded again when a test emptied the graph)."""
    runs = session_lineage.query("runs", kind="ProgramRun")
    if len(runs) == 1 and "chimbuko-" in runs[0]["uid"] and \
            session_lineage.query(ANOMALIES_CYPHER, run=runs[0]["uid"]):
        return session_lineage, runs[0]["uid"]
    session_lineage.reset(force=True)
    return session_lineage, _load_samples(session_lineage)


def test_one_query_gives_what_the_two_templates_give_per_anomaly(chimbuko_run):
    lin, run = chimbuko_run
    uids = sorted(r["uid"] for r in lin.query(ANOMALIES_CYPHER, run=run))
    assert len(uids) == 21
    rows = lin.query("chimbuko/anomaly_details", uids=uids + ["chimbuko:event:nope"])
    assert [r["uid"] for r in rows] == uids  # in the order given; an unknown uid has no row
    for row in rows:
        stack = lin.query("chimbuko/anomaly_call_stack", uid=row["uid"])
        window = lin.query("chimbuko/anomaly_context", uid=row["uid"])
        assert [{k: f[k] for k in stack.columns} for f in row["stack"]] == list(map(dict, stack))
        assert [{k: w[k] for k in window.columns} for w in row["window"]] == list(map(dict, window))
    assert sum(len(r["window"]) for r in rows) > len(rows)  # the windows are not empty


def test_the_page_carries_the_most_severe_anomalies(chimbuko_run, monkeypatch):
    lin, run = chimbuko_run
    monkeypatch.setattr(chimbuko_panel, "MAX_DETAILS", 5)
    data = report_data(lin, run, max_nodes=40)
    first = data["tables"][0]
    assert first["title"] == "Anomalies, most severe first"
    assert first["all_columns"][:4] == ["uid", "severity", "score", "function"]
    assert first["columns"] == ["function", "severity", "rank", "runtime", "uid"]  # key ones
    severities = [r["severity"] for r in first["rows"] if r["severity"] is not None]
    [known] = lin.query(SEVERE_CYPHER, run=run)
    assert severities == sorted(severities, reverse=True) and len(severities) == known["n"] > 0
    assert [r["severity"] for r in first["rows"][len(severities):]] == [None] * (21 - known["n"])
    info = data["details"]
    assert info["total"] == first["total"] == 21 and info["limit"] == 5
    assert list(info["anomalies"]) == [r["uid"] for r in first["rows"][:5]]
    a = info["anomalies"][first["rows"][0]["uid"]]
    assert [f["this"] for f in a["stack"]] == [False] * (len(a["stack"]) - 1) + [True]
    assert a["entry"] == human("entry", first["rows"][0]["entry"]) and a["entry"].endswith("Z")
    assert a["runtime"].endswith(" µs")
    # collapsed to 40 drawn nodes, every anomaly is still drawn on its own
    assert data["collapsed"] is not None
    drawn = {n["uid"] for n in data["nodes"] if not n.get("group")}
    assert {r["uid"] for r in lin.query(ANOMALIES_CYPHER, run=run)} <= drawn


def _cells(page, selector):
    return page.evaluate(
        "Array.from(document.querySelectorAll(%s)).map(tr => Array.from(tr.cells).map(c => c.textContent))"
        % json.dumps(selector))


def _click_node(page, uid):
    """A real mouse click on a node drawn by vis-network."""
    x, y = page.evaluate("""uid => {
        const net = window.lineageReport.network, p = net.getPositions([uid])[uid];
        const d = net.canvasToDOM(p), r = document.querySelector('#graph canvas').getBoundingClientRect();
        return [r.left + d.x, r.top + d.y];
    }""", uid)
    page.mouse.click(x, y)


def test_clicking_an_anomaly_shows_its_stack_and_window(chimbuko_run, tmp_path):
    lin, run = chimbuko_run
    out = tmp_path / "run.html"
    lin.report(run, out)
    top = lin.query("chimbuko/run_anomalies", run=run, limit=1)[0]
    stack = lin.query("chimbuko/anomaly_call_stack", uid=top["uid"])
    window = lin.query("chimbuko/anomaly_context", uid=top["uid"])
    with chromium() as context:
        page, errors, dialogs = _open(context, out)
        # the first row of the anomalies table (the most severe) opens the panel
        page.click("table.section tr.anomaly-row")
        frames = _cells(page, "#details table.stack tr:not(:first-child)")
        assert [f[1] for f in frames] == [s["function"] for s in stack]
        assert [f[0] for f in frames] == [str(s["level"]) for s in stack]
        marked = _cells(page, "#details table.stack tr.this-anomaly")
        assert marked == [frames[-1]] and marked[0][-1] == "\u25c0 this anomaly"
        assert marked[0][2] == human("entry", top["entry"])
        rows = _cells(page, "#details table.window tr:not(:first-child)")
        assert [(r[0], r[1]) for r in rows] == [(w["relation"], str(w["offset"])) for w in window]
        before = [r for r in rows if r[0] == "before"]
        assert before and all(r[4].startswith("-") and r[4].endswith(" µs") for r in before)
        assert page.evaluate("window.lineageReport.focused().id") == top["uid"]
        # a click on another anomaly's node in the graph shows that one's
        other = lin.query("chimbuko/run_anomalies", run=run, limit=3)[2]
        page.click("#reset")
        _click_node(page, other["uid"])
        assert page.evaluate("window.lineageReport.focused().id") == other["uid"]
        heading = page.inner_text("#details .anomaly-panel h2")
        assert heading == "Anomaly " + other["function"]
        shot = screenshot(page, "report-chimbuko-anomaly.png")
        assert errors == [] and dialogs == [] and external_requests(context) == []
    assert shot.stat().st_size > 10000


def test_an_anomaly_past_the_limit_says_so(chimbuko_run, tmp_path, monkeypatch):
    lin, run = chimbuko_run
    monkeypatch.setattr(chimbuko_panel, "MAX_DETAILS", 3)
    out = tmp_path / "run.html"
    lin.report(run, out)
    fourth = lin.query("chimbuko/run_anomalies", run=run, limit=4)[3]
    with chromium() as context:
        page, errors, _ = _open(context, out)
        page.locator("table.section tr.anomaly-row").nth(3).click()
        text = page.inner_text("#details .anomaly-panel")
        assert "not included in this page" in text and "3 most severe of the run's 21" in text
        assert fourth["uid"] in text
        assert page.locator("#details table.stack").count() == 0
        assert errors == []


def test_hostile_function_names_are_text(session_lineage, tmp_path):
    lin = session_lineage
    lin.reset(force=True)
    run = _load_samples(lin, tmp_path / "evil")
    out = tmp_path / "evil.html"
    lin.report(run, out)
    page_text = out.read_text(encoding="utf-8")
    assert EVIL not in page_text and EVIL_IMG not in page_text
    with chromium() as context:
        page, errors, dialogs = _open(context, out)
        rows = page.locator("table.section tr.anomaly-row")
        for i in range(rows.count() // 2):  # every row of the anomalies table
            rows.nth(i).click()
        page.locator("table.section tr.anomaly-row").first.click()
        time.sleep(0.3)
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert dialogs == [] and errors == []
        frames = _cells(page, "#details table.stack tr:not(:first-child)")
        assert any(EVIL in f[1] for f in frames)
        window = [r[2] for r in _cells(page, "#details table.window tr:not(:first-child)")]
        assert any(EVIL in name for name in window)
        assert page.evaluate("document.querySelectorAll('#details script, #details img').length") == 0
    lin.reset(force=True)
