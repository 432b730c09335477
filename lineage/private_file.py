"""Files only their owner can read: reports, diff pages and exports can show XALT
environments and command lines, and HPC login nodes are shared by many users; and the
user's own state directory (:func:`state_dir`), which holds such files.

>>> import os, tempfile
>>> path = write_private(os.path.join(tempfile.mkdtemp(), "r.html"), "<p>x</p>")
>>> oct(os.stat(path).st_mode & 0o777)
'0o600'
"""

from __future__ import annotations

import os
from pathlib import Path


def write_private(path: str | os.PathLike, text: str) -> str:
    """Write ``text`` (UTF-8) to ``path`` with mode 0600, creating its folder; an existing
    file is truncated and its mode set to 0600 too. Returns the path."""
    out = create_private(path)
    with open(out, "w", encoding="utf-8", errors="replace") as fh:  # "w" keeps the mode
        fh.write(text)
    return str(out)


def create_private(path: str | os.PathLike) -> Path:
    """Create ``path`` empty with mode 0600 (truncating an existing file and setting its mode),
    creating its folder, so that a writer opening it afterwards (mode ``"w"`` keeps the mode)
    never exposes a byte to other users. Returns the path.

    >>> import tempfile
    >>> oct(create_private(os.path.join(tempfile.mkdtemp(), "e.json")).stat().st_mode & 0o777)
    '0o600'
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # O_TRUNC keeps an existing file's mode
    finally:
        os.close(fd)
    return out


def state_dir() -> Path:
    """Where this user's state lives: the managed server's config, data, logs and password,
    and the export key. ``$LINEAGE_HOME`` wins, then ``$XDG_STATE_HOME/lineage-explorer``,
    then ``~/.local/state/lineage-explorer``.

    >>> os.environ["LINEAGE_HOME"] = "/tmp/x"; str(state_dir()); del os.environ["LINEAGE_HOME"]
    '/tmp/x'
    """
    if os.environ.get("LINEAGE_HOME"):
        return Path(os.environ["LINEAGE_HOME"]).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "lineage-explorer"
