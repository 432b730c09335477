"""The Chimbuko part of the demo campaign: the provenance records of the instrumented run,
as Chimbuko's provenance database query tool exports them (a JSON array per collection):
one current-schema (``version: 2``) anomaly record per slow call, with its call stack, the
execution and communication windows around it and the detection's histogram, and the
metadata TAU records per rank (host, executable, command line, starting timestamp).

The run is named by the load option ``chimbuko_run`` (Chimbuko records no run identity).

>>> from lineage.demo import campaign
>>> run = campaign.build().instrumented[0]
>>> records = anomaly_records(run)
>>> len(records), records[0]["version"], sorted(records[0]["algo_params"]["histogram"])
(9, 2, ['Bin Counts', 'Bin width', 'First edge', 'Max', 'Min'])
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..scenario import Campaign, InstrumentedRun, SlowCall
from ..base import DemoFiles

#: the frames TAU puts under every instrumented program (with ``tau_exec``'s preload)
ROOT_FRAMES = (".TAU application", "taupreload_main")
MAIN = "main [{/opt/keg/src/analyze.cpp} {40,0}]"
COLLECTIVE_TAG = -16  # the tag Open MPI's allreduce messages carry
BINS = 20


def _us(t: float) -> int:
    return int(round(t * 1e6))


class _Program:
    """Labels, function ids and times of one instrumented run."""

    def __init__(self, run: InstrumentedRun):
        self.run = run
        self.names = (*ROOT_FRAMES, MAIN, *run.functions)
        self.start = {r: _us(run.process.start + 0.5) + 137 * r for r in range(run.ranks)}

    def fid(self, function: str) -> int:
        return self.names.index(function)

    def entry(self, rank: int, label: str, function: str, entry: int, exit: int,
              anomaly: bool = False, parent: str | None = None) -> dict:
        out = {"entry": entry, "event_id": label, "exit": exit, "fid": self.fid(function),
               "func": function, "is_anomaly": anomaly}
        if parent is not None:
            out["parent_event_id"] = parent
        return out

    def roots(self, rank: int) -> list[dict]:
        """main, taupreload_main and .TAU application: still running (exit 0)."""
        t = self.start[rank]
        frames = (*ROOT_FRAMES, MAIN)
        return [self.entry(rank, f"{rank}:0:{i}", name, t + 3 * i, 0)
                for i, name in reversed(list(enumerate(frames)))]


def _record(p: _Program, call: SlowCall, number: int) -> dict:
    run, r = p.run, call.rank
    step = int(call.at // run.step_seconds)
    step_start = p.start[r] + _us(step * run.step_seconds)
    entry = p.start[r] + _us(call.at)
    took = _us(call.took)
    exit_ = entry + took
    step_end = max(step_start + _us(run.step_seconds), exit_ + 2_000)
    wrapper, reader, *_ = run.functions
    frame = p.entry(r, f"{r}:{step}:0", wrapper, step_start + 900, 0)
    room = entry - step_start
    label = f"{r}:{step}:3"
    me = p.entry(r, label, call.function, entry, exit_, True)
    window = [
        p.entry(r, f"{r}:{step}:1", reader, step_start + room // 20, step_start + room // 3,
                parent=frame["event_id"]),
        p.entry(r, f"{r}:{step}:2", call.function, step_start + room * 9 // 20,
                step_start + room * 9 // 20 + min(_us(call.usual), room // 2),
                parent=frame["event_id"]),
        {**me, "parent_event_id": frame["event_id"]},
        p.entry(r, f"{r}:{step}:4", run.functions[-1], exit_ + 300, exit_ + 300 + 41_250,
                parent=frame["event_id"]),
    ]
    usual = _us(call.usual)
    width = (took - usual * 0.8) / BINS
    return {
        "algo_params": {
            "histogram": {"Bin Counts": [int(240 * 0.45 ** i) for i in range(BINS - 1)] + [1],
                          "Bin width": round(width, 6), "First edge": round(usual * 0.8, 6),
                          "Max": took, "Min": int(usual * 0.8) + 1},
            "internal_global_threshold": round(usual * 1.9 / 1e3, 6)},
        "call_stack": [me, frame, *p.roots(r)],
        "counter_events": [],
        "entry": entry,
        "event_id": label,
        "event_window": {"comm_window": _messages(p, call, label, entry),
                         "exec_window": window},
        "exit": exit_,
        "fid": p.fid(call.function),
        "func": call.function,
        "gpu_location": None,
        "gpu_parent": None,
        "hostname": run.process.host.short,
        "io_step": step,
        "io_step_tend": step_end,
        "io_step_tstart": step_start,
        "is_gpu_event": False,
        "node_state": {"data": [
            {"field": "cpu: User %", "value": 97}, {"field": "cpu: System %", "value": 2},
            {"field": "Memory Footprint (VmRSS) (KB)", "value": 182_400 + 512 * step},
            {"field": "io:read_bytes:", "value": 65_536 * step}, {"field": "System load",
                                                                 "value": 2}],
                       "timestamp": step_end},
        "outlier_score": round(call.took / call.usual * 2.17, 6),
        "outlier_severity": took,
        "pid": 0,
        "rid": r,
        "runtime_exclusive": took,
        "runtime_total": took,
        "tid": 0,
        "version": 2,
        "__id": number,
    }


def _messages(p: _Program, call: SlowCall, label: str, entry: int) -> list[dict]:
    """A collective's messages with the other ranks (none for other functions)."""
    if not call.function.startswith("MPI_"):
        return []
    out = []
    for other in range(p.run.ranks):
        if other == call.rank:
            continue
        for kind, src, tar, dt in (("SEND", call.rank, other, 120), ("RECV", other, call.rank,
                                                                    _us(call.took) - 80)):
            out.append({"bytes": 8 * 400, "execdata_key": label, "pid": 0, "rid": call.rank,
                        "src": src, "tag": COLLECTIVE_TAG, "tar": tar, "tid": 0,
                        "timestamp": entry + dt, "type": kind})
    return out


