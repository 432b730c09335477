"""The lineage content of a graph, for comparing a watched graph with one load of the
finished files: every :Lineage node (labels, properties) and every relationship between
them (ends, type, properties), the ``loads`` property (which load wrote it) left out."""

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
