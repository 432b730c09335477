"""NetLogger BP line parsing, ours against Pegasus's own (``NLSimpleParser`` from pegasus-wms,
the parser monitord's tools use), side by side in one run on the same generated stream.

Each parser runs in its own child process (ours in .venv, Pegasus's in .venv-oracle, which
scripts/setup.sh makes for the oracle tests), one timed pass per child, alternating for 3
rounds: ours as installed (the common case read by the compiled ``_netlogger_c``), ours in
pure Python (the compiled reader switched off, as on a machine without a C compiler) and
Pegasus's: lines parsed per second, best of the 3, with the timestamp parsed to epoch
seconds by both. Two streams of the same events: ``ts`` as gen_bp writes it (seconds since
the epoch, which Pegasus reads with a bare ``float``), and as pegasus-monitord writes it
(``2024-01-01T00:00:00.000001Z``, which Pegasus reads with ``time.strptime``). A check
first compares what both parsers return for the first 20,000 lines of each stream (keys and
values; timestamps to the microsecond).

    .venv/bin/python bench/bench_netlogger.py [EVENTS]   # default 300000
    .venv/bin/python bench/bench_netlogger.py --records FILE.bp

The second form times what the reader is for: a whole ``.bp`` file into graph records
(``pegasus.bp.parse``), with the compiled reader and in pure Python, alternating, 3 rounds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

OURS = """
import json, sys, time
from lineage.sources.pegasus import netlogger
from lineage.sources.pegasus.netlogger import parse_line, parse_timestamp
if sys.argv[3:] == ["python"]:
    netlogger._split_compiled = None
elif not netlogger.COMPILED:
    sys.exit("the compiled reader is not built (pip install -e . with a C compiler)")
lines = open(sys.argv[1]).read().splitlines()
def run():
    out = []
    for line in lines:
        ev = parse_line(line)
        ev["ts"] = parse_timestamp(ev["ts"])
        out.append(ev)
    return out
if sys.argv[2] != "-":
    json.dump(run(), open(sys.argv[2], "w"))
else:
    t0 = time.perf_counter()
    run()
    print(json.dumps({"seconds": time.perf_counter() - t0, "lines": len(lines)}))
"""

PEGASUS = """
import json, sys, time
from Pegasus.netlogger.parsers.base import NLSimpleParser
parser = NLSimpleParser(parse_date=True)
lines = open(sys.argv[1]).read().splitlines()
def run():
    return [parser.parseLine(line) for line in lines]
if sys.argv[2] != "-":
    json.dump(run(), open(sys.argv[2], "w"))
else:
    t0 = time.perf_counter()
    run()
    print(json.dumps({"seconds": time.perf_counter() - t0, "lines": len(lines)}))
"""


RECORDS = """
import json, sys, time
from pathlib import Path
from lineage.sources.pegasus import netlogger
if sys.argv[2] == "python":
    netlogger._split_compiled = None
