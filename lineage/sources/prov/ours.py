"""Records of a document ``lineage export`` wrote, read back as the nodes and relationships
they were (only for a document whose signature this installation verifies: see
:mod:`.trust`; any other document is another tool's, whatever it claims).

Each element carries its kind and uid (``lineage:kind``, ``lineage:uid``) and each property
as a ``lineage:<name>`` attribute (lists as JSON text under ``lineage:list__<name>``); its
identifier is ``lineage:<uid, percent-encoded>``. PROV relations map to the lineage
relations (:data:`RELATIONS`); ``wasInfluencedBy`` with a ``lineage:type`` attribute carries
the lineage relations PROV has no term for (``PART_OF``, ``INSTANCE_OF``, ...). A relation
keeps its ``lineage:*`` attributes and a single ``prov:role`` (as ``role``, where its
relationship declares one); any other attribute is counted, not kept.

>>> RELATIONS["wasGeneratedBy"]
('WAS_GENERATED_BY', 'prov:entity', 'prov:activity')
>>> uid_of_identifier("urn:lineage-explorer:host%3Anid1")
'host:nid1'
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from ... import model
from ...model.records import Edge, Node
from .vocabulary import NAMESPACE, PREFIX, plain

LIST_PREFIX = "list__"
#: PROV relation (PROV-N keyword) -> (lineage relationship type, the formal attributes
#: naming its start and its end) as ``lineage export`` writes our relationships.
RELATIONS = {
    "used": ("USED", "prov:activity", "prov:entity"),
    "wasGeneratedBy": ("WAS_GENERATED_BY", "prov:entity", "prov:activity"),
    "wasInformedBy": ("WAS_INFORMED_BY", "prov:informed", "prov:informant"),
    "wasDerivedFrom": ("WAS_DERIVED_FROM", "prov:generatedEntity", "prov:usedEntity"),
    "hadMember": ("HAD_MEMBER", "prov:collection", "prov:entity"),
    "wasAssociatedWith": ("WAS_ASSOCIATED_WITH", "prov:activity", "prov:agent"),
    "wasStartedBy": ("WAS_STARTED_BY", "prov:activity", "prov:starter"),
    "wasInfluencedBy": (None, "prov:influencee", "prov:influencer"),
}


def uid_of_identifier(uri: str) -> str | None:
    """The uid an identifier of our namespace names (None for another namespace's)."""
    if not uri.startswith(NAMESPACE):
        return None
    return unquote(uri[len(NAMESPACE):])


def lineage_props(attributes: list[tuple[str, Any]]) -> tuple[str | None, str | None, dict]:
    """The kind, uid and properties that ``lineage:*`` attributes carry; ValueError for an
    attribute that names no property (``lineage:`` or ``lineage:list__`` alone)."""
    kind = uid = None
    props: dict[str, Any] = {}
    for name, value in attributes:
        if not name.startswith(PREFIX + ":"):
            continue
        local = name[len(PREFIX) + 1:]
        if local == "kind":
            kind = str(value)
        elif local == "uid":
            uid = str(value)
        elif local.startswith(LIST_PREFIX):
            if not local[len(LIST_PREFIX):]:
                raise ValueError(f"attribute {name!r} names no property")
            props[local[len(LIST_PREFIX):]] = json.loads(str(value))
        elif not local:
            raise ValueError(f"attribute {name!r} names no property ({PREFIX}:<property>)")
        else:
            props[local] = plain(value)
    return kind, uid, props


def is_element(record) -> bool:
    """Whether an element record is one of ours (it names its lineage kind)."""
    return any(str(name) == f"{PREFIX}:kind" for name, _ in record.attributes)


def element(record, where: str) -> Node:
    """The node of one of our element records."""
    attributes = [(str(k), v) for k, v in record.attributes]
    kind_name, uid, props = lineage_props(attributes)
    kind = model.NODE_KINDS.get(kind_name or "")
    if kind is None or uid is None or model.kind_of_uid(uid) is not kind:
        raise ValueError(f"{where}: lineage:kind {kind_name!r} with lineage:uid {uid!r} "
                         "is not a kind and uid scheme of this model")
    return Node(kind, uid, props)


def is_relation(record) -> bool:
    """Whether a relation record joins two of our elements."""
    ends = [value for _, value in record.formal_attributes[:2]]
    return all(value is not None and uid_of_identifier(value.uri) is not None
               for value in ends)


def relation(record, name: str, where: str) -> tuple[Edge | None, list[str]]:
    """The relationship of one of our relation records (None for a relation this model has
    no term for), and the names of the attributes it does not keep."""
    spec = RELATIONS.get(name)
    if spec is None:
        return None, []
    rel_name, start_attr, end_attr = spec
    formal = {str(k): v for k, v in record.formal_attributes}
    start, end = formal.get(start_attr), formal.get(end_attr)
    if start is None or end is None:
        raise ValueError(f"{where}: a {name} without {start_attr} and {end_attr}")
    attributes = [(str(k), v) for k, v in record.attributes]
    _, _, props = lineage_props(attributes)
    rel_name = props.pop("type", None) if rel_name is None else rel_name
    if rel_name is None or rel_name not in model.REL_TYPES:
        return None, []
    rel = model.REL_TYPES[rel_name]
    key = props.pop("key", "")
    foreign = [(n, v) for n, v in attributes if not n.startswith(PREFIX + ":")
               and n not in (start_attr, end_attr) and v is not None]
    dropped = _keep_role(foreign, rel, props)
    return Edge(rel, uid_of_identifier(start.uri), uid_of_identifier(end.uri), props,
                key=key), dropped


def _keep_role(foreign: list[tuple[str, Any]], rel, props: dict) -> list[str]:
    """Put a relation's one ``prov:role`` on its edge as ``role`` when the relationship
    declares ``role`` and ``lineage:role`` did not set it; the names of the other attributes.

    >>> props = {}
    >>> _keep_role([("prov:role", "ex:input"), ("prov:time", 0)], model.USED, props), props
    (['prov:time'], {'role': 'ex:input'})
    """
    roles = [value for name, value in foreign if name == "prov:role"]
    if len(roles) == 1 and "role" in rel.props and "role" not in props:
        props["role"] = str(plain(roles[0]))
        return [name for name, _ in foreign if name != "prov:role"]
    return [name for name, _ in foreign]
