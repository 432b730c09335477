"""Draw bench/results/ingest-*.json (bench/bench_bulk.py) as one PNG: graph elements per
second for each way of loading (best run of each), and peak memory, per input.

    .venv/bin/pip install -e '.[bench]'     # matplotlib
    .venv/bin/python bench/plot_ingest.py   # writes bench/plots/ingest.png
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the ways drawn, in order: floor, the project's two paths, the ceiling
WAYS = ["per-record", "driver", "bulk", "bulk-disk", "neo4j-admin"]


def best_runs(data: dict) -> dict[str, dict]:
    """Per way, its fastest run's elements/s and peak RSS (MiB; and its largest child's: the
    BP reader's process, or for the bulk path the neo4j-admin JVM); the ceiling from the
    file's ``ceiling``."""
    best: dict[str, dict] = {}
    for run in data["runs"]:
        elements = run["nodes"] + run["relationships"]
        rate = elements / run["seconds"]
        if rate > best.get(run["variant"], {}).get("rate", 0):
            best[run["variant"]] = {"rate": rate, "rss": run["peak_rss_mib"],
                                    "child_rss": run["children_peak_rss_mib"]}
    if data.get("ceiling"):
        best["neo4j-admin"] = {"rate": data["ceiling"]["rate"], "rss": None, "child_rss": None}
    return best


def plot(files: list[Path], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    inputs = [json.loads(f.read_text()) for f in files]
    inputs.sort(key=lambda d: max(r["nodes"] + r["relationships"] for r in d["runs"]))
    fig, (speed, memory) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / len(WAYS)
    labels = []
    drawn: set[str] = set()  # ways already in the legend
    for i, data in enumerate(inputs):
        elements = max(r["nodes"] + r["relationships"] for r in data["runs"])
        labels.append(f"{data['input']}\n{elements:,} elements")
        best = best_runs(data)
        present = [way for way in WAYS if way in best]
        for slot, way in enumerate(present):
            k = WAYS.index(way)  # one colour per way in every group
            x = i + (slot + (len(WAYS) - len(present)) / 2) * width
            speed.bar(x, best[way]["rate"], width, color=f"C{k}",
                      label=way if way not in drawn else None)
            drawn.add(way)
            if best[way]["rss"] is not None:
                memory.bar(x, best[way]["rss"], width, color=f"C{k}")
                if best[way]["child_rss"]:  # its largest child process, hatched above
                    memory.bar(x, best[way]["child_rss"], width, bottom=best[way]["rss"],
                               color=f"C{k}", alpha=0.35, hatch="//")
    ticks = [i + 0.4 - width / 2 for i in range(len(inputs))]
    speed.set_yscale("log")
    speed.set_ylabel("graph elements / s (log; best run)")
    speed.set_xticks(ticks, labels, fontsize=8)
    speed.set_title("loading into an empty graph")
    speed.legend(fontsize=8)
    memory.set_ylabel("peak RSS, MiB (hatched: largest child)")
    memory.set_xticks(ticks, labels, fontsize=8)
    memory.set_title("memory: the load, and its largest child process\n"
                     "(the BP reader; for bulk, neo4j-admin's JVM)", fontsize=9)
    fig.tight_layout()
    out.parent.mkdir(exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def main(paths: list[str]) -> None:
    files = [Path(p) for p in paths] or sorted((HERE / "results").glob("ingest-*.json"))
    if not files:
        sys.exit("no bench/results/ingest-*.json: run bench/bench_bulk.py first")
    print(plot(files, HERE / "plots" / "ingest.png"))


if __name__ == "__main__":
    main(sys.argv[1:])
