"""Secrets redaction: the cost per XALT run file, this checkout against another one.

    git worktree add --detach /tmp/lineage-base main
    python bench/bench_secrets.py --base /tmp/lineage-base [--files 1000] [--rounds 3]

Writes ``--files`` XALT run records derived from the real sample (its 299 environment values,
command line and process tree; a new run uuid each) in two sets: *realistic*, where a tenth
of the environment values differ from run to run (job ids, times, directories) and one run
in ten carries planted secrets, and *all distinct*, where every value of every run differs
(the redaction cache never hits). Each round parses both sets with each checkout's XALT
reader (``parse_json``: reading, environment filtering, command lines, records) and then
the environment filter alone (``filter_env`` over the same environments), each in a fresh
process (a cold cache), the checkouts alternating. Prints milliseconds per run file, best
and median, and how many environment values each redacted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import checkouts  # noqa: E402

CORPUS = Path(os.environ.get("LINEAGE_CORPUS", HERE.parent.parent / "shared"))
SAMPLE = (CORPUS / "samples" / "xalt"
          / "run.stampede2.2017_06_29_11_48_33.aaa.acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5.json")
PLANTED = {"JAVA_OPTS": "-Xmx2g -Djavax.net.ssl.keyStorePassword=KsPw0001xq",
           "DB_URL": "postgresql://alice:PgPw30xq@db.example.org:5432/prov",
           "NOTIFY": "curl -H 'Authorization: Bearer BrTk21xqPlanted' https://api.example.org"}


def write_runs(folder: Path, count: int, distinct: bool, sample: Path) -> list[Path]:
    """``count`` run records of the sample's shape in ``folder``."""
    record = json.loads(sample.read_text())
    env = {k: v if isinstance(v, str) else json.dumps(v) for k, v in record["envT"].items()}
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        run = json.loads(json.dumps(record))
        run_uuid = str(uuid.UUID(int=n + 1))
        run["userT"]["run_uuid"] = run_uuid
        run["envT"] = {k: (f"{v}-{n}" if distinct or i % 10 == 0 else v)
                       for i, (k, v) in enumerate(env.items())}
        if n % 10 == 0:
            run["envT"].update(PLANTED)
        path = folder / f"run.stampede2.2017_06_29_11_48_33.aaa.{run_uuid}.json"
        path.write_text(json.dumps(run))
        paths.append(path)
    return paths


def one(root: str, folder: str, what: str) -> dict:
    """With the package in ``root``, in a fresh process (a cold cache): parse every run file
    of ``folder`` (``what`` = parse), or filter their environments alone (``filter``)."""
    sys.path.insert(0, root)
    from lineage.sources.base import LoadReport
    from lineage.sources.xalt.jsonfiles import parse_json
    from lineage.sources.xalt.mapping import filter_env

    paths = sorted(Path(folder).glob("run.*.json"))
    envs = [json.loads(p.read_text())["envT"] for p in paths]
    records = redacted = 0
    started = time.perf_counter()
    if what == "parse":
        for path in paths:
            report = LoadReport(str(path), "xalt-json")
            records += sum(1 for _ in parse_json(path, report))
            redacted += report.extra.get("xalt", {}).get("env_values_redacted", 0)
    else:
        redacted = sum(filter_env(env, "filtered")[1] for env in envs)
    seconds = time.perf_counter() - started
    return {"ms_per_file": 1000 * seconds / len(paths), "files": len(paths),
            "records": records, "env_values_redacted": redacted}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="another checkout of lineage-explorer")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sample", type=Path, default=SAMPLE)
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(*args.one)))
        return
    trees = checkouts.trees(args.base) if args.base else {"this": str(checkouts.THIS)}
    with tempfile.TemporaryDirectory(prefix="bench-secrets-") as tmp:
        for name, distinct in (("realistic", False), ("all distinct", True)):
            folder = Path(tmp) / name.replace(" ", "-")
            write_runs(folder, args.files, distinct, args.sample)
            print(f"{name}: {args.files} XALT run files, 299 environment values each "
                  "(ms per file)")
            for what in ("parse", "filter"):
                runs = checkouts.alternate(
                    trees, args.rounds,
                    lambda root: [sys.executable, __file__, "--one", root, str(folder), what])
                for tree, results in runs.items():
                    values = [r["ms_per_file"] for r in results]
                    print(f"  {what:6} {tree:5} best {min(values):6.2f}  median "
                          f"{statistics.median(values):6.2f}  (env values redacted: "
                          f"{results[0]['env_values_redacted']})")


if __name__ == "__main__":
    main()
