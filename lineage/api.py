"""The Python API: what the CLI and the reports use, for scripts and notebooks.

>>> import lineage
>>> g = lineage.connect()                                   # doctest: +SKIP
>>> g.load(["samples/pegasus/blackdiamond-4.0.bp"])         # doctest: +SKIP
>>> g.query("ancestors", uid="pegasus:job:ea17...:analyze_j4").to_pandas()  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import TYPE_CHECKING, Iterable, Iterator


from .query import analysis, templates
from . import model
from .load import claims, loads, status_labels
from .errors import LineageError, ParseError, TemplateError
from .server.connection import Graph, Page, page_of
from .server.connection import Settings as ConnectionSettings
from .config.settings import LoadOptions, Settings
from .private_file import write_private
from .redact import redact_url
from .humanize import is_epoch_column

if TYPE_CHECKING:  # the pipeline and the writer are loaded by the calls that load or reset,
    # so that a query from the command line does not import them (docs/performance.md, "Command-line start-up")
    from .load.pipeline import LoadResult, Progress


#: Query names answered in Python over a template's rows (see :mod:`lineage.query.analysis`).
COMPUTED = tuple(analysis.COMPUTED)
log = logging.getLogger("lineage.api")
EXPORT_CHUNK = 10_000  # node uids per query while an export streams
HTML_ROWS = 200  # rows a notebook shows of a query
#: the columns of :meth:`Lineage.runs`
RUN_COLUMNS = ["uid", "kind", "source", "name", "status", "failed", "start_time", "end_time",
               "duration"]


class Rows(list):
    """Query results: a list of dicts, convertible to pandas or networkx.

    >>> Rows([{"uid": "a", "depth": 1}]).columns
    ['uid', 'depth']
    """

    def __init__(self, rows: Iterable[dict] = (), columns: list[str] | None = None,
                 lineage: "Lineage | None" = None, params: dict | None = None):
        super().__init__(rows)
        self.columns = columns if columns is not None else (list(self[0]) if self else [])
        #: the graph and parameters the rows came from: ``to_networkx`` fetches what the rows
        #: do not hold (the relationships among them, the start node) there
        self.lineage = lineage
        self.params = params or {}

    def to_pandas(self, times: bool = True):
        """A pandas DataFrame (needs ``pip install lineage-explorer[pandas]``); ``times``:
        columns of epoch times (``start_time``, ``end_time``) as UTC datetimes."""
        import pandas as pd

        frame = pd.DataFrame(list(self), columns=self.columns)
        if times:
            for column in self.columns:
                if is_epoch_column(column, frame[column].tolist()):
                    frame[column] = pd.to_datetime(frame[column], unit="s", utc=True)
        return frame

    def _repr_html_(self) -> str:
        """A notebook's display: an escaped table, times as dates, durations with units."""
        from .answers.display import html_table

        more = len(self) - HTML_ROWS
        return (html_table(self[:HTML_ROWS], self.columns)
                + (f"<p>... and {more} more rows</p>" if more > 0 else ""))

    def to_networkx(self, source: str = "uid", target: str | None = None):
        """The rows as a networkx graph.

        - relationship rows (columns ``source``, ``type``, ``target``: ``edges_among``,
          ``subgraph_edges``): a ``MultiDiGraph``, one edge per row with its ``type`` and
          properties (key: the type, with the relationship's ``key`` property when it has one);
        - node rows (a ``uid`` column: ``ancestors``, ``nodes``, ...) from a query: a
          ``MultiDiGraph`` of those nodes with their labels and properties (the row's columns,
          such as ``depth``, win), plus the node the query started from (its ``uid``
          parameter), and the typed relationships among them, fetched from the graph;
        - with ``target`` (or rows built by hand): a ``DiGraph``, one node per row keyed by
          ``source`` with the other columns as attributes, and an edge from each row's
          ``source`` to its ``target`` (a list column gives one edge per element).

        >>> rows = Rows([{"source": "a", "type": "USED", "target": "b", "properties": {}}])
        >>> list(rows.to_networkx().edges(data="type"))
        [('a', 'b', 'USED')]
        """
        import networkx as nx

        columns = set(self.columns) | (set(self[0]) if self else set())
        if target is None and {"source", "type", "target"} <= columns:
            return self._edges_graph()
        if target is None and self.lineage is not None and source in columns:
            return self._nodes_graph(source)
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

    def _edges_graph(self):
        graph = typed_graph([], self)
        if self.lineage is not None and graph:
            _add_node_attributes(graph, self.lineage, list(graph))
        return graph

    def _nodes_graph(self, source: str):
        uids = list(dict.fromkeys(row[source] for row in self if row.get(source) is not None))
        start = self.params.get("uid")
        extra: dict = {}
        if isinstance(start, str) and start not in uids:  # ancestry rows leave out the start
            uids.insert(0, start)
            extra[start] = {"depth": 0} if "depth" in self.columns else {}
        edges = self.lineage.query("subgraph_edges", uids=uids) if uids else []
        graph = typed_graph([], edges)
        graph.add_nodes_from(uids)
        _add_node_attributes(graph, self.lineage, uids)
        for row in self:
            if row.get(source) is not None:
                graph.nodes[row[source]].update({k: v for k, v in row.items() if k != source})
        for uid, attrs in extra.items():
            graph.nodes[uid].update(attrs)
        return graph


