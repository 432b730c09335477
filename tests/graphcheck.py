"""Graph fingerprints for reliability tests: counts plus a content checksum.

The checksum covers every :Lineage node (uid, sorted labels, properties) and every
relationship between them (ends, type, properties), in a canonical order, hashed with
SHA-256; :Load bookkeeping nodes, and the ``loads`` property that says which load wrote
an element (it changes with every new version of a load), are left out unless asked for. Two graphs with equal fingerprints hold the
same lineage content.

>>> canonical({"b": [1.0, "x"], "a": None})
'{"a":null,"b":[1.0,"x"]}'
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)


@dataclass(frozen=True)
class Fingerprint:
    nodes: int
    rels: int
    checksum: str


def _content(props: dict, with_loads: bool) -> dict:
    return props if with_loads else {k: v for k, v in props.items() if k != "loads"}


def fingerprint(driver, database: str | None = None, with_loads: bool = False) -> Fingerprint:
    """The fingerprint of the lineage graph behind ``driver``."""
    digest = hashlib.sha256()
    nodes = rels = 0
    with driver.session(database=database) as session:
        for rec in session.run(
            "MATCH (n:Lineage) RETURN n.uid AS uid, labels(n) AS labels, "
            "properties(n) AS props ORDER BY n.uid"
        ):
            nodes += 1
            digest.update(canonical([rec["uid"], sorted(rec["labels"]),
                                     _content(rec["props"], with_loads)]).encode())
            digest.update(b"\n")
        digest.update(b"--\n")
        rows = [
            canonical([r["a"], r["type"], r["b"], _content(r["props"], with_loads)])
            for r in session.run(
                "MATCH (a:Lineage)-[r]->(b:Lineage) "
                "RETURN a.uid AS a, type(r) AS type, b.uid AS b, properties(r) AS props"
            )
        ]
        for row in sorted(rows):
            rels += 1
            digest.update(row.encode())
            digest.update(b"\n")
    return Fingerprint(nodes, rels, digest.hexdigest())


def of(lin, with_loads: bool = False) -> Fingerprint:
    """The fingerprint of the graph behind a :class:`lineage.api.Lineage` handle."""
    return fingerprint(lin.graph.driver, lin.graph.database, with_loads)
