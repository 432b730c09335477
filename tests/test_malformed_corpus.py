"""The malformed-input corpus (tests/malformed/: README.md, and the inputs written in the test run).

Each input is parsed strictly and leniently without a database, then loaded into the real
Neo4j: a strict failure must name the file, the line or record and what was expected, and
leave the graph exactly as it was (content checksum); a lenient load must store the good
records and count what it skipped.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from lineage import errors
from lineage.sources import registry as loaders
from lineage.sources.base import LoadReport
from lineage.model.records import Node, clean_props

from . import graphcheck
from .conftest import SAMPLES
from .corpus import malformed, needs_corpus

pytestmark = needs_corpus

CORPUS = malformed()


def corpus_files() -> list[Path]:
    out = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        for path in sorted(folder.iterdir()):
            if (path.name.startswith((".", "_")) or path.name.endswith(".expect.json")
                    or path.suffix in (".py", ".md")):
                continue
            out.append(path)
    return out


FILES = corpus_files()
IDS = [f"{p.parent.name}/{p.name}" for p in FILES]


def expectation(path: Path) -> dict:
    return json.loads(path.with_name(path.name + ".expect.json").read_text(encoding="utf-8"))


def format_of(spec: dict):
    [fmt] = [f for f in loaders.formats() if f.name == spec["format"]]
    return fmt


def outcome(spec: dict, lenient: bool) -> dict:
    if lenient and "lenient" in spec:
        return spec["lenient"]
    return spec["strict"]


def node_counts(records) -> dict[str, int]:
    uids: dict[str, set] = {}
    for r in records:
        if isinstance(r, Node):
            uids.setdefault(r.kind.label, set()).add(r.uid)
    return {label: len(v) for label, v in uids.items()}


def merged_props(records) -> dict[str, dict]:
    """Properties per uid as the writer would leave them (later non-null values win)."""
    props: dict[str, dict] = {}
    for r in records:
        if isinstance(r, Node):
            props.setdefault(r.uid, {}).update(clean_props(r.props))
    return props


def check_values(expected: dict, props_of) -> None:
    for uid, want in expected.get("props", {}).items():
        got = props_of(uid)
        for key, value in want.items():
            assert got.get(key) == value, (uid, key, got.get(key))
    for uid, want in expected.get("lengths", {}).items():
        got = props_of(uid)
        for key, length in want.items():
            assert len(got[key]) == length, (uid, key)


def check_error(exc: errors.LineageError, path: Path, want: dict) -> None:
    assert type(exc).__name__ == want["error"], exc
    text = str(exc)
    assert str(path) in text, text
    assert f":{want['where']}:" in text, text
    assert f"expected {want['expected']}" in text, text


# ------------------------------------------------------------------ the corpus itself
def test_corpus_is_well_formed():
    names = {f.name for f in loaders.formats()}
    assert len(FILES) >= 15
    for path in FILES:
        spec = expectation(path)  # every input has its sidecar
        assert spec["format"] in names, (path, spec["format"])
        assert format_of(spec).source == path.parent.name, path
        if "error" in spec["strict"]:
            assert "skipped" in spec.get("lenient", {}), f"{path}: say what lenient skips"
    for sidecar in CORPUS.glob("*/*.expect.json"):
        assert sidecar.with_name(sidecar.name.removesuffix(".expect.json")).exists(), sidecar


def test_corpus_covers_the_issue_for_pegasus():
    descriptions = " ".join(expectation(p)["description"] for p in FILES
                            if p.parent.name == "pegasus").lower()
    for topic in ("cut short", "quote", "not an integer", "declared three times", "unknown",
                  "binary", "latin-1", "300 kb", "empty file", "json file"):
        assert topic in descriptions, topic


# ------------------------------------------------------------------ parsers, no database
@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_parser_outcome(path, lenient):
    spec = expectation(path)
    want = outcome(spec, lenient)
    report = LoadReport(str(path), spec["format"], lenient=lenient)
    records = []
    if "error" in want:
        with pytest.raises(errors.LineageError) as err:
            records.extend(format_of(spec).parse(path, report))
        check_error(err.value, path, want)
        return
    records.extend(format_of(spec).parse(path, report))
    assert dict(report.skipped) == want.get("skipped", {})
    if "unknown" in want:
        assert dict(report.unknown) == want["unknown"]
    if "nodes" in want:
        assert node_counts(records) == {k: v for k, v in want["nodes"].items() if v}
    props = merged_props(records)
    check_values(want, lambda uid: props[uid])
    if lenient and report.skipped:
        # every skip is also explained in a message naming the file and the line
        assert report.warnings and all(str(path) in w for w in report.warnings[:5])


# ------------------------------------------------------------------ loads into Neo4j
_baseline: dict = {}


def baseline(lin, source: str) -> graphcheck.Fingerprint:
    """The graph holding the source's real samples (reloaded only when something changed it)."""
    current = graphcheck.of(lin)
    if _baseline.get(source) == current:
        return current
    lin.reset()
    lin.load([SAMPLES / source], source=source, lenient=True)
    _baseline[source] = graphcheck.of(lin)
    assert _baseline[source].nodes > 0
    return _baseline[source]


STRICT_FAILURES = [p for p in FILES if "error" in expectation(p)["strict"]]
UNDETECTED = [p for p in FILES if not expectation(p).get("detected", True)]


