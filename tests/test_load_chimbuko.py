"""Chimbuko provenance (JSON exports and UnQLite shards) loaded into the real Neo4j, and the
cypher/chimbuko templates run on it."""

import json
import math

import pytest

from lineage.errors import ParseError
from lineage.config.settings import LoadOptions
from lineage.sources.chimbuko import mapping as chimbuko

from . import chimbuko_oracle as oracle
from .conftest import SAMPLES
from .corpus import needs_corpus, write_shard

pytestmark = needs_corpus

CH = SAMPLES / "chimbuko"
V0 = [CH / "provdb_v0_anomalies.json", CH / "provdb_v0_normalexecs.json", CH / "provdb_v0_metadata.json"]
V2 = CH / "provdb_v2_anomalies.json"
RUN = chimbuko.run_key(V2)  # the bundled samples are one run (one folder)


def one(lin, cypher, **params):
    return lin.query(cypher, params)[0]["n"]


def graph_content(lin):
    """Every lineage node (uid, sorted labels, properties) and edge, independent of write order
    (Neo4j returns a node's property keys in the order they were first set)."""
    nodes = lin.query("MATCH (n:Lineage) RETURN n.uid AS uid, labels(n) AS labels, properties(n) AS props")
    rels = lin.query("MATCH (a:Lineage)-[r]->(b:Lineage) "
                     "RETURN a.uid AS a, type(r) AS t, b.uid AS b, properties(r) AS props")
    def content(props):  # which load wrote it is not content (see tests/graphcheck.py)
        return tuple(sorted((k, v) for k, v in props.items() if k != "loads"))

    return (sorted((n["uid"], tuple(sorted(n["labels"])), content(n["props"])) for n in nodes),
            sorted((r["a"], r["t"], r["b"], content(r["props"])) for r in rels))


def test_v0_samples_load_with_oracle_counts(lin):
    results = lin.load(V0)
    assert [r.status for r in results] == ["loaded"] * 3
    assert all(r.write.unresolved_edges == 0 for r in results)
    anomalies, normals = oracle.records(V0[0]), oracle.records(V0[1])
    all_execs = oracle.executions(anomalies) | oracle.executions(normals)
    assert one(lin, "MATCH (e:FunctionExecution) RETURN count(e) AS n") == len(all_execs)
    assert one(lin, "MATCH (e:FunctionExecution) WHERE e.provdb_collection = 'anomalies' "
                    "RETURN count(e) AS n") == len(anomalies)
    assert one(lin, "MATCH (e:FunctionExecution) WHERE e.provdb_collection = 'normalexecs' "
                    "RETURN count(e) AS n") == len(normals)
    expected_anomalies = oracle.anomalous(anomalies, "anomalies") | oracle.anomalous(normals, "normalexecs")
    assert one(lin, "MATCH (a:Anomaly) RETURN count(a) AS n") == len(expected_anomalies)
    # executions shared by call stacks and windows (and by several records) are one node each
    assert one(lin, "MATCH (e:FunctionExecution) WITH e.uid AS u, count(*) AS c WHERE c > 1 "
                    "RETURN count(u) AS n") == 0
    shared = {e for r in anomalies for e in [c["event_id"] for c in r["call_stack"]]} & {
        e["event_id"] for r in anomalies for e in r["event_window"]["exec_window"]}
    assert shared  # the sample really does repeat executions
    expected_calls = oracle.call_edges(anomalies) | oracle.call_edges(normals)
    assert one(lin, "MATCH (:FunctionExecution)-[r:CALLED_BY]->(:FunctionExecution) "
                    "RETURN count(r) AS n") == len(expected_calls)
    msgs = {(m["type"], m["timestamp"], m["execdata_key"]) for r in anomalies + normals
            for m in r["event_window"]["comm_window"]}
    assert one(lin, "MATCH ()-[m:SENT_MESSAGE]->() RETURN count(m) AS n") == len(msgs)
    host = next(m["value"] for m in oracle.records(V0[2]) if m["descr"] == "Hostname")
    rank = lin.query("MATCH (r:Rank {uid: $u})-[:WAS_ASSOCIATED_WITH]->(h:Host) "
                     "RETURN r.hostname AS host, h.name AS h, r.executable AS exe",
                     u=chimbuko.rank_uid(RUN, 0, 1))[0]
    assert rank["host"] == host == rank["h"] and rank["exe"].endswith("xgc-es-cpp-gpu")


