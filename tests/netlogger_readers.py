"""The two ways NetLogger lines are read, for tests that run both: with the compiled reader
of the common case (``_netlogger_c.c``) and in pure Python (as without a C compiler). Where
the compiled reader is not built, its cases are skipped, saying so; the pure Python ones run.

>>> from lineage.sources.pegasus import netlogger
>>> with reading_with("python"):
...     netlogger._split_compiled is None
True
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from lineage.sources.pegasus import netlogger

READERS = ["compiled", "python"]
#: for tests of the compiled reader alone: skipped, saying why, where it is not built
needs_compiled = pytest.mark.skipif(
    netlogger._split_compiled is None,
    reason="the compiled NetLogger reader is not built (it needs a C compiler and Python's "
           "headers: scripts/setup.sh; after a change to _netlogger_c.c: pip install -e .)")


@contextmanager
def reading_with(reader: str):
    """parse_line as ``reader`` says: "python" switches the compiled reader off; "compiled"
    needs it built from the ``.c`` as it is, and is skipped otherwise (scripts/setup.sh
    builds it with a C compiler; after a change to the ``.c``, ``pip install -e .``)."""
    saved = netlogger._split_compiled
    if reader == "compiled" and saved is None:
        pytest.skip("the compiled NetLogger reader is not built, or was built from another "
                    "version of _netlogger_c.c (it needs a C compiler and Python's headers: "
                    "scripts/setup.sh; after a change: pip install -e .)")
    if reader == "python":
        netlogger._split_compiled = None
    try:
        yield
    finally:
        netlogger._split_compiled = saved
