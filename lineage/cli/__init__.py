"""The ``lineage`` command: a thin layer over :mod:`lineage.api`.

Exit codes (the same for every command):

- 0 success;
- 1 error: no such node, a query Neo4j rejects, another Neo4j error;
- 2 usage error: unknown option or template, a missing or unknown template parameter,
  `reset` without --yes;
- 3 malformed input: a file a loader cannot parse (nothing of that input is in the graph;
  --lenient skips and counts bad records instead, but not a value of the wrong type in a
  database, which stops it either way: the message says which);
- 4 Neo4j unavailable: the managed server could not be installed or started, or the server at
  NEO4J_URI does not answer;
- 5 inputs not read: `load` found inputs it could not read (a file or directory it may not
  read, a name that is not UTF-8, a FIFO, a device, a dangling link); every other input was
  loaded and the summary counts and names them. A file that cannot be written or read where
  a command was told to (``report -o``) is error 1, naming it.

Tabular output takes ``--format table|json|csv`` (json: an array of objects; csv: a header row).
A progress bar (tqdm: files, records, rate) shows on stderr for loads when stderr is a terminal
and CI is not set.

>>> from click.testing import CliRunner
>>> CliRunner().invoke(main, ["cypher", "list"]).exit_code
0
"""

from __future__ import annotations

import csv
import functools
import io
import shutil
import json
import logging
import re
import sys
from pathlib import Path

import click

from .. import server
from ..config.profile import ConfigError
from ..config.settings import Settings
from ..humanize import human
from ..load.tally import Tally
from ..redact import redact_url
from ..linking.rules import RULES as LINK_RULES
from ..query import templates
from ..sources import SOURCES
from ..sources import options as load_options
from ..sources.registry import export_formats
from .lean_import import import_driver_without_dataframes
from ..safe_text import json_text, safe_text
from ..errors import (InputsFailed, LineageError, ParseError, ServerError, TemplateError,
                     lenient_helps)

EXIT_ERROR, EXIT_USAGE, EXIT_INPUT, EXIT_SERVER, EXIT_UNREAD = 1, 2, 3, 4, 5
log = logging.getLogger("lineage.cli")


# ------------------------------------------------------------------ output
def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return safe_text(json.dumps(value, default=str, ensure_ascii=False))
    return safe_text(str(value))


def emit(rows: list[dict], fmt: str, columns: list[str] | None = None) -> None:
    """Print rows as an aligned table for people (see :func:`human`), JSON (an array of
    objects) or CSV (both with the stored values)."""
    columns = columns or (list(rows[0]) if rows else [])
    if fmt == "json":
        click.echo(json_text(rows, default=str, indent=2))
        return
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in columns])
        click.echo(buf.getvalue(), nl=False)
        return
    if not rows:
        click.echo("(no rows)")
        return
    width = shutil.get_terminal_size((120, 24)).columns  # $COLUMNS, the terminal, else 120
    cells = [[_cell(human(c, r.get(c))).replace("\n", "\\n") for c in columns] for r in rows]
    natural = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    # columns of uids keep their width (a uid is read whole); the others give way first
    uids = [i for i, c in enumerate(columns)
            if all(_UID.match(row[i]) for row in cells if row[i]) and any(row[i] for row in cells)]
    rest = [i for i in range(len(columns)) if i not in uids]
    room = width - sum(natural[i] + 2 for i in uids)
    widths = list(natural)
    for i, w in zip(rest, fit([natural[i] for i in rest], room) if rest else []):
        widths[i] = w
    squeezed = any(widths[i] < min(natural[i], 12) for i in rest)
    if ((len(rows) == 1 and len(columns) > 1) or squeezed
            or sum(widths) + 2 * (len(widths) - 1) > width):
        # one record, or too many columns for the terminal: a column per line (as psql's
        # expanded display), long values wrapped at the terminal's edge, never cut
        name_width = max(len(c) for c in columns)
        for n, row in enumerate(cells, 1):
            if len(rows) > 1:
                click.echo(f"-[ row {n} ]" + "-" * max(width - 12 - len(str(n)), 0))
            room = max(width - name_width - 2, 20)
            for c, value in zip(columns, row):
                for i, piece in enumerate(wrap(value, room)):
                    click.echo(f"{(c if i == 0 else '').ljust(name_width)}  {piece}".rstrip())
        return
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    click.echo("  ".join("-" * w for w in widths))
    for row in cells:  # a value wider than its column goes on in the lines below (uids whole)
        pieces = [wrap(v, w) for v, w in zip(row, widths)]
        for i in range(max(len(p) for p in pieces)):
            click.echo("  ".join((p[i] if i < len(p) else "").ljust(w)
                                 for p, w in zip(pieces, widths)).rstrip())


_UID = re.compile(r"^[a-z_]+:[a-z_]+:\S")


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken after a space, a colon or
    a slash when one is near (a uid breaks after one of its colons), never cut short.

    >>> wrap("pegasus:workflow:9a81e85f-45b4-587b-8e78-45b824ad0955", 30)
    ['pegasus:workflow:', '9a81e85f-45b4-587b-8e78-45b824', 'ad0955']
    >>> wrap("abc", 10)
    ['abc']
    """
    width = max(width, 1)
    lines = []
    while len(text) > width:
        cut = max(text.rfind(c, 0, width) for c in " :/,")
        cut = cut + 1 if cut >= width // 2 else width
        lines.append(text[:cut].rstrip(" "))
        text = text[cut:].lstrip(" ")
    return lines + [text]


def fit(widths: list[int], total: int, gap: int = 2, least: int = 6) -> list[int]:
    """Column widths that fit ``total`` characters: the widest columns give way first, none
    below ``least`` (a table of many columns may still be wider).

    >>> fit([10, 200, 30], 80)
    [10, 36, 30]
    >>> fit([5, 5], 80)
    [5, 5]
    """
    widths = list(widths)
    room = total - gap * (len(widths) - 1)
    while sum(widths) > room:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        others = sum(widths) - widths[widest]
        target = max(room - others, least, max((w for i, w in enumerate(widths) if i != widest),
                                               default=least))
        if target >= widths[widest]:
            if widths[widest] <= least:
                break
            target = widths[widest] - 1
        widths[widest] = target
    return widths


def _clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, an ellipsis marking the cut.

    >>> _clip("abcdef", 4), _clip("abc", 4)
    ('abc…', 'abc')
    """
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def _clip_start(text: str, width: int) -> str:
    """``text`` cut at its start to ``width`` characters (for paths, whose end names the file).

    >>> _clip_start("/very/long/path/file.bp", 12), _clip_start("a.bp", 12)
    ('…ath/file.bp', 'a.bp')
    """
    return text if len(text) <= width else "…" + text[len(text) - max(width - 1, 0):]


