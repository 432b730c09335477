"""The sources lineage-explorer reads, one folder each (see :mod:`.source` for what a folder
holds and :mod:`.registry` for how they are collected).

A source is a Python package whose ``__init__.py`` declares ``SOURCE``
(:class:`.source.Source`). The built-in ones are the folders below; more come from
``$LINEAGE_SOURCE_PACKAGES`` (comma-separated importable package names), through the same
path: a fifth source is one folder, in the package or outside it.

>>> SOURCES
('pegasus', 'swift', 'chimbuko', 'xalt', 'prov', 'rocrate')
"""

from __future__ import annotations

import importlib
import os

#: The built-in sources' packages, in the order formats are tried when detecting a file.
BUILT_IN = tuple(f"lineage.sources.{name}"
                 for name in ("pegasus", "swift", "chimbuko", "xalt", "prov", "rocrate"))
#: The variable naming more source packages (a source kept outside this package).
EXTRA_PACKAGES = "LINEAGE_SOURCE_PACKAGES"


def packages() -> tuple[str, ...]:
    """Every source package: the built-in ones, then those of ``$LINEAGE_SOURCE_PACKAGES``."""
    extra = [p.strip() for p in os.environ.get(EXTRA_PACKAGES, "").split(",") if p.strip()]
    return BUILT_IN + tuple(p for p in extra if p not in BUILT_IN)


def declarations() -> dict:
    """Every source's declaration (``SOURCE`` of its package), by name, in detection order."""
    out = {}
    for package in packages():
        source = importlib.import_module(package).SOURCE
        if source.name in out:
            raise ValueError(f"two sources are called {source.name!r}")
        out[source.name] = source
    return out


#: Every source's name, in the order formats are tried when detecting a file.
SOURCES = tuple(declarations())
