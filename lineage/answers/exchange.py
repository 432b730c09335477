"""Lineage that leaves the tool: a run or a node's ancestry as GraphML (here) or as a format
a source writes (its ``Source.exports``, found through the registry: the PROV source writes
PROV-JSON and PROV-N), written as the rows stream in (bounded memory).

>>> FORMATS
('prov-json', 'prov-n', 'graphml')
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable
from xml.sax.saxutils import escape, quoteattr

from ..private_file import create_private
from ..model.records import scalar_type
from ..sources import registry

__all__ = ["FORMATS", "write", "write_graphml"]
#: the formats :func:`write` writes: the sources' export formats, then GraphML
FORMATS = registry.export_formats() + ("graphml",)
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


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


def write(nodes: Iterable[dict], edges: Iterable[dict], path: str | Path, fmt: str,
          roots: Iterable[str] = ()) -> str:
    """Write the subgraph to ``path`` as ``fmt`` (one of :data:`FORMATS`); returns it.
    ``nodes`` and ``edges`` may be generators: they are read once, in batches, and never held
    whole (edges after nodes). ``roots``: the uids the export starts from (a source's writer
    may write them as themselves: an imported PROV document, say)."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    target = Path(path)
    # an export that fails leaves nothing; only its owner can read it (it may quote an XALT
    # environment or command lines, as reports do)
    partial = create_private(target.with_name(f".{target.name}.part"))
    try:
        if fmt == "graphml":
            write_graphml(nodes, edges, partial)
        else:
            registry.export_writer(fmt)(nodes, edges, partial, roots)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return str(path)
