"""The API's depth-bounded ancestry as it was before the templates bounded their own search
(a breadth-first search from Python: ``lineage_steps``, three levels a query, while the
frontier is small, else ``lineage_step``, a level a query; past 12 levels the template's
whole search, then the depth filter), and the ``ancestors`` / ``descendants`` templates'
text of then, kept only so bench/bench_queries.py, bench_ancestry_depth.py and
bench_ancestry_dense.py can run them side by side with the templates of now."""

from __future__ import annotations

COLUMNS = ["uid", "kind", "name", "depth", "status"]
#: the templates before: the whole search, then the depth filter (``True``: ancestors)
WHOLE_SEARCH = {
    True: """MATCH (start:Lineage {uid: $uid})
MATCH p = (start)-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]->(ancestor:Lineage)
WITH ancestor, min(length(p)) AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN ancestor.uid AS uid,
       ancestor.kind AS kind,
       coalesce(ancestor.name, ancestor.uid) AS name,
       depth,
       ancestor.status AS status
ORDER BY depth, uid
""",
    False: """MATCH (start:Lineage {uid: $uid})
MATCH p = (start)<-[:USED|WAS_GENERATED_BY|WAS_INFORMED_BY|WAS_DERIVED_FROM|HAD_MEMBER*1..]-(descendant:Lineage)
WITH descendant, min(length(p)) AS depth
WHERE $max_depth IS NULL OR depth <= $max_depth
RETURN descendant.uid AS uid,
       descendant.kind AS kind,
       coalesce(descendant.name, descendant.uid) AS name,
       depth,
       descendant.status AS status
ORDER BY depth, uid
""",
}

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

    >>> bounded_lineage(lin, uid, 4)   # two round trips   # doctest: +SKIP
    """
    if max_depth > BFS_LEVELS:  # deep: one search in the server beats a round trip per level
        return lin.graph.run_collected(WHOLE_SEARCH[upstream], {"uid": uid, "max_depth": max_depth},
                                       COLUMNS)
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


