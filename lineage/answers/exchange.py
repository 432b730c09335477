"""Lineage that leaves the tool: a run or a node's ancestry as W3C PROV (PROV-JSON, PROV-N,
through the ``prov`` package) or GraphML, written as the rows stream in (bounded memory).

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
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

from .. import model
from ..model.prov import LIST_PREFIX, NAMESPACE, PREFIX
from ..model.prov import PROV_RELATIONS as RELATIONS
from ..private_file import create_private
from ..model.records import scalar_type

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


BATCH = 1000  # elements per ProvDocument while streaming: memory does not grow with the export
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _batches(rows: Iterable[dict], size: int = BATCH) -> Iterator[list[dict]]:
    batch: list[dict] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def write_prov_json(nodes: Iterable[dict], edges: Iterable[dict], path: str | Path) -> None:
    """PROV-JSON, streamed: each batch of elements is encoded by the ``prov`` package and its
    entries spooled per section; the document is assembled from the spools at the end (a
    JSON object's sections cannot be interleaved). Relations get document-wide ``_:idN``."""
    from prov.serializers.provjson import encode_json_document

    with tempfile.TemporaryDirectory(prefix="lineage-export-") as spool_dir:
        spools: dict[str, Any] = {}
        relation_ids = 0
        try:
            for rows, are_edges in ((nodes, False), (edges, True)):
                for batch in _batches(rows):
                    doc = to_prov([], batch) if are_edges else to_prov(batch, [])
                    for section, entries in encode_json_document(doc).items():
                        if section == "prefix":
                            continue
                        spool = spools.get(section)
                        if spool is None:
                            spool = spools[section] = open(
                                Path(spool_dir) / f"{len(spools)}.json", "w+", encoding="utf-8")
                        for key, value in entries.items():
                            if key.startswith("_:"):
                                relation_ids += 1
                                key = f"_:id{relation_ids}"
                            spool.write(("" if spool.tell() == 0 else ",\n")
                                        + json.dumps(key, ensure_ascii=False) + ": "
                                        + json.dumps(value, ensure_ascii=False))
            with open(path, "w", encoding="utf-8") as out:
                out.write(json.dumps({"prefix": {PREFIX: NAMESPACE}})[:-1])
                for section, spool in spools.items():
                    out.write(f", {json.dumps(section)}: {{\n")
                    spool.seek(0)
                    shutil.copyfileobj(spool, out)
                    out.write("}")
                out.write("}\n")
        finally:
            for spool in spools.values():
                spool.close()


def write_prov_n(nodes: Iterable[dict], edges: Iterable[dict], path: str | Path) -> None:
    """PROV-N, streamed: the ``prov`` package writes each batch's statements."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"document\n  prefix {PREFIX} <{NAMESPACE}>\n\n")
        for rows, are_edges in ((nodes, False), (edges, True)):
            for batch in _batches(rows):
                doc = to_prov([], batch) if are_edges else to_prov(batch, [])
                lines = doc.get_provn().split("\n")
                body = [line for line in lines[1:-1]
                        if line.strip() and not line.lstrip().startswith("prefix ")]
                out.write("\n".join(body) + "\n")
        out.write("endDocument\n")


def _widen(old: str | None, new: str) -> str:
    if old is None or old == new:
        return new
    if {old, new} == {"long", "double"}:
        return "double"
    return "string"


def _graphml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False)
    # XML 1.0 cannot hold most control characters, not even as references: shown as escapes
    return _INVALID_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def write_graphml(nodes: Iterable[dict], edges: Iterable[dict], path: str | Path) -> None:
    """GraphML, streamed (networkx reads it back; lists and maps as JSON text, since GraphML
    holds scalars). Elements are spooled while their attribute keys and types are collected;
    the key declarations, which GraphML puts first, are written at the end."""
    keys: dict[tuple[str, str], list] = {}  # (for, name) -> [id, type]

    def data(domain: str, props: dict) -> str:
        parts = []
        for name, value in props.items():
            if value is None:
                continue
            entry = keys.setdefault((domain, name), [f"d{len(keys)}", None])
            entry[1] = _widen(entry[1], "string" if isinstance(value, (list, dict))
                              else scalar_type(value))
            parts.append(f'<data key="{entry[0]}">{escape(_graphml_text(value))}</data>')
        return "".join(parts)

    with tempfile.TemporaryFile("w+", encoding="utf-8", prefix="lineage-export-") as body:
        for node in nodes:
            body.write(f'<node id={quoteattr(_graphml_text(node["uid"]))}>'
                       + data("node", {**(node.get("properties") or {}), "kind": node["kind"]})
                       + "</node>\n")
        for n, edge in enumerate(edges):
            body.write(f'<edge id="e{n}" source={quoteattr(_graphml_text(edge["source"]))} '
                       f'target={quoteattr(_graphml_text(edge["target"]))}>'
                       + data("edge", {**(edge.get("properties") or {}), "type": edge["type"]})
                       + "</edge>\n")
        with open(path, "w", encoding="utf-8") as out:
            out.write('<?xml version="1.0" encoding="utf-8"?>\n'
                      '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
                      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                      'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
                      'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n')
            for (domain, name), (key_id, kind) in keys.items():
                out.write(f'<key id="{key_id}" for="{domain}" '
                          f'attr.name={quoteattr(_graphml_text(name))} attr.type="{kind}"/>\n')
            out.write('<graph edgedefault="directed">\n')
            body.seek(0)
            shutil.copyfileobj(body, out)
            out.write("</graph>\n</graphml>\n")


def write(nodes: Iterable[dict], edges: Iterable[dict], path: str | Path, fmt: str) -> str:
    """Write the subgraph to ``path`` as ``fmt`` (prov-json, prov-n, graphml); returns it.
    ``nodes`` and ``edges`` may be generators: they are read once, in batches, and never held
    whole (edges after nodes)."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    target = Path(path)
    # an export that fails leaves nothing; only its owner can read it (it may quote an XALT
    # environment or command lines, as reports do)
    partial = create_private(target.with_name(f".{target.name}.part"))
    try:
        {"prov-json": write_prov_json, "prov-n": write_prov_n, "graphml": write_graphml}[fmt](
            nodes, edges, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return str(path)
