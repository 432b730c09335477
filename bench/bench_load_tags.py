"""What load tags cost on shared nodes: N XALT run records, one file each, all naming the
same host, user and libraries, loaded one after the other; then every one unloaded.

Each load adds its tag to the shared nodes' ``loads`` lists, so a hub's list grows with the
number of inputs naming it. Prints the mean seconds per load for the first and the last
tenth (their ratio is the growth), the hub's list length, and the seconds per unload.

    .venv/bin/python bench/bench_load_tags.py [N]      # default 200; uses NEO4J_URI or the
                                                      # managed server, and removes what it loaded
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import lineage

SAMPLE = next((Path(lineage.__file__).parent / "samples" / "xalt").glob("run.*.json"))


def main(n: int) -> None:
    record = json.loads(SAMPLE.read_text())
    with tempfile.TemporaryDirectory() as tmp, lineage.connect() as lin:
        paths = []
        for i in range(n):
            record["userT"]["run_uuid"] = f"bench-load-tags-{i:06d}"
            path = Path(tmp) / f"run.bench.{i:06d}.json"
            path.write_text(json.dumps(record))
            paths.append(path)
        seconds = []
        for path in paths:
            t0 = time.perf_counter()
            lin.load([path])
            seconds.append(time.perf_counter() - t0)
        host = record["userT"]["syshost"]
        hub = lin.query("MATCH (h:Host) WHERE h.name = $n RETURN size(h.loads) AS n", n=host)
        tenth = max(n // 10, 1)
        first, last = statistics.mean(seconds[:tenth]), statistics.mean(seconds[-tenth:])
        t0 = time.perf_counter()
        for path in paths:
            lin.unload(str(path))
        per_unload = (time.perf_counter() - t0) / n
        print(f"inputs: {n}; hub tags after loading: {hub[0]['n'] if hub else 0}")
        print(f"seconds per load: first tenth {first:.3f}, last tenth {last:.3f}, "
              f"ratio {last / first:.2f}")
        print(f"seconds per unload (graph scan for tags): {per_unload:.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