def typed_graph(nodes: Iterable[dict], edges: Iterable[dict]):
    """A networkx ``MultiDiGraph`` from ``nodes`` rows (``uid``, ``kind``, ``properties``,
    optionally ``labels``) and relationship rows (``source``, ``type``, ``target``,
    optionally ``properties``): node attributes are the properties with ``kind`` (and
    ``labels``); each edge has its ``type`` and properties, keyed by its type (and its
    ``key`` property, which tells apart two relationships of one type between one pair).

    >>> g = typed_graph([{"uid": "a", "kind": "Job", "properties": {"uid": "a", "x": 1}}],
    ...                 [{"source": "a", "type": "USED", "target": "b"}])
    >>> dict(g.nodes["a"]), list(g.edges(keys=True, data="type"))
    ({'uid': 'a', 'x': 1, 'kind': 'Job'}, [('a', 'b', 'USED', 'USED')])
    """
    import networkx as nx

    graph = nx.MultiDiGraph()
    for row in nodes:
        graph.add_node(row["uid"], **_node_attrs(row))
    for row in edges:
        props = row.get("properties") or {}
        key = row["type"] if props.get("key") is None else f"{row['type']}:{props['key']}"
        # (a property named ``key`` cannot go through add_edge's keyword arguments)
        graph.add_edges_from([(row["source"], row["target"], key,
                               {**props, "type": row["type"]})])
    return graph


def _node_attrs(row: dict) -> dict:
    attrs = dict(row.get("properties") or {})
    for column in ("kind", "labels"):
        if row.get(column) is not None:
            attrs[column] = row[column]
    return attrs


#: every node's labels and properties, for graphs (the values are parameters)
_NODE_ATTRIBUTES = ("MATCH (n:Lineage) WHERE n.uid IN $uids "
                    "RETURN n.uid AS uid, n.kind AS kind, labels(n) AS labels, "
                    "properties(n) AS properties")


def _add_node_attributes(graph, lin: "Lineage", uids: list[str]) -> None:
    for row in lin.graph.run(_NODE_ATTRIBUTES, {"uids": uids}):
        graph.nodes[row["uid"]].update(_node_attrs(row))


