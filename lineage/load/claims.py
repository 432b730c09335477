"""Every property value a load states is that load's *claim*; unload takes back exactly its own.

A node or relationship stated by one load holds what that load stated, and nothing else is
stored; nor while every load that states it states the same (its properties and labels):
what it holds is then what each of them stated (a host or a library named by 10^5 XALT
runs keeps no claim of each run). The moment two loads state it differently, each load's
statement is kept as a ``:Claim`` bookkeeping node (not ``:Lineage``, no relationships): the properties that load stated,
plus ``claim_of`` (the node's uid, or ``<start> -[<TYPE> <key>]-> <end>`` for a
relationship), ``claim_tag`` (the load version's tag), ``claim_at`` (when that version was
written) and, for a node, ``claim_labels``; for a relationship ``claim_start``,
``claim_end``, ``claim_type`` and ``claim_key``. The element itself shows the claims folded
by the rule below; a claim is taken back when its load is unloaded or a new version of the
load no longer states the element, and the element is then recomputed from the claims
that remain (when those state the same, they are dropped: the element is again as one
load states it). Whether an element holds claims depends only on what its loads state,
not on how their records were batched (:data:`COLLAPSE` after each version).

The rule: **the newest load wins** (claims are folded in the order their versions were
written, later values over earlier ones, as the writes themselves did); two claims that
state different values of one property are a *conflict*: the load that makes it warns,
``lineage stats`` counts them and :func:`conflicts` lists them.

Statements are fixed strings; every value travels as a parameter.

>>> edge_of("CALLED_BY", "chimbuko:event:a", "chimbuko:event:b", "")
'chimbuko:event:a -[CALLED_BY]-> chimbuko:event:b'
>>> released("3f2a:2", "3f2a:", keep="3f2a:3"), released("3f2a:3", "3f2a:", keep="3f2a:3")
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable

from neo4j import Driver

from .. import model

CLAIM = model.CLAIM_LABEL
#: the bookkeeping properties of a claim (no kind declares a property of these names)
KEYS = ("claim_of", "claim_tag", "claim_at", "claim_labels", "claim_start", "claim_end",
        "claim_type", "claim_key")
#: labels a claim never takes away: the shared one, and the one derived from ``status``
FIXED_LABELS = [model.BASE_LABEL, model.FAILED_LABEL]
BATCH = 2000

for _kind in model.NODE_KINDS.values():
    for _name in (*_kind.props, *_kind.prop_families):
        if _name.startswith("claim_"):
            raise ImportError(f"{_kind.label}.{_name}: claim_ names are the claims' own")

if CLAIM != "Claim":  # the statements below spell the model's label
    raise ImportError(f"claims spell :Claim, the model says {CLAIM}")


def edge_of(rel: str, start: str, end: str, key: str | None) -> str:
    """What a relationship's claims name it by (``claim_of``); see :data:`_EDGE_OF`."""
    return f"{start} -[{rel}{' ' + key if key else ''}]-> {end}"


def released(tag: str, prefix: str, keep: str = "", only: str = "") -> bool:
    """Whether releasing load ``prefix`` (``<load id>:``) but ``keep``, or only ``only``,
    takes ``tag`` off (as :func:`lineage.load.loads.release` does)."""
    return tag.startswith(prefix) and tag != keep and (not only or tag == only)


# --------------------------------------------------------------------- on writing
# What a node without claims holds, made the claim of each load it names, at ``{at}`` (a
# Cypher expression): where a row states the node otherwise (:data:`NODE_CLAIMS`,
# :data:`HELD_NODE_CLAIMS`)
_HELD_OF_NODE = """UNWIND n.loads AS held
  CREATE (c:Claim)
  SET c = properties(n)
  REMOVE c.uid, c.loads
  SET c.claim_of = n.uid, c.claim_tag = held, c.claim_at = {at},
      c.claim_labels = [l IN $order WHERE l IN labels(n) AND NOT l IN $fixed]"""


