"""What every benchmark script shares: sizes, runs and their median, this checkout side by
side with another commit, peak memory, a results file.

    harness.main(__doc__, "bp", measure, {"smoke": 2_000, "default": 200_000}, prepare)

A script answers one question. ``prepare(size, folder, options)`` makes its inputs once, in this
process (the generators of bench/), and returns what ``measure`` needs (JSON values);
``measure(size, prepared)`` runs in a fresh process whose ``lineage`` is the checkout under
test, and returns its figures (``seconds`` first). ``prepare`` also gets the script's own
options (``options(parser)`` adds them); ``measure`` finds them, and ``round`` (0, 1, ...),
in ``prepared``. Every script takes:

- ``--size N`` (a size its ``sizes`` name, or a number) and ``--smoke`` (the smallest, one run);
- ``--runs N``: rounds, each a fresh process per checkout, the checkouts alternating;
- ``--base REV``: the same question on commit REV too, from a temporary git worktree on
  ``PYTHONPATH`` (its NetLogger reader compiled there), removed at the end;
- ``--results DIR``: where ``QUESTION[-SIZE].json`` goes (default bench/results/): the
  machine, its load average, the commits, every run and the medians.

Neo4j: ``NEO4J_URI`` (with ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``) when set, else the managed
server of ``LINEAGE_HOME`` (default bench/out/home), started here and stopped at the end when
it was not running before. Both checkouts use the same server; each ``measure`` empties what
it needs empty with the public API (``lin.reset``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
THIS = HERE.parent


# ----------------------------------------------------------------- inside a measure
def timed(operation: Callable[[], object]) -> tuple[float, object]:
    """``(seconds, result)`` of one call. >>> timed(lambda: 2)[1]
    2"""
    started = time.perf_counter()
    result = operation()
    return time.perf_counter() - started, result


def median_seconds(operation: Callable[[], object], repeat: int) -> float:
    """The median wall seconds of ``repeat`` calls. >>> median_seconds(lambda: None, 3) < 1
    True"""
    return statistics.median(timed(operation)[0] for _ in range(repeat))


def connect():
    """The Neo4j of this benchmark run (see the module docstring), as ``lineage.connect``."""
    import lineage

    return lineage.connect(start_managed=False)


def load_figures(lin, paths: list[str]) -> dict:
    """``lin.load(paths)`` timed: seconds, inputs, graph elements written (node and
    relationship records) and their rate; any input that did not load stops the benchmark."""
    seconds, results = timed(lambda: lin.load(paths))
    failed = [f"{r.path}: {r.status} {r.error or ''}" for r in results
              if r.status not in ("loaded", "unchanged")]
    if failed:
        raise SystemExit("\n".join(failed[:5]))
    elements = sum(sum(r.nodes.values()) + sum(r.edges.values()) for r in results)
    return {"seconds": seconds, "inputs": len(results), "elements": elements,
            "elements_per_s": elements / seconds}


def load_emptied(size: int, prepared: dict) -> dict:
    """A ``measure``: empty the graph, then :func:`load_figures` of ``prepared["paths"]``."""
    with connect() as lin:
        lin.reset(force=True)
        return load_figures(lin, prepared["paths"])


def peak_rss_mib() -> dict:
    """Peak resident memory of this process and of its largest finished child, MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"peak_rss_mib": round(own, 1), "child_peak_rss_mib": round(child, 1)}


# ----------------------------------------------------------------- around the runs
def commit_of(root: Path) -> str:
    """The commit checked out at ``root``, with ``+changes`` when its tree differs."""
    sha = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "lineage",
                            "cypher", "bench"], capture_output=True, text=True).stdout.strip()
    return sha + ("+changes" if dirty else "")


def machine() -> dict:
    return {"host": platform.node(), "system": platform.platform(),
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()]}


@contextmanager
def base_checkout(rev: str) -> Iterator[Path]:
    """A temporary worktree of ``rev`` with its NetLogger reader compiled, removed after."""
    folder = Path(tempfile.mkdtemp(prefix="lineage-base-"))
    subprocess.run(["git", "-C", str(THIS), "worktree", "add", "--detach", str(folder), rev],
                   check=True, capture_output=True)
    try:
        subprocess.run([sys.executable, "-c", "import hatch_build; "
                        "hatch_build.compile_extension('.', None)"],
                       cwd=folder, capture_output=True)  # without it: the pure-Python reader
        yield folder
    finally:
        subprocess.run(["git", "-C", str(THIS), "worktree", "remove", "--force", str(folder)],
                       capture_output=True)


@contextmanager
def connected() -> Iterator:
    """:func:`connect` in this process, on the Neo4j of :func:`neo4j_environment`: for a
    script that measures no timings side by side (bench/prov_suite.py)."""
    with neo4j_environment() as env:
        os.environ.update({k: v for k, v in env.items() if k.startswith(("NEO4J_", "LINEAGE_"))})
        with connect() as lin:
            yield lin


