"""The bulk load's fold: in memory (:class:`.fold.FoldedGraph`) until it would pass the
load's budget of graph elements (``LoadOptions.bulk_fold_elements``), then on disk, partition
by partition (:mod:`.partitions`).

>>> input_bytes(["/nonexistent", "bolt://x"])
0
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from ..load.inputs import is_url
from ..load.pipeline import LoadResult
from ..sources.base import LoadReport
from .csv import CsvFiles, write_csv, write_partitions_csv
from .fold import FoldedGraph, FoldingStore
from .partitions import Partitions, partitions_for

log = logging.getLogger("lineage.bulk")


class Fold:
    """The bulk load's fold: in memory (``graph``) until it would pass ``budget`` elements,
    then on disk in partitions (:mod:`lineage.bulk.partitions`) under ``directory``."""

    def __init__(self, budget: int | None, directory: Path, total_bytes: int):
        self.graph, self.budget, self.directory = FoldedGraph(), budget, directory
        self.partitions: Partitions | None = None
        self.kept_claims: dict = {}  # the graph's claims when it went to disk
        self.in_memory: list[tuple] = []  # (tag, prefix, report) of inputs in the graph
        self.total_bytes, self.bytes_done = total_bytes, 0

    def first_store(self, tag: str, prefix: str, report: LoadReport) -> FoldingStore | None:
        """A spool's store that folds while the input is read, for the first input with
        content (else None)."""
        if self.graph.nodes or self.partitions is not None:
            return None

        def spill() -> tuple[Partitions, int]:
            self.in_memory.append((tag, prefix, report))
            self._to_disk(report.bytes_read)
            return self.partitions, len(self.in_memory) - 1

        return FoldingStore(self.graph, tag, self.budget, spill)

    def add(self, spool, folding: FoldingStore | None, tag: str, prefix: str,
            report: LoadReport, result: LoadResult) -> bool:
        """Fold one input's spool in (``folding``: the store it folded into while it was
        read, if it did); its write stats go into ``result`` now (False) or, when its rows
        went to the partitions, as they are folded (True)."""
        if folding is not None:
            result.write.add(folding.stats)
            if folding.partitions is not None:
                self.partitions.inputs[folding.number].result = result
                return True
            self.in_memory.append((tag, prefix, report))
            return False
        records = sum(spool.node_counts.values()) + sum(spool.edge_counts.values())
        if (self.partitions is None and self.budget is not None
                and len(self.graph.nodes) + len(self.graph.edges) + records > self.budget):
            self._to_disk(report.bytes_read, records)
        if self.partitions is None:
            result.write.add(self.graph.add_input(spool, tag, prefix, report)[0])
            self.in_memory.append((tag, prefix, report))
            return False
        number = self.partitions.add_input(tag, prefix, report)
        self.partitions.inputs[number].result = result
        self.partitions.add_nodes(number, spool.node_rows())
        self.partitions.add_edges(number, spool.edge_rows())
        return True

    def _to_disk(self, bytes_read: int, more: int = 0) -> None:
        """From now on, the partitions: numbered for the inputs folded so far, holding what
        the graph folded (sized for the inputs' bytes at the rate read so far)."""
        elements = len(self.graph.nodes) + len(self.graph.edges) + more
        done = self.bytes_done + bytes_read
        expected = elements * max(self.total_bytes / done, 1.0) * 1.25 if done > 0 else \
            elements * 8
        self.partitions = Partitions(Path(tempfile.mkdtemp(prefix="bulk-fold-",
                                                          dir=self.directory)),
                                     partitions_for(int(expected), self.budget), self.budget)
        for tag, prefix, report in self.in_memory:
            self.partitions.add_input(tag, prefix, report)
        self.kept_claims = dict(self.graph.claims)
        log.warning("bulk load: past the fold budget, the values each input states of "
                    "elements other inputs state too (claims) are kept for the inputs folded "
                    "in memory only: unloading a later input keeps what it stated on them")
        self.partitions.add_state(self.graph)
        log.info("bulk load: %d graph elements folded, past the budget of %d: folding on "
                 "in %d partitions on disk", elements, self.budget, self.partitions.count)

    def read(self, path: str) -> None:
        """An input was read (its bytes count towards sizing the partitions)."""
        if not is_url(path):
            try:
                self.bytes_done += os.path.getsize(path)
            except OSError:
                pass

    def forget(self) -> None:
        """The first input failed: nothing was folded."""
        self.graph.clear()
        self.in_memory.clear()
        self.close()
        self.partitions = None

    def empty(self) -> bool:
        return not self.graph.nodes and self.partitions is None

    def write_csv(self, directory: Path) -> CsvFiles:
        """The folded graph as neo4j-admin CSV (:func:`.csv.write_csv`, or from the
        partitions :func:`.csv.write_partitions_csv`); each input's write stats and conflict
        warnings go into its result."""
        if self.partitions is None:
            return write_csv(self.graph, directory)
        files = write_partitions_csv(self.partitions, directory)
        for found in self.partitions.inputs:
            if found.result is not None:
                found.result.write.add(found.stats)
                found.result.report = found.report.summary()
        return files

    def folded(self) -> list[LoadResult]:
        """The results whose write counts came from the partitions, in input order."""
        if self.partitions is None:
            return []
        return [found.result for found in self.partitions.inputs if found.result is not None]

    def tagged(self) -> dict[str, list[int]]:
        return self.partitions.tagged if self.partitions is not None else self.graph.tagged()

    def claim_rows(self, at: dict[str, float]) -> list[dict]:
        """The claims of the elements several inputs state, folded in memory
        (:meth:`.fold.FoldedGraph.claim_rows`); past the fold's budget, only those of the
        inputs folded before it went to disk (see ``kept_claims``)."""
        return FoldedGraph(claims=self.kept_claims or self.graph.claims).claim_rows(at)

    def empty_lists(self) -> list[dict]:
        return (self.partitions.empty_lists if self.partitions is not None
                else self.graph.empty_lists)

    def close(self) -> None:
        """Remove the partitions' files (what was gathered from them stays)."""
        if self.partitions is not None:
            self.partitions.close()


def input_bytes(paths) -> int:
    """The size of every file under ``paths`` (URLs count nothing)."""
    total = 0
    for path in paths:
        if is_url(str(path)):
            continue
        path = Path(path)
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            for root, _, files in os.walk(path):
                for name in files:
                    try:
                        total += os.path.getsize(os.path.join(root, name))
                    except OSError:
                        pass
    return total
