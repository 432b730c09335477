"""Big reports in headless Chromium: 10,000 nodes drawn ungrouped (layered layout, canvas
renderer), a click shows a depth-bounded lineage that "expand" grows, arrows in data-flow
direction with a PROV toggle, failed nodes never grouped away, and the Pegasus run view
(labels by transformation, the Gantt timeline of attempts, sortable tables, a clicked job's
attempts and output). Speed is measured in bench/bench_report.py, not asserted here."""

from __future__ import annotations

import time

import networkx as nx

from lineage import model
from lineage.model.records import Edge, Node
from lineage.report.build import collapse, data_flow, report_data
from lineage.load.writer import Writer

from .browser import chromium, external_requests, screenshot
from .conftest import SAMPLES
from .report_graphs import HOSTILE, HOSTILE_RUN, write_hostile_run, write_layered_run
from .test_report_browser import _open, _painted_pixels
from .corpus import needs_corpus

FAIL_DB = SAMPLES / "pegasus" / "process_wf_failure.stampede.db"
FAIL_WF = "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3"
BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"


def _lineage(edges, uid, depth):
    """The oracle for a focused node: itself, what lies up to ``depth`` hops upstream and up to
    ``depth`` hops downstream (networkx, over the drawn edges)."""
    g = nx.DiGraph()
    g.add_edges_from((e["source"], e["target"]) for e in edges)
    up = nx.single_source_shortest_path_length(g, uid, cutoff=depth)
    down = nx.single_source_shortest_path_length(g.reverse(copy=False), uid, cutoff=depth)
    return set(up) | set(down)


def _shown(page):
    return page.evaluate("window.lineageReport.view.shown()")


def test_ten_thousand_nodes_drawn_ungrouped_and_interactive(lin, tmp_path):
    info = write_layered_run(lin, layers=100, width=100, types=5)
    members = lin.query("run_members", run=info["run"])
    data = report_data(lin, info["run"], max_nodes=20000)
    assert data["collapsed"] is None and len(data["nodes"]) == len(members) + 1 == 10001
    # the layout puts data flow left to right: every parent job is left of its children
    x = {n["uid"]: n["x"] for n in data["nodes"]}
    informed = [e for e in data["edges"] if e["type"] == "WAS_INFORMED_BY"]
    assert len(informed) == 99 * 100 * 2
    assert all(x[data_flow(e)[0]] < x[data_flow(e)[1]] for e in informed)
    out = tmp_path / "big.html"
    lin.report(info["run"], out, max_nodes=20000)
    with chromium() as context:
        page, errors, dialogs = _open(context, out)
        assert page.evaluate("window.lineageReport.renderer") == "canvas"
        assert page.evaluate("window.lineageReport.data.nodes.length") == 10001
        assert page.evaluate("window.lineageReport.view.drawnNodes()") == 10001
        assert page.inner_text("#drawn-count") == "10001"
        assert _painted_pixels(page) > 20000
        screenshot(page, "report-10k-ungrouped.png")
        # a real click on a job (zoomed to it first) focuses it: its lineage, 2 hops each way
        job = f"{info['run']}:job:50:50"
        page.evaluate("(u) => window.lineageReport.view.fit([u])", job)
        page.evaluate("window.lineageReport.view.redraw()")
        px, py = page.evaluate("(u) => window.lineageReport.view.toScreen(u)", job)
        page.mouse.click(px, py)
        assert page.evaluate("window.lineageReport.focused().id") == job
        expected = _lineage(data["edges"], job, 2)
        assert len(expected) == 11 and _shown(page) == len(expected)
        assert "t0_50_50" in page.inner_text("#details")
        assert "within 2 hops: 11 nodes" in page.inner_text("#status-line")
        # "expand" adds one hop
        page.click("#expand")
        assert _shown(page) == len(_lineage(data["edges"], job, 3)) == 19
        page.click("#expand")
        assert _shown(page) == len(_lineage(data["edges"], job, 4))
        screenshot(page, "report-10k-focused.png")
        # hovering a node shows its tooltip, as text
        page.evaluate("window.lineageReport.view.redraw()")
        px, py = page.evaluate("(u) => window.lineageReport.view.toScreen(u)", job)
        page.mouse.move(px + 1, py + 1)
        assert "t0_50_50" in page.inner_text("#tip")
        page.click("#reset")
        assert _shown(page) == 10001
        # the wheel zooms in around the pointer, a drag pans
        box = page.locator("#graph canvas").bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.evaluate("window.lineageReport.view.redraw()")
        other = f"{info['run']}:job:10:0"
        span = "([a, b]) => { const v = window.lineageReport.view, p = v.toScreen(a), q = v.toScreen(b); return Math.hypot(p[0] - q[0], p[1] - q[1]); }"
        before = page.evaluate(span, [job, other])
        page.mouse.move(cx, cy)
        page.mouse.wheel(0, -600)
        page.evaluate("window.lineageReport.view.redraw()")
        assert page.evaluate(span, [job, other]) > 1.5 * before  # zoomed in: nodes spread apart
        zoomed = page.evaluate("(u) => window.lineageReport.view.toScreen(u)", job)
        page.mouse.down()
        page.mouse.move(cx + 100, cy + 40, steps=5)
        page.mouse.up()
        page.evaluate("window.lineageReport.view.redraw()")
        panned = page.evaluate("(u) => window.lineageReport.view.toScreen(u)", job)
        assert round(panned[0] - zoomed[0]) == 100 and round(panned[1] - zoomed[1]) == 40
        assert page.evaluate("window.lineageReport.focused()") is None  # a drag is not a click
        # the PROV toggle turns the arrows of PROV relations around
        edge = page.evaluate("window.lineageReport.data.edges.find(e => e.type === 'WAS_INFORMED_BY')")
        arrow = "(e) => window.lineageReport.view.arrowsTo(e)"
        assert page.evaluate(arrow, edge) == edge["source"]  # data flow: parent -> child
        page.check("#prov-direction")
        assert page.evaluate(arrow, edge) == edge["target"]  # PROV: child -> parent
        assert "PROV direction" in page.inner_text("#direction-note")
        assert errors == [] and dialogs == [] and external_requests(context) == []