def test_v2_sample_loads_with_oracle_counts(lin):
    [result] = lin.load([V2])
    assert result.status == "loaded" and result.write.unresolved_edges == 0
    recs = oracle.records(V2)
    assert one(lin, "MATCH (e:FunctionExecution) RETURN count(e) AS n") == len(oracle.executions(recs))
    assert one(lin, "MATCH (a:Anomaly) RETURN count(a) AS n") == len(oracle.anomalous(recs, "anomalies"))
    assert one(lin, "MATCH (a:Anomaly) WHERE a.record_version = 2 AND a.outlier_score IS NOT NULL "
                    "RETURN count(a) AS n") == len(recs)


def test_unqlite_shard_loads_to_the_same_graph_as_json(lin, tmp_path):
    named = LoadOptions(chimbuko_run="xgc")  # one run, whatever folder its files are in
    lin.load(V0, options=named)
    from_json = graph_content(lin)
    lin.reset()
    shard = tmp_path / "provdb.0.unqlite"
    write_shard(shard, {"anomalies": oracle.records(V0[0]), "normalexecs": oracle.records(V0[1]),
                        "metadata": oracle.records(V0[2])})
    [result] = lin.load([shard], options=named)
    assert result.format == "chimbuko-unqlite" and result.status == "loaded"
    from_shard = graph_content(lin)
    assert len(from_shard[0]) == len(from_json[0]) > 100
    assert len(from_shard[1]) == len(from_json[1])
    assert from_shard == from_json


def test_global_database_shard(lin, tmp_path):
    v2 = tmp_path / V2.name  # the global database sits in the run's provDB folder
    v2.write_bytes(V2.read_bytes())
    lin.load([v2])
    fid = oracle.records(V2)[0]["fid"]
    shard = tmp_path / "provdb.global.unqlite"
    write_shard(shard, {
        "func_stats": [{"app": 0, "fid": fid, "fname": "the_function",
                        "runtime_profile": {"inclusive_runtime": {"mean": 300000.0, "count": 60, "stddev": 5.0},
                                            "exclusive_runtime": {"mean": 299000.0, "count": 60}},
                        "anomaly_metrics": {"anomaly_count": {"accumulate": 8, "count": 8},
                                            "severity": {"accumulate": 10.0, "maximum": 9.0},
                                            "first_io_step": 1, "last_io_step": 46}}],
        "counter_stats": [{"app": 0, "counter": "Threads", "stats": {"mean": 5.0, "count": 3}}],
        "ad_model": [{"pid": 0, "fid": fid, "func_name": "the_function",
                      "model": oracle.records(V2)[0]["algo_params"]}],
    })
    [result] = lin.load([shard])
    assert result.status == "loaded" and result.write.unresolved_edges == 0
    program = chimbuko.run_uid(chimbuko.run_key(shard), 0)
    row = lin.query("chimbuko/function_profile", run=program, function="the_function")[0]
    assert row["global_mean"] == 300000.0 and row["global_anomalies"] == 8
    assert row["anomalies_seen"] == len([r for r in oracle.records(V2) if r["fid"] == fid])
    f = lin.query("MATCH (f:Function {uid: $u}) RETURN f.model_kind AS k, f.model_threshold AS t",
                  {"u": chimbuko.function_uid(chimbuko.run_key(shard), 0, fid)})[0]
    assert f["k"] == "histogram" and f["t"] == oracle.records(V2)[0]["algo_params"]["internal_global_threshold"]


