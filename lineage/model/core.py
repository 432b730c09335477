"""The building blocks of the graph model: node kinds, relationship types and the relations
between kinds, each declared once with everything the rest of the package needs to know.

A :class:`NodeKind` holds a kind's label, W3C PROV role, uid scheme (the one place its uids
are built), declared properties with their types, indexed properties, display name, colour
and caption. A :class:`RelType` is a relationship type; a :class:`Relation` says which kinds
it joins. Source models (``lineage/sources/<source>/model.py``) declare their kinds and
relations with these classes; :mod:`lineage.model` collects them.

>>> JOB = NodeKind("Job", Role.ACTIVITY, "pegasus", uid_parts=("xwf_id", "job_id"),
...                props={"status": "string"})
>>> JOB.uid("wf-1", "ls_ID0000001")
'pegasus:job:wf-1:ls_ID0000001'
>>> JOB.uid("a:b", "c:d")          # every part but the last is escaped: uids are injective
'pegasus:job:a%3Ab:c:d'
>>> JOB.labels
('Lineage', 'Activity', 'Job')
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Callable, Mapping

BASE_LABEL = "Lineage"
RUN_LABEL = "Run"
LOAD_LABEL = "Load"  # bookkeeping of loads; deliberately not :Lineage (not provenance data)
#: On every node whose ``status`` is ``failed``, kept true after each load and unload
#: (:mod:`lineage.status_labels`): Neo4j Browser styles nodes by label only.
FAILED_LABEL = "Failed"
FAILED_STATUS = "failed"

#: Longest uid kept as it is; a longer one keeps its head and ends in a digest of the whole
#: (Neo4j cannot index a string key of more than about 8 KB; 1,024 characters of UTF-8 stay
#: below 4 KB).
MAX_UID_CHARS = 1024
#: Longest string an indexed property may hold (Neo4j's range-index key limit, with margin).
MAX_INDEXED_BYTES = 4000
INT64 = (-(2**63), 2**63 - 1)  # the integers Neo4j stores

#: Property types: Neo4j-storable scalars and homogeneous lists of them; ``json`` is a string
#: holding a JSON document (nested values such as a run's environment); ``scalar`` is any one
#: of the scalar types, ``any`` a scalar or a list of one scalar type (for families of
#: properties copied from a producer's record, such as a Chimbuko model's parameters).
TYPES = ("string", "integer", "float", "boolean", "json", "scalar", "any",
         "string[]", "integer[]", "float[]", "boolean[]")
_PY = {"string": str, "json": str, "integer": int, "float": (int, float), "boolean": bool,
       "scalar": (str, int, float, bool)}

#: Properties every node has: set by the writer (uid, kind, loads) or by every loader (name).
COMMON_PROPS = MappingProxyType({
    "uid": "string", "kind": "string", "name": "string", "loads": "string[]",
})


class Role(str, Enum):
    """The W3C PROV role of a node."""

    ENTITY = "Entity"
    ACTIVITY = "Activity"
    AGENT = "Agent"


class ModelError(ValueError):
    """A record the model does not allow: an undeclared property, a wrong type, a bad uid part.

    >>> str(ModelError("Job", "colour", "is not a declared property"))
    'Job.colour: is not a declared property'
    """

    def __init__(self, kind: str, prop: str | None, problem: str):
        self.kind, self.prop, self.problem = kind, prop, problem
        super().__init__(f"{kind}.{prop}: {problem}" if prop else f"{kind}: {problem}")

    def __reduce__(self):  # pickled as its parts (a reader in a child process raises it)
        return type(self), (self.kind, self.prop, self.problem)


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


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name == "any":
        if isinstance(value, list):
            return len({type(v) for v in value}) <= 1 and all(
                isinstance(v, (str, int, float, bool)) for v in value)
        return isinstance(value, (str, int, float, bool))
    base = type_name.removesuffix("[]")
    expected = _PY[base]
    if isinstance(value, bool) and base not in ("boolean", "scalar"):
        return False
    if type_name.endswith("[]"):
        return isinstance(value, list) and all(
            isinstance(v, expected) and (base == "boolean" or not isinstance(v, bool))
            for v in value)
    return isinstance(value, expected)


def _finite(value: Any) -> bool:
    values = value if isinstance(value, list) else (value,)
    for v in values:
        if isinstance(v, float) and not math.isfinite(v):
            return False
        if isinstance(v, int) and not isinstance(v, bool) and not INT64[0] <= v <= INT64[1]:
            return False
    return True


#: The declared types a value of exactly this Python type satisfies: a fast path for the
#: common case (one plain scalar) that gives what :func:`_type_ok` and :func:`_finite` give
#: (tests/test_model_fastpath.py checks the two agree on generated values).
_SCALAR_OK = {
    str: frozenset({"string", "json", "scalar", "any"}),
    int: frozenset({"integer", "float", "scalar", "any"}),
    float: frozenset({"float", "scalar", "any"}),
    bool: frozenset({"boolean", "scalar", "any"}),
}


_NO_TYPES: frozenset = frozenset()
#: The element type a list of each declared list type may hold with no further check but
#: the one :func:`_plain_list_ok` makes (lists of one plain type: the common case)
_LIST_OF = {"string[]": str, "boolean[]": bool, "integer[]": int, "float[]": float}


def _plain_list_ok(value: list, element: type) -> bool:
    """Whether ``value``, a non-empty list, holds only ``element`` values (exactly that type)
    that are storable; False means "ask the full checks", which decide the rest (a mixed,
    empty or subclass-holding list, an integer in a float list, a sum that overflows).

    >>> _plain_list_ok([1.5, 2.0], float), _plain_list_ok([1.5, float("nan")], float)
    (True, False)
    >>> _plain_list_ok(["a", 1], str), _plain_list_ok([2**63], int)
    (False, False)
    """
    if {type(v) for v in value} != {element}:
        return False
    if element is float:
        total = sum(value)  # inf or NaN if any is (or if the sum overflows: full checks)
        return total - total == 0.0
    if element is int:
        return INT64[0] <= min(value) and max(value) <= INT64[1]
    return True


def _scalar_ok(value: Any, type_name: str) -> bool | None:
    """Whether a plain ``str``/``int``/``float``/``bool`` value is of ``type_name`` and
    storable; None for any other value (lists, subclasses: ask the full checks).

    >>> _scalar_ok("x", "string"), _scalar_ok(2**70, "integer"), _scalar_ok([1], "any")
    (True, False, None)
    """
    t = type(value)
    ok = _SCALAR_OK.get(t)
    if ok is None:
        return None
    if type_name not in ok:
        return False
    if t is int:
        return INT64[0] <= value <= INT64[1]
    if t is float:
        return math.isfinite(value)
    return True


@dataclass(frozen=True)
class NodeKind:
    """One kind of node and everything known about it.

    ``uid_parts`` names the parts of the uid after ``<source>:<kind>:`` (``prefix`` overrides
    that head); a name ending in ``?`` may be empty. ``props`` maps each declared property to
    its type (see :data:`TYPES`); ``prop_families`` maps a name prefix to a type for families
    of properties such as ``meta_<key>``. ``caption`` lists the properties that name a node,
    first present wins; ``group_by`` the ones that name its group in large reports;
    ``identity`` the ones on which two inputs stating one uid must agree.
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
    #: declared property -> the plain Python types :func:`_scalar_ok` accepts for its type
    #: (``check``'s fast path, without a call per value)
    fast_types: Mapping[str, frozenset] = field(default_factory=dict, init=False, repr=False,
                                                compare=False)

    def __post_init__(self) -> None:
        if not self.label.isidentifier():
            raise ValueError(f"kind label {self.label!r} is not an identifier")
        object.__setattr__(self, "props", MappingProxyType({**COMMON_PROPS, **self.props}))
        object.__setattr__(self, "fast_types", MappingProxyType({
            name: frozenset(t for t, names in _SCALAR_OK.items() if type_name in names)
            | ({list} if type_name in _LIST_OF else set())
            for name, type_name in self.props.items()}))
        object.__setattr__(self, "prop_families", MappingProxyType(dict(self.prop_families)))
        for name, type_name in [*self.props.items(), *self.prop_families.items()]:
            if type_name not in TYPES:
                raise ValueError(f"{self.label}.{name}: unknown type {type_name!r}")
        for name in (*self.indexed, *self.identity):
            if name not in self.props:
                raise ValueError(f"{self.label}.{name}: indexed or identity but not declared")
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
        lineage.model.core.ModelError: Package.name: a uid part is missing (None or empty)
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
        lineage.model.core.ModelError: X.n: expected integer, got str
        """
        out = {}
        declared, fast, nothing = self.props, self.fast_types, _NO_TYPES
        for key, value in props.items():
            if value is None:
                continue
            t = type(value)  # the common case, a plain scalar of a declared property's type,
            if t in fast.get(key, nothing):  # decided here as _scalar_ok decides it
                if t is int:
                    if INT64[0] <= value <= INT64[1]:
                        out[key] = value
                        continue
                elif t is list:  # a copy, as the full checks make: the reader's is its own
                    if value and _plain_list_ok(value, _LIST_OF[declared[key]]):
                        out[key] = value[:]
                        continue
                elif t is not float or value - value == 0.0:  # not inf, not NaN
                    out[key] = value
                    continue
            type_name = declared.get(key) or self.declares(key)
            if type_name is None:
                raise ModelError(self.label, key, "is not a declared property")
            if _scalar_ok(value, type_name):  # the common case, decided at once
                out[key] = value
                continue
            if isinstance(value, tuple):
                value = list(value)
            if isinstance(value, list) and type_name.endswith("[]"):
                value = [v for v in value if v is not None]
            if not _type_ok(value, type_name):
                raise ModelError(self.label, key,
                                 f"expected {type_name}, got {type(value).__name__}")
            if not _finite(value):
                raise ModelError(self.label, key, f"{value!r} is not a finite 64-bit number")
            out[key] = value
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


#: Longest uid part :func:`remembering_uid` keeps (a hostile input's megabyte ids are built
#: each time instead, so the remembered parts stay within ``size`` x this many characters).
REMEMBERED_PART_CHARS = 256


class _NotRemembered(Exception):
    """A uid built from a part too long to keep in :func:`remembering_uid`'s cache."""

    def __init__(self, uid: str):
        super().__init__(uid)
        self.uid = uid


