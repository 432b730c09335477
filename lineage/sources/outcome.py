"""The "what happened" box at the top of every report: the answer first.

A source says what happened to a node of one of its kinds through its views
(:attr:`lineage.sources.source.Views.outcomes`); this module holds the shape of that answer
(:func:`outcome`), the pieces every source uses (:func:`deciding_line`,
:func:`across_systems`) and the answer for a kind no source describes
(:func:`generic_outcome`: its status and name).

>>> deciding_line("starting\\nanalyze: -n 0: the number of bins must be at least 1\\nbye\\n")
'analyze: -n 0: the number of bins must be at least 1'
>>> outcome("failed", "1 of 5 jobs failed")["status"]
'failed'
"""

from __future__ import annotations

import re
from collections import Counter

from ..model.status import is_failed

#: Words that make a line of a program's output the one that says why it stopped.
ERROR_WORDS = re.compile(
    r"error|fail|fatal|invalid|must|cannot|can't|could not|not found|no such|denied|abort"
    r"|exception|traceback|segmentation|killed|refused|unknown|illegal|out of memory",
    re.IGNORECASE)


def deciding_line(*texts: str | None, noise: re.Pattern | None = None) -> str | None:
    """The line of ``texts`` (a program's outputs, most telling first) that says why it
    stopped: the last line with an error word (:data:`ERROR_WORDS`) of the first text that
    has one, else the last non-empty line; lines ``noise`` matches (a wrapper's chatter) are
    skipped while others remain. None when every text is empty.

    >>> deciding_line(None, "ok\\n  \\n")
    'ok'
    >>> deciding_line("PegasusLite: exit 2\\nbad thing", noise=re.compile("PegasusLite"))
    'bad thing'
    """
    lines_of = []
    for text in texts:
        lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
        quiet = [line for line in lines if not (noise and noise.search(line))]
        lines_of.append(quiet or lines)
    for lines in lines_of:
        flagged = [line for line in lines if ERROR_WORDS.search(line)]
        if flagged:
            return _short(flagged[-1])
    for lines in lines_of:
        if lines:
            return _short(lines[-1])
    return None


def _short(line: str, limit: int = 400) -> str:
    return line if len(line) <= limit else line[:limit] + "..."


#: seconds after which the report of a run still going reloads itself (``outcome(refresh=)``)
REFRESH_SECONDS = 10


def outcome(status: str | None, headline: str, *, failures=(), blocked=(), counts=(),
            across=(), notes=(), failures_title: str = "What failed",
            refresh: int | None = None) -> dict:
    """The answer a report's box shows, as plain data.

    - ``status``: the node's status (colours the box), ``headline``: one sentence;
    - ``failures``: ``{"name", "uid", "error", "detail"}`` each: what failed and the line
      that decides why (``error``), ``detail`` the rest (exit code, host, attempts);
    - ``blocked``: ``{"name", "uid", "by"}`` each: what never ran because of a failure;
    - ``counts``: ``(what is counted, number, how it is counted)`` each;
    - ``across``: ``(label, value)`` each: what other systems say (binary, libraries,
      anomalies); ``notes``: further sentences;
    - ``refresh``: the run is still going: the page reloads itself every ``refresh``
      seconds (``lineage watch --reports`` writes it again as increments come).
    """
    return {"status": status, "headline": headline, "failures": list(failures),
            "blocked": list(blocked), "counts": list(counts), "across": list(across),
            "notes": list(notes), "failures_title": failures_title, "refresh": refresh}


def ago(seconds: float | None) -> str:
    """How long ago something happened, in the unit a person reads.

    >>> ago(3.2), ago(125), ago(7300), ago(None)
    ('3 s ago', '2 min ago', '2 h ago', 'at an unknown time')
    """
    if seconds is None:
        return "at an unknown time"
    seconds = max(seconds, 0)
    if seconds < 100:
        return f"{seconds:.0f} s ago"
    if seconds < 6000:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} days ago"


