"""``lineage watch``: increments of growing files, each one load, ending as one load of the
finished file would (against the real Neo4j; the watcher's step, ``poll_once``, is driven
directly, so no test depends on thread timing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lineage.watch import increments
from lineage.watch.watcher import Watcher

from .corpus import SAMPLES, needs_corpus
from .watchgraph import content, differences

BLACKDIAMOND = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"


def _pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at the given line numbers (a piece ends after that many lines)."""
    lines = data.splitlines(keepends=True)
    bounds = [0, *cuts, len(lines)]
    return [b"".join(lines[a:b]) for a, b in zip(bounds, bounds[1:])]


def _grow(path: Path, piece: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(piece)


def _one_load(lin, path: Path) -> tuple[dict, dict]:
    lin.reset(force=True)
    [result] = lin.load([path])
    assert result.status == "loaded", result.error
    return content(lin)


@needs_corpus
def test_bp_in_increments_ends_as_one_load(lin, tmp_path):
    data = BLACKDIAMOND.read_bytes()
    stream = tmp_path / "run" / "blackdiamond-0.bp"
    stream.parent.mkdir()
    stream.write_bytes(b"")
    watcher = Watcher(lin, [stream.parent], link=False)
    # jobs' submit, execute and end events fall into different increments
    pieces = _pieces(data, [20, 60, 61, 120, 170, 200])
    names = []
    for piece in pieces:
        # the last line written only in part (no newline yet) waits for the next look
        cut = len(piece) - 7
        _grow(stream, piece[:cut])
        names += [s.name for s in watcher.poll_once().loaded]
        _grow(stream, piece[cut:])
        names += [s.name for s in watcher.poll_once().loaded]
    assert watcher.poll_once().steps == []  # nothing new: nothing written
    ranges = [increments.byte_range(n) for n in names]
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:])), ranges  # contiguous
    # a piece of one line is read once, when its newline is there
    assert len(names) == sum(2 if p.count(b"\n") > 1 else 1 for p in pieces)
    stats = {row["path"]: row["status"] for row in lin.stats()["loads"]}
    assert all(stats[n] == "loaded" for n in names)
    watched = content(lin)
    assert differences(watched, _one_load(lin, stream)) == []
