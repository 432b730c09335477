"""Folding a bulk load's records as the writer's MERGEs would store them, in memory.

One node per uid (later properties win, labels add up), one relationship per type, ends and
key; each element lists the tags of the inputs that state it. The first input is folded while
it is read (:class:`FoldingStore`); when the folded graph grows past the load's budget
(``LoadOptions.bulk_fold_elements``) what it holds goes to disk and the rest is folded there,
partition by partition (:mod:`lineage.bulk.partitions`).

>>> from lineage.load.writer import WriteStats
>>> g = FoldedGraph()
>>> g.fold_nodes([("Host", "host:a", {"name": "a"}, ())], "t1", WriteStats())
>>> g.fold_nodes([("Host", "host:a", {"cores": 4}, ())], "t2", WriteStats())
>>> g.nodes["host:a"][1:]
[{'name': 'a', 'kind': 'Host', 'cores': 4}, ['t1', 't2']]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .. import model
from ..sources.base import LoadReport
from ..load.claims import CLAIMED_TYPES, FIXED_LABELS, all_same, edge_of
from ..load.writer import WriteStats


def _claimed_labels(labels: list) -> list:
    """The labels a claim keeps, sorted (as the writer's: not the shared one nor ``Failed``)."""
    return sorted(x for x in labels if x not in FIXED_LABELS)


@dataclass
class FoldedGraph:
    """Every element the inputs state, folded as the writer's MERGEs fold them."""

    nodes: dict[str, list] = field(default_factory=dict)  # uid -> [labels, props, loads]
    edges: dict[tuple, list] = field(default_factory=dict)  # (rel, start, end, key) -> [props, loads]
    #: empty list values (an empty CSV array is no value at all): set after the import
    empty_lists: list[dict] = field(default_factory=list)
    #: lists and dicts many elements share (the labels of a kind, one load's tag, no
    #: properties): never changed in place, replaced when an element's own differs
    #: (about a fifth of the fold's memory at 10^6 elements, README)
    _shared: dict = field(default_factory=dict, repr=False)
    #: what each input stated of an element more than one states (the claims the writer
    #: records, :mod:`lineage.load.claims`): node uid or relationship identity -> tag ->
    #: ``[labels, props]`` of a node, ``[props]`` of a relationship
    claims: dict = field(default_factory=dict, repr=False)

    def add_input(self, spool, tag: str, prefix: str, report: LoadReport) -> tuple[WriteStats, set]:
        """Fold one input's spool in, as the writer's MERGEs would store it; the input's
        nodes that another input stated as something else are left out (reported)."""
        duplicates = self._identity_conflicts(spool, prefix, report) if self.nodes else set()
        stats = WriteStats()
        self.fold_nodes(spool.node_rows(), tag, stats, duplicates)
        self.fold_edges(spool.edge_rows(), tag, stats, duplicates)
        return stats, duplicates

    def fold_nodes(self, rows: Iterable[tuple], tag: str, stats: WriteStats,
                   duplicates: set = frozenset()) -> None:
        """Fold node rows ``(kind label, uid, props, extra labels)`` in (later properties
        win, labels add up), except the uids in ``duplicates``. The rows are a spool's:
        their properties checked (no ``None``) and the graph's to keep (not copied)."""
        nodes, kinds, shared = self.nodes, model.NODE_KINDS, self._shared
        tags = shared.setdefault(("tags", tag), [tag])
        for label, uid, props, extra in rows:  # tuples: no Node built for each
            if uid in duplicates:
                continue
            stats.node_rows += 1
            props["kind"] = label
            labels = shared.get((label, extra))
            if labels is None:
                labels = shared[label, extra] = [*kinds[label].labels, *extra]
            have = nodes.get(uid)
            if have is None:
                nodes[uid] = [labels, props, tags]
                continue
            if tag not in have[2] or len(have[2]) > 1:  # shared: claims (rarely)
                self._claim_node(uid, have, tag, labels, props)
            if labels is not have[0]:
                missing = [name for name in labels if name not in have[0]]
                if missing:  # a new list: the one it had may be shared
                    have[0] = have[0] + missing
            have[1].update(props)
            if tag not in have[2]:
                have[2] = have[2] + [tag]

    def fold_edges(self, rows: Iterable[tuple], tag: str, stats: WriteStats,
                   duplicates: set = frozenset()) -> None:
        """Fold relationship rows ``(type, start, end, props, key)`` in (one per type, ends
        and key); one whose end is not a node of the graph is counted as unresolved."""
        nodes, edges, shared = self.nodes, self.edges, self._shared
        tags, no_props = shared.setdefault(("tags", tag), [tag]), shared.setdefault("props", {})
        for rel, start, end, props, key in rows:
            if start in duplicates or end in duplicates:
                continue
            stats.edge_rows += 1
            if start not in nodes or end not in nodes:
                stats.unresolved_edges += 1
                if len(stats.unresolved_examples) < 10:
                    stats.unresolved_examples.append(f"{rel} {start} -> {end}")
                continue
            stats.edges_written += 1  # props: checked, the graph's to keep (see fold_nodes)
            have = edges.get(identity := (rel, start, end, key or None))
            if have is None:
                edges[identity] = [props or no_props, tags]
                continue
            if ((tag not in have[1] or len(have[1]) > 1) and rel in CLAIMED_TYPES
                    and (props or have[0])):
                self._claim_edge(identity, have, tag, props)
            if props:  # the shared empty dict is never updated: replaced by the row's own
                if have[0] is no_props:
                    have[0] = props
                else:
                    have[0].update(props)
            if tag not in have[1]:
                have[1] = have[1] + [tag]

    def _claim_node(self, uid: str, have: list, tag: str, labels: list, props: dict) -> None:
        """Keep what ``tag`` states of node ``uid`` apart (and, the first time the node is
        shared, what the inputs before it stated: all it holds)."""
        claimed = self.claims.get(uid)
        if claimed is None:
            claimed = self.claims[uid] = {t: [_claimed_labels(have[0]), dict(have[1])]
                                          for t in have[2]}
        mine = claimed.get(tag)
        if mine is None:
            claimed[tag] = [_claimed_labels(labels), dict(props)]
        else:
            mine[0] = sorted({*mine[0], *_claimed_labels(labels)})
            mine[1].update(props)

    def _claim_edge(self, identity: tuple, have: list, tag: str, props: dict) -> None:
        """As :meth:`_claim_node`, for a relationship of a type with properties."""
        claimed = self.claims.get(identity)
        if claimed is None:
            claimed = self.claims[identity] = {t: [dict(have[0])] for t in have[1]}
        claimed.setdefault(tag, [{}])[0].update(props)

    def claim_rows(self, at: dict[str, float]) -> list[dict]:
        """The claims as rows of :data:`lineage.load.claims.CREATE_CLAIMS` (``at``: when each
        tag's input was read)."""
        rows = []
        for key, claimed in self.claims.items():
            if all_same((c[0], c[1]) if len(c) > 1 else ((), c[0]) for c in claimed.values()):
                continue  # its loads state the same: no claims (as the writer keeps)
            for tag, claim in claimed.items():
                row = {"tag": tag, "at": at.get(tag, 0.0), "props": claim[-1]}
                if isinstance(key, str):
                    row.update(of=key, labels=claim[0])
                else:
                    rel, start, end, k = key
                    row.update(of=edge_of(rel, start, end, k), start=start, end=end,
                               type=rel, key=k)
                rows.append(row)
        return rows

    def _identity_conflicts(self, spool, prefix: str, report: LoadReport) -> set[str]:
        """As :func:`lineage.load.writer.identity_conflicts`: uids other inputs of this bulk load
        stated with other values of the kind's identity properties (the first one stays)."""
        if not any(model.NODE_KINDS[label].identity for label in spool.node_counts):
            return set()
        found = self.conflicts(spool.node_rows(), prefix)
        for line in self.conflict_warnings(report, sorted(found.items())[:20]):
            report.warn(line)
        if found:
            report.extra["duplicate_uids_of_other_inputs"] = len(found)
        return set(found)

    def conflicts(self, rows: Iterable[tuple], prefix: str) -> dict[str, list]:
        """Of node rows ``(kind label, uid, props, extra labels)`` of the input whose load id
        is ``prefix``, the uids already folded from another input with other values of the
        kind's identity properties: uid -> ``[[name, value there, value here], ...]``."""
        found: dict[str, list] = {}
        kinds = model.NODE_KINDS
        for label, uid, props, _ in rows:
            have = self.nodes.get(uid)
            if have is None or not kinds[label].identity:
                continue
            if not any(not t.startswith(prefix) for t in have[2]):
                continue
            differ = [[k, have[1].get(k), props.get(k)] for k in kinds[label].identity
                      if props.get(k) is not None and have[1].get(k) is not None
                      and have[1][k] != props[k]]
            if differ:
                found[uid] = differ
        return found

    @staticmethod
    def conflict_warnings(report: LoadReport, first: Iterable[tuple[str, list]]) -> list[str]:
        """The warnings for the first conflicts ``(uid, differ)`` found in ``report``'s input."""
        lines = []
        for uid, differ in first:
            what = "; ".join(f"{k} {old!r} there, {new!r} here" for k, old, new in differ)
            lines.append(f"{report.path}: {uid} was already loaded from another input as "
                         f"something else ({what}): this input's record is a duplicate and "
                         "was not loaded")
        return lines

    def clear(self) -> None:
        """Forget everything folded (a failed first input)."""
        self.nodes.clear()
        self.edges.clear()
        self.empty_lists.clear()
        self._shared.clear()
        self.claims.clear()

    def tagged(self) -> dict[str, list[int]]:
        """Per tag: how many nodes and relationships carry it."""
        counts: dict[str, list[int]] = {}
        for _, _, tags in self.nodes.values():
            for tag in tags:
                counts.setdefault(tag, [0, 0])[0] += 1
        for _, tags in self.edges.values():
            for tag in tags:
                counts.setdefault(tag, [0, 0])[1] += 1
        return counts


class FoldingStore:
    """The store of the first input of a bulk load's spool (:class:`lineage.load.spool.Spool`):
    its records are folded into the (still empty) graph while the input is read, not kept on
    disk and read back after it (the reader runs in a child process; this one has time to
    fold meanwhile). What the input stated is the whole graph, so a failed input is undone
    by emptying the graph.

    A relationship is folded as soon as both its ends are nodes of the graph (the spool puts
    every node read so far before a relationship); one that names a node not read yet waits
    for the end of the input (as do later statements of the same relationship, which keeps
    their order), then is folded or counted unresolved, as :meth:`FoldedGraph.add_input`
    would have.
    """

    def __init__(self, graph: FoldedGraph, tag: str, budget: int | None = None,
                 spill: Callable[[], tuple] | None = None):
        assert not graph.nodes and not graph.edges, "only the first input of a bulk load"
        self.graph, self.tag, self.stats = graph, tag, WriteStats()
        self._waiting: list[tuple] = []  # relationships whose ends were not all read yet
        self._waiting_ids: set[tuple] = set()
        #: past ``budget`` elements, ``spill()`` moves what the graph holds to partitions on
        #: disk and gives them and this input's number there; every row read after goes there
        self.budget, self._spill, self.partitions, self.number = budget, spill, None, None

    def put_nodes(self, rows: list[tuple]) -> None:
        if self.partitions is not None:
            self.partitions.add_nodes(self.number, rows)
        else:
            self.graph.fold_nodes(rows, self.tag, self.stats)
            self._within_budget()

    def put_edges(self, rows: list[tuple]) -> None:
        if self.partitions is not None:
            self.partitions.add_edges(self.number, rows)
            return
        nodes, waiting, waiting_ids = self.graph.nodes, self._waiting, self._waiting_ids
        ready = []
        for row in rows:
            rel, start, end, _, key = row
            if start in nodes and end in nodes and not (
                    waiting_ids and (rel, start, end, key or None) in waiting_ids):
                ready.append(row)
            else:
                waiting.append(row)
                waiting_ids.add((rel, start, end, key or None))
        self.graph.fold_edges(ready, self.tag, self.stats)
        self._within_budget()

    def _within_budget(self) -> None:
        """Past the budget, the graph and the waiting relationships go to the partitions."""
        graph = self.graph
        if self.budget is None or (len(graph.nodes) + len(graph.edges) + len(self._waiting)
                                   <= self.budget):
            return
        self.partitions, self.number = self._spill()  # it holds what the graph held
        self.partitions.add_edges(self.number, self._waiting)
        self._waiting, self._waiting_ids = [], set()

    def seal(self) -> None:
        """Every row was put: the relationships still waiting are folded (or counted)."""
        if self.partitions is None:
            self.graph.fold_edges(self._waiting, self.tag, self.stats)
        self._waiting, self._waiting_ids = [], set()

    def node_rows(self):
        raise TypeError("a folding store keeps no rows: they are in the graph")

    edge_rows = node_rows

    def close(self) -> None:
        self._waiting = []
