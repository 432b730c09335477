"""A Chimbuko provenance shard shaped like the real one of issue 14, built from real records.

    python bench/gen_xgc_shard.py                      # bench/out/xgc-9000/provdb.0.unqlite
    python bench/gen_xgc_shard.py --records 9000 --gap 8 --out DIR

Issue 14's held-out case is a real 74 MB provenance database shard of an XGC run (76,000
nodes, 256,000 relationships once loaded); it is not ours to bundle. This writes a stand-in
with the same size and node count from the nine real v0 records in the package's samples
(``$LINEAGE_CORPUS/samples/chimbuko``, default ``../shared`` beside the checkout: five anomalies, four normal
executions of XGC, rank 1, as Chimbuko's provDB stored them: ``func_stats`` inside each event, 21-event execution windows,
call stacks of 2-6 frames, MPI messages in the communication windows), with the UnQLite
package as the provDB writes it:

- each (rank, io_step) takes one real record as its pattern (its collection, call stack above
  the event, ``func_stats``, counters and messages), for ``--per-step`` records 2*gap event
  indices apart, so neighbouring execution windows overlap as an anomaly's neighbours do;
- an event is the same everywhere it appears: its function, times and parent follow from its
  label, and it is an anomaly in every window when the pattern is an anomaly and the label
  is one of the records' own events;
- the messages name events of the window, as real ones do (so an event stated as an anomaly
  reappears as a message's end without the label: the real v0 records do this too).

Defaults: 9,000 records in 74.3 MB, which load into 75,095 nodes and 312,154 relationships
(the real shard: 76,000 and 256,000; the stand-in's events carry a fifth more relationships).
The records are deterministic (UnQLite writes a random value into its header); the
samples' licence terms are in their SOURCES.md.

>>> rec = next(records(1, 8))
>>> rec[0], rec[1]["event_id"], len(rec[1]["event_window"]["exec_window"])
('anomalies', '0:0:100000', 21)
"""

from __future__ import annotations

import argparse
import os
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
CORPUS = Path(os.environ.get("LINEAGE_CORPUS", HERE.parent.parent / "shared"))  # real samples/


def samples_dir() -> Path:
    return CORPUS / "samples"


PATTERNS = (("anomalies", "provdb_v0_anomalies.json"),
            ("normalexecs", "provdb_v0_normalexecs.json"))
LABEL = re.compile(r"^(\d+):(\d+):(\d+)$")
FIRST_INDEX = 100_000
WINDOW = 10  # events on each side of the record's own, two indices apart (as in the samples)
T0 = 1_592_584_220_000_000  # microseconds, the samples' own hour


def patterns() -> list[tuple[str, dict]]:
    """(collection, record) of each real v0 record, without UnQLite's ``__id``."""
    out = []
    for collection, name in PATTERNS:
        for rec in json.loads((samples_dir() / "chimbuko" / name).read_text()):
            out.append((collection, {k: v for k, v in rec.items() if k != "__id"}))
    return out


def _functions(found: list[tuple[str, dict]]) -> list[tuple[int, str]]:
    seen: dict[int, str] = {}
    for _, rec in found:
        for entry in rec["event_window"]["exec_window"] + rec["call_stack"]:
            seen.setdefault(entry["fid"], entry["func"])
    return sorted(seen.items())


def _record(pattern: tuple[str, dict], rank: int, step: int, own: int, spacing: int,
            functions: list[tuple[int, str]]) -> tuple[str, dict]:
    collection, rec = pattern

    def label(idx: int) -> str:
        return f"{rank}:{step}:{idx}"

    above = [dict(frame, event_id=label(int(LABEL.match(frame["event_id"]).group(3))))
             for frame in rec["call_stack"][1:]]
    parent = above[0]["event_id"] if above else None

    def event(idx: int) -> dict:
        fid, func = functions[idx % len(functions)]
        anomalous = (collection == "anomalies" and idx >= FIRST_INDEX
                     and (idx - FIRST_INDEX) % spacing == 0)
        out = {"entry": T0 + idx * 10, "event_id": label(idx), "exit": T0 + idx * 10 + 5,
               "fid": fid, "func": func, "is_anomaly": anomalous}
        if parent:
            out["parent_event_id"] = parent
        return out

    window = [event(own + 2 * j) for j in range(-WINDOW, WINDOW + 1)]
    me = {k: v for k, v in window[WINDOW].items() if k != "parent_event_id"}
    messages = [dict(m, execdata_key=label(own + 2 * (i % (2 * WINDOW + 1) - WINDOW)))
                for i, m in enumerate(rec["event_window"]["comm_window"])]
    out = dict(rec)
    out.update(call_stack=[me, *above], event_id=me["event_id"], fid=me["fid"],
               func=me["func"], entry=me["entry"], exit=me["exit"], rid=rank, io_step=step,
               event_window={"comm_window": messages, "exec_window": window})
    return collection, out


def records(n_records: int, gap: int, ranks: int = 8, per_step: int = 50
            ) -> Iterator[tuple[str, dict]]:
    """``n_records`` (collection, record) pairs, rank by rank within each io_step."""
    found = patterns()
    functions = _functions(found)
    written = step = 0
    while True:
        for rank in range(ranks):
            pattern = found[(step * ranks + rank) % len(found)]
            for k in range(per_step):
                if written >= n_records:
                    return
                yield _record(pattern, rank, step, FIRST_INDEX + 2 * gap * k, 2 * gap,
                              functions)
                written += 1
        step += 1


def write(path: Path, n_records: int = 9000, gap: int = 8) -> int:
    """Write the shard to ``path`` (replacing it); returns its size in bytes."""
    import unqlite

    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = unqlite.UnQLite(str(path))
    collections = {}
    for name, _ in PATTERNS:
        collections[name] = db.collection(name)
        collections[name].create()
    for collection, rec in records(n_records, gap):
        collections[collection].store(rec)
    db.commit()
    db.close()
    return path.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=9000)
    ap.add_argument("--gap", type=int, default=8,
                    help="records' own events 2*gap indices apart (windows span 40)")
    ap.add_argument("--out", type=Path, help="directory (default bench/out/xgc-RECORDS)")
    args = ap.parse_args()
    out = (args.out or HERE / "out" / f"xgc-{args.records}") / "provdb.0.unqlite"
    size = write(out, args.records, args.gap)
    print(f"{out}: {size / 1e6:.1f} MB, {args.records} records")


if __name__ == "__main__":
    main()
