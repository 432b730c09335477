"""The declaration of a source: one :class:`Source` in each source's ``__init__.py``, which the
registry (:mod:`.registry`) collects.

A source is a folder, ``lineage/sources/<name>/``, holding everything about it:

- ``model.py``: its node kinds and relations (collected by :mod:`lineage.model`);
- one reader module per input format (``readers``, each with its ``FORMATS``) and the mapping
  from its facts to graph records;
- ``views.py`` (``views``): a :class:`Views`, what the generic answers show of it: report
  tables and panels, its ``why`` explainers and ``diff`` differs, the children of its runs in
  an OpenLineage export, the rows it gives ``lineage link``;
- ``cypher/``: its templates, named ``<name>/<file>`` (``pegasus/failed_jobs``);
- ``demo.py`` (``demo``): the writer of its files of the demo campaign (``lineage demo``);
- its load options (:class:`Option`): ``--env`` of XALT, ``--chimbuko-run`` of Chimbuko;
- its export formats (``exports``): format name -> ``"module:function"`` of a writer
  ``write(nodes, edges, path, roots)`` that ``lineage export`` finds through the registry;
- how ``lineage watch`` follows its formats as they grow (``follows``): format name ->
  :class:`Follow`.

Declarations are plain data: importing one imports no reader and no view (the command line
lists the sources without loading them).

>>> toy = Source("toy", "a toy source", readers=("lines",), package="toysrc")
>>> toy.module("lines")
'toysrc.lines'
>>> Source("toy", "", exports={"toy-json": "out:write"}, package="toysrc").export_target("toy-json")
('toysrc.out', 'write')
>>> Option("colour", "red", "the colour", choices=("red", "blue")).check("green")
Traceback (most recent call last):
...
ValueError: colour='green': expected one of red, blue
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple, Sequence


@dataclass(frozen=True)
class Option:
    """One load option of a source: its name (a keyword of :class:`~.options.LoadOptions`
    and of ``Lineage.load``), default, help, the values it may take, the environment variable
    and profile key that set it (``[defaults] <name>``), the command-line option of ``lineage
    load`` (``cli``), whether the profile file may set it (``profile``)."""

    name: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    env: str | None = None
    cli: str | None = None
    metavar: str | None = None
    profile: bool = False

    def check(self, value: Any) -> Any:
        """``value`` when this option may take it (lower-cased when it has choices)."""
        if value is None or not self.choices:
            return value
        text = str(value).strip().lower()
        if text not in self.choices:
            raise ValueError(f"{self.name}={value!r}: expected one of {', '.join(self.choices)}")
        return text


class Section(NamedTuple):
    """A table of a report: its title, the template that fills it, the template parameter
    that gets the report's uid, and the key columns the table shows (``()``: every column;
    a click on a row shows all of them)."""

    title: str
    template: str
    param: str
    columns: tuple[str, ...] = ()


class Overview(NamedTuple):
    """How a big run is drawn: only its nodes of ``kinds``, joined by edges of ``types``
    (a node with an edge of an earlier type keeps no edge of a later one, so a call tree
    stays a tree), edges of ``flip`` drawn from their target to their source (a caller
    before its callees), when the run's drawing has more than ``above`` nodes."""

    kinds: frozenset[str]
    types: tuple[str, ...]
    above: int = 0
    flip: frozenset[str] = frozenset()


#: ``outcome(lin, uid, is_run)``: what a report's "what happened" box says of a node of one
#: kind, as :class:`lineage.sources.outcome.Outcome` takes it: ``headline``, ``status``,
#: ``failures`` (``{"name", "uid", "error", "detail"}``: what failed, with its deciding error
#: line), ``blocked`` (what it kept from running), ``counts`` (``(what is counted, number,
#: how it is counted)``), ``across`` (``(label, value)``: binary, libraries, anomalies).
Outcome = Callable[[Any, str, bool], dict]

