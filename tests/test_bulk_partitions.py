"""A bulk load past its memory budget folds on disk, partition by partition
(lineage.bulk.partitions), into the graph the in-memory fold gives: the same CSV rows, the
same write stats, conflict warnings, tag counts and empty lists per input, whether the
budget is passed in the middle of the first input or between inputs.
"""

from __future__ import annotations

import json
import os

import pytest

from lineage.bulk import partitions as bulk_partitions
from lineage.load import loads
from lineage.bulk.spill import Fold
from lineage.load.spool import Spool
from lineage.model import NODE_KINDS, REL_TYPES
from lineage.load.inputs import Input, expand, identity
from lineage.load.pipeline import first_result, parse_to_spool
from lineage.model.records import Edge, Node
from lineage.sources.base import Format, LoadReport

from .conftest import SAMPLES
from .test_bulk_load import _row_set, _uid_rows
from .xalt_helpers import RUN_AAA, signed
from .corpus import needs_corpus


def _fold(items, budget, directory) -> dict:
    """The bulk load's fold of ``items`` (the calls its loop makes), written as CSV."""
    fold = Fold(budget, directory, sum(_size(i) for i in items))
    results = []
    for item in items:
        lid = loads.load_id(item.format.name, identity(item))
        report, result = LoadReport(item.path, item.format.name), first_result(item)
        folding = fold.first_store(loads.tag_of(lid, 1), f"{lid}:", report)
        spool = parse_to_spool(item, report, Spool(store=folding) if folding else None)
        if spool.node_counts or spool.edge_counts:
            fold.add(spool, folding, loads.tag_of(lid, 1), f"{lid}:", report, result)
        spool.close()
        fold.read(item.path)
        result.report = report.summary()
        results.append(result)
    partitioned = fold.partitions is not None
    (directory / "csv").mkdir()
    node_rows, rel_rows = _uid_rows(fold.write_csv(directory / "csv"))
    out = {"nodes": _row_set(node_rows), "relationships": _row_set(rel_rows),
           "tagged": fold.tagged(), "empty": sorted(map(repr, fold.empty_lists())),
           "stats": [(r.write.node_rows, r.write.edge_rows, r.write.edges_written,
                      r.write.unresolved_edges, len(r.write.unresolved_examples))
                     for r in results],
           "reports": [r.report for r in results], "partitioned": partitioned}
    fold.close()
    assert not any(directory.glob("bulk-fold-*")), "the partitions' files are removed"
    return out


def _size(item) -> int:
    return os.path.getsize(item.path) if os.path.isfile(item.path) else 0


def _conflicting_runs(tmp_path) -> list[Input]:
    """Three XALT inputs of one run uuid: the first, another program (a conflict: left out,
    warned about), the first again (no conflict)."""
    rec = json.loads(RUN_AAA.read_text())
    uuid = rec["userT"]["run_uuid"]
    other = json.loads(RUN_AAA.read_text())
    other["userT"]["exec_path"] = "/usr/bin/other-program"
    other["hash_id"] = "e" * 40
    paths = []
    for name, record in (("a", rec), ("b", other), ("c", rec)):
        path = tmp_path / name / f"run.x.aaa.{uuid}.json"
        path.parent.mkdir()
        path.write_text(signed(record))
        paths.append(path)
    return list(expand(paths))


def _edges_before_nodes(tmp_path) -> Input:
    """Relationships stated before their ends (they wait while the input is folded in
    memory), restated with other properties, one never resolved, nodes gaining labels."""
    job, wf, user = (NODE_KINDS[k] for k in ("Job", "Workflow", "User"))
    part_of, by = REL_TYPES["PART_OF"], REL_TYPES["WAS_ASSOCIATED_WITH"]

    def parse(path, report):
        yield Node(wf, wf.uid("w"), {"xwf_id": "w"})
        yield Edge(by, wf.uid("w"), user.uid("u"), {"site": "first"}, "a")
        for n in range(3, 1502):
            yield Edge(part_of, job.uid("w", f"j{n}"), wf.uid("w"), {}, "")
        yield Node(user, user.uid("u"), {"name": "u"})
        for n in range(3, 1502):
            yield Node(job, job.uid("w", f"j{n}"), {"job_id": f"j{n}", "xwf_id": "w"})
        yield Edge(by, wf.uid("w"), user.uid("u"), {"site": "second"}, "a")
        yield Edge(part_of, job.uid("w", "j2"), wf.uid("w"), {}, "c")  # j2 never comes
        for n in range(3, 1400):
            yield Edge(part_of, job.uid("w", f"j{n}"), wf.uid("w"), {}, "")
            yield Node(job, job.uid("w", f"j{n}"), {"max_retries": n, "host": "s"})
            yield Edge(by, wf.uid("w"), user.uid("u"), {"site": f"s{n}"}, "a")

    path = tmp_path / "made.txt"
    path.write_text("x")
    return Input(str(path), Format("test", "test", lambda p, h: False, parse), True)


