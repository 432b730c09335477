"""``lineage watch``: follow inputs while they are written, each increment one load.

:class:`Watcher` knows the followed files under the paths it is given and takes one look
at each with :meth:`Watcher.poll_once` (the step every test drives): new files are
recognised, each followed file writes what was added (:mod:`.follow`), then ``lineage link``
runs over the graph when something was added (at most every ``link_every`` seconds, in a
thread of its own: the next increments do not wait for it; its rules are in the
:class:`Poll` of the look that finds it ended, and :meth:`Watcher.finish` waits for it), the
``:Failed`` labels are refreshed, and the reports of the runs the increments touched are
written again. :meth:`Watcher.run` repeats it when the file system says something changed
(watchdog's observer) and every ``interval`` seconds in any case; on file systems whose
changes the kernel does not see (NFS, Lustre, GPFS, ...: :func:`events_seen`) or with
``poll=True`` it looks every ``interval`` seconds only.

>>> events_seen("/", mounts=[("/", "ext4")]), events_seen("/home/x", mounts=[("/", "ext4"), ("/home", "nfs4")])
(True, False)
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..errors import LineageError
from ..load import status_labels
from ..load.writer import Writer, ensure_schema
from ..sources import registry
from ..sources.registry import HEAD_BYTES
from .follow import FileFollower, LineFollower, Step
from .rows import RowFollower

log = logging.getLogger("lineage.watch")

#: file systems whose changes made on other hosts no event reports
NETWORK_FS = {"nfs", "nfs4", "lustre", "gpfs", "cifs", "smb3", "smbfs", "beegfs", "panfs",
              "ceph", "fuse.sshfs", "afs", "9p", "fuse.glusterfs", "glusterfs", "wekafs"}


def mount_table() -> list[tuple[str, str]]:
    """``(mount point, file system type)`` of every mount (``/proc/self/mounts``)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as fh:
            rows = [line.split() for line in fh]
    except OSError:
        return []
    return [(r[1].replace("\\040", " "), r[2]) for r in rows if len(r) >= 3]


def events_seen(path: str, mounts: list[tuple[str, str]] | None = None) -> bool:
    """Whether file-system events report changes under ``path``: False on a network file
    system (the mount holding it, by the longest mount point)."""
    mounts = mount_table() if mounts is None else mounts
    best, kind = "", ""
    target = str(Path(path).resolve())
    for point, fstype in mounts:
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best):
            best, kind = point, fstype
    return kind not in NETWORK_FS


@dataclass
class Poll:
    """What one :meth:`Watcher.poll_once` did."""

    steps: list[Step] = field(default_factory=list)
    linked: dict | None = None
    #: a file has more whole lines than one look writes: look again at once
    behind: bool = False
    #: files found by this look that no source follows: ``(path, format)``
    not_followed: list[tuple[str, str]] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)

    @property
    def loaded(self) -> list[Step]:
        """The increments written."""
        return [s for s in self.steps if s.result is not None and s.result.status == "loaded"]

    @property
    def errors(self) -> list[str]:
        return [s.error for s in self.steps if s.error]


