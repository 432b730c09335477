"""Many small XALT run files, one stream of writes (lineage/load/fleet.py): each file is
still a load of its own (recorded, unloaded, reloaded one by one) while their writes go
many to a transaction. The graph a batch leaves is the one the files loaded one by one
(lineage.load.pipeline.load_input) leave, claims included."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from neo4j._sync.work.session import Session
from neo4j._sync.work.transaction import TransactionBase

from lineage.errors import ParseError
from lineage.load import fleet, status_labels
from lineage.load.inputs import expand
from lineage.load.fleet import load
from lineage.load.pipeline import load_input
from lineage.load.writer import Writer, ensure_schema

from . import graphcheck
from .conftest import run_cli
from .corpus import SAMPLES, needs_corpus
from .xalt_helpers import sample_run, signed, zzz_from_aaa

pytestmark = pytest.mark.usefixtures("lin")

RUNS = 16
HOLDING = 4  # runs loaded one by one before the batch: the hubs are in the graph already


def run_file(folder: Path, n: int, end: bool = False, **user) -> Path:
    """Run record ``n`` (its own uuid and job, the sample's host, user, program and
    libraries); ``end``: the end record of that run; ``user``: userT values to change."""
    record = sample_run()
    run_uuid = str(uuid.UUID(int=n + 1))
    record["userT"]["run_uuid"] = run_uuid
    record["userT"]["job_id"] = f"job{n}"
    record["envT"]["SLURM_JOB_ID"] = f"job{n}"
    if end:
        record = zzz_from_aaa(record, run_time=10.0 + n)
    record["userT"].update(user)
    path = folder / f"run.stampede2.2017_06_29_11_48_33.mclay.{'zzz' if end else 'aaa'}.{run_uuid}.json"
    path.write_text(signed(record))
    return path


def fleet_of(folder: Path) -> list[Path]:
    """The batch: 16 runs; a start and an end record of one run (a second statement of a
    run node: claims); two end records of one run that disagree on its exit status (a
    conflict); a record reusing run 5's uuid for another program (refused as a duplicate).
    The first HOLDING are the graph's before the batch."""
    folder.mkdir()
    paths = [run_file(folder, n) for n in range(RUNS)]
    paths.append(run_file(folder, 7, end=True))
    paths.append(run_file(folder, 9, end=True, exit_status="0"))
    twin = folder / "twin"
    twin.mkdir()
    paths.append(run_file(twin, 9, end=True, exit_status="2"))
    paths.append(run_file(folder / "twin", 5, exec_path="/bin/other-program"))
    return paths


def claims_of(lin) -> list:
    """Every claim: what it claims, whose, its values (its time aside: each write's own)."""
    rows = lin.query("MATCH (c:Claim) RETURN properties(c) AS p")
    return sorted(json.dumps({k: v for k, v in r["p"].items() if k != "claim_at"},
                             sort_keys=True) for r in rows)


def loads_of(lin) -> list:
    rows = lin.query("MATCH (l:Load) RETURN l.path AS path, l.status AS status, "
                     "l.version AS version, l.tag AS tag, l.node_records AS nodes, "
                     "l.edge_records AS edges, l.changes AS changes, "
                     "l.writing AS writing ORDER BY path")
    return [dict(r) for r in rows]


def one_by_one(lin, paths: list[Path]) -> list:
    """The files loaded each on its own (the path of a reload, a URL, a large file), the
    status labels refreshed after, as ``lin.load`` does."""
    writer = Writer(lin.graph.driver, lin.graph.database)
    ensure_schema(writer.driver, writer.database)
    results = []
    for path in paths:
        [item] = expand([path])
        results.append(load_input(writer, item))
    status_labels.refresh(writer.driver, writer.database)
    return results


def state(lin):
    return graphcheck.of(lin, with_loads=True), claims_of(lin), loads_of(lin)


