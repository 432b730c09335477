"""Pegasus names shared by every Pegasus input (BP streams, Stampede databases).

The uids are the same whichever input a fact comes from, so loading a run's ``.bp`` stream
and its ``stampede.db`` gives one graph.

>>> job_uid("wf-1", "ls_ID0000001")
'pegasus:job:wf-1:ls_ID0000001'
>>> decode_exitcode(512)
{'exitcode': 2, 'signal': None}
>>> decode_exitcode(9)
{'exitcode': None, 'signal': 9}
"""

from __future__ import annotations

from urllib.parse import unquote

from ... import model
from . import model as pegasus_model

#: Bound on the stdout / stderr text kept per job instance (characters).
MAX_TEXT = 8192


# the kinds' uid makers, remembering recent uids (a BP stream names an attempt once per event);
# bound as they are, not wrapped: a uid is asked for several times per event.
# job_instance_uid(xwf_id, job_id, submit_seq): a job attempt, keyed by monitord's submit
# sequence (``job_inst.id`` in BP streams, ``job_submit_seq`` in Stampede databases);
# invocation_uid(xwf_id, job_id, submit_seq, inv_id).
workflow_uid = model.remembering_uid(pegasus_model.WORKFLOW)
task_uid = model.remembering_uid(pegasus_model.TASK)
job_uid = model.remembering_uid(pegasus_model.JOB)
job_instance_uid = model.remembering_uid(pegasus_model.JOB_INSTANCE)
invocation_uid = model.remembering_uid(pegasus_model.INVOCATION)
file_uid = model.remembering_uid(pegasus_model.FILE)


def decode_exitcode(raw: int | None) -> dict:
    """Split a raw wait status into an exit code or a terminating signal.

    Pegasus stores the raw status (``512`` is exit code 2). Negative values are kept as
    they are (monitord writes ``-1`` for "unknown").

    >>> decode_exitcode(0)
    {'exitcode': 0, 'signal': None}
    >>> decode_exitcode(-1)
    {'exitcode': -1, 'signal': None}
    """
    if raw is None:
        return {"exitcode": None, "signal": None}
    if raw < 0:
        return {"exitcode": raw, "signal": None}
    if raw & 0x7F:
        return {"exitcode": None, "signal": raw & 0x7F}
    return {"exitcode": (raw >> 8) & 0xFF, "signal": None}


def decode_text(text: str | None, limit: int = MAX_TEXT) -> str | None:
    """Percent-decode job stdout/stderr text and bound its size.

    >>> decode_text("a%0Ab%27c")
    "a\\nb'c"
    """
    if text is None or text == "":
        return None
    decoded = unquote(text, errors="replace")
    if len(decoded) > limit:
        decoded = decoded[:limit] + f"\n[... {len(decoded) - limit} more characters cut]"
    return decoded


#: Job states that end an attempt, and what they mean for the job.
FAILED_STATES = frozenset(
    {"JOB_FAILURE", "POST_SCRIPT_FAILED", "PRE_SCRIPT_FAILED", "SUBMIT_FAILED", "JOB_ABORTED"}
)
SUCCESS_STATES = frozenset({"JOB_SUCCESS", "POST_SCRIPT_SUCCESS"})
#: The last states by which Pegasus's migration to schema version 0 (``versions/v0.py``)
#: gives an attempt recorded without an exit code (Pegasus 3.x, 4.2 and older) exit code
#: 256: failed. (:data:`SUCCESS_STATES` give 0; any other state, none.)
FAILED_BY_STATE = frozenset({"PRE_SCRIPT_FAILED", "SUBMIT_FAILED", "JOB_FAILURE",
                             "POST_SCRIPT_FAILED"})


