"""A class-data-sharing archive of the managed server's classes: the JVM maps the ~17,000
classes a Neo4j start loads from one file instead of reading and verifying them from the jars,
which makes every start of the managed server about 1.5x faster (7.6-8.9 s -> 4.7-5.6 s on 2
cores; bench/bench_server_cycle.py).

``scripts/setup.sh`` builds it once per Neo4j version and Java
(:func:`lineage.server.build_class_archive`: one throwaway start records the classes it loads
(:func:`recording`), then ``java -Xshare:dump``; about 45 s, 140 MB in the user's cache next
to the jars). Without it, or when the JVM finds it stale (another Java
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
from collections.abc import Iterator
from pathlib import Path

#: Java 17 refuses a class list line longer than this (a lambda proxy of a wide constructor
#: in Neo4j's kernel is longer); such lines are left out of the archive, not fatal.
MAX_LINE = 4000

_recording: Path | None = None  # while :func:`recording` records a start's classes


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
def recording(class_list: Path) -> Iterator[None]:
    """Servers started meanwhile record the classes they load into ``class_list`` (the
    first step of building the archive: :func:`lineage.server.build_class_archive`)."""
    global _recording
    _recording = class_list
    try:
        yield
    finally:
        _recording = None
