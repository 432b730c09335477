"""The answer first, on the demo campaign loaded once: `diff` of its succeeded and failed
diamond runs leads with the changed task argument, uids are resolved from a prefix, a short
uuid or a run's name and never cut in tables, `lineage runs` and `lineage load` name the
runs, notebooks display rows, `why` and `diff` as escaped HTML with dates, and connection
mistakes are one clear line."""

import math

import pandas as pd
import pytest
from click.testing import CliRunner

from lineage import cli, server
from lineage.api import Rows
from lineage.demo.generate import generate
from lineage.demo.run import load_options
from lineage.errors import ServerError

from .corpus import needs_corpus
from .pegasus_oracle_compare import FAIL_DB

pytestmark = needs_corpus

GOOD = "pegasus:workflow:9a81e85f-45b4-587b-8e78-45b824ad0955"  # run0001, succeeded
BAD = "pegasus:workflow:33f052c4-bf8b-50fc-9c0a-1bfbe5cfaa1e"   # run0002, failed
NO_BINS = "analyze: -n 0: the number of histogram bins must be at least 1"


@pytest.fixture(scope="module")
def demo(session_lineage, tmp_path_factory):
    """The demo campaign's files, loaded and linked (once for the module)."""
    lin = session_lineage
    lin.reset(force=True)
    written = generate(tmp_path_factory.mktemp("campaign"))
    paths = [p for files in written.values() for p in files.paths]
    lin.load(paths, options=lin.settings.load.with_(**load_options(written.values())))
    lin.link()
    return lin


def _cli(env, *args, columns=None):
    if columns:
        env = {**env, "COLUMNS": str(columns)}
    return CliRunner(env=env).invoke(cli.main, list(args))


def test_diff_of_a_succeeded_and_a_failed_run_leads_with_the_changed_argument(demo, cli_env):
    result = demo.diff("9a81e85f", "33f052c4")  # short uuids
    rows = result["differences"]
    assert rows[0] == {"aspect": "job arguments", "name": "analyze_ID0000004",
                       "first": "-a analyze -T 60 -n 400 -i f.c1 f.c2 -o f.d",
                       "second": "-a analyze -T 60 -n 0 -i f.c1 f.c2 -o f.d"}
    # the failed job's rows first: what may explain it (its libkeg rebuilt in place), then
    # its outcome; other jobs after
    top = [r["name"].split(":")[0].split(" #")[0] for r in rows]
    last_analyze = max(i for i, name in enumerate(top) if name == "analyze_ID0000004")
    assert set(top[:last_analyze + 1]) == {"analyze_ID0000004"}
    [status] = [r for r in rows[:last_analyze + 1] if r["aspect"] == "job status"]
    assert (status["first"], status["second"]) == ("succeeded", "failed")
    assert [r["aspect"] for r in rows[:last_analyze + 1]].index("job status") > 1
    assert "-n 400 → -n 0" in result["answer"]
    # durations with units, after every outcome
    durations = [r for r in rows if r["aspect"] == "job duration"]
    assert durations and all(v is None or v.endswith(" s") for r in durations
                             for v in (r["first"], r["second"]))
    assert rows.index(durations[-1]) > max(i for i, r in enumerate(rows) if "status" in r["aspect"])
    # a row of one run only says which
    one_sided = [r for r in rows if "only in the" in r["aspect"]]
    assert one_sided and all(("first run" in r["aspect"]) == (r["second"] is None)
                             for r in one_sided)
    out = _cli(cli_env, "diff", "9a81e85f", "33f052c4")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("answer: ") and "-n 400 → -n 0" in lines[0]
    assert lines[3].startswith("job arguments") and "analyze_ID0000004" in lines[3]


def test_uids_resolve_from_a_prefix_a_short_uuid_or_a_run_name(demo, cli_env, tmp_path):
    assert demo.resolve("33f052c4") == BAD
    assert demo.resolve("pegasus:workflow:9a81") == GOOD
    assert demo.resolve("histsum.swift").startswith("swift:run:")
    out = _cli(cli_env, "why", "diamond")
    assert out.exit_code == 1
    assert "did you mean" in out.output and GOOD in out.output and BAD in out.output
    out = _cli(cli_env, "why", "33f052c4")
    assert out.exit_code == 0 and NO_BINS in out.output.splitlines()[0]
    out = _cli(cli_env, "query", "pegasus/failed_jobs", "-p", "workflow=33f052c4",
               "--format", "csv")
    assert out.exit_code == 0 and f"pegasus:job:{BAD[17:]}:analyze_ID0000004" in out.output
    out = _cli(cli_env, "export", "9a81e85f", "-o", str(tmp_path / "x.json"))
    assert out.exit_code == 0, out.output
    assert _cli(cli_env, "why", "nosuchrun").exit_code == 1


