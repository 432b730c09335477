"""`lineage load --bulk`: neo4j-admin import into an empty managed database gives the graph a
normal load gives, with the same :Load records; it refuses a graph that is not empty and a
server that is not the managed one.

The bulk side runs on a managed server of this module's own (a state directory under the
test state, started and stopped here: the import stops and restarts its server); the normal
side on the session's test server.
"""

from __future__ import annotations

import csv
import os
import signal
import socket
import subprocess
import sys
import shutil
import time
import urllib.request
from pathlib import Path

import pytest

from lineage import server
from lineage.api import Lineage
from lineage import bulk as bulk_package
from lineage.bulk import BulkRefused, admin
from lineage.bulk.csv import ARRAY_DELIMITER, csv_field, write_csv
from lineage.bulk.fold import FoldedGraph, FoldingStore
from lineage.load.spool import Spool
from lineage.server.connection import Graph, Settings
from lineage.errors import LineageError, ParseError
from lineage.load.pipeline import parse_to_spool
from lineage.sources.base import LoadReport
from lineage.load.writer import WriteStats, ensure_schema

from . import graphcheck
from .conftest import SAMPLES, TEST_STATE
from .corpus import inputs, needs_corpus

BULK_STATE = TEST_STATE / "bulk"

#: every source's samples, and one input twice-named (a file also inside a named directory)
INPUTS = [SAMPLES / "pegasus", SAMPLES / "swift", SAMPLES / "xalt", SAMPLES / "chimbuko"]

LOAD_KEYS = ("id", "path", "format", "source", "status", "version", "tag", "sha256",
             "node_records", "edge_records", "unresolved_edges", "counts", "changes",
             "options", "times_loaded", "last_attempt", "skipped", "unknown", "warnings")


@pytest.fixture(scope="module")
def bulk_lin(neo4j_settings):
    """A handle on this module's own managed server (LINEAGE_HOME points at it)."""
    if not neo4j_settings.managed:
        pytest.skip("--bulk needs the managed server (NEO4J_URI or Docker is in use)")
    old = os.environ.get("LINEAGE_HOME")
    os.environ["LINEAGE_HOME"] = str(BULK_STATE)
    info = server.start(BULK_STATE)
    lin = Lineage(Graph.connect(Settings(info["uri"], info["user"], server.password(BULK_STATE),
                                         None, True)))
    try:
        yield lin
    finally:
        lin.close()
        server.stop(BULK_STATE)
        if old is None:
            os.environ.pop("LINEAGE_HOME", None)
        else:
            os.environ["LINEAGE_HOME"] = old


def _loads(lin) -> dict[str, dict]:
    rows = lin.query("MATCH (l:Load) RETURN l.uid AS uid, properties(l) AS p")
    return {r["uid"]: {k: r["p"].get(k) for k in LOAD_KEYS} for r in rows}


def _stats(lin) -> dict:
    """``stats()`` without the loads' finish times (and so their order)."""
    stats = lin.stats()
    stats["loads"] = sorted(({k: v for k, v in row.items() if k != "finished_at"}
                             for row in stats["loads"]), key=lambda row: row["id"])
    stats["load_summary"] = [{k: v for k, v in row.items() if k != "last_finished_at"}
                             for row in stats["load_summary"]]
    return stats


def _summary(results) -> list[tuple]:
    return [(r.path, r.status, r.nodes, r.edges, r.write.unresolved_edges, r.changes)
            for r in results]


