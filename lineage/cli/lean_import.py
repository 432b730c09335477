"""Import the Neo4j driver without its optional dataframe libraries, for the CLI.

When numpy, pandas or pyarrow are installed, the driver imports all three as it loads (to
accept their values as parameters and to offer ``Result.to_df``), which costs the command line
about 0.25 s before it does anything. The CLI passes only strings and numbers it parsed
itself and never asks the driver for a DataFrame, so it loads the driver with those three
hidden for the duration of that one import; a notebook that imports :mod:`lineage` gets the
driver as it is (numpy values as parameters keep working there).

>>> import sys
>>> import_driver_without_dataframes()  # the driver may already be loaded: then a no-op
>>> "neo4j" in sys.modules
True
"""

from __future__ import annotations

import importlib
import sys

HIDDEN = ("numpy", "pandas", "pyarrow")


class _Hide:
    """Makes ``import numpy`` (and pandas, pyarrow) fail as if they were not installed (a
    meta path finder; not derived from ``importlib.abc``, whose import costs 20 ms)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"hidden while the driver loads: {fullname}",
                                      name=fullname)
        return None


def import_driver_without_dataframes() -> None:
    """Import ``neo4j`` with numpy, pandas and pyarrow hidden (unless one is loaded already)."""
    if "neo4j" in sys.modules or any(name in sys.modules for name in HIDDEN):
        return
    hide = _Hide()
    sys.meta_path.insert(0, hide)
    try:
        importlib.import_module("neo4j")
    finally:
        sys.meta_path.remove(hide)
