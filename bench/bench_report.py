"""Benchmark big reports: build time, and time-to-drawn in headless Chromium, side by side for
vis-network's own hierarchical layout (what reports used before) and the precomputed layered
layout (lineage/report/layout.py) drawn by vis-network and by the page's canvas renderer,
with the ratios.

    python bench/bench_report.py --nodes 1000 10000

A synthetic Pegasus workflow (bench/gen_bp.py: one task per job, so N drawn nodes are about
N/2 jobs, N/2 tasks and the workflow) is loaded into Neo4j (NEO4J_URI if set, else a managed
server under bench/out/state-report, stopped at the end), its report is built ungrouped
(--max-nodes above N),
and each page is opened in headless Chromium (Debian's chromium, no network):
time-to-drawn is from navigation start to the first painted frame with the graph
(``window.lineageDrawnAt``), "script done" to the end of the page's script. A renderer that
has not drawn after --timeout seconds is reported as ``>timeout`` (its ratio is then a lower
bound). Interaction is measured too: focusing a node (bounded lineage) and "expand".
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import private_server


def load_workflow(lin, nodes: int) -> str:
    """Load a generated workflow of about ``nodes`` drawn nodes; returns its uid."""
    from gen_bp import EVENTS_PER_JOB, generate

    jobs = max(1, (nodes - 1) // 2)
    path = HERE / "out" / f"report-{jobs}.bp"
    path.parent.mkdir(exist_ok=True)
    if not path.exists():
        generate(path, jobs * EVENTS_PER_JOB)
    lin.reset(force=True)
    lin.load([path])
    return "pegasus:workflow:bench-0000-0000-0000-000000000001"


#: The renderers compared: (name, render() keyword arguments).
VARIANTS = [
    ("vis-network, its own hierarchical layout (before)", {"layout": "vis", "renderer": "vis"}),
    ("vis-network, layered positions", {"layout": "layered", "renderer": "vis"}),
    ("canvas, layered positions (now)", {"layout": "layered", "renderer": "canvas"}),
]

NEXT_FRAME = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def time_to_drawn(context, path: Path, timeout: float) -> dict:
    """Open ``path``: seconds from navigation to the first painted frame with the graph
    (``drawn``) and to the end of the page's script (``ready``: it answers clicks), then how
    long a focus click and an expand take to show (None when not drawn within ``timeout``)."""
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.resolve().as_uri(), wait_until="commit")
    t0 = time.monotonic()
    out = {"drawn": None, "ready": None, "focus": None, "expand": None, "errors": errors}
    while time.monotonic() - t0 < timeout:
        try:
            at = page.evaluate("[window.lineageDrawnAt || null, window.lineageReadyAt || null]")
        except Exception:  # noqa: BLE001 - the page is busy navigating
            at = [None, None]
        if at[0] and at[1]:
            out["drawn"], out["ready"] = at[0] / 1000, at[1] / 1000
            break
        time.sleep(0.05)
    if out["drawn"] is None:
        page.close()
        return out
    uid = page.evaluate("window.lineageReport.data.nodes[Math.floor(window.lineageReport.data.nodes.length * 0.55)].uid")
    t = time.monotonic()
    page.evaluate("(u) => window.lineageReport.focus(u)", uid)
    page.evaluate(NEXT_FRAME)
    out["focus"] = time.monotonic() - t
    t = time.monotonic()
    page.evaluate("window.lineageReport.expand()")
    page.evaluate(NEXT_FRAME)
    out["expand"] = time.monotonic() - t
    out["shown"] = page.evaluate("window.lineageReport.view.shown()")
    page.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds to wait for a page's first drawing")
    ap.add_argument("--state", type=Path, default=HERE / "out" / "state-report",
                    help="managed server's state directory (when NEO4J_URI is not set)")
    args = ap.parse_args()
    with private_server.connected(args.state) as lin:
        measure(lin, args)


def measure(lin, args) -> None:
    """Load, build, render and time each size of ``args.nodes``."""
    from lineage.report.build import report_data
    from lineage.report.render import render
    from tests.browser import chromium

    out_dir = HERE / "out"
    fmt = lambda v: f"{v:.2f} s" if v is not None else f">{args.timeout:.0f} s"  # noqa: E731
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for n in args.nodes:
        wf = load_workflow(lin, n)
        t = time.perf_counter()
        data = report_data(lin, wf, max_nodes=n * 2)
        t_data = time.perf_counter() - t
        print(f"{len(data['nodes'])} nodes, {len(data['edges'])} edges: report data "
              f"{t_data:.2f} s (queries and layout)")
        results = []
        with chromium() as context:
            for name, kwargs in VARIANTS:
                t = time.perf_counter()
                page = render(**dict(data, **kwargs))
                t_render = time.perf_counter() - t
                path = out_dir / f"report-{n}-{kwargs['layout']}-{kwargs['renderer']}.html"
                path.write_text(page, encoding="utf-8")
                r = time_to_drawn(context, path, args.timeout)
                results.append((name, r))
                print(f"  {name}: HTML {t_render:.2f} s, {len(page) / 1e6:.1f} MB; drawn "
                      f"{fmt(r['drawn'])}, script done {fmt(r['ready'])}; focus "
                      f"{fmt(r['focus'])}, expand {fmt(r['expand'])} ({r.get('shown')} "
                      f"nodes shown); page errors {len(r['errors'])}")
                sys.stdout.flush()
        base = results[0][1]["drawn"]
        for name, r in results[1:]:
            if r["drawn"]:
                ratio = f"{base / r['drawn']:.1f}x" if base else f">{args.timeout / r['drawn']:.0f}x"
                print(f"  time to drawn, before / {name}: {ratio}")


if __name__ == "__main__":
    main()