def anomaly_records(run: InstrumentedRun) -> list[dict]:
    """One record per slow call, in the order Chimbuko's ranks report them."""
    p = _Program(run)
    calls = sorted(run.slow_calls, key=lambda c: (c.rank, c.at))
    if any(c.at < run.step_seconds for c in calls):
        raise ValueError("a slow call in the first io step would take the labels of the "
                         "program's root frames (rank:0:0 to rank:0:2)")
    return [_record(p, call, n) for n, call in enumerate(calls)]


def metadata_records(run: InstrumentedRun) -> list[dict]:
    """What TAU records of each rank when it starts."""
    p, process = _Program(run), run.process
    out = []
    for r in range(run.ranks):
        for descr, value in (
                ("CPU Type", "AMD EPYC 7763 64-Core Processor"), ("CWD", process.cwd),
                ("Command Line", process.command_line), ("Executable", process.binary.path),
                ("Hostname", process.host.short),
                ("Local Time", time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                                             time.gmtime(p.start[r] / 1e6))),
                ("MPI Comm World Rank", str(r)), ("MPI Comm World Size", str(run.ranks)),
                ("Memory Size", "263518276 kB"), ("OS Name", "Linux"),
                ("Starting Timestamp", str(p.start[r])), ("TAU Version", "2.33")):
            out.append({"pid": 0, "rid": r, "tid": 0, "descr": descr, "value": value,
                        "__id": len(out)})
    return out


def write(campaign: Campaign, directory: Path) -> DemoFiles:
    """Write the instrumented run's anomalies and metadata under ``directory/chimbuko``,
    read as the run of its name (one load names one run: a campaign has at most one)."""
    if len(campaign.instrumented) > 1:
        raise ValueError("the demo loads one instrumented run (one chimbuko_run per load)")
    folder = Path(directory) / "chimbuko"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for run in campaign.instrumented:
        for collection, records in (("anomalies", anomaly_records(run)),
                                    ("metadata", metadata_records(run))):
            path = folder / f"{run.name}_{collection}.json"
            path.write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
            paths.append(path)
    # the campaign's instrumented run (the one the loader is to name: the last when several)
    options = {"chimbuko_run": campaign.instrumented[-1].name} if campaign.instrumented else {}
    return DemoFiles(tuple(paths), options)
