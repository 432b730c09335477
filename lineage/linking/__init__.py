"""``lineage link``: connect what Pegasus, Swift, XALT and Chimbuko recorded of the same
execution, with edges that carry their evidence (see :mod:`.rules` for the rules).

Reads each system's executions through the templates its source names for each role of
:class:`.rules.Inputs` (``views.link_views``: ``xalt/link_runs``, ``pegasus/link_attempts``,
...), matches them in Python (:func:`.rules.match`), then writes what is new or changed and
removes links the rules no longer find, so running it twice changes nothing and running it
after more loads links what they added.

>>> lineage.connect().link(dry_run=True)["rules"]["scheduler_job"]  # doctest: +SKIP
{'links': 3, 'made': 3, 'kept': 0, 'updated': 0, 'removed': 0, 'ambiguous': 0, 'candidates': 0}
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable

from .. import model
from ..query import templates
from ..model.records import Edge
from ..sources import registry
from .rules import DEFAULT_SKEW, RULES, Ambiguity, Inputs, Link, match

__all__ = ["link", "LinkResult", "RULES", "DEFAULT_SKEW"]

#: Removes links the rules no longer find (a fixed statement: catalogue templates are read-only).
REMOVE_LINKS = """
UNWIND $links AS row
MATCH (a:Lineage {uid: row.start})-[r:SAME_ACTIVITY|RAN_WITHIN]->(b:Lineage {uid: row.end})
WHERE type(r) = row.type
DELETE r
RETURN count(*) AS removed
"""

#: The roles of :class:`.rules.Inputs` each rule reads.
_NEEDS = {"scheduler_job": ("xalt", "attempts"), "process": ("xalt", "invocations"),
          "app_process": ("xalt", "swift"), "instrumented_run": ("chimbuko", "xalt"),
          "instrumented_process": ("chimbuko", "invocations"),
          "host_time": ("xalt", "invocations")}


@dataclass
class LinkResult:
    """What one ``link`` did, per rule, and what it would not decide."""

    dry_run: bool
    skew: float
    rules: dict[str, dict[str, int]]
    ambiguous: list[Ambiguity] = field(default_factory=list)
    candidates: list[Ambiguity] = field(default_factory=list)
    unlinked: dict[str, int] = field(default_factory=dict)
    #: seconds spent reading rows, matching them and writing links
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        def rows(items):
            return [{"rule": a.rule, "record": a.record, "candidates": list(a.candidates),
                     "kept": a.kept}
                    for a in items]
        return {"dry_run": self.dry_run, "skew": self.skew, "rules": self.rules,
                "ambiguous": rows(self.ambiguous), "candidates": rows(self.candidates),
                "unlinked": self.unlinked, "seconds": self.seconds}


def _key(start: str, type_: str, end: str) -> tuple[str, str, str]:
    return start, type_, end


def link(graph, rules: Iterable[str] | None = None, skew: float = DEFAULT_SKEW,
         dry_run: bool = False) -> LinkResult:
    """Link executions across systems in ``graph`` (a :class:`lineage.server.connection.Graph`)."""
    chosen = list(RULES) if rules is None else list(dict.fromkeys(rules))
    needed = {role for r in chosen for role in _NEEDS.get(r, ())}
    views = registry.views().link_views  # role -> the template of its rows
    clock = time.perf_counter()
    inputs = Inputs(**{role: _rows(graph, views[role]) for role in views if role in needed})
    existing = {_key(r["start"], r["type"], r["end"]): r
                for r in _rows(graph, "link/existing", {"rule": None}) if r["rule"] in chosen}
    seconds = {"read": time.perf_counter() - clock}
    clock = time.perf_counter()
    found = match(inputs, chosen, skew)
    wanted = {_key(link.start, link.type, link.end): link for link in found.links}
    counts = {r: dict.fromkeys(("links", "made", "kept", "updated", "removed", "ambiguous",
                                "candidates"), 0) for r in chosen}
    to_write: list[Link] = []
    for key, new in wanted.items():
        counts[new.rule]["links"] += 1
        old = existing.get(key)
        if old is None:
            counts[new.rule]["made"] += 1
            to_write.append(new)
        elif _same(old, new.props(skew)):
            counts[new.rule]["kept"] += 1
        else:
            counts[new.rule]["updated"] += 1
            to_write.append(new)
    stale = [old for key, old in existing.items() if key not in wanted]
    for old in stale:
        counts[old["rule"]]["removed"] += 1
    for a in found.ambiguous:
        counts[a.rule]["ambiguous"] += 1
    for a in found.candidates:
        counts[a.rule]["candidates"] += 1
    seconds["match"] = time.perf_counter() - clock
    clock = time.perf_counter()
    if not dry_run:
        from ..load.writer import Writer  # imports the driver: here, so `lineage --help` need not

        Writer(graph.driver, graph.database).write_edges(
            Edge(model.REL_TYPES[link.type], link.start, link.end, link.props(skew))
            for link in to_write)
        if stale:
            graph.run(REMOVE_LINKS,
                      {"links": [{"start": o["start"], "type": o["type"], "end": o["end"]}
                                 for o in stale]}, write=True)
    seconds["write"] = time.perf_counter() - clock
    return LinkResult(dry_run, skew, counts, found.ambiguous, found.candidates, found.unlinked,
                      {k: round(v, 3) for k, v in seconds.items()})


def _rows(graph, name: str, params: dict | None = None) -> list[dict]:
    template = templates.get(name)
    return graph.run_collected(template.text, params or {}, template.returns)


def _same(old: dict, new: dict) -> bool:
    return all(old.get(k) == (list(v) if isinstance(v, tuple) else v) for k, v in new.items())
