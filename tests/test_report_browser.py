"""Reports opened in a real browser: headless Chromium, no network, screenshots saved under
tests/artifacts/."""

import time

from lineage.report.build import report_data

from .browser import chromium, external_requests, screenshot
from .conftest import SAMPLES
from .report_graphs import HOSTILE, HOSTILE_RUN, write_hostile_run, write_layered_run
from .corpus import needs_corpus

BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) { window.__csp.push(e.blockedURI); });
"""


def _open(context, path, timeout=60000):
    page = context.new_page()
    page.add_init_script(WATCH)
    errors, dialogs = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(path.resolve().as_uri())
    # poll from here: the page's CSP forbids the eval that wait_for_function's polling needs
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate("!!(window.lineageReport && window.lineageReport.drawn())"):
        assert time.monotonic() < deadline, "the graph was not drawn in time"
        time.sleep(0.1)
    return page, errors, dialogs


def _painted_pixels(page) -> int:
    """Non-white pixels on the graph's canvas (0 means nothing was drawn)."""
    return page.evaluate("""() => {
        const c = document.querySelector('#graph canvas');
        const ctx = c.getContext('2d');
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) n++;
        return n;
    }""")


@needs_corpus
def test_workflow_report_renders_offline(lin, tmp_path):
    lin.load([SAMPLES / "pegasus" / "blackdiamond-4.0.bp"])
    parts = lin.query("run_members", run=BD_WF)
    out = lin.report(BD_WF, tmp_path / "blackdiamond.html")
    with chromium() as context:
        page, errors, dialogs = _open(context, tmp_path / "blackdiamond.html")
        near = {r["uid"] for r in lin.query("structure_of", uid=BD_WF)}  # its user, host, ...
        expected = len({r["uid"] for r in parts} | near) + 1  # and the workflow itself
        assert expected > len(parts) + 1
        assert page.evaluate("window.lineageReport.nodes.length") == expected
        assert page.evaluate("Object.keys(window.lineageReport.network.getPositions()).length") == expected
        assert page.inner_text("#drawn-count") == str(expected)
        assert _painted_pixels(page) > 1000
        # click to focus: a job's lineage hides the unrelated stage-out jobs
        page.evaluate("window.lineageReport.focus(%r)" % (BD_WF.replace("workflow", "job") + ":preprocess_j1"))
        hidden = page.evaluate("window.lineageReport.nodes.get({filter: n => n.hidden}).length")
        assert 0 < hidden < expected
        assert "preprocess_j1" in page.inner_text("#details")
        # search by name lists and selects the match
        page.fill("#search", "analyze")
        assert "analyze_j4" in page.inner_text("#matches")
        # (the job, and its task: found by its transformation, pegasus::analyze:4.0)
        selected = page.evaluate("window.lineageReport.network.getSelectedNodes()")
        job = BD_WF.replace("workflow", "job") + ":analyze_j4"
        kinds = page.evaluate("(ids) => ids.map(i => window.lineageReport.data.nodes.find("
                              "n => n.uid === i).kind).sort()", selected)
        assert job in selected and kinds == ["Job", "Task"]
        page.click("#reset")
        shot = screenshot(page, "report-blackdiamond.png")
        assert errors == [] and dialogs == []
        assert page.evaluate("window.__csp") == []
        assert external_requests(context) == []
    assert shot.stat().st_size > 10000 and out


def test_hostile_strings_do_not_execute(lin, tmp_path):
    uids = write_hostile_run(lin)
    lin.report(HOSTILE_RUN, tmp_path / "hostile.html")
    with chromium() as context:
        page, errors, dialogs = _open(context, tmp_path / "hostile.html")
        page.fill("#search", HOSTILE[1])
        page.press("#search", "Enter")
        page.evaluate("window.lineageReport.focus(%r)" % uids[0])
        time.sleep(0.5)
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert dialogs == [] and errors == []
        assert page.evaluate("window.lineageReport.nodes.length") == len(HOSTILE) + 1
        # shown literally: the title, the job table cells, the details panel, the labels
        assert page.inner_text("#title") == f"Workflow {HOSTILE[0]}"
        cells = page.evaluate("Array.from(document.querySelectorAll('table.section td')).map(td => td.textContent)")
        for text in HOSTILE:
            assert text.replace("\r\n", "\n") in cells
        assert HOSTILE[0] in page.inner_text("#details")
        labels = page.evaluate("window.lineageReport.nodes.get().map(n => n.label)")
        assert HOSTILE[4] in labels
        assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
        screenshot(page, "report-hostile.png")
        assert external_requests(context) == []


def test_ten_thousand_nodes_are_grouped_and_stay_responsive(lin, tmp_path):
    info = write_layered_run(lin, layers=100, width=100, types=5)
    failed = sum(1 for k in range(info["jobs"]) if k % 97 == 0)
    data = report_data(lin, info["run"], max_nodes=500)
    note = data["collapsed"]
    assert note["total_nodes"] == info["jobs"] + 1
    groups = [n for n in data["nodes"] if n.get("group")]
    assert len(groups) == info["types"]
    assert len(data["nodes"]) == 1 + failed + info["types"] <= 500
    assert sum(g["count"] for g in groups) == info["jobs"] - failed
    out = tmp_path / "big.html"
    lin.report(info["run"], out, max_nodes=500)
    with chromium() as context:
        t0 = time.monotonic()
        page, errors, dialogs = _open(context, out)
        drawn_after = time.monotonic() - t0
        assert page.evaluate("window.lineageReport.nodes.length") == len(data["nodes"])
        assert page.inner_text("#collapsed-note").startswith(
            f"Collapsed: {info['jobs'] - failed} of {info['jobs'] + 1} nodes are drawn as "
            f"{info['types']} groups")
        # a group lists its members; a member of a group is found by search
        group = max(groups, key=lambda g: g["count"])
        page.evaluate("window.lineageReport.focus(%r)" % group["uid"])
        assert page.locator("#details tr").count() == min(group["count"], 2000) + 1
        member = group["members"][-1][1]
        t1 = time.monotonic()
        page.fill("#search", member)
        assert member in page.inner_text("#matches")
        assert time.monotonic() - t1 < 5
        screenshot(page, "report-10k.png")
        assert errors == [] and external_requests(context) == []
    assert drawn_after < 60, f"first drawing took {drawn_after:.1f} s"