from lineage.sources.base import LoadReport
from lineage.sources.pegasus.bp import parse
t0 = time.perf_counter()
n = sum(1 for _ in parse(Path(sys.argv[1]), LoadReport(sys.argv[1], "pegasus-bp")))
print(json.dumps({"seconds": time.perf_counter() - t0, "records": n}))
"""


def records(stream: Path, rounds: int = 3) -> None:
    """A whole stream into records, compiled reader against pure Python, alternating."""
    python = REPO / ".venv/bin/python"
    times: dict[str, list[float]] = {"compiled": [], "python": []}
    for _ in range(rounds):
        for reader, runs in times.items():
            done = subprocess.run([str(python), "-c", RECORDS, str(stream), reader],
                                  capture_output=True, text=True, check=True, cwd=REPO)
            out = json.loads(done.stdout.strip().splitlines()[-1])
            runs.append(out["seconds"])
    print(f"{stream.name} into {out['records']:,} records, seconds per run: "
          + "; ".join(f"{r} {', '.join(f'{t:.2f}' for t in runs)}" for r, runs in times.items())
          + f"; pure Python / compiled, best of {rounds}: "
            f"{min(times['python']) / min(times['compiled']):.2f}")


def child(python: Path, code: str, stream: Path, dump: str, *flags: str) -> dict:
    done = subprocess.run([str(python), "-c", code, str(stream), dump, *flags],
                          capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(done.stdout.strip().splitlines()[-1]) if dump == "-" else {}


def same(ours: list[dict], theirs: list[dict]) -> int:
    """Lines on which the two parsers disagree (timestamps compared to the microsecond)."""
    differ = 0
    for a, b in zip(ours, theirs):
        ts_a, ts_b = a.pop("ts"), b.pop("ts")
        if a != b or abs(ts_a - ts_b) > 1e-6:
            differ += 1
    return differ + abs(len(ours) - len(theirs))


def monitord_stamps(stream: Path, out: Path) -> None:
    """The stream with ``ts`` spelled as monitord writes it: ISO-8601 UTC to the
    microsecond, every line its own microsecond (so no two stamps are the same string)."""
    with open(stream) as src, open(out, "w") as dst:
        for n, line in enumerate(src):
            ts, rest = line.split(" ", 1)
            seconds = ts[3:]
            if "T" not in seconds:
                stamp = datetime.fromtimestamp(int(seconds), timezone.utc)
                ts = "ts=" + (stamp + timedelta(microseconds=n % 1_000_000)).strftime(
                    "%Y-%m-%dT%H:%M:%S.%fZ")
            dst.write(f"{ts} {rest}")


def main(events: int, rounds: int = 3) -> None:
    sys.path.insert(0, str(HERE))
    import gen_bp

    ours_py, theirs_py = REPO / ".venv/bin/python", REPO / ".venv-oracle/bin/python"
    if not theirs_py.exists():
        sys.exit("no .venv-oracle (pegasus-wms): run scripts/setup.sh first")
    work = Path(tempfile.mkdtemp(prefix="bench-netlogger-"))
    epoch = work / "epoch.bp"
    gen_bp.generate(epoch, events)
    iso = work / "monitord.bp"
    monitord_stamps(epoch, iso)
    for name, stream in (("ts as seconds (gen_bp)", epoch), ("ts as ISO-8601 (monitord)", iso)):
        check = work / "check.bp"
        check.write_text("".join(stream.read_text().splitlines(True)[:20000]))
        a, b = work / "ours.json", work / "theirs.json"
        child(ours_py, OURS, check, str(a))
        child(theirs_py, PEGASUS, check, str(b))
        differ = same(json.loads(a.read_text()), json.loads(b.read_text()))
        py = work / "ours-python.json"
        child(ours_py, OURS, check, str(py), "python")
        differ_py = same(json.loads(py.read_text()), json.loads(b.read_text()))
        contenders = (("ours", ours_py, OURS, ()), ("ours, pure Python", ours_py, OURS,
                      ("python",)), ("Pegasus NLSimpleParser", theirs_py, PEGASUS, ()))
        best = {who: float("inf") for who, *_ in contenders}
        for _ in range(rounds):  # alternating, so that a busy spell of the machine hits all
            for who, python, code, flags in contenders:
                done = child(python, code, stream, "-", *flags)
                best[who] = min(best[who], done["seconds"])
                n = done["lines"]
        theirs = best["Pegasus NLSimpleParser"]
        print(f"{name}: {n} lines (check: {differ} and {differ_py} of 20000 parsed "
              f"differently, compiled and pure Python); best of {rounds} alternating:")
        for who, seconds in best.items():
            print(f"  {who:24} {n / seconds:>10,.0f} lines/s ({seconds:.2f} s)  "
                  f"{theirs / seconds:.2f}x Pegasus")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--records"]:
        records(Path(sys.argv[2]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 300_000)
