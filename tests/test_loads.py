"""Loads are lineage too: every element knows the loads that wrote it; unload and reload
remove what an input no longer states, and keep what other inputs state too."""

import shutil

import pytest
from click.testing import CliRunner

from lineage import cli
from lineage.errors import LineageError, WriteFailed
from lineage.load import fleet
from lineage.config.settings import LoadOptions
from lineage.load.writer import Writer

from . import graphcheck
from .conftest import SAMPLES
from .corpus import needs_corpus

pytestmark = needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"
XALT = SAMPLES / "xalt"


def one(lin, cypher, **params):
    return lin.query(cypher, params)[0]["n"]


def test_every_element_names_its_load(lin):
    [result] = lin.load([BD])
    [load] = lin.query("MATCH (l:Load) RETURN l.tag AS tag, l.version AS version, "
                       "l.changes AS changes")
    assert load["version"] == 1 and load["tag"].endswith(":1")
    untagged = one(lin, "MATCH (n:Lineage) WHERE NOT $tag IN n.loads RETURN count(n) AS n",
                   tag=load["tag"])
    untagged += one(lin, "MATCH ()-[r]->() WHERE NOT $tag IN r.loads RETURN count(r) AS n",
                    tag=load["tag"])
    assert untagged == 0
    assert one(lin, "MATCH (n:Lineage) RETURN count(n) AS n") > 50
    # every node stores its kind, and it is one of its labels
    assert one(lin, "MATCH (n:Lineage) WHERE n.kind IS NULL OR NOT n.kind IN labels(n) "
                    "RETURN count(n) AS n") == 0


def test_unload_keeps_what_another_load_also_wrote(lin, tmp_path):
    # the link record and the run record of one program share its executable and build
    first, second = sorted(XALT.glob("link.*.json"))[0], sorted(XALT.glob("run.*.json"))[0]
    lin.load([first])
    only_first = graphcheck.of(lin)
    lin.load([second])
    both = graphcheck.of(lin)
    assert both.nodes > only_first.nodes
    shared = one(lin, "MATCH (n:Lineage) WHERE size(n.loads) = 2 RETURN count(n) AS n")
    assert shared > 0  # the two runs share hosts, users, libraries
    [gone] = lin.unload(str(second))
    assert gone["status"] == "unloaded" and gone["nodes_removed"] == both.nodes - only_first.nodes
    assert graphcheck.of(lin) == only_first
    [status] = lin.query("MATCH (l:Load {path: $p}) RETURN l.status AS n", p=str(second))
    assert status["n"] == "unloaded"
    # loading it again brings back exactly what it said
    lin.load([second])
    assert graphcheck.of(lin) == both


def test_a_load_after_its_unload_is_written_as_a_first_version(lin, monkeypatch):
    """An unload leaves nothing of its load in the graph, so loading the input again has
    nothing to release and counts its changes by its own uids: no pass over the graph."""
    from lineage.load import loads

    lin.load([sorted(XALT.glob("run.*.json"))[0]])  # another load's graph around it
    [first] = lin.load([BD])
    loaded = graphcheck.of(lin)
    lin.unload(str(BD))

    def over_the_graph(*args, **kwargs):
        raise AssertionError("a pass over the whole graph")

    monkeypatch.setattr(loads, "release", over_the_graph)
    monkeypatch.setattr(loads, "changes", over_the_graph)
    [again] = lin.load([BD])
    assert again.status == "loaded" and again.changes == first.changes
    assert again.changes["nodes"] > 50 and again.changes["nodes_removed"] == 0
    assert graphcheck.of(lin) == loaded
    [record] = lin.query("MATCH (l:Load {path: $p}) RETURN l.version AS version, "
                         "l.status AS status", p=str(BD))
    assert record == {"version": 2, "status": "loaded"}