# Run before a batch of nodes is MERGEd, for the rows of nodes another load stated too: a
# node without claims whose row states what it holds stays so; else, the first time, what
# it holds is the claim of each load it names (this version's too, if an earlier batch of
# it stated the node), and this version's claim gets the row (added up over the batches of
# one version, replaced by a new version). ``$at`` orders the claims (the newest wins);
# ``$order`` is LABEL_ORDER.
NODE_CLAIMS = """
UNWIND $rows AS row
MATCH (n:Lineage {uid: row.uid})
WHERE any(t IN coalesce(n.loads, []) WHERE NOT t STARTS WITH $prefix)
WITH n, row, EXISTS { MATCH (:Claim {claim_of: n.uid}) } AS claimed
WHERE claimed
   OR [l IN $order WHERE l IN labels(n) AND NOT l IN $fixed]
      <> [l IN $order WHERE l IN $labels AND NOT l IN $fixed]
   OR any(k IN keys(n) WHERE NOT k IN ['uid', 'loads'] AND NOT coalesce(n[k] = row.props[k], false))
   OR any(k IN keys(row.props) WHERE row.props[k] IS NOT NULL
                                AND NOT coalesce(n[k] = row.props[k], false))
CALL (n, claimed) {
  WITH n WHERE NOT claimed
  {held}
}
MERGE (c:Claim {claim_of: row.uid, claim_tag: $tag})
ON CREATE SET c += row.props, c.claim_at = $at,
  c.claim_labels = [l IN $order WHERE l IN $labels]
ON MATCH SET c += row.props,
  c.claim_labels = [l IN $order WHERE l IN $labels OR l IN c.claim_labels]
""".replace("{held}", _HELD_OF_NODE.replace("{at}", "CASE WHEN held = $tag THEN $at ELSE $at - 1 END"))

#: every label a claim may name, in the order claims list them (sorted: the same whoever
#: made the claim, the writer or a bulk load's fold)
LABEL_ORDER = sorted(model.ALL_LABELS)

_EDGE_OF = "row.start + ' -[' + $rel + coalesce(' ' + row.key, '') + ']-> ' + row.end"


def edge_claims_statement(rel: model.RelType, keyed: bool, held: bool = False) -> str:
    """As :data:`NODE_CLAIMS`, for the relationships of one type (found by their ends' uids
    and key); only types that declare properties have claims, and only where loads state
    them differently. ``held``: as :data:`HELD_NODE_CLAIMS` instead."""
    if not rel.name.isidentifier() or not rel.name.isupper():
        raise ValueError(f"relationship type {rel.name!r} is not an upper-case identifier")
    key = " {key: row.key}" if keyed else ""
    if held:
        return f"""
UNWIND $rows AS row
MATCH (:Lineage {{uid: row.start}})-[r:{rel.name}{key}]->(:Lineage {{uid: row.end}})
WHERE NOT EXISTS {{ MATCH (:Claim {{claim_of: row.of}}) }}
UNWIND r.loads AS held
CREATE (c:Claim)
SET c = properties(r)
REMOVE c.loads, c.key
SET c.claim_of = row.of, c.claim_tag = held, c.claim_at = row.at, c.claim_start = row.start,
    c.claim_end = row.end, c.claim_type = $rel, c.claim_key = row.key
"""
    return f"""
UNWIND $rows AS row
MATCH (:Lineage {{uid: row.start}})-[r:{rel.name}{key}]->(:Lineage {{uid: row.end}})
WHERE any(t IN coalesce(r.loads, []) WHERE NOT t STARTS WITH $prefix)
WITH r, row, {_EDGE_OF} AS of
WITH r, row, of, EXISTS {{ MATCH (:Claim {{claim_of: of}}) }} AS claimed
WHERE claimed
   OR any(k IN keys(r) WHERE NOT k IN ['loads', 'key'] AND NOT coalesce(r[k] = row.props[k], false))
   OR any(k IN keys(row.props) WHERE row.props[k] IS NOT NULL
                                AND NOT coalesce(r[k] = row.props[k], false))
CALL (r, row, of, claimed) {{
  WITH r, row, of WHERE NOT claimed
  UNWIND r.loads AS held
  CREATE (c:Claim)
  SET c = properties(r)
  REMOVE c.loads, c.key
  SET c.claim_of = of, c.claim_tag = held,
      c.claim_at = CASE WHEN held = $tag THEN $at ELSE $at - 1 END, c.claim_start = row.start,
      c.claim_end = row.end, c.claim_type = $rel, c.claim_key = row.key
}}
MERGE (c:Claim {{claim_of: of, claim_tag: $tag}})
ON CREATE SET c += row.props, c.claim_at = $at, c.claim_start = row.start,
  c.claim_end = row.end, c.claim_type = $rel, c.claim_key = row.key
ON MATCH SET c += row.props
"""