def test_failed_nodes_are_never_grouped_away(lin):
    info = write_layered_run(lin, layers=100, width=100, types=5)
    failed = {f"{info['run']}:job:{k // 100}:{k % 100}" for k in range(info["jobs"]) if k % 97 == 0}
    # more failed nodes (104) than the limit: they are all drawn on their own all the same
    data = report_data(lin, info["run"], max_nodes=50)
    single = {n["uid"] for n in data["nodes"] if not n.get("group")}
    assert failed <= single and len(failed) == 104
    assert not any(m[0] in failed for n in data["nodes"] if n.get("group") for m in n["members"])
    assert data["collapsed"]["standing_out"] == 104
    # an anomaly stays on its own too
    nodes = [{"uid": f"e{i}", "kind": "FunctionExecution", "name": f"f{i}",
              "properties": {"is_anomaly": i == 3}} for i in range(30)]
    drawn, _, note = collapse(nodes, [], max_nodes=2)
    assert "e3" in {n["uid"] for n in drawn if not n.get("group")} and note["standing_out"] == 1


def _attempt_rows(lin, wf):
    return lin.query("pegasus/attempts", workflow=wf, all=True)


@needs_corpus
def test_pegasus_run_view_timeline_tables_and_attempts(lin, tmp_path):
    lin.load([FAIL_DB])
    attempts = _attempt_rows(lin, FAIL_WF)
    timed = [a for a in attempts if a["start_time"] is not None]
    assert len(attempts) > len({a["job_id"] for a in attempts})  # some job was retried
    out = tmp_path / "fail.html"
    lin.report(FAIL_WF, out)
    with chromium() as context:
        page, errors, dialogs = _open(context, out)
        deadline = time.monotonic() + 20
        while page.locator("#gantt rect.bar").count() == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        # one bar per attempt, one row per host
        assert page.locator("#gantt rect.bar").count() == len(timed)
        hosts = {a["host"] or "(unknown host)" for a in timed}
        labels = page.evaluate("Array.from(document.querySelectorAll('#gantt text')).map(t => t.textContent)")
        assert all(h[:21] in " ".join(labels) for h in hosts)
        # a click on the bar of a retried job shows all its attempts with their output
        retried = max({a["job_id"] for a in attempts}, key=lambda j: sum(a["job_id"] == j for a in attempts))
        tries = [a for a in attempts if a["job_id"] == retried]
        i = page.evaluate("(j) => window.lineageReport.data.attempts.findIndex(a => a.job_id === j && a.start_time !== undefined)", retried)
        page.click(f"#gantt rect.bar[data-i='{i}']")
        assert retried in page.inner_text("#details")
        assert page.locator("#details table.attempts tr").count() == len(tries) + 1
        outputs = lin.query("MATCH (a:JobInstance)-[:INSTANCE_OF]->(j:Job {job_id: $j}) "
                            "RETURN a.stderr_text AS err, a.stdout_text AS out", j=retried)
        shown = page.evaluate("Array.from(document.querySelectorAll('#details pre.output')).map(p => p.textContent)")
        for row in outputs:
            for text in (row["err"], row["out"]):
                if text:
                    assert text[-2000:] in " ".join(shown)
        screenshot(page, "report-pegasus-attempts.png")
        # sortable tables: the job table sorted by a header click, then reversed
        # (the Jobs table: its key columns job_id, status, attempts, duration, host)
        table = page.locator("table.section").filter(has=page.locator("th", has_text="duration")).first
        ids = table.locator("tbody tr td:nth-child(1)").all_inner_texts()
        in_order = ("(xs) => xs.every((x, i) => i === 0 || "
                    "xs[i - 1].localeCompare(x, undefined, {numeric: true}) <= 0)")
        assert len(ids) > 3 and not page.evaluate(in_order, ids)  # not already sorted
        table.locator("th", has_text="job_id").click()
        asc = table.locator("tbody tr td:nth-child(1)").all_inner_texts()
        assert sorted(asc) == sorted(ids) and page.evaluate(in_order, asc)
        table.locator("th", has_text="job_id").click()
        assert table.locator("tbody tr td:nth-child(1)").all_inner_texts() == asc[::-1]
        # numbers sort by value (data-v), not as text
        col = page.evaluate("(t) => Array.from(t.querySelectorAll('thead th')).findIndex(th => th.textContent === 'attempts')", table.element_handle())
        table.locator("th", has_text="attempts").first.click()
        values = [int(v) for v in table.locator(f"tbody tr td:nth-child({col + 1})").all_inner_texts()]
        assert values == sorted(values) and values[0] < values[-1]
        assert errors == [] and dialogs == [] and external_requests(context) == []