def generic_outcome(root: dict) -> dict:
    """The answer for a node whose kind no source describes: its status, kind and name.

    >>> generic_outcome({"kind": "Host", "name": "c101", "status": None})["headline"]
    'Host c101'
    """
    status = root.get("status")
    name = f"{root.get('kind') or 'node'} {root.get('name') or root.get('uid')}"
    return outcome(status, f"{name}: {status}" if status else name)


def across_systems(rows: list[dict], anomalies: int | None = None) -> list[tuple[str, str]]:
    """What other systems say of a run's executions, from rows of ``cross/run_chain`` or
    alike (``executable_path``, ``executable_sha1``, ``libraries``, ``anomaly_count``): the
    binaries, the libraries they loaded, the anomalies Chimbuko found.

    >>> across_systems([{"executable_path": "/bin/a", "executable_sha1": "abcdef123456789",
    ...                  "libraries": ["/l/x.so", "/l/y.so"], "anomaly_count": 3}])
    [('binary', '/bin/a (sha1 abcdef123456)'), ('libraries', '2: x.so, y.so'), ('anomalies', '3 (Chimbuko)')]
    >>> across_systems([])
    [('across systems', 'nothing linked (run `lineage link`)')]
    """
    if not rows and anomalies is None:
        return [("across systems", "nothing linked (run `lineage link`)")]
    binaries: dict[str, set] = {}
    for r in rows:
        if r.get("executable_path"):
            binaries.setdefault(r["executable_path"], set()).add(r.get("executable_sha1"))
    out = []
    if binaries:
        out.append(("binary" if len(binaries) == 1 else f"binaries ({len(binaries)})",
                    ", ".join(_binary(p, shas) for p, shas in sorted(binaries.items()))))
    libs = sorted({lib for r in rows for lib in r.get("libraries") or ()})
    if libs:
        names = sorted({lib.rsplit("/", 1)[-1] for lib in libs})
        shown = ", ".join(names[:8]) + (f", ... {len(names) - 8} more" if len(names) > 8 else "")
        out.append(("libraries", f"{len(libs)}: {shown}"))
    if anomalies is None:
        anomalies = sum(r.get("anomaly_count") or 0 for r in rows)
    out.append(("anomalies", f"{anomalies} (Chimbuko)"))
    return out


def _binary(path: str, shas: set) -> str:
    known = sorted(s for s in shas if s)
    if not known:
        return path
    return f"{path} (sha1 {', '.join(s[:12] for s in known)})"


def status_counts(statuses, what: str) -> list[tuple[str, int, str]]:
    """Counts of ``what`` by status, failed first, each saying what it counts.

    >>> status_counts(["succeeded", "failed", "succeeded"], "calls")
    [('failed calls', 1, 'status failed'), ('succeeded calls', 2, 'status succeeded')]
    """
    counted = Counter(s or "no status" for s in statuses)
    order = sorted(counted, key=lambda s: (not is_failed(s), s))
    return [(f"{s} {what}", counted[s], f"status {s}") for s in order]


def binary_of(inputs) -> list[tuple[str, str]]:
    """The binary and libraries of rows of ``xalt/run_inputs`` (``role``, ``path``,
    ``sha1``), as :func:`across_systems` gives them.

    >>> binary_of([{"role": "executable", "path": "/bin/a", "sha1": None},
    ...            {"role": "library", "path": "/l/x.so", "sha1": None}])
    [('binary', '/bin/a'), ('libraries', '1: x.so')]
    """
    exe = [r for r in inputs if r["role"] == "executable"]
    libs = [r["path"] for r in inputs if r["role"] != "executable"]
    row = {"executable_path": exe[0]["path"] if exe else None,
           "executable_sha1": exe[0]["sha1"] if exe else None, "libraries": libs}
    return [item for item in across_systems([row], 0) if item[0] != "anomalies"]
