"""NetLogger BP line parsing, ours against Pegasus's own (``NLSimpleParser`` from pegasus-wms,
the parser monitord's tools use), side by side in one run on the same generated stream.

Each parser runs in its own child process (ours in .venv, Pegasus's in .venv-oracle, which
scripts/setup.sh makes for the oracle tests): lines parsed per second, best of 3, with the
timestamp parsed to epoch seconds by both. A check first compares what both parsers return
for every line of the stream (keys and values; timestamps to the microsecond).

    .venv/bin/python bench/bench_netlogger.py [EVENTS]   # default 300000
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

OURS = """
import json, sys, time
from lineage.sources.pegasus.netlogger import parse_line, parse_timestamp
lines = open(sys.argv[1]).read().splitlines()
def run():
    out = []
    for line in lines:
        ev = parse_line(line)
        ev["ts"] = parse_timestamp(ev["ts"])
        out.append(ev)
    return out
best = min((lambda t0: (run(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
if sys.argv[2] != "-":
    json.dump(run(), open(sys.argv[2], "w"))
print(json.dumps({"seconds": best, "lines": len(lines)}))
"""

PEGASUS = """
import json, sys, time
from Pegasus.netlogger.parsers.base import NLSimpleParser
parser = NLSimpleParser(parse_date=True)
lines = open(sys.argv[1]).read().splitlines()
def run():
    return [parser.parseLine(line) for line in lines]
best = min((lambda t0: (run(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
if sys.argv[2] != "-":
    json.dump(run(), open(sys.argv[2], "w"))
print(json.dumps({"seconds": best, "lines": len(lines)}))
"""


def child(python: Path, code: str, stream: Path, dump: str) -> dict:
    done = subprocess.run([str(python), "-c", code, str(stream), dump], capture_output=True,
                          text=True, check=True, cwd=REPO)
    return json.loads(done.stdout.strip().splitlines()[-1])


def same(ours: list[dict], theirs: list[dict]) -> int:
    """Lines on which the two parsers disagree (timestamps compared to the microsecond)."""
    differ = 0
    for a, b in zip(ours, theirs):
        ts_a, ts_b = a.pop("ts"), b.pop("ts")
        if a != b or abs(ts_a - ts_b) > 1e-6:
            differ += 1
    return differ + abs(len(ours) - len(theirs))


def main(events: int) -> None:
    sys.path.insert(0, str(HERE))
    import gen_bp

    ours_py, theirs_py = REPO / ".venv/bin/python", REPO / ".venv-oracle/bin/python"
    if not theirs_py.exists():
        sys.exit("no .venv-oracle (pegasus-wms): run scripts/setup.sh first")
    work = Path(tempfile.mkdtemp(prefix="bench-netlogger-"))
    stream = work / "stream.bp"
    gen_bp.generate(stream, events)
    check = work / "check.bp"
    check.write_text("".join(stream.read_text().splitlines(True)[:20000]))
    a, b = work / "ours.json", work / "theirs.json"
    child(ours_py, OURS, check, str(a))
    child(theirs_py, PEGASUS, check, str(b))
    differ = same(json.loads(a.read_text()), json.loads(b.read_text()))
    print(f"check: {differ} of 20000 lines parsed differently")
    ours = child(ours_py, OURS, stream, "-")
    theirs = child(theirs_py, PEGASUS, stream, "-")
    n = ours["lines"]
    print(f"{n} lines: ours {n / ours['seconds']:,.0f} lines/s ({ours['seconds']:.2f} s), "
          f"Pegasus NLSimpleParser {n / theirs['seconds']:,.0f} lines/s "
          f"({theirs['seconds']:.2f} s); ours / Pegasus speed {theirs['seconds'] / ours['seconds']:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300_000)
