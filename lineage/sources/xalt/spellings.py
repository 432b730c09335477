"""Every spelling of an XALT record the producer has written, in one table, and the
function that rewrites a record to today's spelling before it is mapped.

XALT changed its records over the years (LGPL-2.1, github.com/xalt/xalt):

- the oldest run records (``src/xalt_run_submission.in.py``, XALT 0.x) keep the times and
  counts in ``userT`` (no ``userDT``, no ``cmdlineA``); XALT's loader of the day read
  ``runT['userT']['start_time']`` (``src/XALTdb.py``);
- the oldest link records (``src/xalt_generate_linkdata.py`` / ``.in.py``) are flat: the
  fields of ``resultT`` at the top, ``linkA`` a list of paths (later ``[path, sha1]``
  pairs), ``build_host`` (an FQDN) before ``build_syshost``; XALT's loader still accepts
  them (``resultT = linkT.get("resultT") or linkT``, ``py_src/XALTdb.py``);
- the watermark (``xaltLinkT``, the ``.xalt`` ELF section) was spelled ``Build.UUID``,
  ``Build.User``... by ``src/xalt_generate_assembly.py``, ``Build_UUID``, ``Build_User``...
  by ``src/linker/xalt_generate_watermark.C``; the loader reads
  ``xaltLinkT.get('Build.UUID') or xaltLinkT.get('Build_UUID')``.

:data:`ALIASES` maps each older path to today's; :func:`canonical` applies it (today's
spelling wins when both are present) and says how many keys it moved.

>>> rec = {"userT": {"run_uuid": "u", "start_time": 5.0}, "xaltLinkT": {"Build.UUID": "b"}}
>>> canonical(rec, "run")
2
>>> rec["userDT"], rec["xaltLinkT"]
({'start_time': 5.0}, {'Build_UUID': 'b'})
"""

from __future__ import annotations

from typing import NamedTuple


class Alias(NamedTuple):
    """One older spelling: the record kind, the older path and today's path (a path is
    ``(table, key)``; table ``""`` is the record's top level), and where XALT wrote it."""

    kind: str
    old: tuple[str, str]
    new: tuple[str, str]
    source: str


_RUN_PY = "xalt/xalt src/xalt_run_submission.in.py (userT); src/XALTdb.py reads runT['userT'][...]"
_LINK_PY = ("xalt/xalt src/xalt_generate_linkdata.in.py (flat resultT); "
            "py_src/XALTdb.py: resultT = linkT")
_LINK_OLDEST = "xalt/xalt src/xalt_generate_linkdata.py (build_host = socket.getfqdn())"
_MARK_PY = ("xalt/xalt src/xalt_generate_assembly.py / .in.py (<Build.X>); "
            "XALTdb.py reads Build.UUID")

#: Every older spelling, by record kind. Keys XALT wrote under one name only are not here.
ALIASES: tuple[Alias, ...] = (
    # run: times and counts in userT (XALT 0.x) -> userDT
    *(Alias("run", ("userT", k), ("userDT", k), _RUN_PY)
      for k in ("start_time", "end_time", "run_time", "num_cores", "num_nodes", "num_tasks",
                "num_threads")),
    # run: the watermark's dotted keys (XALT 0.x) -> underscores
    *(Alias("run", ("xaltLinkT", f"Build.{k}"), ("xaltLinkT", f"Build_{k}"), _MARK_PY)
      for k in ("UUID", "Syshost", "compiler", "OS", "User", "date", "Epoch")),
    Alias("run", ("xaltLinkT", "Build.Machine"), ("xaltLinkT", "Build_Syshost"),
          "xalt/xalt src/xalt_generate_assembly.py (<Build.Machine>, the FQDN, before "
          "<Build.Syshost>)"),
    # link: the flat record (fields at the top, no resultT) -> resultT
    *(Alias("link", ("", k), ("resultT", k), _LINK_PY)
      for k in ("uuid", "link_program", "link_path", "build_user", "build_epoch", "exec_path",
                "hash_id", "wd", "build_syshost")),
    Alias("link", ("", "build_host"), ("resultT", "build_syshost"), _LINK_OLDEST),
)

