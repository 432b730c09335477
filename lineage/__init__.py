"""lineage-explorer: HPC provenance (Swift, Pegasus, Chimbuko, XALT) in one Neo4j graph.

>>> import lineage
>>> sorted(lineage.__all__)[:3]
['Lineage', 'LineageError', 'ParseError']
"""

from .errors import LineageError, ParseError

__all__ = ["Lineage", "Rows", "connect", "LineageError", "ParseError"]
__version__ = "0.1.0"


def __getattr__(name: str):
    """``Lineage``, ``Rows`` and ``connect`` load the API (and the Neo4j driver) on first use,
    so that the command line can load the driver its own way first (see lean_import)."""
    if name in ("Lineage", "Rows", "connect"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'lineage' has no attribute {name!r}")
