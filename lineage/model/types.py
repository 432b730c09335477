"""The property types of the model and the reference rules of what a value of each may be
(the fast paths of :mod:`.fast` give the same answers, faster: tests/test_model_fastpath.py
holds them equal on generated values).

>>> checked_value("Job", "exitcode", 3, "integer")
3
>>> checked_value("Job", "exitcode", "3", "integer")
Traceback (most recent call last):
...
lineage.model.types.ModelError: Job.exitcode: expected integer, got str
>>> checked_value("Job", "status", "ended", "status")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
lineage.model.types.ModelError: Job.status: 'ended' is not a status the model declares (...)
"""

from __future__ import annotations

import math
from typing import Any

from .status import STATUSES

INT64 = (-(2**63), 2**63 - 1)  # the integers Neo4j stores

#: Property types: Neo4j-storable scalars and homogeneous lists of them; ``json`` is a string
#: holding a JSON document (nested values such as a run's environment); ``scalar`` is any one
#: of the scalar types, ``any`` a scalar or a list of one scalar type (for families of
#: properties copied from a producer's record, such as a Chimbuko model's parameters);
#: ``status`` is one of the statuses of :mod:`.status` (the outcome of an activity).
TYPES = ("string", "integer", "float", "boolean", "json", "scalar", "any", "status",
         "string[]", "integer[]", "float[]", "boolean[]")
_PY = {"string": str, "json": str, "integer": int, "float": (int, float), "boolean": bool,
       "scalar": (str, int, float, bool), "status": str}


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


def type_ok(value: Any, type_name: str) -> bool:
    """Whether ``value`` is of the declared type ``type_name`` (storability aside)."""
    if type_name == "status":
        return type(value) is str and value in STATUSES
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


def finite(value: Any) -> bool:
    """Whether Neo4j can store the numbers of ``value`` (no inf or NaN, 64-bit integers)."""
    values = value if isinstance(value, list) else (value,)
    for v in values:
        if isinstance(v, float) and not math.isfinite(v):
            return False
        if isinstance(v, int) and not isinstance(v, bool) and not INT64[0] <= v <= INT64[1]:
            return False
    return True


def checked_value(owner: str, key: str, value: Any, type_name: str) -> Any:
    """``value`` of property ``key`` of ``owner`` (a kind's label) as it is stored (a tuple as
    a list, ``None`` elements of a list left out), or :class:`ModelError` naming it."""
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list) and type_name.endswith("[]"):
        value = [v for v in value if v is not None]
    if not type_ok(value, type_name):
        if type_name == "status":
            raise ModelError(owner, key, f"{str(value)[:60]!r} is not a status the model "
                             f"declares ({', '.join(STATUSES)})")
        raise ModelError(owner, key, f"expected {type_name}, got {type(value).__name__}")
    if not finite(value):
        raise ModelError(owner, key, f"{value!r} is not a finite 64-bit number")
    return value
