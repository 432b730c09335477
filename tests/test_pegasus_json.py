"""pegasus-monitord --encoding json: the same records as the BP stream it mirrors."""

import json

import pytest

from lineage.errors import ParseError
from lineage.sources.registry import detect, formats
from lineage.sources.base import LoadReport
from lineage.sources.pegasus.netlogger import parse_line, parse_timestamp
from lineage.sources.pegasus.bp import parse as parse_bp
from lineage.sources.pegasus.jsonl import parse as parse_json, parse_json_lines
from lineage.model.records import Node

from .conftest import SAMPLES
from .corpus import needs_corpus

BD = SAMPLES / "pegasus" / "blackdiamond-4.0.bp"


def monitord_json(bp_line: str) -> str:
    """What monitord's json_encode writes for one BP event: '.' and '__' in keys become
    '_', ts is epoch seconds, integers are JSON numbers."""
    ev = parse_line(bp_line)
    out = {}
    for key, value in ev.items():
        if key == "ts":
            out["ts"] = parse_timestamp(value)
            continue
        if key != "event":
            key = key.replace(".", "_").replace("__", "_")
        out[key] = int(value) if value.lstrip("-").isdigit() else value
    return json.dumps(out)


def as_set(records):
    return {(type(r).__name__, getattr(r, "uid", None) or (r.rel.name, r.start, r.end),
             repr(sorted(r.props.items()))) for r in records}


@needs_corpus
def test_json_lines_give_the_bp_records(tmp_path):
    lines = [ln for ln in BD.read_text().splitlines() if ln.strip()]
    jsonl = tmp_path / "blackdiamond.json"
    jsonl.write_text("\n".join(monitord_json(ln) for ln in lines) + "\n")
    assert detect(jsonl).name == "pegasus-json"
    bp = list(parse_bp(BD, LoadReport("bp", "pegasus-bp")))
    report = LoadReport("json", "pegasus-json")
    js = list(parse_json(jsonl, report))
    assert report.skipped == {} and report.unknown == {}
    assert as_set(js) == as_set(bp)
    assert len({r.uid for r in js if isinstance(r, Node) and r.kind.label == "Job"}) == 14


def test_keys_are_mapped_back_not_guessed():
    line = json.dumps({"ts": 5, "event": "stampede.job.info", "xwf_id": "w", "job_id": "j",
                       "type_desc": "compute", "max_retries": 3, "task_count": 1})
    [job, part_of] = list(parse_json_lines([line], LoadReport("x", "pegasus-json")))[:2]
    assert job.uid == "pegasus:job:w:j"
    assert job.props["type_desc"] == "compute" and job.props["max_retries"] == 3


def test_bad_json_line_names_the_line():
    lines = ['{"ts": 1, "event": "stampede.wf.plan", "xwf_id": "w"}', '{"ts": 2, "event": ']
    with pytest.raises(ParseError, match=r"<lines>:2: expected one JSON object per line"):
        list(parse_json_lines(lines, LoadReport("x", "pegasus-json")))
    report = LoadReport("x", "pegasus-json", lenient=True)
    recs = list(parse_json_lines(lines + ["[1, 2]"], report))
    assert sum(report.skipped.values()) == 2 and recs


@needs_corpus
def test_no_false_positives_on_other_samples():
    fmt = [f for f in formats() if f.name == "pegasus-json"][0]
    for path in SAMPLES.rglob("*"):
        if path.is_file():
            assert not fmt.detect(path, path.read_bytes()[:65536]), path
