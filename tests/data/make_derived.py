"""Regenerate tests/data/derived/: the real samples in the transports no real sample covers.

- pegasus/blackdiamond-4.0.jsonl: blackdiamond-4.0.bp as pegasus-monitord --encoding json
  writes it (keys with '.' as '_', one JSON object per line);
- xalt/stampede2.xalt.log: the real XALT link and run records as syslog lines (V:4 chunks);
- chimbuko/provdb.0.unqlite: the real v0 provenance records in an UnQLite shard, written with
  the unqlite package as Chimbuko's provDB does;
- prov/blackdiamond-4.0.prov.json: blackdiamond-4.0.bp's graph as ``lineage export`` writes
  it (W3C PROV-JSON), made from the parsed records without a server.

    python tests/data/make_derived.py
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))


from lineage.cli import samples_dir  # noqa: E402
from lineage.sources.pegasus.netlogger import parse_line  # noqa: E402
from tests.xalt_helpers import syslog_lines  # noqa: E402


def pegasus_jsonl() -> None:
    out = HERE / "derived" / "pegasus" / "blackdiamond-4.0.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(samples_dir() / "pegasus" / "blackdiamond-4.0.bp") as src, open(out, "w") as dst:
        for line in src:
            if line.strip():
                ev = parse_line(line)
                dst.write(json.dumps({k if k == "event" else k.replace(".", "_"): v
                                      for k, v in ev.items()}) + "\n")


def xalt_syslog() -> None:
    out = HERE / "derived" / "xalt" / "stampede2.xalt.log"
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, path in enumerate(sorted((samples_dir() / "xalt").glob("*.stampede2.*.json"))):
        kind = path.name.split(".")[0]
        compact = json.dumps(json.loads(path.read_text()), separators=(",", ":"))
        lines += syslog_lines(compact, key=f"sample-{n}", kind=kind)
    out.write_text("".join(lines))


def chimbuko_shard() -> None:
    import unqlite

    out = HERE / "derived" / "chimbuko" / "provdb.0.unqlite"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    db = unqlite.UnQLite(str(out))
    for name in ("anomalies", "normalexecs", "metadata"):
        coll = db.collection(name)
        coll.create()
        for rec in json.loads((samples_dir() / "chimbuko" / f"provdb_v0_{name}.json").read_text()):
            coll.store({k: v for k, v in rec.items() if k != "__id"})
    db.commit()
    db.close()


def prov_json() -> None:
    from lineage import exchange
    from lineage.records import Edge, Node
    from lineage.sources import registry
    from lineage.sources.base import LoadReport

    path = samples_dir() / "pegasus" / "blackdiamond-4.0.bp"
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
    out = HERE / "derived" / "prov" / "blackdiamond-4.0.prov.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    exchange.write(list(nodes.values()), list(edges.values()), out, "prov-json")


if __name__ == "__main__":
    prov_json()
    pegasus_jsonl()
    xalt_syslog()
    chimbuko_shard()
