"""Questions answered in Python over rows a template fetched (graph algorithms that pure
Cypher answers slowly): the critical path of a workflow with networkx's longest path.

>>> jobs = [{"job_uid": "a", "duration": 2.0, "parents": []},
...         {"job_uid": "b", "duration": 5.0, "parents": ["a"]},
...         {"job_uid": "c", "duration": 1.0, "parents": ["a"]}]
>>> [(r["job_uid"], r["cumulative"]) for r in longest_chain(jobs)]
[('a', 2.0), ('b', 7.0)]
"""

from __future__ import annotations

_START = object()  # a virtual first job, so that node weights become edge weights

#: Templates computed in Python: name -> (template that fetches the input, parameter name).
COMPUTED = {"pegasus/critical_path": ("pegasus/job_dag", "workflow")}
CRITICAL_PATH_COLUMNS = ["step", "job_uid", "job_id", "type", "status", "duration",
                         "start_time", "end_time", "cumulative", "total"]


def longest_chain(jobs: list[dict]) -> list[dict]:
    """The chain of dependent jobs whose summed ``duration`` is the largest, in execution
    order, each row with its running total (``cumulative``) and the chain's ``total``.

    ``jobs`` rows have ``job_uid``, ``duration`` and ``parents`` (uids of the jobs they
    depend on); parents outside ``jobs`` are ignored. Ties go to the job listed first.
    """
    import networkx as nx  # imported here: it costs ~0.17 s, and most commands never need it

    graph = nx.DiGraph()
    by_uid = {job["job_uid"]: job for job in jobs}
    graph.add_nodes_from([_START, *by_uid])
    for uid, job in by_uid.items():
        weight = float(job.get("duration") or 0.0)
        graph.add_edge(_START, uid, weight=weight)
        for parent in job.get("parents") or ():
            if parent in by_uid:
                graph.add_edge(parent, uid, weight=weight)
    if not by_uid:
        return []
    path = [uid for uid in nx.dag_longest_path(graph, weight="weight") if uid is not _START]
    rows, total = [], 0.0
    for step, uid in enumerate(path, 1):
        total += float(by_uid[uid].get("duration") or 0.0)
        rows.append({**by_uid[uid], "step": step, "cumulative": total})
    for row in rows:
        row["total"] = total
    return rows


def critical_path(lin, workflow: str) -> list[dict]:
    """The critical path of a Pegasus workflow (template ``pegasus/critical_path``)."""
    jobs = lin.query("pegasus/job_dag", workflow=workflow)
    return [{c: row.get(c) for c in CRITICAL_PATH_COLUMNS} for row in longest_chain(list(jobs))]
