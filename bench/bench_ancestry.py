"""Does ancestry cost in proportion to the nodes and edges it reaches, on a wide diamond
whose paths explode (fan-in: every node derived from every node of the layer above)?

    .venv/bin/python bench/bench_ancestry.py --size 64 [--base main]

Three diamonds of LAYERS layers, SIZE/4, SIZE/2 and SIZE nodes wide, between one top and
one bottom node, loaded as one PROV-JSON document (``wasDerivedFrom``); then the
``ancestors`` template from the bottom node, median of 5 after a warm-up, and its database
hits (``PROFILE``: the work, whatever the machine's load). Paths number width^layers; the
cost per edge reached should stay level as the width grows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import harness

SIZES = {"smoke": 4, "default": 64}
LAYERS = 6


def diamond(name: str, width: int) -> tuple[dict, dict]:
    """Entities and derivations of one diamond, ``ex:<name>-bottom`` at its foot."""
    layers = [[f"ex:{name}-top"]] + [[f"ex:{name}-{k}-{i}" for i in range(width)]
                                     for k in range(LAYERS)] + [[f"ex:{name}-bottom"]]
    entities = {node: {} for layer in layers for node in layer}
    derived = {}
    for upper, lower in zip(layers, layers[1:]):
        for child in lower:
            for parent in upper:
                derived[f"_:d{len(derived)}"] = {"prov:generatedEntity": child,
                                                 "prov:usedEntity": parent}
    return entities, derived


def prepare(size: int, folder: Path, options: dict) -> dict:
    widths = sorted({max(2, size // 4), max(2, size // 2), size})
    document = {"prefix": {"ex": "https://example.org/bench/"}, "entity": {},
                "wasDerivedFrom": {}}
    for width in widths:
        entities, derived = diamond(f"w{width}", width)
        document["entity"].update(entities)
        document["wasDerivedFrom"].update(
            {f"{key}w{width}": value for key, value in derived.items()})
    path = folder / "diamonds.json"
    path.write_text(json.dumps(document))
    return {"paths": [str(path)], "widths": widths}


def db_hits(uid: str) -> int:
    """The database hits of the checkout's ``ancestors`` template from ``uid`` (``PROFILE``
    through the official driver): the search's work, whatever the machine's load."""
    import neo4j

    def hits(plan: dict) -> int:
        return plan.get("dbHits", 0) + sum(hits(child) for child in plan.get("children", []))

    template = Path("cypher/ancestors.cypher").read_text()  # the measuring process's checkout
    auth = (os.environ["NEO4J_USERNAME"], os.environ["NEO4J_PASSWORD"])
    with neo4j.GraphDatabase.driver(os.environ["NEO4J_URI"], auth=auth) as driver, \
            driver.session() as session:
        return hits(session.run("PROFILE " + template, uid=uid, max_depth=None).consume().profile)


def measure(size: int, prepared: dict) -> dict:
    out = {}
    with harness.connect() as lin:
        lin.reset(force=True)
        lin.load(prepared["paths"])
        for width in prepared["widths"]:
            uid = lin.query("MATCH (n:ProvEntity {name: $name}) RETURN n.uid AS uid",
                            {"name": f"ex:w{width}-bottom"})[0]["uid"]
            rows = len(lin.query("ancestors", uid=uid))
            edges = 2 * width + (LAYERS - 1) * width * width
            seconds = harness.median_seconds(lambda: lin.query("ancestors", uid=uid), 5)
            out[f"ms_width_{width}"] = 1000 * seconds
            out[f"us_per_edge_width_{width}"] = 1e6 * seconds / edges
            out[f"ancestors_width_{width}"] = rows
            out[f"db_hits_width_{width}"] = db_hits(uid)
    widest, narrowest = max(prepared["widths"]), min(prepared["widths"])
    out["per_edge_widest_over_narrowest"] = (out[f"us_per_edge_width_{widest}"]
                                             / out[f"us_per_edge_width_{narrowest}"])
    return {"seconds": out[f"ms_width_{widest}"] / 1000, **out}


if __name__ == "__main__":
    harness.main(__doc__, "ancestry", measure, SIZES, prepare)