@needs_corpus
def test_jobs_are_labelled_by_transformation(lin):
    lin.load([BD])
    data = report_data(lin, BD_WF)
    tasks = {r["job"]: r["transformation"] for r in lin.query(
        "MATCH (j:Job)-[:RUNS_TASK]->(t:Task) RETURN j.uid AS job, t.transformation AS transformation")}
    jobs = [n for n in data["nodes"] if n["kind"] == "Job"]
    assert len(tasks) == 4
    assert set(tasks.values()) == {f"pegasus::{t}:4.0" for t in ("preprocess", "findrange", "analyze")}
    for n in jobs:  # the transformation's name (no namespace, no version), else the job id
        expected = tasks[n["uid"]].split("::")[1].split(":")[0] if n["uid"] in tasks else n["properties"]["job_id"]
        assert n["label"] == expected
    assert {n["label"] for n in jobs if n["uid"] in tasks} == {"preprocess", "findrange", "analyze"}


@needs_corpus
def test_small_reports_keep_vis_network_with_both_directions(lin, tmp_path):
    lin.load([BD])
    out = tmp_path / "bd.html"
    lin.report(BD_WF, out)
    with chromium() as context:
        page, errors, _ = _open(context, out)
        assert page.evaluate("window.lineageReport.renderer") == "vis-network"
        edge = page.evaluate("window.lineageReport.data.edges.find(e => e.type === 'WAS_INFORMED_BY')")
        arrow = "(e) => window.lineageReport.view.arrowsTo(e)"
        assert page.evaluate(arrow, edge) == edge["source"]
        page.check("#prov-direction")
        assert page.evaluate(arrow, edge) == edge["target"]
        page.uncheck("#prov-direction")
        assert page.evaluate(arrow, edge) == edge["source"]
        # positions come from the layered layout: parents left of children
        pos = page.evaluate("window.lineageReport.network.getPositions()")
        assert pos[edge["target"]]["x"] < pos[edge["source"]]["x"]
        assert errors == []


def test_attempt_output_is_shown_as_text(lin, tmp_path):
    jobs = write_hostile_run(lin)
    w = Writer(lin.graph.driver, lin.graph.database)
    w.write_nodes([Node(model.kind("JobInstance"), f"{jobs[0]}:try:{k}",
                        {"name": f"try{k}", "submit_seq": k, "hostname": HOSTILE[2],
                         "start_time": 100.0 + k, "end_time": 150.0 + k, "status": "failed",
                         "stdout_text": HOSTILE[1], "stderr_text": HOSTILE[0]})
                   for k in (1, 2)])
    w.write_edges([Edge(model.INSTANCE_OF, f"{jobs[0]}:try:{k}", jobs[0]) for k in (1, 2)])
    out = tmp_path / "hostile.html"
    lin.report(HOSTILE_RUN, out)
    with chromium() as context:
        page, errors, dialogs = _open(context, out)
        page.evaluate("(u) => window.lineageReport.focus(u)", jobs[0])
        shown = page.evaluate("Array.from(document.querySelectorAll('#details pre.output')).map(p => p.textContent)")
        assert shown.count(HOSTILE[1]) == 2 and shown.count(HOSTILE[0]) == 2
        deadline = time.monotonic() + 20
        while page.locator("#gantt rect.bar").count() < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert page.locator("#gantt rect.bar").count() == 2
        assert page.evaluate("typeof window.__pwned") == "undefined" and dialogs == [] and errors == []
        assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