def _conflicting_ends(tmp_path) -> list[Input]:
    """Two inputs stating one execution differently: the second's relationships from and
    to it are left out (neither written nor counted)."""
    exe, run, host = (NODE_KINDS[k] for k in ("Execution", "ProgramRun", "Host"))
    within, on = REL_TYPES["RAN_WITHIN"], REL_TYPES["WAS_ASSOCIATED_WITH"]
    e = exe.uid("u-1")

    def first(path, report):
        yield Node(exe, e, {"uuid": "u-1", "exec_path": "/a", "sha1": "1" * 40})
        yield Node(host, host.uid("h1"), {"name": "h1"})
        yield Edge(on, e, host.uid("h1"), {}, "")

    def second(path, report):
        yield Node(exe, e, {"uuid": "u-1", "exec_path": "/b", "sha1": "1" * 40})
        yield Node(run, run.uid("r", "1"), {"run": "r", "pid": 1})
        yield Node(host, host.uid("h2"), {"name": "h2"})
        yield Edge(within, run.uid("r", "1"), e, {}, "")  # ends at the duplicate
        yield Edge(on, e, host.uid("h2"), {}, "")  # starts at it

    made = []
    for name, parse in (("first", first), ("second", second)):
        path = tmp_path / f"{name}.txt"
        path.write_text(name)
        made.append(Input(str(path), Format("test", "test", lambda p, h: False, parse), True))
    return made


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list[Input]:
    tmp = tmp_path_factory.mktemp("inputs")
    made = _edges_before_nodes(tmp)
    samples = [i for i in expand([SAMPLES]) if i.format is not None]
    # the made input first (it spills while folded as read), the conflicts last
    return [made, *samples, *_conflicting_runs(tmp), *_conflicting_ends(tmp)]


@pytest.fixture(scope="module")
def in_memory(inputs, tmp_path_factory) -> dict:
    return _fold(inputs, None, tmp_path_factory.mktemp("memory"))


@needs_corpus
def test_the_reference_fold_is_worth_comparing_with(in_memory):
    assert not in_memory["partitioned"]
    assert len(in_memory["nodes"]) > 1000 and len(in_memory["relationships"]) > 3000
    assert any(s[3] for s in in_memory["stats"]), "an unresolved relationship"
    assert any(r.get("duplicate_uids_of_other_inputs") for r in in_memory["reports"])
    assert in_memory["empty"], "an empty list value"


@needs_corpus
@pytest.mark.parametrize("budget, buffered", [
    (1000, 7),       # in the middle of the first input; chunks of a few rows
    (4000, 200_000),  # between inputs (the first holds ~3,000 elements)
    (4500, 50),      # later (after seven inputs)
])
def test_past_the_budget_the_fold_on_disk_gives_the_same_graph(inputs, in_memory, tmp_path,
                                                               monkeypatch, budget, buffered):
    monkeypatch.setattr(bulk_partitions, "BUFFERED_ROWS", buffered)
    on_disk = _fold(inputs, budget, tmp_path)
    assert on_disk["partitioned"]
    assert on_disk == {**in_memory, "partitioned": True}


@needs_corpus
def test_the_first_input_spills_in_its_middle(inputs, tmp_path, monkeypatch):
    """With a budget of 1,000 the made input (3,000 elements) goes to disk while it is read:
    some of its relationships were folded in memory, some waited, the rest came after."""
    spilled = []
    real = Fold._to_disk
    monkeypatch.setattr(Fold, "_to_disk", lambda self, *a: spilled.append(
        (len(self.in_memory), len(self.graph.nodes))) or real(self, *a))
    _fold(inputs[:1], 1000, tmp_path)
    assert spilled and spilled[0][0] == 1 and 0 < spilled[0][1] < 1600


def test_partitions_are_sized_for_the_whole_input():
    assert bulk_partitions.partitions_for(10_000_000, 1_000_000) == 40
    assert bulk_partitions.partitions_for(100, 1_000_000) == 8
    assert bulk_partitions.partitions_for(10**12, 1000) == 1024


@needs_corpus
def test_a_first_input_that_fails_after_its_spill_leaves_nothing(inputs, tmp_path):
    """Strict: the made input with a bad record at its end fails after going to disk; the
    fold is empty again, its files are gone, and the next input folds in memory."""
    from lineage.errors import ParseError

    made = inputs[0]

    def broken(path, report):
        yield from made.format.parse(path, report)
        yield Node(NODE_KINDS["Job"], "pegasus:job:w:bad", {"no_such_property": 1})

    bad = Input(made.path, Format("test", "test", lambda p, h: False, broken), True)
    fold = Fold(1000, tmp_path, 1)
    report = LoadReport(bad.path, "test")
    folding = fold.first_store("t:1", "t:", report)
    with pytest.raises(ParseError, match="no_such_property"):
        parse_to_spool(bad, report, Spool(store=folding))
    assert folding.partitions is not None  # it had gone to disk
    fold.forget()
    assert fold.empty() and not fold.in_memory and not any(tmp_path.glob("bulk-fold-*"))
    nxt = inputs[1]
    report = LoadReport(nxt.path, nxt.format.name)
    assert fold.first_store("u:1", "u:", report) is not None