def remembering_uid(kind: NodeKind, size: int = 8192) -> Callable[..., str]:
    """``kind.uid`` that remembers the last ``size`` uids it built: a reader names one
    node again and again (every edge states both its ends; a Pegasus attempt has an event
    per state). ``typed``: ``True`` is not the integer 1 there (a bool part is refused); a
    part that cannot be a cache key (a list from a damaged record) goes to ``kind.uid``
    itself, which refuses it.

    >>> k = NodeKind("Rank", Role.AGENT, "s", uid_parts=("run", "rank"))
    >>> uid = remembering_uid(k)
    >>> uid("r", 3), uid("r", 3) == k.uid("r", 3)
    ('s:rank:r:3', True)
    >>> uid("r", True)
    Traceback (most recent call last):
    ...
    lineage.model.core.ModelError: Rank.rank: a uid part must be a string or an integer, not bool
    """
    def built(*parts: Any) -> str:
        made = kind.uid(*parts)
        for part in parts:  # a long part is not kept: memory stays bounded by ``size``
            if type(part) is str and len(part) > REMEMBERED_PART_CHARS:
                raise _NotRemembered(made)  # the cache keeps no entry for a call that raised
        return made

    remembered = functools.lru_cache(maxsize=size, typed=True)(built)

    def uid(*parts: Any) -> str:
        try:  # the parts are looked at only when the uid is built: a remembered one is a
            return remembered(*parts)  # cache lookup and no more
        except _NotRemembered as long_part:
            return long_part.uid
        except TypeError:  # unhashable part, or a wrong number of parts: the plain call says
            return kind.uid(*parts)
    uid.cache_info = remembered.cache_info  # type: ignore[attr-defined]
    return uid


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
            if _scalar_ok(value, type_name):
                out[key] = value
                continue
            if not _type_ok(value, type_name) or not _finite(value):
                raise ModelError(self.name, key, f"expected {type_name}, got {value!r}")
            out[key] = value
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
