"""The writer's fast path for relationship ends: the element ids of the nodes it wrote.

A node statement returns the element ids of the nodes it wrote; a relationship whose ends
the writer wrote recently finds them by id (a record look-up) instead of seeking the uid
index twice, and checks their uids (ids of deleted nodes are reused, two uids may share a
hash): rows the check refuses are written again by uid. ``Writer(node_ids=0)`` turns it off;
tests/test_writer_ids.py holds both ways to the same graph.

>>> ids = NodeIds(limit=4)
>>> ids.remember(["a", "b"], ["4:x:1", "4:x:2"])
>>> ends(ids, "a", "b"), ends(ids, "a", "z")
(('4:x:1', '4:x:2'), None)
"""

from __future__ import annotations

from typing import Iterable

from .. import model
from .statements import edge_statement

#: How many nodes' element ids a writer remembers (about 45 MB at the limit); past it the
#: older half is forgotten, and relationships to those nodes look their ends up by uid.
NODE_IDS_LIMIT = 1 << 18


class NodeIds:
    """The element ids of the nodes a writer wrote, by uid: the newest, ``limit`` at most
    (two generations: when the newer fills half the limit, the older is dropped).

    An id is a hint: the relationship statements check the node's uid too, and write by uid
    what the check refuses (a deleted node's id is reused; two uids may share a hash).

    >>> ids = NodeIds(limit=4)
    >>> ids.remember(["a", "b", "c"], ["4:x:1", "4:x:2", "4:x:3"])
    >>> ids.get("b"), ids.get("c"), ids.get("z")
    ('4:x:2', '4:x:3', None)
    >>> ids.remember(["d", "e"], ["4:x:4", "4:x:5"])
    >>> ids.get("a"), ids.get("e")
    (None, '4:x:5')
    """

    def __init__(self, limit: int = NODE_IDS_LIMIT):
        self.half = max(limit // 2, 1)
        self._newer: dict[int, str] = {}
        self._older: dict[int, str] = {}

    def remember(self, uids: Iterable[str], ids: Iterable[str]) -> None:
        for uid, element_id in zip(uids, ids):
            if len(self._newer) >= self.half:
                self._older, self._newer = self._newer, {}
            self._newer[hash(uid)] = element_id

    def get(self, uid: str) -> str | None:
        key = hash(uid)
        found = self._newer.get(key)
        return self._older.get(key) if found is None else found


def ends(ids: NodeIds, start: str, end: str) -> tuple[str, str] | None:
    """The element ids of both ends of a relationship, when both are remembered."""
    a, b = ids.get(start), ids.get(end)
    return (a, b) if a is not None and b is not None else None


#: (type, keyed) -> the MERGE whose ends are found by element id
ID_EDGE_STATEMENTS = {(name, keyed): edge_statement(rel, keyed, by_id=True)
                      for name, rel in model.REL_TYPES.items() for keyed in (False, True)}