FORMAT = click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]),
                      default=lambda: _settings().default_format,
                      show_default="table, or the profile's default", help="Output format.")


def _settings() -> Settings:
    """The profile file's and the environment's settings, read once per command (kept on the
    root click context, with the root's --profile and --config)."""
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx else None
    if root is None:
        return Settings.from_env()
    if not isinstance(root.obj, Settings):
        try:
            root.obj = Settings.from_env(profile=root.meta.get("lineage.profile"),
                                         config=root.meta.get("lineage.config"))
        except ValueError as exc:  # a malformed variable: a usage error, as a bad option
            raise ConfigError(str(exc)) from None
        from ..config.logs import SECRETS

        SECRETS.add(root.obj.neo4j_password)
        log.debug("settings: %s", {r["setting"]: f"{r['value']} ({r['source']})"
                                   for r in root.obj.described()})
    return root.obj


def _api():
    """:mod:`lineage.api`, imported on first use, so that ``lineage --help`` and the commands
    that never reach Neo4j (``cypher list``, ``config show``) do not load the driver (0.2 s
    of imports); the driver is loaded without its dataframe libraries (see lean_import)."""
    import_driver_without_dataframes()
    from .. import api

    return api


class _DriverNotLoaded(Exception):
    """Stands for a driver exception while the driver is not loaded: nothing can raise it."""


def _driver_error(name: str) -> type[Exception]:
    """The driver's exception class ``name`` (``Neo4jError``, ``ServiceUnavailable``) for an
    ``except`` clause, without importing the driver to ask.

    >>> _driver_error("Neo4jError").__name__ in ("Neo4jError", "_DriverNotLoaded")
    True
    """
    exceptions = sys.modules.get("neo4j.exceptions")
    return getattr(exceptions, name) if exceptions is not None else _DriverNotLoaded


def _connect():
    lin = _api().connect(_settings())
    settings = lin.graph.settings
    if settings is not None and settings.managed:  # a bulk load that did not end: say so
        told = server.interrupted_bulk(server.ServerPaths.under(server.state_dir()))
        if told:
            click.echo(f"warning: {told}", err=True)
    return lin


class _Main(click.Group):
    """Turns the project's errors into messages and exit codes."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ParseError as exc:
            several = isinstance(exc, InputsFailed)
            click.echo(f"error: malformed input: {exc}", err=True)
            hint = ("--lenient skips and counts bad records instead" if lenient_helps(exc)
                    else "--lenient cannot skip this (it stops the input in either mode): "
                         "correct or remove the value named")
            click.echo(f"nothing of {'those inputs' if several else 'that input'} is in the "
                       f"graph; {hint}", err=True)
            sys.exit(EXIT_INPUT)
        except ServerError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_SERVER)
        except _driver_error("AuthError"):
            settings = _settings()
            where = (f"the server at {redact_url(settings.neo4j_uri)}" if settings.neo4j_uri
                     else "the managed server")
            click.echo(f"error: {where} refused user {settings.neo4j_user or 'neo4j'!r} "
                       "and its password (check NEO4J_USERNAME / NEO4J_PASSWORD or the "
                       "profile's [connection])", err=True)
            sys.exit(EXIT_SERVER)
        except _driver_error("ServiceUnavailable") as exc:
            click.echo(f"error: Neo4j is not reachable: {exc}", err=True)
            sys.exit(EXIT_SERVER)
        except (TemplateError, ConfigError) as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except (LineageError, _driver_error("Neo4jError")) as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        except OSError as exc:  # a file a command was told to read or write
            from ..load.inputs import shown

            where = f"{shown(exc.filename)}: " if exc.filename is not None else ""
            click.echo(f"error: {where}{exc.strerror or exc}", err=True)
            sys.exit(EXIT_ERROR)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lineage-explorer")
@click.option("--profile", default=None, metavar="NAME",
              help="Use this profile of the profile file [default: $LINEAGE_PROFILE].")
@click.option("--config", "config_file", default=None, metavar="FILE",
              help="The profile file [default: $LINEAGE_CONFIG, else "
                   "~/.config/lineage-explorer/config.toml].")
@click.option("-v", "--verbose", count=True,
              help="Log what is done on stderr: -v steps, -vv details and the driver's log.")
@click.option("-q", "--quiet", is_flag=True, help="Log errors only (no warnings).")
@click.pass_context
def main(ctx, profile, config_file, verbose, quiet):
    """lineage: HPC provenance (Pegasus, Swift, Chimbuko, XALT) in one Neo4j graph.

    Uses NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD / NEO4J_DATABASE when set, else the
    profile file's [connection], else a managed local Neo4j (started on demand; see
    `lineage neo4j status`). `lineage config show` prints the settings in effect.
    """
    from ..config.logs import setup

    setup(-1 if quiet else verbose)
    ctx.meta["lineage.profile"] = profile
    ctx.meta["lineage.config"] = config_file


# ------------------------------------------------------------------ neo4j
@main.group()
def neo4j():
    """Manage the local Neo4j server (loopback only, password in a private file)."""


def _print_status(info: dict, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    state = "running" if info["running"] else "stopped"
    click.echo(f"Neo4j {info['version']}: {state}")
    for key in ("uri", "browser_url", "user", "password_file", "state_dir", "log"):
        click.echo(f"  {key:14} {info.get(key)}")
    if info.get("interrupted_bulk_load"):
        click.echo(f"  warning: {info['interrupted_bulk_load']}")
    if info["running"]:
        click.echo(f"  log in to Neo4j Browser at {info['browser_url']} with user "
                   f"{info['user']} and the password in {info['password_file']}")
        click.echo(f"  after login Browser opens the templates guide "
                   f"(:play {info['browser_url']}guides/lineage.html)")


@neo4j.command("start")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--demo", is_flag=True, help="The demo's own server (`lineage demo`).")
def neo4j_start(as_json, demo):
    """Start the managed server (a no-op when it is running); waits for Bolt."""
    _print_status(server.control("start", demo=demo), as_json)


@neo4j.command("stop")
@click.option("--demo", is_flag=True, help="The demo's own server (`lineage demo`).")
def neo4j_stop(demo):
    """Stop the managed server."""
    info = server.control("stop", demo=demo)
    click.echo("stopped" if not info["running"] else "still running")


@neo4j.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--demo", is_flag=True, help="The demo's own server (`lineage demo`).")
def neo4j_status(as_json, demo):
    """Show whether the managed server runs, its URIs and where its password is."""
    _print_status(server.control("status", demo=demo), as_json)


# ------------------------------------------------------------------ load and stats
#: inputs whose line ``lineage load`` prints, at most (then only those that failed, unless -v)
INPUT_LINES = 20


def _progress_printer(quiet: bool, echo=None, every: bool | None = None):
    """A line per input when it is done, for the first :data:`INPUT_LINES` inputs, then
    only for those that failed or could not be read (``every``, or ``-v``: all), and at the
    end how many were not shown; in a bulk load past its fold's budget an input's line waits
    for its "folded" event (its final counts), and later lines wait behind it."""
    raw_echo = echo or (lambda line: click.echo(line, err=True))
    if every is None:
        every = logging.getLogger("lineage").isEnabledFor(logging.INFO)
    shown = {"lines": 0, "hidden": 0}

    def echo(line: str, info: dict | None = None) -> None:
        bad = info is not None and info.get("status") in ("failed", "unreadable")
        if info is None or every or bad or shown["lines"] < INPUT_LINES:
            shown["lines"] += info is not None
            raw_echo(line)
        else:
            shown["hidden"] += 1

    held: list[list] = []  # [info, final?] in input order, once one input is pending

    def progress(event: str, info: dict) -> None:
        if quiet or event not in ("done", "folded", "step"):
            return
        if event == "step":  # a bulk load's step after its inputs were read
            echo(info["message"])
            return
        if event == "folded":
            waiting = next((h for h in held if not h[1] and h[0]["path"] == info["path"]),
                           None)
            if waiting is not None:
                waiting[:] = [info, True]
        elif info.get("pending") or held:
            held.append([info, not info.get("pending")])
        else:
            echo(_input_line(info), info)
        while held and held[0][1]:
            info = held.pop(0)[0]
            echo(_input_line(info), info)

    def flush() -> None:
        """The lines still waiting (a load that failed before its fold was done), and how
        many inputs' lines were not printed."""
        while held:
            info = held.pop(0)[0]
            echo(_input_line(info), info)
        if shown["hidden"]:
            raw_echo(f"... and {shown['hidden']} more inputs loaded or unchanged "
                     "(-v prints a line for each; `lineage stats --loads` lists every load)")
            shown["hidden"] = 0

    progress.flush = flush
    return progress


