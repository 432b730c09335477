"""The writer's Cypher, generated once from the model: fixed strings with ``$parameters``
only. Node labels travel as a parameter (``SET n:$($labels)``, so the ``MERGE`` stays on the
``:Lineage(uid)`` unique index); each relationship type has statements of its own (a dynamic
type in ``MERGE`` would scan every relationship). No value from input is ever spliced in;
names come from the model and are checked to be identifiers.

>>> "MERGE (a)-[r:USED]->(b)" in EDGE_STATEMENTS["USED"]
True
>>> "MERGE (n:Lineage {uid: row.uid})" in NODE_STATEMENT
True
"""

from __future__ import annotations

from .. import model


class Rows(list):
    """A statement's rows (``$rows``), as the driver sends them, with a short ``repr``: the
    driver formats every statement's parameters for its debug log whether that log is on
    or not, and for a batch of 20,000 rows that took two thirds of the call (0.30 s against
    0.11 s, measured); it also keeps provenance values out of a debug log.

    >>> Rows([{"uid": "a"}, {"uid": "b"}])
    <2 rows>
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"

# Nodes MERGE on the ``:Lineage(uid)`` unique index; ``ON CREATE`` / ``ON MATCH`` keep the
# plan free of ``Eager`` (a plain ``SET n += row.props`` after the MERGE makes Neo4j buffer
# the whole batch first: checked with EXPLAIN in tests/test_writer_plans.py). ``ON MATCH``
# appends the load's tag to the node's ``loads`` list once (no tag: the list is left as it
# is). A node no earlier version of this load can have touched (version 1, or a new node) is
# created with its tag alone.
_TAG_ON_CREATE = "CASE WHEN $tag IS NULL THEN null ELSE [$tag] END"


def _tag_on_match(var: str) -> str:
    return (f"CASE WHEN $tag IS NULL OR $tag IN coalesce({var}.loads, []) THEN {var}.loads "
            f"ELSE coalesce({var}.loads, []) + $tag END")


NODE_STATEMENT = """
UNWIND $rows AS row
MERGE (n:Lineage {uid: row.uid})
ON CREATE SET n += row.props, n:$($labels),
  n.loads = CASE WHEN $tag IS NULL THEN null ELSE [$tag] END
ON MATCH SET n += row.props, n:$($labels),
  n.loads = CASE WHEN $tag IS NULL OR $tag IN coalesce(n.loads, []) THEN n.loads
            ELSE coalesce(n.loads, []) + $tag END
RETURN collect(elementId(n)) AS ids
"""

# Nodes known to be new (the graph held no :Lineage node when the load began, and this load
# has not written the uid yet): CREATE, with no index look-up before it. A node another
# load created meanwhile fails the uniqueness constraint: the batch is rolled back and
# written again with NODE_STATEMENT. ``row.props`` holds ``uid`` and ``loads`` here (a
# CASE or a second SET item would bring the Eager back).
NODE_CREATE_STATEMENT = """
UNWIND $rows AS row
CREATE (n:Lineage:$($labels))
SET n = row.props
RETURN collect(elementId(n)) AS ids
"""

# A reload (version > 1) first clears the properties of the nodes that only earlier
# versions of this load stated, the first time this version writes them, so a changed
# input replaces its facts; ``$prefix`` is ``<load id>:``.
NODE_RESET_STATEMENT = """
UNWIND $rows AS row
MATCH (n:Lineage {uid: row.uid})
WHERE size(coalesce(n.loads, [])) > 0 AND NOT $tag IN n.loads
  AND all(t IN n.loads WHERE t STARTS WITH $prefix)
SET n = {uid: row.uid}
"""


# The nodes of ``rows`` that other loads already stated with other values of the kind's
# identity properties (see NodeKind.identity): ``$prefix`` is this load's tag prefix.
IDENTITY_STATEMENT = """
UNWIND $rows AS row
MATCH (n:Lineage {uid: row.uid})
WHERE any(t IN coalesce(n.loads, []) WHERE NOT t STARTS WITH $prefix)
  AND any(k IN keys(row.identity) WHERE n[k] IS NOT NULL AND n[k] <> row.identity[k])
