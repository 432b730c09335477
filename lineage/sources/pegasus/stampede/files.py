"""The files of a Stampede database into records, in both layouts Pegasus has had.

- Schema 6 on (Pegasus 4.6 and later): ``workflow_files(wf_id, task_id, lfn_id, file_type)``
  says which task read or wrote which file; the replica catalogue is ``rc_lfn(lfn_id, lfn)``
  with ``rc_pfn(lfn_id, pfn, site)`` and ``rc_meta(lfn_id, key, value)``.
- Before (schema 5 and older): ``file(file_id, task_id, lfn, estimated_size, md_checksum,
  type)``; the replica catalogue is one ``rc_lfn(id, lfn, pfn, site)`` row per replica, with
  ``rc_attr(id, name, value)`` of that replica; before schema 1 ``rc_lfn`` has no ``site``
  and the site is the replica's ``pool`` attribute.

Replica-catalogue files belong to the workflows ``workflow_files`` names, else to the
database's one root workflow (the catalogue has no workflow of its own).

>>> replica_layout({"id", "lfn", "pfn", "site"}), replica_layout({"lfn_id", "lfn"})
('per-replica', 'per-lfn')
"""

from __future__ import annotations

from typing import Iterator

from .... import model
from ....model.records import Edge, Node, Record
from .. import mapping as pc
from .. import model as pegasus_model
from .runs import Reader
from .schema import integer, prop


#: The file tables of each layout.
LAYOUT_TABLES = {"per-lfn": ("workflow_files", "rc_lfn", "rc_pfn", "rc_meta"),
                 "per-replica": ("file", "rc_lfn", "rc_attr")}


def replica_layout(columns) -> str:
    """``per-lfn`` (``rc_lfn`` keyed by ``lfn_id``, schema 6 on) or ``per-replica``."""
    return "per-lfn" if "lfn_id" in columns else "per-replica"


def other_layout_tables(tables: dict) -> set[str]:
    """The file tables of the layout a database (its reflected ``tables``) does not use.

    >>> sorted(other_layout_tables({"file": None}))
    ['rc_meta', 'rc_pfn', 'workflow_files']
    """
    if "rc_lfn" in tables:
        layout = replica_layout(tables["rc_lfn"].c.keys())
    else:
        layout = "per-replica" if "file" in tables or "rc_attr" in tables else "per-lfn"
    return set(LAYOUT_TABLES["per-lfn" if layout == "per-replica" else "per-replica"]) - set(
        LAYOUT_TABLES[layout])


def _usage(uid: str, task_uid: str, kind: str | None) -> Record:
    """The edge between a task and a file it reads (or writes, for ``output``)."""
    kind = (kind or "").lower()
    if kind == "output":
        return Edge(model.WAS_GENERATED_BY, uid, task_uid)
    return Edge(model.USED, task_uid, uid, {"direction": "input" if kind == "input" else "unknown"})


def _meta_props(lfn: str, key: str, value) -> dict:
    props = {"lfn": lfn, prop(key): value}
    if key == "checksum.value":
        props["checksum"] = value
    elif key == "size":
        try:
            props["size"] = int(value)
        except (TypeError, ValueError):
            pass
    return props