def _input_line(info: dict) -> str:
    """The line ``lineage load`` prints for an input."""
    line = (f"{info['status']:12} {info['path']} [{info['format']}] "
            f"{info['node_records']} node / {info['edge_records']} edge records"
            f" in {info['seconds']} s")
    if info["status"] in ("failed", "unreadable") and info.get("error"):
        line += f": {info['error']}"
    if info["unresolved_edges"]:
        line += f"; {info['unresolved_edges']} edges point at nodes not in the graph"
    if info["skipped"]:
        line += f"; skipped {sum(info['skipped'].values())}"
    if info["unknown"]:
        line += f"; unknown {sum(info['unknown'].values())} ({', '.join(list(info['unknown'])[:5])})"
    return line


def with_source_options(function):
    """The load options the sources declare (``--env`` of XALT, ``--chimbuko-run`` of
    Chimbuko) as command-line options, handed to ``function`` as one ``source_options``
    dict (unset ones None)."""
    declared = [o for o in load_options.options() if o.cli]

    @functools.wraps(function)
    def collected(*args, **kwargs):
        kwargs["source_options"] = {o.name: kwargs.pop(o.name) for o in declared}
        return function(*args, **kwargs)

    for option in reversed(declared):
        collected = click.option(
            option.cli, option.name, default=None, metavar=option.metavar,
            type=click.Choice(option.choices) if option.choices else None,
            help=option.help)(collected)
    return collected


#: the inputs of ``load`` and ``watch``, and the source they are read as
INPUTS = (click.argument("paths", nargs=-1, required=True),
          click.option("--source", type=click.Choice(["auto", *SOURCES]), default="auto",
                       show_default=True, help="Force the source system."))


def inputs(function):
    """The ``paths`` argument and ``--source`` option (:data:`INPUTS`) on a command."""
    for decorate in reversed(INPUTS):
        function = decorate(function)
    return function


@main.command()
@inputs
@click.option("--lenient", is_flag=True,
              help="Skip and count malformed lines/records instead of stopping.")
@click.option("--json", "as_json", is_flag=True, help="Print the per-input results as JSON.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default=None,
              help="Print the per-input results as a table, JSON or CSV.")
@click.option("--quiet", "-q", is_flag=True, help="No per-file lines or progress bar on stderr.")
@click.option("--fail-fast", is_flag=True,
              help="Stop at the first malformed input (default: load the others, then fail).")
@click.option("--link", "then_link", is_flag=True,
              help="Then link executions across systems (as `lineage link`).")
@click.option("--bulk", is_flag=True,
              help="First load into an empty managed database: import with neo4j-admin "
                   "(the server is restarted); refused otherwise.")
@with_source_options
def load(paths, source, lenient, as_json, fmt, quiet, fail_fast, then_link, bulk,
         source_options):
    """Load provenance files, directories or database URLs into the graph.

    Each input is loaded whole or not at all; a malformed one is reported and the others are
    loaded; the exit code is then 3 and the summary names every input that failed. Inputs
    that cannot be read (permissions, names that are not UTF-8, FIFOs) are reported and
    counted while the others are loaded; the exit code is then 5. Warnings are printed on
    stderr, counted, the first 10 in full.
    """
    fmt = "json" if as_json else fmt
    from .progress import LoadProgress

    with _connect() as lin, LoadProgress(
            paths, enabled=not quiet and fmt is None, ci=_settings().ci) as bar:
        printer = _progress_printer(quiet or fmt is not None, echo=bar.write)

        def progress(event, info):
            printer(event, info)
            bar(event, info)

        before = {r["uid"] for r in lin.query("runs")}
        tally = Tally()
        kept: list = []  # the results, when each is printed (--format); else only the tally

        def take(result) -> None:
            tally.add(result)
            if fmt is not None:
                kept.append(result)

        try:
            options = lin.settings.load.with_(**source_options)
            if bulk:
                loaded = lin.load(paths, source=source, lenient=lenient, progress=progress,
                                  fail_fast=fail_fast, options=options, bulk=True)
            else:
                loaded = lin.load_each(paths, source=source, lenient=lenient,
                                       progress=progress, fail_fast=fail_fast, options=options)
            for result in loaded:
                take(result)
        except ParseError as exc:
            for result in getattr(exc, "results", None) or []:  # the bulk load's
                take(result)
            if tally.inputs:
                _print_load_outcome(tally, kept, fmt)
            raise
        finally:
            printer.flush()
        linked = lin.link() if then_link else None
        added = [r for r in lin.runs() if r["uid"] not in before]
    _print_load_outcome(tally, kept, fmt)
    if tally.unread:
        for path, why in tally.first_unread:
            click.echo(f"not read: {safe_text(path)}: {safe_text(why)}", err=True)
        if tally.unread > len(tally.first_unread):
            click.echo(f"... and {tally.unread - len(tally.first_unread)} more not read "
                       "(--format json lists them)", err=True)
        sys.exit(EXIT_UNREAD)
    if linked is not None:
        # machine-readable load output stays one document: the link summary goes to stderr
        _print_link(linked, "json" if fmt else "table", err=fmt is not None)
    _print_added_runs(added, err=fmt is not None)


