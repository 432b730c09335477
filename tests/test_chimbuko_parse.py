"""Chimbuko records into lineage records, without a database."""

import json
from pathlib import Path

import pytest

from lineage.sources import registry as loaders
from lineage.errors import ParseError
from lineage.sources.chimbuko import mapping as chimbuko
from lineage.sources.base import LoadReport
from lineage.config.settings import LoadOptions
from lineage.model.records import Edge, Node

from . import chimbuko_oracle as oracle
from .conftest import SAMPLES
from .corpus import needs_corpus

CH = SAMPLES / "chimbuko"
V0_ANOM = CH / "provdb_v0_anomalies.json"
V0_NORM = CH / "provdb_v0_normalexecs.json"
V0_META = CH / "provdb_v0_metadata.json"
V2_ANOM = CH / "provdb_v2_anomalies.json"


def parse(path, lenient=False):
    report = LoadReport(str(path), "chimbuko-json", lenient=lenient)
    return list(chimbuko.parse_json(path, report)), report


def exec_uids(recs):
    return {r.uid for r in recs if isinstance(r, Node) and r.kind.label == "FunctionExecution"}


@needs_corpus
@pytest.mark.parametrize("path", [V0_ANOM, V0_NORM, V2_ANOM])
def test_distinct_executions_match_the_records(path):
    recs, report = parse(path)
    run = chimbuko.run_key(path)
    expected = {chimbuko.event_uid(run, p, e) for p, e in oracle.executions(oracle.records(path))}
    assert exec_uids(recs) == expected
    coll = "normalexecs" if "normal" in path.name else "anomalies"
    assert report.extra["records"][coll] == len(oracle.records(path))


@needs_corpus
def test_call_edges_are_distinct_and_complete():
    recs, _ = parse(V0_ANOM)
    called = [(r.start, r.end) for r in recs if isinstance(r, Edge) and r.rel.name == "CALLED_BY"]
    assert len(called) == len(set(called))
    run = chimbuko.run_key(V0_ANOM)
    expected = {(chimbuko.event_uid(run, p, a), chimbuko.event_uid(run, p, b))
                for p, a, b in oracle.call_edges(oracle.records(V0_ANOM))}
    assert set(called) == expected


@needs_corpus
def test_every_edge_end_is_emitted_as_a_node():
    for path in (V0_ANOM, V0_NORM, V2_ANOM, V0_META):
        recs, _ = parse(path)
        uids = {r.uid for r in recs if isinstance(r, Node)}
        dangling = [(r.rel.name, r.start, r.end) for r in recs if isinstance(r, Edge)
                    and (r.start not in uids or r.end not in uids)]
        assert dangling == [], path


@needs_corpus
def test_generations_and_both_histogram_spellings():
    v0, _ = parse(V0_ANOM)
    v2, _ = parse(V2_ANOM)
    main0 = [r for r in v0 if isinstance(r, Node) and r.props.get("provdb_collection")]
    main2 = [r for r in v2 if isinstance(r, Node) and r.props.get("provdb_collection")]
    assert {n.props["record_version"] for n in main0} == {0}
    assert {n.props["algo_kind"] for n in main0} == {"sstd"}
    first = oracle.records(V0_ANOM)[0]
    n0 = next(n for n in main0 if n.props["event_id"] == first["event_id"])
    assert n0.props["algo_mean"] == first["func_stats"]["mean"]
    assert {n.props["record_version"] for n in main2} == {2}
    rec2 = oracle.records(V2_ANOM)[0]
    hist = rec2["algo_params"]["histogram"]
    n2 = next(n for n in main2 if n.props["event_id"] == rec2["event_id"])
    assert n2.props["hist_counts"] == hist["Bin Counts"]
    assert len(n2.props["hist_edges"]) == len(hist["Bin Counts"]) + 1
    assert n2.props["hist_edges"][0] == pytest.approx(hist["First edge"])
    assert n2.props["hist_edges"][-1] == pytest.approx(hist["First edge"] + len(hist["Bin Counts"]) * hist["Bin width"])
    assert n2.props["outlier_severity"] == rec2["outlier_severity"]
    assert "Anomaly" in n2.extra_labels and n2.props["hostname"] == rec2["hostname"]
    assert json.loads(n2.props["node_state"])["Threads"] == 5
    # the documented spelling and an algo_params record without a version (generation 1)
    old = dict(rec2, algo_params={"histogram": {"Histogram Bin Counts": [3, 1],
                                                "Histogram Bin Edges": [0.0, 5.0, 10.0]}})
    old.pop("version")
    recs = list(chimbuko.parse_records([old], LoadReport("x", "chimbuko-json"), collection="anomalies"))
    node = next(r for r in recs if isinstance(r, Node) and r.props.get("provdb_collection"))
    assert node.props["record_version"] == 1
    assert node.props["hist_counts"] == [3, 1] and node.props["hist_edges"] == [0.0, 5.0, 10.0]


