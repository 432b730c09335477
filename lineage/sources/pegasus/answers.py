"""Why did a Pegasus workflow or job fail, and what differs between two runs of a workflow.

``explain`` gives a pegasus-analyzer style summary from the graph alone: the failed, held and
never-submitted jobs, recursively through sub-workflows, each with its attempts, exit code or
signal, host, what blocked it, and the lines that decide it first: the application's own
error stream (what kickstart kept of each task's stderr: ``ls: invalid option -- 'z'``, as
pegasus-analyzer shows it), then the error lines of the job's own log (PegasusLite's, a
planner's numbered chain ``[1]: ...``, ``[2]: ...`` in full), never its DEBUG or INFO lines.
``differ`` matches jobs by job id (``pegasus/compare_runs``).

>>> kickstart_streams("#@ 1 stdout\\nwrote f.b\\n#@ 1 stderr\\nls: invalid option -- 'z'\\n")
({'stdout': 'wrote f.b', 'stderr': "ls: invalid option -- 'z'"}, '')
"""

from __future__ import annotations

import re

from ..answering import error_lines, plain_lines
from ...model import status
from .model import JOB, WORKFLOW


#: kickstart's marker before each task's captured stream in a job's stdout text
_SECTION = re.compile(r"^#@ (\d+) (stdout|stderr)\s*$", re.MULTILINE)


def kickstart_streams(text: str | None) -> tuple[dict[str, str], str]:
    """What kickstart kept of the tasks' stdout and stderr in a job's stdout text (``#@ N
    stderr`` sections, joined over the tasks), and the text outside any section."""
    if not text:
        return {}, ""
    parts = _SECTION.split(text)
    streams: dict[str, list[str]] = {}
    for i in range(1, len(parts) - 2, 3):
        streams.setdefault(parts[i + 1], []).append(parts[i + 2].strip("\n"))
    return ({name: "\n".join(p for p in chunks if p.strip()) for name, chunks in streams.items()},
            parts[0].strip("\n"))


def causes(stdout: str | None, stderr: str | None) -> list[str]:
    """The deciding lines of a job's output, in order: its tasks' own stderr (every line),
    then error lines of its tasks' stdout, of its own log (stderr) and of the rest of its
    stdout; each line once."""
    streams, rest = kickstart_streams(stdout)
    found = plain_lines(streams.get("stderr"))
    for text in (streams.get("stdout"), stderr, rest):
        found += error_lines(text)
    return list(dict.fromkeys(found))


def explain(lin, node: dict) -> dict:
    """The failure summary of a workflow (its jobs and its sub-workflows') or of one job."""
    props = node["properties"]
    is_job = node["kind"] == JOB.label
    workflow = WORKFLOW.uid(props["xwf_id"]) if is_job else node["uid"]
    rows = lin.query("pegasus/failed_jobs", workflow=workflow, recursive=True)
    if is_job:
        rows = [r for r in rows if r["job_uid"] == node["uid"]]
    problems = []
    for r in rows:
        text = "\n".join(t for t in (r.get("stderr"), r.get("stdout")) if t)
        found = causes(r.get("stdout"), r.get("stderr"))
        problems.append({
            "what": "job", "uid": r["job_uid"], "name": r["job_id"], "status": r["status"],
            "held": r["held"], "attempts": r["attempts"], "last_state": r["last_state"],
            "exitcode": r["exitcode"], "signal": r["signal"], "host": r["host"],
            "workflow": r["workflow"], "blocked_by": r["blocked_by"],
            "held_reason": r["held_reason"], "causes": found,
            "output_tail": [] if found else plain_lines(text, 3),
        })
    order = {name: i for i, name in enumerate(status.PROBLEM_STATUSES)}
    problems.sort(key=lambda p: (order.get(p["status"], len(order)), p["blocked_by"] is not None,
                                 p["name"] or ""))
    return {"uid": node["uid"], "kind": node["kind"], "status": props.get("status"),
            "problems": problems}


