"""W3C PROV records to graph records, whatever format they were read from: a document this
installation exported and signed (:mod:`.trust`) comes back as the nodes and relationships
it was (:mod:`.ours`); every other record, of any document, is another tool's
(:mod:`.foreign`).

>>> from prov.model import ProvDocument
>>> doc = ProvDocument()
>>> _ = doc.add_namespace("ex", "http://example.org/")
>>> _ = doc.entity("ex:article", {"prov:label": "Crime rises"})
>>> report = LoadReport("doc.provn", "prov-n")
>>> records = list(document_records(doc, Document("0f3a", "doc.provn", report)))
>>> [r.uid for r in records if isinstance(r, Node)]
['prov:document:0f3a', 'prov:entity:http://example.org/article']
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from typing import Callable, Iterator

from ... import model
from ...model.records import Node, Record  # noqa: F401  (Node: the example)
from ..base import LoadReport
from . import foreign, ours, stored
from .vocabulary import ELEMENT_KINDS, NAMESPACE

#: At most this many (relation, attribute) keys are counted apart; the rest are summed.
MAX_DROPPED_KEYS = 50
#: The identifier of the signature record that ends a signed export (not a node).
SIGNATURE_ID = NAMESPACE + "export"


def sha256_of(path: str | os.PathLike) -> str:
    """What names a document: the SHA-256 of its content."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


class Document:
    """One document being read: turns its records into graph records, reporting what it
    cannot hold. ``verified``: the document is this installation's signed export.
    ``role_of(uri)``: the kind the document declares an identifier as (or None)."""

    def __init__(self, sha256: str, name: str, report: LoadReport, verified: bool = False,
                 role_of: Callable[[str], model.NodeKind | None] = lambda uri: None):
        self.report, self.verified = report, verified
        self.foreign = foreign.Documents(sha256, name, report.format, role_of)
        self._said = False
        self.dropped: Counter = Counter()

    def bundle(self, identifier) -> Iterator[Record]:
        """A bundle the document has (also when it holds no record)."""
        yield from self._document()
        yield from self.foreign.bundle(identifier)

    def _document(self) -> Iterator[Record]:
        if not self._said:
            self._said = True
            yield self.foreign.document()

    def records(self, record, scope, text: Callable[[], str], where: str) -> Iterator[Record]:
        """The graph records of one PROV record stated in ``scope`` (a bundle's identifier or
        None); ``text()`` gives its stored form. A record this model cannot hold is skipped
        (strict mode: an error naming ``where``)."""
        try:
            out = list(self._ours(record, where)) if self.verified and scope is None else None
            if out is None:
                out = [*self._document(), *self.foreign.record(record, scope, text())]
        except ValueError as exc:
            self.report.skip(self.report.path, where, "a PROV record this model can hold",
                             str(exc))
            return
        yield from out

    def _ours(self, record, where: str) -> Iterator[Record] | None:
        """Our own records of a verified document (None: the record is not one of ours)."""
        name = foreign.keyword(record)
        if name in ELEMENT_KINDS:
            if record.identifier.uri == SIGNATURE_ID:
                return iter(())
            return iter([ours.element(record, where)]) if ours.is_element(record) else None
        if not ours.is_relation(record):
            return None
        edge, unkept = ours.relation(record, name, where)
        if edge is None:
            self.report.unknown_item(f"PROV {name}")
            return iter(())
        self.dropped.update(f"{name} {attribute}" for attribute in unkept)
        return iter([edge])

    def finish(self) -> None:
        """Count the attributes of our relations no relationship keeps (one warning)."""
        if not self.dropped:
            return
        ranked = sorted(self.dropped.items(), key=lambda kv: (-kv[1], kv[0]))
        counts = dict(ranked[:MAX_DROPPED_KEYS - 1] if len(ranked) > MAX_DROPPED_KEYS
                      else ranked)
        if len(counts) < len(ranked):
            counts["(other attributes)"] = sum(n for _, n in ranked[len(counts):])
        self.report.extra["dropped_relation_attributes"] = counts
        listed = ", ".join(f"{k} ({n})" for k, n in ranked[:5])
        more = f", ... ({len(ranked) - 5} more)" if len(ranked) > 5 else ""
        self.report.warn(f"{self.report.path}: {sum(self.dropped.values())} attributes of "
                         f"PROV relations not kept, the model declares no such relationship "
                         f"property: {listed}{more}")


def declared_roles(document) -> dict[str, model.NodeKind]:
    """The kind each element identifier of a ``prov`` document is declared as (the first
    declaration wins; bundles included)."""
    roles: dict[str, model.NodeKind] = {}
    for bundle in [document, *document.bundles]:
        for record in bundle.get_records():
            kind = ELEMENT_KINDS.get(foreign.keyword(record))
            if kind is not None:
                roles.setdefault(record.identifier.uri, kind)
    return roles


def document_records(document, reader: Document) -> Iterator[Record]:
    """The graph records of a whole ``prov`` document (read from PROV-N or PROV-XML):
    the top level's records, then each bundle's."""
    for scope, bundle in [(None, document), *((b.identifier, b) for b in document.bundles)]:
        if scope is not None:
            yield from reader.bundle(scope)
        for number, record in enumerate(bundle.get_records(), 1):
            where = (f"{'' if scope is None else f'bundle {scope}, '}record {number} "
                     f"({foreign.keyword(record)} {record.identifier or ''})").rstrip()
            yield from reader.records(record, scope, lambda r=record: stored.from_record(r),
                                      where)
    reader.finish()
