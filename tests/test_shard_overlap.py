"""A Chimbuko provDB shard written while it is read (lineage/load/early_nodes.py with
relationships, one builder for a shard's collections), on a real Neo4j.

- Both ways of loading (reading first; nodes and relationships written while reading) give
  the graph that the shard's collections state when each is read on its own and the
  records are applied in order (later values win, labels add up): what loading gave
  before the collections shared a builder. Checked on a shard derived from the v0 samples
  and on a small stand-in of the XGC shard (bench/gen_xgc_shard.py).
- A bad record further on, after relationships were written, leaves nothing of the shard,
  and the error names the file, the collection and the record.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import sys
import threading
from pathlib import Path

import pytest

from lineage.config.settings import LoadOptions
from lineage.errors import ParseError
from lineage.load import fleet, loads, pipeline
from lineage.load.inputs import Input
from lineage.load.writer import Writer
from lineage.sources import registry
from lineage.sources.base import LoadReport
from lineage.sources.chimbuko.mapping import parse_records, parse_unqlite

from . import graphcheck
from .corpus import REPO, SAMPLES, needs_corpus, write_shard

sys.path.insert(0, str(REPO / "bench"))

EARLY = LoadOptions(overlap_bytes=0)  # nodes and relationships written while reading
READ_FIRST = LoadOptions(overlap_bytes=None)
COLLECTIONS = ("anomalies", "normalexecs", "metadata")


def sample_shard(folder: Path) -> Path:
    """A shard of the v0 samples' three collections (the provDB's own record shape)."""
    folder.mkdir()
    return write_shard(folder / "provdb.0.unqlite", {
        name: json.loads((SAMPLES / "chimbuko" / f"provdb_v0_{name}.json").read_text())
        for name in COLLECTIONS})


def stand_in(folder: Path) -> Path:
    import gen_xgc_shard

    path = folder / "provdb.0.unqlite"
    gen_xgc_shard.write(path, 0.01)
    return path


def stated(path: Path) -> tuple[dict, dict]:
    """What the shard's collections state, each read on its own, applied in order: nodes
    uid -> (labels, properties), relationships (type, start, end, key) -> properties."""
    import unqlite

    db = unqlite.UnQLite(str(path), flags=0x1 | 0x100)
    nodes: dict[str, tuple[set, dict]] = {}
    rels: dict[tuple, dict] = {}
    report = LoadReport(str(path), "chimbuko-unqlite")
    for name in COLLECTIONS:
        for rec in parse_records(list(db.collection(name)), report, collection=name):
            props = {k: v for k, v in rec.props.items() if v is not None}
            if hasattr(rec, "rel"):
                ident = (rec.rel.name, rec.start, rec.end, rec.key or None)
                rels.setdefault(ident, {}).update(props)
            else:
                labels, held = nodes.setdefault(rec.uid, (set(), {}))
                labels.update(rec.labels)
                held.update(props)
    db.close()
    return nodes, rels


def in_graph(lin) -> tuple[dict, dict]:
    """The graph's lineage nodes and relationships in the shape of :func:`stated`."""
    nodes = {r["uid"]: (set(r["labels"]), {k: v for k, v in r["props"].items()
                                            if k not in ("uid", "kind", "loads")})
             for r in lin.query("MATCH (n:Lineage) RETURN n.uid AS uid, labels(n) AS labels, "
                                "properties(n) AS props")}
    rels = {(r["type"], r["start"], r["end"], r["props"].get("key")):
            {k: v for k, v in r["props"].items() if k not in ("loads", "key")}
            for r in lin.query("MATCH (a:Lineage)-[r]->(b:Lineage) RETURN type(r) AS type, "
                               "a.uid AS start, b.uid AS end, properties(r) AS props")}
    return nodes, rels