def test_reloading_a_changed_file_removes_what_it_no_longer_says(lin, tmp_path):
    copy = tmp_path / "run.bp"
    shutil.copy(BD, copy)
    lin.load([copy])
    full = graphcheck.of(lin)
    # the same stream cut after its first third of lines: fewer jobs
    lines = BD.read_text().splitlines(keepends=True)
    copy.write_text("".join(lines[: len(lines) // 3]))
    [result] = lin.load([copy])
    assert result.status == "loaded"
    assert result.changes["nodes_removed"] > 0
    shorter = graphcheck.of(lin)
    assert shorter.nodes < full.nodes
    # the graph is what a fresh load of the shorter file gives
    lin.reset()
    lin.load([copy])
    assert graphcheck.of(lin) == shorter
    [load] = lin.query("MATCH (l:Load) RETURN l.version AS n")
    assert load["n"] == 1


def test_unchanged_input_is_not_written_again(lin):
    lin.load([BD])
    [again] = lin.load([BD])
    assert again.status == "unchanged"
    [load] = lin.query("MATCH (l:Load) RETURN l.version AS v, l.times_loaded AS t, "
                       "l.status AS s")
    assert (load["v"], load["t"], load["s"]) == (1, 2, "loaded")


@pytest.mark.parametrize("options", [LoadOptions(overlap_bytes=None), LoadOptions(overlap_bytes=0)],
                         ids=["read-then-write", "nodes-while-reading"])
def test_a_write_failing_midway_leaves_nothing_of_the_input(lin, options):
    lin.load([sorted(XALT.glob("run.*.json"))[0]])
    before = graphcheck.of(lin, with_loads=True)
    # a constraint Neo4j enforces and the model does not: two jobs of one workflow share a
    # type, so the write fails after earlier batches were committed
    lin.write("CREATE CONSTRAINT test_job_status IF NOT EXISTS "
              "FOR (j:Job) REQUIRE j.type_desc IS UNIQUE")
    try:
        writer = Writer(lin.graph.driver, lin.graph.database, batch_size=3)
        # the server's refusal reaches the caller as a LineageError naming the input
        with pytest.raises(WriteFailed, match=f"{BD.name}: write failed: .*(test_job_status|type_desc)"):
            fleet.load(writer, [BD], options=options)
    finally:
        lin.write("DROP CONSTRAINT test_job_status IF EXISTS")
    assert graphcheck.of(lin, with_loads=True) == before
    [load] = lin.query("MATCH (l:Load {format: 'pegasus-bp'}) "
                       "RETURN l.status AS s, l.error AS e")
    assert load["s"] == "failed" and "write failed" in load["e"]


def test_unload_command(lin, cli_env):
    lin.load([BD])
    runner = CliRunner(env=cli_env)
    out = runner.invoke(cli.main, ["unload", str(BD), "--format", "json"])
    assert out.exit_code == 0, out.output
    assert '"nodes_removed"' in out.output
    assert one(lin, "MATCH (n:Lineage) RETURN count(n) AS n") == 0
    missing = runner.invoke(cli.main, ["unload", "/no/such/input.bp"])
    assert missing.exit_code == 1 and "no load" in missing.output


def test_a_directory_load_finishes_and_names_every_failed_input(lin, tmp_path, cli_env):
    """Every readable input is loaded or reported: a bad file in the middle stops nothing."""
    tree = tmp_path / "month"
    tree.mkdir()
    shutil.copy(BD, tree / "a-good.bp")
    (tree / "b-bad.bp").write_text(BD.read_text().replace("event=stampede.job.info",
                                                          "event=stampede.job.info ts=", 1))
    (tree / "c-bad.bp").write_text("ts=2012-03-13T12:35:36Z event=stampede.xwf.start\n")
    shutil.copy(sorted(XALT.glob("run.*.json"))[0], tree / "d-good.json")
    runner = CliRunner(env=cli_env)
    out = runner.invoke(cli.main, ["load", str(tree), "--format", "json"])
    assert out.exit_code == cli.EXIT_INPUT, out.output
    assert "2 inputs failed" in out.output and "b-bad.bp" in out.output and "c-bad.bp" in out.output
    statuses = {r["path"].rsplit("/", 1)[1]: r["s"] for r in lin.query(
        "MATCH (l:Load) RETURN l.path AS path, l.status AS s")}
    assert statuses == {"a-good.bp": "loaded", "b-bad.bp": "failed", "c-bad.bp": "failed",
                        "d-good.json": "loaded"}
    assert one(lin, "MATCH (n:Execution) RETURN count(n) AS n") == 1  # after the bad files
    # --fail-fast stops at the first bad one, as before
    lin.reset()
    out = runner.invoke(cli.main, ["load", str(tree), "--fail-fast"])
    assert out.exit_code == cli.EXIT_INPUT
    assert "loaded 1 of 2 inputs; 1 failed" in out.output, out.output  # the two it tried
    assert one(lin, "MATCH (n:Execution) RETURN count(n) AS n") == 0


def test_the_lenient_hint_is_given_only_where_lenient_would_skip(lin, tmp_path, cli_env):
    """A bad BP line: the message points to --lenient. Text in a Stampede number column stops
    the input in either mode, so the message says --lenient cannot skip it, and it cannot."""
    import sqlite3

    bad_bp = tmp_path / "bad.bp"
    bad_bp.write_text(BD.read_text().replace("event=stampede.job.info",
                                             "event=stampede.job.info ts=", 1))
    db = tmp_path / "text-timestamp.stampede.db"
    shutil.copy(SAMPLES / "pegasus" / "process_wf_failure.stampede.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE jobstate SET timestamp = 'yesterday' WHERE rowid = 1")
    runner = CliRunner(env=cli_env)
    out = runner.invoke(cli.main, ["load", str(bad_bp)])
    assert out.exit_code == cli.EXIT_INPUT
    assert "--lenient skips and counts bad records instead" in out.output
    for lenient in ([], ["--lenient"]):
        out = runner.invoke(cli.main, ["load", str(db), *lenient])
        assert out.exit_code == cli.EXIT_INPUT, out.output
        assert "expected a number in column jobstate.timestamp, found 'yesterday'" in out.output
        assert "--lenient cannot skip this" in out.output
        assert "--lenient skips" not in out.output
    assert one(lin, "MATCH (n:Job) RETURN count(n) AS n") == 0


def test_fifos_devices_and_dangling_links_are_reported_not_read(lin, tmp_path):
    """A walk never blocks on a FIFO nor reads a device; a dangling link is reported."""
    import os

    import pytest

    from lineage.errors import LineageError

    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(BD, tree / "a.bp")
    os.mkfifo(tree / "b.fifo")  # opening it would block forever
    (tree / "c.link").symlink_to(tree / "missing.bp")
    (tree / "d.loop").symlink_to(tree / "d.loop")
    results = lin.load([tree])
    by_name = {r.path.rsplit("/", 1)[1]: r for r in results}
    assert by_name["a.bp"].status == "loaded"
    assert by_name["b.fifo"].status == "unreadable" and "FIFO" in by_name["b.fifo"].error
    assert by_name["c.link"].status == "unreadable" and "link" in by_name["c.link"].error
    assert by_name["d.loop"].status == "unreadable"
    with pytest.raises(LineageError, match="/dev/zero: not a regular file"):
        lin.load(["/dev/zero"])


def test_a_load_stores_its_absolute_path_and_unload_finds_it_so(lin, tmp_path, monkeypatch,
                                                               cli_env):
    """``unload run.bp`` in the directory it was loaded from finds that load; from another
    directory, a name two inputs end in is refused, naming both; nothing is removed."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    shutil.copy(BD, first / "run.bp")
    shutil.copy(SAMPLES / "pegasus" / "triana-messy.bp", second / "run.bp")
    for folder in (first, second):
        monkeypatch.chdir(folder)
        lin.load(["run.bp"])
    paths = sorted(r["p"] for r in lin.query("MATCH (l:Load) RETURN l.path AS p"))
    assert paths == [str(first / "run.bp"), str(second / "run.bp")]
    both = graphcheck.of(lin)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LineageError, match="'run.bp' names 2 inputs") as refused:
        lin.unload("run.bp")
    assert str(first / "run.bp") in str(refused.value) and str(second / "run.bp") in str(refused.value)
    out = CliRunner(env=cli_env).invoke(cli.main, ["unload", "run.bp"])
    assert out.exit_code == 1 and str(second / "run.bp") in out.output, out.output
    assert graphcheck.of(lin) == both
    monkeypatch.chdir(first)
    [gone] = lin.unload("run.bp")
    assert gone["path"] == str(first / "run.bp") and gone["nodes_removed"] > 0
    # the one input left loaded is named by its file name from anywhere
    monkeypatch.chdir(tmp_path)
    [gone] = lin.unload("run.bp")
    assert gone["path"] == str(second / "run.bp")
    assert one(lin, "MATCH (n:Lineage) RETURN count(n) AS n") == 0
