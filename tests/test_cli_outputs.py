"""Python and CLI conveniences: rows as pandas / networkx, graph-filled Browser examples,
--format everywhere, the load progress bar on a terminal only."""

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys

import networkx as nx

from lineage.query import templates
from lineage.api import Rows

from .conftest import SAMPLES
from .conftest import run_cli as run
from .corpus import needs_corpus, REPO

FAILURE = SAMPLES / "pegasus" / "process_wf_failure.static.bp"
BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"



def test_rows_convert_to_pandas_and_networkx():
    rows = Rows([{"uid": "a", "kind": "Job", "parents": ["b", "c"]},
                 {"uid": "b", "kind": "Job", "parents": []},
                 {"uid": "c", "kind": "File", "parents": None}], ["uid", "kind", "parents"])
    frame = rows.to_pandas()
    assert list(frame.columns) == ["uid", "kind", "parents"] and len(frame) == 3
    assert frame.loc[frame.uid == "c", "kind"].item() == "File"
    graph = rows.to_networkx(target="parents")
    assert isinstance(graph, nx.DiGraph)
    assert set(graph.edges) == {("a", "b"), ("a", "c")}
    assert graph.nodes["c"]["kind"] == "File"
    empty = Rows([], ["uid", "depth"]).to_pandas()
    assert list(empty.columns) == ["uid", "depth"] and empty.empty


@needs_corpus
def test_query_results_as_dataframe_and_graph(lin):
    lin.load([BD])
    wf = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
    jobs = lin.query("pegasus/workflow_jobs", workflow=wf)
    frame = jobs.to_pandas()
    assert list(frame.columns) == templates.get("pegasus/workflow_jobs").returns
    assert len(frame) == 14
    dag = jobs.to_networkx(target="parents")
    assert nx.is_directed_acyclic_graph(dag) and dag.number_of_nodes() == 14
    informed = lin.query("MATCH (a:Job)-[:WAS_INFORMED_BY]->(b:Job) "
                         "WHERE a.uid STARTS WITH $p RETURN count(*) AS n", p="pegasus:job:ea17")
    assert dag.number_of_edges() == informed[0]["n"]


@needs_corpus
def test_cypher_show_takes_examples_from_the_graph(lin, cli_env):
    lin.load([FAILURE])
    shown = run(cli_env, "cypher", "show", "ancestors").stdout
    first = shown.splitlines()[0]
    assert first.startswith(":param [{uid, max_depth}] => { RETURN ")
    uid, _ = json.JSONDecoder().raw_decode(first.split(" RETURN ", 1)[1])  # the first value
    header = templates.get("ancestors").params[0].example
    assert uid != header and uid.startswith("pegasus:job:")
    assert lin.query("nodes", uids=[uid]), "the example uid is not in the graph"
    # a header example that is in the graph is kept; --header-examples never looks
    failed = run(cli_env, "cypher", "show", "pegasus/failed_jobs").stdout
    assert templates.get("pegasus/failed_jobs").params[0].example in failed
    plain = run(cli_env, "cypher", "show", "ancestors", "--header-examples").stdout
    assert json.dumps(header) in plain.splitlines()[0]


@needs_corpus
def test_format_csv_and_json_for_tabular_commands(lin, cli_env):
    loaded = list(csv.DictReader(io.StringIO(run(cli_env, "load", "--format", "csv",
                                                  str(BD)).stdout)))
    assert loaded[0]["status"] == "loaded" and int(loaded[0]["node_records"]) > 0
    stats = list(csv.DictReader(io.StringIO(run(cli_env, "stats", "--format", "csv").stdout)))
    jobs = [r for r in stats if r["what"] == "label" and r["name"] == "Job"]
    assert jobs and int(jobs[0]["count"]) == 14
    listing = json.loads(run(cli_env, "cypher", "list", "--format", "json").stdout)
    assert {t["name"] for t in listing} == {t.name for t in templates.all_templates()}
    rows = json.loads(run(cli_env, "query", "runs", "--format", "json").stdout)
    assert [r["kind"] for r in rows] == ["Workflow"]
    assert run(cli_env, "stats", "--format", "xml", check=False).returncode == 2


