"""The model's fast paths, apart from its rules: checking a record's plain values at one
look-up each, and a cache of the uids a reader builds again and again.

Each gives what the reference gives (:func:`lineage.model.types.checked_value`, and
:meth:`lineage.model.core.NodeKind.uid` itself); tests/test_model_fastpath.py holds them
equal on generated values, near misses included (bools as integers, integers past 64 bits,
NaN, subclasses of str and int).

>>> scalar_ok("x", "string"), scalar_ok(2**70, "integer"), scalar_ok([1], "any")
(True, False, None)
>>> plain_list_ok([1.5, 2.0], float), plain_list_ok([1.5, float("nan")], float)
(True, False)
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Mapping

from .types import INT64, ModelError, checked_value

#: The declared types a value of exactly this Python type satisfies: the common case (one
#: plain scalar) decided at one look-up.
SCALAR_OK = {
    str: frozenset({"string", "json", "scalar", "any"}),
    int: frozenset({"integer", "float", "scalar", "any"}),
    float: frozenset({"float", "scalar", "any"}),
    bool: frozenset({"boolean", "scalar", "any"}),
}
#: The element type a list of each declared list type may hold with no further check but
#: the one :func:`plain_list_ok` makes (lists of one plain type: the common case)
LIST_OF = {"string[]": str, "boolean[]": bool, "integer[]": int, "float[]": float}
_NO_TYPES: frozenset = frozenset()


def plain_list_ok(value: list, element: type) -> bool:
    """Whether ``value``, a non-empty list, holds only ``element`` values (exactly that type)
    that are storable; False means "ask the reference checks", which decide the rest (a
    mixed, empty or subclass-holding list, an integer in a float list, a sum that overflows).

    >>> plain_list_ok(["a", 1], str), plain_list_ok([2**63], int)
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


def scalar_ok(value: Any, type_name: str) -> bool | None:
    """Whether a plain ``str``/``int``/``float``/``bool`` value is of ``type_name`` and
    storable; None for any other value (lists, subclasses: ask the reference checks)."""
    t = type(value)
    ok = SCALAR_OK.get(t)
    if ok is None:
        return None
    if type_name not in ok:
        return False
    if t is int:
        return INT64[0] <= value <= INT64[1]
    if t is float:
        return math.isfinite(value)
    return True


def fast_types(props: Mapping[str, str]) -> dict[str, frozenset]:
    """Per declared property: the plain Python types :func:`check` takes at once for it.

    >>> sorted(t.__name__ for t in fast_types({"n": "float"})["n"])
    ['float', 'int']
    """
    return {name: frozenset(t for t, names in SCALAR_OK.items() if type_name in names)
            | ({list} if type_name in LIST_OF else set())
            for name, type_name in props.items()}


def check(owner: str, props: dict[str, Any], declared: Mapping[str, str],
          fast: Mapping[str, frozenset], declares: Callable[[str], str | None]) -> dict:
    """``props`` of a node of kind ``owner`` without ``None`` values, every one declared
    (``declared``, else ``declares(name)`` for property families), of its type, storable:
    plain values decided here, the rest by :func:`lineage.model.types.checked_value`."""
    out = {}
    for key, value in props.items():
        if value is None:
            continue
        t = type(value)  # the common case, a plain scalar of a declared property's type,
        if t in fast.get(key, _NO_TYPES):  # decided here as scalar_ok decides it
            if t is int:
                if INT64[0] <= value <= INT64[1]:
                    out[key] = value
                    continue
            elif t is list:  # a copy, as the reference makes: the reader's is its own
                if value and plain_list_ok(value, LIST_OF[declared[key]]):
                    out[key] = value[:]
                    continue
            elif t is not float or value - value == 0.0:  # not inf, not NaN
                out[key] = value
                continue
        type_name = declared.get(key) or declares(key)
        if type_name is None:
            raise ModelError(owner, key, "is not a declared property")
        out[key] = value if scalar_ok(value, type_name) else checked_value(owner, key, value,
                                                                           type_name)
    return out


#: Longest uid part :func:`remembering_uid` keeps (a hostile input's megabyte ids are built
#: each time instead, so the remembered parts stay within ``size`` x this many characters).
REMEMBERED_PART_CHARS = 256


class _NotRemembered(Exception):
    """A uid built from a part too long to keep in :func:`remembering_uid`'s cache."""

    def __init__(self, uid: str):
        super().__init__(uid)
        self.uid = uid


def remembering_uid(kind, size: int = 8192) -> Callable[..., str]:
    """``kind.uid`` (a :class:`~lineage.model.core.NodeKind`'s) that remembers the last
    ``size`` uids it built: a reader names one node again and again (every edge states both
    its ends; a Pegasus attempt has an event per state). ``typed``: ``True`` is not the
    integer 1 there (a bool part is refused); a part that cannot be a cache key (a list from
    a damaged record) goes to ``kind.uid`` itself, which refuses it.

    >>> from lineage.model.core import NodeKind, Role
    >>> k = NodeKind("Rank", Role.AGENT, "s", uid_parts=("run", "rank"))
    >>> uid = remembering_uid(k)
    >>> uid("r", 3), uid("r", 3) == k.uid("r", 3)
    ('s:rank:r:3', True)
    >>> uid("r", True)
    Traceback (most recent call last):
    ...
    lineage.model.types.ModelError: Rank.rank: a uid part must be a string or an integer, not bool
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