def _query_name(name_or_cypher: str) -> str:
    """A template's name, or a Cypher string's first line (for log lines).

    >>> _query_name("MATCH (n)\\nRETURN n")
    'MATCH (n)'
    """
    return name_or_cypher.strip().splitlines()[0][:120] if name_or_cypher.strip() else "''"


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
        bulk: bool = False,
    ) -> list[LoadResult]:
        """Load files, directories or database URLs; returns one result per input.

        ``lenient`` skips and counts malformed records; ``xalt_env`` (none, filtered, all)
        is what is kept of XALT run environments; both default to the settings'. A malformed
        input does not stop the others: the error is raised once all are done (its
        ``results`` hold every input's result), or at once with ``fail_fast``. ``bulk``
        imports with neo4j-admin instead (a first load into the empty database of the
        managed server only; see :mod:`lineage.bulk`).
        """
        paths, options = self._load_options(paths, lenient, xalt_env, options)
        failures: list[ParseError] = []
        try:  # (the bulk path restarts the server and replaces self.graph)
            if bulk:
                from .bulk import bulk_load

                results = bulk_load(self, paths, source=source, progress=progress,
                                    options=options, fail_fast=fail_fast)
                status_labels.refresh_quietly(self.graph.driver, self.graph.database)
                return results
            results = list(self._each(paths, source, progress, options, fail_fast, failures))
        except BaseException:
            status_labels.refresh_quietly(self.graph.driver, self.graph.database)
            raise
        status_labels.refresh_quietly(self.graph.driver, self.graph.database)
        from .load.pipeline import raise_failures

        raise_failures(failures, results)
        return results

    def load_each(
        self,
        paths: Iterable[str | os.PathLike] | str | os.PathLike,
        source: str = "auto",
        lenient: bool = False,
        progress: Progress | None = None,
        xalt_env: str | None = None,
        options: LoadOptions | None = None,
        fail_fast: bool = False,
    ) -> Iterator[LoadResult]:
        """Load as :meth:`load` does, yielding each input's result once it is written and
        keeping none: a fleet of 10^5 files loads in flat memory. Malformed inputs are
        results with status ``failed``; once all are done their error is raised as
        :meth:`load` raises it (its ``results`` then empty).

        >>> for result in lin.load_each(["runs/"]):  # doctest: +SKIP
        ...     if result.status == "failed": print(result.error)
        """
        paths, options = self._load_options(paths, lenient, xalt_env, options)
        failures: list[ParseError] = []
        try:
            yield from self._each(paths, source, progress, options, fail_fast, failures)
        finally:
            status_labels.refresh_quietly(self.graph.driver, self.graph.database)
        from .load.pipeline import raise_failures

        raise_failures(failures, [])

    def _load_options(self, paths, lenient: bool, xalt_env: str | None,
                      options: LoadOptions | None) -> tuple[list, LoadOptions]:
        """The inputs as a list and the options of a load (the settings' where not given),
        after checking there is room for its spool."""
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        options = (options or self.settings.load).with_(
            lenient=True if lenient else None, xalt_env=xalt_env)
        self._check_free_space(options)
        return list(paths), options

    def _each(self, paths, source: str, progress: Progress | None, options: LoadOptions,
              fail_fast: bool, failures: list[ParseError]) -> Iterator[LoadResult]:
        """The results of :func:`lineage.load.fleet.load_many`, each logged."""
        from .load.fleet import load_many
        from .load.writer import Writer

        writer = Writer(self.graph.driver, self.graph.database)
        log.info("loading %d input%s (source %s, options %s)", len(paths),
                 "" if len(paths) == 1 else "s", source, options.as_json())
        results = load_many(writer, paths, source, False, progress, options, fail_fast, failures)
        with contextlib.closing(results):  # a loop left early: what was read is written now
            for r in results:
                log.info("%s %s [%s]: %d node / %d edge records in %.3f s", r.status,
                         redact_url(str(r.path)), r.format, sum(r.nodes.values()),
                         sum(r.edges.values()), r.seconds)
                yield r

    def unload(self, load_or_path: str | os.PathLike) -> list[dict]:
        """Remove what only one load stated, by load uid or id or by input path (every
        format of that path, resolved as the load stored it; a bare name that ends the paths
        of two inputs is refused, naming them); facts other loads also stated stay, and a
        value of a shared node that only this load stated goes (:mod:`lineage.load.claims`).
        Returns one summary per load (its id, path, and how many nodes and relationships
        were removed).

        >>> lineage.connect().unload("campaign/pegasus/run0001/diamond-0.bp")  # doctest: +SKIP
        [{'uid': 'load:...', 'nodes_removed': 79, 'edges_removed': 187, ...}]
        """
        out = loads.unload(self.graph.driver, self.graph.database, str(load_or_path))
        status_labels.refresh_quietly(self.graph.driver, self.graph.database)
        return out

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

        result = linking.link(self.graph, rules,
                              linking.DEFAULT_SKEW if skew is None else skew, dry_run)
        log.info("link%s: %s", " (dry run)" if dry_run else "",
                 ", ".join(f"{rule} {c.get('links', 0)} links" for rule, c in result.rules.items()))
        return result

    # ----------------------------------------------------------- querying
    def query(self, name_or_cypher: str, params: dict | None = None, **kwargs) -> Rows:
        """Run a template by name (``"ancestors"``) or a Cypher string, with parameters."""
        params = {**(params or {}), **kwargs}
        started = time.perf_counter()
        rows = self._query(name_or_cypher, params)
        rows.lineage, rows.params = self, params
        log.debug("query %s: %d rows in %.3f s", _query_name(name_or_cypher), len(rows),
                 time.perf_counter() - started)
        log.debug("query parameters: %s", params)
        return rows

    def query_page(self, name_or_cypher: str, params: dict | None = None, offset: int = 0,
                   limit: int = 100, count_by: Iterable[str] = ("kind", "depth", "status")
                   ) -> Page:
        """Rows ``offset`` to ``offset + limit`` of a query, the total, and how many rows hold
        each value of the ``count_by`` columns it returns: a large answer summarised without
        shipping every row (a template's page is cut in the server).

        >>> page = lin.query_page("ancestors", {"uid": uid}, limit=20)  # doctest: +SKIP
        >>> page.total, page.counts["kind"], page.more                  # doctest: +SKIP
        (72653, [('ProvEntity', 72653)], 72633)
        """
        params = dict(params or {})
        if offset < 0 or limit < 0:
            raise TemplateError(f"offset and limit must not be negative (got {offset}, {limit})")
        wanted = list(count_by)
        if templates.is_template_name(name_or_cypher) and name_or_cypher not in analysis.COMPUTED:
            template = templates.get(name_or_cypher)
            started = time.perf_counter()
            page = self.graph.run_page(template.text, template.bind(params), template.returns,
                                       offset, limit, wanted)
            log.debug("query %s: a page of %d of %d rows in %.3f s", name_or_cypher,
                      len(page.rows), page.total, time.perf_counter() - started)
            return page
        rows = self.query(name_or_cypher, params)
        return page_of(rows, offset, limit, [c for c in wanted if c in rows.columns])

    def _query(self, name_or_cypher: str, params: dict) -> Rows:
        if name_or_cypher in analysis.COMPUTED:
            return self._computed(name_or_cypher, params)
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

    def stats(self, every_load: bool = True) -> dict:
        """Node counts per label, relationship counts per type, the loads counted by source
        and status (``load_summary``, :func:`lineage.load.loads.summary`) and, with
        ``every_load``, every load (``loads``: one row per input, oldest first)."""
        labels = self.graph.run(
            "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS count ORDER BY label"
        )
        rels = self.graph.run(
            "MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS count ORDER BY type"
        )
        listed = self.graph.run(
            "MATCH (l:Load) RETURN l.id AS id, l.path AS path, l.format AS format, "
            "l.status AS status, l.last_attempt AS last_attempt, l.version AS version, "
            "l.sha256 AS sha256, l.node_records AS node_records, l.edge_records AS edge_records, "
            "l.unresolved_edges AS unresolved_edges, l.finished_at AS finished_at, "
            "l.times_loaded AS times_loaded ORDER BY l.finished_at"
        ) if every_load else None

        return {
            "nodes": {r["label"]: r["count"] for r in labels},
            "relationships": {r["type"]: r["count"] for r in rels},
            "load_summary": loads.summary(self.graph.driver, self.graph.database),
            **({"loads": listed} if every_load else {}),
            # elements more than one load states, and those the loads state otherwise
            "claims": claims.count(self.graph.driver, self.graph.database),
        }

    def reset(self, force: bool = False) -> int:
        """Delete every node and relationship (the schema stays); returns nodes deleted.

        Refuses (:class:`~lineage.load.loads.BusyError`, naming the input and the writing
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
            # CALL ... IN TRANSACTIONS needs an auto-commit transaction (session.run).
            # Relationships first, in batches of their own: DETACH DELETE of 10,000 nodes
            # deletes every relationship of a hub (a rank, a host) in that one transaction,
            # past the server's transaction memory (tests/test_reset_hub.py).
            for statement in (
                "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS",
                "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS",
            ):
                session.run(statement).consume()
        from .load.writer import ensure_schema

        ensure_schema(self.graph.driver, self.graph.database)
        settings = self.graph.settings
        if settings is not None and settings.managed:  # what an interrupted bulk load left
            from . import server as managed

            managed.clear_bulk_state(managed.ServerPaths.under(managed.state_dir()))
        return before

    def resolve(self, text: str) -> str:
        """The uid ``text`` names: a uid, a unique start of one, a run's short uuid (8
        characters) or a run's name; an error listing the candidates when several match
        (see :mod:`lineage.query.resolve`).

        >>> lin.resolve("9a81e85f")                               # doctest: +SKIP
        'pegasus:workflow:9a81e85f-45b4-587b-8e78-45b824ad0955'
        """
        from .query.resolve import resolve

        return resolve(self, text)

    def runs(self, kind: str | None = None) -> Rows:
        """Every run, newest first: its uid, kind, source, name, status, start, end and
        duration (seconds), and whether it failed.

        >>> lin.runs()[0]["failed"]                               # doctest: +SKIP
        True
        """
        from .model import status

        rows = []
        for r in self.query("runs", kind=kind):
            start, end = r.get("start_time"), r.get("end_time")
            rows.append({**r, "source": r["uid"].split(":", 1)[0],
                         "duration": end - start if start is not None and end is not None
                         else None, "failed": status.is_failed(r.get("status"))})
        rows.sort(key=lambda r: r["start_time"] is None)  # a run of unknown start last
        return Rows(rows, RUN_COLUMNS, self, {"kind": kind})

    def why(self, uid: str) -> dict:
        """Why a Pegasus workflow or job, a Swift script run or an XALT execution failed:
        ``{uid, kind, status, problems}``, each problem with its status, exit code or signal,
        host and the error lines of its output first (see :mod:`lineage.answers.why`).

        >>> lin.why("pegasus:workflow:f84f05fc-a8d0-42b5-bac5-52d6f41a77e3")["problems"][0]["causes"]  # doctest: +SKIP
        ['Unable to instantiate Transformation Catalog ...']
        """
        from .answers.why import why

        return why(self, self.resolve(uid))

    def diff(self, first: str, second: str) -> dict:
        """What differs between two runs of one kind (Pegasus workflows, Swift script runs,
        XALT executions, Chimbuko program runs; linked wholes across systems): ``{kind, first, second, differences}``, each difference a
        row ``{aspect, name, first, second}``, most telling first (see :mod:`lineage.answers.diff`);
        ``Rows(result["differences"]).to_pandas()`` gives a DataFrame."""
        from .answers.diff import diff

        return diff(self, self.resolve(first), self.resolve(second))

    def diff_html(self, result: dict, output: str | os.PathLike) -> str:
        """Write a :meth:`diff` result as a self-contained side-by-side HTML page (every
        value escaped, no script, no network request; file mode 0600 as reports)."""
        from .report.render import render_diff

        runs = {r["uid"]: r for r in self.query("nodes", uids=[result["first"],
                                                              result["second"]])}
        page = render_diff(result, runs[result["first"]], runs[result["second"]])
        return write_private(output, page)

    # ----------------------------------------------------------- exchange
    def subgraph(self, uid: str, depth: int = 3, links: bool = False):
        """A run's parts (``PART_OF``, up to ``depth`` hops) and the nodes they touch, or a
        node's ancestors and descendants (up to ``depth``), with every relationship among
        them, as a networkx ``MultiDiGraph``: nodes keyed by uid with their ``labels``,
        ``kind`` and properties; edges with their ``type`` and properties. ``links`` adds
        what ``lineage link`` connected to those nodes in other systems (XALT runs, Chimbuko
        runs) and the nodes they touch (executables, libraries, hosts).

        >>> g = lin.subgraph("pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556")  # doctest: +SKIP
        >>> sorted({t for _, _, t in g.edges(data="type")})[:2]                       # doctest: +SKIP
        ['INSTANCE_OF', 'PART_OF']
        """
        uids = self.subgraph_uids(uid, depth, links)
        graph = typed_graph([], self.query("subgraph_edges", uids=uids))
        graph.add_nodes_from(uids)
        _add_node_attributes(graph, self, uids)
        graph.graph["start"] = uid
        return graph

    def subgraph_rows(self, uid: str, depth: int = 3, links: bool = False) -> tuple[Rows, Rows]:
        """:meth:`subgraph` as rows: (``nodes`` rows, ``subgraph_edges`` rows)."""
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
               depth: int = 3, links: bool = False, license: str | None = None) -> str:
        """Write a run or a node's lineage (see :meth:`subgraph`) as W3C PROV-JSON, PROV-N
        or GraphML, or a run as OpenLineage run events (``openlineage``, JSON Lines), or one
        run as a Workflow Run RO-Crate (``ro-crate``: a directory, or ``output`` ending in
        ``.zip``; ``license`` the crate's license, see :mod:`lineage.answers.runcrate`);
        ``links`` takes in what ``lineage link`` connected to it in other systems; several
        uids give the union of their subgraphs (a diff's two sides);
        ``lineage load`` reads the PROV-JSON back. Returns the path. PROV and GraphML
        exports stream: memory holds the subgraph's uids, not its nodes and edges.

        >>> lin.export("pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556", "wf.json")  # doctest: +SKIP
        'wf.json'
        """
        from .answers import exchange  # imported when used: it keeps the CLI's start-up short

        if fmt not in ("openlineage", "ro-crate") and fmt not in exchange.FORMATS:
            raise ValueError(f"format {fmt!r}: expected one of "  # before any query
                             f"{', '.join(exchange.FORMATS + ('openlineage', 'ro-crate'))}")
        starts = [self.resolve(one) for one in ([uid] if isinstance(uid, str) else uid)]
        if fmt == "ro-crate":
            from .answers import runcrate

            if len(starts) != 1:
                raise LineageError("a crate describes one run: give one uid")
            return runcrate.write(self, starts[0], output, links=links, depth=depth,
                                  license=license)
        uids: dict[str, None] = {}
        for one in starts:  # several: the union (a diff's two sides, say)
            uids.update(dict.fromkeys(self.subgraph_uids(one, depth, links=links)))
        every = list(uids)
        if fmt == "openlineage":
            from .answers import openlineage

            for one in starts:
                if model.RUN_LABEL not in self.query("node", uid=one)[0]["labels"]:
                    raise LineageError(f"{one} is not a run: OpenLineage events describe runs "
                                       "(a workflow, a script run, an execution, a program "
                                       "run)")
            return openlineage.write(self.query("nodes", uids=every),
                                     self.query("subgraph_edges", uids=every), starts, output)
        nodes = (row for start in range(0, len(every), EXPORT_CHUNK)
                 for row in self.stream("nodes", uids=every[start:start + EXPORT_CHUNK]))
        return exchange.write(nodes, self.stream("subgraph_edges", uids=every), output, fmt,
                              roots=starts)

    # ----------------------------------------------------------- reports
    def _check_free_space(self, options: LoadOptions) -> None:
        """Refuse a load before it writes when the spool's disk, or the managed server's,
        has less room than ``options.min_free_bytes`` (:mod:`lineage.load.disk`)."""
        from . import server as managed
        from .load import disk

        places = [disk.spool_place()]
        settings = self.graph.settings
        if settings is not None and settings.managed:
            places.append(("the managed Neo4j's database", managed.state_dir()))
        disk.check_free_space(places, options.min_free_bytes)

    def report(self, uid: str, output: str | os.PathLike, **options) -> str:
        """Write the HTML lineage report of a run or node to ``output``; returns its path."""
        from .report import write_report

        uid = self.resolve(uid)
        log.info("report of %s to %s", uid, output)
        return write_report(self, uid, output, **options)

    def view(self, uid: str, **options):
        """The lineage report of a run or node as an object that displays inline in Jupyter
        (``depth=``, ``max_nodes=``; ``.save(path)`` writes the page)."""
        from .report import view_report

        uid = self.resolve(uid)
        return view_report(self, uid, **options)

    def close(self) -> None:
        self.graph.close()

    def __enter__(self) -> "Lineage":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def connect(settings: Settings | None = None, start_managed: bool = True,
            profile: str | None = None) -> Lineage:
    """Connect to ``NEO4J_URI`` if set, else to the profile file's ``[connection]``, else to
    the managed local server (started if needed, unless ``start_managed`` is false: then a
    server that is not running is an error).

    ``settings`` default to the profile file's and the environment's, read once
    (:class:`lineage.config.settings.Settings`); ``profile`` picks a named profile of the file.

    >>> lin = lineage.connect(profile="cluster")             # doctest: +SKIP
    """
    settings = settings or Settings.from_env(profile=profile)
    return Lineage(Graph.connect(ConnectionSettings.of(settings, start_managed)), settings)


def connect_demo(settings: Settings | None = None) -> Lineage:
    """Connect to the demo's own managed server (started if needed; state in
    :func:`lineage.server.demo_state_dir`), never to the user's graph: ``lineage demo``
    loads the samples there. Its defaults (report limits, load options) are ``settings``'.

    >>> with lineage.api.connect_demo() as demo:             # doctest: +SKIP
    ...     len(demo.query("runs"))
    9
    """
    from . import server

    state = server.demo_state_dir()
    info = server.start(state)
    log.info("the demo's own Neo4j: %s (state %s)", info["uri"], state)
    return Lineage(Graph.connect(ConnectionSettings(info["uri"], info["user"],
                                                    server.password(state), None, True)),
                   settings or Settings.from_env())


def managed_server(action: str = "status", demo: bool = False) -> dict:
    """Start, stop or describe the managed local Neo4j (``action``: start, stop, status);
    returns its status (running, URIs, user, where the password file is). ``demo``: the
    demo's own server instead (see :func:`connect_demo`).

    >>> managed_server("restart")
    Traceback (most recent call last):
    ...
    ValueError: action 'restart': expected start, stop or status
    """
    from . import server

    return server.control(action, demo)