def _print_load_outcome(tally: Tally, results: list, fmt: str | None) -> None:
    """Each result (``--format``) or the summary line, then the warnings."""
    if fmt is None:
        _print_load_summary(tally)
    else:
        _print_load_results(results, fmt)
    _print_load_warnings(tally)


def _print_added_runs(added: list[dict], err: bool) -> None:
    """The runs a load added, failed first, and the command to try next."""
    if not added:
        click.echo("no new runs (`lineage runs` lists the graph's runs)", err=err)
        return
    added = sorted(added, key=lambda r: not r["failed"])
    click.echo(f"added {len(added)} run{'s' if len(added) != 1 else ''}:", err=err)
    for r in added[:20]:
        click.echo(safe_text(f"  {'FAILED ' if r['failed'] else ''}{r['status'] or '?'}  "
                             f"{r['uid']}  ({r['name']})"), err=err)
    if len(added) > 20:
        click.echo(f"  ... and {len(added) - 20} more (`lineage runs`)", err=err)
    first = added[0]
    short = first["uid"].split(":", 2)[-1][:8] if first["uid"].count(":") >= 2 else first["uid"]
    unique = sum(r["uid"].split(":", 2)[-1].startswith(short) for r in added) == 1
    ref = short if unique else first["uid"]
    click.echo(f"next: lineage {'why' if first['failed'] else 'report'} {ref}"
               + ("" if first["failed"] else " -o report.html"), err=err)


def _print_load_results(results, fmt) -> None:
    if fmt == "json":
        click.echo(json.dumps([r.as_dict() for r in results], indent=2, default=str))
    elif fmt in ("csv", "table"):
        rows = [{k: v for k, v in r.as_dict().items() if k in LOAD_COLUMNS} for r in results]
        emit(rows, fmt, LOAD_COLUMNS)
    else:
        tally = Tally()
        for result in results:
            tally.add(result)
        _print_load_summary(tally)


def _print_load_summary(tally: Tally) -> None:
    """``loaded N of M inputs``, and how many failed or could not be read."""
    click.echo(f"loaded {tally.loaded} of {tally.inputs} inputs"
               + (f"; {tally.failed} failed" if tally.failed else "")
               + (f"; {tally.unread} could not be read" if tally.unread else ""))


def _print_load_warnings(tally: Tally) -> None:
    """The load's warnings on stderr: how many, in how many inputs, and the first ones.

    >>> from lineage.load.pipeline import LoadResult
    >>> tally = Tally()
    >>> tally.add(LoadResult("a.json", "xalt-json", "xalt", "loaded",
    ...                      report={"warnings": ["a.json: odd"], "warning_count": 3}))
    >>> _print_load_warnings(tally)  # doctest: +SKIP
    3 warnings in 1 of 1 inputs (the first 1 follow):
      a.json: odd
    """
    if not tally.warnings:
        return
    kept = tally.first_warnings
    click.echo(f"{tally.warnings} warning{'s' if tally.warnings != 1 else ''} in "
               f"{tally.warned_inputs} of {tally.inputs} inputs (the first {len(kept)} "
               "follow; --format json lists each input's):", err=True)
    for warning in kept:
        click.echo(f"  {safe_text(warning)}", err=True)


LOAD_COLUMNS = ["path", "format", "status", "node_records", "edge_records",
                "unresolved_edges", "seconds", "error"]


@main.command()
@inputs
@click.option("--lenient", is_flag=True,
              help="Skip and count malformed lines/records instead of stopping that file.")
@click.option("--poll", is_flag=True,
              help="Look every --interval seconds instead of waiting for file-system events "
                   "(automatic on network file systems: NFS, Lustre, GPFS, ...).")
@click.option("--interval", type=click.FloatRange(0.05), default=2.0, show_default=True,
              help="Seconds between looks when nothing was reported (and with --poll).")
@click.option("--once", is_flag=True,
              help="Look once, write what was added, link, and exit (for cron).")
@click.option("--no-link", "no_link", is_flag=True, help="Do not run `lineage link`.")
@click.option("--link-every", type=click.FloatRange(0), default=10.0, show_default=True,
              help="Run `lineage link` at most every this many seconds while increments come.")
@click.option("--reports", "report_dir", type=click.Path(file_okay=False), default=None,
              help="Write the report of every run the increments touch into this folder, "
                   "again after each increment (a running workflow's page reloads itself).")
@click.option("--settle", type=click.FloatRange(0), default=1.0, show_default=True,
              help="Seconds a new record file must stay unchanged before it is loaded.")
@with_source_options
def watch(paths, source, lenient, poll, interval, once, no_link, link_every, report_dir, settle,
          source_options):
    """Follow provenance while it is written: each increment is one load.

    Appended lines of Pegasus BP and monitord JSON-lines streams and of XALT syslog files
    are read from where the graph says the last increment ended; new XALT and Chimbuko
    record files are loaded once they stop changing. Each increment is a load named by
    its file and byte range (`lineage stats` lists it, `lineage unload` takes it back).
    Stops on Ctrl-C or SIGTERM after a last look.
    """
    import signal

    from ..watch.watcher import Watcher

    with _connect() as lin:
        options = lin.settings.load.with_(lenient=True if lenient else None, **source_options)
        watcher = Watcher(lin, paths, options=options, link=not no_link,
                          link_every=0.0 if once else link_every, report_dir=report_dir,
                          settle=0.0 if once else settle, source=source)
        if once:
            _print_poll(watcher.poll_once())  # a record file is loaded at its second look
            _print_poll(watcher.finish())
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: watcher.stop())
        click.echo(f"watching {len(watcher.paths)} path{'s' if len(watcher.paths) != 1 else ''}"
                   "; Ctrl-C stops", err=True)
        how = watcher.run(on_poll=_print_poll, interval=interval, poll=poll)
        click.echo(f"stopped (changes were noticed by {how})", err=True)


