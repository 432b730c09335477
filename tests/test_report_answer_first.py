"""Every report kind of the demo demo_campaign, opened in real Chromium at 1,400 x 1,000: the
answer (the failing job's error line, the most severe anomaly, the binary) is visible without
scrolling, no table is wider than its panel, and hovering a node shows its tooltip in both
renderers (vis-network and the page's own canvas)."""


from lineage.report.build import report_data
from lineage.report.render import render

from . import demo_scenario as demo
from .browser import chromium, screenshot
from .test_report_browser import _open

VIEWPORT = (1400, 1000)
ERROR_LINE = "analyze: -n 0: the number of histogram bins must be at least 1"



def _visible(page, selector: str) -> dict:
    """The bounding box of the first match, asserted inside the viewport (no scrolling)."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    assert 0 <= box["y"] and box["y"] + box["height"] <= VIEWPORT[1], (selector, box)
    assert 0 <= box["x"] and box["x"] + box["width"] <= VIEWPORT[0], (selector, box)
    assert page.evaluate("window.scrollY") == 0
    return box


def _tables_fit(page):
    widths = page.evaluate("""() => Array.from(document.querySelectorAll('table.section'))
        .map(t => [t.scrollWidth, document.getElementById('side').clientWidth])""")
    for table, panel in widths:
        assert table <= panel, widths


def _hover_tip(page, uid: str, expect: str):
    page.evaluate("window.lineageReport.view.fit(null)")
    x, y = page.evaluate("(u) => window.lineageReport.view.toScreen(u)", uid)
    page.mouse.move(x - 3, y - 3)
    page.mouse.move(x, y)
    page.wait_for_timeout(400)
    assert page.locator("#tip").is_visible(), uid
    assert expect in page.inner_text("#tip")




def test_failed_workflow_says_why_first(demo_campaign, tmp_path):
    uid = demo.workflow(demo.SECOND)
    out = demo_campaign.report(uid, tmp_path / "wf.html")
    with chromium(viewport=VIEWPORT) as context:
        page, errors, _ = _open(context, tmp_path / "wf.html")
        box = _visible(page, "#answer .error-line")
        assert page.inner_text("#answer .error-line") == ERROR_LINE
        assert "Failed: 1 of 7 jobs failed" in page.inner_text("#answer-headline")
        counts = page.inner_text("#answer-counts")
        assert "failed jobs: 1" in counts and "blocked jobs: 1" in counts
        assert "stage_out" in page.inner_text("#answer-blocked")
        assert "/opt/keg/bin/analyze" in page.inner_text("#answer-across")
        assert "loads" not in page.inner_text("#details")
        _tables_fit(page)
        _visible(page, "#hint")
        _hover_tip(page, demo.job(demo.SECOND, "analyze_ID0000004"), "analyze_ID0000004")
        screenshot(page, "answer-workflow.png")
        assert errors == [] and box["height"] > 0 and out


def test_canvas_renderer_shows_tooltips_too(demo_campaign, tmp_path):
    uid = demo.workflow(demo.SECOND)
    page_html = render(**{**report_data(demo_campaign, uid), "renderer": "canvas"})
    (tmp_path / "canvas.html").write_text(page_html)
    with chromium(viewport=VIEWPORT) as context:
        page, errors, _ = _open(context, tmp_path / "canvas.html")
        assert page.evaluate("window.lineageReport.renderer") == "canvas"
        page.evaluate("window.lineageReport.view.fit(null)")
        page.evaluate("window.lineageReport.view.redraw()")
        _hover_tip(page, demo.job(demo.SECOND, "analyze_ID0000004"), "analyze_ID0000004")
        assert errors == []


def test_job_lineage_says_why_first(demo_campaign, tmp_path):
    uid = demo.job(demo.SECOND, "analyze_ID0000004")
    demo_campaign.report(uid, tmp_path / "job.html")
    with chromium(viewport=VIEWPORT) as context:
        page, errors, _ = _open(context, tmp_path / "job.html")
        _visible(page, "#answer .error-line")
        assert page.inner_text("#answer .error-line") == ERROR_LINE
        _hover_tip(page, uid, "analyze_ID0000004")
        _tables_fit(page)
        assert errors == []


def test_chimbuko_run_shows_the_anomaly_first(demo_campaign, tmp_path):
    demo_campaign.report(demo.CHIMBUKO_RUN, tmp_path / "chimbuko.html")
    top = demo_campaign.query("chimbuko/run_anomalies", run=demo.CHIMBUKO_RUN, limit=1)[0]
    with chromium(viewport=VIEWPORT) as context:
        page, errors, _ = _open(context, tmp_path / "chimbuko.html")
        _visible(page, "#answer-failures li")
        assert "9 anomalies" in page.inner_text("#answer-headline")
        assert top["function"].split(" [{")[0] in page.inner_text("#answer-failures li")
        # the graph is the call trees, its anomalies marked
        kinds = set(page.evaluate("window.lineageReport.data.nodes.map(n => n.kind)"))
        assert kinds == {"ProgramRun", "Rank", "FunctionExecution"}
        labels = page.evaluate("window.lineageReport.nodes.get().map(n => n.label)")
        assert sum(1 for label in labels if label.startswith("\u26a0")) == 9
        _tables_fit(page)
        _hover_tip(page, top["uid"], "keg::")
        assert errors == []


def test_swift_run_answer_first(demo_campaign, tmp_path):
    demo_campaign.report(demo.SWIFT_RUN, tmp_path / "swift.html")
    with chromium(viewport=VIEWPORT) as context:
        page, errors, _ = _open(context, tmp_path / "swift.html")
        _visible(page, "#answer-across")
        assert page.inner_text("#answer-headline").startswith("What happened: Succeeded")
        assert "keg-summarize" in page.inner_text("#answer-across")
        _tables_fit(page)
        node = page.evaluate("window.lineageReport.data.nodes.find(n => n.kind === 'FunctionCall').uid")
        name = page.evaluate("(u) => window.lineageReport.data.nodes.find(n => n.uid === u).name", node)
        _hover_tip(page, node, name)
        assert errors == []


def test_xalt_run_answer_first(demo_campaign, tmp_path):
    uid = next(r["uid"] for r in demo_campaign.query("runs") if r["kind"] == "Execution"
               and r["name"].startswith("analyze"))
    demo_campaign.report(uid, tmp_path / "xalt.html")
    with chromium(viewport=VIEWPORT) as context:
        page, errors, _ = _open(context, tmp_path / "xalt.html")
        _visible(page, "#answer-across")
        across = page.inner_text("#answer-across")
        assert "/opt/keg/bin/analyze" in across and "libkeg.so.4" in across
        assert "ran within" in across
        _tables_fit(page)
        _hover_tip(page, uid, "analyze")
        assert errors == []