RETURN row.uid AS uid,
       [k IN keys(row.identity) WHERE n[k] <> row.identity[k] | [k, n[k], row.identity[k]]]
         AS differ
"""


def _rel_props(rel: model.RelType, keyed: bool) -> list[str]:
    """The declared properties the statements of ``rel`` set one by one (a ``SET r +=
    row.props`` map would put an ``Eager`` in the plan)."""
    names = [p for p in rel.props if p != "loads" and not (keyed and p == "key")]
    for name in names:
        if not name.isidentifier():
            raise ValueError(f"{rel.name}: property {name!r} is not an identifier")
    return names


def edge_statement(rel: model.RelType, keyed: bool, reset: bool = False,
                    by_id: bool = False) -> str:
    """``MERGE`` of one relationship type (always MERGE: another load may have stated the
    same edge onto a node this one created); with ``reset``, a reload's first step for it
    (see NODE_RESET_STATEMENT); ``by_id``, its ends found by element id (``row.a``,
    ``row.b``) and only if their uids are ``row.start`` and ``row.end``."""
    if not rel.name.isidentifier() or not rel.name.isupper():
        raise ValueError(f"relationship type {rel.name!r} is not an upper-case identifier")
    if reset:
        key = " {key: row.key}" if keyed else ""
        return ("UNWIND $rows AS row\n"
                f"MATCH (:Lineage {{uid: row.start}})-[r:{rel.name}{key}]->(:Lineage {{uid: row.end}})\n"
                "WHERE size(coalesce(r.loads, [])) > 0 AND NOT $tag IN r.loads\n"
                "  AND all(t IN r.loads WHERE t STARTS WITH $prefix)\n"
                f"SET r = {{{'key: row.key' if keyed else ''}}}")
    names = _rel_props(rel, keyed)
    head = ("UNWIND $rows AS row\n"
            "MATCH (a:Lineage {uid: row.start}), (b:Lineage {uid: row.end})\n")
    if by_id:  # no label: with one, the planner seeks the uid index instead of the id
        head = ("UNWIND $rows AS row\n"
                "MATCH (a) WHERE elementId(a) = row.a AND a.uid = row.start\n"
                "MATCH (b) WHERE elementId(b) = row.b AND b.uid = row.end\n")
    key = " {key: row.key}" if keyed else ""
    on_create = ", ".join([f"r.`{p}` = row.props.`{p}`" for p in names]
                          + [f"r.loads = {_TAG_ON_CREATE}"])
    on_match = ", ".join([f"r.`{p}` = coalesce(row.props.`{p}`, r.`{p}`)" for p in names]
                         + [f"r.loads = {_tag_on_match('r')}"])
    return head + (f"MERGE (a)-[r:{rel.name}{key}]->(b)\n"
                   f"ON CREATE SET {on_create}\n"
                   f"ON MATCH SET {on_match}\n"
                   "RETURN sum(row.n) AS written")


EDGE_STATEMENTS = {name: edge_statement(rel, False) for name, rel in model.REL_TYPES.items()}
KEYED_EDGE_STATEMENTS = {name: edge_statement(rel, True) for name, rel in model.REL_TYPES.items()}
EDGE_RESET_STATEMENTS = {(name, keyed): edge_statement(rel, keyed, reset=True)
                         for name, rel in model.REL_TYPES.items() for keyed in (False, True)}


# ------------------------------------------------------------------ many inputs at once
# The statements of :mod:`.fleet`: a row is one element as the inputs of a batch state it
# together (their properties folded in order, their labels added up, ``row.tags`` their
# tags in order), so one statement carries every input of the batch. Labels travel in the
# row (``n:$(row.labels)``); the MERGE stays on the ``:Lineage(uid)`` unique index. The tags
# are appended as they are: a batch holds only first versions of inputs no write mark names
# (:func:`.fleet.batchable`), so no element holds them yet (looking for each in a hub's list
# of 10^5 tags cost more than the rest of the batch).
NODE_BATCH_STATEMENT = """
UNWIND $rows AS row
MERGE (n:Lineage {uid: row.uid})
ON CREATE SET n += row.props, n:$(row.labels), n.loads = row.tags
ON MATCH SET n += row.props, n:$(row.labels), n.loads = coalesce(n.loads, []) + row.tags
"""

#: An element's own properties as ``[key, value]`` pairs, without its bookkeeping (``uid``,
#: ``key``, and ``loads``: a hub's list of the loads that state it, which grows with every
#: run that names it; sent back with each batch, it made a 10^5-file fleet's batches slower
#: and its loading process larger as the fleet grew)
OWN_PROPERTIES = "[k IN keys({0}) WHERE NOT k IN ['uid', 'loads', 'key'] | [k, {0}[k]]]"

# What the graph holds of the nodes a batch names (``row.stated``: its properties and
# labels are asked for too), before the batch writes.
NODE_STATE_STATEMENT = """
UNWIND $rows AS row
MATCH (n:Lineage {uid: row.uid})
RETURN row.uid AS uid, size(coalesce(n.loads, [])) > 0 AS held,
       CASE WHEN row.stated THEN %s END AS props,
       CASE WHEN row.stated THEN labels(n) END AS labels,
       row.stated AND EXISTS { MATCH (:Claim {claim_of: row.uid}) } AS claimed
