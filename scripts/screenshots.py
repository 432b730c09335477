"""Screenshots of every report kind, made from the demo campaign at 1,400 x 1,000 pixels,
for the docs (docs/screenshots/*.png, shown in docs/guide/reports.md).

    python scripts/screenshots.py [--out docs/screenshots]

It runs the demo (its own managed Neo4j, as ``lineage demo`` does: LINEAGE_HOME decides
where), writes the reports, a failed job's lineage report beside them, and opens each in
headless Chromium (Playwright driving the system's ``chromium``, no network).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from lineage import api
from lineage.demo import run_demo
from lineage.demo.run import report_name

VIEWPORT = {"width": 1400, "height": 1000}
#: file name -> how to pick the run it shows (kind, failed first)
KINDS = {
    "report-pegasus-workflow.png": ("Workflow", "failed"),
    "report-swift-run.png": ("ScriptRun", None),
    "report-xalt-run.png": ("Execution", None),
    "report-chimbuko-run.png": ("ProgramRun", None),
}


def pick(runs: list[dict], kind: str, status: str | None) -> dict:
    """The first run of ``kind`` (of ``status`` when given; an XALT run of analyze)."""
    found = [r for r in runs if r["kind"] == kind and (status is None or r["status"] == status)]
    if kind == "Execution":
        found = [r for r in found if r["name"].startswith("analyze")] or found
    return found[0]


def shoot(pages: dict[str, Path], out: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport=VIEWPORT)
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
                   else r.abort())
        for name, path in pages.items():
            page.goto(path.resolve().as_uri())
            deadline = time.monotonic() + 60
            while not page.evaluate("!!(window.lineageReport && window.lineageReport.drawn())"
                                    " || !document.getElementById('graph')"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{path}: the graph was not drawn in 60 s")
                time.sleep(0.1)
            time.sleep(0.5)
            page.screenshot(path=str(out / name))
            print(f"{out / name}")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lineage-shots-") as scratch, \
            api.connect_demo() as lin:
        lin.reset()
        reports = Path(scratch) / "reports"
        result = run_demo(lin, Path(scratch) / "files", reports)
        pages = {name: reports / pick(result.runs, *how)["report"]
                 for name, how in KINDS.items()}
        failed = lin.query("pegasus/failed_jobs", workflow=pick(result.runs, "Workflow",
                                                                  "failed")["uid"])[0]
        job = reports / report_name(failed["job_uid"])
        lin.report(failed["job_uid"], job)
        pages["report-node-lineage.png"] = job
        pages["demo-index.png"] = result.index
        shoot(pages, args.out)


if __name__ == "__main__":
    main()