def test_a_batch_leaves_the_graph_the_files_one_by_one_leave(lin, tmp_path):
    paths = fleet_of(tmp_path / "runs")
    one_by_one(lin, paths[:HOLDING])
    singly = one_by_one(lin, paths[HOLDING:])
    expected = state(lin)
    lin.reset(force=True)
    one_by_one(lin, paths[:HOLDING])
    together = lin.load(paths[HOLDING:])
    assert state(lin) == expected
    assert [r.status for r in together] == [r.status for r in singly]
    assert [r.changes for r in together] == [r.changes for r in singly]
    assert ([r.write.unresolved_edges for r in together]
            == [r.write.unresolved_edges for r in singly])
    assert [r.report.get("conflicting_claims") for r in together] == \
        [r.report.get("conflicting_claims") for r in singly]
    refused = together[-1].report
    assert refused["duplicate_uids_of_other_inputs"] == 1, refused
    conflict = together[-2].report
    assert conflict["conflicting_claims"] >= 1 and any(
        "exit_status" in w and str(paths[-3]) in w for w in conflict["warnings"]), conflict
    assert expected[1], "the batch made claims"


def test_unloading_one_file_of_a_batch_takes_exactly_its_statements(lin, tmp_path):
    paths = fleet_of(tmp_path / "runs")
    gone = paths[HOLDING + 4]  # run 8: no other record of it
    one_by_one(lin, [p for p in paths if p != gone])
    without = graphcheck.of(lin)
    lin.reset(force=True)
    one_by_one(lin, paths[:HOLDING])
    lin.load(paths[HOLDING:])
    with_it = graphcheck.of(lin)
    [row] = lin.unload(str(gone))
    assert row["nodes_removed"] > 0
    assert graphcheck.of(lin) == without != with_it
    # the end record of a run whose start record stays: only its values go
    end = paths[RUNS]
    lin.unload(str(end))
    [run] = lin.query("MATCH (r:Lineage {uid: $uid}) RETURN properties(r) AS p",
                      uid=f"xalt:run:{uuid.UUID(int=8)}")
    assert "end_time" not in run["p"] and run["p"]["job_id"] == "job7"


def test_a_malformed_file_in_the_middle_is_named_and_the_others_are_written(lin, tmp_path):
    folder = tmp_path / "runs"
    paths = fleet_of(folder)[:12]
    bad = folder / f"run.stampede2.2017_06_29_11_48_33.mclay.aaa.{uuid.UUID(int=999)}.json"
    bad.write_text(signed(sample_run())[:-40])  # cut short
    with pytest.raises(ParseError) as caught:
        lin.load(paths[:6] + [bad] + paths[6:])
    assert str(bad) in str(caught.value) and "expected" in str(caught.value)
    results = caught.value.results
    assert [r.status for r in results] == ["loaded"] * 6 + ["failed"] + ["loaded"] * 6
    assert str(bad) in results[6].error
    runs = {r["uid"] for r in lin.query("MATCH (r:Execution) RETURN r.uid AS uid")}
    assert runs == {f"xalt:run:{uuid.UUID(int=n + 1)}" for n in range(12)}
    [failed] = [x for x in loads_of(lin) if x["path"] == str(bad)]
    assert failed["status"] == "failed" and failed["version"] is None


def test_reloading_a_batch_changes_nothing(lin, tmp_path):
    paths = fleet_of(tmp_path / "runs")
    lin.load(paths)
    before = graphcheck.of(lin, with_loads=True), claims_of(lin)
    again = lin.load(paths)
    assert {r.status for r in again} == {"unchanged"}
    assert (graphcheck.of(lin, with_loads=True), claims_of(lin)) == before
    times = lin.query("MATCH (l:Load) RETURN min(l.times_loaded) AS least")
    assert times[0]["least"] == 2


class Spy:
    """Statements sent to the server and transactions begun, counted in the driver."""

    def __init__(self, monkeypatch):
        self.statements = self.transactions = 0
        real_run, real_auto, real_tx = (TransactionBase.run, Session.run,
                                        Session._run_transaction)

        def run(tx, *args, **kwargs):
            self.statements += 1
            return real_run(tx, *args, **kwargs)

        def auto(session, *args, **kwargs):
            self.statements += 1
            self.transactions += 1
            return real_auto(session, *args, **kwargs)

        def transaction(session, *args, **kwargs):
            self.transactions += 1
            return real_tx(session, *args, **kwargs)

        monkeypatch.setattr(TransactionBase, "run", run)
        monkeypatch.setattr(Session, "run", auto)
        monkeypatch.setattr(Session, "_run_transaction", transaction)