def test_the_cli_prints_a_pending_input_with_its_folded_counts_in_input_order():
    """Past the budget an input's line waits for its final counts ("folded"); the lines of
    inputs after it wait behind it, so the order stays the inputs'."""
    from lineage.cli import _progress_printer

    def info(path, unresolved=0, pending=False, status="loaded"):
        return {"status": status, "path": path, "format": "f", "node_records": 1,
                "edge_records": 2, "seconds": 0.1, "unresolved_edges": unresolved,
                "skipped": {}, "unknown": {}, "pending": pending}

    lines = []
    printer = _progress_printer(False, echo=lines.append)
    printer("done", info("a"))  # folded in memory: printed at once
    printer("done", info("b", pending=True))
    printer("done", info("c", status="failed"))  # not pending, but after b
    printer("done", info("d", pending=True))
    assert [line.split()[1] for line in lines] == ["a"]
    printer("folded", info("b", unresolved=3))
    printer("folded", info("d", unresolved=1))
    assert [line.split()[1] for line in lines] == ["a", "b", "c", "d"]
    assert "3 edges point at nodes not in the graph" in lines[1]
    assert "1 edges point at" in lines[3] and "point at" not in lines[2]

    printer("step", {"message": "bulk load: importing"})  # a step: printed as it comes
    assert lines[-1] == "bulk load: importing"
    quiet = []
    _progress_printer(True, echo=quiet.append)("step", {"message": "x"})
    assert quiet == []

    lines.clear()
    printer("done", info("e", pending=True))  # the load fails before its fold is done
    printer("done", info("f"))
    assert lines == []
    printer.flush()
    assert [line.split()[1] for line in lines] == ["e", "f"]


@needs_corpus
def test_one_process_folds_the_partitions_as_two_do(inputs, in_memory, tmp_path, monkeypatch):
    from lineage.bulk import csv as bulk

    forks = []
    monkeypatch.setattr(bulk, "_write_partitions_forked",
                        lambda *a: forks.append(1) or None)  # as when fork fails
    assert _fold(inputs, 1000, tmp_path) == {**in_memory, "partitioned": True}
    assert forks == [1]
    monkeypatch.setattr(bulk, "_second_core", lambda: False)
    (tmp_path / "again").mkdir()
    assert _fold(inputs, 1000, tmp_path / "again") == {**in_memory, "partitioned": True}
    assert forks == [1]


def _breaking(monkeypatch, name, action):
    from lineage.bulk import csv as bulk

    real = getattr(bulk, name)
    calls = []

    def broken(graph, shapes):
        calls.append(1)
        if len(calls) == 3:  # the third partition's
            action()
        real(graph, shapes)

    monkeypatch.setattr(bulk, name, broken)


def _raise():
    raise ValueError("disk on fire")


@needs_corpus
def test_an_error_folding_relationships_on_disk_is_raised_here(inputs, tmp_path, monkeypatch):
    from lineage.errors import LineageError

    _breaking(monkeypatch, "_write_edges", _raise)  # in the child
    with pytest.raises(LineageError, match="folding the relationships on disk: ValueError: "
                                           "disk on fire"):
        _fold(inputs, 1000, tmp_path)


@needs_corpus
def test_a_killed_relationship_process_is_an_error(inputs, tmp_path, monkeypatch):
    import signal

    from lineage.errors import LineageError

    _breaking(monkeypatch, "_write_edges", lambda: os.kill(os.getpid(), signal.SIGKILL))
    with pytest.raises(LineageError, match="ended without an answer"):
        _fold(inputs, 1000, tmp_path)


@needs_corpus
def test_an_error_folding_nodes_on_disk_ends_the_relationship_process(inputs, tmp_path,
                                                                     monkeypatch):
    import signal

    def hung(*_):
        raise TimeoutError("the relationship process was left waiting for partitions")

    _breaking(monkeypatch, "_write_nodes", _raise)  # here: the child must not wait forever
    children, real_fork = [], os.fork
    monkeypatch.setattr(os, "fork", lambda: children.append(real_fork()) or children[-1])
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        with pytest.raises(ValueError, match="disk on fire"):
            _fold(inputs, 1000, tmp_path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    [child] = [pid for pid in children if pid]  # the parent's view; the child sees 0
    with pytest.raises(ChildProcessError):  # it ended and was waited for
        os.waitpid(child, os.WNOHANG)


@needs_corpus
def test_a_full_disk_under_the_partitions_is_an_error_naming_the_place(inputs, tmp_path,
                                                                       monkeypatch):
    import errno
    import pickle
    from types import SimpleNamespace

    from lineage.errors import LineageError

    def full(*_, **__):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bulk_partitions, "pickle", SimpleNamespace(
        dump=full, load=pickle.load, HIGHEST_PROTOCOL=pickle.HIGHEST_PROTOCOL))
    with pytest.raises(LineageError, match=r"bulk-fold-[^/]*/[a-z-]+-\d+\.pickle: the bulk load's "
                                           r"fold could not be written there \(No space left "
                                           r"on device\); free space there, or raise "
                                           r"LINEAGE_BULK_FOLD_ELEMENTS"):
        _fold(inputs, 1000, tmp_path)
