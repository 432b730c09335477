"""Facts are claims of loads: a load then its unload leaves the graph as it was before the
load (byte for byte: tests/graphcheck.py), for every real sample and for loads that state
the same nodes (an XALT run's start and end records; a Pegasus workflow's event stream and
its stampede.db); a value only the unloaded input stated goes, the other inputs' come back;
conflicting values are resolved by the newest load and reported."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from lineage import cli
from lineage.load import claims

from . import graphcheck
from .corpus import SAMPLES, inputs, needs_corpus
from .xalt_helpers import RUN_UUID, sample_run, signed, zzz_from_aaa

pytestmark = needs_corpus

RUN = f"xalt:run:{RUN_UUID}"
PEGASUS = SAMPLES / "pegasus"


def exact(lin) -> graphcheck.Fingerprint:
    """The fingerprint with every property (the loads lists too) and the claims left."""
    return graphcheck.of(lin, with_loads=True)


def no_claims(lin) -> int:
    return lin.query("MATCH (c:Claim) RETURN count(c) AS n")[0]["n"]


def xalt_pair(tmp_path, exit_status: str = "0"):
    aaa = sample_run()
    zzz = zzz_from_aaa(aaa, run_time=42.5)
    zzz["userT"]["exit_status"] = exit_status
    start = tmp_path / f"run.stampede2.2017_06_29_11_48_33.mclay.aaa.{RUN_UUID}.json"
    end = tmp_path / f"run.stampede2.2017_06_29_11_48_33.mclay.zzz.{RUN_UUID}.json"
    start.write_text(signed(aaa))
    end.write_text(signed(zzz))
    return start, end


def run_node(lin) -> dict:
    [row] = lin.query("MATCH (r:Lineage {uid: $uid}) RETURN properties(r) AS p", uid=RUN)
    return row["p"]


def test_unloading_the_end_record_takes_its_values_back(lin, tmp_path):
    """The case of the issue: the end record's end time, exit status and status went with
    it; loading what is left says nothing changed, and is right."""
    start, end = xalt_pair(tmp_path, exit_status="1")
    lin.load([start])
    started = exact(lin)
    lin.load([end])
    ended = run_node(lin)
    assert ended["status"] == "failed" and ended["exit_status"] == 1 and "end_time" in ended
    lin.unload(str(end))
    assert exact(lin) == started
    after = run_node(lin)
    assert {"end_time", "exit_status", "run_time", "has_end_record"}.isdisjoint(after)
    assert "status" not in after
    assert no_claims(lin) == 0
    # the start record loaded again: nothing to change, and nothing is wrong
    [again] = lin.load([start])
    assert again.status == "unchanged" and exact(lin) == started


def test_unloading_the_start_record_keeps_the_end_records(lin, tmp_path):
    start, end = xalt_pair(tmp_path)
    lin.load([end])
    only_end = exact(lin)
    lin.load([start])
    assert run_node(lin)["has_start_record"] is True
    lin.unload(str(start))
    assert exact(lin) == only_end and no_claims(lin) == 0


@pytest.mark.parametrize("first, second", [
    ("process_wf_failure.static.bp", "process_wf_failure.stampede.db"),
    ("process_wf_failure.stampede.db", "process_wf_failure.static.bp"),
    ("hierarchical_wf_success.static.bp", "hierarchical_wf_success.stampede.db"),
])
def test_two_pegasus_inputs_of_one_workflow(lin, tmp_path, first, second):
    """The event stream and the database of one run state the same workflow, jobs and
    files: either unloaded leaves what the other stated, exactly."""
    a, b = tmp_path / first, tmp_path / second
    shutil.copy(PEGASUS / first, a)
    shutil.copy(PEGASUS / second, b)
    lin.load([a])
    only_a = exact(lin)
    lin.load([b])
    both, claimed = graphcheck.of(lin), no_claims(lin)
    assert lin.query("MATCH (n:Lineage) WHERE size(n.loads) = 2 RETURN count(n) AS n")[0]["n"]
    lin.unload(str(b))
    assert exact(lin) == only_a and no_claims(lin) == 0
    lin.load([b])  # back again: the same graph as the first time
    assert graphcheck.of(lin) == both and no_claims(lin) == claimed


def test_a_load_then_its_unload_leaves_the_graph_as_it_was(lin):
    """Every real sample, loaded onto a graph holding the samples before it (its first onto
    an empty graph; a workflow's stampede.db before its event stream), then unloaded: the
    graph is what it was, and then loaded for good."""
    found = inputs()
    assert len(found) >= 20
    for item in found:
        before = exact(lin)
        lin.load([item.path])
        assert exact(lin) != before, item.path
        lin.unload(item.path)
        assert exact(lin) == before, item.path
        lin.load([item.path])
    assert no_claims(lin) > 0  # the samples share hosts, users, files...


def test_conflicting_values_the_newest_load_wins_and_the_other_is_kept(lin, tmp_path, cli_env):
    """Two end records of one run that disagree on its exit status: the newer is shown,
    the load warns, stats count it; unloading the newer brings back the older's value."""
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    first_dir.mkdir()
    second_dir.mkdir()
    _, ok = xalt_pair(first_dir, exit_status="0")
    _, bad = xalt_pair(second_dir, exit_status="2")
    lin.load([ok])
    [result] = lin.load([bad])
    assert run_node(lin)["exit_status"] == 2 and run_node(lin)["status"] == "failed"
    warnings = result.report["warnings"]
    assert any("exit_status 2 in" in w and str(ok) in w for w in warnings), warnings
    assert result.report["conflicting_claims"] == 1
    [row] = claims.conflicts(lin.graph.driver, lin.graph.database)
    assert row["of"] == RUN and ["exit_status", 0, 2] in [list(d) for d in row["differ"]] \
        or ["exit_status", 2, 0] in [list(d) for d in row["differ"]]
    assert lin.stats()["claims"] == {"shared": lin.stats()["claims"]["shared"],
                                     "conflicting": 1}
    out = CliRunner(env=cli_env).invoke(cli.main, ["stats"])
    assert "  1 with values they disagree on (newest shown)" in out.output, out.output
    lin.unload(str(bad))
    assert run_node(lin)["exit_status"] == 0 and run_node(lin)["status"] == "succeeded"
    assert lin.stats()["claims"]["conflicting"] == 0


def test_a_reload_that_no_longer_states_a_value_takes_it_back(lin, tmp_path):
    """A new version of an input replaces its claim: a property it no longer states goes,
    even on a node another input states too."""
    start, end = xalt_pair(tmp_path)
    lin.load([start])
    lin.load([end])
    zzz = zzz_from_aaa(sample_run(), run_time=42.5)
    del zzz["userT"]["queue"]  # the end record no longer says the queue
    zzz_start = sample_run()
    del zzz_start["userT"]["queue"]
    end.write_text(signed(zzz))
    start.write_text(signed(zzz_start))
    lin.load([end])
    lin.load([start])
    assert "queue" not in run_node(lin)


def claims_held(lin) -> list:
    """Every claim (its time aside: each write's own), comparable across graphs."""
    rows = lin.query("MATCH (c:Claim) RETURN properties(c) AS p")
    return sorted(graphcheck.canonical({k: v for k, v in r["p"].items() if k != "claim_at"})
                  for r in rows)


def test_loads_that_state_an_element_alike_keep_no_claims(lin, tmp_path):
    """Runs of one program on one host state the host, user, program and libraries alike:
    no claims of them, one by one or many at once; an end record states its run otherwise:
    claims of that run alone, and unloading it leaves the graph as it was."""
    from .test_fleet import run_file

    folder = tmp_path / "runs"
    folder.mkdir()
    first = [run_file(folder, n) for n in range(2)]
    for path in first:
        lin.load([path])  # one by one
    lin.load([run_file(folder, n) for n in range(2, 6)])  # many at once
    hosts = lin.query("MATCH (h:Host) RETURN size(h.loads) AS loads")
    assert [h["loads"] for h in hosts] == [6]
    assert no_claims(lin) == 0
    before = exact(lin)
    end = run_file(folder, 3, end=True)
    lin.load([end])
    run = "xalt:run:00000000-0000-0000-0000-000000000004"
    claimed = lin.query("MATCH (c:Claim) RETURN DISTINCT c.claim_of AS of")
    assert [c["of"] for c in claimed] == [run]
    lin.unload(str(end))
    assert exact(lin) == before and no_claims(lin) == 0
    lin.unload(str(first[0]))  # a host the others state alike keeps what they state
    assert lin.query("MATCH (h:Host) RETURN h.name AS name, size(h.loads) AS loads") \
        == [{"name": "stampede2", "loads": 5}]


def test_claims_do_not_depend_on_how_records_were_batched(lin, tmp_path):
    """Two copies of a workflow's event stream state its jobs alike, but the second one,
    written a record per transaction, states each job in parts (one event after the other):
    no claims either way, and the same graph."""
    from lineage.load.inputs import expand
    from lineage.load.pipeline import load_input
    from lineage.load.writer import Writer, ensure_schema

    for name in ("a.bp", "b.bp"):
        shutil.copy(PEGASUS / "blackdiamond-4.0.bp", tmp_path / name)
    seen = []
    for batch_size in (None, 1):
        lin.reset(force=True)
        writer = Writer(lin.graph.driver, lin.graph.database, batch_size=batch_size,
                        batch_inputs=False)
        ensure_schema(writer.driver, writer.database)
        for name in ("a.bp", "b.bp"):
            [item] = expand([tmp_path / name])
            assert load_input(writer, item).status == "loaded"
        seen.append((claims_held(lin), graphcheck.of(lin)))
    assert seen[1] == seen[0] and seen[0][0] == []
