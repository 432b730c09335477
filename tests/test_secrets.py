"""Secrets in environment values and command lines never reach the graph, reports or exports;
ordinary provenance values (and the real samples) are kept exactly.

Planted: :mod:`tests.planted_secrets` (48 secrets of 48 kinds as environment values and
command-line strings, 8 more in word lists), in an XALT run record (environment, command
line, process tree), a Pegasus BP stream and a Stampede database (workflow, task, job and
invocation ``argv``), a Swift log (a job's arguments) and Chimbuko metadata (the command
line). After the load, every string property of every node and relationship is searched
for every secret (its whole text and its first and last 8 characters).
"""

from __future__ import annotations

import html
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from lineage.sources.base import LoadReport
from lineage.sources.xalt.jsonfiles import parse_json
from lineage.sources.xalt.mapping import filter_env

from .corpus import SAMPLES, inputs, needs_corpus
from .planted_secrets import ORDINARY, PLANTED, PLANTED_ARGV, Planted
from .test_fuzz_parsers import bp_line
from .xalt_helpers import sample_run, signed

RUN_UUID = "5ec7e700-0000-4000-8000-000000000001"
WF = "5ec7e700-0000-4000-8000-0000000000ff"
SWIFT_ARGS = [("SwTk70xq", "[--token, SwTk70xq, hello]"),
              ("SwPw71xq", "[-i, in.txt, --password, SwPw71xq]")]
CHIMBUKO_COMMAND = ("ChPw72xq", "/opt/xgc/bin/xgc-es --db-password ChPw72xq -no_signal_handler")


def leaked(secret: str, text: str) -> bool:
    """Whether ``text`` holds ``secret`` or its first or last 8 characters."""
    return any(part in text for part in {secret, secret[:8], secret[-8:]})


def every_secret() -> list[str]:
    return ([p.secret for p in PLANTED] + [s for s, _, _ in PLANTED_ARGV]
            + [s for s, _ in SWIFT_ARGS] + [CHIMBUKO_COMMAND[0]])


# ------------------------------------------------------------------ without the graph
@pytest.mark.parametrize("planted", PLANTED, ids=[p.kind for p in PLANTED])
def test_a_planted_secret_leaves_an_environment_value_and_the_rest_stays(planted: Planted):
    kept, redacted = filter_env({"PLANTED_VALUE": planted.text}, "filtered")
    value = kept["PLANTED_VALUE"]
    assert not leaked(planted.secret, value), value
    assert redacted == 1 and "[redacted]" in value
    for part in planted.kept:
        assert part in value, (part, value)


def xalt_run_file(folder: Path, env: dict, cmdline: list[str], parents: list[list[str]]) -> Path:
    """An XALT start record of the real sample's shape, with this environment, command line
    and parent processes."""
    record = sample_run()
    record["userT"]["run_uuid"] = RUN_UUID
    record["envT"] = {**record["envT"], **env}
    record["cmdlineA"] = cmdline
    record["ptA"] = [{"cmd_name": Path(words[0]).name, "cmd_path": words[0], "cmdlineA": words,
                      "pid": 1000 + i} for i, words in enumerate(parents)]
    path = folder / f"run.stampede2.2017_06_29_11_48_33.aaa.{RUN_UUID}.json"
    path.write_text(signed(record))
    return path


def parsed_run(path: Path) -> tuple[dict, LoadReport]:
    report = LoadReport(str(path), "xalt-run-json")
    run = next(r for r in parse_json(path, report)
               if getattr(r, "uid", "") == f"xalt:run:{RUN_UUID}")
    return run.props, report


