"""The building blocks of the graph model: node kinds, relationship types and the relations
between kinds, each declared once with everything the rest of the package needs to know.

A :class:`NodeKind` holds a kind's label, W3C PROV role, uid scheme (the one place its uids
are built), declared properties with their types, indexed properties, display name, colour
and caption. A :class:`RelType` is a relationship type; a :class:`Relation` says which kinds
it joins. Source models (``lineage/sources/<source>/model.py``) declare their kinds and
relations with these classes; :mod:`lineage.model` collects them.

>>> JOB = NodeKind("Job", Role.ACTIVITY, "pegasus", uid_parts=("xwf_id", "job_id"),
...                props={"status": "status"}, outcome="its last attempt's")
>>> JOB.uid("wf-1", "ls_ID0000001")
'pegasus:job:wf-1:ls_ID0000001'
>>> JOB.uid("a:b", "c:d")          # every part but the last is escaped: uids are injective
'pegasus:job:a%3Ab:c:d'
>>> JOB.labels
('Lineage', 'Activity', 'Job')
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Mapping

from . import fast
from .types import TYPES, ModelError, checked_value

__all__ = ["BASE_LABEL", "RUN_LABEL", "LOAD_LABEL", "CLAIM_LABEL", "FAILED_LABEL", "MAX_UID_CHARS",
           "MAX_INDEXED_BYTES", "COMMON_PROPS", "Role", "ModelError", "NodeKind", "RelType",
           "Relation", "escape_part", "bounded_uid", "TYPES"]

BASE_LABEL = "Lineage"
RUN_LABEL = "Run"
LOAD_LABEL = "Load"  # bookkeeping of loads; deliberately not :Lineage (not provenance data)
#: What each load stated of an element more than one load states (:mod:`lineage.load.claims`);
#: bookkeeping too, not :Lineage
CLAIM_LABEL = "Claim"
#: On every node whose ``status`` counts as failed (:data:`.status.FAILED_STATUSES`), kept
#: true after each load and unload (:mod:`lineage.load.status_labels`): Neo4j Browser styles nodes
#: by label only.
FAILED_LABEL = "Failed"

#: Longest uid kept as it is; a longer one keeps its head and ends in a digest of the whole
#: (Neo4j cannot index a string key of more than about 8 KB; 1,024 characters of UTF-8 stay
#: below 4 KB).
MAX_UID_CHARS = 1024
#: Longest string an indexed property may hold (Neo4j's range-index key limit, with margin).
MAX_INDEXED_BYTES = 4000
#: Properties every node has: set by the writer (uid, kind, loads) or by every loader (name).
COMMON_PROPS = MappingProxyType({
    "uid": "string", "kind": "string", "name": "string", "loads": "string[]",
})


class Role(str, Enum):
    """The W3C PROV role of a node."""

    ENTITY = "Entity"
    ACTIVITY = "Activity"
    AGENT = "Agent"


def escape_part(part: str) -> str:
    """A uid part with ``%`` and ``:`` percent-encoded, so the parts can be told apart.

    >>> escape_part("host:/usr/bin/x"), escape_part("100%")
    ('host%3A/usr/bin/x', '100%25')
    """
    return part.replace("%", "%25").replace(":", "%3A")


def bounded_uid(uid: str) -> str:
    """``uid`` itself, or for one longer than :data:`MAX_UID_CHARS` its head followed by
    ``#`` and the SHA-256 of the whole (still unique, and indexable by Neo4j).

    >>> len(bounded_uid("x:" + "a" * 5000)), bounded_uid("short")
    (1024, 'short')
    """
    if len(uid) <= MAX_UID_CHARS:
        return uid
    digest = hashlib.sha256(uid.encode("utf-8", "surrogatepass")).hexdigest()
    return uid[: MAX_UID_CHARS - len(digest) - 1] + "#" + digest


def _part_text(kind: str, name: str, value: Any) -> str:
    optional = name.endswith("?")
    if value is None or value == "":
        if optional:
            return ""
        raise ModelError(kind, name.rstrip("?"), "a uid part is missing (None or empty)")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ModelError(kind, name.rstrip("?"),
                         f"a uid part must be a string or an integer, not {type(value).__name__}")
    return str(value)


@dataclass(frozen=True)
class NodeKind:
    """One kind of node and everything known about it.

    ``uid_parts`` names the parts of the uid after ``<source>:<kind>:`` (``prefix`` overrides
    that head); a name ending in ``?`` may be empty. ``props`` maps each declared property to
    its type (see :data:`TYPES`); ``prop_families`` maps a name prefix to a type for families
    of properties such as ``meta_<key>``. ``caption`` lists the properties that name a node,
    first present wins; ``group_by`` the ones that name its group in large reports;
    ``identity`` the ones on which two inputs stating one uid must agree. A kind with an
    outcome declares ``status`` (of type ``status``) and says in ``outcome`` how its source
    decides it.
    """

    label: str
    role: Role
    source: str
    uid_parts: tuple[str, ...] = ()
    props: Mapping[str, str] = field(default_factory=dict)
    prop_families: Mapping[str, str] = field(default_factory=dict)
    run: bool = False
    extra_labels: tuple[str, ...] = ()
    indexed: tuple[str, ...] = ()
    display: str = ""
    colour: str = "#7f7f7f"
    caption: tuple[str, ...] = ("name",)
    group_by: tuple[str, ...] = ()
    prefix: str = ""
    doc: str = ""
    #: properties two records of one uid must agree on to be one node (when both state
    #: them): a record of another input that disagrees is a duplicate, not merged
    identity: tuple[str, ...] = ()
    #: how the source decides the ``status`` of a node of this kind (see :mod:`.status`)
    outcome: str = ""
    #: declared property -> the plain Python types :func:`.fast.scalar_ok` accepts for its
    #: type (``check``'s fast path, without a call per value)
    fast_types: Mapping[str, frozenset] = field(default_factory=dict, init=False, repr=False,
                                                compare=False)

    def __post_init__(self) -> None:
        if not self.label.isidentifier():
            raise ValueError(f"kind label {self.label!r} is not an identifier")
        object.__setattr__(self, "props", MappingProxyType({**COMMON_PROPS, **self.props}))
        object.__setattr__(self, "fast_types", MappingProxyType(fast.fast_types(self.props)))
        object.__setattr__(self, "prop_families", MappingProxyType(dict(self.prop_families)))
        for name, type_name in [*self.props.items(), *self.prop_families.items()]:
            if type_name not in TYPES:
                raise ValueError(f"{self.label}.{name}: unknown type {type_name!r}")
        for name in (*self.indexed, *self.identity):
            if name not in self.props:
                raise ValueError(f"{self.label}.{name}: indexed or identity but not declared")
        if "status" in self.props and (self.props["status"] != "status" or not self.outcome):
            raise ValueError(f"{self.label}.status: declare it of type status, and say in "
                             "outcome how the source decides it")
        if not self.prefix:
            object.__setattr__(self, "prefix", f"{self.source}:{self.label.lower()}")
        if not self.display:
            object.__setattr__(self, "display", self.label)

    @property
    def labels(self) -> tuple[str, ...]:
        """The node's labels: ``Lineage``, its role, its kind, and ``Run`` for runs."""
        base = (BASE_LABEL, self.role.value, self.label)
        return base + ((RUN_LABEL,) if self.run else ())

    def uid(self, *parts: Any) -> str:
        """The uid of the node with these uid parts (the one place uids are built).

        Every part but the declared last is escaped (:func:`escape_part`), and trailing
        optional parts that are empty are left out, so two different part lists never give
        one uid.

        >>> k = NodeKind("Package", Role.ENTITY, "xalt", uid_parts=("name", "version?"))
        >>> k.uid("numpy", None), k.uid("numpy", "1.2")
        ('xalt:package:numpy', 'xalt:package:numpy:1.2')
        >>> k.uid(None, "1")
        Traceback (most recent call last):
        ...
        lineage.model.types.ModelError: Package.name: a uid part is missing (None or empty)
        """
        if len(parts) != len(self.uid_parts):
            raise TypeError(f"{self.label}.uid takes {len(self.uid_parts)} parts "
                            f"({', '.join(self.uid_parts)}), got {len(parts)}")
        escaped = []
        last = len(parts) - 1
        for i, (name, value) in enumerate(zip(self.uid_parts, parts)):
            t = type(value)
            if t is str and value:
                text = value
            elif t is int:  # not bool: type(True) is bool
                text = str(value)
            else:
                text = _part_text(self.label, name, value)
            if i < last and ("%" in text or ":" in text):
                text = escape_part(text)
            escaped.append(text)
        while len(escaped) > 1 and escaped[-1] == "" and self.uid_parts[len(escaped) - 1][-1] == "?":
            escaped.pop()  # trailing optional parts left out (the others stay escaped)
        return bounded_uid(":".join([self.prefix, *escaped]))

    def declares(self, prop: str) -> str | None:
        """The declared type of ``prop`` on this kind (None when undeclared).

        >>> NodeKind("X", Role.ENTITY, "s", prop_families={"meta_": "string"}).declares("meta_a")
        'string'
        """
        found = self.props.get(prop)
        if found is None:
            for family, type_name in self.prop_families.items():
                if prop.startswith(family):
                    return type_name
        return found

    def check(self, props: dict[str, Any]) -> dict[str, Any]:
        """``props`` without ``None`` values, every one declared, of its type, storable.

        Raises :class:`ModelError` naming the property otherwise.

        >>> k = NodeKind("X", Role.ENTITY, "s", props={"n": "integer", "t": "string"})
        >>> k.check({"n": 1, "t": None})
        {'n': 1}
        >>> k.check({"n": "1"})
        Traceback (most recent call last):
        ...
        lineage.model.types.ModelError: X.n: expected integer, got str
        """
        return fast.check(self.label, props, self.props, self.fast_types, self.declares)

    def check_reference(self, props: dict[str, Any]) -> dict[str, Any]:
        """:meth:`check` by the reference rules alone (what its fast path is held equal to).

        >>> NodeKind("X", Role.ENTITY, "s", props={"n": "float"}).check_reference({"n": 2})
        {'n': 2}
        """
        out = {}
        for key, value in props.items():
            if value is None:
                continue
            type_name = self.declares(key)
            if type_name is None:
                raise ModelError(self.label, key, "is not a declared property")
            out[key] = checked_value(self.label, key, value, type_name)
        return out

    def index_problem(self, props: dict[str, Any]) -> str | None:
        """Why Neo4j could not index these values (an indexed string over the key limit).

        >>> k = NodeKind("F", Role.ENTITY, "s", props={"lfn": "string"}, indexed=("lfn",))
        >>> k.index_problem({"lfn": "x" * 5000})
        'property lfn holds 5000 bytes, more than Neo4j can index (4000)'
        """
        for name in self.indexed:
            value = props.get(name)
            if isinstance(value, str) and len(value) * 4 > MAX_INDEXED_BYTES:
                size = len(value.encode("utf-8", "surrogatepass"))
                if size > MAX_INDEXED_BYTES:
                    return (f"property {name} holds {size} bytes, more than Neo4j can "
                            f"index ({MAX_INDEXED_BYTES})")
        return None


