"""The Python API: what the CLI and the reports use, for scripts and notebooks.

>>> import lineage
>>> g = lineage.connect()                                   # doctest: +SKIP
>>> g.load(["samples/pegasus/blackdiamond-4.0.bp"])         # doctest: +SKIP
>>> g.query("ancestors", uid="pegasus:job:ea17...:analyze_j4").to_pandas()  # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import Iterable

from . import templates
from .connection import Graph, Settings
from .pipeline import LoadResult, Progress
from .pipeline import load as _load
from .writer import Writer, ensure_schema


class Rows(list):
    """Query results: a list of dicts, convertible to pandas or networkx.

    >>> Rows([{"uid": "a", "depth": 1}]).columns
    ['uid', 'depth']
    """

    def __init__(self, rows: Iterable[dict] = (), columns: list[str] | None = None):
        super().__init__(rows)
        self.columns = columns if columns is not None else (list(self[0]) if self else [])

    def to_pandas(self):
        """A pandas DataFrame (needs ``pip install lineage-explorer[pandas]``)."""
        import pandas as pd

        return pd.DataFrame(list(self), columns=self.columns)

    def to_networkx(self, source: str = "uid", target: str | None = None):
        """A networkx DiGraph: one node per row keyed by ``source`` with the other columns
        as attributes; with ``target``, an edge from each row's ``source`` to its ``target``
        (a list column gives one edge per element)."""
        import networkx as nx

        graph = nx.DiGraph()
        for row in self:
            attrs = {k: v for k, v in row.items() if k not in (source, target)}
            graph.add_node(row[source], **attrs)
            if target is not None:
                ends = row.get(target)
                for end in ends if isinstance(ends, list) else [ends]:
                    if end is not None:
                        graph.add_edge(row[source], end)
        return graph


class Lineage:
    """A lineage graph in Neo4j: load provenance, run templates, write reports."""

    def __init__(self, graph: Graph):
        self.graph = graph

    # ----------------------------------------------------------- loading
    def load(
        self,
        paths: Iterable[str | os.PathLike] | str | os.PathLike,
        source: str = "auto",
        lenient: bool = False,
        progress: Progress | None = None,
    ) -> list[LoadResult]:
        """Load files, directories or database URLs; returns one result per input."""
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        writer = Writer(self.graph.driver, self.graph.database)
        return _load(writer, paths, source=source, lenient=lenient, progress=progress)

    # ----------------------------------------------------------- querying
    def query(self, name_or_cypher: str, params: dict | None = None, **kwargs) -> Rows:
        """Run a template by name (``"ancestors"``) or a Cypher string, with parameters."""
        params = {**(params or {}), **kwargs}
        if templates.is_template_name(name_or_cypher):
            template = templates.get(name_or_cypher)
            rows = self.graph.run(template.text, template.bind(params))
            return Rows(rows, template.returns)
        return Rows(self.graph.run(name_or_cypher, params, write=False))

    def write(self, cypher: str, params: dict | None = None) -> Rows:
        """Run a Cypher statement that writes (the CLI's ``query --write``)."""
        return Rows(self.graph.run(cypher, params or {}, write=True))

    def stats(self) -> dict:
        """Node counts per label, relationship counts per type, and the loads."""
        labels = self.graph.run(
            "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS count ORDER BY label"
        )
        rels = self.graph.run(
            "MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS count ORDER BY type"
        )
        loads = self.graph.run(
            "MATCH (l:Load) RETURN l.path AS path, l.format AS format, l.status AS status, "
            "l.sha256 AS sha256, l.node_records AS node_records, l.edge_records AS edge_records, "
            "l.unresolved_edges AS unresolved_edges, l.finished_at AS finished_at, "
            "l.times_loaded AS times_loaded ORDER BY l.finished_at"
        )
        return {
            "nodes": {r["label"]: r["count"] for r in labels},
            "relationships": {r["type"]: r["count"] for r in rels},
            "loads": loads,
        }

    def reset(self) -> int:
        """Delete every node and relationship (the schema stays); returns nodes deleted."""
        before = self.graph.run("MATCH (n) RETURN count(n) AS n")[0]["n"]
        with self.graph.driver.session(database=self.graph.database) as session:
            # CALL ... IN TRANSACTIONS needs an auto-commit transaction (session.run)
            session.run(
                "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
            ).consume()
        ensure_schema(self.graph.driver, self.graph.database)
        return before

    # ----------------------------------------------------------- reports
    def report(self, uid: str, output: str | os.PathLike, **options) -> str:
        """Write the HTML lineage report of a run or node to ``output``; returns its path."""
        from .report import write_report

        return write_report(self, uid, output, **options)

    def view(self, uid: str, **options):
        """The lineage report of a run or node as an object that displays inline in Jupyter
        (``depth=``, ``max_nodes=``; ``.save(path)`` writes the page)."""
        from .report import view_report

        return view_report(self, uid, **options)

    def close(self) -> None:
        self.graph.close()

    def __enter__(self) -> "Lineage":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def connect(settings: Settings | None = None) -> Lineage:
    """Connect to ``NEO4J_URI`` if set, else to the managed local server (started if needed)."""
    return Lineage(Graph.connect(settings))