@pytest.mark.parametrize("path", STRICT_FAILURES,
                         ids=[f"{p.parent.name}/{p.name}" for p in STRICT_FAILURES])
def test_strict_load_fails_and_writes_nothing(session_lineage, path):
    """Forced to its folder's source (the source's fallback format reads files that no
    detector accepts), a malformed file fails with file, place and expectation, and the
    graph is exactly as before."""
    lin = session_lineage
    spec = expectation(path)
    source = path.parent.name
    before = baseline(lin, source)
    with pytest.raises(errors.ParseError) as err:
        lin.load([path], source=source)
    check_error(err.value, path, spec["strict"])
    assert graphcheck.of(lin) == before


@pytest.mark.parametrize("path", UNDETECTED, ids=[f"{p.parent.name}/{p.name}" for p in UNDETECTED])
def test_undetected_files_are_not_taken_for_their_folders_source(path):
    """Auto-detection never reads these as their folder's source: they are another
    source's file (and detected as that) or nothing at all (refused by an explicit load)."""
    from lineage.sources import registry as loaders

    fmt = loaders.detect(path)
    assert fmt is None or fmt.source != path.parent.name


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_lenient_load_stores_the_good_records(lin, path):
    spec = expectation(path)
    source = path.parent.name
    want = outcome(spec, lenient=True)
    [result] = lin.load([path], source=source, lenient=True)
    assert result.report["skipped"] == want.get("skipped", {})
    if "unknown" in want:
        assert result.report["unknown"] == want["unknown"]
    stats = lin.stats()["nodes"]
    for label, count in want.get("nodes", {}).items():
        assert stats.get(label, 0) == count, label
    [load] = lin.query("MATCH (l:Load) RETURN l.skipped AS skipped, l.status AS status")
    assert json.loads(load["skipped"]) == want.get("skipped", {})

    def stored(uid):
        [row] = lin.query("MATCH (n:Lineage {uid: $uid}) RETURN properties(n) AS p", uid=uid)
        return row["p"]

    check_values(want, stored)


def test_lenient_summary_counts_by_reason(lin):
    """Several kinds of damage in one file: each reason is counted separately."""
    path = CORPUS / "pegasus" / "wrong-types.bp"
    [result] = lin.load([path], source="pegasus", lenient=True)
    assert Counter(result.report["skipped"]) == Counter(expectation(path)["lenient"]["skipped"])
    assert result.as_dict()["skipped"] == result.report["skipped"]


def test_an_unstorable_record_fails_before_anything_is_written(lin):
    """Even a loader bug (a value Neo4j cannot store) leaves nothing half-written."""
    from lineage import model
    from lineage.sources.base import Format
    from lineage.load.inputs import Input
    from lineage.load.pipeline import load_input
    from lineage.model.records import Node as N
    from lineage.load.writer import Writer

    def parse(path, report):
        for i in range(5000):  # more than one write batch of good records first
            yield N(model.kind("Job"), f"pegasus:job:w:{i}", {"name": str(i)})
        yield N(model.kind("Job"), "pegasus:job:w:bad", {"name": "bad", "attempts": 2**70})

    fmt = Format("test-bad", "pegasus", lambda p, h: False, parse)
    path = CORPUS / "pegasus" / "empty.bp"
    with pytest.raises(errors.LineageError, match="64-bit"):
        load_input(Writer(lin.graph.driver, lin.graph.database), Input(str(path), fmt, True))
    assert graphcheck.of(lin).nodes == 0


def test_cli_strict_exit_code_and_lenient_counts(lin, cli_env):
    """`lineage load`: exit 3 with file:line and what was expected; --lenient counts."""
    import os
    import subprocess
    import sys

    path = CORPUS / "pegasus" / "wrong-types.bp"
    env = dict(cli_env, PYTHONPATH=str(Path(__file__).resolve().parent.parent)
               + os.pathsep + cli_env.get("PYTHONPATH", ""))
    strict = subprocess.run([sys.executable, "-m", "lineage", "load", "--source", "pegasus",
                             str(path)], capture_output=True, text=True, env=env)
    assert strict.returncode == 3, strict.stderr
    assert f"{path}:10: expected an integer for 'job_inst.id', found 'first'" in strict.stderr
    assert graphcheck.of(lin).nodes == 0
    lenient = subprocess.run([sys.executable, "-m", "lineage", "load", "--source", "pegasus",
                              "--lenient", "--json", str(path)],
                             capture_output=True, text=True, env=env)
    assert lenient.returncode == 0, lenient.stderr
    [result] = json.loads(lenient.stdout)
    assert result["skipped"] == expectation(path)["lenient"]["skipped"]
    assert result["status"] == "loaded"


def test_a_stampede_database_with_a_renamed_required_column_is_refused(lin, tmp_path):
    """No job collapses into `pegasus:job:<wf>:None`: a missing id is an error naming the input."""
    import shutil
    import sqlite3

    db = tmp_path / "renamed.stampede.db"
    shutil.copy(SAMPLES / "pegasus" / "process_wf_failure.stampede.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE job RENAME COLUMN exec_job_id TO exec_job_name")
    with pytest.raises(errors.ParseError, match="renamed.stampede.db.*(job_id|exec_job_id)"):
        lin.load([db])
    assert graphcheck.of(lin).nodes == 0