@contextmanager
def neo4j_environment() -> Iterator[dict]:
    """The environment the measuring processes get: a Neo4j to talk to (module docstring)."""
    env = dict(os.environ)
    if env.get("NEO4J_URI"):
        yield env
        return
    from lineage.api import managed_server

    os.environ.setdefault("LINEAGE_HOME", str(HERE / "out" / "home"))
    env["LINEAGE_HOME"] = os.environ["LINEAGE_HOME"]
    was_running = managed_server("status")["running"]
    info = managed_server("start")
    env.update(NEO4J_URI=info["uri"], NEO4J_USERNAME=info["user"],
               NEO4J_PASSWORD=Path(info["password_file"]).read_text().strip())
    try:
        yield env
    finally:
        if not was_running:
            managed_server("stop")


def one_run(script: str, root: Path, env: dict, job: dict) -> dict:
    """``measure`` in a fresh process with ``root``'s package first on ``sys.path``."""
    env = dict(env, PYTHONPATH=str(root))
    proc = subprocess.run([sys.executable, script, "--child", json.dumps(job)], env=env,
                          capture_output=True, text=True, cwd=root)
    if proc.returncode:
        raise SystemExit(f"{script} at {root} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def summary(question: str, size, runs: dict[str, list[dict]]) -> tuple[dict, list[str]]:
    """Medians per checkout and, with a base, ``base / this`` of each figure; the lines to
    print, the answer (the first figure) first."""
    medians = {name: {key: statistics.median(r[key] for r in rs)
                      for key in rs[0] if isinstance(rs[0][key], (int, float))}
               for name, rs in runs.items()}
    first = next(iter(medians["this"]))
    lines = [f"{question} at size {size:,}: {first} {medians['this'][first]:,.3f} "
             f"(median of {len(runs['this'])})"]
    ratios = {}
    if "base" in medians:
        ratios = {k: medians["base"][k] / v for k, v in medians["this"].items()
                  if v and k in medians["base"]}
        lines[0] += (f"; base {medians['base'][first]:,.3f}: base / this "
                     f"{ratios.get(first, float('nan')):.2f}")
    for key in medians["this"]:
        line = f"  {key:28} this {medians['this'][key]:>14,.3f}"
        if key in ratios:
            line += f"   base {medians['base'][key]:>14,.3f}   base/this {ratios[key]:.2f}"
        lines.append(line)
    return {"median": medians, "base_over_this": ratios}, lines


def main(doc: str, question: str, measure: Callable[[int, dict], dict],
         sizes: dict[str, int], prepare: Callable[[int, Path, dict], dict] | None = None,
         options: Callable[[argparse.ArgumentParser], None] | None = None) -> dict | None:
    """The command line of a benchmark script (module docstring); returns the results."""
    if sys.argv[1:2] == ["--child"]:  # one measuring process
        job = json.loads(sys.argv[2])
        out = measure(job["size"], job["prepared"])
        print(json.dumps({**out, **peak_rss_mib()}))
        return None
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(doc.strip().splitlines()[1:]))
    ap.add_argument("--size", default="default", help=f"one of {sizes} or a number")
    ap.add_argument("--smoke", action="store_true", help="the smallest size, one run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--base", help="a commit to measure side by side (git worktree)")
    ap.add_argument("--results", type=Path, default=HERE / "results")
    if options:
        options(ap)
    args = ap.parse_args()
    size = sizes["smoke"] if args.smoke else int(sizes.get(args.size, args.size))
    rounds = 1 if args.smoke else args.runs
    started = machine()
    with tempfile.TemporaryDirectory(prefix=f"bench-{question}-") as tmp, \
            neo4j_environment() as env, \
            (base_checkout(args.base) if args.base else _nothing()) as base:
        commits = {"this": commit_of(THIS), **({"base": commit_of(base)} if base else {})}
        extras = {k: v for k, v in vars(args).items()
                  if k not in ("size", "smoke", "runs", "base", "results")}
        prepared = {**(prepare(size, Path(tmp), extras) if prepare else {}), **extras}
        trees = {"base": base, "this": THIS} if base else {"this": THIS}
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        script = str(Path(sys.argv[0]).resolve())
        for turn in range(rounds):
            for name, root in trees.items():
                job = {"size": size, "prepared": {**prepared, "round": turn}}
                runs[name].append(one_run(script, root, env, job))
    figures, lines = summary(question, size, runs)
    print("\n".join(lines))
    result = {"question": question, "size": size, "smoke": args.smoke, "rounds": rounds,
              "when": datetime.datetime.now().isoformat(timespec="seconds"),
              "machine": started, "load_average_after": machine()["load_average"],
              "commits": commits,
              "runs": runs, **figures}
    args.results.mkdir(parents=True, exist_ok=True)
    name = question if args.size == "default" and not args.smoke else f"{question}-{size}"
    (args.results / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


@contextmanager
def _nothing() -> Iterator[None]:
    yield None