def test_a_batch_costs_a_bounded_number_of_round_trips(lin, tmp_path, monkeypatch):
    folder = tmp_path / "runs"
    folder.mkdir()
    small = [run_file(folder, n) for n in range(10)]
    large = [run_file(folder, n) for n in range(10, 70)]
    one_by_one(lin, [run_file(folder, 100)])  # the hubs are there: claims
    ensure_schema(lin.graph.driver, lin.graph.database)
    counts = []
    for paths in (small, large):
        spy = Spy(monkeypatch)
        results = lin.load(paths)
        assert {r.status for r in results} == {"loaded"}
        counts.append((spy.statements, spy.transactions))
        monkeypatch.undo()
    (few_statements, few_tx), (many_statements, many_tx) = counts
    # six times the files, the same statements and transactions (within a few: the
    # relationship types asked about depend on what the graph holds)
    assert many_statements <= few_statements + 3 and many_tx <= few_tx, counts
    # fewer than one per file (most are the schema's, once per load: its indexes)
    assert many_statements < len(large) and many_tx < len(large), counts
    assert len(large) <= fleet.BATCH_INPUTS


def test_files_past_a_batch_go_in_several(lin, tmp_path, monkeypatch):
    monkeypatch.setattr(fleet, "BATCH_INPUTS", 4)
    folder = tmp_path / "runs"
    folder.mkdir()
    paths = [run_file(folder, n) for n in range(10)]
    seen = []
    results = lin.load(paths, progress=lambda event, info: seen.append((event, info["path"])))
    assert [r.status for r in results] == ["loaded"] * 10
    done = [p for e, p in seen if e == "done"]
    assert done == [str(p) for p in paths]
    [row] = lin.query("MATCH (l:Load) WHERE l.writing IS NOT NULL RETURN count(l) AS n")
    assert row["n"] == 0
    assert len({x["tag"] for x in loads_of(lin)}) == 10


def test_stats_answers_with_the_loads_by_source_and_status(lin, tmp_path, cli_env):
    folder = tmp_path / "runs"
    paths = fleet_of(folder)[:5]
    bad = folder / f"run.stampede2.2017_06_29_11_48_33.mclay.aaa.{uuid.UUID(int=998)}.json"
    bad.write_text(signed(sample_run())[:-40])  # cut short
    with pytest.raises(ParseError):
        lin.load(paths + [bad])
    out = run_cli(cli_env, "stats").stdout.splitlines()
    nodes = lin.query("MATCH (n:Lineage) RETURN count(n) AS n")[0]["n"]
    assert out[0].startswith(f"{nodes:,} nodes and ") and "stated by 6 inputs (5 loaded, 1 failed)" in out[0], out
    loaded = next(line for line in out[:5] if " xalt " in line and " loaded " in line)
    stated = lin.query("MATCH (l:Load {status: 'loaded'}) "
                       "RETURN sum(l.node_records + l.edge_records) AS n")[0]["n"]
    assert loaded.split()[2:4] == ["5", f"{stated:,}"], loaded
    assert not any(str(p) in line for p in paths for line in out)  # no line per input
    listed = run_cli(cli_env, "stats", "--loads").stdout
    assert all(p.name in listed for p in paths + [bad])


@needs_corpus
def test_the_samples_of_three_sources_in_batches_give_the_graph_one_by_one_gives(lin):
    """Pegasus, Chimbuko and XALT samples (small files all, so batched): the same graph,
    claims, loads and counts as each written on its own."""
    inputs = [SAMPLES / "pegasus", SAMPLES / "chimbuko", SAMPLES / "xalt"]
    singly = load(Writer(lin.graph.driver, lin.graph.database, batch_inputs=False), inputs)
    status_labels.refresh(lin.graph.driver, lin.graph.database)
    expected = state(lin)
    lin.reset(force=True)
    together = lin.load(inputs)
    assert state(lin) == expected
    keys = ("path", "status", "node_records", "edge_records", "unresolved_edges", "changes",
            "warning_count")
    assert [{k: r.as_dict()[k] for k in keys} for r in together] == \
        [{k: r.as_dict()[k] for k in keys} for r in singly]
    assert len(together) > 3