@dataclass(frozen=True)
class RelType:
    """One relationship type; ``prov`` marks the generic W3C PROV lineage relations that
    ancestry follows; ``props`` are the properties any relationship of the type may carry."""

    name: str
    prov: bool = False
    doc: str = ""
    props: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (self.name.isidentifier() and self.name.isupper()):
            raise ValueError(f"relationship type {self.name!r} is not an upper-case identifier")
        object.__setattr__(self, "props", MappingProxyType({"loads": "string[]", **self.props}))

    def check(self, props: dict[str, Any]) -> dict[str, Any]:
        """``props`` without ``None`` values, each declared and of its type.

        >>> RelType("USED", props={"role": "string"}).check({"role": "input", "x": None})
        {'role': 'input'}
        """
        out = {}
        for key, value in props.items():
            if value is None:
                continue
            type_name = self.props.get(key)
            if type_name is None:
                raise ModelError(self.name, key, "is not a declared relationship property")
            if fast.scalar_ok(value, type_name):
                out[key] = value
                continue
            try:
                out[key] = checked_value(self.name, key, value, type_name)
            except ModelError:
                raise ModelError(self.name, key, f"expected {type_name}, got {value!r}") from None
        return out


@dataclass(frozen=True)
class Relation:
    """``(start kind)-[rel]->(end kind)``: one way a relationship type joins two kinds.

    >>> from lineage import model
    >>> r = Relation(model.PART_OF, model.HOST, model.HOST, "example")
    >>> r.pattern
    '(:Host)-[:PART_OF]->(:Host)'
    """

    rel: RelType
    start: NodeKind
    end: NodeKind
    doc: str = ""

    @property
    def pattern(self) -> str:
        return f"(:{self.start.label})-[:{self.rel.name}]->(:{self.end.label})"