def _import_id_types(monkeypatch, node_files: list[str] | None = None) -> list[str]:
    """The ``--id-type`` of each neo4j-admin import from now on (and the names of its node
    files, into ``node_files``)."""
    used, real = [], admin.import_full

    def noting(*args, **kwargs):
        used.append(kwargs["id_type"])
        if node_files is not None:
            node_files.extend(path.name for path in args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(admin, "import_full", noting)
    return used


@needs_corpus
def test_bulk_gives_the_graph_a_normal_load_gives(lin, bulk_lin, monkeypatch):
    from lineage.bulk import csv as bulk_csv

    bulk_lin.reset(force=True)
    normal = lin.load(INPUTS)
    node_files: list[str] = []
    id_types = _import_id_types(monkeypatch, node_files)
    monkeypatch.setattr(bulk_csv, "FORK_RELATIONSHIPS", 1)  # two writers, as at 10^6,
    monkeypatch.setattr(bulk_csv, "SHAPE_FILE_ROWS", 50)  # with kinds of files of their own
    bulk = bulk_lin.load(INPUTS, bulk=True)
    assert id_types == ["integer"]  # numbered nodes; no number is left as a property:
    # some kinds' nodes written by the relationships' writer, the rest here
    assert any(name.startswith("nodes-child-") for name in node_files)
    assert any(not name.startswith("nodes-child-") for name in node_files)
    # the load ends with the server all up, its web server (started after Bolt) too
    browser = server.status(BULK_STATE)["browser_url"]
    with urllib.request.urlopen(browser, timeout=10) as page:
        assert page.status == 200
    assert [r.status for r in bulk] == [r.status for r in normal]
    assert "loaded" in {r.status for r in bulk}
    assert _summary(bulk) == _summary(normal)
    expected = graphcheck.of(lin, with_loads=True)
    assert expected.nodes > 500 and expected.rels > 1000
    assert graphcheck.of(bulk_lin, with_loads=True) == expected
    assert _loads(bulk_lin) == _loads(lin)

    # queryable by templates, with the same answers
    job = lin.query("MATCH (j:Job) RETURN j.uid AS uid ORDER BY uid LIMIT 1")[0]["uid"]
    assert bulk_lin.query("ancestors", uid=job) == lin.query("ancestors", uid=job)
    assert bulk_lin.query("ancestors", uid=job)
    assert _stats(bulk_lin) == _stats(lin)

    # the model's constraints are there: a second node of one uid is refused
    uid = bulk_lin.query("MATCH (n:Lineage) RETURN n.uid AS uid LIMIT 1")[0]["uid"]
    with pytest.raises(Exception, match="already exists"):
        bulk_lin.graph.run("CREATE (:Lineage {uid: $uid})", {"uid": uid}, write=True)

    # unload and reload work on the bulk graph as on the normal one
    victim = str(SAMPLES / "pegasus" / "blackdiamond-4.0.bp")
    assert ([(u["nodes_removed"], u["edges_removed"]) for u in bulk_lin.unload(victim)]
            == [(u["nodes_removed"], u["edges_removed"]) for u in lin.unload(victim)])
    assert graphcheck.of(bulk_lin, with_loads=True) == graphcheck.of(lin, with_loads=True)
    again = [r.status for r in bulk_lin.load(INPUTS)]
    assert again == [r.status for r in lin.load(INPUTS)]
    assert "loaded" in again and "unchanged" in again
    assert graphcheck.of(bulk_lin, with_loads=True) == graphcheck.of(lin, with_loads=True)


@needs_corpus
def test_a_bulk_load_past_its_memory_budget_gives_the_same_graph(lin, bulk_lin, monkeypatch):
    """Folded on disk, partition by partition, past 1,000 elements in memory."""
    from lineage.bulk.spill import Fold
    from lineage.sources.options import LoadOptions

    spilled = []
    real = Fold._to_disk
    monkeypatch.setattr(Fold, "_to_disk",
                        lambda self, *a: spilled.append(len(self.in_memory)) or real(self, *a))
    bulk_lin.reset(force=True)
    state = server.ServerPaths.under(BULK_STATE).root
    leftover = state / "bulk-fold-killed"  # what a bulk load killed before its cleanup left
    leftover.mkdir()
    (leftover / "nodes-0.pickle").write_bytes(b"x" * 1000)
    normal = lin.load(INPUTS)
    events, id_types = [], _import_id_types(monkeypatch)
    on_disk = bulk_lin.load(iter(INPUTS),  # an iterator, read once (a glob, say)
                            bulk=True, options=LoadOptions(bulk_fold_elements=1000),
                            progress=lambda event, info: events.append((event, info)))
    assert len(spilled) == 1 and spilled[0] > 1  # between inputs, after several
    assert id_types == ["string"]  # the partitions' nodes keep their uids as IDs
    pending = [i["path"] for e, i in events if e == "done" and i.get("pending")]
    folded = {i["path"]: i for e, i in events if e == "folded"}
    assert pending and list(folded) == pending
    steps = [i["message"] for e, i in events if e == "step"]
    assert len(steps) == 3 and "folding on disk" in steps[0] and "neo4j-admin" in steps[1]
    assert [folded[r.path]["unresolved_edges"] for r in on_disk if r.path in folded] == [
        r.write.unresolved_edges for r in on_disk if r.path in folded]
    assert _summary(on_disk) == _summary(normal)
    assert graphcheck.of(bulk_lin, with_loads=True) == graphcheck.of(lin, with_loads=True)
    assert _loads(bulk_lin) == _loads(lin)
    assert not [p for p in state.glob("bulk-*") if p.is_dir()]


@needs_corpus
def test_bulk_refuses_a_graph_that_is_not_empty(bulk_lin, tmp_path):
    bulk_lin.reset(force=True)
    bulk_lin.load([SAMPLES / "xalt"])
    before = graphcheck.of(bulk_lin, with_loads=True)
    with pytest.raises(BulkRefused, match="empty database"):
        bulk_lin.load([SAMPLES / "swift"], bulk=True)
    env = dict(os.environ, LINEAGE_HOME=str(BULK_STATE))
    for name in ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD"):
        env.pop(name, None)
    run = subprocess.run([sys.executable, "-m", "lineage", "load", "--bulk", "-q",
                          str(SAMPLES / "swift")], env=env, capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "empty database" in run.stderr and "Traceback" not in run.stderr
    assert graphcheck.of(bulk_lin, with_loads=True) == before


@needs_corpus
def test_bulk_refuses_a_server_that_is_not_the_managed_one(lin, bulk_lin):
    """The session's server is not the managed server of LINEAGE_HOME (this module's)."""
    with pytest.raises(BulkRefused, match="managed local server only"):
        lin.load([SAMPLES / "swift"], bulk=True)
    assert graphcheck.of(lin).nodes == 0


@needs_corpus
@pytest.mark.parametrize("bad_first", [False, True], ids=["good-then-bad", "bad-then-good"])
def test_a_malformed_input_is_left_out_of_a_bulk_load(bulk_lin, tmp_path, bad_first):
    """The first input is folded while it is read (a failure there empties the graph
    again), the others after: the bad one is left out either way."""
    bulk_lin.reset(force=True)
    bad = tmp_path / "bad.bp"
    good = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
    bad.write_text(good.read_text()[:2000] + '\nts=2012-03-13T12:35:38.000000Z event=x "\n')

    with pytest.raises(ParseError) as caught:
        bulk_lin.load([bad, good] if bad_first else [good, bad], bulk=True)
    statuses = {Path(r.path).name: r.status for r in caught.value.results}
    assert statuses == {"blackdiamond-4.0.bp": "loaded", "bad.bp": "failed"}
    tags = bulk_lin.query("MATCH (n:Lineage) UNWIND n.loads AS t RETURN DISTINCT t")
    assert len(tags) == 1
    assert bulk_lin.query("MATCH (l:Load) RETURN l.status AS s ORDER BY s") == [
        {"s": "failed"}, {"s": "loaded"}]


def _bolt_answers(uri: str) -> bool:
    host, port = uri.rsplit("/", 1)[-1].rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return True
    except OSError:
        return False


@needs_corpus
def test_the_server_is_down_while_a_bulk_load_parses(bulk_lin):
    """The stop overlaps the parse (and keeps other clients from writing into the database
    the import replaces): while the second input is parsed, Bolt no longer answers."""
    bulk_lin.reset(force=True)
    uri = server.status(BULK_STATE)["uri"]
    seen = []

    env = dict(os.environ, LINEAGE_HOME=str(BULK_STATE))
    for name in ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD"):
        env.pop(name, None)
    started_meanwhile = []

    def progress(event, info):
        if event == "start" and len(seen) == 1:  # the second input: poll until the stop is done
            deadline = time.monotonic() + 120
            while _bolt_answers(uri) and time.monotonic() < deadline:
                time.sleep(0.2)
            seen.append(_bolt_answers(uri))
            # another lineage command meanwhile must not start the server under the import
            started_meanwhile.append(subprocess.run(
                [sys.executable, "-m", "lineage", "neo4j", "start"], env=env,
                capture_output=True, text=True))
        elif event == "start":
            seen.append(None)

    results = bulk_lin.load([SAMPLES / "xalt", SAMPLES / "swift"], bulk=True, progress=progress)
    assert len(seen) == len(results) > 2 and seen[1] is False
    [other] = started_meanwhile
    assert other.returncode == 4, other.stderr
    assert f"load --bulk` (pid {os.getpid()})" in other.stderr and "Traceback" not in other.stderr
    assert not server.ServerPaths.under(BULK_STATE).bulk_mark.exists()
    assert {r.status for r in results} == {"loaded"}
    assert server.status(BULK_STATE)["running"]
    assert bulk_lin.query("MATCH (l:Load) RETURN count(l) AS n")[0]["n"] >= 2


@needs_corpus
def test_a_bulk_load_that_breaks_before_the_import_starts_the_server_again(bulk_lin,
                                                                          monkeypatch):
    bulk_lin.reset(force=True)
    _load_with_a_broken_parse(bulk_lin, monkeypatch)
    assert bulk_lin.query("MATCH (n) RETURN count(n) AS n") == [{"n": 0}]  # reconnected


def _load_with_a_broken_parse(bulk_lin, monkeypatch) -> None:
    """A bulk load whose parse raises: each input fails with that error (no input aborts
    the others), the errors come out, the server runs again."""
    from lineage import bulk

    def broken(*args, **kwargs):
        raise RuntimeError("a fault in the parse")

    monkeypatch.setattr(bulk, "parse_to_spool", broken)
    with pytest.raises(ParseError, match="RuntimeError: a fault in the parse"):
        bulk_lin.load([SAMPLES / "xalt"], bulk=True)
    assert server.status(BULK_STATE)["running"]


@needs_corpus
def test_a_server_that_ends_while_finishing_its_start_is_the_news_unless_the_load_failed(
        bulk_lin, monkeypatch):
    """The restart returns once Bolt answers; the web server's start may still fail (its
    port taken). That failure is raised by a load that went well, and only logged by one
    already failing (its own error stays the news)."""
    def ended(self):
        if self._log_offset is not None:  # a restart that returned at Bolt
            raise server.ServerError("Neo4j ended while starting (a test)")

    monkeypatch.setattr(server.BackgroundStop, "await_started", ended)
    bulk_lin.reset(force=True)
    before = server.status(BULK_STATE)
    with pytest.raises(server.ServerError, match="ended while starting"):
        bulk_lin.load([SAMPLES / "xalt"], bulk=True)
    after = server.status(BULK_STATE)  # back on its ports (its clients' sockets aside)
    assert (after["uri"], after["browser_url"]) == (before["uri"], before["browser_url"])
    bulk_lin.reset(force=True)
    _load_with_a_broken_parse(bulk_lin, monkeypatch)


def test_an_import_with_no_stop_begun_before_ends_with_the_server_all_up(bulk_lin,
                                                                         monkeypatch):
    """``import_full`` without a ``stopping`` makes its own stop and restart; the restart
    returns at Bolt, so it waits for "Started." itself (its web server answers at once)."""
    awaited, real_await = [], server.await_started
    monkeypatch.setattr(server, "await_started",
                        lambda *args, **kwargs: awaited.append(1) or real_await(*args, **kwargs))
    graph = FoldedGraph()
    graph.nodes["host:h"] = [["Lineage", "Host"], {"kind": "Host", "name": "h"}, ["t:1"]]
    work = server.ServerPaths.under(BULK_STATE).root / "bulk-by-hand"
    work.mkdir()
    try:
        files = write_csv(graph, work)
        admin.import_full(BULK_STATE, files.nodes, files.relationships, ARRAY_DELIMITER,
                           report=work / "import.report", id_type=files.id_type)
        assert awaited == [1]
        # the import replaced the database: a new driver, as a bulk load makes (the old one's
        # bookmarks name transactions the new database never reaches)
        bulk_package.reconnect(bulk_lin, BULK_STATE)
        with urllib.request.urlopen(server.status(BULK_STATE)["browser_url"],
                                    timeout=10) as page:
            assert page.status == 200
        assert bulk_lin.query("MATCH (n:Host) RETURN n.uid AS uid") == [{"uid": "host:h"}]
    finally:
        shutil.rmtree(work, ignore_errors=True)
        bulk_lin.reset(force=True)
        ensure_schema(bulk_lin.graph.driver, bulk_lin.graph.database)


def test_csv_fields_keep_quotes_commas_and_newlines():
    assert csv_field('a,"b"\nc') == '"a,""b""\nc"'
    assert csv_field(["x", "y"]) == '"x\x1fy"'
    assert csv_field(None) == ""
    assert csv_field(False) == "false" and csv_field(1.5) == "1.5"
    assert csv_field([1, 2]) == '"1\x1f2"' and csv_field([True, False]) == '"true\x1ffalse"'
    assert csv_field([2.5]) == '"2.5"' and csv_field([]) == '""'
    assert csv_field(['say "x"', "y"]) == '"say ""x""\x1fy"'


@pytest.mark.parametrize("value", [["a\x1fb"], ["a", "\x1f"], ["\x1f"]])
def test_a_list_value_holding_the_array_delimiter_is_refused(value):
    with pytest.raises(LineageError, match="array delimiter"):
        csv_field(value)


def _csv_rows(files) -> list[tuple[int, dict]]:
    """Each row of the CSV files (header first) as {column: field}, with its file's index."""
    out = []
    for number, path in enumerate(files):
        header, *lines = list(csv.reader(path.open(encoding="utf-8", newline="")))
        for line in lines:
            assert len(line) <= len(header)  # trailing columns may be left out
            out.append((number, dict(zip(header, line))))
    return out


def _uid_rows(files) -> tuple[list[tuple[int, dict]], list[tuple[int, dict]]]:
    """The rows of ``write_csv``'s files as the uid-keyed dialect has them: a numbered node's
    ``:ID`` and ``uid:string`` become ``uid:ID`` (each number checked to be one node's), a
    relationship's ends the uids of the nodes so numbered."""
    nodes, rels = _csv_rows(files.nodes), _csv_rows(files.relationships)
    if files.id_type == "string":
        return nodes, rels
    assert files.id_type == "integer"
    uids: dict[str, str] = {}
    renamed = []
    for number, row in nodes:
        ident, uid = row.pop(":ID"), row.pop("uid:string")
        assert ident.isdecimal() and ident not in uids
        uids[ident] = uid
        renamed.append((number, {"uid:ID": uid, **row}))
    return renamed, [(number, {**row, ":START_ID": uids[row[":START_ID"]],
                               ":END_ID": uids[row[":END_ID"]]}) for number, row in rels]


def test_each_row_gets_the_header_of_its_own_value_types(tmp_path):
    """A property name typed one way in a file stays so: a long and a double, a boolean,
    string and double lists of one name go to files of their own (a header kept per names
    alone would type the second row wrongly); rows of other names share the first file."""
    graph = FoldedGraph()
    rows = {"n:1": 3, "n:2": 2.5, "n:3": True, "n:4": ["a"], "n:5": [1.5], "n:6": 4}
    for uid, value in rows.items():
        graph.nodes[uid] = [["Lineage", "LineageEntity"], {"kind": "Dataset", "x": value},
                            ["t:1"]]
    graph.nodes["n:7"] = [["Lineage"], {"kind": "Host", "name": "h", "y": 2.5}, ["t:1"]]
    graph.edges[("USED", "n:1", "n:2", None)] = [{"w": 1}, ["t:1"]]
    graph.edges[("USED", "n:2", "n:3", "k")] = [{"w": 1.0}, ["t:1"]]
    files = write_csv(graph, tmp_path)
    node_rows, rel_rows = _uid_rows(files)
    typed = {row["uid:ID"]: (number, row) for number, row in node_rows}
    assert typed["n:1"][1]["x:long"] == "3" and typed["n:6"][1]["x:long"] == "4"
    assert typed["n:2"][1]["x:double"] == "2.5"
    assert typed["n:3"][1]["x:boolean"] == "true"
    assert typed["n:4"][1]["x:string[]"] == "a" and typed["n:5"][1]["x:double[]"] == "1.5"
    assert len(files.nodes) == 5  # one per type of x
    assert typed["n:7"] == (0, {"uid:ID": "n:7", ":LABEL": "Lineage", "loads:string[]": "t:1",
                                "kind:string": "Host", "x:long": "", "name:string": "h",
                                "y:double": "2.5"})
    assert typed["n:1"][0] == typed["n:6"][0] == 0
    rels = {(row[":START_ID"], row[":END_ID"]): row for _, row in rel_rows}
    assert rels[("n:1", "n:2")]["w:long"] == "1"
    assert rels[("n:2", "n:3")]["w:double"] == "1.0" and rels[("n:2", "n:3")]["key:string"] == "k"
    assert len(files.relationships) == 2


def test_rare_row_shapes_share_one_file_and_its_columns(tmp_path):
    """Columns are the union of the rare shapes' properties; a row's fields sit under its
    own columns, the ones it lacks left empty (in between) or out (at the end), which
    neo4j-admin reads as no value."""
    graph = FoldedGraph()
    graph.nodes["a"] = [["Lineage"], {"kind": "Job", "p": "1", "q": 2}, ["t:1"]]
    graph.nodes["b"] = [["Lineage"], {"kind": "Job", "r": True}, ["t:1"]]
    graph.nodes["c"] = [["Lineage"], {"kind": "Job", "q": 5, "r": False, "z": "x,\"y\""},
                        ["t:1", "t:2"]]
    (tmp_path / "numbered").mkdir()
    (tmp_path / "uids").mkdir()
    [path], _, id_type, _ = write_csv(graph, tmp_path / "numbered")
    assert id_type == "integer" and path.read_text().splitlines() == [
        ":ID,uid:string,:LABEL,loads:string[],kind:string,p:string,q:long,r:boolean,z:string",
        '0,"a","Lineage","t:1","Job","1",2',
        '1,"b","Lineage","t:1","Job",,,true',
        '2,"c","Lineage","t:1\x1ft:2","Job",,5,false,"x,""y"""',
    ]
    [path], _, id_type, _ = write_csv(graph, tmp_path / "uids", numbered=False)
    assert id_type == "string" and path.read_text().splitlines() == [
        "uid:ID,:LABEL,loads:string[],kind:string,p:string,q:long,r:boolean,z:string",
        '"a","Lineage","t:1","Job","1",2',
        '"b","Lineage","t:1","Job",,,true',
        '"c","Lineage","t:1\x1ft:2","Job",,5,false,"x,""y"""',
    ]


def test_a_common_row_shape_gets_a_file_of_its_own(tmp_path, monkeypatch):
    """A shape with SHAPE_FILE_ROWS rows is written to a file of its own (its rows before
    and after that point), the rarer ones to the shared file; every row once."""
    from lineage.bulk import csv as bulk

    monkeypatch.setattr(bulk, "SHAPE_FILE_ROWS", 3)
    graph = FoldedGraph()
    for n in range(7):  # 7 of one shape, interleaved with 2 of others
        graph.nodes[f"j{n}"] = [["Lineage"], {"kind": "Job", "q": n}, ["t:1"]]
        if n in (1, 5):
            graph.nodes[f"h{n}"] = [["Lineage"], {"kind": "Host", "name": f"h{n}"}, ["t:1"]]
    for n in range(6):
        graph.edges[("USED", f"j{n}", f"j{n + 1}", None)] = [{}, ["t:1"]]
    written = write_csv(graph, tmp_path)
    rows, rel_rows = _uid_rows(written)
    assert sorted(row["uid:ID"] for _, row in rows) == sorted(graph.nodes)
    files = {row["uid:ID"]: number for number, row in rows}
    assert {files[f"j{n}"] for n in range(7)} == {0} and files["h1"] == files["h5"] == 1
    assert {row["uid:ID"]: row.get("q:long") for _, row in rows if row["uid:ID"][0] == "j"} == {
        f"j{n}": str(n) for n in range(7)}
    assert len(written.nodes) == 2 and len(written.relationships) == 1
    assert sorted((row[":START_ID"], row[":END_ID"]) for _, row in rel_rows) == [
        (f"j{n}", f"j{n + 1}") for n in range(6)]


# ------------------------------------------------------------------ the first input's fold
def _folded_both_ways(item) -> tuple[FoldedGraph, WriteStats, FoldedGraph, WriteStats]:
    """One input folded while it is read (the first input of a bulk load) and from its
    spool afterwards (every later one)."""
    report = LoadReport(item.path, item.format.name)
    eager = FoldedGraph()
    store = FoldingStore(eager, "t")
    parse_to_spool(item, report, Spool(store=store))
    eager_stats = store.stats
    later = FoldedGraph()
    spool = parse_to_spool(item, LoadReport(item.path, item.format.name))
    try:
        later_stats, _ = later.add_input(spool, "t", "p:", report)
    finally:
        spool.close()
    return eager, eager_stats, later, later_stats


@needs_corpus
@pytest.mark.parametrize("item", inputs(),
                         ids=lambda i: i.path.rsplit("/", 1)[-1])
def test_the_first_input_folds_while_read_as_it_would_after(item):
    eager, eager_stats, later, later_stats = _folded_both_ways(item)
    assert later.nodes and eager.nodes == later.nodes and eager.edges == later.edges
    assert eager_stats == later_stats


def test_relationships_read_before_their_ends_keep_their_order(tmp_path):
    """A relationship naming a node not read yet waits, and so do later statements of it:
    the last one's properties win, as when folded after the input; one whose end never
    comes is unresolved."""
    from lineage import model
    from lineage.load.inputs import Input
    from lineage.model.records import Edge, Node
    from lineage.sources.base import Format

    job, wf, user = (model.NODE_KINDS[k] for k in ("Job", "Workflow", "User"))
    part_of, by = model.REL_TYPES["PART_OF"], model.REL_TYPES["WAS_ASSOCIATED_WITH"]
    def j(n):
        return Node(job, job.uid("w", f"j{n}"), {"job_id": f"j{n}", "xwf_id": "w"})

    def edge(n, key):
        return Edge(part_of, job.uid("w", f"j{n}"), wf.uid("w"), {}, key)

    def ran_by(site, key):
        return Edge(by, wf.uid("w"), user.uid("u"), {"site": site}, key)

    def parse(path, report):  # the spool folds 1,000 rows at a time (spool.CHUNK_ROWS)
        yield Node(wf, wf.uid("w"), {"xwf_id": "w"})
        yield ran_by("first", "a")  # the user is not folded yet when this is: waits
        for n in range(3, 1002):  # the first 1,000 relationships go before their ends
            yield edge(n, "")
        yield Node(user, user.uid("u"), {"name": "u"})
        for n in range(3, 1002):  # the nodes' first 1,000 go (with the workflow and user)
            yield j(n)
        yield ran_by("second", "a")  # both ends are known now, but it waits behind "first"
        yield ran_by("other", "b")  # known ends, nothing waiting: folded at once
        yield edge(2, "c")  # j2 never comes: unresolved at the end
        for n in range(3, 1000):  # a second 1,000 relationships, folded before the end
            yield edge(n, "again")

    path = tmp_path / "x.txt"
    path.write_text("x")
    item = Input(str(path), Format("test", "test", lambda p, h: False, parse), True)
    eager, eager_stats, later, later_stats = _folded_both_ways(item)
    assert eager.nodes == later.nodes and eager.edges == later.edges
    assert eager_stats == later_stats
    assert eager_stats.unresolved_edges == 1 and eager_stats.edges_written == 1999
    assert len(eager.edges) == 1998
    ran = {key: props["site"] for (rel, _, _, key), (props, _) in eager.edges.items()
           if rel == "WAS_ASSOCIATED_WITH"}
    assert ran == {"a": "second", "b": "other"}


def _graph_with_lists() -> FoldedGraph:
    graph = FoldedGraph()
    for n in range(300):
        graph.nodes[f"n{n}"] = [["Lineage"], {"kind": "Job", "q": n, "e": [] if n % 7 else ["x"]},
                                ["t:1"]]
    for n in range(299):
        graph.edges[("USED", f"n{n}", f"n{n + 1}", "k" if n % 2 else None)] = [
            {"role": "in", "w": [] if n % 5 == 0 else [1.5]}, ["t:1", "t:2"]]
    return graph


def _content(files) -> list:
    return _row_set(_csv_rows(files))


def _row_set(rows) -> list:
    return sorted(tuple(sorted((k, v) for k, v in row.items() if v != "")) for _, row in rows)


def test_relationships_written_by_a_forked_child_are_the_same(tmp_path, monkeypatch):
    from lineage.bulk import csv as bulk

    alone, forked = _graph_with_lists(), _graph_with_lists()
    (tmp_path / "a").mkdir()
    files_alone = write_csv(alone, tmp_path / "a")
    monkeypatch.setattr(bulk, "FORK_RELATIONSHIPS", 1)
    children = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: children.append(1) or real_fork())
    (tmp_path / "f").mkdir()
    files_forked = write_csv(forked, tmp_path / "f")
    assert children == [1]
    assert _content(files_forked[0]) == _content(files_alone[0])
    assert _content(files_forked[1]) == _content(files_alone[1]) and len(files_forked[1]) > 0
    assert sorted(map(repr, forked.empty_lists)) == sorted(map(repr, alone.empty_lists))
    assert sum("start" in e for e in forked.empty_lists) == 60


def test_the_relationship_child_writes_whole_kinds_of_node_too(tmp_path, monkeypatch):
    """With few relationships the forked writer takes some kinds' nodes, whole; together
    the two write what one process writes."""
    from lineage.bulk import csv as bulk

    def graph() -> FoldedGraph:
        g, jobs, hosts = FoldedGraph(), ["Lineage", "Job"], ["Lineage", "Host"]
        for n in range(400):
            g.nodes[f"j{n}"] = [jobs, {"q": n, "r": "x", "s": 1.5, "t": [n]}, ["t:1"]]
            g.nodes[f"h{n}"] = [hosts, {"name": f"h{n}", "e": [] if n % 3 else ["x"]}, ["t:1"]]
        for n in range(50):
            g.edges[("USED", f"j{n}", f"h{n}", None)] = [{}, ["t:1"]]
        return g

    monkeypatch.setattr(bulk, "SHAPE_FILE_ROWS", 100)
    alone, forked = graph(), graph()
    (tmp_path / "a").mkdir()
    files_alone = write_csv(alone, tmp_path / "a")
    monkeypatch.setattr(bulk, "FORK_RELATIONSHIPS", 1)
    (tmp_path / "f").mkdir()
    files_forked = write_csv(forked, tmp_path / "f")
    child = [f for f in files_forked.nodes if f.name.startswith("nodes-child-")]
    assert child and len(child) < len(files_forked.nodes)
    labels = {row[":LABEL"] for _, row in _csv_rows(child)}
    assert len(labels) == 1  # one kind, whole
    assert len(_csv_rows(child)) == 400
    assert _content(files_forked.nodes) == _content(files_alone.nodes)
    assert _content(files_forked.relationships) == _content(files_alone.relationships)
    assert sorted(map(repr, forked.empty_lists)) == sorted(map(repr, alone.empty_lists))
    assert len(forked.empty_lists) == 266  # the hosts with an empty list, either writer
    monkeypatch.setattr(bulk, "SHAPE_FILE_ROWS", 1000)  # kinds too small for files of their own
    (tmp_path / "r").mkdir()
    assert not [f for f in write_csv(graph(), tmp_path / "r").nodes if "child" in f.name]


def _files_with_line_breaks(files) -> list:
    """The files in which a field holds a line break, as the csv module reads them."""
    return [path for path in files
            if any("\n" in field or "\r" in field
                   for row in csv.reader(path.open(encoding="utf-8", newline=""))
                   for field in row)]


@pytest.mark.parametrize("fork", [False, True])
def test_the_files_with_line_breaks_in_fields_are_named(tmp_path, monkeypatch, fork):
    """Only they are read by neo4j-admin the slower, multi-line way: a kind's own file, a
    file of rarer rows, and a relationships' file with a break (CR alone too), by either
    writer; and the others are not named."""
    from lineage.bulk import csv as bulk

    g, jobs, hosts, rare = FoldedGraph(), ["Lineage", "Job"], ["Lineage", "Host"], ["Lineage", "File"]
    for n in range(300):
        g.nodes[f"j{n}"] = [jobs, {"out": "ok\n" if n == 250 else "ok"}, ["t:1"]]
        g.nodes[f"h{n}"] = [hosts, {"name": f"h{n}"}, ["t:1"]]
    g.nodes["f"] = [rare, {"lfn": "a\rb"}, ["t:1"]]
    g.nodes["g"] = [["Lineage", "Task"], {"name": "t"}, ["t:1"]]
    for n in range(300):
        g.edges[("USED", f"j{n}", f"h{n}", None)] = [{"role": "x\ny" if n == 7 else "x"},
                                                      ["t:1"]]
        g.edges[("WAS_ASSOCIATED_WITH", f"j{n}", f"h{n}", None)] = [{}, ["t:1"]]
    monkeypatch.setattr(bulk, "SHAPE_FILE_ROWS", 100)
    monkeypatch.setattr(bulk, "FORK_RELATIONSHIPS", 1 if fork else 10**9)
    files = write_csv(g, tmp_path)
    every = [*files.nodes, *files.relationships]
    expected = _files_with_line_breaks(every)
    assert len(expected) == 3 and len(every) == 5
    assert sorted(files.multiline) == sorted(expected)


def test_an_error_in_the_relationship_child_is_raised_here(tmp_path, monkeypatch):
    from lineage.bulk import csv as bulk

    monkeypatch.setattr(bulk, "FORK_RELATIONSHIPS", 1)
    graph = _graph_with_lists()
    graph.edges[("USED", "n1", "n3", None)] = [{"bad name": 1}, ["t:1"]]
    with pytest.raises(LineageError, match="property name 'bad name' cannot go into"):
        write_csv(graph, tmp_path)


def test_a_killed_relationship_child_is_an_error(tmp_path, monkeypatch):
    from lineage.bulk import csv as bulk

    monkeypatch.setattr(bulk, "FORK_RELATIONSHIPS", 1)
    monkeypatch.setattr(bulk, "_write_edges",  # runs in the child only
                        lambda *args: os.kill(os.getpid(), signal.SIGKILL))
    with pytest.raises(LineageError, match="ended without an answer"):
        write_csv(_graph_with_lists(), tmp_path)


def test_without_a_second_process_one_writes_both(tmp_path, monkeypatch):
    from lineage.bulk import csv as bulk

    monkeypatch.setattr(bulk, "FORK_RELATIONSHIPS", 1)

    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    graph = _graph_with_lists()
    files = write_csv(graph, tmp_path)
    node_rows, rel_rows = _uid_rows(files)
    assert len(rel_rows) == 299 and len(node_rows) == 300
    assert sum("start" in e for e in graph.empty_lists) == 60
    import gc
    assert gc.get_freeze_count() == 0


def test_folded_elements_share_no_list_or_dict_they_change():
    """The fold shares a kind's labels, a load's tag list and the empty properties between
    elements (a fifth of its memory at 10^6); one element gaining a label, a tag or a
    property must not give it to the others. (The fold takes checked rows: the extra label
    and the property need not be declared here.)"""
    from lineage import model
    labels = list(model.kind("Job").labels)
    graph, stats = FoldedGraph(), WriteStats()
    a, b = "pegasus:job:w:a", "pegasus:job:w:b"
    graph.fold_nodes([("Job", a, {"job_id": "a"}, ()), ("Job", b, {"job_id": "b"}, ())],
                     "t:1", stats)
    graph.fold_edges([("WAS_INFORMED_BY", a, b, {}, ""), ("WAS_INFORMED_BY", b, a, {}, "")],
                     "t:1", stats)
    node_a, node_b = graph.nodes[a], graph.nodes[b]
    ab = graph.edges[("WAS_INFORMED_BY", a, b, None)]
    ba = graph.edges[("WAS_INFORMED_BY", b, a, None)]
    assert node_a[0] is node_b[0] and node_a[2] is node_b[2]  # shared while equal
    assert ab[0] is ba[0] and ab[1] is ba[1]
    graph.fold_nodes([("Job", a, {"job_id": "a"}, ("Extra",))], "t:2", stats)
    graph.fold_edges([("WAS_INFORMED_BY", a, b, {"role": "x"}, "")], "t:2", stats)
    assert node_a[0] == [*labels, "Extra"] and node_b[0] == labels
    assert node_a[2] == ["t:1", "t:2"] and node_b[2] == ["t:1"]
    assert ab[0] == {"role": "x"} and ba[0] == {}
    assert ab[1] == ["t:1", "t:2"] and ba[1] == ["t:1"]
    graph.fold_nodes([("Job", b, {"job_id": "b"}, ())], "t:1", stats)  # nothing new: as it was
    assert node_b == [labels, {"job_id": "b", "kind": "Job"}, ["t:1"]]


def test_leftovers_of_a_killed_bulk_load_go_unless_a_live_one_holds_the_server(tmp_path):
    import json
    import socket

    from lineage.bulk import remove_leftovers

    paths = server.ServerPaths.under(tmp_path)
    paths.root.mkdir(parents=True)
    leftover = paths.root / "bulk-abc"
    leftover.mkdir()
    paths.bulk_mark.write_text(json.dumps({"pid": os.getppid(), "host": socket.gethostname()}))
    remove_leftovers(paths)  # a live process holds the server: its files may be in use
    assert leftover.is_dir()
    paths.bulk_mark.write_text(json.dumps({"pid": 2**22 + 12345, "host": socket.gethostname()}))
    remove_leftovers(paths)  # the mark of a process that is gone
    assert not leftover.exists() and paths.bulk_mark.exists()


def _claims(lin) -> list:
    """Every claim but when it was made."""
    rows = lin.query("MATCH (c:Claim) RETURN properties(c) AS p")
    return sorted(graphcheck.canonical({k: v for k, v in r["p"].items() if k != "claim_at"})
                  for r in rows)


@needs_corpus
def test_a_bulk_load_records_the_claims_a_normal_load_does(bulk_lin, lin, tmp_path):
    """Inputs that state the same nodes (an XALT run's start and end records, a Pegasus
    workflow's stream and database): the same claims as loads one after the other, and an
    unload after the bulk load takes back what the input alone stated."""
    from .test_claims import xalt_pair

    start, end = xalt_pair(tmp_path)
    for name in ("process_wf_failure.static.bp", "process_wf_failure.stampede.db"):
        shutil.copy(SAMPLES / "pegasus" / name, tmp_path / name)
    normal = lin.load([tmp_path])
    bulk_lin.reset(force=True)
    bulk = bulk_lin.load([tmp_path], bulk=True)
    assert [r.status for r in bulk] == [r.status for r in normal]
    assert _claims(bulk_lin) == _claims(lin) and len(_claims(lin)) > 0
    assert graphcheck.of(bulk_lin, with_loads=True) == graphcheck.of(lin, with_loads=True)
    for handle in (bulk_lin, lin):
        handle.unload(str(end))
        handle.unload(str(tmp_path / "process_wf_failure.stampede.db"))
    assert graphcheck.of(bulk_lin, with_loads=True) == graphcheck.of(lin, with_loads=True)
    lin.reset()
    lin.load([start, tmp_path / "process_wf_failure.static.bp"])
    assert graphcheck.of(bulk_lin, with_loads=True) == graphcheck.of(lin, with_loads=True)
    assert _claims(bulk_lin) == _claims(lin) == []