def _load_on_a_terminal(env, path):
    """Run `lineage load` with stderr on a pseudo-terminal; returns what the terminal got."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "lineage", "load", str(path)],
                            stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=300)
    os.close(master)
    assert proc.returncode == 0
    return b"".join(chunks).decode("utf-8", "replace")


@needs_corpus
def test_progress_bar_on_a_terminal_only(lin, cli_env):
    env = {k: v for k, v in cli_env.items() if k != "CI"}
    shown = _load_on_a_terminal(env, BD)
    assert "records=" in shown and "files=1" in shown and "rec/s" in shown
    quiet = _load_on_a_terminal(dict(env, CI="true"), BD)
    assert "records=" not in quiet and "unchanged" in quiet  # the per-file line stays
    piped = run(env, "load", str(BD))
    assert "records=" not in piped.stderr


def test_control_characters_never_reach_the_terminal(lin, cli_env):
    """An OSC title sequence, a NUL and a carriage return in provenance come out escaped."""
    lin.write("CREATE (:Lineage:Entity:Host {uid: 'host:evil', kind: 'Host', "
              "name: $name})", {"name": "n\x1b]0;owned\x07\x00\rX"})
    for fmt in ("table", "csv"):
        out = run(cli_env, "query", "MATCH (h:Host) RETURN h.name AS name", "--format", fmt)
        assert "\x1b" not in out.stdout and "\x00" not in out.stdout and "\x07" not in out.stdout
        assert "\\x1b]0;owned\\x07\\x00\\x0dX" in out.stdout


#: every bidirectional control, then invisible format characters (zero-width space and
#: joiner, word joiner, BOM, soft hyphen, a tag character)
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
INVISIBLE = "\u200b\u200d\u2060\ufeff\u00ad\U000e0041"


def test_bidi_controls_and_invisible_characters_are_shown_escaped(lin, cli_env):
    """``report<U+202E>fdp.exe`` would show as ``reportexe.pdf``: tables and CSV show every
    bidi control and invisible format character as an escape; JSON keeps the value exactly,
    with JSON escapes, so no raw one reaches the terminal either."""
    name = "report\u202efdp.exe " + BIDI + INVISIBLE
    lin.write("CREATE (:Lineage:Entity:Host {uid: 'host:bidi', kind: 'Host', name: $name})",
              {"name": name})
    query = "MATCH (h:Host {uid: 'host:bidi'}) RETURN h.name AS name"
    for fmt in ("table", "csv", "json"):
        out = run(dict(cli_env, COLUMNS="300"), "query", query, "--format", fmt).stdout
        assert not any(ch in out for ch in BIDI + INVISIBLE), (fmt, ascii(out))
        if fmt == "json":
            assert json.loads(out) == [{"name": name}]
        else:
            assert "report\\u202efdp.exe \\u202a\\u202b" in out
            assert "\\u200b\\u200d\\u2060\\ufeff\\xad\\U000e0041" in out


@needs_corpus
def test_tables_are_for_people_machine_formats_keep_values(lin, cli_env):
    lin.load([BD])
    table = run(cli_env, "query", "runs").stdout
    assert "2012-03-13T12:35:" in table and "1331642" not in table
    [row] = json.loads(run(cli_env, "query", "runs", "--format", "json").stdout)
    assert isinstance(row["start_time"], float) and row["start_time"] > 1.3e9
    jobs = run(cli_env, "query", "pegasus/workflow_jobs", "-p",
               "workflow=pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556").stdout
    # durations carry their unit (in a table or a column per line, the uids kept whole)
    assert re.search(r"\d s$", jobs, re.MULTILINE) or re.search(r"\d s ", jobs)


@needs_corpus
def test_mistakes_get_messages_that_say_what_to_do(lin, cli_env):
    lin.load([BD])
    assert run(cli_env, "-h").stdout.startswith("Usage: lineage [OPTIONS] COMMAND")
    typo = run(cli_env, "query", "ancestorz", check=False)
    assert typo.returncode == 2 and "did you mean ancestors" in typo.stderr
    assert len(typo.stderr) < 300  # a hint, not the list of every template
    unknown = run(cli_env, "query", "pegasus/failed_jobs", "-p", "workflow=pegasus:workflow:nope",
                  check=False)
    assert unknown.returncode == 1
    assert "no node with uid 'pegasus:workflow:nope'" in unknown.stderr
    known = run(cli_env, "query", "pegasus/failed_jobs", "-p",
                "workflow=pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556")
    assert known.returncode == 0  # a run without failures: no rows, no error
    writes = run(cli_env, "query", "CREATE (n:Lineage {uid: 'x'}) RETURN n", check=False)
    assert writes.returncode == 2 and "add --write" in writes.stderr
    assert lin.query("MATCH (n {uid: 'x'}) RETURN n.uid AS uid") == []


def test_the_progress_bar_moves_within_a_large_file(lin, cli_env, tmp_path):
    """A single big stream: the bar shows a part of the file and a record count before the
    file is done (bytes for line formats), not only 0% then 100%."""
    import sys as _sys

    _sys.path.insert(0, str(REPO / "bench"))
    import gen_bp

    big = tmp_path / "big.bp"
    gen_bp.generate(big, 120_000)  # ~7,500 jobs: a few seconds of parsing
    env = {k: v for k, v in cli_env.items() if k != "CI"}
    shown = _load_on_a_terminal(env, big)
    percents = {int(p) for p in re.findall(r"(\d+)%\|", shown)}
    assert any(0 < p < 100 for p in percents), sorted(percents)
    counts = [int(c) for c in re.findall(r"records=(\d+)", shown)]
    assert counts and min(counts) < max(counts), counts  # the count grows while reading


@needs_corpus
def test_tables_fit_the_terminal_and_one_row_is_a_record(lin, cli_env, tmp_path):
    deep = tmp_path / ("d" * 90) / BD.name  # a load path wider than the terminal (CI checkouts)
    deep.parent.mkdir()
    deep.write_bytes(BD.read_bytes())
    lin.load([deep])
    env = dict(cli_env, COLUMNS="80")
    wf = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"
    jobs = run(env, "query", "pegasus/workflow_jobs", "-p", f"workflow={wf}").stdout
    lines = jobs.splitlines()  # 12 columns do not fit 80: a column per line, rows in blocks
    assert len(lines) > 100 and max(len(line) for line in lines) <= 80, max(map(len, lines))
    assert lines[0].startswith("-[ row 1 ]") and lines[1].split()[0] == "uid"
    failed = run(env, "query", "pegasus/failed_jobs", "-p", f"workflow={wf}").stdout
    assert failed.strip() == "(no rows)"
    stats = run(env, "stats", "--loads").stdout.splitlines()  # a table fitted to 80
    assert max(len(line) for line in stats) <= 80, stats
    assert any(line.endswith(BD.name) and "…" in line for line in stats), stats
    wide = run(dict(cli_env, COLUMNS="400"), "query", "pegasus/workflow_jobs", "-p",
               f"workflow={wf}").stdout
    assert not wide.startswith("-[") and max(len(x) for x in wide.splitlines()) > 80
    record = run(env, "query", "node", "-p", f"uid={wf}").stdout.splitlines()
    assert record[0].split()[0] == "uid" and wf in record[0]  # one row: a column per line
