"""What does reading a big PROV document cost: peak memory and seconds of the reader alone
(the records parsed and checked against the model into the spool, as ``lineage load`` does
before writing), per MB of input?

    .venv/bin/python bench/bench_prov_memory.py --size 15 [--format prov-n] [--base REV]

SIZE sets the generated PROV-JSON document's size (15: about 11 MB): entities with a label,
a type and two attributes, activities with times, agents, and ``used``, ``wasGeneratedBy``,
``wasAssociatedWith``, ``wasDerivedFrom`` relations with a time or a role, all declared.
``--format prov-n`` or ``prov-xml``: the same document written by the ``prov`` package in
that notation. No Neo4j.
"""

from __future__ import annotations

import json
import resource
from pathlib import Path

import harness

SIZES = {"smoke": 1, "default": 15}
SUFFIXES = {"prov-json": ".json", "prov-n": ".provn", "prov-xml": ".provx"}


def generate_json(path: Path, size: int) -> None:
    """A PROV-JSON document of about ``0.73 * size`` MB, written section by section."""
    n = max(size * 1024 * 1024 // 1000, 1)
    sections = {
        "entity": lambda i: (f"ex:file{i}", {
            "prov:label": f"file {i}.dat", "prov:type": {"$": "ex:File",
                                                        "type": "prov:QUALIFIED_NAME"},
            "ex:size": i * 7, "ex:path": f"/scratch/project/run/{i}/file{i}.dat"}),
        "activity": lambda i: (f"ex:job{i}", {
            "prov:startTime": "2024-01-02T03:04:05Z", "prov:endTime": "2024-01-02T03:05:06Z",
            "prov:label": f"job {i}", "ex:exitcode": 0}),
        "agent": lambda i: (f"ex:user{i % 100}", {"prov:type": {
            "$": "prov:Person", "type": "prov:QUALIFIED_NAME"}}),
        "used": lambda i: (f"_:u{i}", {"prov:activity": f"ex:job{i}",
                                       "prov:entity": f"ex:file{max(i - 1, 0)}",
                                       "prov:time": "2024-01-02T03:04:06Z"}),
        "wasGeneratedBy": lambda i: (f"_:g{i}", {"prov:entity": f"ex:file{i}",
                                                 "prov:activity": f"ex:job{i}",
                                                 "prov:time": "2024-01-02T03:05:00Z"}),
        "wasAssociatedWith": lambda i: (f"_:a{i}", {"prov:activity": f"ex:job{i}",
                                                    "prov:agent": f"ex:user{i % 100}",
                                                    "prov:role": "ex:submitter"}),
        "wasDerivedFrom": lambda i: (f"_:d{i}", {"prov:generatedEntity": f"ex:file{i}",
                                                 "prov:usedEntity": f"ex:file{max(i - 1, 0)}"}),
    }
    with open(path, "w") as out:
        out.write('{"prefix": {"ex": "http://example.org/"}')
        for section, make in sections.items():
            count = 100 if section == "agent" else n
            out.write(f', "{section}": {{')
            out.write(",".join(f"{json.dumps(k)}: {json.dumps(v)}"
                               for k, v in (make(i) for i in range(count))))
            out.write("}")
        out.write("}\n")


def prepare(size: int, folder: Path, options: dict) -> dict:
    path = folder / "document.json"
    generate_json(path, size)
    if options["format"] != "prov-json":  # the same document in the other notation
        from prov.model import ProvDocument

        other = path.with_suffix(SUFFIXES[options["format"]])
        ProvDocument.deserialize(str(path), format="json").serialize(
            str(other), format={"prov-n": "provn", "prov-xml": "xml"}[options["format"]])
        path = other
    return {"path": str(path), "megabytes": path.stat().st_size / 1e6}


def extra(ap) -> None:
    ap.add_argument("--format", choices=sorted(SUFFIXES), default="prov-json")


def _peak_mib() -> float:
    """The larger peak RSS of this process and of its finished children (a large input is
    read in a child process), MiB."""
    return max(resource.getrusage(who).ru_maxrss
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024


def measure(size: int, prepared: dict) -> dict:
    try:  # the layout of folders
        from lineage.load.inputs import expand
        from lineage.load.pipeline import parse_to_spool
    except ImportError:  # the commits before it
        from lineage.pipeline import expand, parse_to_spool
    from lineage.sources.base import LoadReport

    [item] = expand([prepared["path"]])
    start = _peak_mib()
    seconds, spool = harness.timed(
        lambda: parse_to_spool(item, LoadReport(prepared["path"], item.format.name)))
    records = sum(spool.node_counts.values()) + sum(spool.edge_counts.values())
    spool.close()
    peak = _peak_mib()
    return {"seconds": seconds, "records": records, "megabytes": prepared["megabytes"],
            "peak_mib": peak, "mib_per_mb_read": (peak - start) / prepared["megabytes"]}


if __name__ == "__main__":
    harness.main(__doc__, "prov_memory", measure, SIZES, prepare, extra)
