"""Room on disk before a load writes: the spool's directory (``TMPDIR``) and, for the
managed server, the disk holding its database. A load refuses before it writes anything
when one of them has less free space than ``LoadOptions.min_free_bytes``
(``LINEAGE_MIN_FREE_BYTES``; ``off`` never checks).

>>> check_free_space([("the spool", "/")], None)  # off: nothing checked
>>> check_free_space([("the spool", "/")], 10**18)
Traceback (most recent call last):
...
lineage.errors.LineageError: not enough free space for a load: the spool (/) has ...
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

from ..errors import LineageError


def _mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB"


def existing(path: str | os.PathLike) -> Path:
    """``path``, or the nearest directory above it that exists (a database not made yet)."""
    here = Path(path)
    while not here.exists() and here != here.parent:
        here = here.parent
    return here


def check_free_space(places: Iterable[tuple[str, str | os.PathLike]],
                     least: int | None) -> None:
    """Raise a :class:`LineageError` naming the first of ``places`` ((what, directory)
    each) whose disk has fewer than ``least`` bytes free; ``least`` None checks nothing."""
    if least is None:
        return
    for what, directory in places:
        where = existing(directory)
        free = shutil.disk_usage(where).free
        if free < least:
            raise LineageError(
                f"not enough free space for a load: {what} ({where}) has {_mib(free)} free, "
                f"less than the {_mib(least)} a load needs (LINEAGE_MIN_FREE_BYTES); nothing "
                "was written: free some space there"
                + (" or set TMPDIR to a larger disk" if what == "the spool" else ""))


def spool_place() -> tuple[str, str]:
    """Where spools are written: ``("the spool", TMPDIR)``."""
    return "the spool", tempfile.gettempdir()
