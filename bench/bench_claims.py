"""What claims cost (lineage.load.claims): load speed and storage of the same loads, on
this checkout or another one (run it with that checkout's package first on the path).

Three cases, each from an empty graph:

- ``big``: one synthetic Pegasus stream (bench/gen_bp.py, EVENTS events) loaded alone: no
  element is shared, so no claim is written (the path the big single-input loads take);
- ``pair``: the same stream loaded again under a second name (every node and relationship
  stated by two loads: the most claims two loads can make), then that second load unloaded;
- ``hubs``: N XALT run records of one program, one file each, all naming one host, user,
  executable and libraries, loaded one after the other, then unloaded.

Prints seconds per step, and what the graph holds (nodes, relationships and claims, and
their property values: the storage claims add).

    PYTHONPATH=<checkout> .venv/bin/python bench/bench_claims.py [EVENTS] [N]
    # defaults 100000 and 100; uses NEO4J_URI or the managed server (LINEAGE_HOME), whose
    # graph it resets
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import lineage

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_bp import generate  # noqa: E402

CORPUS = Path(os.environ.get("LINEAGE_CORPUS", HERE.parent.parent / "shared"))
XALT_RUN = next((CORPUS / "samples" / "xalt").glob("run.*.json"))


def store(lin) -> dict:
    """What the graph holds: elements, property values, and claims with theirs."""
    row = lin.graph.run(
        "CALL () { MATCH (n:Lineage) RETURN count(n) AS nodes, sum(size(keys(n))) AS node_props } "
        "CALL () { MATCH ()-[r]->() RETURN count(r) AS rels, sum(size(keys(r))) AS rel_props } "
        "CALL () { OPTIONAL MATCH (c:Claim) RETURN count(c) AS claims, "
        "coalesce(sum(size(keys(c))), 0) AS claim_props } "
        "RETURN nodes, node_props, rels, rel_props, claims, claim_props")[0]
    return dict(row)


def timed(what: str, step) -> float:
    t0 = time.perf_counter()
    step()
    seconds = time.perf_counter() - t0
    print(f"  {what}: {seconds:.2f} s", flush=True)
    return seconds


def main(events: int, n: int) -> None:
    print(f"lineage from {Path(lineage.__file__).parent}")
    with tempfile.TemporaryDirectory() as tmp, lineage.connect() as lin:
        big, twin = Path(tmp) / "big.bp", Path(tmp) / "twin.bp"
        generate(big, events)
        twin.write_bytes(big.read_bytes())
        lin.reset(force=True)
        print(f"big: one stream of {events} events")
        timed("load", lambda: lin.load([big]))
        print(f"  store: {store(lin)}")
        print("pair: the same stream under a second name")
        timed("load of the second", lambda: lin.load([twin]))
        print(f"  store: {store(lin)}")
        timed("unload of the second", lambda: lin.unload(str(twin)))
        print(f"  store: {store(lin)}")
        lin.reset(force=True)
        record = json.loads(XALT_RUN.read_text())
        paths = []
        for i in range(n):
            record["userT"]["run_uuid"] = f"bench-claims-{i:06d}"
            path = Path(tmp) / f"run.bench.{i:06d}.json"
            path.write_text(json.dumps(record))
            paths.append(path)
        print(f"hubs: {n} XALT runs sharing host, user, executable, libraries")
        timed(f"{n} loads", lambda: [lin.load([p]) for p in paths])
        print(f"  store: {store(lin)}")
        timed(f"{n} unloads", lambda: [lin.unload(str(p)) for p in paths])
        print(f"  store: {store(lin)}")
        lin.reset(force=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100000,
         int(sys.argv[2]) if len(sys.argv) > 2 else 100)
