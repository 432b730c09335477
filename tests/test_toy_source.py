"""A source is a folder, for everything: a toy source written into a temporary folder (not
the package), registered the way every source is (a package declaring ``SOURCE``, named in
``$LINEAGE_SOURCE_PACKAGES``), gets loading, templates, a report with its own table, ``why``,
``diff`` and exports, and no generic module names it.

The model is collected once per process, so the toy's graph is loaded and asked about in a
child process against the test server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from .corpus import REPO

TOY = {
    "__init__.py": '''
        """A toy source: one line per run or step."""
        from lineage.sources.source import Source

        SOURCE = Source("toy", "toy runs of toy steps", readers=("lines",),
                        package="toysrc")
    ''',
    "model.py": '''
        from lineage.model.core import NodeKind, Relation, Role
        from lineage.model.prov import PART_OF, USED, WAS_GENERATED_BY

        TIMES = {"start_time": "float", "end_time": "float"}
        RUN = NodeKind("ToyRun", Role.ACTIVITY, "toy", uid_parts=("id",), run=True,
                       props={"id": "string", "status": "status", **TIMES},
                       outcome="as written")
        STEP = NodeKind("ToyStep", Role.ACTIVITY, "toy", uid_parts=("run", "step"),
                        props={"run": "string", "step": "string", "status": "status",
                               "error": "string", **TIMES}, outcome="as written")
        FILE = NodeKind("ToyFile", Role.ENTITY, "toy", uid_parts=("path",),
                        props={"path": "string"})
        KINDS = (RUN, STEP, FILE)
        RELATIONS = (Relation(PART_OF, STEP, RUN), Relation(USED, STEP, FILE),
                     Relation(WAS_GENERATED_BY, FILE, STEP))
    ''',
    "lines.py": '''
        from lineage.model.prov import PART_OF, USED, WAS_GENERATED_BY
        from lineage.model.records import Edge, Node
        from lineage.sources.base import Format
        from lineage.sources.lines import bounded_lines

        from .model import FILE, RUN, STEP

        def detect(path, head):
            return head.startswith(b"toy-run ")

        def parse(path, report):
            for number, line in enumerate(bounded_lines(path, report, 1 << 20), 1):
                words = line.split()
                if not words:
                    continue
                if words[0] == "toy-run":
                    yield Node(RUN, RUN.uid(words[1]), {"id": words[1], "name": words[1],
                                                       "status": words[2], "start_time": 1e9,
                                                       "end_time": 1e9 + 60})
                    run = words[1]
                elif words[0] == "step" and len(words) >= 5:
                    _, name, status, used, made, *error = words
                    step = STEP.uid(run, name)
                    yield Node(STEP, step, {"run": run, "step": name, "name": name,
                                            "status": status, "error": " ".join(error) or None,
                                            "start_time": 1e9 + number,
                                            "end_time": 1e9 + number + 1})
                    yield Edge(PART_OF, step, RUN.uid(run))
                    for path_, rel in ((used, USED), (made, WAS_GENERATED_BY)):
                        yield Node(FILE, FILE.uid(path_), {"path": path_, "name": path_})
                        yield (Edge(rel, step, FILE.uid(path_)) if rel is USED
                               else Edge(rel, FILE.uid(path_), step))
                else:
                    report.skip(str(path), number, "a toy-run or step line", line[:40])

        FORMATS = [Format("toy-lines", "toy", detect, parse, fallback=True)]
    ''',
    "views.py": '''
        from lineage.sources.source import Section, Views
        from .model import RUN, STEP

        def explain(lin, node):
            rows = lin.query("toy/steps", run=node["uid"])
            return {"uid": node["uid"], "kind": node["kind"],
                    "status": node["properties"].get("status"),
                    "problems": [{"what": "step", "name": r["step"], "status": r["status"],
                                  "causes": [r["error"]]} for r in rows
                                 if r["status"] != "succeeded"]}

        def differ(lin, a, b):
            first = {r["step"]: r["status"] for r in lin.query("toy/steps", run=a["uid"])}
            second = {r["step"]: r["status"] for r in lin.query("toy/steps", run=b["uid"])}
            return [{"aspect": "step status", "name": s, "first": first.get(s),
                     "second": second.get(s)} for s in sorted(set(first) | set(second))
                    if first.get(s) != second.get(s)]

        VIEWS = Views(run_sections={RUN.label: [Section("Toy steps", "toy/steps", "run")]},
                      explainers={RUN.label: explain}, differs={RUN.label: differ},
                      export_children=frozenset({STEP.label}))
    ''',
    "cypher/steps.cypher": '''
        // name: toy/steps
        // purpose: The steps of a toy run, with their status and error.
        // param run: string, required. The run's uid. Example: "toy:toyrun:r1"
        // returns: step, status, error
        MATCH (:Lineage:ToyRun {uid: $run})<-[:PART_OF]-(s:ToyStep)
        RETURN s.step AS step, s.status AS status, s.error AS error
        ORDER BY step
    ''',
}

RUNS = {
    "good.toy": "toy-run r1 succeeded\n"
                "step fetch succeeded in.dat raw.dat\n"
                "step crunch succeeded raw.dat out.dat\n",
    "bad.toy": "toy-run r2 failed\n"
               "step fetch succeeded in.dat raw.dat\n"
               "step crunch failed raw.dat out2.dat ran out of toy memory\n",
}

ASK = r'''
import json, sys
from pathlib import Path
from lineage.api import connect
from lineage.query import templates
from lineage.sources import registry

out = {"sources": list(registry.SOURCES)}
with connect() as lin:
    results = lin.load([Path(p) for p in sys.argv[1:3]])
    out["loaded"] = [(r.format, r.status) for r in results]
    out["template"] = [dict(r) for r in lin.query("toy/steps", run="toy:toyrun:r2")]
    out["listed"] = "toy/steps" in {t.name for t in templates.all_templates()}
    out["why"] = lin.why("toy:toyrun:r2")
    out["diff"] = lin.diff("toy:toyrun:r1", "toy:toyrun:r2")["differences"]
    report = Path(sys.argv[3]) / "r2.html"
    lin.report("toy:toyrun:r2", report)
    out["report"] = report.read_text(encoding="utf-8")
    events = Path(sys.argv[3]) / "r2.jsonl"
    lin.export("toy:toyrun:r2", events, fmt="openlineage")
    out["events"] = [(e["job"]["name"], e["eventType"]) for e in
                     map(json.loads, events.read_text().splitlines())]
    prov = Path(sys.argv[3]) / "r2.json"
    lin.export("toy:toyrun:r2", prov)
    out["prov"] = json.loads(prov.read_text())
    out["failed"] = [r["uid"] for r in lin.query("MATCH (n:Failed) RETURN n.uid AS uid")]
print(json.dumps(out))
'''


def _write_toy(folder):
    for name, text in TOY.items():
        path = folder / "toysrc" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    inputs = []
    for name, text in RUNS.items():
        inputs.append(folder / name)
        inputs[-1].write_text(text)
    return inputs


def test_a_toy_source_from_a_temporary_folder_gets_every_answer(lin, neo4j_settings, tmp_path):
    inputs = _write_toy(tmp_path)
    env = {**os.environ, "LINEAGE_SOURCE_PACKAGES": "toysrc",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]),
           "NEO4J_URI": neo4j_settings.uri, "NEO4J_USERNAME": neo4j_settings.user,
           "NEO4J_PASSWORD": neo4j_settings.password, "XDG_CONFIG_HOME": str(tmp_path)}
    if neo4j_settings.database:
        env["NEO4J_DATABASE"] = neo4j_settings.database
    done = subprocess.run([sys.executable, "-c", ASK, *map(str, inputs), str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["sources"][-1] == "toy"
    assert out["loaded"] == [["toy-lines", "loaded"], ["toy-lines", "loaded"]]
    assert out["listed"]
    assert [(r["step"], r["status"]) for r in out["template"]] == [
        ("crunch", "failed"), ("fetch", "succeeded")]
    assert [(p["name"], p["status"], p["causes"]) for p in out["why"]["problems"]] == [
        ("crunch", "failed", ["ran out of toy memory"])]
    assert out["diff"] == [{"aspect": "step status", "name": "crunch", "first": "succeeded",
                            "second": "failed"}]
    assert "Toy steps" in out["report"] and "ran out of toy memory" in out["report"]
    assert ["crunch", "FAIL"] in out["events"] and ["r2", "FAIL"] in out["events"]
    assert ["fetch", "COMPLETE"] in out["events"]
    assert any(e.get("lineage:kind") == "ToyStep" for e in out["prov"]["activity"].values())
    assert sorted(out["failed"]) == ["toy:toyrun:r2", "toy:toystep:r2:crunch"]


def test_no_generic_module_names_a_source():
    """The generic code imports no source: everything of a source is in its folder."""
    named = []
    for path in (REPO / "lineage").rglob("*.py"):
        if (REPO / "lineage" / "sources") in path.parents:
            continue
        text = path.read_text(encoding="utf-8")
        for source in ("pegasus", "swift", "chimbuko", "xalt", "prov", "rocrate"):
            if f"sources.{source}" in text or f"sources import {source}" in text:
                named.append((str(path.relative_to(REPO)), source))
    assert named == []
