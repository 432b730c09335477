"""The managed server's class-data-sharing archive (lineage/server/class_archive.py): a server started
after :func:`build` maps the archive (the JVM took its classes from it, not only was told
of it), and a stale or damaged archive never keeps the server from starting.

Each test starts a server of its own in a temporary state directory (about 5-8 s each).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lineage.server import class_archive
from lineage import server


@pytest.fixture
def own_state(tmp_path, neo4j_settings):
    if not neo4j_settings.managed:
        pytest.skip("the archive is for the managed server (NEO4J_URI or Docker is in use)")
    state = tmp_path / "state"
    yield state
    server.stop(state)


def _mapped(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_a_server_started_after_build_maps_the_archive(own_state):
    archive = server.build_class_archive()  # built by scripts/setup.sh; built here if not
    assert archive.is_file() and archive.stat().st_size > 10_000_000
    info = server.start(own_state)
    assert str(archive) in _mapped(info["pid"])
    assert server.status(own_state)["running"]


def test_a_damaged_archive_is_not_mapped_and_the_server_starts(own_state, tmp_path,
                                                               monkeypatch):
    damaged = tmp_path / "damaged.jsa"
    damaged.write_bytes(b"\x00" * 4096 + b"not a class archive" * 1000)
    monkeypatch.setattr(class_archive, "archive_path", lambda java, lib: damaged)
    info = server.start(own_state)
    assert server.status(own_state)["running"]
    assert str(damaged) not in _mapped(info["pid"])
