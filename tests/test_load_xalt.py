"""XALT records loaded into the real Neo4j: connections, start/end merging, load order, CLI."""

import json
import shutil

from click.testing import CliRunner

from lineage.cli import main

from .conftest import SAMPLES
from .test_load_pegasus import graph_fingerprint
from .xalt_helpers import (BUILD_UUID, EXE_SHA1, LINK_S2, RUN_AAA, RUN_UUID, sample_run, signed,
                           zzz_from_aaa)
from .corpus import needs_corpus

RUN = f"xalt:run:{RUN_UUID}"
BUILD = f"xalt:build:{BUILD_UUID}"


def one(lin, cypher, **params):
    rows = lin.query(cypher, params)
    assert len(rows) == 1, rows
    return rows[0]


@needs_corpus
def test_shared_samples_load_and_connect(lin):
    results = lin.load([SAMPLES / "xalt"])
    assert [r.status for r in results] == ["loaded"] * 3
    assert all(r.write.unresolved_edges == 0 for r in results)
    run = one(lin, "MATCH (r:Execution:Run:Activity {uid: $u}) RETURN r", u=RUN)["r"]
    assert run["job_id"] == "76064" and run["syshost"] == "stampede2"
    # run -> executable -> build (named by the run's Build_UUID, made by the link record)
    row = one(lin, "MATCH (r:Execution {uid: $u})-[:USED {role: 'executable'}]->(e:Executable)"
                   "-[:WAS_GENERATED_BY]->(b:Build) RETURN e.sha1 AS sha1, b.uid AS build, "
                   "b.compiler AS compiler, b.link_line AS link_line, b.build_os AS os", u=RUN)
    assert row["sha1"] == EXE_SHA1 and row["build"] == BUILD
    assert row["compiler"] == "icc" and row["link_line"] == json.loads(LINK_S2.read_text())["link_line"]
    assert row["os"] == "Linux 3.10.0-514.21.2.el7.x86_64"  # from the run's watermark
    # the libraries the run loaded and those the build linked
    loaded = lin.query("MATCH (:Execution {uid: $u})-[:USED {role: 'loaded'}]->(l:Library) "
                       "RETURN l.path AS path, l.sha1 AS sha1", {"u": RUN})
    assert {(r["path"], r["sha1"]) for r in loaded} == {tuple(x) for x in sample_run()["libA"]}
    linked = one(lin, "MATCH (:Build {uid: $b})-[:USED]->(x) RETURN count(DISTINCT x) AS n", b=BUILD)
    assert linked["n"] == len(json.loads(LINK_S2.read_text())["linkA"])
    # the libmpi the run loaded is the content the build linked (same sha1, other path)
    same = one(lin, "MATCH (:Execution {uid: $u})-[:USED]->(l:Library), (:Build {uid: $b})-[:USED]->"
                    "(k:Library) WHERE l.sha1 = k.sha1 AND l.path CONTAINS 'release_mt/libmpi' "
                    "RETURN l.path AS run_path, k.path AS link_path", u=RUN, b=BUILD)
    assert same["link_path"].endswith("libmpi.so.12.0") and same["run_path"].endswith("libmpi.so.12")
    users = lin.query("MATCH (:Execution {uid: $u})-[w:WAS_ASSOCIATED_WITH]->(a:Agent) "
                      "RETURN a.uid AS uid, w.role AS role ORDER BY role", {"u": RUN})
    assert [(r["uid"], r["role"]) for r in users] == [("host:stampede2", "syshost"),
                                                     ("user:mclay", "user")]


@needs_corpus
def test_link_and_run_meet_whatever_the_load_order(lin, tmp_path):
    lin.load([LINK_S2])
    lin.load([RUN_AAA])
    first = graph_fingerprint(lin)
    lin.reset()
    lin.load([RUN_AAA])
    lin.load([LINK_S2])
    assert graph_fingerprint(lin)[:2] == first[:2]
    assert one(lin, "MATCH (b:Build) RETURN count(b) AS n")["n"] == 1


