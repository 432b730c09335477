"""Lineage that leaves the tool: a run or a node's ancestry as W3C PROV (PROV-JSON, PROV-N,
through the ``prov`` package) or GraphML (through networkx).

Every node becomes a PROV element of its role (``lineage:kind``, ``lineage:uid`` and its
properties as ``lineage:<name>`` attributes; lists as JSON text under ``lineage:list__<name>``;
activities get ``prov:startTime`` / ``prov:endTime``); every relationship becomes its PROV
relation (``USED`` -> ``used``, ...) or, for relations PROV has no term for (``PART_OF``,
``INSTANCE_OF``, ...), a ``wasInfluencedBy`` with ``lineage:type``. ``lineage load`` reads the
PROV-JSON back into the same nodes and relationships.

>>> doc = to_prov([{"uid": "host:nid1", "kind": "Host", "properties": {"name": "nid1"}}], [])
>>> "agent(lineage:host%3Anid1" in doc.get_provn()
True
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import model
from .sources.prov.mapping import LIST_PREFIX, NAMESPACE, PREFIX, RELATIONS

FORMATS = ("prov-json", "prov-n", "graphml")
_NOT_EXPORTED = {"uid", "kind", "loads"}
_PROV_OF = {rel: prov for prov, (rel, _, _) in RELATIONS.items() if rel}


def _id(uid: str) -> str:
    return f"{PREFIX}:{quote(uid, safe='')}"


def _time(value: Any) -> dt.datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.datetime.fromtimestamp(value, dt.timezone.utc)
    return None


def _attributes(props: dict) -> dict:
    out = {}
    for key, value in sorted(props.items()):
        if key in _NOT_EXPORTED or value is None:
            continue
        if isinstance(value, list):
            out[f"{PREFIX}:{LIST_PREFIX}{key}"] = json.dumps(value, ensure_ascii=False)
        else:
            out[f"{PREFIX}:{key}"] = value
    return out


def to_prov(nodes: list[dict], edges: list[dict]):
    """A ``prov.model.ProvDocument`` of nodes (rows with uid, kind, properties) and edges
    (rows with source, type, target, properties)."""
    from prov.model import ProvDocument

    doc = ProvDocument()
    doc.add_namespace(PREFIX, NAMESPACE)
    for node in nodes:
        kind = model.kind(node["kind"])
        props = node.get("properties") or {}
        attrs = {f"{PREFIX}:kind": kind.label, f"{PREFIX}:uid": node["uid"], **_attributes(props)}
        if kind.role is model.Role.ACTIVITY:
            doc.activity(_id(node["uid"]), _time(props.get("start_time")),
                         _time(props.get("end_time")), attrs)
        elif kind.role is model.Role.AGENT:
            doc.agent(_id(node["uid"]), attrs)
        else:
            doc.entity(_id(node["uid"]), attrs)
    for edge in edges:
        _relation(doc, edge)
    return doc


def _relation(doc, edge: dict) -> None:
    attrs = _attributes(edge.get("properties") or {})
    start, end = _id(edge["source"]), _id(edge["target"])
    prov_name = _PROV_OF.get(edge["type"])
    if prov_name == "wasStartedBy":
        doc.wasStartedBy(start, starter=end, other_attributes=attrs or None)
    elif prov_name == "hadMember":
        doc.hadMember(start, end)  # PROV membership carries no attributes
    elif prov_name is not None:
        getattr(doc, prov_name)(start, end, other_attributes=attrs or None)
    else:
        doc.wasInfluencedBy(start, end, other_attributes={**attrs, f"{PREFIX}:type": edge["type"]})


def to_graphml(nodes: list[dict], edges: list[dict], path: str | Path) -> None:
    """Write the subgraph as GraphML (lists and maps as JSON text: GraphML holds scalars)."""
    import networkx as nx

    def flat(props: dict) -> dict:
        return {k: (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v)
                for k, v in props.items() if v is not None}

    graph = nx.MultiDiGraph()
    for node in nodes:
        graph.add_node(node["uid"], **flat({**(node.get("properties") or {}),
                                            "kind": node["kind"]}))
    for edge in edges:
        graph.add_edge(edge["source"], edge["target"],
                       **flat({**(edge.get("properties") or {}), "type": edge["type"]}))
    nx.write_graphml(graph, str(path))


def write(nodes: list[dict], edges: list[dict], path: str | Path, fmt: str) -> str:
    """Write the subgraph to ``path`` as ``fmt`` (prov-json, prov-n, graphml); returns it."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "graphml":
        to_graphml(nodes, edges, path)
        return str(path)
    doc = to_prov(nodes, edges)
    text = doc.serialize(format="json") if fmt == "prov-json" else doc.get_provn()
    Path(path).write_text(text, encoding="utf-8")
    return str(path)
