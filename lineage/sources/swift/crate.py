"""A Swift script run as a Workflow Run RO-Crate shows it (``Views.crate_runs``): each app call
is a step whose tool is its app, each execution of the call (an attempt on a site) one
execution of the step, and the datasets it mapped to files its inputs and outputs.

>>> file_location("file://localhost/outputs/f.d")
'file:///outputs/f.d'
>>> file_location("results/f.d") is None
True
"""

from __future__ import annotations

from ..crate import CrateAction, CrateFile, CrateRun, CrateStep, StepFiles, made_by


def file_location(filename: str | None) -> str | None:
    """A ``file:`` URI of a mapped dataset's file (Swift writes ``file://localhost/...``),
    or None for a relative name (the crate names such a file by itself)."""
    if not filename:
        return None
    if filename.startswith("file://localhost/"):
        return "file:///" + filename[len("file://localhost/"):]
    if filename.startswith(("file:///", "http://", "https://")):
        return filename
    return None


def _file(row: dict) -> CrateFile:
    return CrateFile(row["uid"], row["filename"] or row["name"] or row["uid"],
                     file_location(row["filename"]))


def describe(lin, uid: str) -> CrateRun:
    """The script run ``uid``: its app calls as steps, their executions and datasets."""
    [node] = lin.query("node", uid=uid)
    run_props = node["properties"]
    files, steps = StepFiles(_file), []
    for call in lin.query("swift/crate_steps", run=uid):
        inputs, outputs = files.add(call["inputs"], call["outputs"])
        step = CrateStep(call["uid"], call["procedure"] or call["app"], call["app"],
                         data_uid=call["uid"], status=call["status"])
        attempts = call["attempts"] or [{"uid": call["uid"], "attempt": 1, "start": call["start"],
                                         "end": call["end"], "status": call["status"],
                                         "final_state": call["final_state"], "host": None}]
        for attempt in attempts:
            failed = attempt["status"] == "failed"
            step.actions.append(CrateAction(
                attempt["uid"], f"{step.name} ({call['app']}) attempt {attempt['attempt'] or 1}",
                start=attempt["start"], end=attempt["end"], status=attempt["status"],
                error=f"ended {attempt['final_state']}" if failed and attempt["final_state"]
                else None,
                inputs=inputs, outputs=() if failed else outputs, host=attempt["host"]))
        steps.append(step)
    run = CrateAction(uid, run_props.get("script_filename") or uid,
                      start=run_props.get("start_time"), end=run_props.get("end_time"),
                      status=run_props.get("status"),
                      inputs=files.read_by_run(), outputs=made_by(steps))
    if run.status == "failed":
        run.error = run_props.get("final_state")
    return CrateRun(run_props.get("script_filename") or uid, "SwiftScript", run, steps,
                    files.files(), language_url="http://swift-lang.org",
                    engine="Swift", engine_version=run_props.get("swift_version"))
