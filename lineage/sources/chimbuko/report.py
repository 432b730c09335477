"""The anomalies of a Chimbuko program run, for its run view: the call stack and execution
window of each of the most severe ones, shipped in the page, so that a click on an anomaly (a
node of the graph or a row of the anomalies table) shows them with no server.

One query (template ``chimbuko/anomaly_details``) fetches every anomaly's stack and window:
two per-anomaly templates would cost two round trips each (bench/bench_anomaly_details.py
measures both). Times are made readable here (Chimbuko's entry / exit are microseconds since
the epoch), runtimes get their unit; the page writes every value with ``textContent`` only.

>>> micros(9979985), micros(None), micros(12.5)
('9,979,985 µs', '', '12.5 µs')
>>> since(1_000_250, 1_000_000), since(999_000, 1_000_000), since(None, 1)
('+250 µs', '-1,000 µs', '')
"""

from __future__ import annotations

from ...humanize import human
from ..outcome import binary_of, outcome

#: Anomalies of a run whose call stack and window the page carries, most severe first (the
#: order of ``chimbuko/run_anomalies``); a click on any other anomaly says it is not included.
MAX_DETAILS = 50

#: Executions shown before and after an anomaly on its thread (``steps`` of the template).
WINDOW_STEPS = 5

COUNT_CYPHER = """
MATCH (run:Lineage {uid: $run})<-[:PART_OF]-(:Rank)<-[:PART_OF]-(a:Anomaly) WHERE run:ProgramRun
RETURN count(a) AS anomalies
"""


def micros(value) -> str:
    """A runtime in microseconds as text with its unit ('' for none)."""
    if value is None:
        return ""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.6g} µs"
    return f"{int(value):,} µs"


def since(entry, origin) -> str:
    """``entry`` relative to ``origin`` (both microseconds), signed, as text."""
    if entry is None or origin is None:
        return ""
    delta = entry - origin
    return ("+" if delta >= 0 else "-") + micros(abs(delta))


def when(value) -> str:
    """A Chimbuko time (microseconds since the epoch) as ISO 8601 UTC ('' for none)."""
    return "" if value is None else str(human("entry", value))


def _frame(f: dict, anomaly: str) -> dict:
    return {"level": f["level"], "uid": f["uid"], "function": f["function"],
            "event_id": f["event_id"], "entry": when(f["entry"]), "exit": when(f["exit"]),
            "runtime": micros(f["runtime"]), "is_anomaly": bool(f["is_anomaly"]),
            "this": f["uid"] == anomaly}


def _entry(w: dict, origin) -> dict:
    return {"relation": w["relation"], "offset": w["offset"], "uid": w["uid"],
            "name": w["function"] or w["name"], "rank": w["rank"], "entry": when(w["entry"]),
            "since": since(w["entry"], origin), "runtime": micros(w["runtime"]),
            "is_anomaly": bool(w["is_anomaly"]), "message_type": w["message_type"],
            "bytes": w["bytes"], "tag": w["tag"], "timestamp": when(w["timestamp"])}


def anomaly_details(lin, run: str, limit: int | None = None, steps: int | None = None) -> dict:
    """The page's data for run ``run``: ``{"total", "limit", "steps", "anomalies": {uid:
    {summary..., "stack": [...], "window": [...]}}}`` for its ``limit`` most severe anomalies
    (stack root first, the anomaly's own frame ``this``; window as ``chimbuko/anomaly_context``
    orders it, with each entry's start relative to the anomaly's). ``limit`` and ``steps``
    default to MAX_DETAILS and WINDOW_STEPS."""
    limit = MAX_DETAILS if limit is None else limit
    steps = WINDOW_STEPS if steps is None else steps
    top = lin.query("chimbuko/run_anomalies", run=run, limit=limit)
    total = lin.query(COUNT_CYPHER, run=run)[0]["anomalies"]
    found = {r["uid"]: r for r in
             lin.query("chimbuko/anomaly_details", uids=[a["uid"] for a in top], steps=steps)}
    out = {}
    for a in top:
        row = found.get(a["uid"])
        if row is None:
            continue
        out[a["uid"]] = {
            "uid": a["uid"], "function": a["function"], "rank": a["rank"],
            "thread": a["thread"], "event_id": a["event_id"], "severity": a["severity"],
            "score": a["score"], "entry": when(a["entry"]), "exit": when(a["exit"]),
            "runtime": micros(a["runtime"]),
            "stack": [_frame(f, a["uid"]) for f in row["stack"]],
            "window": [_entry(w, a["entry"]) for w in row["window"]],
        }
    return {"total": total, "limit": limit, "steps": steps, "anomalies": out}


def anomalies_panel(lin, uid: str, is_run: bool) -> dict:
    """The report's details of a program run's most severe anomalies (its run view only)."""
    return {"details": anomaly_details(lin, uid)} if is_run else {}


#: Anomalies the "what happened" box lists, most severe first.
TOP_ANOMALIES = 3


def short_function(name: str | None) -> str:
    """A TAU function name without its source location.

    >>> short_function("keg::read(char const*) [{/src/io.cpp} {41,0}]")
    'keg::read(char const*)'
    """
    return (name or "?").split(" [{", 1)[0]


def _anomaly(a: dict) -> dict:
    return {"name": short_function(a["function"]), "uid": a["uid"],
            "error": f"anomaly: ran {micros(a['runtime'])} (severity {a['severity']}, "
                     f"score {a['score']})",
            "detail": f"rank {a['rank']}, thread {a['thread']}, at {when(a['entry'])}"}


def program_run_outcome(lin, uid: str, is_run: bool) -> dict:
    """The "what happened" box of a program run: how many anomalies Chimbuko found, the
    most severe ones, and across systems the binary XALT saw and the job it ran in."""
    root = lin.query("nodes", uids=[uid])[0]
    props = root.get("properties") or {}
    total = lin.query(COUNT_CYPHER, run=uid)[0]["anomalies"]
    top = list(lin.query("chimbuko/run_anomalies", run=uid, limit=TOP_ANOMALIES))
    headline = (f"{total} anomal{'y' if total == 1 else 'ies'} found by Chimbuko in "
                f"{props.get('executable') or root['name']}")
    if top:
        headline += f"; most severe: {short_function(top[0]['function'])} on rank {top[0]['rank']}"
    across = []
    links = [r for r in lin.query("cross/links_of", uid=uid)
             if r["direction"] == "out" and r["type"] == "RAN_WITHIN"]
    for link in links:
        across.append(("ran within", f"{link['other_kind']} {link['other_name']}"))
        if link["other_kind"] == "Execution":
            across += binary_of(lin.query("xalt/run_inputs", run=link["other"]))
    if not links:
        across.append(("across systems", "nothing linked (run `lineage link`)"))
    counts = [("anomalies", total, "function executions Chimbuko flagged as outliers")]
    return outcome(root.get("status"), headline, failures=[_anomaly(a) for a in top],
                   counts=counts, across=across, failures_title="Most severe anomalies")


def execution_outcome(lin, uid: str, is_run: bool) -> dict:
    """The "what happened" box of one function execution: an anomaly or not, its runtime."""
    root = lin.query("nodes", uids=[uid])[0]
    props = root.get("properties") or {}
    anomalous = props.get("is_anomaly") is True
    headline = (f"{'Anomaly' if anomalous else 'Not an anomaly'}: {root['name']}, "
                f"{micros(props.get('runtime_inclusive'))} inclusive")
    return outcome("failed" if anomalous else None, headline)