class Watcher:
    """Follow the files under ``paths`` into the graph of ``lin`` (a :class:`lineage.api.Lineage`)."""

    def __init__(self, lin, paths: Iterable[str | os.PathLike], *, options=None,
                 link: bool = True, link_every: float = 10.0, report_dir: str | None = None,
                 settle: float = 1.0, max_increment: int | None = None, source: str = "auto"):
        self.lin = lin
        self.paths = [str(Path(p).resolve()) for p in paths]
        for p in self.paths:
            if not os.path.exists(p):
                raise LineageError(f"{p}: no such file or directory")
        self.options = registry.load_options(options or lin.settings.load)
        self.link, self.link_every = link, link_every
        self.report_dir = report_dir
        self.settle = settle
        self.max_increment = max_increment
        self.source = source
        self.writer = Writer(lin.graph.driver, lin.graph.database)
        ensure_schema(lin.graph.driver, lin.graph.database)
        self.followers: dict[str, LineFollower | FileFollower | RowFollower] = {}
        self.unfollowed: dict[str, int] = {}  # path -> size when no followed format read it
        self.ignored: dict[str, str] = {}  # path -> its format (read, but not followed)
        self.last_link = float("-inf")
        self.link_due = False
        #: the link running beside the loop (increments keep flowing while it runs)
        self._linker: concurrent.futures.Future | None = None
        self._link_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="lineage-link")
        self.runs_due: set[str] = set()
        self.wake = threading.Event()  # set by file-system events and by stop()
        self.stopping = False

    # ------------------------------------------------------------ finding files
    def _files(self) -> Iterable[str]:
        for top in self.paths:
            if os.path.isfile(top):
                yield top
                continue
            for folder, dirs, files in os.walk(top):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        yield os.path.join(folder, name)

    def discover(self) -> list[tuple[str, str]]:
        """Recognise the files not seen yet; a file no format recognises is looked at again
        while its start (the part formats are recognised by) is still growing. Returns the
        files found that are read by a format no source follows (``(path, format)``)."""
        found = []
        for path in self._files():
            if path in self.followers or path in self.ignored:
                continue
            try:
                size = os.path.getsize(path)
            except OSError:
                continue
            if self.unfollowed.get(path) == size or size == 0:
                continue
            try:
                fmt = registry.detect(Path(path), self.source)
            except OSError:
                continue
            follow = registry.follow_of(fmt.name) if fmt else None
            if follow is None:
                if fmt is not None:
                    self.ignored[path] = fmt.name
                    found.append((path, fmt.name))
                elif size >= HEAD_BYTES:
                    self.ignored[path] = "unrecognised"
                else:
                    self.unfollowed[path] = size
                continue
            self.unfollowed.pop(path, None)
            if follow.how == "rows":
                self.followers[path] = RowFollower(path, fmt, self.options)
            elif follow.how == "lines":
                kwargs = {"max_increment": self.max_increment} if self.max_increment else {}
                self.followers[path] = LineFollower(path, fmt, self.options, **kwargs)
            else:
                self.followers[path] = FileFollower(path, fmt, self.options, self.settle)
        return found

    # ------------------------------------------------------------ one look
    def poll_once(self) -> Poll:
        """Look at every followed file once and write what was added (see the module)."""
        poll = Poll(not_followed=self.discover())
        for path in sorted(self.followers):
            follower = self.followers[path]
            poll.steps.extend(follower.step(self.writer))
            poll.behind = poll.behind or getattr(follower, "behind", False)
        driver, database = self.lin.graph.driver, self.lin.graph.database
        if poll.loaded:
            status_labels.refresh_quietly(driver, database)
            self.link_due = self.link
            for step in poll.loaded:
                self.runs_due |= step.runs
        poll.linked = self._link_done()
        if (self.link and self.link_due and self._linker is None
                and time.monotonic() - self.last_link >= self.link_every):
            self.last_link, self.link_due = time.monotonic(), False
            self._linker = self._link_pool.submit(self.lin.link)
        if self.report_dir and self.runs_due:
            poll.reports = self._reports(sorted(self.runs_due))
            self.runs_due = set()
        return poll

    def _link_done(self, wait: bool = False) -> dict | None:
        """The rules of the link that ran beside the loop, once it has ended (``wait``: wait
        for it); a link that failed is logged and is due again."""
        linker = self._linker
        if linker is None or not (wait or linker.done()):
            return None
        self._linker = None
        try:
            return linker.result().rules
        except Exception as exc:  # noqa: BLE001 (the loop goes on; the next link retries)
            log.warning("link failed (tried again at the next look): %s", exc)
            self.link_due = self.link
            return None

    def _reports(self, runs: list[str]) -> list[str]:
        os.makedirs(self.report_dir, exist_ok=True)
        written = []
        for uid in runs:
            path = os.path.join(self.report_dir, re.sub(r"[^A-Za-z0-9._-]", "_", uid) + ".html")
            written.append(self.lin.report(uid, path))
        return written

    def finish(self) -> Poll:
        """A last look, then the link and reports still due whatever the time."""
        poll = self.poll_once()
        poll.linked = self._link_done(wait=True) or poll.linked
        if self.link and self.link_due:
            poll.linked = self.lin.link().rules
            self.last_link, self.link_due = time.monotonic(), False
        if self.report_dir and self.runs_due:
            poll.reports += self._reports(sorted(self.runs_due))
            self.runs_due = set()
        return poll

    # ------------------------------------------------------------ the loop
    def run(self, on_poll: Callable[[Poll], None] | None = None, interval: float = 2.0,
            poll: bool = False, quiet_after_event: float = 0.05) -> str:
        """Look after every file-system event and every ``interval`` seconds until
        :meth:`stop`; returns how changes were noticed (``events`` or ``polling``)."""
        observer = None if poll else _observer(self.paths, self.wake)
        how = "events" if observer is not None else "polling"
        log.info("watching %s by %s", ", ".join(self.paths), how)
        try:
            while not self.stopping:
                result = self.poll_once()
                if on_poll is not None:
                    on_poll(result)
                if result.behind:
                    continue
                if self.wake.wait(interval) and not self.stopping:
                    time.sleep(quiet_after_event)  # a burst of writes: one look
                    self.wake.clear()
        finally:
            if observer is not None:
                observer.stop()
                observer.join()
        result = self.finish()
        if on_poll is not None:
            on_poll(result)
        return how

    def stop(self) -> None:
        """End :meth:`run` after its current look (from a signal handler or another thread)."""
        self.stopping = True
        self.wake.set()


def _observer(paths: list[str], changed: threading.Event):
    """A started watchdog observer setting ``changed`` on any event under ``paths``, or None
    when events are not available there (a network file system, no inotify left)."""
    if not all(events_seen(p) for p in paths):
        return None
    try:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer
    except ImportError:
        return None

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event):  # noqa: D102 (watchdog's callback)
            changed.set()

    observer = Observer()
    try:
        for p in paths:
            folder = p if os.path.isdir(p) else os.path.dirname(p)
            observer.schedule(Handler(), folder, recursive=os.path.isdir(p))
        observer.start()
    except OSError as exc:  # inotify watches used up, a file system without events
        log.warning("no file-system events (%s): polling instead", exc)
        return None
    return observer
