"""lineage-explorer: HPC provenance (Swift, Pegasus, Chimbuko, XALT) in one Neo4j graph.

>>> import lineage
>>> sorted(lineage.__all__)[:3]
['Lineage', 'LineageError', 'ParseError']
"""

from .api import Lineage, Rows, connect
from .errors import LineageError, ParseError

__all__ = ["Lineage", "Rows", "connect", "LineageError", "ParseError"]
__version__ = "0.1.0"
