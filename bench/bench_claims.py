"""What do claims cost (lineage.load.claims): load speed and storage of loads that share
nothing, of loads that restate everything, and of many loads naming one host?

    .venv/bin/python bench/bench_claims.py [--size EVENTS] [--base REV]

SIZE is the events of one synthetic Pegasus stream (bench/gen_bp.py). Three cases, each from
an emptied graph: ``big``, the stream loaded alone (nothing shared, no claim written);
``pair``, the same stream again under a second name (every element stated by two loads),
then that second load unloaded; ``hubs``, XALT run records of one program (one file each,
all naming one host, user, executable and libraries) loaded one by one, then unloaded.
Figures: seconds per step, and the claims and property values the graph holds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import harness
from gen_bp import generate

SIZES = {"smoke": 500, "default": 20_000}
#: What the graph holds: elements and claims with their property values (a constant query).
STORE = """
CALL () { MATCH (n:Lineage) RETURN count(n) AS nodes, sum(size(keys(n))) AS node_props }
CALL () { OPTIONAL MATCH (c:Claim) RETURN count(c) AS claims,
          coalesce(sum(size(keys(c))), 0) AS claim_props }
RETURN nodes, node_props, claims, claim_props
"""


def prepare(size: int, folder: Path, options: dict) -> dict:
    big, twin = folder / "big.bp", folder / "twin.bp"
    generate(big, size)
    twin.write_bytes(big.read_bytes())
    corpus = Path(os.environ.get("LINEAGE_CORPUS", harness.THIS.parent / "shared"))
    record = json.loads(next((corpus / "samples" / "xalt").glob("run.*.json")).read_text())
    runs = []
    for i in range(3 if size <= 1_000 else 30):
        record["userT"]["run_uuid"] = f"bench-claims-{i:06d}"
        path = folder / f"run.bench.{i:06d}.json"
        path.write_text(json.dumps(record))
        runs.append(str(path))
    return {"big": str(big), "twin": str(twin), "runs": runs}


def measure(size: int, prepared: dict) -> dict:
    with harness.connect() as lin:
        lin.reset(force=True)
        big, _ = harness.timed(lambda: lin.load([prepared["big"]]))
        pair, _ = harness.timed(lambda: lin.load([prepared["twin"]]))
        stored = dict(lin.graph.run(STORE)[0])
        unload, _ = harness.timed(lambda: lin.unload(prepared["twin"]))
        lin.reset(force=True)
        runs = prepared["runs"]
        hubs, _ = harness.timed(lambda: [lin.load([p]) for p in runs])
        at_hubs = dict(lin.graph.run(STORE)[0])
        hubs_unload, _ = harness.timed(lambda: [lin.unload(p) for p in runs])
        lin.reset(force=True)
    return {"seconds": big + pair + unload + hubs + hubs_unload, "seconds_big": big,
            "seconds_pair_load": pair, "seconds_pair_unload": unload,
            "pair_over_big": pair / big, "claims_pair": stored["claims"],
            "claim_props_pair": stored["claim_props"], "node_props_pair": stored["node_props"],
            "hub_runs": len(runs), "seconds_hubs_loads": hubs,
            "seconds_hubs_unloads": hubs_unload, "claims_hubs": at_hubs["claims"]}


if __name__ == "__main__":
    harness.main(__doc__, "claims", measure, SIZES, prepare)
