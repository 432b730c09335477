"""A stand-in for the real 74 MB provenance database shard of an XGC run (Chimbuko's provDB,
oldest record shape), with the real shard's counts.

    python bench/gen_xgc_shard.py                   # bench/out/xgc/provdb.0.unqlite
    python bench/gen_xgc_shard.py --scale 0.01 --out DIR --check

The real shard is not ours to bundle. Once loaded it holds (``REAL_SHARD``) 2,290 anomalies,
4,334 normal executions, 1,944 metadata records, 59,458 executions, 59,448 caller links,
48,512 window links, 1,073 messages, 29 ranks and 489 functions. The stand-in is built to
those counts from the format's facts, in the record shape of the real v0 samples
(``$LINEAGE_CORPUS/samples/chimbuko/provdb_v0_*.json``, read at run time for their keys,
function names and one rank's 972 metadata records), with the ``unqlite`` package as the
provDB writes it. What the counts say about the shape, and how it is built:

- executions - caller links = 10 call trees: 2 ranks (the metadata's 1,944 = 2 x 972) in
  5 io steps each, every step's stack rooted at its own ``.TAU application`` frame (as the
  samples' step 6 is);
- 1,104 groups of 6 records (2,290 anomalies, the rest normal executions of the same
  function kept beside them; the samples' counter lists), each group under one parent frame
  at the end of a chain of frames: deep call stacks (6-17 frames, 12 in the middle; the
  samples' hold 3-6) whose frames are the executions outside windows;
- 21-execution windows around each record's event, overlapping within a group so that the
  window links are 48,512; an anomaly's next execution is its own callee (as in the samples);
- communication windows: 1,073 MPI messages on the executions of every sixth group, sent to
  or received from the 27 other ranks, repeated in every window that holds their execution.

Deterministic (UnQLite itself writes a random value into its header).

>>> p = plan(0.01)
>>> p.groups, sum(p.anomalies), len(p.depths) == p.groups
(11, 23, True)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = Path(os.environ.get("LINEAGE_CORPUS", HERE.parent.parent / "shared"))

#: The real shard once loaded (issue 44), in the words :func:`loaded_counts` uses.
REAL_SHARD = {"anomalies": 2290, "normal executions": 4334, "metadata records": 1944,
              "executions": 59458, "caller links": 59448, "window links": 48512,
              "messages": 1073, "ranks": 29, "functions": 489}
RANKS = (0, 1)            # the ranks whose records the shard holds
STEPS = (0, 6, 12, 18, 24)  # their io steps
ALL_RANKS = 29            # with the ranks their messages name
RECORDS_PER_GROUP = 6
WINDOW = 10               # executions on each side of a record's own
MESSAGE_EVERY = 6         # every sixth group's executions send or receive messages
T0 = 1_592_584_215_000_000  # microseconds, the samples' hour
STEP_US = 60_000_000


def spread(total: int, n: int) -> list[int]:
    """``total`` in ``n`` near-equal whole parts. >>> spread(7, 3) == [2, 2, 3]"""
    return [(i + 1) * total // n - i * total // n for i in range(n)]


@dataclass
class Plan:
    """How many of everything, per group (``depths``: frames between the step's TOTAL and the
    group's parent; ``gaps``: the group's record events apart)."""

    groups: int
    anomalies: list[int]
    depths: list[int]
    gaps: list[list[int]]
    messages: list[int]
    functions: int
    metadata_per_rank: int


def plan(scale: float = 1.0) -> Plan:
    """The counts at ``scale`` of the real shard (1.0: exactly :data:`REAL_SHARD`)."""
    real = REAL_SHARD
    records = real["anomalies"] + real["normal executions"]
    groups = max(1, round(records * scale / RECORDS_PER_GROUP))
    s = groups * RECORDS_PER_GROUP / records  # the scale the whole groups give
    trees = len(RANKS) * len(STEPS)
    executions, window_links = round(real["executions"] * s), round(real["window links"] * s)
    # executions = 2 frames a tree (root, TOTAL) + per group (depth + its parent + its leaves)
    # window links = per group (leaves - 1): one contiguous run of windows per group
    frames = executions - window_links - groups - 2 * trees - groups
    pattern = [4 + (g * 7) % 11 for g in range(groups)]  # 4..14 frames
    depths = [max(1, d + e) for d, e in zip(pattern, spread(frames - sum(pattern), groups))]
    leaves = window_links + groups  # sum over groups of (21 + the group's gaps)
    gap_sums = spread(leaves - (2 * WINDOW + 1) * groups, groups)
    gaps = [[max(1, min(20, x)) for x in spread(total, RECORDS_PER_GROUP - 1)[::-1]]
            for total in gap_sums]
    carriers = [g for g in range(groups) if g % MESSAGE_EVERY == 0]
    per_carrier = spread(round(real["messages"] * s), len(carriers))
    messages = [0] * groups
    for g, m in zip(carriers, per_carrier):
        messages[g] = m
    return Plan(groups, spread(round(real["anomalies"] * s), groups), depths, gaps, messages,
                min(real["functions"], max(20, round(real["functions"] * s))),
                round(real["metadata records"] * s / len(RANKS)))


# ------------------------------------------------------------------ what the samples give
def _sample(name: str) -> list[dict]:
    return json.loads((CORPUS / "samples" / "chimbuko" / name).read_text())


def function_table(size: int) -> list[tuple[int, str]]:
    """``size`` (fid, name) pairs: the samples' own functions, then XGC-like names on the free
    fids; ``.TAU application`` and ``TOTAL`` first (the roots' frames)."""
    seen: dict[int, str] = {}
    for name in ("provdb_v0_anomalies.json", "provdb_v0_normalexecs.json"):
        for rec in _sample(name):
            for entry in rec["call_stack"] + rec["event_window"]["exec_window"]:
                seen.setdefault(entry["fid"], entry["func"])
    first = sorted(seen.items(), key=lambda p: (p[1] not in (".TAU application", "TOTAL"),
                                                p[1] != ".TAU application", p[0]))
    fid = 0
    while len(first) < size:
        if fid not in seen:
            first.append((fid, f"xgc_routine_{fid:03d}"))
        fid += 1
    return first[:size]


def counter_events() -> list[list[dict]]:
    """The samples' event records' counter lists (none, one, or a GPU kernel's ten)."""
    return [rec["counter_events"] for name in ("provdb_v0_anomalies.json",
                                               "provdb_v0_normalexecs.json")
            for rec in _sample(name)]


def metadata(per_rank: int) -> Iterator[dict]:
    """The sample rank's metadata records (its first ``per_rank``), once for each rank."""
    own = [{k: v for k, v in r.items() if k != "__id"} for r in _sample("provdb_v0_metadata.json")]
    for rank in RANKS:
        for rec in own[:per_rank]:
            yield dict(rec, rid=rank)


# ------------------------------------------------------------------ the records
def _entry(label: str, fid_name: tuple[int, str], start: int, end: int, anomaly: bool) -> dict:
    return {"entry": start, "event_id": label, "exit": end, "fid": fid_name[0],
            "func": fid_name[1], "is_anomaly": anomaly}


def _stats(seed: int) -> dict:
    count = 10 + seed % 190
    return {"accumulate": 0, "count": count, "kurtosis": (seed % 97) / 7.0,
            "maximum": 3 + seed % 40, "mean": 2.0 + (seed % 13) / 10, "minimum": 1,
            "skewness": (seed % 31) / 5.0, "stddev": 0.5 + (seed % 17) / 10}


def records(p: Plan) -> Iterator[tuple[str, dict]]:
    """(collection, record) of every event record, tree by tree (io step, then rank)."""
    table = function_table(p.functions)
    counters = counter_events()
    trees = [(step, rank) for step in STEPS for rank in RANKS]
    per_tree = spread(p.groups, len(trees))
    g = cycle = sent = 0
    for (step, rank), count in zip(trees, per_tree):
        t0 = T0 + step * STEP_US
        root, total = (f"{rank}:{step}:0", table[0]), (f"{rank}:{step}:1", table[1])
        above = [_entry(root[0], root[1], t0, 0, False), _entry(total[0], total[1], t0 + 1, 0, False)]
        idx = 2
        for _ in range(count):
            chain = []
            for _ in range(p.depths[g] + 1):  # the chain, then the group's parent
                chain.insert(0, (f"{rank}:{step}:{idx}", table[2 + idx % (len(table) - 2)], idx))
                idx += 1
            positions = [WINDOW]
            for gap in p.gaps[g]:
                positions.append(positions[-1] + gap)
            length = positions[-1] + WINDOW + 1
            hot = table[g % len(table)]
            anomalous = set((positions[::2] + positions[1::2])[:p.anomalies[g]])
            leaves = []
            for j in range(length):
                if j in positions:
                    fid_name = hot
                else:
                    fid_name, cycle = table[cycle % len(table)], cycle + 1
                start = t0 + 4 * (idx + j)
                leaf = _entry(f"{rank}:{step}:{idx + j}", fid_name, start, start + 1 + j % 3,
                              j in anomalous)
                callee = j - 1 in anomalous and j not in positions
                leaf["parent_event_id"] = leaves[j - 1]["event_id"] if callee else chain[0][0]
                leaves.append(leaf)
            frames = [_entry(label, fn, t0 + 4 * at - k, t0 + 4 * (idx + length) + k, False)
                      for k, (label, fn, at) in enumerate(chain)]
            stack_above = frames + above[::-1]
            messages = []
            for m in range(p.messages[g]):
                peer = [r for r in range(ALL_RANKS) if r not in RANKS][sent % (ALL_RANKS - len(RANKS))]
                kind = ("SEND", "RECV")[sent % 2]
                leaf = leaves[WINDOW + 1 + m]
                messages.append((WINDOW + 1 + m, {
                    "bytes": 8 << (sent % 5), "execdata_key": leaf["event_id"], "pid": 0,
                    "rid": rank, "src": rank if kind == "SEND" else peer,
                    "tag": 2147483553 - sent % 7, "tar": peer if kind == "SEND" else rank,
                    "tid": 0, "timestamp": leaf["entry"], "type": kind}))
                sent += 1
            for n, x in enumerate(positions):
                own = {k: v for k, v in leaves[x].items() if k != "parent_event_id"}
                counted = [dict(c, rid=rank, ts=own["entry"])
                           for c in counters[(g + n) % len(counters)]]
                window = leaves[x - WINDOW:x + WINDOW + 1]
                yield ("anomalies" if own["is_anomaly"] else "normalexecs"), {
                    "call_stack": [own, *stack_above], "counter_events": counted,
                    "entry": own["entry"], "event_id": own["event_id"],
                    "event_window": {"comm_window": [m for at, m in messages
                                                     if abs(at - x) <= WINDOW],
                                     "exec_window": window},
                    "exit": own["exit"], "fid": own["fid"], "func": own["func"],
                    "func_stats": _stats(idx + x), "gpu_location": None, "gpu_parent": None,
                    "io_step": step, "io_step_tend": t0 + STEP_US - 1, "io_step_tstart": t0,
                    "is_gpu_event": False, "pid": 0, "rid": rank,
                    "runtime_exclusive": own["exit"] - own["entry"] - (x % 2),
                    "runtime_total": own["exit"] - own["entry"], "tid": 0}
            idx += length
            g += 1


def collections(p: Plan) -> dict[str, list[dict]]:
    """Every record of the shard by collection, in the order they are written."""
    out: dict[str, list[dict]] = {"anomalies": [], "normalexecs": [], "metadata": []}
    for name, rec in records(p):
        out[name].append(rec)
    out["metadata"] = list(metadata(p.metadata_per_rank))
    return out


def write(path: Path, scale: float = 1.0) -> int:
    """Write the shard at ``scale`` to ``path`` (replacing it); returns its size in bytes."""
    import unqlite

    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = unqlite.UnQLite(str(path))
    for name, recs in collections(plan(scale)).items():
        collection = db.collection(name)
        collection.create()
        for rec in recs:
            collection.store(rec)
    db.commit()
    db.close()
    return path.stat().st_size


# ------------------------------------------------------------------ the counts, as loaded
def tally(lineage_records) -> dict[str, int]:
    """The graph's counts of lineage records (nodes by uid, relationships by their ends and
    key, as the graph merges them), in :data:`REAL_SHARD`'s words."""
    nodes: dict[str, set] = {}
    edges: dict[str, set] = {}
    for rec in lineage_records:
        if hasattr(rec, "rel"):
            edges.setdefault(rec.rel.name, set()).add((rec.start, rec.end, rec.key))
        else:
            nodes.setdefault(rec.kind.label, set()).add(rec.uid)
    return {"executions": len(nodes.get("FunctionExecution", ())),
            "caller links": len(edges.get("CALLED_BY", ())),
            "window links": len(edges.get("FOLLOWED_BY", ())),
            "messages": len(edges.get("SENT_MESSAGE", ())),
            "ranks": len(nodes.get("Rank", ())), "functions": len(nodes.get("Function", ()))}


def loaded_counts(by_collection: dict[str, list[dict]]) -> dict[str, int]:
    """What loading these records gives, in :data:`REAL_SHARD`'s words, by lineage's own
    Chimbuko reader (``parse_records``, one collection at a time as a shard is read)."""
    from lineage.sources.base import LoadReport
    from lineage.sources.chimbuko.mapping import parse_records

    report = LoadReport("stand-in", "chimbuko-unqlite")
    graph = tally(rec for name, recs in by_collection.items()
                  for rec in parse_records(recs, report, collection=name))
    return {"anomalies": len(by_collection["anomalies"]),
            "normal executions": len(by_collection["normalexecs"]),
            "metadata records": len(by_collection["metadata"]), **graph}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="of the real shard's counts")
    ap.add_argument("--out", type=Path, help="directory (default bench/out/xgc[-SCALE])")
    ap.add_argument("--check", action="store_true", help="print the counts as loaded")
    args = ap.parse_args()
    name = "xgc" if args.scale == 1.0 else f"xgc-{args.scale:g}"
    out = (args.out or HERE / "out" / name) / "provdb.0.unqlite"
    size = write(out, args.scale)
    print(f"{out}: {size / 1e6:.1f} MB")
    if args.check:
        sys.path.insert(0, str(HERE.parent))
        for key, value in loaded_counts(collections(plan(args.scale))).items():
            print(f"  {key:18} {value:7,}  (real shard {REAL_SHARD[key]:,})")


if __name__ == "__main__":
    main()
