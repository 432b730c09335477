"""Loading a directory of hundreds of Swift logs: progress per file, empty logs reported."""

import re
import subprocess
import sys
import time

from .conftest import SAMPLES
from .swift_oracle import importer_counts
from .corpus import needs_corpus

pytestmark = needs_corpus

LOGS = sorted((SAMPLES / "swift").glob("*.log"))
TOKEN = re.compile(r"(\d{8}-\d{4}-)([a-z0-9]{8})\b")
COPIES = 20  # x 10 sample logs = 200 files


def copy_with_new_ids(text: str, copy: int) -> str:
    """The same log as another run: every run and dataset token gets a new, distinct id."""
    return TOKEN.sub(lambda m: f"{m.group(1)}{m.group(2)[:4]}{copy:04d}", text)


def test_two_hundred_logs_load_with_progress(lin, cli_env, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    for copy in range(COPIES):
        for path in LOGS:
            new = copy_with_new_ids(path.read_text(), copy)
            (folder / copy_with_new_ids(path.name, copy)).write_text(new)
    files = sorted(folder.iterdir())
    assert len(files) == COPIES * len(LOGS) == 200

    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "lineage", "-v", "load", str(folder)],
                          capture_output=True, text=True, env=cli_env, timeout=900)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    progress = [line for line in proc.stderr.splitlines()  # (warnings name the files too)
                if str(folder) in line and line.split()[0] in ("loaded", "empty", "failed")]
    assert len(progress) == 200  # with -v, one line per file, as it is loaded
    statuses = [line.split()[0] for line in progress]
    want = [importer_counts(p) for p in LOGS]
    # every sample log holds facts (the one without provenance lines loads what it holds)
    empty_per_copy = sum(1 for w in want if w["runs"] == 0)
    assert statuses.count("empty") == COPIES * empty_per_copy == 0
    assert statuses.count("loaded") == 200
    assert "loaded 200 of 200 inputs" in proc.stdout

    n = lambda q: lin.query(q)[0]["n"]  # noqa: E731
    assert n("MATCH (r:ScriptRun) RETURN count(DISTINCT r.run_id) AS n") == 200
    for key, cypher in (
        ("calls", "MATCH (:ScriptRun)<-[:PART_OF]-(c:FunctionCall) RETURN count(c) AS n"),
        ("executions", "MATCH (e:AppExecution) RETURN count(e) AS n"),
        ("datasets", "MATCH (d:Dataset) RETURN count(d) AS n"),
        ("containment", "MATCH ()-[r:HAD_MEMBER]->() RETURN count(r) AS n"),
    ):
        assert n(cypher) == COPIES * sum(w[key] for w in want), key
    partial = lin.query("MATCH (l:Load) WHERE l.path CONTAINS '0026-function-param' "
                        "RETURN l.warnings AS w, l.status AS s")
    assert len(partial) == COPIES
    assert all(r["s"] == "loaded" and "no provenance lines" in r["w"] for r in partial)
    print(f"\n200 Swift logs loaded through the CLI in {seconds:.1f} s")