#: the relationship types that declare properties: only theirs have claims
CLAIMED_TYPES = frozenset(name for name, rel in model.REL_TYPES.items()
                          if any(p not in ("loads", "key") for p in rel.props))
#: (type, keyed) -> the claims statement of relationships of the types with properties
EDGE_CLAIMS = {(name, keyed): edge_claims_statement(model.REL_TYPES[name], keyed)
               for name in sorted(CLAIMED_TYPES) for keyed in (False, True)}

# For a batch of many inputs (:mod:`.fleet`): a node without claims that the graph's loads
# state alike and an input of the batch states otherwise gets the claim of each load it
# names, what it holds (``row.at``: just before that input's); done here, so a hub's
# thousands of tags never travel.
HELD_NODE_CLAIMS = """
UNWIND $rows AS row
MATCH (n:Lineage {uid: row.uid})
WHERE NOT EXISTS { MATCH (:Claim {claim_of: n.uid}) }
{held}
""".replace("{held}", _HELD_OF_NODE.replace("{at}", "row.at"))
#: (type, keyed) -> :data:`HELD_NODE_CLAIMS` of relationships of the types with properties
HELD_EDGE_CLAIMS = {(name, keyed): edge_claims_statement(model.REL_TYPES[name], keyed, True)
                    for name in sorted(CLAIMED_TYPES) for keyed in (False, True)}

#: Claims made elsewhere (a bulk load's fold), written as they are: rows ``{of, tag, at,
#: props, labels}`` of nodes, ``{of, tag, at, props, start, end, type, key}`` of
#: relationships
CREATE_CLAIMS = """
UNWIND $rows AS row
CREATE (c:Claim)
SET c = row.props, c.claim_of = row.of, c.claim_tag = row.tag, c.claim_at = row.at,
    c.claim_labels = row.labels, c.claim_start = row.start, c.claim_end = row.end,
    c.claim_type = row.type, c.claim_key = row.key
"""


# --------------------------------------------------------------------- on releasing
_HELD = """
MATCH (c:Claim) WHERE c.claim_tag STARTS WITH $prefix
RETURN c.claim_of AS of, c.claim_tag AS tag, c.claim_labels AS labels,
       c.claim_type IS NOT NULL AS edge
"""

_DROP = """
UNWIND $tags AS tag
MATCH (c:Claim {claim_tag: tag})
DELETE c
"""

# Whether claim ``o`` states what the first of ``claims`` states (its properties, not the
# bookkeeping ``$keys`` but the labels)
_SAME = ("all(k IN keys(o) WHERE k IN $keys OR o[k] = head(claims)[k]) "
         "AND all(k IN keys(head(claims)) WHERE k IN $keys OR head(claims)[k] = o[k]) "
         "AND coalesce(o.claim_labels, []) = coalesce(head(claims).claim_labels, [])")

# A node from its claims: its properties folded oldest first (the newest wins), the labels
# only taken-back claims gave it removed; claims left that all state the same are dropped.
_REFOLD_NODES = """
UNWIND $rows AS row
MATCH (n:Lineage {uid: row.of})
CALL (n) {
  MATCH (c:Claim {claim_of: n.uid})
  WITH c ORDER BY c.claim_at, c.claim_tag
  RETURN collect(c) AS claims
}
WITH n, row, claims WHERE size(claims) > 0
WITH n, row, claims, reduce(held = [], c IN claims | held + c.claim_labels) AS held
SET n = {uid: n.uid, loads: n.loads}
FOREACH (c IN claims | SET n += properties(c))
REMOVE n.claim_of, n.claim_tag, n.claim_at, n.claim_labels
REMOVE n:$([l IN row.gone WHERE NOT l IN held AND NOT l IN $fixed])
FOREACH (c IN CASE WHEN all(o IN claims WHERE {same}) THEN claims ELSE [] END
         | DELETE c)
""".replace("{same}", _SAME)

