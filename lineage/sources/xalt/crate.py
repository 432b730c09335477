"""XALT in a Workflow Run RO-Crate: what no workflow system records of a step (``Views.crate_parts``:
the exact binary an execution ran with its sha1, how it was built, the libraries it loaded
with their sha1s, its modules and its environment as filtered at load), and an XALT
execution exported alone (``Views.crate_runs``: a run of one step, the program).

>>> environment('{"HOME": "/home/a", "N": 3}')
{'HOME': '/home/a', 'N': '3'}
>>> environment(None), environment("not json")
({}, {})
"""

from __future__ import annotations

import json
import os

from ..crate import CrateAction, CrateRun, CrateSoftware, CrateStep


def environment(text: str | None) -> dict[str, str]:
    """An execution's environment as stored at load (a JSON object, already filtered and
    redacted by the load's ``--env`` mode), as text values."""
    try:
        env = json.loads(text) if text else {}
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}


def _command(props: dict) -> str | None:
    cmdline = props.get("cmdline")
    return " ".join(cmdline) if isinstance(cmdline, list) else cmdline


def software(lin, uids: list[str]) -> list[CrateSoftware]:
    """What each XALT execution of ``uids`` ran (one record each)."""
    out = []
    for row in lin.query("nodes", uids=uids):
        props = row["properties"]
        inputs = lin.query("xalt/run_inputs", run=row["uid"])
        build = (lin.query("xalt/run_build", run=row["uid"]) or [{}])[0]
        executable = next((r for r in inputs if r["role"] == "executable"), {})
        out.append(CrateSoftware(
            row["uid"], executable.get("path") or props.get("exec_path") or "",
            sha1=executable.get("sha1") or props.get("sha1"),
            compiler=build.get("compiler"), compiler_path=build.get("compiler_path"),
            link_line=build.get("link_line"), build_user=build.get("build_user"),
            build_host=build.get("build_host"), build_date=build.get("build_date"),
            build_modules=tuple(build.get("build_modules") or ()),
            libraries=tuple((r["path"], r["sha1"]) for r in inputs if r["role"] != "executable"),
            modules=tuple(props.get("modules") or props.get("end_modules") or ()),
            environment=environment(props.get("env")), start=props.get("start_time"),
            end=props.get("end_time"), host=props.get("hostname"), command=_command(props),
            status=props.get("status")))
    return out


def describe(lin, uid: str) -> CrateRun:
    """The XALT execution ``uid`` alone: a workflow of one step, the program it ran."""
    [node] = lin.query("node", uid=uid)
    props = node["properties"]
    program = os.path.basename(props.get("exec_path") or "") or uid
    action = CrateAction(uid, props.get("name") or program, start=props.get("start_time"),
                         end=props.get("end_time"), status=props.get("status"),
                         host=props.get("hostname"), command=_command(props))
    run = CrateAction(f"{uid}#run", f"{program} as XALT recorded it", start=action.start,
                      end=action.end, status=action.status, command=action.command)
    step = CrateStep(f"{uid}#step", program, program, [action], props.get("exec_path"))
    return CrateRun(program, "XALT-tracked program", run, [step], [],
                    language_url="https://xalt.readthedocs.io", engine="XALT",
                    engine_version=props.get("xalt_version"), user=props.get("user"))
