"""Every benchmark of bench/ runs at its smallest size (``--smoke``) against the test
session's Neo4j and writes its results file; the shard stand-in has the real shard's counts.
Timings are never asserted here (bench/ measures them).
"""

from __future__ import annotations

import json
import subprocess
import sys
import pytest

from .corpus import REPO, SAMPLES, needs_corpus

BENCH = REPO / "bench"
sys.path.insert(0, str(BENCH))

#: Per question: figures its results must hold, and ones whose value the smoke size fixes.
EXPECTED = {
    "ancestry": ({"ms_width_4", "us_per_edge_width_4", "per_edge_widest_over_narrowest"},
                 {"ancestors_width_2": 13, "ancestors_width_4": 25}),  # 6 layers + the top
    "bp": ({"elements", "elements_per_s"}, {"inputs": 1}),
    "chimbuko_shard": ({"seconds_new", "elements_new", "megabytes_new", "writes_nodes_s",
                        "writes_edges_s"}, {}),
    "claims": ({"seconds_big", "seconds_pair_load", "seconds_pair_unload", "claims_pair"},
               {"hub_runs": 3}),
    "cli_startup": ({"seconds_help", "seconds_cypher_list", "seconds_query", "seconds_stats"},
                    {}),
    "fleet": ({"files_per_s", "seconds_floor", "fleet_over_floor", "xalt_own_files_per_s_slow"},
              {"elements": 155, "elements_floor": 155}),  # 31 graph records a run
    "export": ({"seconds_prov-json", "seconds_graphml", "megabytes_graphml"}, {}),
    "prov_memory": ({"records", "megabytes", "peak_mib", "mib_per_mb_read"}, {}),
    "report": ({"megabytes"}, {}),
    "round_trip": ({"lin_query_us", "driver_us", "lin_query_over_driver"}, {}),
    "samples": ({"elements", "elements_per_s"}, {"inputs": 3}),  # XALT's three files
    "secrets": ({"parse_ms_realistic", "filter_ms_distinct"},  # one run in ten: 3 planted
                {"parse_redacted_realistic": 3, "filter_redacted_distinct": 3}),
    "stampede_db": ({"elements", "elements_per_s"}, {"inputs": 1}),
    "watch": ({"seconds_latency_median", "seconds_latency_p95", "seconds_latency_max",
               "increments"}, {"lines": 40}),
}
#: Options a script's smoke run takes beside ``--smoke``, so that they run too.
OPTIONS = {"chimbuko_shard": ["--writes-alone"]}
#: Questions whose inputs derive from the real samples.
FROM_SAMPLES = {"chimbuko_shard", "claims", "fleet", "samples", "secrets", "stampede_db"}
SCRIPTS = sorted(BENCH.glob("bench_*.py"))


def test_every_script_is_one_question_here():
    assert sorted(p.stem.removeprefix("bench_") for p in SCRIPTS) == sorted(EXPECTED)


@pytest.mark.parametrize("script", [
    pytest.param(p, id=p.stem, marks=[needs_corpus] if p.stem[6:] in FROM_SAMPLES else [])
    for p in SCRIPTS])
def test_a_benchmark_runs_at_its_smallest_size(script, cli_env, tmp_path):
    question = script.stem.removeprefix("bench_")
    env = dict(cli_env, LINEAGE_CORPUS=str(SAMPLES.parent))
    proc = subprocess.run([sys.executable, str(script), "--smoke", "--results", str(tmp_path),
                           *OPTIONS.get(question, [])],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith(f"{question} at size ")  # the answer first
    [written] = tmp_path.glob("*.json")
    result = json.loads(written.read_text())
    assert result["question"] == question and result["smoke"] and result["rounds"] == 1
    assert result["commits"]["this"] and len(result["machine"]["load_average"]) == 3
    median = result["median"]["this"]
    keys, values = EXPECTED[question]
    assert keys | {"seconds", "peak_rss_mib"} <= set(median)
    assert median["seconds"] > 0 and median["peak_rss_mib"] > 0
    assert {k: median[k] for k in values} == values


@needs_corpus
def test_the_shard_stand_in_has_the_real_shards_counts():
    """At full size, counted by lineage's own Chimbuko reader (no file written); the
    anomalies' call stacks deeper than the samples' deepest (6 frames)."""
    import gen_xgc_shard

    by_collection = gen_xgc_shard.collections(gen_xgc_shard.plan())
    assert gen_xgc_shard.loaded_counts(by_collection) == gen_xgc_shard.REAL_SHARD
    depths = sorted(len(rec["call_stack"]) for rec in by_collection["anomalies"])
    assert depths[len(depths) // 2] > 6


@needs_corpus
def test_the_shard_stand_in_is_a_v0_provdb_shard(tmp_path):
    """Small: the UnQLite file reads back as the records it was written from, in the real v0
    records' shape (their keys, 21-execution windows, messages on window executions)."""
    import gen_xgc_shard
    from lineage.sources.base import LoadReport
    from lineage.sources.chimbuko.mapping import parse_unqlite

    path = tmp_path / "provdb.0.unqlite"
    gen_xgc_shard.write(path, 0.01)
    by_collection = gen_xgc_shard.collections(gen_xgc_shard.plan(0.01))
    read = gen_xgc_shard.tally(parse_unqlite(path, LoadReport(str(path), "chimbuko-unqlite")))
    sample = json.loads((SAMPLES / "chimbuko" / "provdb_v0_anomalies.json").read_text())[0]
    events = by_collection["anomalies"] + by_collection["normalexecs"]
    assert all(set(rec) == set(sample) - {"__id"} for rec in events)
    assert {len(rec["event_window"]["exec_window"]) for rec in events} == {21}
    for rec in events:
        window = {e["event_id"] for e in rec["event_window"]["exec_window"]}
        assert {m["execdata_key"] for m in rec["event_window"]["comm_window"]} <= window
    expected = gen_xgc_shard.loaded_counts(by_collection)
    assert read == {k: v for k, v in expected.items() if k in read} and read["executions"] > 0


@needs_corpus
def test_the_shard_stand_in_has_the_real_shards_shape():
    """Each event record is the top of its own call stack (6-17 frames, rooted at a step's
    ``.TAU application``) and the middle of its 21-execution window; the messages of its
    communication window belong to executions of that window and reach the 27 ranks the
    shard's two ranks talk to."""
    import gen_xgc_shard

    by_collection = gen_xgc_shard.collections(gen_xgc_shard.plan())
    events = by_collection["anomalies"] + by_collection["normalexecs"]
    depths = set()
    peers = set()
    for rec in events:
        stack, window = rec["call_stack"], rec["event_window"]["exec_window"]
        assert stack[0]["event_id"] == rec["event_id"] == window[10]["event_id"]
        assert stack[-1]["func"] == ".TAU application"
        depths.add(len(stack))
        labels = {e["event_id"] for e in window}
        for msg in rec["event_window"]["comm_window"]:
            assert msg["execdata_key"] in labels and rec["rid"] in (msg["src"], msg["tar"])
            peers.add(msg["tar"] if msg["type"] == "SEND" else msg["src"])
    assert min(depths) >= 6 and max(depths) <= 17 and len(depths) > 5
    assert len(peers) == gen_xgc_shard.ALL_RANKS - len(gen_xgc_shard.RANKS)