#: ``panel(lin, uid, is_run)``: the report's extra data for a node of one kind, as the
#: renderer's keyword arguments (``attempts``: a timeline of attempts; ``details``: a clicked
#: node's details); ``{}`` for none.
Panel = Callable[[Any, str, bool], dict]


@dataclass(frozen=True)
class Views:
    """What the generic answers show of one source (each by kind label).

    - ``run_sections``: tables beside a run's graph; ``node_sections``: tables beside a
      node's lineage; ``node_structure``: ``(template, param)`` whose ``uid`` column adds
      nodes to a node's drawing (a call stack);
    - ``run_lineage``: run kinds whose view draws the run's lineage too; ``run_graphs``: run
      kind -> ``(template, what it draws)`` drawn instead of the run's parts;
    - ``run_overview``: run kind -> :class:`Overview`: how a big run is drawn (a workflow's
      jobs, a program run's call trees);
    - ``outcomes``: kind -> :data:`Outcome`, the report's "what happened" box;
    - ``panels``: kind -> :data:`Panel`; ``labels(nodes, edges)``: short labels of drawn nodes;
    - ``explainers``: kind -> ``explain(lin, node)``, the ``why`` of a node;
    - ``differs``: kind -> ``differ(lin, first, second)``, the ``diff`` rows of two runs;
      ``linked_runs``: run kinds whose diff also compares what ``lineage link`` joined to
      their parts;
    - ``export_children``: kinds of a run's parts that get OpenLineage run events of their
      own; ``export_through``: relationship types through which such a part's files come;
      ``run_starts``: run kind -> ``start(by_uid, edges, uid)``, seconds since the epoch a
      run began when the run itself records no start (a Chimbuko program: its first rank);
    - ``link_views``: role of :class:`lineage.linking.rules.Inputs` -> template of its rows;
    - ``crate_runs``: run kind -> ``describe(lin, uid)``, the run as a Workflow Run RO-Crate
      shows it (:class:`~.crate.CrateRun`); ``crate_parts``: kind -> ``describe(lin, uids)``,
      what linked nodes of that kind add to the crate (:mod:`.crate`).
    """

    run_sections: Mapping[str, Sequence[Section]] = field(default_factory=dict)
    node_sections: Mapping[str, Sequence[Section]] = field(default_factory=dict)
    node_structure: Mapping[str, Sequence[tuple[str, str]]] = field(default_factory=dict)
    run_lineage: frozenset[str] = frozenset()
    run_graphs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    run_overview: Mapping[str, Overview] = field(default_factory=dict)
    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    panels: Mapping[str, Panel] = field(default_factory=dict)
    labels: Callable[[list, list], dict] | None = None
    explainers: Mapping[str, Callable[[Any, dict], dict]] = field(default_factory=dict)
    differs: Mapping[str, Callable[[Any, dict, dict], list]] = field(default_factory=dict)
    linked_runs: frozenset[str] = frozenset()
    export_children: frozenset[str] = frozenset()
    export_through: frozenset[str] = frozenset()
    run_starts: Mapping[str, Callable[[dict, list, str], float | None]] = field(
        default_factory=dict)
    link_views: Mapping[str, str] = field(default_factory=dict)
    crate_runs: Mapping[str, Callable[[Any, str], Any]] = field(default_factory=dict)
    crate_parts: Mapping[str, Callable[[Any, list], list]] = field(default_factory=dict)


