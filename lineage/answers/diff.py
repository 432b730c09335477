"""Why did this run differ? The differences between two runs of one kind, most telling first,
by the differ their source declares for the kind (``views.differs`` of
``lineage/sources/<source>/``).

Parts are matched by stable names, never by uid (each differ says how). For run kinds whose
parts ``lineage link`` connects to other systems (``views.linked_runs``), each job's or
call's linked run is compared too, by the differ of its own kind, and the anomaly count of
what watched it. Each difference is a row ``{aspect, name, first, second}``.

The rows come in the order that answers "why did this run differ?" (:func:`ordered`): first
the parts whose outcome turned to a failure, each with what may explain it first (its
arguments, inputs, outputs, executable, libraries, environment) and its outcome after; then
other changed outcomes; then the rest by aspect, durations (with their unit) last. Rows that
differ only in temporary names (``/tmp/tmpab12cd34``, ``dir_148321``) are one counted row.

>>> sorted(differs())
['Execution', 'ProgramRun', 'ScriptRun', 'Workflow']
>>> [r["aspect"] for r in ordered([
...     {"aspect": "job duration", "name": "a", "first": 1.0, "second": 2.0},
...     {"aspect": "job status", "name": "b", "first": "succeeded", "second": "failed"},
...     {"aspect": "job arguments", "name": "b", "first": "-n 400", "second": "-n 0"}])]
['job arguments', 'job status', 'job duration']
>>> [(r["aspect"], r["name"]) for r in ordered([
...     {"aspect": "job work dir", "name": "a", "first": "/scratch/dir_148321", "second": "/scratch/dir_148537"},
...     {"aspect": "job log", "name": "b", "first": "/tmp/tmpab12cd34.log", "second": "/tmp/tmpzz98yy76.log"},
...     {"aspect": "library sha1", "name": "libkeg", "first": "2bab7e8a" * 5, "second": "cda30ca7" * 5}])]
[('library sha1', 'libkeg'), ('temporary names', '2 differences in temporary names only (a, b)')]
>>> changed_words("-a analyze -n 400 -o f.d", "-a analyze -n 0 -o f.d")
'-n 400 → -n 0'
>>> seconds(3723.5), seconds(0.0400002), seconds(58.31)
('1 h 2 min 4 s', '0.04 s', '58.3 s')
"""

from __future__ import annotations

import difflib
import re

from .. import model
from ..errors import LineageError
from ..sources import registry
from ..sources.answering import named
from ..model import status as statuses
from .display import DiffAnswer

#: aspects in the order they may explain a changed outcome (first matching word wins)
_ASPECTS = (("argument", 0), ("cmdline", 0), ("command", 0), ("input", 1), ("output", 2),
            ("executable", 3), ("librar", 4), ("env", 5), ("module", 5), ("status", 6),
            ("exit", 6), ("anomal", 7), ("only in", 8), ("host", 9), ("attempt", 9),
            ("duration", 11), ("runtime", 11), ("run_time", 11))
_OUTCOME = re.compile(r"status|exit")
#: temporary names: mktemp's (``tmpab12cd34``, ``tmp.XyZ123``), Condor's execute directories
#: (``dir_148321``), numbered copies of a job's output (``ls_ID1.out.001``); never a checksum
_TEMPORARY = re.compile(r"tmp[._-]?[A-Za-z0-9_]{6,}|dir_\d+|\.\d{3}\b")


def seconds(value: float | None) -> str | None:
    """A duration in seconds as people read it."""
    if value is None:
        return None
    sign, value = ("-" if value < 0 else ""), abs(value)
    hours, rest = divmod(value, 3600)
    minutes, secs = divmod(rest, 60)
    parts = ([f"{int(hours)} h"] if hours else []) + ([f"{int(minutes)} min"] if minutes else [])
    if parts:
        secs = round(secs)
    if secs or not parts:
        parts.append(f"{secs:.3g} s" if secs < 100 else f"{secs:.0f} s")
    return sign + " ".join(parts)


def changed_words(first: str, second: str) -> str:
    """The words that differ between two command lines, each with the word before it."""
    a, b = first.split(), second.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
        if op == "equal":
            continue
        lead = a[i1 - 1:i1] if i1 and (i1 == i2 or not a[i1].startswith("-")) else []
        out.append(f"{' '.join(lead + a[i1:i2]) or '(nothing)'} → "
                   f"{' '.join(lead + b[j1:j2]) or '(nothing)'}")
    return "; ".join(out)


def _rank(aspect: str) -> int:
    return next((rank for word, rank in _ASPECTS if word in aspect.lower()), 10)


def _failure(value) -> bool:
    return statuses.is_failed(value) or (isinstance(value, int) and not isinstance(value, bool)
                                         and value != 0)


