"""The Python API: what the CLI and the reports use, for scripts and notebooks.

>>> import lineage
>>> g = lineage.connect()                                   # doctest: +SKIP
>>> g.load(["samples/pegasus/blackdiamond-4.0.bp"])         # doctest: +SKIP
>>> g.query("ancestors", uid="pegasus:job:ea17...:analyze_j4").to_pandas()  # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator

from pathlib import Path

from . import analysis, loads, model, templates
from .errors import LineageError, TemplateError
from .connection import Graph
from .connection import Settings as ConnectionSettings
from .settings import LoadOptions, Settings
from .pipeline import LoadResult, Progress
from .pipeline import load as _load
from .private_file import write_private
from .writer import Writer, ensure_schema


#: Query names answered in Python over a template's rows (see :mod:`lineage.analysis`).
COMPUTED = tuple(analysis.COMPUTED)
EXPORT_CHUNK = 10_000  # node uids per query while an export streams


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

    def __init__(self, graph: Graph, settings: Settings | None = None):
        self.graph = graph
        self.settings = settings or Settings.from_env()

    # ----------------------------------------------------------- loading
    def load(
        self,
        paths: Iterable[str | os.PathLike] | str | os.PathLike,
        source: str = "auto",
        lenient: bool = False,
        progress: Progress | None = None,
        xalt_env: str | None = None,
        options: LoadOptions | None = None,
        fail_fast: bool = False,
    ) -> list[LoadResult]:
        """Load files, directories or database URLs; returns one result per input.

        ``lenient`` skips and counts malformed records; ``xalt_env`` (none, filtered, all)
        is what is kept of XALT run environments; both default to the settings'. A malformed
        input does not stop the others: the error is raised once all are done (its
        ``results`` hold every input's result), or at once with ``fail_fast``.
        """
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        options = (options or self.settings.load).with_(
            lenient=True if lenient else None, xalt_env=xalt_env)
        writer = Writer(self.graph.driver, self.graph.database)
        return _load(writer, paths, source=source, progress=progress, options=options,
                     fail_fast=fail_fast)

    def unload(self, load_or_path: str | os.PathLike) -> list[dict]:
        """Remove what only one load stated, by load uid or id or by input path (every
        format of that path); facts other loads also stated stay. Returns one summary per
        load (its id, path, and how many nodes and relationships were removed).

        >>> lineage.connect().unload("lineage/samples/pegasus/blackdiamond-4.0.bp")  # doctest: +SKIP
        [{'uid': 'load:...', 'nodes_removed': 79, 'edges_removed': 187, ...}]
        """
        key = str(load_or_path)
        if not key.startswith("load:") and os.path.exists(key):
            key = str(Path(key).resolve())
        return loads.unload(self.graph.driver, self.graph.database, key)

    def link(self, rules: Iterable[str] | None = None, skew: float | None = None,
             dry_run: bool = False):
        """Link what different systems recorded of the same execution (XALT runs to Pegasus
        attempts and invocations and Swift app executions, Chimbuko runs to either), by the
        rules of :mod:`lineage.linking.rules`; returns a :class:`~lineage.linking.LinkResult`
        (per rule: links found, made, kept, updated, removed, ambiguous). Idempotent.

        >>> lin.link(dry_run=True).rules["scheduler_job"]["made"]  # doctest: +SKIP
        3
        """
        from . import linking

        return linking.link(self.graph, rules,
                            linking.DEFAULT_SKEW if skew is None else skew, dry_run)

    # ----------------------------------------------------------- querying
    def query(self, name_or_cypher: str, params: dict | None = None, **kwargs) -> Rows:
        """Run a template by name (``"ancestors"``) or a Cypher string, with parameters."""
        params = {**(params or {}), **kwargs}
        if name_or_cypher in analysis.COMPUTED:
            return self._computed(name_or_cypher, params)
        if name_or_cypher in ("ancestors", "descendants") and params.get("max_depth") is not None:
            template = templates.get(name_or_cypher)
            bound = template.bind(params)  # checks the parameters as the template would
            return Rows(analysis.bounded_lineage(self, bound["uid"], bound["max_depth"],
                                                 upstream=name_or_cypher == "ancestors"),
                        template.returns)
        if templates.is_template_name(name_or_cypher):
            template = templates.get(name_or_cypher)
            rows = self.graph.run_collected(template.text, template.bind(params),
                                            template.returns)
            return Rows(rows, template.returns)
        return Rows(self.graph.run(name_or_cypher, params, write=False))

    def _computed(self, name: str, params: dict) -> Rows:
        source, param = analysis.COMPUTED[name]
        if set(params) != {param}:
            raise TemplateError(f"{name} takes one parameter, {param} (given: "
                                f"{', '.join(sorted(params)) or 'none'})")
        rows = analysis.critical_path(self, params[param])
        return Rows(rows, analysis.CRITICAL_PATH_COLUMNS)

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
            "MATCH (l:Load) RETURN l.id AS id, l.path AS path, l.format AS format, "
            "l.status AS status, l.last_attempt AS last_attempt, l.version AS version, "
            "l.sha256 AS sha256, l.node_records AS node_records, l.edge_records AS edge_records, "
            "l.unresolved_edges AS unresolved_edges, l.finished_at AS finished_at, "
            "l.times_loaded AS times_loaded ORDER BY l.finished_at"
        )
        return {
            "nodes": {r["label"]: r["count"] for r in labels},
            "relationships": {r["type"]: r["count"] for r in rels},
            "loads": loads,
        }

    def reset(self, force: bool = False) -> int:
        """Delete every node and relationship (the schema stays); returns nodes deleted.

        Refuses (:class:`~lineage.loads.BusyError`, naming the input and the writing
        process) while a load is writing; ``force=True`` interrupts such loads first: each
        removes what it wrote and fails with :class:`~lineage.errors.LoadInterrupted`.
        """
        driver, database = self.graph.driver, self.graph.database
        if force:
            loads.interrupt_writes(driver, database, "reset")
        else:
            loads.refuse_if_written(driver, database, "reset the graph")
        before = self.graph.run("MATCH (n) RETURN count(n) AS n")[0]["n"]
        with self.graph.driver.session(database=self.graph.database) as session:
            # CALL ... IN TRANSACTIONS needs an auto-commit transaction (session.run)
            session.run(
                "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
            ).consume()
        ensure_schema(self.graph.driver, self.graph.database)
        return before

    def why(self, uid: str) -> dict:
        """Why a Pegasus workflow or job, a Swift script run or an XALT execution failed:
        ``{uid, kind, status, problems}``, each problem with its status, exit code or signal,
        host and the error lines of its output first (see :mod:`lineage.why`).

        >>> lin.why("pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3")["problems"][0]["causes"]  # doctest: +SKIP
        ['Unable to instantiate Transformation Catalog ...']
        """
        from .why import why

        return why(self, uid)

    def diff(self, first: str, second: str) -> dict:
        """What differs between two runs of one kind (Pegasus workflows, Swift script runs,
        XALT executions, Chimbuko program runs; linked wholes across systems): ``{kind, first, second, differences}``, each difference a
        row ``{aspect, name, first, second}``, most telling first (see :mod:`lineage.diff`);
        ``Rows(result["differences"]).to_pandas()`` gives a DataFrame."""
        from .diff import diff

        return diff(self, first, second)

    def diff_html(self, result: dict, output: str | os.PathLike) -> str:
        """Write a :meth:`diff` result as a self-contained side-by-side HTML page (every
        value escaped, no script, no network request; file mode 0600 as reports)."""
        from .report.render import render_diff

        runs = {r["uid"]: r for r in self.query("nodes", uids=[result["first"],
                                                              result["second"]])}
        page = render_diff(result, runs[result["first"]], runs[result["second"]])
        return write_private(output, page)

    # ----------------------------------------------------------- exchange
    def subgraph(self, uid: str, depth: int = 3, links: bool = False) -> tuple[Rows, Rows]:
        """A run's parts (``PART_OF``, up to ``depth`` hops) and the nodes they touch, or a
        node's ancestors and descendants (up to ``depth``), with every relationship among
        them: (nodes, edges). ``links`` adds what ``lineage link`` connected to those nodes
        in other systems (XALT runs, Chimbuko runs) and the nodes they touch (executables,
        libraries, hosts)."""
        uids = self.subgraph_uids(uid, depth, links)
        return self.query("nodes", uids=uids), self.query("subgraph_edges", uids=uids)

    def subgraph_uids(self, uid: str, depth: int = 3, links: bool = False) -> list[str]:
        """The uids of :meth:`subgraph`'s nodes (the starting node first)."""
        found = self.query("node", uid=uid)
        if not found:
            raise LineageError(f"no node with uid {uid!r} in the graph")
        if model.RUN_LABEL in found[0]["labels"]:
            uids = [uid] + [m["uid"] for m in self.query("run_member_uids", run=uid,
                                                         max_depth=depth)]
            # and what the run and its parts touched: hosts, users, executables, files
            uids = list(dict.fromkeys(uids + [r["uid"] for r in
                                              self.query("neighbours", uids=uids)]))
        else:
            up = self.query("ancestors", uid=uid, max_depth=depth)
            down = self.query("descendants", uid=uid, max_depth=depth)
            uids = list(dict.fromkeys([uid] + [r["uid"] for r in up] + [r["uid"] for r in down]))
        if links:
            linked = [r["uid"] for r in self.query("cross/linked_to", uids=uids)]
            touched = [r["uid"] for r in self.query("neighbours", uids=linked)] if linked else []
            uids = list(dict.fromkeys(uids + linked + touched))
        return uids

    def stream(self, template_name: str, **params) -> Iterator[dict]:
        """A template's rows one at a time, for answers too big to hold (exports).

        >>> sum(1 for _ in lin.stream("nodes", uids=["host:nid1"]))  # doctest: +SKIP
        1
        """
        template = templates.get(template_name)
        return self.graph.stream(template.text, template.bind(params))

    def export(self, uid: str | list[str], output: str | os.PathLike, fmt: str = "prov-json",
               depth: int = 3, links: bool = False) -> str:
        """Write a run or a node's lineage (see :meth:`subgraph`) as W3C PROV-JSON, PROV-N
        or GraphML, or a run as OpenLineage run events (``openlineage``, JSON Lines);
        ``links`` takes in what ``lineage link`` connected to it in other systems; several
        uids give the union of their subgraphs (a diff's two sides);
        ``lineage load`` reads the PROV-JSON back. Returns the path. PROV and GraphML
        exports stream: memory holds the subgraph's uids, not its nodes and edges.

        >>> lin.export("pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556", "wf.json")  # doctest: +SKIP
        'wf.json'
        """
        from . import exchange  # imported when used: it keeps the CLI's start-up short

        if fmt != "openlineage" and fmt not in exchange.FORMATS:  # before any query
            raise ValueError(f"format {fmt!r}: expected one of "
                             f"{', '.join(exchange.FORMATS + ('openlineage',))}")
        starts = [uid] if isinstance(uid, str) else list(uid)
        uids: dict[str, None] = {}
        for one in starts:  # several: the union (a diff's two sides, say)
            uids.update(dict.fromkeys(self.subgraph_uids(one, depth, links=links)))
        every = list(uids)
        if fmt == "openlineage":
            from . import openlineage

            for one in starts:
                if model.RUN_LABEL not in self.query("node", uid=one)[0]["labels"]:
                    raise LineageError(f"{one} is not a run: OpenLineage events describe runs "
                                       "(a workflow, a script run, an execution, a program "
                                       "run)")
            return openlineage.write(self.query("nodes", uids=every),
                                     self.query("subgraph_edges", uids=every), starts, output)
        nodes = (row for start in range(0, len(every), EXPORT_CHUNK)
                 for row in self.stream("nodes", uids=every[start:start + EXPORT_CHUNK]))
        return exchange.write(nodes, self.stream("subgraph_edges", uids=every), output, fmt)

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


def connect(settings: Settings | None = None, start_managed: bool = True) -> Lineage:
    """Connect to ``NEO4J_URI`` if set, else to the managed local server (started if needed,
    unless ``start_managed`` is false: then a server that is not running is an error).

    ``settings`` default to the environment's, read once (:class:`lineage.settings.Settings`).
    """
    settings = settings or Settings.from_env()
    return Lineage(Graph.connect(ConnectionSettings.of(settings, start_managed)), settings)


def managed_server(action: str = "status") -> dict:
    """Start, stop or describe the managed local Neo4j (``action``: start, stop, status);
    returns its status (running, URIs, user, where the password file is).

    >>> managed_server("restart")
    Traceback (most recent call last):
    ...
    ValueError: action 'restart': expected start, stop or status
    """
    from . import server

    actions = {"start": server.start, "stop": server.stop, "status": server.status}
    if action not in actions:
        raise ValueError(f"action {action!r}: expected start, stop or status")
    return actions[action]()
