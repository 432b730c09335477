"""Regenerate tests/data/derived/: the real samples in the transports no real sample covers.

- pegasus/blackdiamond-4.0.jsonl: blackdiamond-4.0.bp as pegasus-monitord --encoding json
  writes it (keys with '.' as '_', one JSON object per line);
- xalt/stampede2.xalt.log: the real XALT link and run records as syslog lines (V:4 chunks);
- chimbuko/provdb.0.unqlite: the real v0 provenance records in an UnQLite shard, written with
  the unqlite package as Chimbuko's provDB does.

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


if __name__ == "__main__":
    pegasus_jsonl()
    xalt_syslog()
    chimbuko_shard()
