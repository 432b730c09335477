"""A subgraph as the records of one W3C PROV document, batch by batch (memory holds one
batch): nodes of this project's kinds as ``lineage export`` writes them (:func:`to_prov`),
elements and relations of imported PROV documents as the records they were read from, in
their bundles, with their prefixes.

Every node of our kinds becomes a PROV element of its role (``lineage:kind``, ``lineage:uid``
and its properties as ``lineage:<name>`` attributes; lists as JSON text under
``lineage:list__<name>``; activities get ``prov:startTime`` / ``prov:endTime``); every
relationship its PROV relation (``USED`` -> ``used``, ...) or, for relations PROV has no
term for (``PART_OF``, ``INSTANCE_OF``, ...), a ``wasInfluencedBy`` with ``lineage:type``.
An imported element is each description a document or bundle of the export states of it (its
``PART_OF``'s ``prov_record``); an imported relation is its record.

>>> doc = to_prov([{"uid": "host:nid1", "kind": "Host", "properties": {"name": "nid1"}}], [])
>>> "agent(lineage:host%3Anid1" in doc.get_provn()
True
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Callable, Iterable
from urllib.parse import quote

from ... import model
from . import stored
from .model import PROV_BUNDLE, PROV_DOCUMENT, SOURCE
from .ours import LIST_PREFIX, RELATIONS
from .vocabulary import NAMESPACE, PREFIX

BATCH = 1000  # records per ProvDocument while streaming: memory does not grow with the export
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


def to_prov(nodes: list[dict], edges: list[dict], doc=None):
    """A ``prov.model.ProvDocument`` (``doc``, or a new one) of nodes of our kinds (rows
    with uid, kind, properties) and their edges (rows with source, type, target,
    properties)."""
    from prov.model import ProvDocument

    doc = ProvDocument() if doc is None else doc
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


def _qualified_name(name: str, uri: str):
    """A ``prov`` qualified name for ``uri`` with the prefix ``name`` gives it (``ex:b1``),
    when ``uri`` ends with the local part; else ``uri`` itself (the package names it)."""
    from prov.identifier import Namespace, QualifiedName

    prefix, colon, local = name.partition(":")
    if colon and uri.endswith(local) and prefix:
        return QualifiedName(Namespace(prefix, uri[:len(uri) - len(local)]), local)
    return uri


class Records:
    """The PROV records of an export's node and edge rows, handed on batch by batch as
    ``prov`` documents: ``emit(doc)`` gets each batch (its bundles inside it), made with the
    prefixes earlier batches used (:attr:`namespaces`, by bundle URI, None for the top), so
    one prefix means one namespace throughout. ``roots``: the uids the export starts from;
    when imported PROV documents are among them, only the imported records their loads
    stated are written (the export of a document is that document, whatever other documents
    said of the same elements)."""

    def __init__(self, emit: Callable[[Any], None], roots: Iterable[str] = ()):
        self.emit, self.roots = emit, set(roots)
        self.only_loads: set[str] | None = None
        self._bundle_loads: dict[str, list] = {}
        self.namespaces: dict[str | None, dict[str, str]] = {None: {PREFIX: NAMESPACE}}
        self.bundle_names: dict[str, str] = {}  # bundle URI -> its qualified name's text
        self._bundle_of: dict[str, str] = {}  # ProvBundle uid -> its URI
        self._ours: list[dict] = []
        self._edges: list[dict] = []
        self._records: list[tuple[str | None, str]] = []
        self.ours = self.imported = False

    def node(self, row: dict) -> None:
        kind = model.kind(row["kind"])
        props = row.get("properties") or {}
        if kind.source != SOURCE:
            self.ours = True
            self._ours.append(row)
            if len(self._ours) >= BATCH:
                self.flush()
        elif kind is PROV_DOCUMENT and row["uid"] in self.roots and props.get("loads"):
            self.only_loads = (self.only_loads or set()) | set(props["loads"])
        elif kind is PROV_BUNDLE:
            self._bundle_of[row["uid"]] = props["identifier"]
            self._bundle_loads[props["identifier"]] = props.get("loads") or []
            self.bundle_names.setdefault(props["identifier"], props.get("name") or "")

    def edge(self, row: dict) -> None:
        props = row.get("properties") or {}
        text = props.get("prov_record")
        if text is None:
            if getattr(model.kind_of_uid(row["source"]), "source", SOURCE) != SOURCE:
                self._edges.append(row)
        elif self._wanted(props):
            self.imported = True
            scope = props.get("bundle")
            if row["type"] == model.PART_OF.name:
                if model.kind_of_uid(row["target"]) is PROV_DOCUMENT:
                    scope = None
                else:
                    scope = self._bundle_of.get(row["target"])
                    if scope is None:
                        return  # a bundle outside the export
            self._records.append((scope, text))
        if len(self._edges) + len(self._records) >= BATCH:
            self.flush()

    def _wanted(self, props: dict) -> bool:
        return self.only_loads is None or bool(self.only_loads & set(props.get("loads") or ()))

    def flush(self, last: bool = False) -> None:
        """Hand on what is pending as one batch (with ``last``, also the bundles no record
        filled)."""
        from prov.model import ProvDocument

        if not (self._ours or self._edges or self._records or last):
            return
        doc = ProvDocument()
        self._seed(doc, None)
        to_prov(self._ours, self._edges, doc)
        bundles: dict[str, Any] = {}
        wanted = [uri for uri in self._bundle_loads
                  if self._wanted({"loads": self._bundle_loads[uri]})] if last else []
        for scope, text in self._records:
            target = doc if scope is None else self._bundle(doc, bundles, scope)
            record = stored.record_of(text)
            for namespace in record.bundle.namespaces:  # a datatype's too (rdf:XMLLiteral)
                target.add_namespace(namespace)
            target.add_record(record)
        for uri in wanted:
            self._bundle(doc, bundles, uri)
        self._ours, self._edges, self._records = [], [], []
        self.emit(doc)
        self._learn(doc)

    def _bundle(self, doc, bundles: dict, uri: str):
        if uri not in bundles:
            bundles[uri] = doc.bundle(_qualified_name(self.bundle_names.get(uri, ""), uri))
            self._seed(bundles[uri], uri)
        return bundles[uri]

    def _seed(self, bundle, scope: str | None) -> None:
        for prefix, uri in self.namespaces.get(scope, {}).items():
            if prefix == "default":
                bundle.set_default_namespace(uri)
            else:
                bundle.add_namespace(prefix, uri)

    def _learn(self, doc) -> None:
        """Remember the prefixes a batch used, so the next batches use the same."""
        for scope, bundle in [(None, doc), *((b.identifier.uri, b) for b in doc.bundles)]:
            known = self.namespaces.setdefault(scope, {})
            for namespace in bundle.namespaces:
                known.setdefault(namespace.prefix, namespace.uri)
            if bundle.default_ns_uri:
                known.setdefault("default", bundle.default_ns_uri)
            if scope is not None:
                self.bundle_names[scope] = str(bundle.identifier)


def write_all(records: Records, nodes: Iterable[dict], edges: Iterable[dict]) -> None:
    """Feed every node, then every edge (their rows may stream: each is read once), then
    what is pending."""
    for row in nodes:
        records.node(row)
    for row in edges:
        records.edge(row)
    records.flush(last=True)
