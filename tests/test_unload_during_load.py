"""An unload while a load of an overlapping input writes, and a load while an unload takes
facts off: one of them is refused with a :class:`BusyError` naming the other, the other
completes, and the graph is what the two would have made one after the other. Each is
stopped at a chosen point by a callback (no timing luck)."""

from __future__ import annotations

import pytest

from lineage.load import claims, loads
from lineage.load.fleet import load
from lineage.load.writer import Writer

from .corpus import needs_corpus
from .test_claims import exact, no_claims, xalt_pair
from .xalt_helpers import LINK_S2

pytestmark = needs_corpus


class _PausingWriter(Writer):
    """Calls ``pause()`` once, after the nodes, before the first relationship is written."""

    def __init__(self, driver, database, pause):
        super().__init__(driver, database)
        self.pause = pause

    def write_edges(self, edges, tag=None):
        self.pause()
        return super().write_edges(edges, tag)


def test_an_unload_while_an_overlapping_load_writes_is_refused(lin, tmp_path):
    start, end = xalt_pair(tmp_path)
    lin.load([start])
    refused = []

    def unload_start():
        with pytest.raises(loads.BusyError) as caught:
            lin.unload(str(start))
        refused.append(str(caught.value))

    writer = _PausingWriter(lin.graph.driver, lin.graph.database, unload_start)
    [result] = load(writer, [end])
    assert result.status == "loaded"
    assert refused and f"cannot unload {start}" in refused[0] and str(end) in refused[0]
    both = exact(lin)
    lin.reset()
    lin.load([start])
    lin.load([end])
    assert exact(lin) == both  # as if one after the other
    # once the load is done, the unload goes through
    lin.unload(str(start))
    alone = exact(lin)
    lin.reset()
    lin.load([end])
    assert exact(lin) == alone and no_claims(lin) == 0


def test_a_load_while_an_unload_takes_facts_off_is_refused(lin, tmp_path, monkeypatch):
    start, end = xalt_pair(tmp_path)
    lin.load([start])
    lin.load([end])
    refold, refused = claims.Retraction.refold, []

    def load_meanwhile(self):
        writer = Writer(lin.graph.driver, lin.graph.database)
        with pytest.raises(loads.BusyError) as caught:
            load(writer, [LINK_S2])
        refused.append(str(caught.value))
        return refold(self)

    monkeypatch.setattr(claims.Retraction, "refold", load_meanwhile)
    [gone] = lin.unload(str(end))
    monkeypatch.undo()
    assert gone["status"] == "unloaded"
    assert refused and f"cannot load {LINK_S2}" in refused[0] and str(end) in refused[0]
    [link] = lin.query("MATCH (l:Load {path: $p}) RETURN l.status AS s, l.writing AS w",
                       p=str(LINK_S2)) or [{"s": None, "w": None}]
    assert link["w"] is None  # no write mark left behind
    unloaded = exact(lin)
    lin.reset()
    lin.load([start])
    assert exact(lin) == unloaded
    [again] = lin.load([LINK_S2])  # and now it loads
    assert again.status == "loaded"


def test_a_load_and_an_unload_started_in_the_same_instant_do_not_both_go_on(
        lin, tmp_path, monkeypatch):
    """The load has marked itself and is about to look for unloads when an unload starts
    (two users, one instant): the unload sees the load's mark and is refused; the load
    goes on. Looking first and marking after would let both go on."""
    start, end = xalt_pair(tmp_path)
    lin.load([start])
    look, refused = loads.unloads_in_progress, []

    def unload_in_this_instant(driver, database):
        if not refused:
            with pytest.raises(loads.BusyError) as caught:
                lin.unload(str(start))
            refused.append(str(caught.value))
        return look(driver, database)

    monkeypatch.setattr(loads, "unloads_in_progress", unload_in_this_instant)
    [result] = lin.load([end])
    monkeypatch.undo()
    assert result.status == "loaded"
    assert refused and f"cannot unload {start}" in refused[0] and str(end) in refused[0]
    [kept] = lin.query("MATCH (l:Load {path: $p}) RETURN l.status AS s, l.unloading AS u",
                       p=str(start))
    assert kept == {"s": "loaded", "u": None}


def test_an_unload_and_a_load_started_in_the_same_instant_do_not_both_go_on(
        lin, tmp_path, monkeypatch):
    """The unload has marked its load and is about to look for writes when a load starts:
    the load sees the unload's mark and is refused, leaving no mark and no record of its
    own; the unload goes on."""
    start, end = xalt_pair(tmp_path)
    lin.load([start])
    lin.load([end])
    look, refused = loads.being_written, []

    def load_in_this_instant(driver, database, lid=None):
        if not refused:
            with pytest.raises(loads.BusyError) as caught:
                lin.load([LINK_S2])
            refused.append(str(caught.value))
        return look(driver, database, lid)

    monkeypatch.setattr(loads, "being_written", load_in_this_instant)
    [gone] = lin.unload(str(end))
    monkeypatch.undo()
    assert gone["status"] == "unloaded"
    assert refused and f"cannot load {LINK_S2}" in refused[0] and str(end) in refused[0]
    assert lin.query("MATCH (l:Load {path: $p}) RETURN l", p=str(LINK_S2)) == []
