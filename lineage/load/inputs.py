"""What a load reads: the inputs under the paths it is given (files, directories walked in
sorted order, database URLs), the format that reads each, and the name each has across
loads.

>>> unreadable(Path("/dev/null"))
'not a regular file (a character device): not read'
>>> sha256_of(__file__) == sha256_of(__file__)
True
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import LineageError, UnknownFormatError
from ..redact import redact_url
from ..sources import SOURCES
from ..sources import registry as loaders
from ..sources.base import Format


def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Input:
    """One thing to load: a file (or database URL) and the format that reads it."""

    path: str
    format: Format | None
    explicit: bool  # named by the user (not found by walking a directory)
    problem: str | None = None  # why it cannot be read (a FIFO, a dangling link...)


def unreadable(path: Path) -> str | None:
    """Why ``path`` is not a regular file the loaders may open (None when it is one): a FIFO,
    socket or device would block or never end, a dangling or looping link has no content.

    >>> unreadable(Path("/dev/null"))
    'not a regular file (a character device): not read'
    """
    try:
        mode = path.stat().st_mode  # follows links
    except OSError as exc:
        what = "a dangling or looping link" if path.is_symlink() else "unreadable"
        return f"{what} ({exc.strerror}): not read"
    if stat.S_ISREG(mode):
        return None
    kinds = {stat.S_ISFIFO: "a FIFO", stat.S_ISSOCK: "a socket", stat.S_ISCHR: "a character device",
             stat.S_ISBLK: "a block device", stat.S_ISDIR: "a directory"}
    kind = next((name for test, name in kinds.items() if test(mode)), "not a file")
    return f"not a regular file ({kind}): not read"


def is_url(text: str) -> bool:
    return "://" in text and not Path(text).exists()


def expand(paths: Iterable[str | os.PathLike], source: str = "auto") -> Iterator[Input]:
    """Inputs from files, directories (walked in sorted order) and database URLs."""
    for raw in paths:
        text = str(raw)
        if is_url(text):
            yield Input(text, loaders.for_url(text, source), True)
            continue
        path = Path(text)
        if not path.exists():
            raise LineageError(f"{path}: no such file or directory")
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.startswith("."):
                        continue
                    child = Path(root) / name
                    problem = unreadable(child)
                    if problem:
                        yield Input(str(child), None, False, problem)
                        continue
                    yield Input(str(child), loaders.detect(child, source), False)
        else:
            problem = unreadable(path)
            if problem:
                raise LineageError(f"{path}: {problem}")
            fmt = loaders.detect(path, source)
            if fmt is None:
                what = "any known format" if source == "auto" else f"a {source} format"
                raise UnknownFormatError(
                    f"{path}: not recognised as {what}; "
                    f"use --source to force one ({', '.join(SOURCES)})"
                )
            yield Input(str(path), fmt, True)


def identity(item: Input) -> str:
    """What names an input across loads: its absolute path, or its URL without password."""
    return redact_url(item.path) if is_url(item.path) else str(Path(item.path).resolve())
