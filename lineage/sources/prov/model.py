"""The PROV part of the graph model: entities, activities and agents of imported W3C PROV
documents that name no lineage kind (documents ``lineage export`` wrote keep their kinds).

The element's PROV identifier is its uid part; its attributes become ``attr_<prefix>_<name>``
properties, its ``prov:type`` values ``prov_type``. Relations map to the shared PROV
relationship types of :mod:`lineage.model.prov` (this module declares none), whose declared
properties have no ``attr_`` family: a relation keeps one ``prov:role`` as ``role`` where the
type declares it, and the reader counts its other attributes instead of storing them.

>>> PROV_ENTITY.uid("ex:article")
'prov:entity:ex:article'
"""

from __future__ import annotations

from ...model.core import NodeKind, Relation, Role
from ...model.prov import (HAD_MEMBER, USED, WAS_ASSOCIATED_WITH, WAS_DERIVED_FROM,
                           WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_STARTED_BY)

SOURCE = "prov"
_COMMON = {"identifier": "string", "label": "string", "prov_type": "string[]",
           "document": "string"}
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

KINDS = (PROV_ENTITY, PROV_ACTIVITY, PROV_AGENT)
REL_TYPES = ()

RELATIONS = (
    Relation(USED, PROV_ACTIVITY, PROV_ENTITY, "used"),
    Relation(WAS_GENERATED_BY, PROV_ENTITY, PROV_ACTIVITY, "wasGeneratedBy"),
    Relation(WAS_INFORMED_BY, PROV_ACTIVITY, PROV_ACTIVITY, "wasInformedBy"),
    Relation(WAS_DERIVED_FROM, PROV_ENTITY, PROV_ENTITY, "wasDerivedFrom"),
    Relation(HAD_MEMBER, PROV_ENTITY, PROV_ENTITY, "hadMember"),
    Relation(WAS_ASSOCIATED_WITH, PROV_ACTIVITY, PROV_AGENT, "wasAssociatedWith"),
    Relation(WAS_STARTED_BY, PROV_ACTIVITY, PROV_ACTIVITY, "wasStartedBy (its starter)"),
)