class Files:
    """Reads the file tables with the helpers (counts, workflow ids) of a run :class:`Reader`."""

    def __init__(self, reader: Reader):
        self.r = reader
        self.s = reader.s

    def records(self) -> Iterator[Record]:
        """Task files (``workflow_files`` or ``file``), then the replica catalogue."""
        yield from self.workflow_files()
        yield from self.task_files()
        if not self.s.has("rc_lfn"):
            return
        roots = [w.uuid for w in self.r.wfs.values() if w.parent is None]
        fallback = roots[0] if len(roots) == 1 else None
        if replica_layout(self.s.t["rc_lfn"].c.keys()) == "per-lfn":
            owners = self.lfn_owners() if self.s.has("workflow_files") else {}
            yield from self.replicas(self.per_lfn_replicas(), owners, fallback)
            if self.s.has("rc_meta"):
                yield from self.metadata(self.per_lfn_metadata(), "rc_meta", owners, fallback)
        else:
            yield from self.replicas(self.per_replica_rows(), {}, fallback)
            if self.s.has("rc_attr"):
                yield from self.metadata(self.per_replica_metadata(), "rc_attr", {}, fallback)

    # ----------------------------------------------------------- files of tasks
    def workflow_files(self) -> Iterator[Record]:
        from sqlalchemy import select

        s, r = self.s, self.r
        if not (s.has("workflow_files", "rc_lfn", "task") and "lfn_id" in s.t["rc_lfn"].c):
            return
        wf_files, lfn, task = s.t["workflow_files"], s.t["rc_lfn"], s.t["task"]
        stmt = select(s.c("workflow_files", "wf_id"), s.c("workflow_files", "lfn_id"),
                      s.c("workflow_files", "file_type"), s.c("rc_lfn", "lfn"),
                      s.c("task", "abs_task_id")).select_from(
            wf_files.join(lfn, wf_files.c.lfn_id == lfn.c.lfn_id)
            .join(task, wf_files.c.task_id == task.c.task_id))
        for row in s.stream(stmt):
            yield from self.task_file("workflow_files", row["workflow_files_wf_id"],
                                      row["rc_lfn_lfn"], f"lfn_id {row['workflow_files_lfn_id']}",
                                      row["task_abs_task_id"], row["workflow_files_file_type"], {})
        r.orphans("workflow_files", ("lfn_id", lfn, lfn.c.lfn_id),
                  ("task_id", task, task.c.task_id))

    def task_files(self) -> Iterator[Record]:
        """``file`` rows (schema 5 and older): a task's file, its size, checksum, direction."""
        from sqlalchemy import select

        s, r = self.s, self.r
        if s.has("file") and not s.has("task") and (n := s.rows("file")):
            r.count("file", n)
            r.drop("orphan_rows", "file", "no task table", n)
        if not s.has("file", "task"):
            return
        files, task = s.t["file"], s.t["task"]
        stmt = select(s.c("file", "lfn"), s.c("file", "type"), s.c("file", "estimated_size"),
                      s.c("file", "md_checksum"), s.c("task", "wf_id"),
                      s.c("task", "abs_task_id")).select_from(
            files.join(task, files.c.task_id == task.c.task_id))
        for row in s.stream(stmt):
            yield from self.task_file("file", row["task_wf_id"], row["file_lfn"],
                                      f"task {row['task_abs_task_id']}", row["task_abs_task_id"],
                                      row["file_type"],
                                      {"size": integer(row, "file_estimated_size"),
                                       "checksum": row["file_md_checksum"]})
        r.orphans("file", ("task_id", task, task.c.task_id))

    def task_file(self, table: str, wf_id, name: str | None, row_name: str, task_id: str,
                  kind: str | None, props: dict) -> Iterator[Record]:
        """A file a task of workflow ``wf_id`` read or wrote (one row of ``table``), or the
        row counted as not loaded (unknown workflow, no file name)."""
        r = self.r
        r.count(table)
        xwf = r.uuid(wf_id)
        if xwf is None:
            r.drop("orphan_rows", table, f"wf_id {wf_id}")
            return
        if not name:
            r.drop("rows_without_id", table, f"{row_name}: no lfn")
            return
        uid = pc.file_uid(xwf, name)
        yield Node(pegasus_model.FILE, uid, {"name": name, "lfn": name, **props})
        yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))
        yield _usage(uid, pc.task_uid(xwf, task_id), kind)

    # ----------------------------------------------------------- the replica catalogue
    def per_lfn_replicas(self) -> Iterator[tuple]:
        """``(lfn_id, lfn, pfn, site)`` by ``lfn_id``: one per pfn, or one with no pfn."""
        from sqlalchemy import select

        s, r = self.s, self.r
        lfn = s.t["rc_lfn"]
        if not s.has("rc_pfn"):
            stmt = select(s.c("rc_lfn", "lfn_id"), s.c("rc_lfn", "lfn")).order_by(lfn.c.lfn_id)
            for row in s.stream(stmt):
                r.count("rc_lfn")
                yield row["rc_lfn_lfn_id"], row["rc_lfn_lfn"], None, None
            return
        pfn = s.t["rc_pfn"]
        stmt = select(s.c("rc_lfn", "lfn_id"), s.c("rc_lfn", "lfn"), s.c("rc_pfn", "lfn_id"),
                      s.c("rc_pfn", "pfn"), s.c("rc_pfn", "site")).select_from(
            lfn.outerjoin(pfn, lfn.c.lfn_id == pfn.c.lfn_id)).order_by(lfn.c.lfn_id)
        last = object()
        for row in s.stream(stmt):
            if row["rc_lfn_lfn_id"] != last:  # one row of the join per pfn; one rc_lfn row
                r.count("rc_lfn")
                last = row["rc_lfn_lfn_id"]
            r.count("rc_pfn", int(row["rc_pfn_lfn_id"] is not None))
            yield row["rc_lfn_lfn_id"], row["rc_lfn_lfn"], row["rc_pfn_pfn"], row["rc_pfn_site"]
        r.orphans("rc_pfn", ("lfn_id", lfn, lfn.c.lfn_id))

    def per_replica_rows(self) -> Iterator[tuple]:
        """``(lfn, lfn, pfn, site)`` of each ``rc_lfn`` replica row, by lfn; the site is
        ``rc_lfn.site``, or (before schema 1) the replica's ``pool`` attribute."""
        from sqlalchemy import and_, select

        s = self.s
        lfn = s.t["rc_lfn"]
        source, site = lfn, None
        if "site" not in lfn.c and s.has("rc_attr"):
            attr = s.t["rc_attr"]
            source = lfn.outerjoin(attr, and_(attr.c.id == lfn.c.id, attr.c.name == "pool"))
            site = attr.c.value.label("rc_lfn_site")
            s.lacks("rc_lfn", "site")
        stmt = select(s.c("rc_lfn", "lfn"), s.c("rc_lfn", "pfn"),
                      s.c("rc_lfn", "site") if site is None else site).select_from(
            source).order_by(lfn.c.lfn, lfn.c.id)
        for row in s.stream(stmt):
            self.r.count("rc_lfn")
            yield row["rc_lfn_lfn"], row["rc_lfn_lfn"], row["rc_lfn_pfn"], row["rc_lfn_site"]

    def replicas(self, rows: Iterator[tuple], owners: dict, fallback: str | None
                 ) -> Iterator[Record]:
        """One File per logical file of ``(key, lfn, pfn, site)`` rows (grouped by key), in
        each workflow that owns it, with its pfns and their sites."""
        r = self.r
        unowned = 0
        group: list = []

        def flush(rows) -> Iterator[Record]:
            nonlocal unowned
            key, name = rows[0][0], rows[0][1]
            xwfs = owners.get(key) or ([fallback] if fallback else [])
            if not xwfs:
                unowned += 1
                return
            pfns = [row[2] for row in rows if row[2]]
            sites = [row[3] or "" for row in rows if row[2]]
            for xwf in xwfs:
                uid = pc.file_uid(xwf, name)
                yield Node(pegasus_model.FILE, uid, {
                    "name": name, "lfn": name,
                    "pfn": pfns[0] if pfns else None, "site": sites[0] if sites else None,
                    "pfns": pfns or None, "pfn_sites": sites or None,
                })
                yield Edge(model.PART_OF, uid, pc.workflow_uid(xwf))

        for row in rows:
            if group and group[0][0] != row[0]:
                yield from flush(group)
                group = []
            group.append(row)
        if group:
            yield from flush(group)
        if unowned:
            r.report.warn(f"{r.where}: {unowned} replica-catalog files belong to no workflow "
                          "(no workflow_files rows, several root workflows); skipped")
            r.report.extra["unowned_files"] = unowned

    def per_lfn_metadata(self) -> Iterator[tuple]:
        """``(lfn_id, lfn, key, value)`` of ``rc_meta``."""
        from sqlalchemy import select

        s = self.s
        lfn, meta = s.t["rc_lfn"], s.t["rc_meta"]
        stmt = select(s.c("rc_lfn", "lfn_id"), s.c("rc_lfn", "lfn"), s.c("rc_meta", "key"),
                      s.c("rc_meta", "value")).select_from(
            meta.join(lfn, meta.c.lfn_id == lfn.c.lfn_id))
        for row in s.stream(stmt):
            yield row["rc_lfn_lfn_id"], row["rc_lfn_lfn"], row["rc_meta_key"], row["rc_meta_value"]
        self.r.orphans("rc_meta", ("lfn_id", lfn, lfn.c.lfn_id))

    def per_replica_metadata(self) -> Iterator[tuple]:
        """``(lfn, lfn, name, value)`` of ``rc_attr`` (an attribute of one replica)."""
        from sqlalchemy import select

        s = self.s
        lfn, attr = s.t["rc_lfn"], s.t["rc_attr"]
        stmt = select(s.c("rc_lfn", "lfn"), s.c("rc_attr", "name"),
                      s.c("rc_attr", "value")).select_from(attr.join(lfn, attr.c.id == lfn.c.id))
        for row in s.stream(stmt):
            yield row["rc_lfn_lfn"], row["rc_lfn_lfn"], row["rc_attr_name"], row["rc_attr_value"]
        self.r.orphans("rc_attr", ("id", lfn, lfn.c.id))

    def metadata(self, rows: Iterator[tuple], table: str, owners: dict,
                 fallback: str | None) -> Iterator[Record]:
        """File properties from ``(key, lfn, name, value)`` metadata rows of ``table``."""
        for key, lfn, name, value in rows:
            self.r.count(table)
            for xwf in owners.get(key) or ([fallback] if fallback else []):
                yield Node(pegasus_model.FILE, pc.file_uid(xwf, lfn), _meta_props(lfn, name, value))

    def lfn_owners(self) -> dict[int, list[str]]:
        """lfn_id -> workflows that use it (workflow_files is small next to jobstate)."""
        from sqlalchemy import select

        wf_files = self.s.t["workflow_files"]
        out: dict[int, list[str]] = {}
        stmt = select(wf_files.c.lfn_id, wf_files.c.wf_id).distinct()
        for row in self.s.stream(stmt):
            xwf = self.r.uuid(row["wf_id"])
            if xwf:  # rows of an unknown wf_id are counted by workflow_files()
                out.setdefault(row["lfn_id"], []).append(xwf)
        return out
