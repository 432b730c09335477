"""Questions answered in Python over rows a template fetched (graph algorithms that pure
Cypher answers slowly): the critical path of a workflow with networkx's longest path.

>>> jobs = [{"job_uid": "a", "duration": 2.0, "parents": []},
...         {"job_uid": "b", "duration": 5.0, "parents": ["a"]},
...         {"job_uid": "c", "duration": 1.0, "parents": ["a"]}]
>>> [(r["job_uid"], r["cumulative"]) for r in longest_chain(jobs)]
[('a', 2.0), ('b', 7.0)]
"""

from __future__ import annotations

from . import templates

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


#: Frontier uids sent to Neo4j per step query.
STEP_BATCH = 10_000
#: Levels searched per ``lineage_steps`` query (its pattern's own ``*1..3``)
STEP_LEVELS = 3
#: A larger frontier is searched a level per query (template ``lineage_step``: one search
#: over the whole frontier): ``lineage_steps`` searches from each frontier node apart, which
#: repeats the work where their reaches overlap (dense layers, 200 nodes each derived from
#: all 200 above: about 1 s against 42-52 ms a level per query at depths 5 and 6;
#: bench/bench_ancestry_dense.py, README)
STEPS_FRONTIER = 32
#: Deepest ``max_depth`` searched level by level (a query per three levels); a deeper bound
#: is one query of the template (its whole search, then the depth filter): past a few levels
#: the round trips cost more than the whole search (bench/bench_queries.py)
BFS_LEVELS = 12


def bounded_lineage(lin, uid: str, max_depth: int, upstream: bool = True) -> list[dict]:
    """Ancestors (or descendants) of ``uid`` up to ``max_depth`` hops, each at its shortest
    distance: the rows of the ``ancestors`` / ``descendants`` templates, found up to three
    levels at a time (template ``lineage_steps``, from the nodes reached at the last level)
    while the frontier is small, a level at a time (``lineage_step``) when it is not, so the
    search stops at ``max_depth`` instead of exploring the whole graph and filtering
    afterwards; a bound past ``BFS_LEVELS`` is one query of the template instead.

    >>> lin.query("ancestors", uid=uid, max_depth=4)   # two round trips   # doctest: +SKIP
    """
    if max_depth > BFS_LEVELS:  # deep: one search in the server beats a round trip per level
        template = templates.get("ancestors" if upstream else "descendants")
        return lin.graph.run_collected(
            template.text, template.bind({"uid": uid, "max_depth": max_depth}),
            template.returns)
    seen = {uid}
    frontier, rows, depth = [uid], [], 0
    while frontier and depth < max_depth:
        levels = min(STEP_LEVELS, max_depth - depth)
        if levels == 1 or len(frontier) > STEPS_FRONTIER:  # lineage_steps searches 3 levels
            levels, step_template, extra = 1, "lineage_step", {}
        else:
            step_template, extra = "lineage_steps", {"levels": levels}
        found: dict[str, dict] = {}  # uid -> its row, at its fewest steps from the frontier
        for i in range(0, len(frontier), STEP_BATCH):
            for row in lin.query(step_template, uids=frontier[i:i + STEP_BATCH],
                                 upstream=upstream, **extra):
                row.setdefault("steps", 1)
                have = found.get(row["uid"])
                if have is None or row["steps"] < have["steps"]:
                    found[row["uid"]] = row
        # every node at exactly `depth` hops was in the frontier, so a node not seen yet is
        # `depth + steps` hops away; one seen before is nearer
        new = sorted((r for u, r in found.items() if u not in seen),
                     key=lambda r: (r["steps"], r["uid"]))
        seen.update(r["uid"] for r in new)
        rows += [{"uid": r["uid"], "kind": r["kind"], "name": r["name"],
                  "depth": depth + r["steps"], "status": r["status"]} for r in new]
        frontier = [r["uid"] for r in new if r["steps"] == levels]
        depth += levels
    return rows


def critical_path(lin, workflow: str) -> list[dict]:
    """The critical path of a Pegasus workflow (template ``pegasus/critical_path``)."""
    jobs = lin.query("pegasus/job_dag", workflow=workflow)
    return [{c: row.get(c) for c in CRITICAL_PATH_COLUMNS} for row in longest_chain(list(jobs))]
