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
from typing import Iterator

CORPUS = Path(os.environ.get("LINEAGE_CORPUS", Path(__file__).resolve().parents[2] / "shared"))
SAMPLE = (CORPUS / "samples" / "xalt"
          / "run.stampede2.2017_06_29_11_48_33.aaa.acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5.json")
PLANTED = {"JAVA_OPTS": "-Xmx2g -Djavax.net.ssl.keyStorePassword=KsPw0001xq",
           "DB_URL": "postgresql://alice:PgPw30xq@db.example.org:5432/prov",
           "NOTIFY": "curl -H 'Authorization: Bearer BrTk21xqPlanted' https://api.example.org"}


def runs(count: int, distinct: bool = False, planted: bool = False,
         sample: Path = SAMPLE, start: int = 0) -> Iterator[tuple[str, dict]]:
    """``count`` run records of the sample's shape (numbered from ``start``), each with the
    name XALT gives its file."""
    record = json.loads(sample.read_text())
    env = {k: v if isinstance(v, str) else json.dumps(v) for k, v in record["envT"].items()}
    for n in range(start, start + count):
        run = json.loads(json.dumps(record))
        run_uuid = str(uuid.UUID(int=n + 1))
        run["userT"]["run_uuid"] = run_uuid
        run["envT"] = {k: (f"{v}-{n}" if distinct or i % 10 == 0 else v)
                       for i, (k, v) in enumerate(env.items())}
        if planted and n % 10 == 0:
            run["envT"].update(PLANTED)
        yield f"run.stampede2.2017_06_29_11_48_33.aaa.{run_uuid}.json", run


def write_runs(folder: Path, count: int, distinct: bool = False, planted: bool = False,
               sample: Path = SAMPLE, start: int = 0) -> list[Path]:
    """``count`` run records of the sample's shape in ``folder``, a file each."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, run in runs(count, distinct, planted, sample, start):
        path = folder / name
        path.write_text(json.dumps(run))
        paths.append(path)
    return paths


def write_syslog(path: Path, count: int, distinct: bool = False, chunk: int = 4000) -> Path:
    """The same records as :func:`write_runs` in one syslog file, as XALT's ``transmit``
    sends them (interface version 3: ``key``, ``idx`` and ``nb``, no crc), one input."""
    with path.open("w") as out:
        for _, run in runs(count, distinct):
            text = json.dumps(run)
            parts = [text[i:i + chunk] for i in range(0, len(text), chunk)]
            key = f"run_strt_{run['userT']['run_uuid']}"
            for idx, part in enumerate(parts):
                out.write(f"Jun 29 11:48:33 c455-043 XALT_LOGGING_stampede2: V:3 kind:run "
                          f"idx:{idx} nb:{len(parts)} syshost:stampede2 key:{key} "
                          f"value:{part}\n")
    return path


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
