"""A class-data-sharing archive of the managed server's classes: the JVM maps the ~17,000
classes a Neo4j start loads from one file instead of reading and verifying them from the jars,
which makes every start of the managed server about 1.5x faster (7.6-8.9 s -> 4.7-5.6 s on 2
cores; bench/bench_server_cycle.py).

``scripts/setup.sh`` builds it once per Neo4j version and Java (:func:`build`: one throwaway
start records the classes it loads, then ``java -Xshare:dump``; about 45 s, 140 MB in the
user's cache next to the jars). Without it, or when the JVM finds it stale (another Java
build, changed jars), the server starts as before: the JVM checks the archive's header and
falls back to loading the jars.

>>> path = archive_path("/usr/bin/java", Path("/cache/neo4j-5.26.30/lib"))
>>> path.parent.as_posix(), path.suffix
('/cache/neo4j-5.26.30/class-archive', '.jsa')
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: Java 17 refuses a class list line longer than this (a lambda proxy of a wide constructor
#: in Neo4j's kernel is longer); such lines are left out of the archive, not fatal.
_MAX_LINE = 4000

_recording: Path | None = None  # while :func:`build` records a start's classes


def archive_path(java: str, lib: Path) -> Path:
    """Where the archive for this Java and these jars lives (one per Java installation)."""
    key = hashlib.sha256(os.path.realpath(java).encode()).hexdigest()[:16]
    return lib.parent / "class-archive" / f"java-{key}.jsa"


def jvm_options(java: str, lib: Path) -> list[str]:
    """The server's JVM options for class-data sharing: record the classes (while building),
    use the archive (when there is one), or nothing.

    >>> jvm_options("/nonexistent/java", Path("/nonexistent/lib"))
    []
    """
    if _recording is not None:
        return [f"-XX:DumpLoadedClassList={_recording}"]
    archive = archive_path(java, lib)
    return [f"-XX:SharedArchiveFile={archive}"] if archive.is_file() else []


@contextlib.contextmanager
def _record(class_list: Path) -> Iterator[None]:
    global _recording
    _recording = class_list
    try:
        yield
    finally:
        _recording = None


def build(force: bool = False) -> Path:
    """Build the archive for the managed server (no-op when it exists, unless ``force``):
    start a throwaway server recording the classes it loads, stop it, dump the archive.

    >>> build()  # doctest: +SKIP
    PosixPath('/home/me/.cache/lineage-explorer/neo4j-5.26.30/class-archive/java-....jsa')
    """
    from . import server

    java, lib = server.find_java(), server.install()
    archive = archive_path(java, lib)
    if archive.is_file() and not force:
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=archive.parent))
    try:
        class_list = work / "classes.lst"
        try:
            with _record(class_list):
                server.start(work / "state")
        finally:
            server.stop(work / "state")
        usable = work / "classes-usable.lst"
        with open(class_list, encoding="utf-8", errors="replace") as src, \
                open(usable, "w", encoding="utf-8") as out:
            out.writelines(line for line in src if len(line) < _MAX_LINE)
        partial = work / "archive.jsa"
        proc = subprocess.run(
            [java, "-Xshare:dump", f"-XX:SharedClassListFile={usable}",
             f"-XX:SharedArchiveFile={partial}", "-cp", f"{lib}/*"],
            capture_output=True, text=True, umask=0o077, check=False)
        if proc.returncode != 0 or not partial.is_file():
            raise server.ServerError("java -Xshare:dump could not build the class archive:\n"
                                     + (proc.stdout + proc.stderr)[-2000:])
        os.replace(partial, archive)  # whole or not at all: a start never maps half a file
        return archive
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover - scripts/setup.sh
    from lineage import class_archive  # noqa: PLW0406 - the module the server reads

    print(class_archive.build())