def test_missing_optional_fields_are_fine():
    rec = {"pid": 2, "rid": 0, "event_id": "0:3:9", "fid": 7, "func": "solve", "entry": 5, "exit": 9}
    recs = list(chimbuko.parse_records([rec], LoadReport("x", "chimbuko-json"), collection="normalexecs"))
    node = next(r for r in recs if isinstance(r, Node) and r.uid == chimbuko.event_uid(chimbuko.run_key(Path("x")), 2, "0:3:9"))
    assert node.props["runtime_inclusive"] == 4 and node.props["io_step"] == 3
    assert node.extra_labels == ()


@needs_corpus
def test_metadata_becomes_rank_properties():
    recs, report = parse(V0_META)
    meta = oracle.records(V0_META)
    assert report.extra["records"]["metadata"] == len(meta)
    ranks = [r for r in recs if isinstance(r, Node) and r.kind.label == "Rank"]
    assert {r.props["rank"] for r in ranks} == {m["rid"] for m in meta}
    host = next(m["value"] for m in meta if m["descr"] == "Hostname")
    assert ranks[-1].props["hostname"] == host
    gpu_tids = sorted({m["tid"] for m in meta if m["tid"] != 0})
    assert ranks[-1].props["gpu_thread_ids"] == gpu_tids
    assert json.loads(ranks[-1].props["gpu_threads"])[str(gpu_tids[0])]["CUDA Stream"] is not None


@needs_corpus
def test_gpu_parent_becomes_launched_on():
    rec = dict(oracle.records(V0_NORM)[3])  # a GPU kernel of the sample
    assert rec["is_gpu_event"]
    rec["gpu_parent"] = {"event_id": "1:6:4000", "tid": 0, "call_stack": [
        {"event_id": "1:6:4000", "fid": 9, "func": "launch", "entry": 1, "exit": 2},
        {"event_id": "1:6:3", "fid": 1, "func": "main", "entry": 0, "exit": 0}]}
    recs = list(chimbuko.parse_records([rec], LoadReport("x", "chimbuko-json"), collection="normalexecs"))
    [launch] = [r for r in recs if isinstance(r, Edge) and r.rel.name == "LAUNCHED_ON"]
    run = chimbuko.run_key(Path("x"))
    assert launch.start == chimbuko.event_uid(run, 0, rec["event_id"])
    assert launch.end == chimbuko.event_uid(run, 0, "1:6:4000")
    assert launch.props["stream"] == rec["gpu_location"]["stream"]
    assert (chimbuko.event_uid(run, 0, "1:6:4000"), chimbuko.event_uid(run, 0, "1:6:3")) in {
        (r.start, r.end) for r in recs if isinstance(r, Edge) and r.rel.name == "CALLED_BY"}