_REFOLD_EDGES = """
UNWIND $rows AS row
MATCH (c:Claim {claim_of: row.of})
WITH row, c ORDER BY c.claim_at, c.claim_tag
WITH row, collect(c) AS claims
WITH row, claims, head(claims) AS first
MATCH (:Lineage {uid: first.claim_start})-[r]->(:Lineage {uid: first.claim_end})
WHERE type(r) = first.claim_type AND coalesce(r.key, '') = coalesce(first.claim_key, '')
WITH r, claims, r.loads AS loads, r.key AS key
SET r = {}
SET r.loads = loads, r.key = key
FOREACH (c IN claims | SET r += properties(c))
REMOVE r.claim_of, r.claim_tag, r.claim_at, r.claim_start, r.claim_end, r.claim_type,
  r.claim_key
FOREACH (c IN CASE WHEN all(o IN claims WHERE {same}) THEN claims ELSE [] END
         | DELETE c)
""".replace("{same}", _SAME)

# After a version is written: the elements it claims whose claims all state the same (the
# version stated in two batches what another load states in one) drop them
COLLAPSE = """
MATCH (t:Claim {claim_tag: $tag})
WITH DISTINCT t.claim_of AS of
CALL (of) {
  MATCH (c:Claim {claim_of: of})
  WITH collect(c) AS claims
  WHERE all(o IN claims WHERE {same})
  FOREACH (c IN claims | DELETE c)
  RETURN size(claims) AS dropped
}
RETURN count(of) AS elements
""".replace("{same}", _SAME)

# Claims of elements no load states any more (deleted by the release)
_ORPHANS = """
UNWIND $ofs AS of
MATCH (c:Claim {claim_of: of})
WHERE CASE WHEN c.claim_type IS NULL
  THEN NOT EXISTS { MATCH (:Lineage {uid: c.claim_of}) }
  ELSE NOT EXISTS { MATCH (:Lineage {uid: c.claim_start})-[r]->(:Lineage {uid: c.claim_end})
                    WHERE type(r) = c.claim_type
                      AND coalesce(r.key, '') = coalesce(c.claim_key, '') }
  END
DELETE c
"""


def held(driver: Driver, database: str | None, prefix: str) -> list[dict]:
    """The claims of the versions of load ``prefix`` (``<load id>:``): ``{of, tag, labels,
    edge}``."""
    records, _, _ = driver.execute_query(_HELD, prefix=prefix, database_=database,
                                         routing_="r")
    return [dict(r) for r in records]


class Retraction:
    """Taking back the claims a release takes the tags of (see :func:`lineage.load.loads.release`):
    :meth:`drop` before the tags come off, :meth:`refold` after."""

    def __init__(self, driver: Driver, database: str | None, prefix: str, keep: str = "",
                 only: str = ""):
        self.driver, self.database = driver, database
        claims = held(driver, database, prefix)
        self.tags = sorted({c["tag"] for c in claims
                            if released(c["tag"], prefix, keep, only)})
        gone: dict[tuple[str, bool], set[str]] = {}
        for c in claims:
            # a new version (past the first) may state less than the one it replaces
            refreshed = c["tag"] == keep and not keep.endswith(":1")
            if c["tag"] in self.tags or refreshed:
                labels = gone.setdefault((c["of"], c["edge"]), set())
                if c["tag"] in self.tags:
                    labels.update(c["labels"] or ())
        self.nodes = [{"of": of, "gone": sorted(labels)}
                      for (of, edge), labels in gone.items() if not edge]
        self.edges = [{"of": of} for (of, edge) in gone if edge]

    def drop(self) -> None:
        """Delete the claims of the released tags."""
        if self.tags:
            self.driver.execute_query(_DROP, tags=self.tags, database_=self.database)

    def refold(self) -> None:
        """Recompute every element whose claims changed from the claims left."""
        for statement, rows in ((_REFOLD_EDGES, self.edges), (_REFOLD_NODES, self.nodes)):
            for i in range(0, len(rows), BATCH):
                self.driver.execute_query(statement, rows=rows[i:i + BATCH], keys=list(KEYS),
                                          fixed=FIXED_LABELS, database_=self.database)
        ofs = [r["of"] for r in self.nodes + self.edges]
        for i in range(0, len(ofs), BATCH):
            self.driver.execute_query(_ORPHANS, ofs=ofs[i:i + BATCH],
                                      database_=self.database)


