"""The options of one load, which reach the readers through their load context
(:class:`lineage.sources.base.LoadReport`).

Besides the options every load has (``lenient``, and the tuning of where and when inputs are
read), each source declares its own (:class:`lineage.sources.source.Option`: XALT's
``xalt_env``, Chimbuko's ``chimbuko_run``); they are keywords here too, kept by name. The
registry fills in the declared defaults and checks the values
(:func:`load_options`) before a load uses them.

>>> options = LoadOptions(lenient=True, xalt_env="all")
>>> options.xalt_env, options.get("chimbuko_run")
('all', None)
>>> options.as_json()
'{"lenient": true, "xalt_env": "all"}'
>>> options.with_(xalt_env="none", lenient=None).as_json()
'{"lenient": true, "xalt_env": "none"}'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from . import declarations
from .source import Option


@dataclass(frozen=True, init=False)
class LoadOptions:
    """How to read inputs: ``lenient`` skips and counts malformed records instead of
    stopping; the sources' own options by name (``source_options``). Loads with different
    values of these are different attempts (an unchanged file is read again when they
    change); the tuning fields below are not part of that."""

    lenient: bool = False
    #: file inputs of at least this many bytes are read in a child process while this one
    #: checks and spools their records (lineage.load.reader_process); ``None``: never
    reader_process_bytes: int | None = field(default=16 << 20, compare=False)
    #: the first load of a file input of at least this many bytes writes its nodes while
    #: the file is still being read (lineage.load.early_nodes); ``None``: never
    overlap_bytes: int | None = field(default=16 << 20, compare=False)
    #: graph elements a bulk load folds in memory; past them it folds on disk, partition by
    #: partition (lineage.bulk.partitions); ``None``: no limit
    bulk_fold_elements: int | None = field(default=2_000_000, compare=False)
    #: seconds a database file may take to answer before its reader gives up on it
    unqlite_probe_seconds: float = field(default=30.0, compare=False)
    #: a load refuses to begin when the spool's disk (or the managed server's) has fewer
    #: bytes free than this (lineage.load.disk); ``None``: never checked
    min_free_bytes: int | None = field(default=256 << 20, compare=False)
    #: each source's options, by name, sorted (``None`` values left out)
    source_options: tuple[tuple[str, Any], ...] = ()

    def __init__(self, lenient: bool = False, reader_process_bytes: int | None = 16 << 20,
                 overlap_bytes: int | None = 16 << 20,
                 bulk_fold_elements: int | None = 2_000_000,
                 unqlite_probe_seconds: float = 30.0, min_free_bytes: int | None = 256 << 20,
                 **source_options: Any):
        set_ = object.__setattr__
        set_(self, "lenient", lenient)
        set_(self, "reader_process_bytes", reader_process_bytes)
        set_(self, "overlap_bytes", overlap_bytes)
        set_(self, "bulk_fold_elements", bulk_fold_elements)
        set_(self, "unqlite_probe_seconds", unqlite_probe_seconds)
        set_(self, "min_free_bytes", min_free_bytes)
        set_(self, "source_options",
             tuple(sorted((k, v) for k, v in source_options.items() if v is not None)))

    def __getattr__(self, name: str) -> Any:
        """A source's option by name (None when it is not set); a name no source declares
        is an ``AttributeError``."""
        if name.startswith("_") or name in _FIELDS or name not in _declared_names():
            raise AttributeError(f"{type(self).__name__} has no option {name!r}")
        return self.get(name)

    def get(self, name: str, default: Any = None) -> Any:
        """A source's option, or ``default`` when it is not set."""
        for key, value in self.source_options:
            if key == name:
                return value
        return default

    def as_json(self) -> str:
        """The options that decide what a load writes, as stored on its ``:Load`` node."""
        return json.dumps({"lenient": self.lenient, **dict(self.source_options)},
                          sort_keys=True)

    def with_(self, **changes: Any) -> "LoadOptions":
        """A copy with some options changed (``None`` values are ignored)."""
        own = {f: getattr(self, f) for f in _FIELDS}
        merged = {**own, **dict(self.source_options)}
        merged.update((k, v) for k, v in changes.items() if v is not None)
        return LoadOptions(**merged)


#: the options every load has (the rest are the sources')
_FIELDS = ("lenient", "reader_process_bytes", "overlap_bytes", "bulk_fold_elements",
           "unqlite_probe_seconds", "min_free_bytes")


@lru_cache(maxsize=1)
def _declared() -> tuple[Option, ...]:
    return tuple(option for source in declarations().values() for option in source.options)


def options() -> list[Option]:
    """Every source's load options."""
    return list(_declared())


@lru_cache(maxsize=1)
def _declared_names() -> frozenset[str]:
    return frozenset(option.name for option in _declared())


def load_options(base: LoadOptions | None = None, **given: Any) -> LoadOptions:
    """``base`` (default: the defaults) with ``given`` values, and every declared source option
    set: to its given value, else the base's, else its default; values are checked against
    their declaration (``ValueError`` naming the option otherwise).

    >>> load_options(xalt_env="none").xalt_env
    'none'
    >>> load_options(xalt_env="some")
    Traceback (most recent call last):
    ...
    ValueError: xalt_env='some': expected one of none, filtered, all
    """
    chosen = (base or LoadOptions()).with_(**given)
    declared = {o.name: o for o in options()}
    unknown = [k for k, _ in chosen.source_options if k not in declared]
    if unknown:
        raise ValueError(f"no source has a load option {', '.join(unknown)} (they have: "
                         f"{', '.join(declared) or 'none'})")
    return chosen.with_(**{name: o.check(chosen.get(name, o.default))
                           for name, o in declared.items()})