def short_transformation(name: str | None) -> str | None:
    """A transformation without namespace and version, as two vintages of one DAX name it.

    >>> short_transformation("pegasus::analyze:4.0"), short_transformation("analyze")
    ('analyze', 'analyze')
    """
    if not name:
        return name
    return name.split("::")[-1].split(":")[0]


def match_jobs(first: list[dict], second: list[dict]) -> list[tuple[dict | None, dict | None]]:
    """Pairs of the same job in two runs: by job id, then (ids that differ: a 4.x and a 5.x
    plan of one DAX, ``analyze_j4`` and ``analyze_ID0000004``) by transformation, or job
    type for auxiliary jobs, and position (depth in the job graph, then task id); a job
    left over is paired with None.

    >>> pairs = match_jobs([{"job_id": "analyze_j4", "type": "compute", "depth": 3,
    ...                      "transformation": "pegasus::analyze:4.0", "task_id": "j4"}],
    ...                    [{"job_id": "analyze_ID0000004", "type": "compute", "depth": 3,
    ...                      "transformation": "analyze", "task_id": "ID0000004"}])
    >>> [(a["job_id"], b["job_id"]) for a, b in pairs]
    [('analyze_j4', 'analyze_ID0000004')]
    """
    ids_b = {j["job_id"]: j for j in second}
    pairs = [(j, ids_b[j["job_id"]]) for j in first if j["job_id"] in ids_b]
    matched = {j["job_id"] for j, _ in pairs}

    def by_kind(jobs):
        groups: dict = {}
        for j in sorted((j for j in jobs if j["job_id"] not in matched),
                        key=lambda j: (j.get("depth") or 0, j.get("task_id") or "", j["job_id"])):
            groups.setdefault(short_transformation(j.get("transformation")) or j.get("type"),
                              []).append(j)
        return groups

    left_a, left_b = by_kind(first), by_kind(second)
    for key in list(left_a):
        for x, y in zip(left_a[key], left_b.get(key, [])):
            pairs.append((x, y))
        n = len(left_b.get(key, []))
        pairs += [(x, None) for x in left_a[key][n:]]
        left_b[key] = left_b.get(key, [])[len(left_a[key]):]
    pairs += [(None, y) for ys in left_b.values() for y in ys]
    return pairs


def _words(text: str | None) -> str | None:
    return " ".join(text.split()) if text else text


def differ(lin, a: dict, b: dict) -> list[dict]:
    """Per job (matched by :func:`match_jobs`): its arguments, inputs, outputs, executable,
    outcome (status, exit code), host, attempts and duration; jobs in one run only. Each row
    names its job (``part``) so the generic diff puts failing jobs first."""
    jobs_a = lin.query("pegasus/run_jobs", workflow=a["uid"])
    jobs_b = lin.query("pegasus/run_jobs", workflow=b["uid"])
    out = []
    for x, y in match_jobs(jobs_a, jobs_b):
        if x is None or y is None:
            one = x or y
            out.append({"aspect": f"job only in the {'first' if x else 'second'} run",
                        "name": one["job_id"], "part": one["job_id"],
                        "first": x and x["status"], "second": y and y["status"]})
            continue
        name = x["job_id"] if x["job_id"] == y["job_id"] else f"{x['job_id']} / {y['job_id']}"
        facts = (("arguments", _words(x["arguments"] or x["command"]),
                  _words(y["arguments"] or y["command"])),
                 ("inputs", x["inputs"], y["inputs"]), ("outputs", x["outputs"], y["outputs"]),
                 ("executable", x["executable"], y["executable"]),
                 ("status", x["status"], y["status"]),
                 ("exit code", x["exitcode"], y["exitcode"]), ("host", x["host"], y["host"]),
                 ("attempts", x["attempts"], y["attempts"]),
                 ("duration", x["duration"], y["duration"]))
        if not (x["attempts"] and y["attempts"]):  # it never ran in one: its plan and outcome
            facts = (("arguments", _words(x["arguments"]), _words(y["arguments"])),
                     *facts[1:3], facts[4])
        out += [{"aspect": f"job {aspect}", "name": name, "part": name, "first": first,
                 "second": second} for aspect, first, second in facts if first != second]
    return out