@needs_corpus
def test_start_record_then_end_record_update_one_run(lin, tmp_path):
    aaa = sample_run()
    zzz = zzz_from_aaa(aaa, run_time=42.5)
    start = aaa["userDT"]["start_time"]
    f_aaa = tmp_path / f"run.stampede2.2017_06_29_11_48_33.mclay.aaa.{RUN_UUID}.json"
    f_zzz = tmp_path / f"run.stampede2.2017_06_29_11_48_33.mclay.zzz.{RUN_UUID}.json"
    f_aaa.write_text(signed(aaa))
    lin.load([f_aaa])
    run = one(lin, "MATCH (r:Execution) RETURN r")["r"]
    assert run["start_time"] == start and "end_time" not in run and run["has_start_record"]
    f_zzz.write_text(signed(zzz))
    lin.load([f_zzz])
    run = one(lin, "MATCH (r:Execution) RETURN r")["r"]
    assert run["uid"] == RUN and run["end_time"] == start + 42.5 and run["run_time"] == 42.5
    assert run["has_start_record"] and run["has_end_record"] and run["status"] == "succeeded"
    assert run["exit_status"] == 0
    ended = graph_fingerprint(lin)
    # a late start record does not undo the end
    lin.load([f_aaa])
    run = one(lin, "MATCH (r:Execution) RETURN r")["r"]
    assert run["end_time"] == start + 42.5 and run["status"] == "succeeded"
    assert graph_fingerprint(lin)[:2] == ended[:2]


@needs_corpus
def test_pkg_record_is_imported_by_its_run(lin, tmp_path):
    pkg = {"program": "python", "xalt_run_uuid": RUN_UUID, "package_name": "numpy",
           "package_version": "1.26.4", "package_path": "/opt/py/site-packages/numpy"}
    f = tmp_path / f"pkg.stampede2.2017_06_29.mclay.{RUN_UUID}.0123456789ab.json"
    f.write_text(signed(pkg))
    lin.load([f, RUN_AAA])
    row = one(lin, "MATCH (r:Execution {uid: $u})-[i:IMPORTED]->(p:Package) RETURN p, i", u=RUN)
    assert row["p"]["name"] == "numpy" and row["p"]["version"] == "1.26.4"
    assert row["i"]["crc_status"] == "ok"


@needs_corpus
def test_command_line_with_quotes_and_semicolons_round_trips(lin, tmp_path):
    argv = ["./run.sh", "a;b", "it's", '"x"', "$(id); rm -rf /", "caf\u00e9\ttab"]
    rec = sample_run()
    rec["cmdlineA"] = argv
    f = tmp_path / f"run.s2.d.mclay.aaa.{RUN_UUID}.json"
    f.write_text(signed(rec))
    lin.load([f])
    assert one(lin, "MATCH (r:Execution) RETURN r.cmdline AS c")["c"] == argv


@needs_corpus
def test_cli_env_option_reaches_the_loader(cli_env, lin, tmp_path, monkeypatch):
    monkeypatch.setenv("LINEAGE_XALT_ENV", "filtered")  # restored (unset) after the test
    monkeypatch.delenv("LINEAGE_XALT_ENV")
    d = tmp_path / "tree" / "run"
    d.mkdir(parents=True)
    shutil.copy(RUN_AAA, d)
    result = CliRunner().invoke(main, ["load", "--env", "none", str(tmp_path / "tree")],
                                env=cli_env)
    assert result.exit_code == 0, result.output
    row = one(lin, "MATCH (r:Execution) RETURN r.env AS env, r.env_mode AS mode")
    assert row["env"] is None and row["mode"] == "none"
    result = CliRunner().invoke(main, ["load", "--env", "all", str(tmp_path / "tree")], env=cli_env)
    assert result.exit_code == 0, result.output
    row = one(lin, "MATCH (r:Execution) RETURN r.env AS env, r.env_mode AS mode")
    assert json.loads(row["env"])["SSH_AUTH_SOCK"].startswith("/tmp/") and row["mode"] == "all"
