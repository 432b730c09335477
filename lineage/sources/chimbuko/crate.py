"""Chimbuko in a Workflow Run RO-Crate (``Views.crate_parts``): the anomalies of each program
run ``lineage link`` joined to a run, most severe first, put on the step execution the program
ran in. Times are seconds since the epoch (Chimbuko records microseconds).

>>> seconds(1715677581900000)
1715677581.9
>>> seconds(None) is None
True
"""

from __future__ import annotations

from ..crate import CrateAnomaly

#: anomalies of one program run a crate lists, most severe first
LIMIT = 1000


def seconds(microseconds) -> float | None:
    """Microseconds since the epoch as seconds."""
    return None if microseconds is None else microseconds / 1e6


def anomalies(lin, uids: list[str]) -> list[CrateAnomaly]:
    """The anomalies of the program runs ``uids``."""
    return [CrateAnomaly(run, row["uid"], row["function"], severity=row["severity"],
                         score=row["score"], rank=row["rank"], thread=row["thread"],
                         start=seconds(row["entry"]), end=seconds(row["exit"]))
            for run in uids
            for row in lin.query("chimbuko/run_anomalies", run=run, limit=LIMIT)]