def test_template_anomaly_call_stack(lin):
    lin.load([V0[0]])
    rec = oracle.records(V0[0])[0]
    rows = lin.query("chimbuko/anomaly_call_stack", uid=chimbuko.event_uid(RUN, 0, rec["event_id"]))
    assert [r["event_id"] for r in rows] == [c["event_id"] for c in reversed(rec["call_stack"])]
    assert rows[-1]["is_anomaly"] is True and rows[0]["level"] == 0
    assert rows[-1]["function"] == rec["func"]


def test_template_top_anomalies(lin):
    lin.load([V2])
    recs = oracle.records(V2)
    rows = lin.query("chimbuko/top_anomalies", by="severity", limit=3)
    worst = sorted(recs, key=lambda r: -r["outlier_severity"])[:3]
    assert [r["top_uid"] for r in rows] == [chimbuko.event_uid(RUN, 0, r["event_id"]) for r in worst]
    [by_func] = lin.query("chimbuko/top_anomalies", group="function")
    assert by_func["anomalies"] == len(oracle.anomalous(recs, "anomalies"))
    assert by_func["total_severity"] == sum(r["outlier_severity"] for r in recs)
    [by_rank] = lin.query("chimbuko/top_anomalies", group="rank")
    assert by_rank["key"] == chimbuko.rank_uid(RUN, 0, 0)
    rows = lin.query("chimbuko/top_anomalies", by="score", limit=1)
    assert rows[0]["max_score"] == max(r["outlier_score"] for r in recs)


def test_template_anomaly_context(lin):
    lin.load([V0[0]])
    rec = oracle.records(V0[0])[1]  # the one with MPI messages in its window
    uid = chimbuko.event_uid(RUN, 0, rec["event_id"])
    rows = lin.query("chimbuko/anomaly_context", uid=uid, steps=50)
    window = [e["event_id"] for e in rec["event_window"]["exec_window"]]
    pos = window.index(rec["event_id"])
    before = [r["uid"] for r in rows if r["relation"] == "before"]
    assert before[-1] == chimbuko.event_uid(RUN, 0, window[pos - 1])
    assert {r["uid"] for r in rows if r["relation"] == "caller"} == {
        chimbuko.event_uid(RUN, 0, rec["call_stack"][1]["event_id"])}
    partners = {(r["relation"], r["rank"]) for r in rows if r["message_type"]}
    expected = {("sent_to", m["tar"]) if m["type"] == "SEND" else ("received_from", m["src"])
                for m in rec["event_window"]["comm_window"]}
    assert partners == expected
    near = lin.query("chimbuko/anomaly_context", uid=uid, steps=1)
    assert [r["offset"] for r in near if r["relation"] in ("before", "after")] == [-1, 1]


def test_template_gpu_kernels(lin, tmp_path):
    recs = oracle.records(V0[1])
    kernel = dict(recs[3])
    kernel["gpu_parent"] = {"event_id": "1:6:4000", "tid": 0, "call_stack": [
        {"event_id": "1:6:4000", "fid": 9, "func": "launch_collision", "entry": 1, "exit": 2}]}
    path = tmp_path / "gpu.normalexecs.json"
    path.write_text(json.dumps([kernel] + recs[:3]))
    lin.load([path])
    rows = lin.query("chimbuko/gpu_kernels")
    run = chimbuko.run_key(path)
    assert {r["uid"] for r in rows} == {chimbuko.event_uid(run, 0, r["event_id"]) for r in [kernel] + recs[:3]
                                        if r["is_gpu_event"]}
    top = next(r for r in rows if r["uid"] == chimbuko.event_uid(run, 0, kernel["event_id"]))
    assert top["cpu_parent_function"] == "launch_collision" and top["cpu_thread"] == 0
    assert top["stream"] == kernel["gpu_location"]["stream"] and top["kernel"] == kernel["func"]


