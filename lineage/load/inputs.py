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
    real_path: str | None = None  # its path with no link in it, when the walk knows it


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


def shown(path: str | os.PathLike) -> str:
    r"""A path as text a terminal, a log and the graph can hold: bytes of a name that are
    not UTF-8 become ``\xNN``.

    >>> shown("/data/caf" + chr(0xdce9))
    '/data/caf\\xe9'
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _not_utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _bad_name(path: str, what: str) -> Input:
    return Input(shown(path), None, False,
                 f"{what} whose name is not UTF-8: not read (rename it to load it)")


def walk(top: Path, source: str = "auto") -> Iterator[Input]:
    """The inputs under directory ``top``, in sorted order (a directory's files, then its
    directories, each walked the same way; names starting with ``.`` are left out; links to
    directories are not followed). Iterative: a tree of any depth is walked. What cannot be
    read (a directory that may not be listed, a name that is not UTF-8, a path too long) is
    an input with its ``problem``, so it is reported and counted while the rest is loaded.

    >>> [i.path.rsplit("/", 1)[1] for i in walk(Path(__file__).parent)][:1]
    ['__init__.py']
    """
    stack = [(str(top), os.path.realpath(top))]  # each directory with its real path
    while stack:
        directory, real = stack.pop()
        if _not_utf8(directory):
            yield _bad_name(directory, "a directory")
            continue
        try:
            with os.scandir(directory) as listing:  # names and kinds only: half a DirEntry
                entries = sorted(_named(e) for e in listing if not e.name.startswith("."))
        except OSError as exc:
            yield Input(directory, None, False,
                        f"a directory that cannot be read ({exc.strerror}): nothing in it read")
            continue
        below = []
        for name, is_dir, is_link in entries:
            path = os.path.join(directory, name)
            if is_dir:
                if not is_link:
                    below.append((path, os.path.join(real, name)))
                continue
            if _not_utf8(path):
                yield _bad_name(path, "a file")
                continue
            child = Path(path)
            problem = unreadable(child)
            if problem:
                yield Input(path, None, False, problem)
                continue
            try:  # detecting a format reads the file's start
                fmt = loaders.detect(child, source)
            except OSError as exc:
                yield Input(path, None, False, f"unreadable ({exc.strerror}): not read")
                continue
            # a file that is no link, in a directory whose real path is known: no lookups
            yield Input(path, fmt, False,
                        real_path=None if is_link else os.path.join(real, name))
        stack.extend(reversed(below))


def _named(entry: os.DirEntry) -> tuple[str, bool, bool]:
    """``(name, is a directory, is a link)`` of a listed entry, from what the listing says
    (a link to a directory counts as a directory; an entry that vanished, as a file)."""
    try:
        return entry.name, entry.is_dir(), entry.is_symlink()
    except OSError:
        return entry.name, False, False


def expand(paths: Iterable[str | os.PathLike], source: str = "auto") -> Iterator[Input]:
    """Inputs from files, directories (walked in sorted order, :func:`walk`) and database
    URLs."""
    for raw in paths:
        text = str(raw)
        if is_url(text):
            yield Input(text, loaders.for_url(text, source), True)
            continue
        path = Path(text)
        if _not_utf8(text):  # reported, and the other paths are loaded
            yield _bad_name(text, "a path")
            continue
        if not path.exists():
            raise LineageError(f"{path}: no such file or directory")
        if path.is_dir():
            yield from walk(path, source)
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
    """What names an input across loads: its absolute path with no link in it, or its URL
    without password.

    >>> identity(Input("/usr/..", None, True))
    '/'
    """
    if item.real_path is not None:
        return item.real_path
    return redact_url(item.path) if is_url(item.path) else str(Path(item.path).resolve())
