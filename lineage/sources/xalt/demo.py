"""The XALT part of the demo campaign: a start (``aaa``) and an end (``zzz``) run record
for every tracked program run, and a link record for every binary whose build XALT
recorded, as XALT's file transmission writes them (one compact JSON object per file, led
by its crc) under ``<directory>/xalt/``.

>>> signed_text({"userT": {"run_uuid": "u"}})[:16]
'{"crc":"0x6FA9",'
>>> from lineage.sources.xalt.mapping import check_crc
>>> check_crc(signed_text({"userT": {"run_uuid": "u"}}).encode())
'ok'
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..scenario import Binary, Campaign, Process
from ..base import DemoFiles
from .mapping import crc16_ccitt

XALT_VERSION = "2.10.45"
QUEUE = "normal"
ACCOUNT = "halcyon-keg"


def signed_text(record: dict) -> str:
    """``record`` as XALT writes it: compact JSON whose first key is the crc of the text
    (CRC-16/CCITT-FALSE over the text with ``0xFFFF`` in its place)."""
    body = json.dumps({k: v for k, v in record.items() if k != "crc"}, separators=(",", ":"))
    text = '{"crc":"0xFFFF",' + body[1:] if body != "{}" else '{"crc":"0xFFFF"}'
    return text[:8] + f"0x{crc16_ccitt(text.encode()):04X}" + text[14:]


def _date(t: float, form: str) -> str:
    return time.strftime(form, time.gmtime(t))


def _watermark(binary: Binary) -> dict:
    """The ``xaltLinkT`` XALT's linker wrapper leaves in a binary (empty when the binary was
    not linked under XALT)."""
    build = binary.build
    if build is None:
        return {}
    return {
        "Build_Epoch": f"{build.epoch:.4f}",
        "Build_LMFILES": ":".join(f"/opt/modulefiles/{m}.lua" for m in build.modules),
        "Build_LOADEDMODULES": ":".join(build.modules),
        "Build_OS": build.os,
        "Build_Syshost": build.syshost,
        "Build_UUID": build.uuid,
        "Build_User": build.user,
        "Build_Year": _date(build.epoch, "%Y"),
        "Build_compiler": build.compiler,
        "Build_compilerPath": build.compiler_path,
        "Build_date": _date(build.epoch, "%a %b %d %H:%M:%S %Y"),
        "XALT_Version": XALT_VERSION,
    }


def _environment(p: Process) -> dict:
    return {
        "HOME": f"/home/{p.user}",
        "HOSTNAME": p.host.short,
        "LD_LIBRARY_PATH": "/opt/keg/lib:/opt/openmpi/4.1.6/lib",
        "LOADEDMODULES": ":".join(p.modules),
        "OMP_NUM_THREADS": "1",
        "PATH": "/opt/keg/bin:/opt/openmpi/4.1.6/bin:/usr/local/bin:/usr/bin",
        "PWD": p.cwd,
        "USER": p.user,
        "XALT_EXECUTABLE_TRACKING": "yes",
        "_LMFILES_": ":".join(f"/opt/modulefiles/{m}.lua" for m in p.modules),
    }


def run_record(p: Process, syshost: str, submit_host: str, ended: bool) -> dict:
    """The start (``ended`` False) or end record of one program run; the end record carries
    the program's exit status in ``userT``, where XALT's own database loader reads it."""
    build_epoch = p.binary.build.epoch if p.binary.build else 0.0
    written = p.end + 0.011 if ended else p.start + 0.083
    return {
        "XALT_measureT": {"01_BuildUserT___": 0.000412, "02_Sha1_exec____": 0.001874,
                          "03_BuildEnvT____": 0.000391, "04_WalkProcTree_": 0.001207,
                          "05_ExtractXALTR_": 0.018233, "06_ParseLDD_ldd_": 0.031870,
                          "06_ParseLDD_sha1": 0.084112, "07____total_____": 0.138099},
        "cmdlineA": list(p.argv),
        "envT": _environment(p),
        "hash_id": p.binary.sha1,
        "libA": [[lib.path, lib.sha1] for lib in p.binary.libraries],
        "ptA": [{"cmd_name": q.name, "cmd_path": q.path, "cmdlineA": list(q.argv), "pid": q.pid}
                for q in p.parents],
        "userDT": {"Build_Epoch": round(build_epoch, 4), "currentEpoch": round(written, 6),
                   "end_time": round(p.end, 6) if ended else 0.0,
                   "exec_epoch": round(build_epoch + 31.0, 4) if build_epoch else 0.0,
                   "num_cores": float(p.tasks), "num_nodes": 1.0, "num_tasks": float(p.tasks),
                   "num_threads": 1.0,
                   "run_time": round(p.end - p.start, 6) if ended else 0.0,
                   "start_time": round(p.start, 6)},
        "userT": {"account": ACCOUNT, "currentEpoch": f"{written:.6f}", "cwd": p.cwd,
                  "execModify": _date(build_epoch + 31.0, "%a %b %d %H:%M:%S %Y"),
                  "exec_path": p.binary.path, "exec_type": "binary", "job_id": p.job_id,
                  "queue": QUEUE, "run_uuid": p.uuid,
                  "start_date": _date(p.start, "%a %b %d %H:%M:%S %Y"),
                  "submit_host": submit_host, "syshost": syshost, "user": p.user,
                  **({"exit_status": p.exit_code} if ended else {})},
        "xaltLinkT": _watermark(p.binary),
    }


def link_record(binary: Binary) -> dict:
    """The record XALT's linker wrapper writes when ``binary`` is linked."""
    b = binary.build
    return {
        "resultT": {"uuid": b.uuid, "link_program": b.compiler, "link_path": b.compiler_path,
                    "build_user": b.user, "build_epoch": f"{b.epoch:.4f}",
                    "exec_path": binary.path, "hash_id": binary.sha1, "wd": b.workdir,
                    "build_syshost": b.syshost},
        "linkA": [[lib.path, lib.sha1] for lib in (*b.objects, *b.linked)],
        "function": list(b.functions),
        "link_line": list(b.link_line),
    }


def write(campaign: Campaign, directory: Path) -> DemoFiles:
    """Write the run records of every tracked process and the link record of every
    recorded build under ``directory / "xalt"``."""
    folder = Path(directory) / "xalt"
    folder.mkdir(parents=True, exist_ok=True)
    submit = next(h.name for h in campaign.hosts if h.site == "local")
    files: dict[str, str] = {}
    for p in campaign.processes():
        if not p.tracked:
            continue
        stamp = _date(p.start, "%Y_%m_%d_%H_%M_%S")
        for kind, ended in (("aaa", False), ("zzz", True)):
            name = f"run.{campaign.syshost}.{stamp}.{p.user}.{kind}.{p.uuid}.json"
            files[name] = signed_text(run_record(p, campaign.syshost, submit, ended))
    for binary in campaign.binaries:
        if binary.recorded and binary.build is not None:
            b = binary.build
            name = f"link.{b.syshost}.{_date(b.epoch, '%Y_%m_%d_%H_%M_%S')}.{b.uuid}.json"
            files[name] = signed_text(link_record(binary))
    paths = []
    for name, text in sorted(files.items()):
        (folder / name).write_text(text + "\n", encoding="utf-8")
        paths.append(folder / name)
    return DemoFiles(tuple(paths))
