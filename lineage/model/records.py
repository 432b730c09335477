"""Plain records that loaders yield and the writer stores: nodes and edges keyed by uid.

>>> from lineage import model
>>> n = Node(model.kind("Job"), "pegasus:job:wf1:j1", {"job_id": "j1"})
>>> n.labels
('Lineage', 'Activity', 'Job')
>>> Edge(model.WAS_INFORMED_BY, "pegasus:job:wf1:j2", n.uid).rel.name
'WAS_INFORMED_BY'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Union

from .core import NodeKind, RelType
from .types import INT64




@dataclass(slots=True)
class Node:
    """A node: its kind, its globally unique uid, flat properties and optional extra labels.

    Properties are Neo4j-storable: scalars or homogeneous lists of scalars; ``None`` means
    "not known" and is dropped before writing (it never erases a value already stored).
    """

    kind: NodeKind
    uid: str
    props: dict[str, Any] = field(default_factory=dict)
    extra_labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for label in self.extra_labels:
            if label not in self.kind.extra_labels:
                raise ValueError(f"label {label!r} is not declared for kind {self.kind.label}")

    @property
    def labels(self) -> tuple[str, ...]:
        return self.kind.labels + self.extra_labels


@dataclass(slots=True)
class Edge:
    """A relationship from the node ``start`` to the node ``end`` (both uids).

    ``key`` distinguishes parallel edges of one type between the same two nodes (for
    example the parameter name of a Swift ``USED``); edges with equal keys merge.
    """

    rel: RelType
    start: str
    end: str
    props: dict[str, Any] = field(default_factory=dict)
    key: str = ""


Record = Union[Node, Edge]


def scalar_type(value: Any) -> str:
    """The type name a scalar property value has in Neo4j (and in GraphML and neo4j-admin
    CSV headers, which use the same names).

    >>> scalar_type(True), scalar_type(3), scalar_type(2.5), scalar_type("x")
    ('boolean', 'long', 'double', 'string')
    """
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    return "string"


def as_json(value: Any) -> str:
    """Encode a nested value (map, list of maps) as one JSON string property.

    >>> as_json({"b": 1, "a": [1, 2]})
    '{"a": [1, 2], "b": 1}'
    >>> as_json({None: 1, "a": 2})      # keys of mixed types are written as JSON writes them
    '{"a": 2, "null": 1}'
    """
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    except TypeError:  # keys that cannot be compared (None next to text): as JSON spells them
        plain = json.loads(json.dumps(value, ensure_ascii=False, default=str))
        return json.dumps(plain, sort_keys=True, ensure_ascii=False)


def clean_props(props: dict[str, Any]) -> dict[str, Any]:
    """Drop ``None`` values and check every value is storable by Neo4j.

    >>> clean_props({"a": 1, "b": None, "c": ["x", "y"]})
    {'a': 1, 'c': ['x', 'y']}
    """
    out: dict[str, Any] = {}
    for key, value in props.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            value = [v for v in value if v is not None]
            kinds = {type(v) for v in value}
            if not all(issubclass(t, (str, int, float, bool)) for t in kinds) or len(kinds) > 1:
                raise TypeError(f"property {key!r}: lists must hold one scalar type, got {kinds}")
            value = list(value)
        elif not isinstance(value, (str, int, float, bool)):
            raise TypeError(f"property {key!r}: {type(value).__name__} is not storable")
        for v in value if isinstance(value, list) else (value,):
            if isinstance(v, int) and not isinstance(v, bool) and not INT64[0] <= v <= INT64[1]:
                raise TypeError(f"property {key!r}: {v} does not fit a 64-bit integer")
        out[key] = value
    return out