def test_template_function_profile(lin):
    lin.load(V0[:2])
    recs = oracle.records(V0[0]) + oracle.records(V0[1])
    fid = 475  # MPI_Comm_size(), frequent in the windows
    runtimes = {}
    for r in recs:
        for e in r["event_window"]["exec_window"] + r["call_stack"]:
            if e["fid"] == fid and e["exit"] and not e["is_anomaly"]:
                runtimes[e["event_id"]] = e["exit"] - e["entry"]
    [row] = lin.query("chimbuko/function_profile", function="MPI_Comm_size()")
    assert row["normal_count"] == len(runtimes)
    assert math.isclose(row["normal_mean"], sum(runtimes.values()) / len(runtimes))
    assert row["normal_max"] == max(runtimes.values())
    # the exclusive mean is over the normal executions that are records of their own (only
    # they carry an exclusive runtime), and says how many those are
    exclusive = {r["event_id"]: r["runtime_exclusive"] for r in recs
                 if r["fid"] == fid and r["event_id"] in runtimes
                 and r.get("runtime_exclusive") is not None}
    assert row["normal_exclusive_count"] == len(exclusive)
    if exclusive:
        assert math.isclose(row["normal_exclusive_mean"],
                            sum(exclusive.values()) / len(exclusive))
    else:
        assert row["normal_exclusive_mean"] is None
    [busiest] = lin.query("MATCH (f:Function)<-[:EXECUTES]-(e:FunctionExecution) "
                          "WHERE e.runtime_exclusive IS NOT NULL AND e.is_anomaly = false "
                          "WITH f, count(e) AS n ORDER BY n DESC LIMIT 1 "
                          "RETURN f.uid AS uid, f.name AS name, n")
    [other] = [r for r in lin.query("chimbuko/function_profile", function=busiest["name"],
                                    limit=1000) if r["uid"] == busiest["uid"]]
    assert other["normal_exclusive_count"] == busiest["n"] <= other["normal_count"]


def test_template_compare_runs(lin, tmp_path):
    recs = oracle.records(V2)
    other = [dict(r, pid=1) for r in recs[:3]]
    path = tmp_path / "run1.anomalies.json"
    path.write_text(json.dumps(other))
    lin.load([V2, path])
    rows = lin.query("chimbuko/compare_runs", run_a=chimbuko.run_uid(RUN, 0),
                     run_b=chimbuko.run_uid(chimbuko.run_key(path), 1))
    top = rows[0]
    assert top["function"] == recs[0]["func"]
    assert top["a_anomalies"] == len(oracle.anomalous(recs, "anomalies"))
    assert top["b_anomalies"] == len(oracle.anomalous(other, "anomalies"))
    assert top["anomaly_delta"] == top["b_anomalies"] - top["a_anomalies"] < 0


def test_file_tree_directory_loads(lin, tmp_path):
    """The tree the AD writes without a database, plus the pserver's global files."""
    anomalies = oracle.records(V0[0])
    rank_dir = tmp_path / "prov" / "0" / "1"
    rank_dir.mkdir(parents=True)
    for step in sorted({r["io_step"] for r in anomalies}):
        (rank_dir / f"{step}.anomalies.json").write_text(
            json.dumps([r for r in anomalies if r["io_step"] == step]))
    (rank_dir / "0.metadata.json").write_text(json.dumps(oracle.records(V0[2])))
    (rank_dir / "0.normalexecs.json").write_text("[]")
    fid = anomalies[0]["fid"]
    (tmp_path / "prov" / "global_func_stats.json").write_text(json.dumps([
        {"app": 0, "fid": fid, "fname": anomalies[0]["func"], "anomaly_metrics": None,
         "runtime_profile": {"inclusive_runtime": {"mean": 2.5, "count": 14}}}]))
    results = lin.load([tmp_path / "prov"])
    assert {r.format for r in results} == {"chimbuko-json"}
    assert [r.status for r in results].count("loaded") == len(results) - 1  # the empty step
    assert all(r.write.unresolved_edges == 0 for r in results)
    assert one(lin, "MATCH (e:FunctionExecution) WHERE e.provdb_collection = 'anomalies' "
                    "RETURN count(e) AS n") == len(anomalies)
    assert one(lin, "MATCH (e:FunctionExecution) RETURN count(e) AS n") == len(oracle.executions(anomalies))
    f = lin.query("MATCH (f:Function {uid: $u}) RETURN f.incl_mean AS m, f.anomaly_count AS a",
                  {"u": chimbuko.function_uid(chimbuko.run_key(rank_dir / "0.anomalies.json"),
                                              0, fid)})[0]
    assert f["m"] == 2.5 and f["a"] == 0


