"""How much of other tools' PROV survives a load: every document of the ``prov`` package's
own test suite (../shared/oracles/prov-suite, or ``$LINEAGE_CORPUS/oracles/prov-suite``)
loaded in strict mode into an empty graph, one at a time, and exported back.

    .venv/bin/python bench/prov_suite.py [SUITE_DIR]

Per document: the load's status (loaded, empty, failed, unrecognised), the PROV relations
the ``prov`` package reads in it (distinct records, as ``ProvDocument.__eq__`` counts them)
against the relationships of PROV relation types the load wrote, the attribute values it
reads (distinct (record, name, value) triples) against the values the graph holds as
properties of the loaded nodes and relationships (each list item counted), and, where the
code can export a loaded document as itself (``prov:document:<sha256>``), whether the
export read back with the ``prov`` package equals the original. Neo4j as every benchmark's
(bench/harness.py: ``NEO4J_URI``, else the managed server of ``LINEAGE_HOME``). Prints the
totals; the last line is the totals as JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import harness

HERE = Path(__file__).resolve().parent

#: values the loader sets itself (not the document's attributes)
_BOOKKEEPING = {"uid", "kind", "loads", "identifier", "name", "key", "prov_record",
                "prov_records", "prov_id", "bundle", "document", "qualified_name"}


def suite_dir() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    corpus = Path(os.environ.get("LINEAGE_CORPUS", HERE.parent.parent / "shared"))
    return corpus / "oracles" / "prov-suite"


def document_counts(path: Path) -> tuple[int, int]:
    """Distinct relation records and distinct attribute values the prov package reads."""
    from prov.model import ProvDocument

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = ProvDocument.deserialize(str(path), format="json")
    relations = attributes = 0
    for bundle in [doc, *doc.bundles]:
        records = set(bundle.get_records())
        relations += sum(1 for r in records if r.is_relation())
        attributes += sum(len(set(r.extra_attributes)) for r in records)
    return relations, attributes


def graph_counts(lin) -> tuple[int, int]:
    """Relationships of PROV relation types, and property values of the loaded elements."""
    from lineage import model

    prov_types = [name for name, rel in model.REL_TYPES.items()
                  if rel.prov or name.startswith(("WAS_", "ACTED_", "ALTERNATE_", "SPECIALIZATION_",
                                                  "MENTION_", "HAD_"))]
    edges = lin.query("MATCH ()-[r]->() WHERE type(r) IN $types RETURN count(r) AS n",
                      types=prov_types)[0]["n"]
    values = 0
    for row in lin.query("MATCH (n:Lineage) RETURN properties(n) AS p "
                         "UNION ALL MATCH ()-[r]->() RETURN properties(r) AS p"):
        for key, value in row["p"].items():
            if key in _BOOKKEEPING or key.startswith("lineage"):
                continue
            values += len(value) if isinstance(value, list) else 1
    return edges, values


def round_trip(lin, path: Path, out: Path) -> bool | None:
    """Whether the loaded document exported back equals the original (None: the code has no
    node naming the document, so it cannot export it as itself)."""
    from prov.model import ProvDocument

    uid = "prov:document:" + hashlib.sha256(path.read_bytes()).hexdigest()
    if not lin.query("node", uid=uid):
        return None
    lin.export(uid, out, fmt="prov-json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (ProvDocument.deserialize(str(out), format="json")
                == ProvDocument.deserialize(str(path), format="json"))


def main() -> None:
    from lineage.errors import LineageError

    suite = sorted(suite_dir().glob("*.json"))
    if not suite:
        sys.exit(f"no PROV-JSON documents in {suite_dir()}: set LINEAGE_CORPUS or name the folder")
    totals: Counter = Counter()
    statuses: Counter = Counter()
    with harness.connected() as lin, tempfile.TemporaryDirectory() as tmp:
        for path in suite:
            lin.reset(force=True)
            relations, attributes = document_counts(path)
            totals["relations"] += relations
            totals["attribute values"] += attributes
            try:
                [result] = lin.load([path])
                status = result.status
            except LineageError as exc:
                status = "unrecognised" if "not recognised" in str(exc) else "failed"
            statuses[status] += 1
            edges, values = graph_counts(lin)
            totals["relationships written"] += edges
            totals["property values written"] += values
            equal = round_trip(lin, path, Path(tmp) / "out.json") if status == "loaded" else None
            if equal is not None:
                totals["exports checked"] += 1
                totals["round trips equal"] += int(equal)
                if not equal:
                    print(f"{path.name}: the export differs from the original")
        lin.reset(force=True)
    print(f"{len(suite)} documents: " + ", ".join(f"{n} {s}" for s, n in statuses.most_common()))
    for name, n in totals.items():
        print(f"{name}: {n}")
    print(json.dumps({"documents": len(suite), "statuses": dict(statuses), **totals}))


if __name__ == "__main__":
    main()
