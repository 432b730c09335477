"""The command-line contract other issues rely on."""

import csv
import io
import json
import re
import subprocess
import sys

from .conftest import SAMPLES
from .conftest import run_cli as run
from .corpus import needs_corpus

BD = str(SAMPLES / "pegasus" / "blackdiamond-4.0.bp")
BD_WF = "pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"



@needs_corpus
def test_load_stats_query_report(lin, cli_env, tmp_path):
    run(cli_env, "load", BD)
    stats = json.loads(run(cli_env, "stats", "--json", "--loads").stdout)
    assert stats["nodes"]["Job"] == 14 and stats["relationships"]["WAS_INFORMED_BY"] == 29
    assert stats["loads"][0]["format"] == "pegasus-bp"
    assert [(r["source"], r["status"], r["inputs"]) for r in stats["load_summary"]] == [
        ("pegasus", "loaded", 1)]
    assert "loads" not in json.loads(run(cli_env, "stats", "--json").stdout)

    rows = json.loads(run(cli_env, "query", "ancestors", "-p",
                          "uid=pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4",
                          "--format", "json").stdout)
    assert rows and set(rows[0]) == {"uid", "kind", "name", "depth", "status"}

    text = run(cli_env, "query", "MATCH (j:Job) RETURN j.job_id AS job ORDER BY job",
               "--format", "csv").stdout
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert len(parsed) == 14 and parsed[0]["job"] == "analyze_j4"

    out = tmp_path / "wf.html"
    run(cli_env, "report", BD_WF, "-o", str(out))
    html = out.read_text()
    # self-contained: nothing is fetched (job output quoting a URL is data, not a resource)
    assert "preprocess_j1" in html and "<script>" in html
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html, re.I)


def test_exit_codes(lin, cli_env, tmp_path):
    bad = tmp_path / "bad.bp"
    bad.write_text('ts=1 event=stampede.job.info xwf.id="oops\n')
    proc = run(cli_env, "load", str(bad), check=False)
    assert proc.returncode == 3 and f"{bad}:1" in proc.stderr
    assert run(cli_env, "query", "no_such_template", check=False).returncode == 2
    assert run(cli_env, "report", "no:such:uid", "-o", str(tmp_path / "x.html"),
               check=False).returncode == 1
    assert run(cli_env, "reset", check=False).returncode == 2


def test_cypher_list_and_show():
    env = None
    listing = subprocess.run([sys.executable, "-m", "lineage", "cypher", "list", "--format", "json"],
                             capture_output=True, text=True, check=True, env=env).stdout
    names = {t["name"] for t in json.loads(listing)}
    assert {"ancestors", "descendants", "pegasus/failed_jobs"} <= names
    shown = subprocess.run([sys.executable, "-m", "lineage", "cypher", "show", "ancestors"], capture_output=True,
                           text=True, check=True).stdout
    assert shown.startswith(":param [{uid, max_depth}] => { RETURN ")  # one command, all params
    assert "MATCH (start:Lineage {uid: $uid})" in shown


@needs_corpus
def test_reset_empties_the_graph(lin, cli_env):
    run(cli_env, "load", BD)
    run(cli_env, "reset", "--yes")
    stats = json.loads(run(cli_env, "stats", "--json").stdout)
    assert stats["nodes"] == {}


def test_demo_into_current_graph_loads_the_campaign_and_writes_reports(lin, cli_env, tmp_path):
    # the demo's own server is tested in test_demo.py; here the campaign goes to the test graph
    from . import demo_scenario as demo

    proc = run(cli_env, "demo", "--into-current-graph", "-o", str(tmp_path / "reports"))
    reports = sorted(str(p) for p in (tmp_path / "reports").glob("*.html")
                     if p.name != "index.html")
    runs = lin.query("runs")
    assert runs and len(reports) == len(runs) == 17
    assert "(17, one per run, listed in index.html)" in proc.stdout
    html = open(reports[0], encoding="utf-8").read()
    assert "vis.Network" in html and "<script src=" not in html
    statuses = [r["s"] for r in lin.query("MATCH (l:Load) RETURN l.status AS s")]
    assert statuses.count("loaded") == len(statuses) == 38
    kinds = {r["kind"] for r in runs}
    assert {"Workflow", "ScriptRun", "ProgramRun", "Execution"} <= kinds
    # the generated campaign, linked, and the first workflow's report shows the chain
    assert "linked 24 executions across systems" in proc.stdout
    [first] = [r for r in reports if demo.FIRST.uuid in r]
    page = open(first, encoding="utf-8").read()
    assert "Across systems (lineage link)" in page
    assert demo.ANALYZE.process.uuid in page and "/opt/keg/bin/analyze" in page


@needs_corpus
def test_verbose_logs_steps_and_never_the_password(lin, cli_env, tmp_path):
    secret = cli_env["NEO4J_PASSWORD"]
    quiet = run(cli_env, "load", BD)
    assert "lineage: INFO" not in quiet.stderr  # warnings only by default
    info = run(cli_env, "-v", "load", BD).stderr
    assert "INFO lineage.server.connection: connecting to " + cli_env["NEO4J_URI"] in info
    assert "INFO lineage.api: loading 1 input (source auto" in info
    assert f"INFO lineage.api: unchanged {BD} [pegasus-bp]" in info
    assert "DEBUG" not in info
    debug = run(cli_env, "-vv", "query", "ancestors", "-p",
                "uid=pegasus:job:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4").stderr
    assert "DEBUG lineage.api: query ancestors: " in debug, "\n".join(
        line for line in debug.splitlines() if "neo4j." not in line)
    assert "DEBUG neo4j" in debug  # the driver's own log, at -vv only
    assert "INFO neo4j" not in info and "DEBUG neo4j" not in info  # not at -v
    # the password is in the process's environment, the driver's login and the settings the
    # debug log prints: none of it shows
    assert secret and secret not in info + debug
    assert "neo4j_password" in debug and "***" in debug
    # the same through a profile file's password_file (no NEO4J_PASSWORD in the environment)
    pw = tmp_path / "pw"
    pw.write_text(secret + "\n")
    pw.chmod(0o600)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[connection]\nuri = "{cli_env["NEO4J_URI"]}"\nuser = '
                   f'"{cli_env["NEO4J_USERNAME"]}"\npassword_file = "{pw}"\n')
    env = {k: v for k, v in cli_env.items() if k not in ("NEO4J_URI", "NEO4J_PASSWORD",
                                                         "NEO4J_USERNAME")}
    proc = run(env, "--config", str(cfg), "-vv", "stats", "--json")
    assert json.loads(proc.stdout)["nodes"]["Job"] == 14
    assert secret not in proc.stderr and "lineage.server.connection: connecting to" in proc.stderr
