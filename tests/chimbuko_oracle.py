"""Expected Chimbuko numbers derived with plain ``json`` from the sample files (independent of
the loader): records, anomalies and distinct executions."""

from __future__ import annotations

import json
from pathlib import Path


def records(path: Path) -> list[dict]:
    return json.loads(Path(path).read_text())


def executions(recs: list[dict]) -> set[tuple[int, str]]:
    """Distinct (pid, event label) over records, call stacks, windows, parents, messages."""
    seen: set[tuple[int, str]] = set()
    for rec in recs:
        pid = rec.get("pid", 0)
        seen.add((pid, rec["event_id"]))
        for entry in rec.get("call_stack") or []:
            seen.add((pid, entry["event_id"]))
        window = rec.get("event_window") or {}
        for entry in window.get("exec_window") or []:
            seen.add((pid, entry["event_id"]))
            if entry.get("parent_event_id") not in (None, "root"):
                seen.add((pid, entry["parent_event_id"]))
        for msg in window.get("comm_window") or []:
            seen.add((msg.get("pid", pid), msg["execdata_key"]))
        parent = rec.get("gpu_parent")
        if isinstance(parent, dict):
            seen.add((pid, parent["event_id"]))
            for entry in parent.get("call_stack") or []:
                seen.add((pid, entry["event_id"]))
    return seen


def anomalous(recs: list[dict], collection: str) -> set[tuple[int, str]]:
    """Executions that are anomalies: every record of the anomalies collection, plus every
    exited call-stack or window entry flagged is_anomaly."""
    out = {(r.get("pid", 0), r["event_id"]) for r in recs} if collection == "anomalies" else set()
    for rec in recs:
        pid = rec.get("pid", 0)
        entries = list(rec.get("call_stack") or []) + list((rec.get("event_window") or {}).get("exec_window") or [])
        out |= {(pid, e["event_id"]) for e in entries if e.get("is_anomaly") and e.get("exit")}
    return out


def call_edges(recs: list[dict]) -> set[tuple[int, str, str]]:
    """Distinct (pid, callee, caller) pairs from call stacks and window parent links."""
    out = set()
    for rec in recs:
        pid = rec.get("pid", 0)
        stack = rec.get("call_stack") or []
        out |= {(pid, a["event_id"], b["event_id"]) for a, b in zip(stack, stack[1:])}
        for e in (rec.get("event_window") or {}).get("exec_window") or []:
            if e.get("parent_event_id") not in (None, "root"):
                out.add((pid, e["event_id"], e["parent_event_id"]))
    return out
