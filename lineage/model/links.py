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

>>> sorted({rel.name for rel, *_ in LINKS})
['RAN_WITHIN', 'SAME_ACTIVITY']
"""

from __future__ import annotations

from .core import RelType

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
RELATIONS = ()
#: The links between kinds of different sources, by kind label (this module imports no
#: source): :mod:`lineage.model` declares those whose kinds are both there.
LINKS = (
    (SAME_ACTIVITY, "Invocation", "Execution", "kickstart and XALT saw one process"),
    (SAME_ACTIVITY, "AppExecution", "Execution", "Swift and XALT saw one process"),
    (RAN_WITHIN, "Execution", "JobInstance", "the XALT run ran in the job attempt"),
    (RAN_WITHIN, "ProgramRun", "Execution", "Chimbuko watched that XALT run"),
    (RAN_WITHIN, "ProgramRun", "Invocation", "Chimbuko watched that Pegasus process"),
)