@needs_corpus
def test_file_tree_and_global_files(tmp_path):
    tree = tmp_path / "prov" / "0" / "1"
    tree.mkdir(parents=True)
    (tree / "0.anomalies.json").write_text(json.dumps(oracle.records(V0_ANOM)))
    (tree / "1.normalexecs.json").write_text("[]")
    (tmp_path / "prov" / "global_func_stats.json").write_text(json.dumps([
        {"app": 0, "fid": 513, "fname": "MPI_Group_free()",
         "runtime_profile": {"exclusive_runtime": {"mean": 2.0, "count": 14},
                             "inclusive_runtime": {"mean": 2.5, "count": 14}},
         "anomaly_metrics": {"anomaly_count": {"accumulate": 1, "count": 1},
                             "severity": {"accumulate": 24, "maximum": 24}}}]))
    (tmp_path / "prov" / "ad_model.json").write_text(json.dumps([
        {"pid": 0, "fid": 513, "func_name": "MPI_Group_free()",
         "model": {"histogram": {"Bin Counts": [1], "First edge": 0.0, "Bin width": 2.0,
                                 "Min": 1, "Max": 2}}}]))
    (tmp_path / "prov" / "global_counter_stats.json").write_text(json.dumps([
        {"app": 0, "counter": "Message size for all-reduce", "stats": {"accumulate": 50944, "count": 1}}]))
    for name in ("0/1/0.anomalies.json", "0/1/1.normalexecs.json", "global_func_stats.json",
                 "ad_model.json", "global_counter_stats.json"):
        fmt = loaders.detect(tmp_path / "prov" / name)
        assert fmt is not None and fmt.name == "chimbuko-json", name
    recs, report = parse(tree / "0.anomalies.json")
    assert report.extra["records"]["anomalies"] == len(oracle.records(V0_ANOM))
    fs, _ = parse(tmp_path / "prov" / "global_func_stats.json")
    func = next(r for r in fs if isinstance(r, Node) and r.kind.label == "Function")
    assert func.props["incl_mean"] == 2.5 and func.props["anomaly_count"] == 1
    model, _ = parse(tmp_path / "prov" / "ad_model.json")
    func = next(r for r in model if isinstance(r, Node) and r.kind.label == "Function")
    assert func.props["model_kind"] == "histogram" and func.props["model_hist_edges"] == [0.0, 2.0]
    cs, _ = parse(tmp_path / "prov" / "global_counter_stats.json")
    run = [r for r in cs if isinstance(r, Node) and r.kind.label == "ProgramRun"][-1]
    assert run.props["counter_names"] == ["Message size for all-reduce"]


@needs_corpus
def test_detection_is_specific():
    found = {}
    for path in sorted(SAMPLES.glob("*/*")):
        fmt = loaders.detect(path)
        found[path.name] = fmt.source if fmt else None
    for path in sorted(SAMPLES.glob("*/*")):
        is_chimbuko = path.parent.name == "chimbuko"
        assert (found[path.name] == "chimbuko") == is_chimbuko, path.name


@needs_corpus
def test_malformed_json_and_bad_records(tmp_path):
    bad = tmp_path / "x.anomalies.json"
    good = oracle.records(V2_ANOM)
    text = json.dumps(good[:2])
    bad.write_text(text[:-40])  # cut off mid-record
    with pytest.raises(ParseError):
        parse(bad)
    recs, report = parse(bad, lenient=True)
    assert report.extra["records"]["anomalies"] == 1 and report.skipped
    broken = tmp_path / "y.anomalies.json"
    broken.write_text(json.dumps([dict(good[0], event_id="nonsense"), good[1]]))
    with pytest.raises(ParseError, match="event label"):
        parse(broken)
    recs, report = parse(broken, lenient=True)
    assert report.extra["records"]["anomalies"] == 1
    assert chimbuko.event_uid(chimbuko.run_key(broken), 0, good[1]["event_id"]) in exec_uids(recs)


@needs_corpus
def test_bytes_that_are_not_utf8_are_our_error_not_a_decoder_crash(tmp_path):
    # found by test_fuzz_parsers (a 0xc0 byte inserted into a sample): ijson's C backend
    # raised UnicodeDecodeError, which named neither the file nor the record
    good = json.dumps(oracle.records(V2_ANOM)[:2]).encode()
    at = good.index(b'": "') + 4  # inside the first string value
    bad = tmp_path / "z.anomalies.json"
    bad.write_bytes(good[:at] + b"\xc0" + good[at:])
    with pytest.raises(ParseError, match=r"z\.anomalies\.json.*record 1.*UTF-8"):
        parse(bad)
    recs, report = parse(bad, lenient=True)
    assert report.skipped


@needs_corpus
def test_json_lines_are_read_too(tmp_path):
    path = tmp_path / "export.anomalies.json"
    path.write_text("\n".join(json.dumps(r) for r in oracle.records(V2_ANOM)))
    recs, report = parse(path)
    assert report.extra["records"]["anomalies"] == len(oracle.records(V2_ANOM))


def test_unqlite_without_provenance_collections_is_rejected(tmp_path):
    import unqlite

    empty = tmp_path / "other.unqlite"
    db = unqlite.UnQLite(str(empty))
    db["some-key"] = "value"  # a key-value store, not a provenance database
    db.commit()
    db.close()
    assert loaders.detect(empty).name == "chimbuko-unqlite"
    with pytest.raises(ParseError, match="collections"):
        list(chimbuko.parse_unqlite(empty, LoadReport(str(empty), "chimbuko-unqlite")))
    junk = tmp_path / "junk.unqlite"
    junk.write_bytes(b"unqlite" + b"\x00garbage" * 50)
    report = LoadReport(str(junk), "chimbuko-unqlite", lenient=True)
    assert list(chimbuko.parse_unqlite(junk, report)) == [] and report.skipped