@needs_corpus
def test_command_lines_lose_their_secrets_word_by_word(tmp_path):
    first, *others = PLANTED_ARGV
    path = xalt_run_file(tmp_path, {}, first[1], [words for _, words, _ in others])
    props, report = parsed_run(path)
    stored = json.dumps([props["cmdline"], props["process_tree"]])
    for secret, _words, _kept in PLANTED_ARGV:
        assert not leaked(secret, stored), secret
    assert props["cmdline"] == ["/usr/bin/mysql", "-uroot", "-p[redacted]", "prod"]
    tree = json.loads(props["process_tree"])
    for (_, words, kept), parent in zip(others, tree):
        assert [w for w in parent["cmdlineA"] if w in kept] == kept  # the rest verbatim
        assert len(parent["cmdlineA"]) == len(words)
    assert report.extra["xalt"]["command_lines_redacted"] == len(PLANTED_ARGV)


def test_ordinary_values_are_kept_exactly():
    from lineage.secrets import redact_command_line

    kept, redacted = filter_env({f"V{i}": v for i, v in enumerate(ORDINARY)}, "filtered")
    assert redacted == 0 and list(kept.values()) == ORDINARY
    for value in ORDINARY:
        assert redact_command_line(value) == value
        assert redact_command_line(value.split()) == value.split()


@needs_corpus
def test_the_real_samples_lose_nothing_to_redaction():
    """Every string every real input states (5,000 and more: environments, command lines,
    paths, hashes) is as the input has it: no redaction at all, and the real XALT run's 299
    environment values are stored exactly."""
    strings, marked = 0, []
    for item in inputs():
        report = LoadReport(item.path, item.format.name, lenient=True)
        for record in item.format.parse(Path(item.path), report):
            for key, value in getattr(record, "props", {}).items():
                for one in value if isinstance(value, list) else [value]:
                    if isinstance(one, str):
                        strings += 1
                        if "[redacted]" in one:
                            marked.append((Path(item.path).name, key, one[:80]))
        assert "command_lines_redacted" not in json.dumps(report.extra), item.path
    assert strings > 5000 and marked == []
    env = sample_run()["envT"]
    kept, redacted = filter_env(env, "filtered")
    assert (len(env), redacted) == (299, 0)
    assert kept == {k: v if isinstance(v, str) else json.dumps(v) for k, v in env.items()}


