"""Pegasus Stampede events written by ``pegasus-monitord --encoding json``: one JSON object
per line, read with the BP loader's event handlers.

monitord's JSON encoder (``Pegasus.monitoring.event_output.json_encode``) turns every
``.`` and ``__`` in a key into ``_``: ``xwf.id`` becomes ``xwf_id``, ``job_inst.id``
becomes ``job_inst_id``, ``child.job.id`` becomes ``child_job_id``. Keys are mapped back to
the BP spelling through the table of keys the handlers read (:data:`BP_KEYS`), so the
ambiguity of ``_`` (``type_desc`` stays ``type_desc``) never arises. The event name keeps
its dots (``stampede.job_inst.main.end``); ``ts`` is epoch seconds or ISO-8601.

>>> from_json_keys({"event": "stampede.job.edge", "xwf_id": "w", "child_job_id": "b"})
{'event': 'stampede.job.edge', 'xwf.id': 'w', 'child.job.id': 'b'}
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Iterator

from ...model.records import Record
from ..base import Format, LoadReport
from .bp import MAX_LINE, handle_events, utf8_lines

#: Every dotted key the Stampede event handlers read.
BP_KEYS = (
    "child.job.id", "child.task.id", "cluster.dur", "cluster.start", "dag.file.name",
    "dax.file", "dax.index", "dax.label", "dax.version", "inv.id", "job.id", "job_inst.id",
    "lfn.id", "local.dur", "parent.job.id", "parent.task.id", "parent.xwf.id",
    "planner.version", "root.xwf.id", "sched.id", "stderr.file", "stderr.text", "stdin.file",
    "stdout.file", "stdout.text", "submit.dir", "submit.hostname", "subwf.id", "task.id",
    "xwf.id",
)
_FROM_JSON = {k.replace(".", "_"): k for k in BP_KEYS}
_SIGNATURE = re.compile(rb'^\s*\{.*"event"\s*:\s*"stampede\.', re.S)


def from_json_keys(obj: dict) -> dict:
    """A JSON event's keys in BP spelling (unknown keys are kept as they are)."""
    return {_FROM_JSON.get(k, k): v for k, v in obj.items()}


def _as_text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value, sort_keys=True)


def _events(lines: Iterable[str], report: LoadReport, path: str) -> Iterator[tuple[int, dict]]:
    return json_events(enumerate(lines, start=1), report, path)


def json_events(numbered: Iterable[tuple[int, str]], report: LoadReport,
                path: str) -> Iterator[tuple[int, dict]]:
    """Decoded events of ``(line number, line)`` pairs, keys in BP spelling; malformed
    lines raise or (lenient) are skipped and counted."""
    for lineno, line in numbered:
        if len(line) > MAX_LINE:
            report.skip(path, lineno, f"a line shorter than {MAX_LINE} characters", line[:60])
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except RecursionError:
            report.skip(path, lineno, "a flat JSON event (no deep nesting)", line[:80])
            continue
        except json.JSONDecodeError as exc:
            report.skip(path, lineno, "one JSON object per line", f"{exc.msg}: {line[:80]}")
            continue
        if not isinstance(obj, dict):
            report.skip(path, lineno, "a JSON object", type(obj).__name__)
            continue
        ev = {k: t for k, t in ((k, _as_text(v)) for k, v in from_json_keys(obj).items())
              if t is not None}
        if not ev.get("event") or "ts" not in ev:
            report.skip(path, lineno, "a Stampede event with 'ts' and 'event' keys", line[:80])
            continue
        yield lineno, ev


def parse_json_lines(lines: Iterable[str], report: LoadReport,
                     path: str = "<lines>") -> Iterator[Record]:
    """Records from monitord JSON lines."""
    yield from handle_events(_events(lines, report, path), report, path)


def parse(path: Path, report: LoadReport) -> Iterator[Record]:
    """Records of one monitord JSON-lines file."""
    yield from parse_json_lines(utf8_lines(Path(path), report), report, str(path))


def detect(path: Path, head: bytes) -> bool:
    """The first non-empty line is a JSON object whose ``event`` is a ``stampede.`` event."""
    first = next((ln for ln in head.splitlines() if ln.strip()), b"")
    # (the regex scans a long line back from its end: most files fail the first test)
    return b"stampede." in first and bool(_SIGNATURE.match(first))


FORMATS = [
    Format(
        name="pegasus-json",
        source="pegasus",
        detect=detect,
        parse=parse,
        description="Pegasus Stampede events as JSON lines (pegasus-monitord --encoding json)",
    )
]