def test_runs_newest_first_failed_marked_and_uids_whole(demo, cli_env):
    runs = demo.runs()
    starts = [r["start_time"] for r in runs if r["start_time"] is not None]
    assert starts == sorted(starts, reverse=True)
    out = _cli(cli_env, "runs", columns=80)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    for head in ("status", "start (UTC)", "duration", "source"):
        assert head in lines[0]
    for r in runs:
        [at] = [i for i, line in enumerate(lines) if line.strip() == r["uid"]]
        assert lines[at - 1].startswith("FAILED") == r["failed"]
    assert lines[1].startswith("FAILED") or runs[0]["uid"] in lines[2]
    table = _cli(cli_env, "query", "runs", columns=80)
    assert table.exit_code == 0 and "…" not in table.output
    assert all(r["uid"] in table.output for r in runs)


def test_load_ends_with_the_runs_it_added_and_what_to_try(demo, cli_env):
    out = _cli(cli_env, "load", "-q", str(FAIL_DB))
    assert out.exit_code == 0, out.output
    tail = out.output.splitlines()[-3:]
    assert tail[0] == "added 1 run:"
    assert "pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3" in tail[1] and "FAILED" in tail[1]
    assert tail[2] == "next: lineage why f84f05fc"


def test_notebooks_display_rows_why_and_diff_with_dates_and_escaped(demo):
    runs = demo.query("runs")
    page = runs._repr_html_()
    assert "2024-05-15T10:00:00.000Z" in page and "1.7157" not in page
    assert "<script>" not in Rows([{"name": "<script>x</script>"}])._repr_html_()
    assert pd.api.types.is_datetime64_any_dtype(runs.to_pandas()["start_time"])
    why = demo.why(BAD)._repr_html_()
    assert why.startswith("<b>") and NO_BINS in why
    diff = demo.diff(GOOD, BAD)._repr_html_()
    assert "-n 400 → -n 0" in diff and "job arguments" in diff


def test_explain_output_lists_anomalies_by_severity_unknown_last(demo):
    output = f"pegasus:file:{GOOD[17:]}:f.d"
    before = demo.query("cross/explain_output", uid=output, top=20)
    [row] = [r for r in before if r["anomaly_count"]]
    uids = [a["uid"] for a in row["top_anomalies"]]
    demo.write("MATCH (e:FunctionExecution {uid: $a}) SET e.outlier_severity = null",
               {"a": uids[0]})
    demo.write("MATCH (e:FunctionExecution {uid: $a}) SET e.outlier_severity = 0.0 / 0.0",
               {"a": uids[1]})
    demo.write("MATCH (e:FunctionExecution {uid: $a}) SET e.outlier_severity = -1.5",
               {"a": uids[2]})
    [after] = [r for r in demo.query("cross/explain_output", uid=output, top=20)
               if r["anomaly_count"]]
    severities = [a["severity"] for a in after["top_anomalies"]]
    known = [s for s in severities if s is not None and not math.isnan(s)]
    assert severities[:len(known)] == sorted(known, reverse=True) and -1.5 in known
    assert len(severities) - len(known) == 2  # null and NaN, last


def test_a_refused_password_is_one_line(cli_env):
    out = _cli({**cli_env, "NEO4J_USERNAME": "nobody-here", "NEO4J_PASSWORD": "wrong"}, "runs")
    assert out.exit_code == 4
    assert out.output.count("\n") == 1 and out.output.startswith("error: ")
    assert "refused user 'nobody-here'" in out.output and "neo4j_code" not in out.output


def test_lineage_java_that_is_not_java_is_reported(monkeypatch, tmp_path, cli_env):
    monkeypatch.setenv("LINEAGE_JAVA", "/bin/false")
    with pytest.raises(ServerError, match="LINEAGE_JAVA=/bin/false"):
        server.find_java()
    env = {k: v for k, v in cli_env.items() if not k.startswith("NEO4J_")}
    out = _cli({**env, "LINEAGE_JAVA": "/bin/false", "LINEAGE_HOME": str(tmp_path)},
               "neo4j", "start")
    assert out.exit_code == 4 and "LINEAGE_JAVA=/bin/false" in out.output
