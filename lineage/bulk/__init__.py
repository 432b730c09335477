"""First loads into an empty database: ``neo4j-admin database import`` instead of Cypher.

``lineage load --bulk`` checks that the database is empty and begins stopping the managed
server (in a thread: the stop overlaps the parse, and no other client can write into the
database the import will replace), parses every input into its spool as a normal load does
(the same loop over the inputs, :func:`lineage.load.pipeline.each_input`; strict: a
malformed input is reported and left out), folds the records as the writer's MERGEs would
(:mod:`.fold`, in memory, then :mod:`.partitions` on disk past the budget: :mod:`.spill`),
writes them as neo4j-admin CSV (:mod:`.csv`), imports (:mod:`.admin`), starts the server
again (whatever happened before), creates the model's constraints and indexes and records
one ``:Load`` per input as a normal first load would, so ``unload``, ``stats`` and reloads
work the same afterwards. Only for the managed server, and only into an empty database.

>>> issubclass(BulkRefused, LineageError)
True
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Iterable

from .. import server
from ..errors import LineageError, ParseError
from ..load import claims, loads
from ..load.collector import fewer_collections
from ..load.inputs import Input, identity, is_url, sha256_of
from ..load.pipeline import (LoadResult, Progress, each_input, first_result, load_props,
                             parse_to_spool, raise_failures)
from ..load.spool import Spool
from ..load.writer import ensure_schema
from ..model.records import as_json
from ..redact import redact_url
from ..sources import registry
from ..sources.base import LoadReport
from ..sources.options import LoadOptions
from . import admin
from .csv import ARRAY_DELIMITER
from .spill import Fold, input_bytes

log = logging.getLogger("lineage.bulk")


#: the step of a bulk load before its import replaces the database
READING = "reading its inputs"


class BulkRefused(LineageError):
    """A bulk load refused: not the managed server, or a database that is not empty."""


# ------------------------------------------------------------------ the bulk load
def refuse_unless_empty_managed(lin) -> Path:
    """The managed server's state directory, or :class:`BulkRefused` saying why not."""
    settings = lin.graph.settings
    state = server.state_dir()
    info = server.status(state)
    if settings is None or not settings.managed or not info["running"] or info["uri"] != settings.uri:
        raise BulkRefused("--bulk imports with neo4j-admin into the managed local server only "
                          "(it is stopped and started again); this connection is to "
                          f"{redact_url(settings.uri) if settings else 'another server'}: "
                          "load without --bulk")
    if lin.graph.database not in (None, "neo4j"):
        raise BulkRefused(f"--bulk imports into the database 'neo4j' only, not "
                          f"{lin.graph.database!r}")
    records, _, _ = lin.graph.driver.execute_query(
        "RETURN EXISTS { MATCH (n) } AS any", database_=lin.graph.database)
    if records[0]["any"]:
        raise BulkRefused("--bulk is for a first load into an empty database, and this one "
                          "holds a graph already: load without --bulk, or empty it first "
                          "(`lineage reset`)")
    return state


def bulk_load(lin, paths: Iterable[str | os.PathLike], source: str = "auto",
              progress: Progress | None = None, options: LoadOptions | None = None,
              fail_fast: bool = False) -> list[LoadResult]:
    """Load ``paths`` into the empty database of the managed server with neo4j-admin; one
    result per input, as :func:`lineage.load.fleet.load` returns them."""
    options, paths = registry.load_options(options), list(paths)  # paths read twice: sized, then loaded
    try:
        with server.bulk_lock(server.ServerPaths.under(server.state_dir())):
            return _bulk_load(lin, paths, source, progress, options, fail_fast)
    except server.BulkBusy as exc:
        raise BulkRefused(str(exc)) from None