def test_two_runs_never_merge_and_a_named_run_spans_folders(lin, tmp_path):
    """Two runs, each in a folder called provdb, both with program 0: two program runs with
    their own executions; one run's files in two folders, named: one program run."""
    recs = oracle.records(V2)
    for n in (1, 2):
        (tmp_path / f"run{n}" / "provdb").mkdir(parents=True)
        (tmp_path / f"run{n}" / "provdb" / V2.name).write_text(json.dumps(recs))
    lin.load([tmp_path / "run1", tmp_path / "run2"])
    runs = lin.query("MATCH (r:ProgramRun) RETURN r.uid AS uid, r.run AS run, r.run_dir AS dir "
                     "ORDER BY dir")
    assert [r["dir"] for r in runs] == [str(tmp_path / f"run{n}" / "provdb") for n in (1, 2)]
    assert runs[0]["run"] != runs[1]["run"] and all(r["run"].startswith("provdb-") for r in runs)
    per_run = lin.query("MATCH (a:Anomaly)-[:PART_OF]->(:Rank)-[:PART_OF]->(r:ProgramRun) "
                        "RETURN r.uid AS run, count(a) AS n ORDER BY run")
    assert [r["n"] for r in per_run] == [len(oracle.anomalous(recs, "anomalies"))] * 2
    lin.reset()
    named = LoadOptions(chimbuko_run="xgc-june")
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / V0[2].name).write_bytes(V0[2].read_bytes())  # metadata elsewhere
    lin.load([V0[0], tmp_path / "part" / V0[2].name], options=named)
    [program] = lin.query("MATCH (r:ProgramRun) RETURN r.uid AS uid, r.run_dir AS dir")
    assert program == {"uid": "chimbuko:run:xgc-june:0", "dir": None}
    ranks = lin.query("MATCH (k:Rank)-[:PART_OF]->(:ProgramRun {uid: $u}) "
                      "RETURN k.hostname AS host", u=program["uid"])
    hosts = {m["value"] for m in oracle.records(V0[2]) if m["descr"] == "Hostname"}
    assert {r["host"] for r in ranks} - {None} == hosts  # the metadata joined the same run


def test_a_truncated_shard_is_reported_not_half_loaded(lin, tmp_path):
    """A shard cut short (a copy interrupted, a disk full) keeps its collection's record count
    but loses records: strict refuses it whole, lenient loads what is readable and says so."""
    rec = oracle.records(V2)[0]
    whole = tmp_path / "provdb.0.unqlite"
    write_shard(whole, {"anomalies": [dict(rec, event_id=f"0:{i // 100}:{i}", io_step=i // 100)
                                      for i in range(3000)]})
    data = whole.read_bytes()
    cases = {0.99: "truncated or damaged", 0.5: "none of them"}
    for fraction, says in cases.items():
        cut = tmp_path / f"cut{int(fraction * 100)}" / "provdb.0.unqlite"
        cut.parent.mkdir()
        cut.write_bytes(data[:int(len(data) * fraction)])
        with pytest.raises(ParseError, match=says):
            lin.load([cut])
        assert one(lin, "MATCH (n:Lineage) RETURN count(n) AS n") == 0
    [result] = lin.load([tmp_path / "cut99" / "provdb.0.unqlite"], lenient=True)
    assert result.status == "loaded" and result.report["skipped"]
    assert any("not a whole number" in w for w in result.report["warnings"])
    loaded = one(lin, "MATCH (e:FunctionExecution) WHERE e.provdb_collection = 'anomalies' "
                      "RETURN count(e) AS n")
    assert 0 < loaded < 3000
