"""The managed Neo4j a benchmark starts for itself under bench/out, stopped when it ends (a
JVM left running on a shared login node is a cost to everyone). A server the user chose
(``NEO4J_URI``, or a ``LINEAGE_HOME`` of their own) is used and left alone.

    with private_server.environment(HERE / "out" / "state") as env:   # for subprocesses
        subprocess.run([...], env=env)
    with private_server.connected(HERE / "out" / "state-report") as lin:
        lin.query("runs")
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _stop(state: Path) -> None:
    from lineage import server

    server.stop(state)


@contextmanager
def environment(default_home: Path) -> Iterator[dict]:
    """``os.environ`` with ``LINEAGE_HOME`` defaulting to ``default_home``, for benchmark
    stages run as subprocesses; the server there is stopped at the end when this chose it."""
    env = dict(os.environ)
    own = "LINEAGE_HOME" not in env and not env.get("NEO4J_URI")
    env.setdefault("LINEAGE_HOME", str(default_home))
    try:
        yield env
    finally:
        if own:
            _stop(Path(env["LINEAGE_HOME"]))


@contextmanager
def connected(state: Path) -> Iterator:
    """A :class:`lineage.Lineage` on ``NEO4J_URI`` if set, else on the managed server under
    ``state`` (started, and stopped at the end)."""
    from lineage.api import Lineage
    from lineage.api import connect as env_connect
    from lineage.server.connection import Graph, Settings

    if os.environ.get("NEO4J_URI"):
        with env_connect() as lin:
            yield lin
        return
    from lineage import server

    info = server.start(state)
    lin = Lineage(Graph.connect(Settings(info["uri"], info["user"], server.password(state),
                                         None, True)))
    try:
        yield lin
    finally:
        lin.close()
        _stop(state)
