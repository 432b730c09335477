"""Relationship types shared by every source: the W3C PROV relations (the lineage relations
that ancestry follows, and the others PROV-DM defines), and the generic structure relations
(part of, instance of).

Upstream is always *outward*: follow these relations from a node to find what it came from.

Every PROV relation type may also carry what an imported PROV document states about one
relation record (:data:`PROV_RECORD_PROPS`): its identifier (``prov_id``), its time
(``time``, seconds since the epoch), the bundle it is stated in (``bundle``), and the
record itself, exactly, as a one-record PROV-JSON document (``prov_record``), which the
export writes back.

>>> [r.name for r in LINEAGE_RELS]
['USED', 'WAS_GENERATED_BY', 'WAS_INFORMED_BY', 'WAS_DERIVED_FROM', 'HAD_MEMBER']
>>> len(PROV_RELS), "prov_record" in WAS_ENDED_BY.props
(15, True)
"""

from __future__ import annotations

from .core import RelType

#: Properties of a relationship made from one relation record of an imported PROV document
#: (``key`` tells two records between the same two nodes apart: a digest of the record).
PROV_RECORD_PROPS = {"prov_id": "string", "time": "float", "bundle": "string",
                     "prov_record": "json", "key": "string"}


def _prov(name: str, lineage: bool, doc: str, **props: str) -> RelType:
    return RelType(name, lineage, doc, props={**PROV_RECORD_PROPS, **props})


# ---------------------------------------------------------------- PROV relations
USED = _prov("USED", True, "(activity)-[:USED]->(entity): the activity read or ran the entity",
             role="string", parameter="string", direction="string")
WAS_GENERATED_BY = _prov(
    "WAS_GENERATED_BY", True, "(entity)-[:WAS_GENERATED_BY]->(activity): made by it",
    parameter="string")
WAS_INFORMED_BY = _prov(
    "WAS_INFORMED_BY", True,
    "(activity)-[:WAS_INFORMED_BY]->(activity): the child used what the parent made")
WAS_DERIVED_FROM = _prov("WAS_DERIVED_FROM", True, "(entity)-[:WAS_DERIVED_FROM]->(entity)")
HAD_MEMBER = _prov("HAD_MEMBER", True, "(collection)-[:HAD_MEMBER]->(member)")
WAS_ASSOCIATED_WITH = _prov(
    "WAS_ASSOCIATED_WITH", False, "(activity)-[:WAS_ASSOCIATED_WITH]->(agent): ran on / by",
    role="string", site="string")
WAS_STARTED_BY = _prov(
    "WAS_STARTED_BY", False,
    "(activity)-[:WAS_STARTED_BY]->(its starter activity, or the trigger entity of a PROV "
    "document's wasStartedBy): e.g. a sub-workflow by the job that planned it")
WAS_ENDED_BY = _prov(
    "WAS_ENDED_BY", False, "(activity)-[:WAS_ENDED_BY]->(entity): ended by that trigger")
WAS_INVALIDATED_BY = _prov(
    "WAS_INVALIDATED_BY", False, "(entity)-[:WAS_INVALIDATED_BY]->(activity): ceased to be")
WAS_ATTRIBUTED_TO = _prov(
    "WAS_ATTRIBUTED_TO", False, "(entity)-[:WAS_ATTRIBUTED_TO]->(agent)")
ACTED_ON_BEHALF_OF = _prov(
    "ACTED_ON_BEHALF_OF", False, "(delegate agent)-[:ACTED_ON_BEHALF_OF]->(responsible agent)")
WAS_INFLUENCED_BY = _prov(
    "WAS_INFLUENCED_BY", False, "(influencee)-[:WAS_INFLUENCED_BY]->(influencer): any kind")
ALTERNATE_OF = _prov(
    "ALTERNATE_OF", False, "(entity)-[:ALTERNATE_OF]->(entity): two aspects of one thing")
SPECIALIZATION_OF = _prov(
    "SPECIALIZATION_OF", False, "(specific entity)-[:SPECIALIZATION_OF]->(general entity)")
MENTION_OF = _prov(
    "MENTION_OF", False,
    "(specific entity)-[:MENTION_OF]->(general entity), as described in a bundle")

#: The relations an ancestry query follows outward (upstream) and inward (downstream).
LINEAGE_RELS = (USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM, HAD_MEMBER)
#: Every relation of PROV-DM, as a relationship type.
PROV_RELS = (USED, WAS_GENERATED_BY, WAS_INFORMED_BY, WAS_DERIVED_FROM, HAD_MEMBER,
             WAS_ASSOCIATED_WITH, WAS_STARTED_BY, WAS_ENDED_BY, WAS_INVALIDATED_BY,
             WAS_ATTRIBUTED_TO, ACTED_ON_BEHALF_OF, WAS_INFLUENCED_BY, ALTERNATE_OF,
             SPECIALIZATION_OF, MENTION_OF)

# ---------------------------------------------------------------- structure
PART_OF = RelType(
    "PART_OF", doc="(part)-[:PART_OF]->(run or enclosing activity); an element of an imported "
    "PROV document is part of the document or bundle that describes or names it, each "
    "description (``prov_record``) a relationship of its own",
    props={"prov_record": "json", "key": "string"})
INSTANCE_OF = RelType("INSTANCE_OF", doc="(attempt)-[:INSTANCE_OF]->(the job or call it tries)")

REL_TYPES = (*PROV_RELS, PART_OF, INSTANCE_OF)
