"""Kinds every source shares (hosts and users, one node each whoever names them) and the
properties of the ``:Load`` bookkeeping node.

>>> HOST.uid("nid00042"), USER.uid("alice")
('host:nid00042', 'user:alice')
"""

from __future__ import annotations

from types import MappingProxyType

from .core import NodeKind, Role

HOST = NodeKind(
    "Host", Role.AGENT, "common", uid_parts=("name",), prefix="host",
    props={"ip": "string", "total_memory": "integer", "uname": "string"},
    indexed=("name",), display="host", colour="#8c564b",
    doc="A machine a job, run or rank ran on (the same node for every source).")
USER = NodeKind(
    "User", Role.AGENT, "common", uid_parts=("name",), prefix="user",
    indexed=("name",), display="user", colour="#e377c2",
    doc="A user account that submitted or ran something.")

KINDS = (HOST, USER)
RELATIONS = ()

#: Properties of a ``:Load`` node (one per input: a file path or a database URL).
LOAD_PROPS = MappingProxyType({
    "uid": "string", "id": "string", "source": "string", "format": "string",
    "path": "string", "sha256": "string", "version": "integer", "tag": "string",
    "status": "string", "last_attempt": "string", "started_at": "float",
    "finished_at": "float", "seconds": "float", "node_records": "integer",
    "edge_records": "integer", "unresolved_edges": "integer", "counts": "json",
    "skipped": "json", "unknown": "json", "warnings": "json", "changes": "json",
    "error": "string", "times_loaded": "integer", "options": "json",
})
