"""What an XALT run's report says first: its exit status, the binary and libraries it ran,
the job it ran within and the anomalies Chimbuko found in it.

>>> ANOMALIES_CYPHER.count("$run")
1
"""

from __future__ import annotations

from ..outcome import binary_of, outcome

#: Anomalies of the Chimbuko runs that ran within one XALT run (``lineage link``).
ANOMALIES_CYPHER = """
MATCH (x:Lineage:Execution {uid: $run})<-[:RAN_WITHIN]-(c:ProgramRun)
OPTIONAL MATCH (e:FunctionExecution)-[:PART_OF]->(:Rank)-[:PART_OF]->(c) WHERE e.is_anomaly
RETURN count(DISTINCT c) AS runs, count(DISTINCT e) AS anomalies
"""


def execution_outcome(lin, uid: str, is_run: bool) -> dict:
    """The "what happened" box of an XALT run."""
    root = lin.query("nodes", uids=[uid])[0]
    props = root.get("properties") or {}
    status = root.get("status")
    exit_status = props.get("exit_status")
    headline = f"{(status or 'no end record').capitalize()}: {props.get('exec_path') or root['name']}"
    if exit_status is not None:
        headline += f" exited with status {exit_status}"
    where = ", ".join(str(x) for x in (props.get("hostname"), props.get("syshost")) if x)
    if where:
        headline += f" on {where}"
    failures = []
    if status == "failed":
        failures.append({"name": root["name"], "uid": uid,
                         "error": f"exit status {exit_status}", "detail": where})
    inputs = list(lin.query("xalt/run_inputs", run=uid))
    across = binary_of(inputs)
    links = list(lin.query("cross/links_of", uid=uid))
    within = [r for r in links if r["direction"] == "out" and r["type"] == "RAN_WITHIN"]
    if within:
        across.append(("ran within", ", ".join(f"{r['other_kind']} {r['other_name']}"
                                               for r in within)))
    found = lin.query(ANOMALIES_CYPHER, run=uid)[0]
    if found["runs"]:
        across.append(("anomalies", f"{found['anomalies']} (Chimbuko, "
                                    f"{found['runs']} instrumented run"
                                    f"{'s' if found['runs'] != 1 else ''})"))
    else:
        across.append(("anomalies", "no Chimbuko run linked"))
    counts = [("libraries loaded", sum(1 for r in inputs if r["role"] != "executable"),
               "shared libraries XALT recorded")]
    return outcome(status, headline, failures=failures, counts=counts, across=across)