# ------------------------------------------------------------------ through the graph
def pegasus_stream(path: Path) -> Path:
    """A BP stream whose workflow, tasks, jobs and invocations carry the planted texts as
    ``argv``."""
    lines = [bp_line({"ts": "1", "event": "stampede.wf.plan", "xwf.id": WF, "dax.label": "p",
                      "argv": PLANTED[0].text})]
    for i, planted in enumerate(PLANTED):
        job = f"job_{i}"
        lines.append(bp_line({"ts": "2", "event": "stampede.task.info", "xwf.id": WF,
                              "task.id": f"t{i}", "type": "1", "transformation": "tool",
                              "argv": planted.text.replace("\n", " ")}))
        lines.append(bp_line({"ts": "2", "event": "stampede.job.info", "xwf.id": WF,
                              "job.id": job, "type": "1", "executable": "/bin/tool",
                              "argv": planted.text.replace("\n", " ")}))
        lines.append(bp_line({"ts": "3", "event": "stampede.inv.end", "xwf.id": WF,
                              "job.id": job, "job_inst.id": "1", "inv.id": "1",
                              "executable": "/bin/tool", "exitcode": "0",
                              "argv": planted.text.replace("\n", " ")}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def stampede_db(path: Path) -> Path:
    """The real process_wf_failure database with planted command lines."""
    shutil.copy(SAMPLES / "pegasus" / "process_wf_failure.stampede.db", path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE workflow SET planner_arguments = ?", (PLANTED[6].text,))
        db.execute("UPDATE task SET argv = ?", (PLANTED[19].text,))
        for i, (job_id,) in enumerate(db.execute("SELECT job_id FROM job").fetchall()):
            db.execute("UPDATE job SET argv = ? WHERE job_id = ?", (PLANTED[20 + i].text, job_id))
        for i, (inv_id,) in enumerate(db.execute("SELECT invocation_id FROM invocation")
                                      .fetchall()):
            db.execute("UPDATE invocation SET argv = ? WHERE invocation_id = ?",
                       (PLANTED[30 + i].text, inv_id))
    return path


def swift_log(folder: Path) -> Path:
    """The real 0024-compound log with its two jobs' arguments carrying secrets."""
    name = "0024-compound-20090316-1711-3xnznbk1.log"
    real = (SAMPLES / "swift" / name).read_text()
    assert real.count("arguments=[f]") == real.count("arguments=[s]") == 1
    path = folder / name
    path.write_text(real.replace("arguments=[f]", f"arguments={SWIFT_ARGS[0][1]}")
                    .replace("arguments=[s]", f"arguments={SWIFT_ARGS[1][1]}"))
    return path


def chimbuko_metadata(folder: Path) -> Path:
    secret, command = CHIMBUKO_COMMAND
    records = [{"pid": 3, "rid": 0, "tid": 0, "descr": descr, "value": value, "__id": i}
               for i, (descr, value) in enumerate([("Hostname", "node1"),
                                                   ("Executable", "/opt/xgc/bin/xgc-es"),
                                                   ("Command Line", command)])]
    path = folder / "provdb_planted_metadata.json"
    path.write_text(json.dumps(records))
    return path


def graph_text(lin) -> str:
    """Every string property (and list item) of every node and relationship, :Load too."""
    rows = lin.query("MATCH (n) RETURN properties(n) AS p UNION ALL "
                     "MATCH ()-[r]->() RETURN properties(r) AS p")
    return json.dumps([row["p"] for row in rows], ensure_ascii=False)


@pytest.fixture
def planted_graph(lin, tmp_path):
    """Every carrier of planted secrets loaded into the graph."""
    folder = tmp_path / "planted"
    folder.mkdir()
    first, *others = PLANTED_ARGV
    env = {f"PLANTED_{i:02d}": p.text for i, p in enumerate(PLANTED)}
    paths = [xalt_run_file(folder, env, first[1], [w for _, w, _ in others]),
             pegasus_stream(folder / "planted.bp"), stampede_db(folder / "planted.stampede.db"),
             swift_log(folder), chimbuko_metadata(folder)]
    results = lin.load(paths, lenient=True)
    assert [r.status for r in results] == ["loaded"] * len(paths), [r.as_dict() for r in results]
    return results


@needs_corpus
def test_no_planted_secret_reaches_the_graph(lin, planted_graph):
    text = graph_text(lin)
    assert [s for s in every_secret() if leaked(s, text)] == []
    env = json.loads(lin.query("MATCH (r:Lineage {uid: $uid}) RETURN r.env AS env",
                               {"uid": f"xalt:run:{RUN_UUID}"})[0]["env"])
    for i, planted in enumerate(PLANTED):  # the values are there, their secrets gone
        assert all(part in env[f"PLANTED_{i:02d}"] for part in planted.kept), planted.kind
    for needle in ("-Djavax.net.ssl.keyStorePassword=[redacted]", "arguments",
                   "--token, [redacted], hello", "[-i, in.txt, --password, [redacted]]", "--db-password [redacted] -no_signal_handler"):
        assert needle in text, needle


@needs_corpus
def test_no_planted_secret_reaches_reports_or_exports(lin, planted_graph, tmp_path):
    pages = []
    for uid in (f"xalt:run:{RUN_UUID}", f"pegasus:workflow:{WF}"):
        page = Path(lin.report(uid, tmp_path / "report.html")).read_text(encoding="utf-8")
        exported = Path(lin.export(uid, tmp_path / "export.json")).read_text(encoding="utf-8")
        pages += [html.unescape(page), exported, json.dumps(json.loads(exported))]
    text = "\n".join(pages)
    assert "[redacted]" in text  # the redacted values are shown
    assert [s for s in every_secret() if leaked(s, text)] == []
