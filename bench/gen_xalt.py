"""XALT run records (one JSON file per run, as XALT writes them) derived from the real sample
run record of ``$LINEAGE_CORPUS/samples/xalt`` at run time: its 299 environment values,
command line and process tree, a new run uuid each.

    python bench/gen_xalt.py --files 1000 -o bench/out/xalt-1000

*Realistic* (the default): a tenth of the environment values differ from run to run (job
ids, times, directories); ``distinct``: every value of every run differs. ``planted``: one
run in ten carries three planted secrets (bench_secrets.py).
"""

from __future__ import annotations

import argparse
import json
import os
import uuid
from pathlib import Path

CORPUS = Path(os.environ.get("LINEAGE_CORPUS", Path(__file__).resolve().parents[2] / "shared"))
SAMPLE = (CORPUS / "samples" / "xalt"
          / "run.stampede2.2017_06_29_11_48_33.aaa.acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5.json")
PLANTED = {"JAVA_OPTS": "-Xmx2g -Djavax.net.ssl.keyStorePassword=KsPw0001xq",
           "DB_URL": "postgresql://alice:PgPw30xq@db.example.org:5432/prov",
           "NOTIFY": "curl -H 'Authorization: Bearer BrTk21xqPlanted' https://api.example.org"}


def write_runs(folder: Path, count: int, distinct: bool = False, planted: bool = False,
               sample: Path = SAMPLE) -> list[Path]:
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
        if planted and n % 10 == 0:
            run["envT"].update(PLANTED)
        path = folder / f"run.stampede2.2017_06_29_11_48_33.aaa.{run_uuid}.json"
        path.write_text(json.dumps(run))
        paths.append(path)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--distinct", action="store_true")
    ap.add_argument("-o", "--output", type=Path, default=Path("bench/out/xalt"))
    args = ap.parse_args()
    write_runs(args.output, args.files, args.distinct)
    print(f"{args.files} XALT run files in {args.output}")


if __name__ == "__main__":
    main()