def _print_poll(poll) -> None:
    """One line per increment written, the errors that stopped a file, links made, files
    found that are not followed."""
    for path, fmt in poll.not_followed:
        click.echo(safe_text(f"not followed: {path} [{fmt}]: load it with `lineage load` "
                             "when its run has ended"), err=True)
    for step in poll.steps:
        if step.error:
            click.echo(f"stopped following: {safe_text(step.error)}", err=True)
        result = step.result
        if result is None or result.status not in ("loaded", "empty"):
            continue
        click.echo(safe_text(
            f"{result.status:7} {step.name} [{result.format}] {sum(result.nodes.values())} "
            f"node / {sum(result.edges.values())} edge records in {result.seconds:.3f} s"))
        for warning in result.report.get("warnings", [])[:3]:
            click.echo(f"  warning: {safe_text(warning)}", err=True)
    if poll.linked:
        made = sum(c.get("made", 0) for c in poll.linked.values())
        if made:
            click.echo(f"linked: {made} new links across systems")
    for path in poll.reports:
        click.echo(f"report: {safe_text(path)}")


@main.command()
@click.argument("load_or_path")
@FORMAT
def unload(load_or_path, fmt):
    """Remove what only one load wrote (by load id, load uid or input path).

    Nodes and relationships that another load also wrote stay; the :Load record stays with
    status "unloaded", and what was removed.
    """
    with _connect() as lin:
        rows = lin.unload(load_or_path)
    emit(rows, fmt, ["id", "path", "format", "version", "nodes_removed", "edges_removed"])


@main.command()
@click.option("--json", "as_json", is_flag=True, help="All of it as one JSON object.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default=None,
              help="One row per label / relationship type / loads of a source and status "
                   "(what, name, count).")
@click.option("--loads", "every_load", is_flag=True,
              help="Also list every load, one line per input (with --json: under \"loads\").")
def stats(as_json, fmt, every_load):
    """What the graph holds: its nodes and relationships, and the loads that stated them
    counted by source and status (inputs, graph elements, the last one's time); then the
    nodes per label and relationships per type. `--loads` lists every load, one per input."""
    with _connect() as lin:
        info = lin.stats(every_load=every_load)
    if as_json:
        click.echo(json.dumps(info, indent=2, default=str))
        return
    summary = info["load_summary"]
    if fmt:
        rows = ([{"what": "label", "name": k, "count": v} for k, v in info["nodes"].items()]
                + [{"what": "relationship", "name": k, "count": v}
                   for k, v in info["relationships"].items()]
                + [{"what": "loads", "name": f"{r['source']} {r['status']}",
                    "count": r["inputs"]} for r in summary]
                + [{"what": "claims", "name": name, "count": count}
                   for name, count in info.get("claims", {}).items()])
        emit(rows, fmt, ["what", "name", "count"])
        return
    for line in stats_lines(info):
        click.echo(line)
    if every_load:
        width = shutil.get_terminal_size((120, 24)).columns
        click.echo(f"every load ({len(info['loads'])}, oldest first):")
        for row in info["loads"]:
            head = f"  {row['status']:8} {row['format']:12} "
            # a path's end names the file: cut its start to fit the terminal
            click.echo(head + _clip_start(str(row["path"]), max(width - len(head), 20)))


def stats_lines(info: dict) -> list[str]:
    """``lineage stats`` for people, the answer first: what the graph holds and which loads
    stated it (by source and status), then the counts per label and type, and the claims.

    >>> info = {"nodes": {"Lineage": 13, "Execution": 1}, "relationships": {"USED": 12},
    ...         "load_summary": [{"source": "xalt", "status": "loaded", "inputs": 1,
    ...                           "elements": 25, "last_finished_at": 1764237600.0}]}
    >>> print("\\n".join(stats_lines(info)[:4]))
    13 nodes and 12 relationships, stated by 1 input (1 loaded)
    loads by  source  status    inputs  graph elements  last finished (UTC)
              xalt    loaded         1              25  2025-11-27T10:00:00.000Z
    (`lineage stats --loads` lists every input)
    """
    from ..load.loads import STOPPED

    summary = info["load_summary"]
    nodes = info["nodes"].get("Lineage", 0)
    rels = sum(info["relationships"].values())
    inputs = sum(r["inputs"] for r in summary)
    by_status: dict[str, int] = {}
    for r in summary:
        by_status[r["status"]] = by_status.get(r["status"], 0) + r["inputs"]
    statuses = ", ".join(f"{n:,} {status}" for status, n in
                         sorted(by_status.items(), key=lambda x: (-x[1], x[0])))
    lines = [f"{nodes:,} nodes and {rels:,} relationships, stated by {inputs:,} "
             f"input{'' if inputs == 1 else 's'}" + (f" ({statuses})" if statuses else "")]
    if summary:
        lines.append(f"loads by  {'source':6}  {'status':8}  {'inputs':>6}  "
                     f"{'graph elements':>14}  last finished (UTC)")
        for r in summary:
            when = human("finished_at", r["last_finished_at"]) if r["last_finished_at"] else "?"
            lines.append(f"{'':8}  {r['source']:6}  {r['status']:8}  {r['inputs']:>6,}  "
                         f"{r['elements']:>14,}  {when}")
        lines.append("(`lineage stats --loads` lists every input)")
        stopped = sum(r["inputs"] for r in summary if r["status"] == STOPPED)
        if stopped:
            lines.append(f"{stopped:,} input{'' if stopped == 1 else 's'} {STOPPED} (the "
                         "process is gone): load them again")
    lines.append("nodes:")
    lines.extend(f"  {label:20} {count}" for label, count in info["nodes"].items())
    lines.append("relationships:")
    lines.extend(f"  {rel:20} {count}" for rel, count in info["relationships"].items())
    shared = info.get("claims", {})
    if shared.get("shared"):
        lines.append(f"claims: {shared['shared']} elements several loads state differently")
        lines.append(f"  {shared['conflicting']} with values they disagree on (newest shown)")
    return lines


@main.command()
@click.option("--kind", default=None, metavar="KIND",
              help="Only runs of this kind (Workflow, ScriptRun, Execution, ProgramRun).")
