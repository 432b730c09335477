"""The XALT loader against what XALT's own database loader stored (recorded facts).

XALT's ``XALTdb`` does not install from a package registry, so what it stored for the real
sample records is recorded in ``tests/facts/xalt_loader.json`` (its ``how`` says how it was
obtained): the run row and, per table, a row count and a digest. Here the loader loads the
same files into Neo4j and the graph is rendered as XALT's tables, applying the differences
the loader makes on purpose (:data:`KNOWN_DIFFERENCES`), and compared.

Run alone:  ``pytest tests/test_xalt_loader_oracle.py``
"""

from __future__ import annotations

import json

from .conftest import SAMPLES, needs_corpus
from .oracle_facts import recorded, table

pytestmark = needs_corpus
FACTS = recorded("xalt_loader")

KNOWN_DIFFERENCES = {
    "start_time_rounded": "XALTdb stores a run's start_time as '%.f' (whole seconds); the "
                          "loader keeps the fraction.",
    "zero_hash": "XALT writes sha1 '0' for a file it did not hash, and XALTdb stores '0'; "
                 "the loader records no sha1 (None) for it.",
    "start_record_times": "XALTdb stores end_time 0 and run_time 0 for a start record; the "
                          "loader records none yet.",
}
# XALTdb stores every environment value; the loader's default mode ('filtered') redacts
# secrets, of which the real samples hold none: their environments are stored as XALTdb
# stores them in either mode (a value redacted here would add "env_redacted" and fail).


def as_stored(sha1: str | None) -> str:
    """The loader's sha1 as XALTdb stores it (zero_hash)."""
    return "0" if sha1 is None else sha1


def xalt_tables(lin) -> dict:
    """The graph rendered as XALT's tables (the columns of the facts' ``how``)."""
    q = lin.query
    run_objects = q("MATCH (e:Execution)-[:USED {role: 'loaded'}]->(l) "
                    "RETURN e.uuid AS u, l.path AS path, l.sha1 AS sha1")
    links = q("MATCH (x:Executable)-[:WAS_GENERATED_BY]->(b:Build) WHERE b.has_link_record "
              "RETURN b.uuid AS uuid, x.sha1 AS sha1, b.compiler AS prg, "
              "b.compiler_path AS path, b.build_user AS user, b.build_host AS host, "
              "b.build_epoch AS epoch, b.exec_path AS exec_path, b.wd AS wd, "
              "b.link_line AS link_line, b.functions AS functions")
    link_objects = q("MATCH (b:Build)-[:USED {role: 'linked'}]->(l) "
                     "RETURN b.uuid AS u, l.path AS path, l.sha1 AS sha1")
    env = q("MATCH (e:Execution) RETURN e.uuid AS u, e.env AS env")
    return {
        "run_objects": table((r["u"], r["path"], as_stored(r["sha1"])) for r in run_objects),
        "links": table((r["uuid"], r["sha1"], r["prg"], r["path"], r["user"], r["host"],
                        repr(float(r["epoch"])), r["exec_path"], r["wd"],
                        json.dumps(r["link_line"] or [], ensure_ascii=False)) for r in links),
        "link_objects": table((r["u"], r["path"], as_stored(r["sha1"])) for r in link_objects),
        "functions": table((r["uuid"], f) for r in links for f in r["functions"] or []),
        "env": table((r["u"], name, value) for r in env
                     for name, value in json.loads(r["env"]).items()),
    }


def xalt_run_rows(lin) -> list[dict]:
    """Each run as XALT's xalt_run row (start_time_rounded, start_record_times)."""
    rows = lin.query(
        "MATCH (e:Execution)-[:USED {role: 'executable'}]->(x:Executable) "
        "RETURN e.uuid AS run_uuid, e.job_id AS job_id, e.syshost AS syshost, "
        "e.build_uuid AS uuid, x.sha1 AS hash_id, e.account AS account, "
        "e.exec_type AS exec_type, e.start_time AS start_time, e.end_time AS end_time, "
        "e.run_time AS run_time, e.cores AS num_cores, e.nodes AS num_nodes, e.queue AS queue, "
        "e.user AS user, e.exec_path AS exec_path, e.cwd AS cwd, e.cmdline AS cmdline")
    for row in rows:
        assert row["end_time"] is None and row["run_time"] is None  # a start record
        row["end_time"] = row["run_time"] = 0.0
        row["start_time"] = float(f"{row['start_time']:.0f}")
    return rows


def test_the_graph_holds_what_xalts_own_loader_stored(lin):
    files = [SAMPLES / "xalt" / name for name in FACTS["files"]]
    results = lin.load(files, xalt_env="all")
    assert [r.status for r in results] == ["loaded"] * len(files)
    assert xalt_run_rows(lin) == FACTS["runs"]
    assert xalt_tables(lin) == FACTS["tables"]
    # the comparison sees one library less
    lin.graph.run("MATCH (:Execution)-[u:USED {role: 'loaded'}]->() WITH u LIMIT 1 DELETE u",
                  write=True)
    assert xalt_tables(lin)["run_objects"] != FACTS["tables"]["run_objects"]


def test_the_known_differences_are_exactly_these(lin):
    files = [SAMPLES / "xalt" / name for name in FACTS["files"]]
    lin.load(files, xalt_env="all")
    everything = {r["u"]: json.loads(r["env"]) for r in lin.query(
        "MATCH (e:Execution) RETURN e.uuid AS u, e.env AS env")}
    [run] = lin.query("MATCH (e:Execution) RETURN e.start_time AS start")
    seen = {"start_record_times"}
    if run["start"] != float(f"{run['start']:.0f}"):
        seen.add("start_time_rounded")
    if lin.query("MATCH (l:Library) WHERE l.sha1 IS NULL RETURN count(l) AS n")[0]["n"]:
        seen.add("zero_hash")
    lin.reset(force=True)
    lin.load(files)  # the default environment mode: filtered
    for r in lin.query("MATCH (e:Execution) RETURN e.uuid AS u, e.env AS env"):
        filtered = json.loads(r["env"])
        assert set(filtered) == set(everything[r["u"]])
        changed = {k for k, v in filtered.items() if v != everything[r["u"]][k]}
        assert all("[redacted]" in filtered[k] for k in changed), changed
        if changed:
            seen.add("env_redacted")
    assert seen == set(KNOWN_DIFFERENCES), seen ^ set(KNOWN_DIFFERENCES)

