"""The outcome of an activity: one closed list of statuses, and which of them count as failed.

Every kind that has an outcome declares its ``status`` property with the type ``status``
(:data:`lineage.model.core.TYPES`), so the model refuses any other word: a loader cannot
write a status this module does not list. Each such kind says in its ``outcome`` how its
source decides the status (a Pegasus job from its last attempt, an XALT run from its end
record's exit status, ...); everything after the load reads the stored ``status`` and these
names only: the ``:Failed`` label (:data:`FAILED_STATUSES`), the reports' colours and what
they never hide, ``why``, ``diff``, the OpenLineage export (:func:`run_state`) and the
templates, which get :func:`parameter` as ``$status``.

>>> sorted(STATUSES)[:3]
['failed', 'held', 'incomplete']
>>> run_state("failed"), run_state("succeeded"), run_state("running")
('FAIL', 'COMPLETE', None)
>>> parameter()["failures"]
['failed']
"""

from __future__ import annotations

from types import MappingProxyType

SUCCEEDED = "succeeded"
FAILED = "failed"
HELD = "held"
RUNNING = "running"
INCOMPLETE = "incomplete"
UNSUBMITTED = "unsubmitted"

#: Every status a node may hold, with the colour reports draw it in.
STATUSES = MappingProxyType({
    SUCCEEDED: "#2ca02c",
    FAILED: "#d62728",
    HELD: "#ff7f0e",
    RUNNING: "#1f77b4",
    INCOMPLETE: "#9edae5",
    UNSUBMITTED: "#c7c7c7",
})
#: The colour of a node without a status.
OTHER_STATUS_COLOUR = "#999999"
#: The colour of failure (the ``:Failed`` label and Chimbuko's anomalies in Neo4j Browser).
FAILURE_COLOUR = STATUSES[FAILED]

#: The statuses that count as failed: they carry the ``:Failed`` label, reports never hide
#: them in a group, OpenLineage reports them as ``FAIL``.
FAILED_STATUSES = frozenset({FAILED})
#: The statuses ``why`` lists as problems, worst first: failed, stopped by the scheduler,
#: never run (a job whose upstream failed).
PROBLEM_STATUSES = (FAILED, HELD, UNSUBMITTED)


def is_failed(status: str | None) -> bool:
    """Whether ``status`` counts as failed.

    >>> is_failed("failed"), is_failed("held"), is_failed(None)
    (True, False, False)
    """
    return status in FAILED_STATUSES


def run_state(status: str | None) -> str | None:
    """The OpenLineage run state of an activity that ended (``COMPLETE`` or ``FAIL``), None
    for one that has not (running, held, never submitted) or whose end is not known."""
    if is_failed(status):
        return "FAIL"
    return "COMPLETE" if status == SUCCEEDED else None


def parameter() -> dict:
    """The ``$status`` parameter of the templates: each status by its name, the lists
    ``failures`` (:data:`FAILED_STATUSES`) and ``problems`` (:data:`PROBLEM_STATUSES`), and
    ``rank``, each problem's place in that list (worst first), so that a template compares
    ``job.status IN $status.problems`` and spells no status."""
    names = {name: name for name in STATUSES}
    return {**names, "failures": sorted(FAILED_STATUSES), "problems": list(PROBLEM_STATUSES),
            "rank": {name: i for i, name in enumerate(PROBLEM_STATUSES)}}
