"""Why did it fail? A summary of a run or a job from the graph alone, by the explainer its
source declares for its kind (``views.explainers`` of ``lineage/sources/<source>/``): a
Pegasus workflow or job (pegasus-analyzer style), a Swift script run (its failed app
executions), an XALT execution (its exit status, a missing end record).

>>> sorted(explainers())
['Execution', 'Job', 'ScriptRun', 'Workflow']
"""

from __future__ import annotations

from ..errors import LineageError
from ..sources import registry


def explainers() -> dict:
    """The explainer of each kind, as the sources declare them."""
    return dict(registry.views().explainers)


def why(lin, uid: str) -> dict:
    """The failure summary of a node whose kind has an explainer: ``{uid, kind, status,
    problems: [...]}``, worst problems first."""
    rows = lin.query("nodes", uids=[uid])
    if not rows:
        raise LineageError(f"no node with uid {uid!r} in the graph (see `lineage query runs`)")
    node = rows[0]
    known = explainers()
    explain = known.get(node["kind"])
    if explain is None:
        raise LineageError(f"{uid} is a {node['kind']}; `why` explains "
                           f"{', '.join(sorted(known))} nodes")
    return explain(lin, node)