@FORMAT
def runs(kind, fmt):
    """Every run in the graph, newest first, failed ones marked: uid (whole), status,
    start, duration, source, name. `lineage why UID` and `lineage diff UID UID` take a
    uid, a unique start of one, a short uuid (8 characters) or a run's name."""
    with _connect() as lin:
        rows = lin.runs(kind)
    if fmt != "table":
        emit(rows, fmt, _api().RUN_COLUMNS)
        return
    if not rows:
        click.echo("(no runs: `lineage load FILES` loads some, `lineage demo` makes a campaign)")
        return
    from ..answers.diff import seconds

    # a line per run and its whole uid on the line below it (a uid is never cut)
    cells = [["FAILED" if r["failed"] else "", r["status"] or "?",
              str(human("start_time", r["start_time"]) or "").replace("T", " ")[:19],
              seconds(r["duration"]) or "", r["source"], safe_text(str(r["name"]))]
             for r in rows]
    head = ["", "status", "start (UTC)", "duration", "source", "name"]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    click.echo("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
    for r, c in zip(rows, cells):
        click.echo("  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip())
        click.echo(safe_text(f"{'':{widths[0]}}  {r['uid']}"))


@main.command()
@click.argument("uid")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="A readable summary, or JSON.")
def why(uid, fmt):
    """Why did it fail? The answer first (the worst problem and its deciding line), then the
    failed and held jobs of a Pegasus workflow (recursively), the failed app executions of a
    Swift run or the exit of an XALT execution, each with the lines that decide it (the
    application's own error stream first, never DEBUG or INFO lines), the blocked jobs last.

    UID may be a unique prefix, a short uuid (8 characters) or a run's name."""
    with _connect() as lin:
        summary = lin.why(uid)
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2, default=str))
        return
    _print_why(summary)


def _print_why(summary) -> None:
    for line in summary.lines():
        click.echo(line)


@main.command("link")
@click.option("--rule", "rules", multiple=True, type=click.Choice(list(LINK_RULES)),
              help="Apply only this rule (repeatable; default: all, in their order).")
@click.option("--skew", type=click.FloatRange(0), default=None,
              help="Clock skew allowed between systems, in seconds (default 60).")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
def link_(rules, skew, dry_run, fmt):
    """Link what Pegasus, Swift, XALT and Chimbuko recorded of the same execution.

    Rules, in order: scheduler_job (XALT job id = attempt's scheduler id, with host or
    time), process (same program, host or attempt, and time: the same process),
    app_process (Swift app name = program, and time), instrumented_run and
    instrumented_process (a Chimbuko run's program, host and start inside an XALT run or a
    Pegasus invocation), host_time (same host and time only: reported as candidates, never
    linked). Ambiguous matches are reported, not linked. Running it again changes nothing.
    """
    with _connect() as lin:
        result = lin.link(rules or None, skew=skew, dry_run=dry_run)
    _print_link(result, fmt)


def _print_link(result, fmt: str, err: bool = False) -> None:
    if fmt == "json":
        click.echo(json.dumps(result.as_dict(), indent=2, default=str), err=err)
        return
    rows = [{"rule": rule, **counts} for rule, counts in result.rules.items()]
    emit(rows, "table", ["rule", "links", "made", "kept", "updated", "removed", "ambiguous",
                         "candidates"])
    if result.dry_run:
        click.echo("(dry run: nothing was written)")
    for a in result.ambiguous[:20]:
        kept = (f"; linked to {a.kept}, the one whose owner agrees" if a.kept
                else "; not linked")
        click.echo(safe_text(f"ambiguous ({a.rule}): {a.record} fits "
                             f"{', '.join(a.candidates)}{kept}"))
    if len(result.ambiguous) > 20:
        click.echo(f"... and {len(result.ambiguous) - 20} more ambiguous (see --format json)")
    for a in result.candidates[:20]:
        click.echo(safe_text(f"candidate ({a.rule}): {a.record} may have run in "
                             f"{', '.join(a.candidates)}"))
    unlinked = ", ".join(f"{n} {system}" for system, n in result.unlinked.items() if n)
    if unlinked:
        click.echo(f"not linked: {unlinked}")


@main.command("diff")
@click.argument("first")
@click.argument("second")
@FORMAT
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None,
              help="Also write a self-contained side-by-side HTML page to this file.")
def diff_(first, second, fmt, html_path):
    """What differs between two runs of one kind (Pegasus workflows, Swift script runs, XALT
    executions, Chimbuko program runs), most telling first: jobs or calls added, removed or
    changed; inputs and arguments; executables and libraries by path and sha1; exit status,
    command line, modules, environment; functions' anomalies and runtimes; for linked runs,
    each job's XALT program and libraries and its Chimbuko anomalies.

    The jobs or calls whose outcome turned to a failure come first, each with what may
    explain it (arguments, inputs, outputs, executable, libraries, environment) before its
    outcome; durations last. FIRST and SECOND may be unique uid prefixes, short uuids (8
    characters) or run names."""
    with _connect() as lin:
        result = lin.diff(first, second)
        if html_path:
            click.echo(f"diff: {Path(lin.diff_html(result, html_path)).resolve()}", err=True)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, default=str))
        return
    if fmt == "table":
        click.echo(safe_text(f"answer: {result['answer']}"))
    emit(result["differences"], fmt, ["aspect", "name", "first", "second"])


@main.command("export")
@click.argument("uids", nargs=-1, required=True, metavar="UID...")
@click.option("-o", "--output", required=True, type=click.Path(),
              help="The file to write (ro-crate: a directory, or a FILE.zip).")
@click.option("--format", "fmt",
              type=click.Choice([*export_formats(), "graphml", "openlineage", "ro-crate"]),
              default="prov-json", show_default=True,
              help="W3C PROV-JSON, PROV-N, GraphML, OpenLineage run events (JSON Lines), or "
                   "a Workflow Run RO-Crate (Provenance Run Crate) of one run.")
@click.option("--depth", default=3, show_default=True, type=click.IntRange(1, 1000),
              help="Hops of a run's parts, or of a node's ancestry and descendants.")
@click.option("--with-links", "links", is_flag=True,
              help="Take in what `lineage link` connected to it in other systems.")
@click.option("--license", "license_", default=None, metavar="URL",
              help="ro-crate: the crate's license (say, a SPDX URL); else the crate says "
                   "none was stated.")
def export_(uids, output, fmt, depth, links, license_):
    """Write a run or a node's lineage as W3C PROV (PROV-JSON, PROV-N) or GraphML, runs
    as OpenLineage run events, or one run as a Workflow Run RO-Crate (its steps, their
    statuses and files, and with --with-links the binaries, libraries, builds, modules,
    environment and Chimbuko anomalies `lineage link` joined to it). Several UIDs: the union
    (the two sides of a diff, say).

    `lineage import FILE.json` reads a PROV export (or another tool's PROV) back; `lineage
    load DIR` reads a crate back.
    """
    with _connect() as lin:
        path = lin.export(list(uids), output, fmt=fmt, depth=depth, links=links,
                          license=license_)
    click.echo(f"wrote {path}")


@main.command("import")
@click.argument("paths", nargs=-1, required=True)
@click.option("--lenient", is_flag=True,
              help="Skip and count malformed records instead of stopping.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default=None,
              help="Print the per-input results as a table, JSON or CSV.")
