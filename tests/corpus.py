"""Where the real files are, and the files the test run derives from them.

The real files written by Pegasus, Swift, Chimbuko and XALT, and other projects' oracle
documents, live outside the project: ``$LINEAGE_CORPUS`` (default: ``../shared`` beside the
checkout) holds ``samples/`` and ``oracles/``. Tests that need them carry :data:`needs_corpus`
and are skipped, with one line saying where to put them, when they are not there.
Variants (other transports, malformed copies) are derived into a scratch folder of the run.

>>> SAMPLES.name, ORACLES.name
('samples', 'oracles')
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("LINEAGE_CORPUS", REPO.parent / "shared")).resolve()
SAMPLES = CORPUS / "samples"
ORACLES = CORPUS / "oracles"
MISSING = (f"the real samples are not in {SAMPLES}: put the shared corpus beside the checkout "
           "(../shared/samples) or set LINEAGE_CORPUS to the folder holding samples/")
needs_corpus = pytest.mark.skipif(not SAMPLES.is_dir(), reason=MISSING)
#: the prov package's own PROV-JSON test documents (oracles/README.md)
PROV_SUITE = ORACLES / "prov-suite"
needs_prov_suite = pytest.mark.skipif(
    not PROV_SUITE.is_dir(), reason=f"the prov package's test documents are not in {PROV_SUITE}: "
    "put the shared corpus beside the checkout or set LINEAGE_CORPUS")


def first(folder: str, pattern: str) -> Path:
    """The first real sample of ``folder`` matching ``pattern`` (by name); without the corpus,
    the path it would have, so a module naming it still imports (its tests are skipped).

    >>> first("xalt", "run.*.json").parent.name
    'xalt'
    """
    found = sorted((SAMPLES / folder).glob(pattern))
    return found[0] if found else SAMPLES / folder / pattern


def inputs() -> list:
    """Every input of the real samples as the loader walks them (none without the corpus)."""
    from lineage.load.inputs import expand

    return [i for i in expand([SAMPLES]) if i.format is not None] if SAMPLES.is_dir() else []


@functools.cache
def scratch() -> Path:
    """A folder of this test run (removed when it ends) for derived files."""
    path = Path(tempfile.mkdtemp(prefix="lineage-test-corpus-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@functools.cache
def malformed() -> Path:
    """The malformed-input corpus (tests/malformed/README.md), written for this run."""
    from .malformed.pegasus import write_corpus

    out = scratch() / "malformed"
    out.mkdir(exist_ok=True)
    if SAMPLES.is_dir():
        write_corpus(SAMPLES, out / "pegasus")
    return out


@functools.cache
def derived() -> Path:
    """The real samples in transports no real sample covers, written for this run:

    - ``pegasus/blackdiamond-4.0.jsonl``: blackdiamond-4.0.bp as ``pegasus-monitord
      --encoding json`` writes it (keys with '.' as '_', one JSON object per line);
    - ``xalt/stampede2.xalt.log``: the real XALT link and run records as syslog lines;
    - ``chimbuko/provdb.0.unqlite``: the real v0 records in an UnQLite shard, as Chimbuko's
      provDB writes it;
    - ``prov/blackdiamond-4.0.prov.json``: blackdiamond-4.0.bp's graph as ``lineage export``
      writes it (PROV-JSON), made from the parsed records without a server;
    - ``prov/blackdiamond-4.0.provn``: its first 15 nodes and their relationships as
      ``lineage export --format prov-n`` writes them (small: the fuzz tests parse it often);
    - ``prov/blackdiamond-4.0.provx``: that PROV-N document as the ``prov`` package writes it
      in PROV-XML (another tool's document, for the PROV-XML reader);
    - ``rocrate/blackdiamond/ro-crate-metadata.json``: blackdiamond-4.0.bp's jobs as another
      producer's Workflow Run Crate (a CreateAction per job, its files), no lineage terms.
    """
    out = scratch() / "derived"
    if SAMPLES.is_dir():
        _pegasus_jsonl(out / "pegasus" / "blackdiamond-4.0.jsonl")
        _xalt_syslog(out / "xalt" / "stampede2.xalt.log")
        _chimbuko_shard(out / "chimbuko" / "provdb.0.unqlite")
        _prov_json(out / "prov" / "blackdiamond-4.0.prov.json")
        _run_crate(out / "rocrate" / "blackdiamond" / "ro-crate-metadata.json")
    return out


def _run_crate(out: Path) -> None:
    import re

    text = (SAMPLES / "pegasus" / "blackdiamond-4.0.bp").read_text()
    jobs = sorted(set(re.findall(r"event=stampede\.job\.info .*?job\.id=(\S+)", text)))
    files = sorted(set(re.findall(r"lfn\.id=(\S+)", text)))
    graph = [
        {"@id": "ro-crate-metadata.json", "@type": "CreativeWork", "about": {"@id": "./"},
         "conformsTo": {"@id": "https://w3id.org/ro/crate/1.1"}},
        {"@id": "./", "@type": "Dataset", "name": "blackdiamond",
         "mainEntity": {"@id": "blackdiamond.dax"}},
        {"@id": "blackdiamond.dax", "@type": ["File", "SoftwareSourceCode",
                                              "ComputationalWorkflow"], "name": "blackdiamond"},
        *({"@id": name, "@type": "File", "name": name} for name in files),
    ]
    for n, job in enumerate(jobs):
        graph.append({"@id": f"#run-{job}", "@type": "CreateAction", "name": job,
                      "instrument": {"@id": "blackdiamond.dax"},
                      "actionStatus": {"@id": "http://schema.org/CompletedActionStatus"},
                      "object": [{"@id": files[n % len(files)]}] if files else [],
                      "result": [{"@id": files[(n + 1) % len(files)]}] if files else []})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"@context": "https://w3id.org/ro/crate/1.1/context",
                               "@graph": graph}, indent=1))


def _pegasus_jsonl(out: Path) -> None:
    from lineage.sources.pegasus.netlogger import parse_line

    out.parent.mkdir(parents=True, exist_ok=True)
    with open(SAMPLES / "pegasus" / "blackdiamond-4.0.bp") as src, open(out, "w") as dst:
        for line in src:
            if line.strip():
                ev = parse_line(line)
                dst.write(json.dumps({k if k == "event" else k.replace(".", "_"): v
                                      for k, v in ev.items()}) + "\n")


def _xalt_syslog(out: Path) -> None:
    from .xalt_helpers import syslog_lines

    out.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, path in enumerate(sorted((SAMPLES / "xalt").glob("*.stampede2.*.json"))):
        kind = path.name.split(".")[0]
        compact = json.dumps(json.loads(path.read_text()), separators=(",", ":"))
        lines += syslog_lines(compact, key=f"sample-{n}", kind=kind)
    out.write_text("".join(lines))


def write_shard(path: Path, collections: dict[str, list[dict]]) -> Path:
    """An UnQLite provDB shard holding ``collections`` (records stored as Chimbuko's provDB
    stores them, with the ids the database gives)."""
    import unqlite

    db = unqlite.UnQLite(str(path))
    for name, records in collections.items():
        coll = db.collection(name)
        coll.create()
        for rec in records:
            coll.store({k: v for k, v in rec.items() if k != "__id"})
    db.commit()
    db.close()
    return path


def _chimbuko_shard(out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    write_shard(out, {name: json.loads((SAMPLES / "chimbuko" / f"provdb_v0_{name}.json")
                                       .read_text())
                      for name in ("anomalies", "normalexecs", "metadata")})


def _prov_json(out: Path) -> None:
    from lineage.answers import exchange
    from lineage.model.records import Edge, Node
    from lineage.sources import registry
    from lineage.sources.base import LoadReport

    path = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
    fmt = registry.detect(path)
    nodes: dict[str, dict] = {}
    edges: dict[tuple, dict] = {}
    for rec in fmt.parse(path, LoadReport(str(path), fmt.name)):
        if isinstance(rec, Node):
            node = nodes.setdefault(rec.uid, {"uid": rec.uid, "kind": rec.kind.label,
                                              "properties": {}})
            node["properties"].update({k: v for k, v in rec.props.items() if v is not None})
        elif isinstance(rec, Edge):
            edge = edges.setdefault((rec.start, rec.rel.name, rec.end, rec.key), {
                "source": rec.start, "type": rec.rel.name, "target": rec.end,
                "properties": {"key": rec.key} if rec.key else {}})
            edge["properties"].update({k: v for k, v in rec.props.items() if v is not None})
    edges = {k: e for k, e in edges.items() if e["source"] in nodes and e["target"] in nodes}
    out.parent.mkdir(parents=True, exist_ok=True)
    exchange.write(list(nodes.values()), list(edges.values()), out, "prov-json")
    few = dict(list(nodes.items())[:15])
    provn = out.with_suffix("").with_suffix(".provn")
    exchange.write(list(few.values()), [e for e in edges.values() if e["source"] in few
                                        and e["target"] in few], provn, "prov-n")
    from prov.model import ProvDocument

    ProvDocument.deserialize(str(provn), format="provn").serialize(
        str(out.with_suffix("").with_suffix(".provx")), format="xml")