def attempt_status(exitcode_raw: int | None, last_state: str | None,
                   by_state: bool = False) -> str:
    """The outcome of one attempt, the one rule every Pegasus input follows (the rule
    pegasus-statistics and pegasus-analyzer apply to a Stampede database: succeeded and
    failed by the exit code alone, ``stampede_statistics.get_total_succeeded_failed_jobs_status``):
    a recorded exit code decides (0 is success, anything else failure); without one, a last
    state of ``JOB_HELD`` is held, a last state that ends an attempt (failed, aborted, or a
    success state with no exit code) is incomplete (pegasus-statistics' "incomplete"), and
    anything else has no outcome yet (running).

    ``by_state`` is for inputs written before Pegasus recorded exit codes (3.x streams,
    databases before schema 0): the last state decides as Pegasus's own migration decides
    (a success state succeeded, a state of :data:`FAILED_BY_STATE` failed), as Pegasus 3.x's
    statistics counted a job succeeded when it reached ``JOB_SUCCESS``.

    >>> attempt_status(0, "POST_SCRIPT_FAILED"), attempt_status(256, "JOB_SUCCESS")
    ('succeeded', 'failed')
    >>> attempt_status(None, "JOB_ABORTED"), attempt_status(None, "JOB_HELD")
    ('incomplete', 'held')
    >>> attempt_status(None, "EXECUTE")
    'running'
    >>> attempt_status(None, "JOB_SUCCESS"), attempt_status(None, "JOB_SUCCESS", by_state=True)
    ('incomplete', 'succeeded')
    """
    if exitcode_raw is not None:
        return "succeeded" if exitcode_raw == 0 else "failed"
    if by_state and last_state in SUCCESS_STATES:
        return "succeeded"
    if by_state and last_state in FAILED_BY_STATE:
        return "failed"
    if last_state == "JOB_HELD":
        return "held"
    if last_state in FAILED_STATES or last_state in SUCCESS_STATES:
        return "incomplete"
    return "running"


def workflow_outcome(states: list[str], times: list[float | None], restart_count: int | None,
                     last_status: int | None, reason: str | None = None) -> dict:
    """A workflow's properties from its time-ordered states (``WORKFLOW_STARTED`` /
    ``WORKFLOW_TERMINATED``, one pair per start: rescue DAGs restart it), for BP streams and
    databases alike. The wall time is the sum over start/end pairs, as pegasus-statistics
    computes it; the start is the first start, the end the last end.

    >>> o = workflow_outcome(["WORKFLOW_STARTED", "WORKFLOW_TERMINATED"] * 2,
    ...                      [0.0, 10.0, 1000.0, 1004.0], 1, 0)
    >>> o["wall_time"], o["starts"], o["status"], o["end_time"]
    (14.0, 2, 'succeeded', 1004.0)
    """
    starts = [t for s, t in zip(states, times) if s == "WORKFLOW_STARTED"]
    ended = bool(states) and states[-1] == "WORKFLOW_TERMINATED"
    wall, opened = 0.0, None
    for state, t in zip(states, times):
        if state == "WORKFLOW_STARTED":
            opened = t
        elif state == "WORKFLOW_TERMINATED" and opened is not None and t is not None:
            wall, opened = wall + (t - opened), None
    return {
        "states": states, "state_times": times,
        "start_time": starts[0] if starts else None,
        "end_time": times[-1] if ended else None,
        "wall_time": wall if ended and starts else None,
        "restart_count": restart_count, "starts": len(starts),
        "exit_status": last_status if ended else None,
        "status": "running" if not ended else ("succeeded" if last_status == 0 else "failed"),
        "end_reason": reason if ended else None,
    }


def job_status(last_attempt_status: str | None) -> str:
    """The outcome of a job: its last attempt's, or ``unsubmitted`` without attempts.

    >>> job_status(None), job_status("failed")
    ('unsubmitted', 'failed')
    """
    return last_attempt_status or "unsubmitted"


def invocation_kind(task_submit_seq: int | None) -> str | None:
    """What an invocation ran: the task (seq >= 0), DAGMan's pre script (-1) or post script (-2).

    >>> invocation_kind(-2)
    'post'
    """
    if task_submit_seq is None:
        return None
    return {-1: "pre", -2: "post"}.get(task_submit_seq, "task" if task_submit_seq >= 0 else "other")


