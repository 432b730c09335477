"""A Pegasus workflow as a Workflow Run RO-Crate shows it (``Views.crate_runs``): each job is a
step whose tool is its task's transformation (or, for a job Pegasus added, its executable),
and each attempt of the job one execution of the step, its error the task's stderr that
kickstart kept (else the end of the job's own stderr).

>>> task_error("#@ 1 stdout\\n\\n#@ 1 stderr\\nanalyze: -n 0: too few bins\\n\\n", "lite log")
'analyze: -n 0: too few bins'
>>> task_error(None, "line 1\\nline 2\\n")
'line 1\\nline 2'
"""

from __future__ import annotations

import os
import re

from ..crate import CrateAction, CrateFile, CrateRun, CrateStep, StepFiles, made_by

#: where a kickstart record's sections begin: ``#@ <n> stdout`` / ``#@ <n> stderr``
_SECTION = re.compile(r"^#@ \d+ (stdout|stderr)\s*$", re.MULTILINE)
#: how much of a job's own stderr an error quotes, from its end
ERROR_TAIL = 2000


def task_error(stdout: str | None, stderr: str | None) -> str | None:
    """What a failed attempt said: the stderr sections of the kickstart record kept in the
    job's stdout, else the end of the job's stderr (PegasusLite's log)."""
    parts = _SECTION.split(stdout or "")
    said = "\n".join(text.strip() for name, text in zip(parts[1::2], parts[2::2])
                     if name == "stderr" and text.strip())
    if said:
        return said
    tail = (stderr or "").strip()
    return tail[-ERROR_TAIL:] or None


def _file(row: dict) -> CrateFile:
    return CrateFile(row["uid"], row["lfn"] or row["uid"], row.get("pfn"))


def describe(lin, uid: str) -> CrateRun:
    """The workflow ``uid``: its jobs as steps, their attempts and files."""
    [node] = lin.query("node", uid=uid)
    wf = node["properties"]
    files, steps = StepFiles(_file), []
    for job in lin.query("pegasus/crate_steps", workflow=uid):
        inputs, outputs = files.add(job["inputs"], job["outputs"])
        tool = job["transformation"] or os.path.basename(job["executable"] or job["job_id"])
        step = CrateStep(job["uid"], job["job_id"], tool, data_uid=job["task"],
                         status=job["status"])
        for attempt in job["attempts"]:
            failed = attempt["status"] in ("failed",)
            executable = next((e for e in attempt["executables"] if e), None)
            step.actions.append(CrateAction(
                attempt["uid"], f"{job['job_id']} attempt {attempt['seq']}",
                start=attempt["start"], end=attempt["end"], status=attempt["status"],
                error=task_error(attempt["stdout"], attempt["stderr"]) if failed else None,
                inputs=inputs, outputs=outputs if not failed else (), host=attempt["host"],
                command=" ".join(p for p in (executable, job["argv"]) if p) or None,
                exit_code=attempt["exitcode"], members=tuple(attempt["invocations"])))
            step.tool_path = step.tool_path or executable
        steps.append(step)
    run = CrateAction(uid, wf.get("label") or wf.get("name") or uid, start=wf.get("start_time"),
                      end=wf.get("end_time"), status=wf.get("status"),
                      command=" ".join(p for p in ("pegasus-plan", wf.get("argv")) if p))
    run.inputs, run.outputs = files.read_by_run(), made_by(steps)
    if run.status == "failed":
        run.error = "; ".join(f"{s.name}: {s.actions[-1].error or 'failed'}" for s in steps
                              if s.actions and s.actions[-1].status == "failed") or None
    location = wf.get("dax_file")
    return CrateRun(wf.get("label") or wf.get("name") or uid, "Pegasus", run, steps,
                    files.files(),
                    location=f"file://{location}" if location and location.startswith("/")
                    else location,
                    language_url="https://pegasus.isi.edu", engine="Pegasus WMS",
                    engine_version=wf.get("planner_version"), user=wf.get("user"))
