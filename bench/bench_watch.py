"""How long from a line written to a growing Pegasus stream to its facts being queryable,
while ``lineage watch`` follows it?

    .venv/bin/python bench/bench_watch.py [--size LINES] [--rate LINES_PER_S] [--base REV]

SIZE lines of a synthetic monitord stream (bench/gen_bp.py) are appended to a ``.bp`` one by
one at RATE lines a second (default 20: a busy workflow's monitord), with a
:class:`lineage.watch.watcher.Watcher` running its event loop (watchdog's events, ``lineage
link`` at most every 10 s as ``lineage watch`` runs: ``--link-every``) in a thread. A second thread asks the
graph every 20 ms where the last written increment ends; a line is queryable once an
increment that holds it is. The stream's first two lines (the plan, the start) are written
and read before the clock starts: a watcher runs for hours, its first look is not what a
line waits for. Figures: the write-to-queryable latency of the lines (median,
95th percentile, max, in seconds), the seconds from the first write to the last line
queryable, and the increments written.
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

import harness
from gen_bp import generate

SIZES = {"smoke": 40, "default": 600}


def options(parser) -> None:
    parser.add_argument("--rate", type=float, default=20.0,
                        help="lines appended per second (default 20)")
    parser.add_argument("--link-every", type=float, default=10.0,
                        help="seconds between links, as lineage watch --link-every (default "
                             "10; 0: no linking)")


def prepare(size: int, folder: Path, options: dict) -> dict:
    source = folder / "source.bp"
    generate(source, 2 * size + 40)
    lines = source.read_text().splitlines(keepends=True)[:size + 2]
    return {"lines": lines, "folder": str(folder), "rate": options.get("rate") or 20.0,
            "link_every": options.get("link_every", 10.0)}


def measure(size: int, prepared: dict) -> dict:
    from lineage.watch import increments
    from lineage.watch.watcher import Watcher

    head, lines = prepared["lines"][:2], [line.encode() for line in prepared["lines"][2:]]
    run = Path(prepared["folder"]) / f"run-{prepared.get('round', 0)}"
    run.mkdir(exist_ok=True)
    stream = run / "bench-0.bp"
    stream.write_text("".join(head))
    path = str(stream.resolve())
    with harness.connect() as lin:
        lin.reset(force=True)
        every = prepared.get("link_every", 10.0)
        watcher = Watcher(lin, [run], link=bool(every), link_every=every)
        counted: list = []
        loop = threading.Thread(target=lambda: watcher.run(on_poll=counted.append))
        loop.start()
        while increments.committed_end(lin.graph.driver, None, path) < stream.stat().st_size:
            time.sleep(0.05)  # the first look (and its link) before the clock starts
        warm = sum(len(p.loaded) for p in counted)
        written: list[tuple[int, float]] = []  # (end offset of the line, when written)
        seen: dict[int, float] = {}
        done = threading.Event()

        def observe() -> None:
            with harness.connect() as reader:
                while True:
                    end = increments.committed_end(reader.graph.driver, None, path)
                    now = time.perf_counter()
                    for offset, _ in list(written):
                        if offset <= end and offset not in seen:
                            seen[offset] = now
                    if done.is_set() and len(seen) == len(written):
                        return
                    time.sleep(0.02)

        observer = threading.Thread(target=observe)
        observer.start()
        gap, offset, started = 1.0 / prepared["rate"], stream.stat().st_size, time.perf_counter()
        with open(stream, "ab", buffering=0) as out:
            for i, line in enumerate(lines):
                time.sleep(max(0.0, started + i * gap - time.perf_counter()))
                out.write(line)
                offset += len(line)
                written.append((offset, time.perf_counter()))
        done.set()
        observer.join(timeout=600)
        watcher.stop()
        loop.join(timeout=600)
        lin.reset(force=True)
    latencies = sorted(seen[offset] - at for offset, at in written)
    return {"seconds_latency_median": statistics.median(latencies),
            "seconds_latency_p95": latencies[min(len(latencies) - 1,
                                                 int(0.95 * len(latencies)))],
            "seconds_latency_max": latencies[-1],
            "seconds": max(seen.values()) - started,  # first write to the last line queryable
            "lines": len(lines),
            "lines_per_s": prepared["rate"],
            "increments": sum(len(p.loaded) for p in counted) - warm}


if __name__ == "__main__":
    harness.main(__doc__, "watch", measure, SIZES, prepare, options)