def test_a_batch_that_dies_before_its_commit_leaves_nothing_half_written(lin, tmp_path,
                                                                         monkeypatch):
    """The process stops after the batch's nodes, relationships and claims were sent, before
    its records: none of its inputs is in the graph, and loading them again loads them."""
    paths = fleet_of(tmp_path / "runs")[:10]
    one_by_one(lin, paths[:2])
    before = graphcheck.of(lin, with_loads=True), claims_of(lin)

    def killed(tx, finished):
        raise RuntimeError("killed")

    monkeypatch.setattr(fleet.loads, "end_writes", killed)
    with pytest.raises(RuntimeError, match="killed"):
        lin.load(paths[2:])
    assert (graphcheck.of(lin, with_loads=True), claims_of(lin)) == before
    assert {x["status"] for x in loads_of(lin) if x["path"] in map(str, paths[2:])} == {None}
    monkeypatch.undo()
    assert {r.status for r in lin.load(paths[2:])} == {"loaded"}
    runs = lin.query("MATCH (r:Execution) RETURN count(r) AS n")[0]["n"]
    assert runs == 10


def test_an_input_a_stopped_load_left_its_tag_on_is_not_batched(lin, tmp_path):
    """A load stopped while it wrote leaves its write mark and its tag on what it wrote: the
    next load of that input goes on its own, so the batch's tags (appended without looking
    for them) are never there twice."""
    from lineage.load import loads
    from lineage.load.inputs import identity

    paths = fleet_of(tmp_path / "runs")[:6]
    one_by_one(lin, paths[:2])
    [item] = expand([paths[3]])
    lid = loads.load_id(item.format.name, identity(item))
    tag = loads.tag_of(lid, 1)
    loads.begin_writes(lin.graph.driver, lin.graph.database,
                       [{"lid": lid, "tag": tag, "path": item.path, "format": item.format.name}])
    lin.graph.driver.execute_query("MATCH (h:Host) SET h.loads = h.loads + $tag",  # it wrote
                                   tag=tag, database_=lin.graph.database)
    assert loads.previous_many(lin.graph.driver, lin.graph.database, [lid])[lid].marked
    assert not fleet.batchable(paths[3], loads.previous_many(lin.graph.driver,
                                                             lin.graph.database, [lid])[lid])
    results = lin.load(paths[2:])
    assert {r.status for r in results} == {"loaded"}
    twice = lin.query("MATCH (n:Lineage) UNWIND n.loads AS t WITH n, t, count(*) AS c "
                      "WHERE c > 1 RETURN count(*) AS n")
    assert twice == [{"n": 0}]
    assert lin.query("MATCH (h:Host) RETURN size(h.loads) AS n") == [{"n": 6}]


def test_a_batch_stating_otherwise_what_the_graph_holds_alike_keeps_each_loads_claim(
        lin, tmp_path):
    """Three runs' start records in the graph state the host alike (no claims); a batch
    holds the end record of one of them, which states its run otherwise: the run's claims
    (the graph's load's, made by the server, and the batch's) are those the files one by
    one leave, and unloading the end record gives the start record's values back."""
    folder = tmp_path / "runs"
    folder.mkdir()
    held = [run_file(folder, n) for n in range(3)]
    batch = [run_file(folder, n) for n in range(3, 6)] + [run_file(folder, 1, end=True)]
    one_by_one(lin, held)
    before = graphcheck.of(lin, with_loads=True)
    one_by_one(lin, batch)
    expected = state(lin)
    lin.reset(force=True)
    one_by_one(lin, held)
    assert claims_of(lin) == []
    assert {r.status for r in lin.load(batch)} == {"loaded"}
    assert state(lin) == expected
    assert {json.loads(c)["claim_of"] for c in claims_of(lin)} == {
        f"xalt:run:{uuid.UUID(int=2)}"}
    for path in batch:
        lin.unload(str(path))
    assert graphcheck.of(lin, with_loads=True) == before and claims_of(lin) == []


