"""What reading and writing W3C PROV share: the project's namespace, PROV's relations as
relationship types, the element kind each relation's ends take, and PROV values as
properties.

>>> RELATION_TYPES["wasEndedBy"].name
'WAS_ENDED_BY'
>>> END_KINDS["prov:delegate"].label, END_KINDS["prov:influencer"]
('ProvAgent', None)
>>> prop_name("ex:size"), prop_name("http://x.org/a#b c")
('attr_ex_size', 'attr_http_x_org_a_b_c')
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from ...model import prov as rels
from ...model.types import INT64
from .model import PROV_ACTIVITY, PROV_AGENT, PROV_ENTITY

#: The namespace of what ``lineage export`` writes (kinds, uids and properties).
NAMESPACE = "urn:lineage-explorer:"
PREFIX = "lineage"

#: PROV relation (its PROV-N keyword) -> the relationship type an imported one becomes; it
#: joins the relation's first two formal arguments (as PROV-O's unqualified properties do).
RELATION_TYPES = {
    "used": rels.USED, "wasGeneratedBy": rels.WAS_GENERATED_BY,
    "wasInvalidatedBy": rels.WAS_INVALIDATED_BY, "wasStartedBy": rels.WAS_STARTED_BY,
    "wasEndedBy": rels.WAS_ENDED_BY, "wasInformedBy": rels.WAS_INFORMED_BY,
    "wasAttributedTo": rels.WAS_ATTRIBUTED_TO, "wasAssociatedWith": rels.WAS_ASSOCIATED_WITH,
    "actedOnBehalfOf": rels.ACTED_ON_BEHALF_OF, "wasDerivedFrom": rels.WAS_DERIVED_FROM,
    "wasInfluencedBy": rels.WAS_INFLUENCED_BY, "alternateOf": rels.ALTERNATE_OF,
    "specializationOf": rels.SPECIALIZATION_OF, "mentionOf": rels.MENTION_OF,
    "hadMember": rels.HAD_MEMBER,
}

#: The kind of the element at a relation's first or second argument, by the argument's
#: name (PROV-CONSTRAINTS' typing); None: any role (``wasInfluencedBy``'s ends take the role
#: the document declares for them, else entity).
END_KINDS = {
    "prov:activity": PROV_ACTIVITY, "prov:entity": PROV_ENTITY, "prov:agent": PROV_AGENT,
    "prov:trigger": PROV_ENTITY, "prov:informed": PROV_ACTIVITY,
    "prov:informant": PROV_ACTIVITY, "prov:delegate": PROV_AGENT,
    "prov:responsible": PROV_AGENT, "prov:generatedEntity": PROV_ENTITY,
    "prov:usedEntity": PROV_ENTITY, "prov:specificEntity": PROV_ENTITY,
    "prov:generalEntity": PROV_ENTITY, "prov:alternate1": PROV_ENTITY,
    "prov:alternate2": PROV_ENTITY, "prov:collection": PROV_ENTITY,
    "prov:influencee": None, "prov:influencer": None,
}

#: An element's kind by its PROV record type.
ELEMENT_KINDS = {"entity": PROV_ENTITY, "activity": PROV_ACTIVITY, "agent": PROV_AGENT}


def prop_name(attribute: str) -> str:
    """The property name of an attribute: ``attr_`` and its name as an identifier."""
    return "attr_" + re.sub(r"[^0-9A-Za-z]+", "_", attribute).strip("_")


def epoch(value: Any) -> float | None:
    """Seconds since the epoch of a PROV time (a datetime; UTC when it names no zone), None
    for anything else.

    >>> epoch(dt.datetime(1970, 1, 1, 0, 1)), epoch("soon")
    (60.0, None)
    """
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return value.timestamp()
    return None


def plain(value: Any) -> Any:
    """A PROV attribute value as a storable scalar: numbers and booleans as they are, a
    typed or language-tagged literal as its text, a qualified name as ``prefix:local``, a
    time in ISO 8601.

    >>> plain(3), plain(dt.datetime(2012, 3, 31, 9, 21)), plain(float("nan")), plain(2**70)
    (3, '2012-03-31T09:21:00', 'nan', '1180591620717411303424')
    """
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):  # Neo4j stores finite numbers: the others as text
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, int):
        return value if INT64[0] <= value <= INT64[1] else str(value)
    if isinstance(value, dt.datetime):
        return value.isoformat()
    literal = getattr(value, "value", None)  # prov.model.Literal: its lexical form
    if isinstance(literal, str):
        return literal
    return str(value)


def plain_values(values: list[Any]) -> Any:
    """One attribute's values as one property: a scalar for one value, a list of one type
    for several (all as text when their types differ).

    >>> plain_values([1]), plain_values([1, 2]), plain_values([1, "a"])
    (1, [1, 2], ['1', 'a'])
    """
    out = [plain(v) for v in values]
    if len(out) == 1:
        return out[0]
    if len({type(v) for v in out}) > 1:
        return [str(v) for v in out]
    return out
