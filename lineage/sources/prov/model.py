"""The PROV part of the graph model: the documents, bundles, entities, activities and agents of
imported W3C PROV documents (documents ``lineage export`` wrote and signed keep their own
kinds instead: see :mod:`.trust`).

An element is one node per PROV role and full URI, whichever document or prefix names it:
its uid is ``prov:<role>:<URI>``. It holds a queryable view of its attributes
(``attr_<prefix>_<name>``, a list when an attribute has several values, ``label``,
``prov_type``, an activity's ``start_time`` / ``end_time``); the exact descriptions, typed
values and all, are on its ``PART_OF`` relationships to the document or bundle that states
them (``prov_record``), one relationship per description. A relation whose end is left out
(``-``) ends at a node of its own, identifier ``_:<digest>``, name ``-``.

A document is a run (``:Run``) of kind ``ProvDocument``, named by its content; a bundle is a
``ProvBundle`` of one document. Relations map to the shared PROV relationship types of
:mod:`lineage.model.prov`.

>>> PROV_ENTITY.uid("http://example.org/article")
'prov:entity:http://example.org/article'
>>> PROV_BUNDLE.uid("0f3a", "http://example.org/b1")
'prov:bundle:0f3a:http://example.org/b1'
"""

from __future__ import annotations

from itertools import product

from ...model.core import NodeKind, Relation, Role
from ...model.prov import (ACTED_ON_BEHALF_OF, ALTERNATE_OF, HAD_MEMBER, MENTION_OF, PART_OF,
                           SPECIALIZATION_OF, USED, WAS_ASSOCIATED_WITH, WAS_ATTRIBUTED_TO,
                           WAS_DERIVED_FROM, WAS_ENDED_BY, WAS_GENERATED_BY, WAS_INFLUENCED_BY,
                           WAS_INFORMED_BY, WAS_INVALIDATED_BY, WAS_STARTED_BY)

SOURCE = "prov"
_COMMON = {"identifier": "string", "label": "string", "prov_type": "string[]"}
_ATTRIBUTES = {"attr_": "any"}

PROV_ENTITY = NodeKind(
    "ProvEntity", Role.ENTITY, SOURCE, uid_parts=("identifier",), prefix="prov:entity",
    props=_COMMON, prop_families=_ATTRIBUTES, indexed=("identifier",), display="entity",
    colour="#bcbd22", caption=("label", "name"),
    doc="A prov:Entity of an imported PROV document.")
PROV_ACTIVITY = NodeKind(
    "ProvActivity", Role.ACTIVITY, SOURCE, uid_parts=("identifier",), prefix="prov:activity",
    props={**_COMMON, "start_time": "float", "end_time": "float"},
    prop_families=_ATTRIBUTES, indexed=("identifier",), display="activity", colour="#1f77b4",
    caption=("label", "name"), doc="A prov:Activity of an imported PROV document.")
PROV_AGENT = NodeKind(
    "ProvAgent", Role.AGENT, SOURCE, uid_parts=("identifier",), prefix="prov:agent",
    props=_COMMON, prop_families=_ATTRIBUTES, indexed=("identifier",), display="agent",
    colour="#e377c2", caption=("label", "name"), doc="A prov:Agent of an imported PROV document.")
PROV_DOCUMENT = NodeKind(
    "ProvDocument", Role.ENTITY, SOURCE, uid_parts=("sha256",), prefix="prov:document",
    run=True, props={"sha256": "string", "format": "string"}, display="PROV document",
    colour="#7f7f7f", doc="An imported PROV document (named by the SHA-256 of its content).")
PROV_BUNDLE = NodeKind(
    "ProvBundle", Role.ENTITY, SOURCE, uid_parts=("document", "identifier"),
    prefix="prov:bundle", props={"document": "string", "identifier": "string"},
    indexed=("identifier",), display="bundle", colour="#c7c7c7",
    doc="A named bundle of an imported PROV document (document: its SHA-256).")

ELEMENTS = (PROV_ENTITY, PROV_ACTIVITY, PROV_AGENT)
KINDS = (*ELEMENTS, PROV_DOCUMENT, PROV_BUNDLE)
REL_TYPES = ()

_E, _A, _G = PROV_ENTITY, PROV_ACTIVITY, PROV_AGENT
RELATIONS = (
    Relation(USED, _A, _E, "used"),
    Relation(WAS_GENERATED_BY, _E, _A, "wasGeneratedBy"),
    Relation(WAS_INVALIDATED_BY, _E, _A, "wasInvalidatedBy"),
    Relation(WAS_STARTED_BY, _A, _E, "wasStartedBy (its trigger)"),
    Relation(WAS_ENDED_BY, _A, _E, "wasEndedBy (its trigger)"),
    Relation(WAS_INFORMED_BY, _A, _A, "wasInformedBy"),
    Relation(WAS_ATTRIBUTED_TO, _E, _G, "wasAttributedTo"),
    Relation(WAS_ASSOCIATED_WITH, _A, _G, "wasAssociatedWith"),
    Relation(ACTED_ON_BEHALF_OF, _G, _G, "actedOnBehalfOf"),
    Relation(WAS_DERIVED_FROM, _E, _E, "wasDerivedFrom"),
    Relation(ALTERNATE_OF, _E, _E, "alternateOf"),
    Relation(SPECIALIZATION_OF, _E, _E, "specializationOf"),
    Relation(MENTION_OF, _E, _E, "mentionOf"),
    Relation(HAD_MEMBER, _E, _E, "hadMember"),
    *(Relation(WAS_INFLUENCED_BY, a, b, "wasInfluencedBy") for a, b in product(ELEMENTS, ELEMENTS)),
    *(Relation(PART_OF, k, PROV_DOCUMENT, "described or named in the document") for k in ELEMENTS),
    *(Relation(PART_OF, k, PROV_BUNDLE, "described or named in the bundle") for k in ELEMENTS),
    Relation(PART_OF, PROV_BUNDLE, PROV_DOCUMENT, "a bundle of the document"),
)