#: BP event (without ``stampede.``) -> the job state monitord stores for it; ``None`` entries
#: depend on the event's ``status`` (0: first, else second).
STATE_OF_EVENT: dict[str, tuple[str, str | None]] = {
    "job_inst.pre.start": ("PRE_SCRIPT_STARTED", None),
    "job_inst.pre.term": ("PRE_SCRIPT_TERMINATED", None),
    "job_inst.pre.end": ("PRE_SCRIPT_SUCCESS", "PRE_SCRIPT_FAILED"),
    "job_inst.submit.end": ("SUBMIT", "SUBMIT_FAILED"),
    "job_inst.held.start": ("JOB_HELD", None),
    "job_inst.held.end": ("JOB_RELEASED", None),
    "job_inst.main.start": ("EXECUTE", None),
    "job_inst.main.term": ("JOB_TERMINATED", "JOB_EVICTED"),
    "job_inst.main.end": ("JOB_SUCCESS", "JOB_FAILURE"),
    "job_inst.post.start": ("POST_SCRIPT_STARTED", None),
    "job_inst.post.term": ("POST_SCRIPT_TERMINATED", None),
    "job_inst.post.end": ("POST_SCRIPT_SUCCESS", "POST_SCRIPT_FAILED"),
    "job_inst.abort.info": ("JOB_ABORTED", None),
    "job_inst.image.info": ("IMAGE_SIZE", None),
    "job_inst.grid.submit.end": ("GRID_SUBMIT", "GRID_SUBMIT_FAILED"),
    "job_inst.globus.submit.end": ("GLOBUS_SUBMIT", "GLOBUS_SUBMIT_FAILED"),
}

#: Every spelling of an event key that Stampede streams have had, by the name the readers
#: use. Pegasus's loader undots a key and remaps it (``workflow_loader.py``, ``attr_remap``),
#: so ``job.id`` and ``exec_job.id`` (Pegasus 3.x monitord, e.g. in ``job_inst.host.info``)
#: both reach ``exec_job_id``; ``task.id`` and ``abs_task.id`` both reach ``abs_task_id``;
#: ``local.dur`` and ``local_duration`` (3.x ``job_inst.main.end``) both ``local_duration``.
KEY_ALIASES: dict[str, str] = {
    "local_duration": "local.dur",
    "exec_job.id": "job.id",
    "child.exec_job.id": "child.job.id",
    "parent.exec_job.id": "parent.job.id",
    "abs_task.id": "task.id",
    "child.abs_task.id": "child.task.id",
    "parent.abs_task.id": "parent.task.id",
    "wf.uuid": "xwf.id",
    "job_submit_seq": "job_inst.id",
    "task_submit_seq": "inv.id",
}


_OLDER_KEYS = frozenset(KEY_ALIASES)


def canonical_keys(event: dict[str, str]) -> int:
    """Rename the older spellings of ``event``'s keys (:data:`KEY_ALIASES`) in place; returns
    how many were renamed. A key already present in its current spelling wins.

    >>> ev = {"event": "job_inst.host.info", "exec_job.id": "mDiffFit_ID000085"}
    >>> canonical_keys(ev), ev["job.id"]
    (1, 'mDiffFit_ID000085')
    """
    if _OLDER_KEYS.isdisjoint(event):  # most streams have none: one set test per event
        return 0
    renamed = 0
    for old, new in KEY_ALIASES.items():
        if old in event:
            value = event.pop(old)
            if new not in event:
                event[new] = value
                renamed += 1
    return renamed


def task_of_edge_end(end: str, declared: set[str]) -> str:
    """The task id a ``task.edge`` end names. Pegasus 3.x names the ends by the job-qualified
    id (``mDiffFit_ID000085``) where ``task.info`` declares ``ID000085``: an undeclared end
    whose suffix after the last ``_`` is a declared task id is that task.

    >>> task_of_edge_end("mDiffFit_ID000085", {"ID000085"}), task_of_edge_end("x_1", set())
    ('ID000085', 'x_1')
    """
    if end in declared or "_" not in end:
        return end
    suffix = end.rsplit("_", 1)[1]
    return suffix if suffix in declared else end