""" % OWN_PROPERTIES.format("n")


def edge_batch_statement(rel: model.RelType, keyed: bool) -> str:
    """As :func:`edge_statement` (ends by uid), for rows of many inputs (``row.tags``);
    returns the rows written."""
    if not rel.name.isidentifier() or not rel.name.isupper():
        raise ValueError(f"relationship type {rel.name!r} is not an upper-case identifier")
    names = _rel_props(rel, keyed)
    key = " {key: row.key}" if keyed else ""
    on_create = ", ".join([f"r.`{p}` = row.props.`{p}`" for p in names] + ["r.loads = row.tags"])
    on_match = ", ".join([f"r.`{p}` = coalesce(row.props.`{p}`, r.`{p}`)" for p in names]
                         + ["r.loads = coalesce(r.loads, []) + row.tags"])
    return ("UNWIND $rows AS row\n"
            "MATCH (a:Lineage {uid: row.start}), (b:Lineage {uid: row.end})\n"
            f"MERGE (a)-[r:{rel.name}{key}]->(b)\n"
            f"ON CREATE SET {on_create}\n"
            f"ON MATCH SET {on_match}\n"
            "RETURN count(*) AS written")


def edge_state_statement(rel: model.RelType, keyed: bool) -> str:
    """What the graph holds of relationships of type ``rel`` a batch states between nodes
    it already holds: whether loads state them, their properties, and whether claims of
    them exist (not the loads' tags: a hub's are thousands)."""
    if not rel.name.isidentifier() or not rel.name.isupper():
        raise ValueError(f"relationship type {rel.name!r} is not an upper-case identifier")
    key = " {key: row.key}" if keyed else ""
    return ("UNWIND $rows AS row\n"
            f"MATCH (:Lineage {{uid: row.start}})-[r:{rel.name}{key}]->(:Lineage {{uid: row.end}})\n"
            "RETURN row.i AS i, size(coalesce(r.loads, [])) > 0 AS held,\n"
            f"       {OWN_PROPERTIES.format('r')} AS props,\n"
            "       EXISTS { MATCH (:Claim {claim_of: row.of}) } AS claimed")


EDGE_BATCH_STATEMENTS = {(name, keyed): edge_batch_statement(rel, keyed)
                         for name, rel in model.REL_TYPES.items() for keyed in (False, True)}
EDGE_STATE_STATEMENTS = {(name, keyed): edge_state_statement(rel, keyed)
                         for name, rel in model.REL_TYPES.items() for keyed in (False, True)}