class ThreadsSeen(Writer):
    """A writer that records which threads wrote relationships."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.edge_threads: list[str] = []

    def write_edges(self, edges, tag=None):
        self.edge_threads.append(threading.current_thread().name)
        return super().write_edges(edges, tag)


@needs_corpus
@pytest.mark.parametrize("make", [sample_shard, stand_in], ids=["v0 samples", "stand-in 1%"])
def test_a_shard_loads_the_graph_its_collections_state(lin, tmp_path, make):
    path = make(tmp_path / "run")
    expected = stated(path)
    for options in (READ_FIRST, EARLY):
        lin.reset()
        writer = ThreadsSeen(lin.graph.driver, lin.graph.database, batch_size=50)
        [result] = fleet.load(writer, [path], options=options)
        assert result.status == "loaded" and result.write.unresolved_edges == 0
        nodes, rels = in_graph(lin)
        assert set(nodes) == set(expected[0]) and set(rels) == set(expected[1])
        for uid, (labels, props) in expected[0].items():
            assert nodes[uid][0] >= labels and nodes[uid][1] == props, uid
        assert rels == expected[1]
        # read first: every relationship after the reading; else some while it went on
        assert ("lineage-early-edges" in writer.edge_threads) == (options is EARLY)
    assert len(expected[1]) > 100 and any(k[0] == "SENT_MESSAGE" for k in expected[1])


def _records(path: Path) -> int:
    return sum(1 for _ in parse_unqlite(path, LoadReport(str(path), "chimbuko-unqlite")))


@needs_corpus
def test_a_bad_record_after_relationships_were_written_leaves_nothing(lin, tmp_path):
    import gen_xgc_shard

    lin.load([SAMPLES / "chimbuko" / "provdb_v0_metadata.json"])  # another load, kept
    before = graphcheck.of(lin, with_loads=True)
    good = stand_in(tmp_path / "good")
    hold = _records(good) - 20  # before the bad record (the rank metadata comes after it)
    collections = gen_xgc_shard.collections(gen_xgc_shard.plan(0.01))
    bad_index = len(collections["normalexecs"])
    collections["normalexecs"].append(dict(collections["normalexecs"][0], call_stack="oops"))
    (tmp_path / "run").mkdir()
    path = write_shard(tmp_path / "run" / "provdb.0.unqlite", collections)

    written = threading.Event()
    seen: list[int] = []

    class Gated(Writer):
        def write_edges(self, edges, tag=None):
            def counted():
                for number, edge in enumerate(edges, 1):
                    if number == 51 and threading.current_thread().name == "lineage-early-edges":
                        seen.append(lin.query("MATCH (:Lineage)-[r]->(:Lineage) "
                                              "RETURN count(r) AS n")[0]["n"])
                        written.set()  # the first batch of 50 is committed by now
                    yield edge
            return super().write_edges(counted(), tag)

    fmt = registry.detect(path, "auto")

    def held(source, report):
        records = fmt.parse(source, report)
        for number in itertools.count():
            if number == hold:
                assert written.wait(120), "no relationship was written while reading"
            record = next(records, None)
            if record is None:
                return
            yield record

    item = Input(str(path), dataclasses.replace(fmt, parse=held), True)
    with pytest.raises(ParseError) as info:
        pipeline.load_input(Gated(lin.graph.driver, lin.graph.database, batch_size=50), item,
                            options=EARLY)
    assert seen and seen[0] > before.rels  # relationships of the shard were in the graph
    assert str(info.value).startswith(
        f"{path}:collection normalexecs, record {bad_index}: expected a list 'call_stack'")
    assert graphcheck.of(lin, with_loads=True) == before
    assert not loads.being_written(lin.graph.driver, lin.graph.database)
    assert not [t for t in threading.enumerate()
                if t.name in ("lineage-early-nodes", "lineage-early-edges")]
    [entry] = lin.query("MATCH (l:Load {path: $p}) RETURN l.status AS status, "
                        "l.error AS error", {"p": str(path)})
    assert entry["status"] == "failed" and f"record {bad_index}" in entry["error"]
