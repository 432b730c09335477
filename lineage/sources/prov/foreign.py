"""Another tool's PROV records as graph records: elements as ``ProvEntity`` /
``ProvActivity`` / ``ProvAgent`` nodes named by their full URI, relations as relationships of
their PROV type, each description and relation kept exactly (see :mod:`.model`).

>>> from prov.model import ProvDocument
>>> doc = ProvDocument()
>>> _ = doc.add_namespace("ex", "http://example.org/")
>>> used = doc.used("ex:compose", "ex:data", other_attributes={"prov:role": "ex:input"})
>>> mapper = Documents("0f3a", "primer.json", "prov-json", lambda uri: None)
>>> edge = [r for r in mapper.record(used, None, stored.from_record(used))
...         if getattr(r, "rel", None) is model.USED][0]
>>> edge.start, edge.end, edge.props["role"]
('prov:activity:http://example.org/compose', 'prov:entity:http://example.org/data', 'ex:input')
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache
from typing import Callable, Iterator

from ... import model
from ...model.records import Edge, Node, Record
from . import stored
from .model import PROV_BUNDLE, PROV_DOCUMENT, PROV_ENTITY
from .vocabulary import (ELEMENT_KINDS, END_KINDS, RELATION_TYPES, epoch, plain, plain_values,
                         prop_name)

#: How many (node, scope) pairs a document remembers having stated, so that an element
#: named by many relations is not stated again each time (memory stays bounded: about 25 MB).
REMEMBERED = 1 << 17


@cache
def _keywords() -> dict:
    from prov.constants import PROV_N_MAP  # imported when used: the CLI starts without prov

    return PROV_N_MAP


def keyword(record) -> str:
    """The PROV-N keyword of a record's type (``entity``, ``used``, ``wasEndedBy``, ...)."""
    return _keywords()[record.get_type()]


def element_props(record) -> dict:
    """The queryable view of an element's description: identifier, name, label, types,
    times and its other attributes (``attr_<name>``, a list when several values)."""
    props = {"identifier": record.identifier.uri, "name": str(record.identifier)}
    values: dict[str, list] = {}
    for name, value in record.attributes:
        key = str(name)
        if key in ("prov:startTime", "prov:endTime"):
            props["start_time" if key == "prov:startTime" else "end_time"] = epoch(value)
        elif key == "prov:label":
            props.setdefault("label", str(plain(value)))
        elif key == "prov:type":
            props.setdefault("prov_type", []).append(str(plain(value)))
        else:
            values.setdefault(prop_name(key), []).append(value)
    props.update({name: plain_values(vals) for name, vals in values.items()})
    return props


class Documents:
    """The graph records of one document's records: its document node, its bundles, and
    each element and relation with the ``PART_OF`` that says where it is stated.
    ``role_of(uri)`` gives the kind the document declares an identifier as (for the ends
    of ``wasInfluencedBy``, which PROV does not type), or None."""

    def __init__(self, sha256: str, name: str, fmt: str,
                 role_of: Callable[[str], model.NodeKind | None]):
        self.sha256, self.name, self.format = sha256, name, fmt
        self.uid = PROV_DOCUMENT.uid(sha256)
        self.role_of = role_of
        self._said: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._bundles: dict[str, str] = {}

    def document(self) -> Node:
        return Node(PROV_DOCUMENT, self.uid, {"sha256": self.sha256, "name": self.name,
                                              "format": self.format})

    def bundle(self, identifier) -> Iterator[Record]:
        """A bundle's node and its ``PART_OF`` the document (once)."""
        if identifier.uri in self._bundles:
            return
        uid = PROV_BUNDLE.uid(self.sha256, identifier.uri)
        self._bundles[identifier.uri] = uid
        yield Node(PROV_BUNDLE, uid, {"document": self.sha256, "identifier": identifier.uri,
                                      "name": str(identifier)})
        yield Edge(model.PART_OF, uid, self.uid)

    def scope_uid(self, scope) -> str:
        return self.uid if scope is None else self._bundles[scope.uri]

    def record(self, record, scope, text: str) -> Iterator[Record]:
        """The graph records of one PROV record stated in ``scope`` (a bundle's identifier,
        or None: the top level), whose stored form is ``text``."""
        if scope is not None:
            yield from self.bundle(scope)
        key = stored.digest(None if scope is None else scope.uri, text)
        name = keyword(record)
        kind = ELEMENT_KINDS.get(name)
        if kind is not None:
            node = Node(kind, kind.uid(record.identifier.uri), element_props(record))
            self._remember((node.uid, "" if scope is None else scope.uri))
            yield node
            yield Edge(model.PART_OF, node.uid, self.scope_uid(scope), {"prov_record": text},
                       key=key)
            return
        yield from self._relation(record, name, scope, text, key)

    def _relation(self, record, name: str, scope, text: str, key: str) -> Iterator[Record]:
        rel = RELATION_TYPES[name]
        ends = []
        for position, (argument, value) in enumerate(record.formal_attributes[:2]):
            argument = str(argument)
            kind = END_KINDS[argument]
            if value is None:  # left out (``-``): an element of this relation's own
                kind = kind or PROV_ENTITY
                identifier, label = f"_:{key}:{position}", "-"
            else:
                identifier, label = value.uri, str(value)
                kind = kind or self.role_of(identifier) or PROV_ENTITY
            uid = kind.uid(identifier)
            ends.append(uid)
            yield from self._named(kind, uid, identifier, label, scope)
        props = {"prov_record": text, "prov_id": record.identifier.uri if record.identifier
                 else None, "bundle": None if scope is None else scope.uri}
        roles = []
        for argument, value in record.attributes:
            name = str(argument)
            if name == "prov:time":
                props["time"] = epoch(value)
            elif name == "prov:role":
                roles.append(value)
        if len(roles) == 1 and "role" in rel.props:
            props["role"] = str(plain(roles[0]))
        yield Edge(rel, ends[0], ends[1], props, key=key)

    def _remember(self, said: tuple[str, str]) -> bool:
        """Whether the node and scope of ``said`` were stated already (remembered now)."""
        if said in self._said:
            self._said.move_to_end(said)
            return True
        self._said[said] = None
        if len(self._said) > REMEMBERED:
            self._said.popitem(last=False)
        return False

    def _named(self, kind, uid: str, identifier: str, label: str, scope) -> Iterator[Record]:
        """An element a relation names, and its ``PART_OF`` where it is named (each once
        while remembered, and not when its description was stated there)."""
        if self._remember((uid, "" if scope is None else scope.uri)):
            return
        yield Node(kind, uid, {"identifier": identifier, "name": label})
        yield Edge(model.PART_OF, uid, self.scope_uid(scope))
