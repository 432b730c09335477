"""Links between what different systems recorded of the same execution (``lineage link``).

Two relationship types, both written only by :mod:`lineage.linking`, never by a loader:

- ``SAME_ACTIVITY``: two records of one process (a Pegasus invocation or a Swift app
  execution and the XALT run of the binary it started). PROV has no "alternate" for
  activities (``prov:alternateOf`` is typed to entities), so this is its activity
  counterpart.
- ``RAN_WITHIN``: the start ran inside the end (an XALT run inside a Pegasus job attempt;
  a Chimbuko program run inside the XALT run or the Pegasus invocation that started it).
  PROV's nearest term is ``wasStartedBy`` with the enclosing activity as starter, but that
  says who started it, not what it is part of, so it is not reused.

PROV export writes both as ``prov:wasInfluencedBy`` with ``lineage:type`` (as every relation
PROV has no term for), so they read back unchanged.

Every link carries its evidence: the rule that made it, a confidence, the fields that
matched (``matched``) with both sides' values (``evidence``, JSON) and the clock skew allowed.

>>> sorted({r.rel.name for r in RELATIONS})
['RAN_WITHIN', 'SAME_ACTIVITY']
"""

from __future__ import annotations

from ..sources.chimbuko.model import PROGRAM_RUN
from ..sources.pegasus.model import INVOCATION, JOB_INSTANCE
from ..sources.swift.model import APP_EXECUTION
from ..sources.xalt.model import EXECUTION
from .core import Relation, RelType

_EVIDENCE = {"rule": "string", "confidence": "float", "matched": "string[]",
             "evidence": "json", "skew": "float"}

SAME_ACTIVITY = RelType(
    "SAME_ACTIVITY", doc="(record)-[:SAME_ACTIVITY]->(record of the same process elsewhere)",
    props=_EVIDENCE)
RAN_WITHIN = RelType(
    "RAN_WITHIN", doc="(activity)-[:RAN_WITHIN]->(the activity it ran inside, elsewhere)",
    props=_EVIDENCE)

KINDS = ()
REL_TYPES = (SAME_ACTIVITY, RAN_WITHIN)
RELATIONS = (
    Relation(SAME_ACTIVITY, INVOCATION, EXECUTION, "kickstart and XALT saw one process"),
    Relation(SAME_ACTIVITY, APP_EXECUTION, EXECUTION, "Swift and XALT saw one process"),
    Relation(RAN_WITHIN, EXECUTION, JOB_INSTANCE, "the XALT run ran in the job attempt"),
    Relation(RAN_WITHIN, PROGRAM_RUN, EXECUTION, "Chimbuko watched that XALT run"),
    Relation(RAN_WITHIN, PROGRAM_RUN, INVOCATION, "Chimbuko watched that Pegasus process"),
)
#: The link relationship types, by name.
LINK_TYPES = tuple(r.name for r in REL_TYPES)
