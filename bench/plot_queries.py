"""Draw bench/results/queries-*.json (bench/bench_queries.py) as one PNG per file: median
milliseconds per way of answering, per direction and depth, on a log scale.

    .venv/bin/pip install -e '.[bench]'     # matplotlib
    .venv/bin/python bench/plot_queries.py  # writes bench/plots/queries-<shape>-<n>.png
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WAYS = ["lin.query", "lin.query_page", "CLI (process, 5 starts)", "inside Neo4j, count",
        "networkx", "PostgreSQL CTE"]


def plot(result_file: Path, out_dir: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = json.loads(result_file.read_text())
    rows = data["results"]
    labels = [f"{r['direction'][:4]}. d={r['max_depth'] if r['max_depth'] is not None else '∞'}\n"
              f"{r['median_rows']:.0f} rows" for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, len(rows) * 1.3), 4.5))
    width = 0.8 / len(WAYS)
    for k, way in enumerate(WAYS):
        ax.bar([i + k * width for i in range(len(rows))],
               [max(r[way]["median_ms"], 0.01) for r in rows], width, label=way)
    ax.set_yscale("log")
    ax.set_ylabel("median ms (log)")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(rows))], labels, fontsize=8)
    ax.set_title(f"{data['shape']}: {data['nodes']:,} nodes, {data['edges']:,} edges, "
                 f"{data['starts']} start nodes")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    out_dir.mkdir(exist_ok=True)
    out = out_dir / (result_file.stem + ".png")
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def main(paths: list[str]) -> None:
    files = [Path(p) for p in paths] or sorted((HERE / "results").glob("queries-*.json"))
    for f in files:
        print(plot(f, HERE / "plots"))


if __name__ == "__main__":
    main(sys.argv[1:])
