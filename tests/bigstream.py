"""Generated Pegasus BP streams for load, fault and concurrency tests.

>>> lines = list(job_lines("w", range(2)))
>>> len(lines), lines[0].split()[1]
(9, 'event=stampede.job.info')
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from lineage.sources.base import LoadReport
from lineage.sources.pegasus.bp import parse
from lineage.model.records import Edge, Node


def job_lines(xwf: str, jobs: Iterable[int], reverse: bool = False) -> Iterator[str]:
    """A chain of jobs (each informed by the previous one), each run once with one invocation.

    ``reverse`` writes the same events in the opposite job order (to provoke lock-order
    conflicts between concurrent loads).
    """
    order = sorted(jobs, reverse=reverse)
    present = set(order)
    for i in order:
        yield (f"ts={1000 + i} event=stampede.job.info xwf.id={xwf} job.id=job{i:06d} type=1 "
               f'type_desc=compute executable=/bin/step argv="--step {i} --in f{i}.dat"')
        if i - 1 in present:  # only edges between jobs this stream declares
            yield (f"ts={1000 + i} event=stampede.job.edge xwf.id={xwf} "
                   f"child.job.id=job{i:06d} parent.job.id=job{i - 1:06d}")
    for i in order:
        yield (f"ts={2000 + i} event=stampede.job_inst.main.start xwf.id={xwf} "
               f"job.id=job{i:06d} job_inst.id=1")
        yield (f"ts={2001 + i} event=stampede.job_inst.main.end xwf.id={xwf} job.id=job{i:06d} "
               f"job_inst.id=1 status=0 exitcode=0 site=local")
        yield (f"ts={2001 + i} event=stampede.inv.end xwf.id={xwf} job.id=job{i:06d} "
               f"job_inst.id=1 inv.id=1 start_time={2000 + i} dur=1.0 exitcode=0 "
               f"transformation=step executable=/bin/step")


def write_stream(path: Path, xwf: str, jobs: Iterable[int], reverse: bool = False) -> Path:
    jobs = list(jobs)
    with open(path, "w") as fh:
        fh.write(f"ts=1 event=stampede.wf.plan xwf.id={xwf} dax.label=generated user=tester\n")
        for line in job_lines(xwf, jobs, reverse):
            fh.write(line + "\n")
    return path


def expected_size(*paths: Path) -> tuple[int, int]:
    """Distinct nodes and relationships the streams give (as the writer MERGEs them)."""
    nodes, rels = set(), set()
    for path in paths:
        for r in parse(path, LoadReport(str(path), "pegasus-bp")):
            if isinstance(r, Node):
                nodes.add(r.uid)
            elif isinstance(r, Edge):
                rels.add((r.rel.name, r.start, r.end, r.key))
    return len(nodes), len(rels)