def collapse(driver: Driver, database: str | None, tag: str) -> int:
    """Drop the claims of the elements load version ``tag`` claims whose claims all state
    the same (see :data:`COLLAPSE`); returns how many such elements there were."""
    records, _, _ = driver.execute_query(COLLAPSE, tag=tag, keys=list(KEYS),
                                         database_=database)
    return records[0]["elements"]


def same_statement(held: dict, labels: Iterable[str], props: dict,
                   stated_labels: Iterable[str]) -> bool:
    """Whether a row (``props``, ``stated_labels``) states what an element without claims
    holds (``held``: its properties without ``uid``, ``loads``, ``key``; ``labels``), the
    shared labels aside: then its loads keep no claims.

    >>> same_statement({"name": "c1"}, ["Lineage", "Host"], {"name": "c1"}, ["Host"])
    True
    >>> same_statement({"name": "c1", "cores": 4}, ["Host"], {"name": "c1"}, ["Host"])
    False
    """
    fixed = set(FIXED_LABELS)
    stated = {k: list(v) if isinstance(v, tuple) else v for k, v in props.items()
              if v is not None}
    return stated == held and set(labels) - fixed == set(stated_labels) - fixed


def all_same(statements: Iterable[tuple]) -> bool:
    """Whether claims (``(labels, props)`` each) all state the same: then none is kept.

    >>> all_same([(["Host"], {"name": "a"}), (["Host"], {"name": "a"})])
    True
    """
    first = None
    for labels, props in statements:
        if first is None:
            first = (sorted(labels), props)
        elif (sorted(labels), props) != first:
            return False
    return True


# --------------------------------------------------------------------- conflicts
# Two claims of one element that differ on a property both state; the first MATCH is either
# the claims of one load version (index seek on claim_tag) or every claim.
_CONFLICTS_TAIL = """
MATCH (o:Claim {claim_of: c.claim_of})
WHERE ($tag IS NULL AND o.claim_tag > c.claim_tag)
   OR ($tag IS NOT NULL AND NOT o.claim_tag STARTS WITH $prefix)
WITH c, o, [k IN keys(c) WHERE NOT k IN $keys AND o[k] IS NOT NULL AND o[k] <> c[k]] AS differ
WHERE size(differ) > 0
OPTIONAL MATCH (l:Load {uid: 'load:' + split(o.claim_tag, ':')[0]})
OPTIONAL MATCH (m:Load {uid: 'load:' + split(c.claim_tag, ':')[0]})
WITH c, o, differ, l, m,
     [p IN $parts WHERE l.path CONTAINS p | split(l.path, p)[0]][0] AS l_input,
     [p IN $parts WHERE m.path CONTAINS p | split(m.path, p)[0]][0] AS m_input
WHERE NOT coalesce(l_input = m_input, false)
WITH c.claim_of AS of, c.claim_tag AS tag, m.path AS path, o.claim_tag AS other,
     l.path AS other_path,
     [k IN differ | [k, c[k], o[k]]] AS differ, c.claim_at >= o.claim_at AS wins
ORDER BY of, tag, other
RETURN of, tag, path, other, other_path, differ, wins
"""
#: What names a part of an input in its load's path (``<input>#bytes=<a>-<b>``: an increment
#: of ``lineage watch``): the parts of one input state its successive values, which newer
#: parts replace, so two of them never conflict.
PART = "#bytes="
#: What names an increment of a database followed by its rows (``<input>#rows=<n>``, the
#: ``n``-th increment): a part of its input, as :data:`PART` is.
ROWS = "#rows="
#: Every marker of a part of an input.
PARTS = (PART, ROWS)

_CONFLICTS_OF = "MATCH (c:Claim {claim_tag: $tag})" + _CONFLICTS_TAIL
_CONFLICTS_ALL = "MATCH (c:Claim)" + _CONFLICTS_TAIL