def ordered(rows: list[dict]) -> list[dict]:
    """``rows`` in answer order (see the module's docstring), temporary-name differences
    folded into one counted row, durations with their unit; the ``part`` a row is about
    (default: its name) is dropped."""
    noise = [r for r in rows if isinstance(r["first"], str) and isinstance(r["second"], str)
             and r["first"] != r["second"]
             and _TEMPORARY.sub("~", r["first"]) == _TEMPORARY.sub("~", r["second"])]
    rows = [r for r in rows if not any(r is n for n in noise)]
    part = [r.get("part", r["name"]) for r in rows]
    outcome = [i for i, r in enumerate(rows) if _OUTCOME.search(r["aspect"].lower())]
    failing = {part[i] for i in outcome if _failure(rows[i]["first"]) != _failure(rows[i]["second"])}
    changed = {part[i] for i in outcome} - failing
    first_seen = {p: n for n, p in reversed(list(enumerate(part)))}

    def key(i):
        group = 0 if part[i] in failing else 1 if part[i] in changed else 2
        if group < 2:
            return (group, first_seen[part[i]], _rank(rows[i]["aspect"]), i)
        return (group, _rank(rows[i]["aspect"]), 0, i)

    out = []
    for i in sorted(range(len(rows)), key=key):
        row = {k: v for k, v in rows[i].items() if k != "part"}
        if "duration" in row["aspect"] or "run_time" in row["aspect"]:
            row["first"], row["second"] = (seconds(v) if isinstance(v, (int, float)) else v
                                           for v in (row["first"], row["second"]))
        out.append(row)
    if noise:
        out.append({"aspect": "temporary names", "name": f"{len(noise)} difference"
                    f"{'s' if len(noise) != 1 else ''} in temporary names only "
                    f"({', '.join(sorted({n['name'] for n in noise})[:5])})",
                    "first": None, "second": None})
    return out


def answer_of(kind: str, a: dict, b: dict, rows: list[dict]) -> str:
    """One sentence: how each run ended, and the first difference (a command line's changed
    words)."""
    pa, pb = a.get("properties") or {}, b.get("properties") or {}
    text = (f"first {a['uid']}: {pa.get('status') or '?'}; second {b['uid']}: "
            f"{pb.get('status') or '?'}")
    if not rows:
        return text + "; no difference found"
    top = rows[0]
    what = (changed_words(top["first"], top["second"])
            if isinstance(top["first"], str) and isinstance(top["second"], str)
            and ("argument" in top["aspect"] or "cmdline" in top["aspect"])
            else f"{top['first'] if top['first'] is not None else '(none)'} → "
                 f"{top['second'] if top['second'] is not None else '(none)'}")
    return f"{text}; first difference: {top['aspect']} of {top['name']}: {what}"


def differs() -> dict:
    """The differ of each run kind, as the sources declare them."""
    return dict(registry.views().differs)


def _linked(lin, a: dict, b: dict) -> list[dict]:
    """Across systems (after ``lineage link``): per job or call, the run another system saw
    it start (compared by that run's own differ) and the anomalies found in it, matched by
    job or call name."""
    def chain(uid):
        return named([{**r, "name": r["job"]} for r in lin.query("cross/run_chain", run=uid)
                      if r["how"] == "same process"])

    chain_a, chain_b = chain(a["uid"]), chain(b["uid"])
    known = differs()
    out = []
    for job in sorted(set(chain_a) & set(chain_b)):
        ra, rb = chain_a[job], chain_b[job]
        kind = model.kind_of_uid(ra["execution"])
        differ = known.get(kind.label) if kind is not None else None
        if differ is not None:
            for row in differ(lin, {"uid": ra["execution"], "properties": {}},
                              {"uid": rb["execution"], "properties": {}}):
                title = registry.sources()[kind.source].title
                out.append({**row, "aspect": f"{row['aspect']} (linked {title} run)",
                            "name": f"{job}: {row['name']}", "part": job.split(" #")[0]})
        if ra["anomaly_count"] != rb["anomaly_count"]:
            out.append({"aspect": "anomalies (linked Chimbuko run)", "name": job,
                        "part": job.split(" #")[0],
                        "first": ra["anomaly_count"], "second": rb["anomaly_count"]})
    out += [{"aspect": f"linked XALT run only in the {'first' if job in chain_a else 'second'} "
                       "run", "name": job, "part": job.split(" #")[0],
             "first": (chain_a.get(job) or {}).get("execution"),
             "second": (chain_b.get(job) or {}).get("execution")}
            for job in sorted(set(chain_a) ^ set(chain_b))]
    return out


def diff(lin, first: str, second: str) -> DiffAnswer:
    """``{answer, kind, first, second, differences}`` for two runs of one kind."""
    rows = {r["uid"]: r for r in lin.query("nodes", uids=[first, second])}
    for uid in (first, second):
        if uid not in rows:
            raise LineageError(f"no node with uid {uid!r} in the graph")
    a, b = rows[first], rows[second]
    if a["kind"] != b["kind"]:
        raise LineageError(f"{first} is a {a['kind']} and {second} a {b['kind']}: "
                           "`diff` compares two runs of one kind")
    known = differs()
    differ = known.get(a["kind"])
    if differ is None:
        raise LineageError(f"`diff` compares {', '.join(sorted(known))} runs, not "
                           f"{a['kind']} nodes")
    differences = differ(lin, a, b)
    if a["kind"] in registry.views().linked_runs:
        differences += _linked(lin, a, b)
    differences = ordered(differences)
    return DiffAnswer({"answer": answer_of(a["kind"], a, b, differences), "kind": a["kind"],
                       "first": first, "second": second, "differences": differences})
