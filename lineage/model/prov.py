"""Relationship types shared by every source: the W3C PROV lineage relations that ancestry
follows, and the generic structure relations (part of, instance of, started by).

Upstream is always *outward*: follow these relations from a node to find what it came from.

>>> [r.name for r in LINEAGE_RELS]
['USED', 'WAS_GENERATED_BY', 'WAS_INFORMED_BY', 'WAS_DERIVED_FROM', 'HAD_MEMBER']
"""

from __future__ import annotations

from .core import RelType

# ---------------------------------------------------------------- PROV relations
USED = RelType(
    "USED", True, "(activity)-[:USED]->(entity): the activity read or ran the entity",
    props={"role": "string", "parameter": "string", "direction": "string", "key": "string"})
WAS_GENERATED_BY = RelType(
    "WAS_GENERATED_BY", True, "(entity)-[:WAS_GENERATED_BY]->(activity): made by it",
    props={"parameter": "string", "key": "string"})
WAS_INFORMED_BY = RelType(
    "WAS_INFORMED_BY", True,
    "(activity)-[:WAS_INFORMED_BY]->(activity): the child used what the parent made")
WAS_DERIVED_FROM = RelType(
    "WAS_DERIVED_FROM", True, "(entity)-[:WAS_DERIVED_FROM]->(entity)")
HAD_MEMBER = RelType("HAD_MEMBER", True, "(collection)-[:HAD_MEMBER]->(member)")
WAS_ASSOCIATED_WITH = RelType(
    "WAS_ASSOCIATED_WITH", False, "(activity)-[:WAS_ASSOCIATED_WITH]->(agent): ran on / by",
    props={"role": "string", "site": "string", "key": "string"})
WAS_STARTED_BY = RelType(
    "WAS_STARTED_BY", False,
    "(activity)-[:WAS_STARTED_BY]->(activity): e.g. a sub-workflow by the job that planned it")

#: The relations an ancestry query follows outward (upstream) and inward (downstream).
LINEAGE_RELS = (USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM, HAD_MEMBER)

# ---------------------------------------------------------------- structure
PART_OF = RelType("PART_OF", doc="(part)-[:PART_OF]->(run or enclosing activity)")
INSTANCE_OF = RelType("INSTANCE_OF", doc="(attempt)-[:INSTANCE_OF]->(the job or call it tries)")

REL_TYPES = (USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM, HAD_MEMBER,
             WAS_ASSOCIATED_WITH, WAS_STARTED_BY, PART_OF, INSTANCE_OF)

# ---------------------------------------------------------------- in PROV documents
#: The namespace and prefix of this project's attributes in PROV documents (``lineage:kind``,
#: ``lineage:uid``, ``lineage:<property>``; lists as JSON text under ``lineage:list__<name>``),
#: which ``lineage export`` writes and the PROV reader takes back.
NAMESPACE = "urn:lineage-explorer:"
PREFIX = "lineage"
LIST_PREFIX = "list__"

#: PROV relation (as the prov package names its records) -> (lineage relationship type,
#: the formal attributes naming its start and its end); ``wasInfluencedBy`` carries the
#: relations PROV has no term for (with a ``lineage:type`` attribute).
PROV_RELATIONS = {
    "used": ("USED", "prov:activity", "prov:entity"),
    "wasGeneratedBy": ("WAS_GENERATED_BY", "prov:entity", "prov:activity"),
    "wasInformedBy": ("WAS_INFORMED_BY", "prov:informed", "prov:informant"),
    "wasDerivedFrom": ("WAS_DERIVED_FROM", "prov:generatedEntity", "prov:usedEntity"),
    "hadMember": ("HAD_MEMBER", "prov:collection", "prov:entity"),
    "wasAssociatedWith": ("WAS_ASSOCIATED_WITH", "prov:activity", "prov:agent"),
    "wasStartedBy": ("WAS_STARTED_BY", "prov:activity", "prov:starter"),
    "wasInfluencedBy": (None, "prov:influencee", "prov:influencer"),
}