def _bulk_load(lin, paths: list, source: str, progress: Progress | None,
               options: LoadOptions, fail_fast: bool) -> list[LoadResult]:
    """:func:`bulk_load` holding the lock of bulk loads: the recorded step of an
    interrupted one is reported (and refused) before anything is stopped."""
    interrupted = server.interrupted_bulk(server.ServerPaths.under(server.state_dir()))
    if interrupted:
        raise BulkRefused(interrupted)
    state = refuse_unless_empty_managed(lin)
    paths_of = server.ServerPaths.under(state)
    remove_leftovers(paths_of)
    server.record_bulk_step(paths_of, READING)
    # The server is stopped while the inputs are parsed (its stop takes seconds that the
    # import would otherwise wait for), which also keeps any other client from writing into
    # the database the import is about to replace; it is started again whatever happens.
    stopping, graph_before = server.BackgroundStop(state), lin.graph
    failing = False
    try:
        with fewer_collections():  # the fold keeps every element in dicts: see collector
            results = _parse_and_import(lin, state, stopping, paths, source, progress,
                                        options, fail_fast)
        server.clear_bulk_state(paths_of)
        return results
    except BaseException as exc:
        failing = True
        # a malformed input is raised once every :Load was recorded, or before the import
        # touched the database; so is any failure while the inputs were read
        if isinstance(exc, ParseError) or server.bulk_step(paths_of) == READING:
            server.clear_bulk_state(paths_of)
        raise
    finally:
        if not stopping.restarted:
            stopping.restart()
        # the server answered Bolt before its web server was up: the schema and the loads'
        # records were written meanwhile (0.5-0.9 s); the load ends once it is all up
        try:
            stopping.await_started()
        except server.ServerError as exc:
            if not failing:
                raise
            log.warning("%s", exc)  # the error already on its way stays the news
        if lin.graph is graph_before:
            reconnect(lin, state)


def remove_leftovers(paths: server.ServerPaths) -> None:
    """The CSV and partition directories a bulk load killed before its cleanup left behind
    (up to the size of its input), unless a live bulk load holds this server."""
    if server.bulk_holder(paths) is not None or not paths.root.is_dir():
        return
    for leftover in paths.root.glob("bulk-*"):
        if leftover.is_dir() and not leftover.is_symlink():
            log.info("removing %s, left by a bulk load that did not end", leftover)
            shutil.rmtree(leftover, ignore_errors=True)


def _parse_and_import(lin, state: Path, stopping: server.BackgroundStop, paths, source: str,
                      progress: Progress | None, options: LoadOptions,
                      fail_fast: bool) -> list[LoadResult]:
    fold = Fold(options.bulk_fold_elements, server.ServerPaths.under(state).root,
                input_bytes(paths))
    loaded: list[tuple[LoadResult, str, float]] = []  # result, load id, started

    def one(item: Input) -> tuple[LoadResult, dict]:
        """Read and fold one input; "pending": its relationships are counted when the
        partitions are folded."""
        started, t0 = time.time(), time.perf_counter()
        fmt = item.format
        result = first_result(item)
        if item.problem or fmt is None:
            return result, {"pending": False}
        lid = loads.load_id(fmt.name, identity(item))
        if not is_url(item.path):
            result.sha256 = sha256_of(item.path)
        report = LoadReport(item.path, fmt.name, lenient=options.lenient, options=options)
        tag = loads.tag_of(lid, 1)
        # the first input with content folds while it is read (the graph is empty, so
        # there is nothing it could conflict with; a failure just empties it)
        folding = fold.first_store(tag, f"{lid}:", report)
        try:
            spool = parse_to_spool(item, report, Spool(store=folding) if folding else None)
        except BaseException as exc:
            if folding is not None:  # nothing of a failed input is imported
                fold.forget()
            if not isinstance(exc, ParseError):
                raise
            result.status, result.error = "failed", str(exc)
            result.report, result.seconds = report.summary(), time.perf_counter() - t0
            loaded.append((result, lid, started))
            exc.result = result
            raise
        pending = False
        try:
            result.nodes, result.edges = spool.node_counts, spool.edge_counts
            if not result.nodes and not result.edges:
                result.status = "empty"
            else:
                pending = fold.add(spool, folding, tag, f"{lid}:", report, result)
                result.status = "loaded"
        finally:
            spool.close()
        fold.read(item.path)
        result.report, result.seconds = report.summary(), time.perf_counter() - t0
        loaded.append((result, lid, started))
        return result, {"pending": pending}

    failures: list[ParseError] = []
    try:
        try:
            results = list(each_input(paths, source, one, progress, fail_fast, failures))
        except ParseError:
            if fail_fast:  # what was read before it is imported all the same
                _finish(lin, state, fold, loaded, options, stopping, progress)
            raise
        _finish(lin, state, fold, loaded, options, stopping, progress)
    finally:
        fold.close()
    raise_failures(failures, results)
    return results


