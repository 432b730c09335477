"""Every file format, cut at every tenth of every real sample, is reported as damaged.

A copy interrupted or a file still being written must never load as if it were whole: strict
mode raises the project's error, lenient mode loads what is intact and counts the cut part as
skipped. Line formats are cut one byte before a line end when a tenth lands on one (a file cut
exactly between two lines is indistinguishable from a whole one). And the line readers hold
at most one bounded line in memory, whatever a line's length (measured in a child process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lineage.errors import LineageError
from lineage.sources.base import LoadReport

from .test_fuzz_parsers import FILE_FORMATS, samples_of
from .corpus import needs_corpus

os.environ.setdefault("LINEAGE_UNQLITE_PROBE_SECONDS", "5")
TENTHS = range(1, 10)


def cut_at(data: bytes, tenth: int) -> bytes:
    cut = len(data) * tenth // 10
    while cut > 1 and data[cut - 1:cut] in (b"\n", b"\r"):
        cut -= 1
    return data[:cut]


def parse_all(fmt, path: Path, lenient: bool) -> LoadReport:
    report = LoadReport(str(path), fmt.name, lenient=lenient)
    for _ in fmt.parse(path, report):
        pass
    return report


@pytest.mark.parametrize("fmt", FILE_FORMATS, ids=[f.name for f in FILE_FORMATS])
def test_every_sample_cut_at_every_tenth_is_reported(fmt, tmp_path):
    missed = []
    for sample in samples_of(fmt)[:4]:
        data = sample.read_bytes()
        for tenth in TENTHS:
            path = tmp_path / f"{tenth}0pct-{sample.name}"
            path.write_bytes(cut_at(data, tenth))
            try:
                parse_all(fmt, path, lenient=False)
                missed.append(f"strict loaded {sample.name} cut at {tenth}0%")
            except LineageError as exc:
                assert str(path) in str(exc), exc  # the message names the file
            try:
                report = parse_all(fmt, path, lenient=True)
            except LineageError:
                continue  # nothing of it is usable: refused in lenient mode too
            if not report.skipped and not report.warnings:
                missed.append(f"lenient loaded {sample.name} cut at {tenth}0% without a word")
    assert not missed, missed


def test_the_whole_samples_are_not_reported_as_cut(tmp_path):
    """The check above cannot pass by refusing everything: the uncut samples load strictly."""
    for fmt in FILE_FORMATS:
        for sample in samples_of(fmt)[:4]:
            report = parse_all(fmt, sample, lenient=False)
            assert not report.skipped, (fmt.name, sample.name, report.skipped)


LONG_LINE_SCRIPT = """
import json, resource, sys
from pathlib import Path
from lineage.sources.base import LoadReport
from lineage.sources import registry

fmt = next(f for f in registry.formats() if f.name == sys.argv[1])
path = Path(sys.argv[2])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = LoadReport(str(path), fmt.name, lenient=True)
records = sum(1 for _ in fmt.parse(path, report))
print(json.dumps({"grown_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before,
                  "skipped": dict(report.skipped), "records": records}))
"""

LONG = 256 * 1024 * 1024  # a 256 MiB line: far over every reader's limit


@needs_corpus
@pytest.mark.parametrize("fmt_name,sample", [
    ("swift-log", "swift/001-echo-20090316-1711-i7icnjl1.log"),
    ("xalt-syslog", None),
    ("pegasus-bp", "pegasus/process_wf_failure.static.bp"),
])
def test_a_huge_line_is_skipped_in_bounded_memory(fmt_name, sample, tmp_path):
    from .conftest import SAMPLES
    from .test_fuzz_parsers import DERIVED

    source = (SAMPLES / sample) if sample else next((DERIVED / "xalt").rglob("*.log"))
    good = source.read_bytes()
    first_line_end = good.index(b"\n") + 1
    path = tmp_path / f"long{source.suffix}"
    with open(path, "wb") as fh:
        fh.write(good[:first_line_end])  # keeps the file detectable and the run known
        chunk = b"x" * (1 << 20)
        for _ in range(LONG // len(chunk)):
            fh.write(chunk)
        fh.write(b"\n")
        fh.write(good[first_line_end:])
    out = subprocess.run([sys.executable, "-c", LONG_LINE_SCRIPT, fmt_name, str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-800:]
    result = json.loads(out.stdout)
    assert sum(result["skipped"].values()) == 1, result["skipped"]
    assert "at most" in next(iter(result["skipped"])), result["skipped"]
    assert result["records"] > 0  # the lines around it are read
    print(fmt_name, "peak RSS grew (KB):", result["grown_kb"])
    assert result["grown_kb"] < 64 * 1024, result  # one bounded line, not 256 MiB
