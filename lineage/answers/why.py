"""Why did it fail? A summary of a run or a job from the graph alone, by the explainer its
source declares for its kind (``views.explainers`` of ``lineage/sources/<source>/``): a
Pegasus workflow or job (pegasus-analyzer style), a Swift script run (its failed app
executions), an XALT execution (its exit status, a missing end record).

The summary opens with its answer: the first problem's deciding line (an explainer lists its
problems worst first, each with its deciding lines first, ``causes``), then what it blocked.

>>> sorted(explainers())
['Execution', 'Job', 'ScriptRun', 'Workflow']
>>> answer_of([{"what": "job", "name": "ls_ID1", "status": "failed", "exitcode": 2,
...             "causes": ["ls: invalid option -- 'z'"]},
...            {"what": "job", "name": "stage_out", "status": "unsubmitted", "blocked_by": "ls_ID1"}])
"job ls_ID1 failed (exit code 2): ls: invalid option -- 'z'; 1 job never ran, blocked by it"
"""

from __future__ import annotations

from ..errors import LineageError
from ..sources import registry
from .display import WhyAnswer

#: the facts of a problem shown beside its name, in this order
FACTS = ("status", "attempts", "exitcode", "signal", "exit_status", "host", "site", "job_id",
         "started", "held_reason", "detail")


def explainers() -> dict:
    """The explainer of each kind, as the sources declare them."""
    return dict(registry.views().explainers)


def answer_of(problems: list[dict]) -> str:
    """One sentence: the worst problem, how it ended and its deciding line; then how many
    parts it kept from running."""
    if not problems:
        return "no problem found"
    first = problems[0]
    ended = [f"{k.replace('exitcode', 'exit code').replace('_', ' ')} {first[k]}"
             for k in ("exitcode", "signal", "exit_status") if first.get(k) not in (None, "")]
    text = (f"{first['what']} {first.get('name') or first['uid']} {first.get('status') or '?'}"
            + (f" ({', '.join(ended)})" if ended else ""))
    cause = (first.get("causes") or first.get("output_tail") or [first.get("detail")])[0]
    if cause:
        text += f": {cause}"
    blocked = [p for p in problems if p.get("blocked_by")]
    if blocked:
        by = sorted({p["blocked_by"] for p in blocked})
        text += (f"; {len(blocked)} {first['what']}{'s' if len(blocked) != 1 else ''} never "
                 f"ran, blocked by {'it' if by == [first.get('name')] else ', '.join(by)}")
    return text


def why(lin, uid: str) -> WhyAnswer:
    """The failure summary of a node whose kind has an explainer: ``{answer, uid, kind,
    status, problems: [...]}``, worst problems first, each with its deciding lines first
    (``causes``)."""
    rows = lin.query("nodes", uids=[uid])
    if not rows:
        raise LineageError(f"no node with uid {uid!r} in the graph (see `lineage runs`)")
    node = rows[0]
    known = explainers()
    explain = known.get(node["kind"])
    if explain is None:
        raise LineageError(f"{uid} is a {node['kind']}; `why` explains "
                           f"{', '.join(sorted(known))} nodes")
    summary = explain(lin, node)
    return WhyAnswer({"answer": answer_of(summary["problems"]), **summary})