def _finish(lin, state: Path, fold: Fold, loaded: list, options: LoadOptions,
            stopping: server.BackgroundStop, progress: Progress | None = None) -> None:
    """Import the folded graph (when it holds anything) into the stopped server and start it
    again, then the schema and the loads (each step announced as a "step" event)."""
    def step(message: str) -> None:
        if progress:
            progress("step", {"message": f"bulk load: {message}"})

    if not fold.empty():
        paths = server.ServerPaths.under(state)
        work = Path(tempfile.mkdtemp(prefix="bulk-", dir=paths.root))
        try:
            step("folding on disk and writing neo4j-admin CSV" if fold.partitions is not None
                 else f"writing {len(fold.graph.nodes) + len(fold.graph.edges):,} graph "
                      "elements as neo4j-admin CSV")
            files = fold.write_csv(work)
            fold.close()  # the partitions' files, before the import needs the space
            for result in fold.folded() if progress else ():
                progress("folded", result.as_dict())
            every = (*files.nodes, *files.relationships)
            size = sum(f.stat().st_size for f in every) / 2**20
            step(f"importing {len(every)} CSV files ({size:,.0f} MiB) "
                 "with neo4j-admin, then starting Neo4j again")
            server.record_bulk_step(paths, "importing with neo4j-admin")
            admin.import_full(state, files.nodes, files.relationships, ARRAY_DELIMITER,
                               report=work / "import.report", id_type=files.id_type,
                               multiline=files.multiline,
                               stopping=stopping)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    else:
        stopping.restart()
    reconnect(lin, state)
    driver, database = lin.graph.driver, lin.graph.database
    server.record_bulk_step(server.ServerPaths.under(state),
                            "creating constraints and recording its loads")
    step("creating the model's constraints and indexes")
    ensure_schema(driver, database)
    empty_lists = fold.empty_lists()
    for i in range(0, len(empty_lists), 1000):
        driver.execute_query(_EMPTY_LISTS, rows=empty_lists[i:i + 1000],
                             database_=database)
    rows = fold.claim_rows({loads.tag_of(lid, 1): started for _, lid, started in loaded})
    for i in range(0, len(rows), 1000):
        driver.execute_query(claims.CREATE_CLAIMS, rows=rows[i:i + 1000], database_=database)
    tagged = fold.tagged()
    for result, lid, started in loaded:
        props = load_props(result, started)
        if result.status == "loaded":
            tag = loads.tag_of(lid, 1)
            nodes, edges = tagged.get(tag, (0, 0))
            result.changes = {"nodes": nodes, "edges": edges, "nodes_removed": 0,
                              "edges_removed": 0}
            props.update(sha256=result.sha256, version=1, options=options.as_json(), tag=tag,
                         changes=as_json(result.changes), bulk=True)
        loads.record(driver, database, lid, props)


_EMPTY_LISTS = """
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE row.uid IS NOT NULL
  MATCH (n:Lineage {uid: row.uid}) SET n += row.props
}
CALL (row) {
  WITH row WHERE row.uid IS NULL
  MATCH (:Lineage {uid: row.start})-[r]->(:Lineage {uid: row.end})
  WHERE type(r) = row.type AND (row.key IS NULL OR r.key = row.key)
  SET r += row.props
}
"""


def reconnect(lin, state: Path) -> None:
    """After the restart: a new driver (the old one's bookmarks name transactions of the
    database the import replaced, which the new one never reaches), on the server's port."""
    from ..server.connection import Graph, Settings

    info = server.status(state)
    old = lin.graph.settings
    lin.graph.driver.close()
    lin.graph = Graph.connect(Settings(info["uri"], old.user, old.password, old.database, True))
