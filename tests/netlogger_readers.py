"""The two ways NetLogger lines are read, for tests that run both: with the compiled reader
of the common case (``_netlogger_c.c``) and in pure Python (as without a C compiler).

>>> from lineage.sources.pegasus import netlogger
>>> with reading_with("python"):
...     netlogger._split_compiled is None
True
"""

from __future__ import annotations

from contextlib import contextmanager

from lineage.sources.pegasus import netlogger

READERS = ["compiled", "python"]


@contextmanager
def reading_with(reader: str):
    """parse_line as ``reader`` says: "python" switches the compiled reader off; either way
    the reader must have been built (scripts/setup.sh needs a C compiler)."""
    saved = netlogger._split_compiled
    assert saved is not None, ("the C reader was not built (a C compiler and Python's headers "
                               "are needed: scripts/setup.sh)")
    if reader == "python":
        netlogger._split_compiled = None
    try:
        yield
    finally:
        netlogger._split_compiled = saved