#: Value forms that changed (not key names): each has a test too.
VALUE_FORMS: dict[str, str] = {
    "linkA entry as a bare path": "xalt/xalt src/xalt_generate_linkdata.py: linkA = sorted "
                                  "paths (later [path, sha1] pairs)",
    "sha1 placeholder 'unknown'": "xalt/xalt src/xalt_run_submission.py: v = 'unknown' when "
                                  "sha1sum fails (C writers write '0')",
}

#: The keys today's mapping reads or knowingly ignores, by table; any other key is counted
#: as an unknown item (``XALT key <table>.<key>``), so a spelling not in :data:`ALIASES`
#: never goes by unseen. ``envT`` and ``ptA`` hold arbitrary names and are not checked.
KNOWN_KEYS: dict[tuple[str, str], frozenset[str]] = {
    ("run", ""): frozenset({"crc", "cmdlineA", "hash_id", "libA", "ptA", "envT", "userT",
                            "userDT", "xaltLinkT", "XALT_measureT", "XALT_qaT"}),
    ("run", "userT"): frozenset({"cwd", "syshost", "run_uuid", "user", "exec_path", "exec_type",
                                 "exec_epoch", "execModify", "currentEpoch", "start_date",
                                 "job_id", "account", "queue", "submit_host", "scheduler",
                                 "container", "hostname", "exit_status", "job_num_cores"}),
    ("run", "userDT"): frozenset({"start_time", "end_time", "run_time", "probability",
                                  "num_tasks", "num_gpus", "num_cores", "num_nodes",
                                  "num_threads", "Build_Epoch", "exec_epoch", "currentEpoch",
                                  "sum_runs", "sum_times"}),
    ("run", "xaltLinkT"): frozenset({"XALT_Version", "Build_host", "Build_Syshost",
                                     "Build_compiler", "Build_compilerPath", "Build_OS",
                                     "Build_User", "Build_UUID", "Build_Year", "Build_date",
                                     "Build_LOADEDMODULES", "Build_LMFILES", "Build_CWD",
                                     "Build_Epoch", "Build.Year"}),
    ("link", ""): frozenset({"crc", "resultT", "linkA", "function", "link_line", "exit_code"}),
    ("link", "resultT"): frozenset({"uuid", "link_program", "link_path", "build_user",
                                    "build_epoch", "exec_path", "hash_id", "wd",
                                    "build_syshost", "exit_code"}),
    ("pkg", ""): frozenset({"crc", "program", "xalt_run_uuid", "package_name",
                            "package_version", "package_path"}),
}

_BY_KIND: dict[str, tuple[Alias, ...]] = {
    kind: tuple(a for a in ALIASES if a.kind == kind) for kind in ("run", "link", "pkg")}


def _table(rec: dict, name: str, create: bool = False) -> dict | None:
    if name == "":
        return rec
    table = rec.get(name)
    if isinstance(table, dict):
        return table
    if create and table is None:
        rec[name] = {}
        return rec[name]
    return None


def canonical(rec: dict, kind: str) -> int:
    """Rewrite ``rec`` (a decoded record of ``kind``) in place to today's spelling; the
    number of keys moved. Today's key, when present, keeps its value.

    >>> flat = {"uuid": "b1", "build_host": "login1.s2", "linkA": ["/usr/lib/crt1.o"]}
    >>> canonical(flat, "link"), flat["resultT"]
    (2, {'uuid': 'b1', 'build_syshost': 'login1.s2'})
    """
    moved = 0
    for alias in _BY_KIND.get(kind, ()):
        source = _table(rec, alias.old[0])
        if source is None or alias.old[1] not in source:
            continue
        target = _table(rec, alias.new[0], create=True)
        if target is None:  # the table is there but is not an object: leave it
            continue
        value = source.pop(alias.old[1])
        target.setdefault(alias.new[1], value)
        moved += 1
    return moved


def unknown_keys(rec: dict, kind: str) -> list[str]:
    """``table.key`` of every key of ``rec`` (already :func:`canonical`) that no XALT
    version is known to write.

    >>> unknown_keys({"userT": {"run_uuid": "u", "runUUID": "u"}, "userDT": {}}, "run")
    ['userT.runUUID']
    """
    out = []
    for (k, table), known in KNOWN_KEYS.items():
        if k != kind:
            continue
        values = _table(rec, table)
        if values is None:
            continue
        out.extend(f"{table}.{key}" if table else key for key in values if key not in known)
    return out