def test_lineage_load_of_many_files_answers_with_the_count_and_the_failed_one(lin, tmp_path,
                                                                              cli_env):
    """`lineage load` of a folder of 25 files: the first lines, the malformed file past them
    named with what was expected, how many lines were not printed, then the summary."""
    from lineage.cli import INPUT_LINES

    folder = tmp_path / "runs"
    folder.mkdir()
    for n in range(INPUT_LINES + 4):
        run_file(folder, n)
    bad = folder / f"run.stampede2.2017_06_29_11_48_33.mclay.aaa.{uuid.UUID(int=999)}.json"
    bad.write_text(signed(sample_run())[:-40])  # cut short; its name sorts last
    proc = run_cli(cli_env, "load", str(folder), check=False)
    lines = proc.stderr.splitlines()
    inputs = [x for x in lines if x.startswith(("loaded ", "failed "))]
    assert len(inputs) == INPUT_LINES + 1, proc.stderr
    assert inputs[-1].startswith("failed") and str(bad) in inputs[-1], inputs[-1]
    assert "... and 4 more inputs loaded or unchanged" in proc.stderr
    assert proc.stdout.startswith(f"loaded {INPUT_LINES + 4} of {INPUT_LINES + 5} inputs; "
                                  "1 failed"), proc.stdout
    every = run_cli(cli_env, "-v", "load", str(folder), check=False).stderr
    assert sum(x.startswith(("unchanged ", "failed ")) for x in every.splitlines()) \
        == INPUT_LINES + 5


def test_stats_says_which_loads_were_stopped_while_writing(lin, tmp_path, cli_env):
    """A load whose process is gone still bears its write mark: stats counts it as stopped
    while writing, not as writing, and says to load it again."""
    from lineage.load import loads

    paths = fleet_of(tmp_path / "runs")[:2]
    one_by_one(lin, paths[:1])
    [item] = expand([paths[1]])
    lid = loads.load_id(item.format.name, "/gone/run.json")
    loads.begin_writes(lin.graph.driver, lin.graph.database,
                       [{"lid": lid, "tag": loads.tag_of(lid, 1), "path": "/gone/run.json",
                         "format": item.format.name}])
    lin.graph.driver.execute_query("MATCH (l:Load {uid: $uid}) SET l.writer = $gone",
                                   uid=loads.load_uid(lid), gone="nohost-x:1",
                                   database_=lin.graph.database)
    assert {r["status"] for r in loads.summary(lin.graph.driver, lin.graph.database)} \
        == {"loaded", "writing"}  # another host's process: it may be writing
    import socket
    dead = f"{socket.gethostname()}:{2**22 + 4321}"
    lin.graph.driver.execute_query("MATCH (l:Load {uid: $uid}) SET l.writer = $gone",
                                   uid=loads.load_uid(lid), gone=dead,
                                   database_=lin.graph.database)
    assert {r["status"] for r in loads.summary(lin.graph.driver, lin.graph.database)} \
        == {"loaded", loads.STOPPED}
    out = run_cli(cli_env, "stats").stdout
    assert f"1 input {loads.STOPPED} (the process is gone): load them again" in out, out


