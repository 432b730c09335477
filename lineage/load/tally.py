"""What the results of a load add up to, without keeping them: a load of 10^5 inputs
(:meth:`lineage.api.Lineage.load_each`) is summed up in the memory of a few.

>>> from lineage.load.pipeline import LoadResult
>>> tally = Tally()
>>> tally.add(LoadResult("a.json", "xalt-json", "xalt", "loaded",
...                      report={"warnings": ["a.json: odd"], "warning_count": 3}))
>>> tally.add(LoadResult("b.json", None, None, "unreadable", error="cannot be read"))
>>> tally.inputs, tally.loaded, tally.warnings, tally.first_warnings, tally.unread
(2, 1, 3, ['a.json: odd'], 1)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

#: how many warnings and unread inputs a tally keeps in full (all are counted)
KEPT = 10


@dataclass
class Tally:
    """Counts of a load's results by status, its warnings (the first :data:`KEPT` in
    full) and the inputs it could not read (the first :data:`KEPT` with their reason)."""

    statuses: Counter = field(default_factory=Counter)
    warnings: int = 0
    warned_inputs: int = 0
    first_warnings: list[str] = field(default_factory=list)
    first_unread: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    def add(self, result) -> None:
        """Count one input's :class:`~lineage.load.pipeline.LoadResult`."""
        self.statuses[result.status] += 1
        kept = result.report.get("warnings", [])
        count = result.report.get("warning_count") or len(kept)
        if count:
            self.warnings += count
            self.warned_inputs += 1
            self.first_warnings += kept[:KEPT - len(self.first_warnings)]
        if result.status == "unreadable" and len(self.first_unread) < KEPT:
            self.first_unread.append((str(result.path), result.error or ""))

    @property
    def inputs(self) -> int:
        return sum(self.statuses.values())

    @property
    def loaded(self) -> int:
        """Inputs whose content the graph now holds (loaded now, or unchanged since)."""
        return self.statuses["loaded"] + self.statuses["unchanged"]

    @property
    def failed(self) -> int:
        return self.statuses["failed"]

    @property
    def unread(self) -> int:
        return self.statuses["unreadable"]