def import_(paths, lenient, fmt):
    """Read W3C PROV documents (PROV-JSON, PROV-N, PROV-XML: another tool's, or this tool's
    signed exports) into the graph: `lineage load --source prov`."""
    with _connect() as lin:
        results = lin.load(paths, source="prov", lenient=lenient)
    _print_load_results(results, fmt)


# ------------------------------------------------------------------ queries
def _params(pairs: tuple[str, ...]) -> dict:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="-p")
        name, value = pair.split("=", 1)
        out[name] = value
    return out


TABLE_ROWS = 100  # rows a table shows unless --limit / --all say otherwise


@main.command()
@click.argument("name_or_cypher")
@click.option("-p", "--param", "params", multiple=True, help="NAME=VALUE (repeatable).")
@FORMAT
@click.option("--write", is_flag=True, help="Allow a Cypher string that writes.")
@click.option("--limit", type=click.IntRange(min=0), default=None,
              help=f"Rows to show (table default: {TABLE_ROWS}; json and csv: all).")
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True,
              help="Rows to skip first (the next page: --offset 100).")
@click.option("--all", "every_row", is_flag=True, help="Every row, however many.")
def query(name_or_cypher, params, fmt, write, limit, offset, every_row):
    """Run a template from cypher/ by name, or a Cypher string, with -p parameters.

    Parameters of a Cypher string are strings unless they parse as JSON (numbers, lists).
    A table shows the first 100 rows of a large answer and sums up the rest (rows per kind,
    depth and status), cut in the server so the rest never crosses the wire; --offset pages,
    --all shows everything.

    \b
    Examples:
      lineage query ancestors -p uid=pegasus:job:WF:analyze_j4
      lineage query ancestors -p uid=... --offset 100 --limit 100
      lineage query runs --format json
    """
    given = _params(params)
    if every_row:
        limit = None
    elif limit is None and fmt == "table":
        limit = TABLE_ROWS
    with _connect() as lin:
        if templates.is_template_name(name_or_cypher):
            given = _resolve_uid_params(lin, name_or_cypher, given)
        if templates.is_template_name(name_or_cypher) or name_or_cypher in _api().COMPUTED:
            if limit is not None or offset:
                page = lin.query_page(name_or_cypher, given, offset,
                                      limit if limit is not None else 2**62)
                if not page.total:
                    _refuse_unknown_uids(lin, name_or_cypher, given)
                columns = (templates.get(name_or_cypher).returns
                           if templates.is_template_name(name_or_cypher)
                           else list(page.rows[0]) if page.rows else [])
                emit(page.rows, fmt, columns)
                if fmt == "table" and (page.more or offset):
                    _print_page_summary(page)
                return
            rows = lin.query(name_or_cypher, given)
            if not rows:
                _refuse_unknown_uids(lin, name_or_cypher, given)
        else:
            values = {}
            for k, v in given.items():
                try:
                    values[k] = json.loads(v)
                except ValueError:
                    values[k] = v
                if isinstance(values[k], int) and not -(2**63) <= values[k] < 2**63:
                    raise TemplateError(f"-p {k}={v}: a 64-bit integer is expected")
            try:
                rows = (lin.write(name_or_cypher, values) if write
                        else lin.query(name_or_cypher, values))
            except _driver_error("Neo4jError") as exc:
                if exc.code == "Neo.ClientError.Statement.AccessMode":
                    raise TemplateError("this Cypher writes to the graph: add --write to run "
                                        "it") from None
                raise
    if limit is None and not offset:
        emit(list(rows), fmt, rows.columns)
        return
    shown = list(rows)[offset:offset + limit if limit is not None else None]
    page = _api().Page(shown, len(rows), offset, {})
    emit(page.rows, fmt, rows.columns)
    if fmt == "table" and (page.more or offset):
        _print_page_summary(page)


def _print_page_summary(page) -> None:
    """What a page leaves out: which rows were shown, and the rows per kind, depth, status."""
    first, last = page.offset + 1, page.offset + len(page.rows)
    shown = f"rows {first:,}-{last:,}" if page.rows else f"no rows after {page.offset:,}"
    hint = f"--offset {last} for the next page, " if page.more else ""
    click.echo(f"({shown} of {page.total:,}; {hint}--all for every row)")
    for column, counts in page.counts.items():
        if isinstance(counts[0][0] if counts else None, (int, float)):
            counts = sorted(counts, key=lambda c: c[0])  # depths in order
        parts = [f"{'(none)' if v is None else v}: {n:,}" for v, n in counts[:12]]
        more = f", … ({len(counts)} values)" if len(counts) > 12 else ""
        click.echo(safe_text(f"{column}: {', '.join(parts)}{more}"))


def _resolve_uid_params(lin, name: str, given: dict) -> dict:
    """The parameters of a template that it documents as a uid, resolved as ``why`` resolves
    one (a unique start, a short uuid, a run's name; "did you mean" when several match)."""
    out = dict(given)
    for param in templates.get(name).params:
        value = given.get(param.name)
        takes_other_names = re.search(r"\bor (its )?uid\b", param.doc)  # a path, a sha1 ...
        if (param.type.startswith("string") and "uid" in param.doc and isinstance(value, str)
                and value and not takes_other_names and name != "resolve_uid"):
            try:
                out[param.name] = lin.resolve(value)
            except LineageError as exc:
                if "did you mean" in str(exc):
                    raise
    return out


def _refuse_unknown_uids(lin, name: str, given: dict) -> None:
    """An empty answer for a uid the graph does not hold is a mistake to report (a typo, or a
    graph not loaded), not "no rows": raise if a parameter the template documents as a uid
    names no node."""
    if not templates.is_template_name(name):
        return
    for param in templates.get(name).params:
        uid = given.get(param.name)
        if (param.type.startswith("string") and "uid" in param.doc and isinstance(uid, str)
                and uid and not lin.query("node", uid=uid)):
            raise LineageError(f"no node with uid {uid!r} in the graph (-p {param.name}); "
                               "`lineage query uids_like -p prefix=...` lists uids")


@main.group()
def cypher():
    """The query templates: list them, or show one ready for Neo4j Browser."""


@cypher.command("list")
@FORMAT
def cypher_list(fmt):
    """Every template with its purpose, parameters and returned columns."""
    rows = [
        {"name": t.name, "purpose": t.purpose,
         "params": ", ".join(p.name + ("" if p.required else "?") for p in t.params),
         "returns": ", ".join(t.returns)}
        for t in templates.all_templates()
    ]
    if fmt == "table":
        for r in rows:
            click.echo(f"{r['name']}\n    {r['purpose']}\n    params: {r['params'] or '-'}"
                       f"\n    returns: {r['returns']}")
        return
    emit(rows, fmt)


