"""The graph model: every node kind, relationship type and relation, declared once.

:mod:`.core` has the building blocks (with the property types of :mod:`.types`, checked
fast by :mod:`.fast`), :mod:`.status` the outcomes, :mod:`.prov` the relations every source
shares, :mod:`.common` the hosts and users every source shares, :mod:`.links` the links
between sources, :mod:`.records` the nodes and relationships readers yield; each source
declares its own kinds and relations in ``lineage/sources/<source>/model.py``. This module
collects them all (the one place the model looks up at the sources):
loaders build records from these declarations, the writer derives its statements and the
schema from them, templates and reports read kind names, colours and captions from them, and
the test suite checks that nothing writes or reads a label, relationship or property that is
not declared here.

Every node carries ``:Lineage``, a unique ``uid``, its ``kind`` as a property, one W3C PROV
role label (``:Entity``, ``:Activity``, ``:Agent``) and its kind label; a top-level execution
also carries ``:Run``.

>>> kind("Job").labels
('Lineage', 'Activity', 'Job')
>>> kind_of_uid("pegasus:job:wf-1:j1").label, kind_of_uid("host:nid001").label
('Job', 'Host')
>>> ("lineage_uid", "Lineage", "uid") in schema().unique
True
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import MappingProxyType

from .common import HOST, LOAD_PROPS, USER
from .core import (BASE_LABEL, CLAIM_LABEL, FAILED_LABEL, LOAD_LABEL, MAX_INDEXED_BYTES, MAX_UID_CHARS,
                   RUN_LABEL, NodeKind, Relation, RelType, Role, bounded_uid, escape_part)
from .fast import remembering_uid
from .types import ModelError
from .status import FAILED_STATUSES, OTHER_STATUS_COLOUR, PROBLEM_STATUSES, STATUSES
from .prov import (HAD_MEMBER, INSTANCE_OF, LINEAGE_RELS, PART_OF, USED, WAS_ASSOCIATED_WITH,
                   WAS_DERIVED_FROM, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_STARTED_BY)
from . import common as _common
from . import links as _links
from . import prov as _prov

__all__ = [
    "BASE_LABEL", "RUN_LABEL", "LOAD_LABEL", "CLAIM_LABEL", "FAILED_LABEL", "Role", "NodeKind", "RelType",
    "Relation", "ModelError", "HOST", "USER", "STATUSES", "FAILED_STATUSES",
    "PROBLEM_STATUSES", "OTHER_STATUS_COLOUR", "LOAD_PROPS",
    "USED", "WAS_GENERATED_BY", "WAS_INFORMED_BY", "WAS_DERIVED_FROM", "HAD_MEMBER",
    "WAS_ASSOCIATED_WITH", "WAS_STARTED_BY", "PART_OF", "INSTANCE_OF", "LINEAGE_RELS",
    "NODE_KINDS", "REL_TYPES", "RELATIONS", "ROLE_LABELS", "ALL_LABELS", "kind",
    "kind_of_uid", "relations_of", "schema", "Schema", "MAX_UID_CHARS", "MAX_INDEXED_BYTES",
    "bounded_uid", "escape_part", "remembering_uid",
]


def _collect():
    """Every source's model (``<package>.model`` of each source package) and the links
    between them: the one place the model looks up at the sources."""
    from ..sources import packages

    modules = [_common] + [importlib.import_module(f"{package}.model")
                           for package in packages()] + [_links]
    kinds: dict[str, NodeKind] = {}
    rels: dict[str, RelType] = {r.name: r for r in _prov.REL_TYPES}
    relations: list[Relation] = []
    for module in modules:
        for k in module.KINDS:
            if k.label in kinds:
                raise ValueError(f"kind {k.label} is declared twice")
            kinds[k.label] = k
        for r in getattr(module, "REL_TYPES", ()):
            if r.name in rels:
                raise ValueError(f"relationship type {r.name} is declared twice")
            rels[r.name] = r
        relations.extend(module.RELATIONS)
    relations.extend(Relation(rel, kinds[start], kinds[end], doc)
                     for rel, start, end, doc in _links.LINKS if start in kinds and end in kinds)
    return MappingProxyType(kinds), MappingProxyType(rels), tuple(relations)


#: Every node kind by label, every relationship type by name, and every declared
#: ``(start kind)-[type]->(end kind)`` relation.
NODE_KINDS, REL_TYPES, RELATIONS = _collect()

_BY_PREFIX = {k.prefix: k for k in NODE_KINDS.values()}
if len(_BY_PREFIX) != len(NODE_KINDS):
    raise ValueError("two kinds share a uid prefix")

#: Labels that are not kinds: the shared label, the PROV roles, Run, and extra labels.
ROLE_LABELS = (BASE_LABEL, *(r.value for r in Role), RUN_LABEL)
ALL_LABELS = frozenset(
    {LOAD_LABEL, CLAIM_LABEL, FAILED_LABEL, *ROLE_LABELS, *NODE_KINDS}
    | {x for k in NODE_KINDS.values() for x in k.extra_labels}
)


def kind(label: str) -> NodeKind:
    """The kind called ``label``; raises ``KeyError`` naming the known ones otherwise."""
    try:
        return NODE_KINDS[label]
    except KeyError:
        raise KeyError(f"no kind {label!r}; known: {', '.join(sorted(NODE_KINDS))}") from None


def kind_of_uid(uid: str) -> NodeKind | None:
    """The kind whose uid scheme ``uid`` follows (None for a uid of no known scheme).

    >>> kind_of_uid("pegasus:job:w:j").label, kind_of_uid("host:n1").label, kind_of_uid("x")
    ('Job', 'Host', None)
    """
    first = uid.find(":")  # the heads sliced off, not the whole uid split (every edge's ends)
    if first < 0:
        return _BY_PREFIX.get(uid)
    second = uid.find(":", first + 1)
    if second >= 0:
        found = _BY_PREFIX.get(uid[:second])
        if found is not None:
            return found
    return _BY_PREFIX.get(uid[:first])


def relations_of(rel: RelType | str) -> tuple[Relation, ...]:
    """The declared relations of one relationship type.

    >>> sorted(r.start.label for r in relations_of("INSTANCE_OF"))
    ['AppExecution', 'JobInstance']
    """
    name = rel if isinstance(rel, str) else rel.name
    return tuple(r for r in RELATIONS if r.rel.name == name)


@dataclass(frozen=True)
class Schema:
    """Constraints and indexes as (name, label, property) triples, created idempotently."""

    unique: tuple[tuple[str, str, str], ...] = field(default=())
    ranges: tuple[tuple[str, str, str], ...] = field(default=())


def schema() -> Schema:
    """The constraints and indexes the graph needs, derived from the kinds."""
    unique = (("lineage_uid", BASE_LABEL, "uid"), ("load_uid", LOAD_LABEL, "uid"))
    ranges = tuple(
        (f"{k.label.lower()}_{prop}", k.label, prop)
        for k in NODE_KINDS.values()
        for prop in k.indexed
    ) + (("load_path", LOAD_LABEL, "path"), ("lineage_status", BASE_LABEL, "status"),
         ("claim_of", CLAIM_LABEL, "claim_of"), ("claim_tag", CLAIM_LABEL, "claim_tag"))
    return Schema(unique=unique, ranges=ranges)
