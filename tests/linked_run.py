"""Records of one consistent run as each system would have written them, for ``lineage link``.

No public data set spans Pegasus, XALT, Chimbuko and Swift, so these files take the shapes
of the bundled real samples and the facts of two bundled runs:

- the Pegasus blackdiamond run (``blackdiamond-4.0.bp``): attempt 13 of ``analyze_j4`` ran
  on ``worker2.novalocal`` as HTCondor job ``79.0``; its kickstart invocation ran
  ``/var/lib/condor/execute/dir_9580/pegasus-analyze-4.0`` from 1331642943 for 60 s. XALT
  records that program (start and end record) and a ``gzip`` the job script ran after it,
  and the link record of the build; Chimbuko watched the program (two ranks) and found
  anomalies in it;
- the Swift run ``001-echo`` (``001-echo-20090316-1711-i7icnjl1.log``): its ``echo`` app
  ran from 1237219891.81 for 0.218 s; XALT records ``/bin/echo`` then.

``python -m tests.linked_run DIR`` writes them (``lineage/samples_linked/`` holds a copy,
and a test keeps that copy equal to what this module writes).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

from .xalt_helpers import LINK_S2, sample_run, signed

SAMPLES = Path(__file__).resolve().parent.parent / "lineage" / "samples"
CHIMBUKO = SAMPLES / "chimbuko"

WF = "ea17e8ac-02ac-4909-b5e3-16e367392556"
ATTEMPT = f"pegasus:job_instance:{WF}:analyze_j4:13"
INVOCATION = f"pegasus:invocation:{WF}:analyze_j4:13:1"
TASK = f"pegasus:task:{WF}:j4"
HOST = "worker2.novalocal"
ANALYZE = "/var/lib/condor/execute/dir_9580/pegasus-analyze-4.0"
ANALYZE_START = 1331642943.0
ANALYZE_SHA1 = "a11a1e0000000000000000000000000000000001"
LIBKEG = ("/opt/keg/lib/libkeg.so.1.2", "bad0000000000000000000000000000000000012")
BUILD = "b111d000-0000-4000-8000-000000000001"
RUN_ANALYZE = "a11a1e00-0000-4000-8000-000000000001"
RUN_GZIP = "a11a1e00-0000-4000-8000-000000000002"
RUN_ECHO = "ec400000-0000-4000-8000-000000000001"
ECHO_EXEC = "swift:exec:001-echo-20090316-1711-i7icnjl1:echo-17kp918j"
ECHO_START = 1237219891.81
CHIMBUKO_PID = 7
#: the Chimbuko run's name (Chimbuko records none; see lineage.sources.chimbuko.mapping.run_key)
CHIMBUKO_RUN = "blackdiamond-analyze"


def chimbuko_run_uid() -> str:
    """The Chimbuko run's uid: its files are loaded with the option ``chimbuko_run``
    :data:`CHIMBUKO_RUN` (as the demo does), or from a folder of their own."""
    return f"chimbuko:run:{CHIMBUKO_RUN}:{CHIMBUKO_PID}"


def xalt_run(uuid: str, exec_path: str, sha1: str, job_id: str, host: str, start: float,
             run_time: float | None, libs: list[list[str]], syshost: str = "worker2",
             build: str | None = None) -> dict:
    """An XALT run record (``run_time`` None: the start record, else the end record)."""
    rec = sample_run()
    rec["userT"].update(run_uuid=uuid, exec_path=exec_path, job_id=job_id, syshost=syshost,
                        user="nobody", cwd="/var/lib/condor/execute/dir_9580",
                        start_date="", submit_host="submit.novalocal")
    rec["userDT"].update(start_time=start, currentEpoch=start, num_cores=1.0)
    rec["hash_id"] = sha1
    rec["cmdlineA"] = [exec_path, "-a", "analyze"] if "analyze" in exec_path else [exec_path]
    rec["libA"] = libs
    rec["envT"] = {"HOSTNAME": host, "LOADEDMODULES": "gcc/4.4.5:keg/1.2", "USER": "nobody"}
    rec["ptA"] = []
    if build:
        rec["xaltLinkT"] = {"Build_UUID": build, "Build_compiler": "gcc",
                            "Build_compilerPath": "/usr/bin/gcc", "Build_User": "keg",
                            "Build_Syshost": "worker2", "Build_Epoch": str(ANALYZE_START - 86400),
                            "XALT_Version": rec["xaltLinkT"].get("XALT_Version")}
    else:
        rec["xaltLinkT"] = {}
    if run_time is not None:
        rec["userDT"].update(end_time=start + run_time, run_time=run_time)
        rec["userT"]["exit_status"] = "0"
    return rec


def link_record() -> dict:
    """The XALT link record of the build of pegasus-analyze-4.0 (shape of the sample's)."""
    rec = json.loads(LINK_S2.read_text())
    rec["resultT"].update(hash_id=ANALYZE_SHA1, build_epoch=str(ANALYZE_START - 86400),
                          exec_path="/opt/keg/bin/pegasus-analyze-4.0", uuid=BUILD,
                          build_syshost="worker2", link_program="gcc", build_user="keg",
                          link_path="/usr/bin/gcc", wd="/opt/keg")
    rec["link_line"] = ["gcc", "-o", "pegasus-analyze-4.0", "analyze.o", "-lkeg"]
    rec["linkA"] = [["/opt/keg/obj/analyze.o", "0b0000000000000000000000000000000000000001"],
                    [LIBKEG[0], LIBKEG[1]]]
    return rec


def _shift(value, offset: int, pid: int, rid: int):
    """The anomaly record with its times moved by ``offset`` µs and its pid / rank set."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("entry", "exit", "timestamp") and isinstance(v, int) and v > 10**15:
                out[k] = v + offset
            elif k == "pid" and isinstance(v, int):
                out[k] = pid
            elif k == "rid" and isinstance(v, int):
                out[k] = rid
            else:
                out[k] = _shift(v, offset, pid, rid)
        return out
    if isinstance(value, list):
        return [_shift(v, offset, pid, rid) for v in value]
    return value


def chimbuko_records() -> tuple[list[dict], list[dict]]:
    """(metadata, anomalies) of pegasus-analyze-4.0 watched by Chimbuko on two ranks."""
    start_us = int((ANALYZE_START + 1.5) * 1e6)
    metadata = []
    for rid in (0, 1):
        for descr, value in (("Hostname", HOST), ("Executable", ANALYZE),
                             ("Command Line", f"{ANALYZE} -a analyze -T 60 -i f.c1 f.c2 -o f.d"),
                             ("CWD", "/var/lib/condor/execute/dir_9580"),
                             ("Starting Timestamp", str(start_us + rid))):
            metadata.append({"pid": CHIMBUKO_PID, "rid": rid, "tid": 0, "descr": descr,
                             "value": value, "__id": len(metadata)})
    real = json.loads((CHIMBUKO / "provdb_v0_anomalies.json").read_text())
    anomalies = []
    for n, rec in enumerate(real[:3]):
        offset = start_us + 10_000_000 * (n + 1) - rec["entry"]
        anomalies.append(_shift(copy.deepcopy(rec), offset, CHIMBUKO_PID, n % 2))
    return metadata, anomalies


def files() -> dict[str, str]:
    """File name -> text of every record of the linked run."""
    libs = [[LIBKEG[0], LIBKEG[1]], ["/usr/lib64/libm.so.6", "1030f25880be0ee9dccff98d2a83c445d24b7de9"]]
    analyze = dict(uuid=RUN_ANALYZE, exec_path=ANALYZE, sha1=ANALYZE_SHA1, job_id="79.0",
                   host=HOST, start=ANALYZE_START + 0.4, libs=libs, build=BUILD)
    out = {
        f"run.worker2.2012_03_13_12_49_03.nobody.aaa.{RUN_ANALYZE}.json":
            signed(xalt_run(**analyze, run_time=None)),
        f"run.worker2.2012_03_13_12_49_03.nobody.zzz.{RUN_ANALYZE}.json":
            signed(xalt_run(**analyze, run_time=59.1)),
        f"run.worker2.2012_03_13_12_50_04.nobody.zzz.{RUN_GZIP}.json":
            signed(xalt_run(RUN_GZIP, "/usr/bin/gzip", "9a1b000000000000000000000000000000000001",
                            "79.0", HOST, ANALYZE_START + 61.0, 0.5, libs[1:])),
        f"run.localhost.2009_03_16_17_11_31.benc.zzz.{RUN_ECHO}.json":
            signed(xalt_run(RUN_ECHO, "/bin/echo", "ec40000000000000000000000000000000000001",
                            "", "localhost", ECHO_START + 0.05, 0.01, libs[1:],
                            syshost="localhost")),
        f"link.worker2.2012_03_12_12_49_03.{BUILD}.json": signed(link_record()),
    }
    metadata, anomalies = chimbuko_records()
    out["provdb_linked_metadata.json"] = json.dumps(metadata, indent=1)
    out["provdb_linked_anomalies.json"] = json.dumps(anomalies, indent=1)
    return out


def write(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in files().items():
        path = directory / name
        path.write_text(text)
        paths.append(path)
    return paths


if __name__ == "__main__":  # pragma: no cover
    for p in write(Path(sys.argv[1])):
        print(p)
