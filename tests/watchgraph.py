"""The lineage content of a graph, for comparing a watched graph with one load of the
finished files: every :Lineage node (labels, properties) and every relationship between
them (ends, type, properties), the ``loads`` property (which load wrote it) left out; and
what a watcher killed mid-write leaves (:func:`leave_half_written`)."""

from __future__ import annotations


def content(lin) -> tuple[dict, dict]:
    """``(nodes, relationships)``: uid -> (labels, properties); (start, type, key, end) ->
    properties."""
    nodes = {r["uid"]: (sorted(r["labels"]), _props(r["props"])) for r in lin.graph.run(
        "MATCH (n:Lineage) RETURN n.uid AS uid, labels(n) AS labels, properties(n) AS props")}
    rels = {}
    for r in lin.graph.run("MATCH (a:Lineage)-[r]->(b:Lineage) RETURN a.uid AS a, type(r) AS t, "
                           "b.uid AS b, properties(r) AS props"):
        key = (r["a"], r["t"], r["props"].get("key"), r["b"])
        assert key not in rels, f"two relationships {key}"
        rels[key] = _props(r["props"])
    return nodes, rels


def _props(props: dict) -> dict:
    return {k: v for k, v in props.items() if k != "loads"}


def differences(first: tuple[dict, dict], second: tuple[dict, dict], limit: int = 10) -> list:
    """What differs between two contents (empty: the same), for an assertion's message."""
    out = []
    for part, (a, b) in zip(("node", "relationship"), zip(first, second)):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                out.append((part, key, a.get(key), b.get(key)))
    return out[:limit]


def leave_half_written(lin, format_name: str, name: str) -> None:
    """What a watcher killed while writing the increment ``name`` (of ``format_name``)
    leaves: its write mark, by a process that is gone, and a workflow node written under
    its tag (``pegasus:workflow:half-written``)."""
    from lineage.load import loads
    from lineage.load.writer import Writer
    from lineage.model.records import Node
    from lineage.sources.pegasus.model import WORKFLOW

    lid = loads.load_id(format_name, name)
    driver = lin.graph.driver
    loads.begin_write(driver, None, lid, loads.tag_of(lid, 1), name, format_name)
    driver.execute_query("MATCH (l:Load {uid: $uid}) SET l.writer = $dead",
                         uid=loads.load_uid(lid), dead=loads.this_writer().rsplit(":", 1)[0]
                         + ":999999999")
    Writer(driver, None).write_nodes(
        [Node(WORKFLOW, "pegasus:workflow:half-written", {"xwf_id": "half-written"})],
        loads.tag_of(lid, 1))