def test_loading_again_an_input_stopped_while_writing_takes_back_what_it_wrote(lin, tmp_path):
    """A load killed mid-write left its mark, its tag on the host and a node of its own: the
    next load of that input takes them back first, and the graph is the one a load of the
    input alone leaves."""
    import socket

    from lineage.load import loads
    from lineage.load.inputs import identity

    paths = fleet_of(tmp_path / "runs")[:2]
    one_by_one(lin, paths)
    expected = graphcheck.of(lin)  # the tags aside: the input's next version has its own
    lin.unload(str(paths[1]))
    [item] = expand([paths[1]])
    lid = loads.load_id(item.format.name, identity(item))
    tag = loads.tag_of(lid, loads.previous(lin.graph.driver, lin.graph.database, lid).version
                       + 1)
    loads.begin_writes(lin.graph.driver, lin.graph.database,
                       [{"lid": lid, "tag": tag, "path": item.path, "format": item.format.name}])
    lin.graph.driver.execute_query(
        "MATCH (l:Load {uid: $uid}) SET l.writer = $dead "
        "WITH l MATCH (h:Host) SET h.loads = h.loads + $tag "
        "CREATE (:Lineage:Host {uid: 'host:half-written', name: 'half-written', loads: [$tag]})",
        uid=loads.load_uid(lid), dead=f"{socket.gethostname()}:{2**22 + 4321}", tag=tag,
        database_=lin.graph.database)
    [result] = lin.load([paths[1]])
    assert result.status == "loaded"
    assert lin.query("MATCH (h:Host {name: 'half-written'}) RETURN count(h) AS n") == [{"n": 0}]
    twice = lin.query("MATCH (n:Lineage) UNWIND n.loads AS t WITH n, t, count(*) AS c "
                      "WHERE c > 1 RETURN count(*) AS n")
    assert twice == [{"n": 0}]
    assert graphcheck.of(lin) == expected


def test_load_each_hands_over_each_result_in_order_and_keeps_none(lin, tmp_path,
                                                                   monkeypatch):
    """``lin.load_each`` yields every input's result in the order of the walk and holds
    none once taken (a 10^5-file fleet in flat memory: lin.load kept every result); the
    malformed input among them is a failed result, and its error is raised at the end.
    Smaller windows and batches, so that a few hundred files span many of them."""
    import gc
    import weakref

    monkeypatch.setattr(fleet, "WINDOW", 64)
    monkeypatch.setattr(fleet, "BATCH_INPUTS", 16)
    folder = tmp_path / "many"
    folder.mkdir()
    count = 200
    paths = [run_file(folder, 100 + n) for n in range(count)]
    broken = paths[count // 2]
    broken.write_text(broken.read_text()[:500])  # cut in mid-record
    order = [item.path for item in expand([folder])]
    taken, alive_most = [], 0
    kept: list[weakref.ref] = []
    with pytest.raises(ParseError) as raised:
        for result in lin.load_each([folder]):
            taken.append((result.path, result.status))
            kept.append(weakref.ref(result))
            del result
            gc.collect()
            alive_most = max(alive_most, sum(ref() is not None for ref in kept))
    assert [path for path, _ in taken] == order
    assert [path for path, status in taken if status != "loaded"] == [str(broken)]
    assert str(broken) in str(raised.value) and raised.value.results == []
    # results of a window and a batch (the one written while the window was read) at most
    assert alive_most <= fleet.WINDOW + fleet.BATCH_INPUTS, alive_most
    [row] = lin.query("MATCH (l:Load {status: 'loaded'}) RETURN count(l) AS n")
    assert row["n"] == count - 1


def test_a_load_each_left_early_leaves_every_load_whole(lin, tmp_path, monkeypatch):
    """Leaving ``lin.load_each``'s loop stops the load: the inputs read by then are written
    and recorded whole (no write mark left), the others not at all; loading the folder
    again loads the rest and finds the first ones unchanged."""
    from collections import Counter

    monkeypatch.setattr(fleet, "WINDOW", 64)
    monkeypatch.setattr(fleet, "BATCH_INPUTS", 16)
    folder = tmp_path / "many"
    folder.mkdir()
    count = 100
    for n in range(count):
        run_file(folder, 300 + n)
    for _ in lin.load_each([folder]):
        break
    rows = lin.query("MATCH (l:Load) RETURN l.status AS status, l.writing AS writing")
    assert 0 < len(rows) < count
    assert all(r["status"] == "loaded" and not r["writing"] for r in rows), rows
    again = Counter(r.status for r in lin.load([folder]))
    assert again == {"unchanged": len(rows), "loaded": count - len(rows)}