@dataclass(frozen=True)
class Follow:
    """How ``lineage watch`` follows one input format while it is written (:mod:`lineage.watch`).

    - ``how="lines"``: a file that grows by whole lines; each increment is the lines appended
      since the last one, read by ``stream`` (``"module:function"`` of the source's package):
      ``function()`` returns an object whose ``records(lines, report, path)`` yields the
      records of ``(line number, text)`` pairs and keeps what it must remember (a job's
      earlier states) for the next call; ``errors`` is how undecodable bytes are decoded
      (``strict``: reported);
    - ``how="files"``: a folder that grows by files; each new or changed file is loaded whole
      once it has stopped changing;
    - ``how="rows"``: a database that grows by rows (and updates some of them); ``stream``
      names ``function()`` returning an object whose ``snapshot(path, marks)`` opens one
      read transaction (None: the database is busy, look again later; ``marks``: what the
      last increment read, None when nothing was). A snapshot says what it
      holds (``marks``, JSON-ready), whether it holds anything beyond the ``marks`` of the
      last increment (``news(marks)``), yields the records of that (``records(marks,
      report)``; ``marks`` None: nothing was read before) and ends its transaction
      (``close()``).

    >>> Follow("lines", "follow:bp_stream").target("lineage.sources.pegasus")
    ('lineage.sources.pegasus.follow', 'bp_stream')
    >>> Follow("tail")
    Traceback (most recent call last):
    ...
    ValueError: follow 'tail': expected lines, files or rows
    """

    how: str
    stream: str = ""
    errors: str = "strict"

    def __post_init__(self) -> None:
        if self.how not in ("lines", "files", "rows"):
            raise ValueError(f"follow {self.how!r}: expected lines, files or rows")
        if self.how in ("lines", "rows") and ":" not in self.stream:
            raise ValueError(f"a follow of {self.how} names its reader as 'module:function'")

    def target(self, package: str) -> tuple[str, str]:
        """The dotted module and the function name of the stream factory."""
        module, _, function = self.stream.partition(":")
        return f"{package}.{module}", function


@dataclass(frozen=True)
class Source:
    """One source: its name (the first part of its uids and of its templates' names), what
    it reads, its reader modules in detection order, its load options, and where its views
    are (a module of the package holding ``VIEWS``, or None). ``package`` is the Python
    package of the folder (default ``lineage.sources.<name>``); ``title`` its name as people
    write it (default: the name capitalised); ``demo`` the module of the package whose
    ``write(campaign, directory)`` writes its files of the demo campaign (None: it has none).
    ``exports`` maps the export formats it writes to ``"module:function"`` of the package:
    ``function(nodes, edges, path, roots)`` writes a subgraph's rows as that format.
    ``follows`` maps the input formats ``lineage watch`` follows to their :class:`Follow`."""

    name: str
    doc: str
    readers: tuple[str, ...] = ()
    title: str = ""
    options: tuple[Option, ...] = ()
    views_module: str | None = "views"
    demo: str | None = None
    package: str = ""
    exports: Mapping[str, str] = field(default_factory=dict)
    follows: Mapping[str, Follow] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"source name {self.name!r} is not an identifier")
        if not self.package:
            object.__setattr__(self, "package", f"lineage.sources.{self.name}")
        if not self.title:
            object.__setattr__(self, "title", self.name.capitalize())

    def module(self, name: str) -> str:
        """The dotted name of a module of the source's package."""
        return f"{self.package}.{name}"

    def export_target(self, fmt: str) -> tuple[str, str]:
        """The dotted module and the function name of the writer of export format ``fmt``."""
        module, _, function = self.exports[fmt].partition(":")
        return self.module(module), function

    @cached_property
    def folder(self) -> Path:
        """The source's folder."""
        return Path(importlib.import_module(self.package).__file__).parent

    @property
    def cypher_dir(self) -> Path:
        """The folder of the source's templates (``<folder>/cypher``)."""
        return self.folder / "cypher"

    def formats(self) -> list:
        """The formats of its readers, in detection order."""
        out = []
        for reader in self.readers:
            out.extend(importlib.import_module(self.module(reader)).FORMATS)
        return out

    @cached_property
    def views(self) -> Views:
        """Its :class:`Views` (empty when it declares none)."""
        if self.views_module is None:
            return Views()
        return importlib.import_module(self.module(self.views_module)).VIEWS