def conflicts(driver: Driver, database: str | None, tag: str | None = None) -> list[dict]:
    """Claims that state different values of one property: ``{of, tag, path, other,
    other_path, differ: [[property, value of tag's claim, value of other's]], wins}``
    (``wins``: the claim of ``tag`` is the newer, its values are shown); all of the graph,
    or those of load version ``tag`` against other loads. The parts of one input (:data:`PARTS`)
    are not in conflict with each other."""
    prefix = tag.rsplit(":", 1)[0] + ":" if tag else None
    records, _, _ = driver.execute_query(_CONFLICTS_OF if tag else _CONFLICTS_ALL, tag=tag,
                                         prefix=prefix, keys=list(KEYS), parts=list(PARTS),
                                         database_=database, routing_="r")
    return [dict(r) for r in records]


def count(driver: Driver, database: str | None) -> dict[str, int]:
    """How many elements hold claims (loads state them differently), and how many of them
    hold conflicting ones (two inputs' values of one property)."""
    records, _, _ = driver.execute_query(_COUNT, keys=list(KEYS), parts=list(PARTS),
                                         database_=database, routing_="r")
    return {"shared": records[0]["shared"], "conflicting": records[0]["conflicting"]}


# An element's claims conflict when two of them, not parts of one input (:data:`PARTS`), hold
# two values of one property (as the pairs :func:`conflicts` lists): that is, when its
# claims of the property hold two values and come from two inputs. Counted in one pass
# over the claims, not pair by pair (a hub named by every XALT run holds a claim per run).
_COUNT = """
CALL () {
  MATCH (c:Claim) RETURN count(DISTINCT c.claim_of) AS shared
}
CALL () {
  MATCH (c:Claim)
  OPTIONAL MATCH (l:Load {uid: 'load:' + split(c.claim_tag, ':')[0]})
  WITH c, coalesce([p IN $parts WHERE l.path CONTAINS p | split(l.path, p)[0]][0],
                   c.claim_tag) AS input
  UNWIND [k IN keys(c) WHERE NOT k IN $keys] AS k
  WITH c.claim_of AS of, k, collect(DISTINCT c[k]) AS values, collect(DISTINCT input) AS inputs
  WHERE size(values) > 1 AND size(inputs) > 1
  RETURN count(DISTINCT of) AS conflicting
}
RETURN shared, conflicting
"""


def describe(rows: Iterable[dict]) -> list[str]:
    """One line per conflict, for warnings.

    >>> describe([{"of": "xalt:run:u", "path": "/a.json", "other_path": "/b.json",
    ...            "differ": [["exit_status", 1, 0]], "wins": True}])
    ["xalt:run:u: exit_status 1 in /a.json, 0 in /b.json; the newer load's value (/a.json's) is shown"]
    """
    lines = []
    for row in rows:
        what = "; ".join(f"{k} {mine!r} in {row['path']}, {theirs!r} in {row['other_path']}"
                         for k, mine, theirs in row["differ"][:3])
        more = f" (and {len(row['differ']) - 3} more)" if len(row["differ"]) > 3 else ""
        shown = row["path"] if row["wins"] else row["other_path"]
        lines.append(f"{row['of']}: {what}{more}; the newer load's value ({shown}'s) is shown")
    return lines


# --------------------------------------------------------------------- many loads at once
# The claims other loads hold of the elements a batch claims, grouped by what they state
# (a hub's thousands of claims usually state one thing): the values, how many, and the
# first ``$first`` tags (by tag) with their times.
_CLAIMS_OF = """
UNWIND $ofs AS of
MATCH (o:Claim {claim_of: of})
WITH of, [k IN keys(o) WHERE NOT k IN $keys | [k, o[k]]] AS values, o.claim_tag AS tag,
     o.claim_at AS at
ORDER BY tag
WITH of, values, collect([tag, at])[..$first] AS first
RETURN of, values, first
"""

_LOAD_PATHS = """
UNWIND $uids AS uid
MATCH (l:Load {uid: uid})
RETURN uid, l.path AS path
"""


def stated_by_others(tx, ofs: list[str], first: int = 20) -> dict[str, list[tuple]]:
    """In transaction ``tx``: the claims held of elements ``ofs`` (``claim_of``), grouped by
    their values: ``of -> [(values, [(tag, at), ...the first by tag]), ...]``."""
    found: dict[str, list[tuple]] = {}
    for r in tx.run(_CLAIMS_OF, ofs=ofs, keys=list(KEYS), first=first):
        found.setdefault(r["of"], []).append((dict(r["values"]), [tuple(x) for x in r["first"]]))
    return found