def _graph_if_available():
    """A connection for example values, without starting a server: NEO4J_URI when set, else
    the managed server when it is running; None otherwise."""
    try:
        if _settings().neo4j_uri:
            return _api().connect(_settings())
        if server.control("status")["running"]:
            return _api().connect(_settings(), start_managed=False)
    except (LineageError, _driver_error("Neo4jError"), _driver_error("ServiceUnavailable"),
            OSError) as exc:
        click.echo(f"note: no graph for example values ({exc}); using the header's", err=True)
    return None


@cypher.command("show")
@click.argument("name")
@click.option("--from-graph/--header-examples", default=True, show_default=True,
              help="Fill :param lines with values from the loaded graph (when a graph is "
                   "reachable without starting one) or with the header's examples.")
def cypher_show(name, from_graph):
    """Print a template with :param lines, ready to paste into Neo4j Browser."""
    from ..query.examples import example_values

    template = templates.get(name)
    lin = _graph_if_available() if from_graph else None
    try:
        values = example_values(lin, template)
    except (_driver_error("Neo4jError"), _driver_error("ServiceUnavailable"), OSError) as exc:
        click.echo(f"note: no graph for example values ({exc}); using the header's", err=True)
        values = example_values(None, template)
    finally:
        if lin is not None:
            lin.close()
    click.echo(template.browser_text(values))


# ------------------------------------------------------------------ configuration
@main.group("config")
def config_():
    """The settings in effect: profile file, environment, defaults."""


@config_.command("show")
@FORMAT
def config_show(fmt):
    """Print every setting, its value (secrets masked) and where it came from.

    The profile file is --config, else $LINEAGE_CONFIG, else
    $XDG_CONFIG_HOME/lineage-explorer/config.toml (~/.config/...); the environment overrides
    it, command-line options override both.
    """
    settings = _settings()
    rows = settings.described()
    if fmt == "json":
        click.echo(json.dumps({"config_file": settings.config_file, "profile": settings.profile,
                               "settings": rows}, indent=2, default=str))
        return
    if fmt == "table":
        click.echo(f"profile file: {settings.config_file or '(none)'}"
                   + (f" [profile {settings.profile}]" if settings.profile else ""))
    emit(rows, fmt, ["setting", "value", "source"])


# ------------------------------------------------------------------ reports and demo
@main.command()
@click.argument("uid")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@click.option("--depth", default=3, show_default=True,
              help="Hops up and down for a node; PART_OF hops below a run.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None,
              help="Draw at most this many nodes, grouping the rest "
                   "[default: $LINEAGE_REPORT_MAX_NODES or 500].")
def report(uid, output, depth, max_nodes):
    """Write the HTML lineage report of a run or any node (one self-contained file)."""
    options = {"depth": depth}
    if max_nodes:
        options["max_nodes"] = max_nodes
    with _connect() as lin:
        path = lin.report(uid, output, **options)
    click.echo(f"report: {Path(path).resolve()}")


@main.command()
@click.option("--yes", is_flag=True, help="Confirm: delete every node and relationship.")
@click.option("--force", is_flag=True,
              help="Also while a load is writing: it is interrupted, removes what it wrote "
                   "and fails (without --force, reset refuses and names the load).")
def reset(yes, force):
    """Empty the graph (the schema stays)."""
    if not yes:
        raise click.UsageError("reset deletes the whole graph; pass --yes to confirm")
    with _connect() as lin:
        count = lin.reset(force=force)
    click.echo(f"deleted {count} nodes")


@main.command()
@click.option("-o", "--output-dir", default="lineage-demo", show_default=True,
              type=click.Path(file_okay=False), help="Where the reports and index.html go.")
@click.option("--keep", type=click.Path(file_okay=False), default=None,
              help="Write the generated files into this directory and leave them there "
                   "(default: a temporary directory, removed at the end).")
@click.option("--into-current-graph", is_flag=True,
              help="Load the campaign into the graph the other commands use (NEO4J_URI, the "
                   "profile's, or the managed server) instead of the demo's own server.")
def demo(output_dir, keep, into_current_graph):
    """Generate a campaign across Pegasus, XALT, Chimbuko and Swift in their own file
    formats, load and link it in the demo's own Neo4j, and write a report per run and an
    index.html (failed runs first).

    The demo runs its own managed server (state under the managed server's, in demo/, with
    its own ports and password file: `lineage neo4j status --demo`), emptied first so that it
    holds the demo alone; your graph is never touched (Neo4j Community holds one user
    database per server). docs/demo.md describes the campaign.
    """
    import tempfile

    from ..demo import run_demo

    if into_current_graph:
        connection = _connect()
    else:
        if _settings().neo4j_uri:
            click.echo("note: the demo goes to the demo's own Neo4j, not to NEO4J_URI "
                       "(--into-current-graph loads it there)", err=True)
        connection = _api().connect_demo(_settings())
    with connection as lin:
        if not into_current_graph:
            lin.reset()
        with tempfile.TemporaryDirectory(prefix="lineage-demo-") as scratch:
            files = Path(keep) if keep else Path(scratch)
            result = run_demo(lin, files, Path(output_dir))
        info = lin.stats()
    failed = [r for r in result.runs if r["status"] == "failed"]
    click.echo(f"index: {result.index.resolve()} ({len(result.runs)} runs, {len(failed)} "
               f"failed{': ' if failed else ''}{', '.join(r['uid'] for r in failed)})")
    for run in failed:
        click.echo(f"failed: {run['kind']} {run['name']}: report {run['path'].resolve()}")
    counts = ", ".join(f"{source} {len(f.paths)}" for source, f in result.files.items())
    click.echo(f"loaded {sum(r.status in ('loaded', 'unchanged') for r in result.loads)} "
               f"generated files ({counts}); graph has "
               f"{sum(v for k, v in info['nodes'].items() if k == 'Lineage')} nodes; linked "
               f"{sum(c['links'] for c in result.link.rules.values())} executions across "
               "systems")
    if keep:
        click.echo(f"files: {Path(keep).resolve()}")
    click.echo(f"reports: {Path(output_dir).resolve()} ({len(result.runs)}, one per run, "
               "listed in index.html)")
    if not into_current_graph or not _settings().neo4j_uri:
        status = server.control("status", demo=not into_current_graph)
        click.echo(f"Neo4j Browser: {status['browser_url']} (user {status['user']}, "
                   f"password in {status['password_file']})")


if __name__ == "__main__":  # pragma: no cover
    main()