@needs_corpus
def test_shard_records_match_json_records(tmp_path):
    import unqlite

    shard = tmp_path / "provdb.3.unqlite"
    db = unqlite.UnQLite(str(shard))
    coll = db.collection("anomalies")
    coll.create()
    for rec in oracle.records(V2_ANOM):
        coll.store(rec)
    db.commit()
    db.close()
    named = LoadOptions(chimbuko_run="one-run")  # one run, whatever folder its files are in
    from_shard = list(chimbuko.parse_unqlite(shard, LoadReport(str(shard), "chimbuko-unqlite",
                                                               options=named)))
    from_json = list(chimbuko.parse_json(V2_ANOM, LoadReport(str(V2_ANOM), "chimbuko-json",
                                                             options=named)))
    key = lambda r: repr(r)  # noqa: E731
    assert sorted(map(key, from_shard)) == sorted(map(key, from_json))


def test_a_shards_records_read_as_json_are_the_records_the_database_holds(tmp_path):
    """The reader takes each record as the JSON text UnQLite writes of it; a record that
    text cannot say exactly (a string not UTF-8, the integer -2**63) is fetched as values.
    Either way each record is the one ``Collection.fetch`` gives, type for type, in id
    order, and a deleted record's id is passed over."""
    import unqlite

    from lineage.sources.chimbuko import shard as shard_reader

    path = tmp_path / "provdb.0.unqlite"
    db = unqlite.UnQLite(str(path))
    coll = db.collection("metadata")
    coll.create()
    stored = [{"descr": "plain", "value": 1.5, "rid": 0},
              {"descr": b"not utf-8 \xff", "rid": 1},
              {"descr": "int64 min", "value": -2**63, "rid": 2},
              {"descr": "gone", "rid": 3},
              {"descr": "é ☃ \"quoted\" \\ \x01", "value": [1, "2", None, True, {"k": 0.25}],
               "rid": 4}] + [{"descr": f"many {i}", "rid": 5 + i} for i in range(1200)]
    for rec in stored:
        coll.store(rec)
    coll.delete(3)
    db.commit()
    expected = [coll.fetch(i) for i in range(int(coll.last_record_id()) + 1)]
    expected = [rec for rec in expected if rec is not None]
    db.close()

    report = LoadReport(str(path), "chimbuko-unqlite")
    [(name, records)] = list((n, list(r)) for n, r in
                             shard_reader.collections(path, report, ("metadata", "anomalies")))

    def typed(value):
        if isinstance(value, dict):
            return {k: typed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [typed(v) for v in value]
        return (type(value).__name__, value)

    assert name == "metadata" and len(records) == len(stored) - 1 and not report.skipped
    assert [typed(r) for r in records] == [typed(r) for r in expected]
    assert records[1]["descr"] == b"not utf-8 \xff" and records[2]["value"] == -2**63


def test_a_chunk_of_a_shards_records_ends_at_its_byte_budget(tmp_path):
    """A chunk holds records until their JSON reaches its byte budget (a shard of huge
    records stays in bounded memory), and the next chunk goes on from the record after."""
    import unqlite

    from lineage.sources.chimbuko import shard as shard_reader

    db = unqlite.UnQLite(str(tmp_path / "provdb.0.unqlite"))
    coll = db.collection("metadata")
    coll.create()
    for i in range(30):
        coll.store({"descr": f"record {i}", "value": "x" * (20_000 if i % 3 == 0 else 10),
                    "rid": i})
    coll.delete(7)
    expected = [r for r in (coll.fetch(i) for i in range(30)) if r is not None]

    def messages(budget):
        return list(shard_reader.collection_chunks(db, "metadata", chunk_bytes=budget))

    whole, one_each = messages(1 << 20), messages(1)
    for sent in (whole, one_each):
        assert {kind for kind, _ in sent} == {"texts"}
        assert [r for _, text in sent for r in json.loads(text)] == expected
    assert len(whole) == 1
    assert [len(json.loads(text)) for _, text in one_each] == [1] * len(expected)
    db.close()
