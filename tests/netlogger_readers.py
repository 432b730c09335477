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
    the reader must have been built from the ``.c`` as it is (scripts/setup.sh needs a C
    compiler; after a change to the ``.c``, ``pip install -e .`` builds it again)."""
    saved = netlogger._split_compiled
    assert saved is not None, ("the C reader was not built, or was built from another version "
                               "of _netlogger_c.c (a C compiler and Python's headers are "
                               "needed: scripts/setup.sh; after a change: pip install -e .)")
    if reader == "python":
        netlogger._split_compiled = None
    try:
        yield
    finally:
        netlogger._split_compiled = saved