def load_paths(tx, tags: Iterable[str]) -> dict[str, str]:
    """In transaction ``tx``: the input path of the load of each tag."""
    uids = sorted({"load:" + t.split(":")[0] for t in tags})
    found = {r["uid"]: r["path"] for r in tx.run(_LOAD_PATHS, uids=uids)} if uids else {}
    return {t: found.get("load:" + t.split(":")[0]) for t in tags}


def batch_conflicts(made: list[dict], tags: list[str], before: dict[str, list[tuple]],
                    first: int = 20) -> dict[str, dict]:
    """The conflicts each load version of a batch (``tags``, in the order written) made, as
    :func:`conflicts` would have found each when it was written: ``made`` are the claims
    the batch creates (rows of :data:`CREATE_CLAIMS`), ``before`` the claims held before it
    (:func:`stated_by_others`). Per tag, the first ``first`` rows ``{of, tag, other, differ,
    wins}`` by element and other tag, and ``elements``: how many elements conflict. The
    claims of one element are compared by what they state (a hub's claims state one thing).

    >>> made = [{"of": "x", "tag": "a:1", "at": 2.0, "props": {"v": 1}}]
    >>> out = batch_conflicts(made, ["a:1"], {"x": [({"v": 0}, [("b:1", 1.0)])]})
    >>> out["a:1"]["rows"][0]["differ"], out["a:1"]["elements"]
    ([['v', 1, 0]], 1)
    """
    batch = set(tags)
    groups: dict[str, dict[str, tuple[dict, list]]] = {}  # of -> values -> (values, claims)
    for claim in made:
        key = repr(sorted(claim["props"].items()))
        groups.setdefault(claim["of"], {}).setdefault(key, (claim["props"], []))[1].append(claim)
    out: dict[str, dict] = {}
    for c in made:
        if c["tag"] not in batch:
            continue
        prefix = c["tag"].rsplit(":", 1)[0] + ":"
        rows = []
        for values, claims in groups[c["of"]].values():
            differ = _differ(c["props"], values) if values is not c["props"] else []
            if differ:
                rows.extend((o["tag"], o["at"], differ) for o in claims
                            if not o["tag"].startswith(prefix)
                            and (o["tag"] not in batch or o["at"] < c["at"]))
        for values, held in before.get(c["of"], []):
            differ = _differ(c["props"], values)
            if differ:
                rows.extend((tag, at, differ) for tag, at in held
                            if not tag.startswith(prefix))
        if rows:
            mine = out.setdefault(c["tag"], {"rows": [], "elements": 0})
            mine["elements"] += 1
            mine["rows"].extend({"of": c["of"], "tag": c["tag"], "other": tag, "differ": differ,
                                 "wins": c["at"] >= at} for tag, at, differ in rows)
    for mine in out.values():
        mine["rows"] = sorted(mine["rows"], key=lambda r: (r["of"], r["other"]))[:first]
    return out


def _differ(mine: dict, theirs: dict) -> list[list]:
    return [[k, v, theirs[k]] for k, v in mine.items()
            if k not in KEYS and theirs.get(k) is not None and theirs[k] != v]


def node_claim(uid: str, tag: str, at: float, props: dict, labels: Iterable[str]) -> dict:
    """A row of :data:`CREATE_CLAIMS`: what load version ``tag`` states of node ``uid``
    (``labels``: its labels, in :data:`LABEL_ORDER`, the fixed ones left out).

    >>> node_claim("host:a", "3f2a:1", 5.0, {"name": "a"}, ["Lineage", "Host", "Agent"])["labels"]
    ['Agent', 'Host']
    """
    wanted = set(labels) - set(FIXED_LABELS)
    return {"of": uid, "tag": tag, "at": at, "props": props,
            "labels": [x for x in LABEL_ORDER if x in wanted]}


def edge_claim(rel: str, start: str, end: str, key: str | None, tag: str, at: float,
               props: dict) -> dict:
    """A row of :data:`CREATE_CLAIMS`: what load version ``tag`` states of a relationship."""
    return {"of": edge_of(rel, start, end, key), "tag": tag, "at": at, "props": props,
            "start": start, "end": end, "type": rel, "key": key}
