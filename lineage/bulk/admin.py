"""``neo4j-admin database import``: the managed server's database replaced by CSV files, the
step a bulk load (:mod:`lineage.bulk`) ends with.

>>> multiline_options(None, Path("/s")), multiline_options([], Path("/s"))
(['--multiline-fields=true'], ['--multiline-fields=false'])
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .. import server
from ..errors import ServerError
from ..server import class_archive


def import_full(state: Path | None, nodes: list[Path], relationships: list[Path],
                array_delimiter: str, report: Path, database: str = "neo4j",
                id_type: str = "string", stopping: server.BackgroundStop | None = None,
                multiline: list[Path] | None = None) -> None:
    """Replace ``database`` of the managed server with neo4j-admin CSV files: stop the
    server (or wait for ``stopping``, a stop begun earlier), ``neo4j-admin database import
    full --overwrite-destination`` with the server's own config, start it again (on the same
    ports when they are still free). ``nodes`` and ``relationships`` are CSV files, each
    with its header first, under the state directory (passed relative to it: neo4j-admin
    splits its file lists at commas, which a user's path may hold); ``id_type``: what their
    ``:ID`` columns hold (``string`` or ``integer``); ``multiline``: the files with a line
    break inside a field (None: any file may have one), the only ones neo4j-admin then reads
    the slower way (:func:`multiline_options`). Users and the password live in the system
    database and stay."""
    if id_type not in ("string", "integer"):
        raise ValueError(f"id_type {id_type!r}: expected string or integer")
    java, lib = server.find_java(), server.install()
    own_stop = stopping is None  # then the restart is awaited here, not by the caller
    stopping = stopping or server.BackgroundStop(state)
    paths = stopping.paths
    try:
        stopping.wait()
        args = ["-cp", f"{lib}/*", "org.neo4j.cli.AdminTool", "database", "import", "full",
                database, "--overwrite-destination=true", f"--id-type={id_type}",
                *multiline_options(multiline, paths.root), "--skip-bad-relationships=false",
                "--skip-duplicate-nodes=false", "--bad-tolerance=0",
                f"--array-delimiter=U+{ord(array_delimiter):04X}", f"--report-file={report}"]
        args += [f"--nodes={_relative(p, paths.root)}" for p in nodes]
        args += [f"--relationships={_relative(p, paths.root)}" for p in relationships]
        argfile = report.with_name("import.args")  # long lists of files: a Java argument file
        server.write_private(argfile, "\n".join(
            '"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"' for a in args) + "\n")
        env = dict(os.environ, NEO4J_HOME=str(paths.root), NEO4J_CONF=str(paths.conf_dir))
        # the throughput collector: the import is a batch job on every core, and G1's
        # concurrent work cost it 5-20% of its time (README, Benchmarks: "neo4j-admin
        # import with the parallel collector")
        # the server's class archive serves the import tool too (same jars): 3.3-3.6 s ->
        # 2.7-2.8 s for an import of nothing
        proc = subprocess.run([java, "-Xmx1g", "-XX:+UseParallelGC",
                               *class_archive.jvm_options(java, lib), f"@{argfile}"],
                              capture_output=True, text=True, env=env, cwd=paths.root,
                              umask=0o077)
    finally:  # whatever happened (the mark goes with it)
        stopping.restart()
    if own_stop:
        stopping.await_started()
    if proc.returncode != 0:
        raise ServerError(f"neo4j-admin database import failed; database {database} may "
                          "now be empty (bulk loads import into empty ones only):\n" + (proc.stdout + proc.stderr)[-3000:])


def multiline_options(multiline: list[Path] | None, root: Path) -> list[str]:
    """neo4j-admin's options for the files with line breaks inside fields: all of them
    (``None``), none, or these by name (``--multiline-fields-format=v2`` takes a list of
    patterns; the names under ``root`` that :func:`_relative` gives match themselves).

    >>> multiline_options(None, Path("/s")), multiline_options([], Path("/s"))
    (['--multiline-fields=true'], ['--multiline-fields=false'])
    >>> multiline_options([Path("/s/bulk-x1/nodes-2.csv")], Path("/s"))
    ['--multiline-fields-format=v2', '--multiline-fields=bulk-x1/nodes-2.csv']
    """
    if multiline is None:
        return ["--multiline-fields=true"]
    if not multiline:
        return ["--multiline-fields=false"]
    return ["--multiline-fields-format=v2",
            "--multiline-fields=" + ",".join(_relative(p, root) for p in multiline)]


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (neo4j-admin runs there), without a comma.

    >>> _relative(Path("/s/bulk-x1/nodes-0.csv"), Path("/s"))
    'bulk-x1/nodes-0.csv'
    """
    relative = os.path.relpath(path, root)
    if "," in relative:
        raise ServerError(f"{path}: neo4j-admin cannot import a file whose path holds a "
                          "comma (it splits file lists at commas)")
    return relative
