"""The link rules: which records of different systems are the same execution, in order.

Pure functions over plain rows (as the sources' link templates return them); nothing
here talks to Neo4j. Every rule looks candidates up in an index (scheduler job id, program
name) and checks times by bisection, so matching n runs against m records costs about
``(n + m) log m``, never ``n * m``.

=========================  ================================  ==========================
rule                       evidence required                 link (confidence)
=========================  ================================  ==========================
``scheduler_job``          XALT job id = attempt's sched id,  XALT run RAN_WITHIN attempt
                           and host agrees or run starts      (1.0; 0.8 when the XALT
                           within the attempt; owners agree   record's crc is not ok)
``process``                same program (path or name),       invocation SAME_ACTIVITY
                           run starts within the invocation,  XALT run (0.9)
                           same host or attempt linked above,
                           owners agree
``app_process``            Swift app name = program name,     app execution SAME_ACTIVITY
                           run starts within the execution    XALT run (0.7)
``instrumented_run``       program and host of a rank agree,  Chimbuko run RAN_WITHIN
                           Chimbuko starts within the run     XALT run (0.9)
``instrumented_process``   the same against an invocation     Chimbuko run RAN_WITHIN
                           (when no XALT run was linked)      invocation (0.85)
``host_time``              same host, run starts within the   none: a candidate, reported
                           invocation, other program          for a person to confirm
=========================  ================================  ==========================

*Owners agree*: where an XALT run's user and a Pegasus attempt's owners (its workflow's
submitting user, the attempt's own user) are both known, the user must be one of them: a
record of another user copying a victim's job id and host links to nothing of the victim's.
A run whose XALT record's crc (XALT's CRC-16/CCITT of the record text) is not ``ok``
(missing, unchecked or bad) may still link, never at confidence 1.0.

A record that fits two or more targets under one rule is *ambiguous*: no link is written
and the candidates are reported. ``SAME_ACTIVITY`` is one to one: two XALT runs fitting
one invocation are both ambiguous. When ownership decides (exactly one of the fits has
owners known to agree, the others have unknown owners), that one is linked and the
ambiguity is still reported, naming the one kept (``Ambiguity.kept``): what a load plants
with unknown owners never takes a true link away silently.

>>> runs = [{"uid": "x1", "job_id": "77", "host": "c1.hpc", "exec_path": "/bin/a",
...          "start_time": 105.0, "end_time": 150.0}]
>>> attempts = [{"uid": "j1", "sched_id": "77", "host": "c1", "start_time": 100.0,
...              "end_time": 200.0}]
>>> result = match(Inputs(xalt=runs, attempts=attempts))
>>> [(l.start, l.type, l.end, l.rule, l.matched) for l in result.links]
[('x1', 'RAN_WITHIN', 'j1', 'scheduler_job', ('job_id', 'host', 'time'))]
"""

from __future__ import annotations

import bisect
import json
import shlex
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

#: Default clock skew allowed between systems, in seconds.
DEFAULT_SKEW = 60.0

#: The confidence of a ``scheduler_job`` link whose XALT record's crc is not ``ok``.
UNCHECKED_CRC_CONFIDENCE = 0.8

#: The rules in the order they are applied, with what they link and how sure they are.
RULES = {
    "scheduler_job": ("RAN_WITHIN", 1.0),
    "process": ("SAME_ACTIVITY", 0.9),
    "app_process": ("SAME_ACTIVITY", 0.7),
    "instrumented_run": ("RAN_WITHIN", 0.9),
    "instrumented_process": ("RAN_WITHIN", 0.85),
    "host_time": (None, 0.3),
}


@dataclass(frozen=True)
class Link:
    """One link to write: ``(start)-[type]->(end)`` with its evidence."""

    start: str
    type: str
    end: str
    rule: str
    confidence: float
    matched: tuple[str, ...]
    evidence: dict

    def props(self, skew: float) -> dict:
        return {"rule": self.rule, "confidence": self.confidence, "matched": list(self.matched),
                "evidence": json.dumps(self.evidence, sort_keys=True), "skew": skew}


@dataclass(frozen=True)
class Ambiguity:
    """A record that fits several targets under one rule (or, for a candidate-only rule,
    the targets a person may want to confirm)."""

    rule: str
    record: str
    candidates: tuple[str, ...]
    #: the candidate linked all the same, because ownership decided (None: none linked)
    kept: str | None = None


@dataclass
class Inputs:
    """The rows of each role, as the template a source names for it returns them
    (``views.link_views``: ``xalt/link_runs``, ``pegasus/link_attempts``, ...)."""

    xalt: Sequence[dict] = ()
    attempts: Sequence[dict] = ()
    invocations: Sequence[dict] = ()
    swift: Sequence[dict] = ()
    chimbuko: Sequence[dict] = ()


@dataclass
class Matches:
    links: list[Link] = field(default_factory=list)
    ambiguous: list[Ambiguity] = field(default_factory=list)
    candidates: list[Ambiguity] = field(default_factory=list)
    #: per system, how many of its records no rule linked
    unlinked: dict[str, int] = field(default_factory=dict)


def host_key(host: str | None) -> str | None:
    """Hosts compare by their first DNS label, case-folded.

    >>> host_key("C401-101.stampede2.tacc.utexas.edu"), host_key(None)
    ('c401-101', None)
    """
    return host.strip().split(".", 1)[0].casefold() or None if host else None


def program_name(path: str | None) -> str | None:
    """The file name of a program path.

    >>> program_name("/opt/bin/mProject"), program_name("mProject"), program_name("")
    ('mProject', 'mProject', None)
    """
    return path.rstrip("/").rsplit("/", 1)[-1] or None if path else None


def argv0(command_line: str | None) -> str | None:
    """The program of a command line (as a shell would split it).

    >>> argv0("/ccs/home/k/xgc-es -no_signal_handler"), argv0('"/a b/c" -x'), argv0(None)
    ('/ccs/home/k/xgc-es', '/a b/c', None)
    """
    if not command_line:
        return None
    try:
        words = shlex.split(command_line)
    except ValueError:  # an unbalanced quote: the first blank-separated word
        words = command_line.split()
    return words[0] if words else None


class _Intervals:
    """Records with a start time, bucketed by a key and sorted, so "which records of this
    key were running at time t" is a bisection plus a bounded scan.

    >>> ix = _Intervals([{"uid": "a", "k": "x", "start_time": 0, "end_time": 10},
    ...                  {"uid": "b", "k": "x", "start_time": 20, "end_time": 25}],
    ...                 lambda r: [r["k"]])
    >>> [r["uid"] for r in ix.running("x", 22, skew=1)], ix.running("y", 22, 1)
    (['b'], [])
    >>> still = _Intervals([{"uid": "c", "k": "x", "start_time": 0, "end_time": None}],
    ...                    lambda r: [r["k"]])
    >>> [r["uid"] for r in still.running("x", 10**6, skew=1)]  # no end yet: still running
    ['c']
    """

    def __init__(self, rows: Iterable[dict], keys: Callable[[dict], Iterable]):
        buckets: dict = defaultdict(list)
        for row in rows:
            if row.get("start_time") is None:
                continue
            for key in keys(row):
                if key is not None:
                    buckets[key].append(row)
        self._starts, self._rows, self._longest, self._open = {}, {}, {}, {}
        for key, rows_ in buckets.items():
            ended = sorted((r for r in rows_ if r.get("end_time") is not None),
                           key=lambda r: r["start_time"])
            self._rows[key] = ended
            self._starts[key] = [r["start_time"] for r in ended]
            self._longest[key] = max((_end(r) - r["start_time"] for r in ended), default=0.0)
            self._open[key] = [r for r in rows_ if r.get("end_time") is None]

    def running(self, key, t: float, skew: float) -> list[dict]:
        """The records of ``key`` whose [start - skew, end + skew] holds ``t`` (a record
        with no end time is taken to run until it is known otherwise)."""
        if key not in self._rows:
            return []
        rows, starts = self._rows[key], self._starts[key]
        hi = bisect.bisect_right(starts, t + skew)
        lo = bisect.bisect_left(starts, t - skew - self._longest[key])
        return ([r for r in rows[lo:hi] if r["end_time"] + skew >= t]
                + [r for r in self._open[key] if r["start_time"] - skew <= t])


def _end(row: dict) -> float:
    end = row.get("end_time")
    return end if end is not None else row["start_time"]


def _within(t: float | None, row: dict, skew: float) -> bool:
    if t is None or row.get("start_time") is None:
        return False
    end = row.get("end_time")
    return row["start_time"] - skew <= t and (end is None or t <= end + skew)


class _Matcher:
    def __init__(self, inputs: Inputs, rules: Iterable[str], skew: float):
        self.inputs, self.rules, self.skew = inputs, set(rules), skew
        self.out = Matches()
        self.linked: dict[str, set[str]] = defaultdict(set)  # uid -> uids it is linked to
        self.same: set[str] = set()  # uids already in a SAME_ACTIVITY link

    def emit(self, rule: str, record: str, found: list[tuple[str, tuple, dict]],
             reverse: bool = False, confidence: float | None = None) -> None:
        """Keep ``found`` ((target, matched, evidence) each) as a link when it holds one
        target (or one whose owners agree, see :func:`_owned`), as an ambiguity when it
        holds more; ``confidence`` lowers the rule's."""
        if not found:
            return
        found = _narrow(found)
        if len(found) > 1:
            owned = _owned(found)
            self.out.ambiguous.append(Ambiguity(rule, record, tuple(sorted(f[0] for f in found)),
                                                owned[0] if owned else None))
            if owned is None:
                return
            found = [owned]
        target, matched, evidence = found[0]
        rel, rule_confidence = RULES[rule]
        if confidence is not None:
            rule_confidence = min(rule_confidence, confidence)
        start, end = (target, record) if reverse else (record, target)
        self.out.links.append(Link(start, rel, end, rule, rule_confidence, matched, evidence))
        self.linked[record].add(target)
        self.linked[target].add(record)

    # ------------------------------------------------------------ rules
    def scheduler_job(self) -> None:
        by_job: dict = defaultdict(list)
        for a in self.inputs.attempts:
            if a.get("sched_id"):
                by_job[a["sched_id"]].append(a)
        for x in self.inputs.xalt:
            found = []
            for a in by_job.get(x.get("job_id"), ()) if x.get("job_id") else ():
                matched, evidence = ["job_id"], {"job_id": [x["job_id"], a["sched_id"]]}
                hx, ha = host_key(x.get("host")), host_key(a.get("host"))
                if hx and ha:
                    if hx != ha:
                        continue
                    matched.append("host")
                    evidence["host"] = [x.get("host"), a.get("host")]
                if x.get("start_time") is not None and a.get("start_time") is not None:
                    if not _within(x["start_time"], a, self.skew):
                        continue
                    matched.append("time")
                    evidence["time"] = [x["start_time"], [a["start_time"], a.get("end_time")]]
                if len(matched) == 1:  # a job id alone is recycled: it needs a second fact
                    continue
                owners = _owners(x, a)
                if owners is False:  # another user's record: never the victim's attempt
                    continue
                if owners:
                    matched.append("user")
                    evidence["user"] = owners
                found.append((a["uid"], tuple(matched), evidence))
            crc = x.get("crc_status")
            if crc != "ok":  # an unchecked record may link, never for certain
                for _, _, evidence in found:
                    evidence["crc"] = crc
            self.emit("scheduler_job", x["uid"], found,
                      confidence=None if crc == "ok" else UNCHECKED_CRC_CONFIDENCE)

    def _same_program(self, x: dict, path: str | None) -> tuple[str, list] | None:
        if x.get("exec_path") and path and x["exec_path"] == path:
            return "exec_path", [x["exec_path"], path]
        if program_name(x.get("exec_path")) == program_name(path) and path:
            return "exec_name", [x.get("exec_path"), path]
        return None

    def process(self) -> None:
        by_name = _Intervals(self.inputs.invocations,
                             lambda i: [program_name(i.get("exec_path"))])
        fits: dict[str, tuple] = {}
        for x in self.inputs.xalt:
            t = x.get("start_time")
            if t is None:
                continue
            found = []
            for i in by_name.running(program_name(x.get("exec_path")), t, self.skew):
                same = self._same_program(x, i.get("exec_path"))
                hx, hi = host_key(x.get("host")), host_key(i.get("host"))
                same_host = bool(hx) and hx == hi
                # hosts first, so the evidence does not depend on which rules ran before
                in_attempt = not same_host and i.get("attempt") in self.linked.get(x["uid"], ())
                owners = _owners(x, i)
                if same is None or not (same_host or in_attempt) or owners is False:
                    continue
                how = "host" if same_host else "attempt"
                evidence = {same[0]: same[1], "time": [t, [i["start_time"], i.get("end_time")]],
                            how: [x.get("host"), i.get("host")] if same_host else [i["attempt"]]}
                matched = (same[0], how, "time")
                if owners:
                    matched, evidence["user"] = matched + ("user",), owners
                found.append((i["uid"], matched, evidence))
            found = _narrow(found)
            if len(found) > 1:  # ambiguous, unless ownership decides (then reported too)
                owned = _owned(found)
                self.out.ambiguous.append(Ambiguity("process", x["uid"], tuple(sorted(
                    f[0] for f in found)), owned[0] if owned else None))
                found = [owned] if owned else []
            if found:
                fits[x["uid"]] = found[0]
        self._one_to_one("process", fits)

    def _one_to_one(self, rule: str, fits: dict[str, tuple]) -> None:
        """Link each record to the one target it fits, unless another record fits that
        target too (one process seen twice by XALT is a contradiction, not a choice)."""
        by_target: dict[str, list[str]] = defaultdict(list)
        for record, fit in fits.items():
            by_target[fit[0]].append(record)
        for target, records in by_target.items():
            if len(records) > 1:  # the one record inside the target without skew, if one is
                exact = [r for r in records if _exact(fits[r])]
                records = exact if len(exact) == 1 else records
            if len(records) > 1:  # else the one whose owner is known to agree, reported
                owned = [r for r in records if "user" in fits[r][1]]
                kept = owned[0] if len(owned) == 1 else None
                self.out.ambiguous.append(Ambiguity(rule, target, tuple(sorted(records)), kept))
                if kept is None:
                    continue
                records = [kept]
            if len(records) == 1:
                self.emit(rule, records[0], [fits[records[0]]], reverse=True)
                self.same.update((target, records[0]))

    def host_time(self) -> None:
        """Candidates only: an XALT run that started on the host of a running invocation
        whose program is another (a child of a wrapper script, or a coincidence)."""
        by_host = _Intervals(self.inputs.invocations, lambda i: [host_key(i.get("host"))])
        for x in self.inputs.xalt:
            hx = host_key(x.get("host"))
            if x.get("start_time") is None or not hx or x["uid"] in self.same:
                continue
            near = by_host.running(hx, x["start_time"], self.skew)
            if near:
                self.out.candidates.append(Ambiguity(
                    "host_time", x["uid"], tuple(sorted(i["uid"] for i in near))))

    def app_process(self) -> None:
        by_name = _Intervals(self.inputs.swift, lambda a: [a.get("app_name")])
        fits: dict[str, tuple] = {}
        for x in self.inputs.xalt:
            t = x.get("start_time")
            if t is None or x["uid"] in self.same:
                continue
            found = []
            for a in by_name.running(program_name(x.get("exec_path")), t, self.skew):
                evidence = {"exec_name": [x.get("exec_path"), a["app_name"]],
                            "time": [t, [a["start_time"], a.get("end_time")]]}
                found.append((a["uid"], ("exec_name", "time"), evidence))
            found = _narrow(found)
            if len(found) > 1:
                self.emit("app_process", x["uid"], found)
            elif found:
                fits[x["uid"]] = found[0]
        self._one_to_one("app_process", fits)

    def _instrumented(self, rule: str, targets: Sequence[dict]) -> None:
        by_name = _Intervals(targets, lambda r: [program_name(r.get("exec_path"))])
        for c in self.inputs.chimbuko:
            if rule == "instrumented_process" and self.linked.get(c["uid"]):
                continue  # already inside an XALT run: that run is the better link
            t = _chimbuko_start(c)
            programs = _chimbuko_programs(c)
            hosts = {host_key(h) for h in c.get("hosts") or () if h}
            found, seen = [], set()
            for name in {program_name(p) for p in programs}:
                for r in by_name.running(name, t, self.skew) if t is not None else ():
                    if r["uid"] in seen:
                        continue
                    path = next((p for p in programs if p == r.get("exec_path")), None)
                    same = ("exec_path", [path, path]) if path else ("exec_name", [
                        min(p for p in programs if program_name(p) == name), r.get("exec_path")])
                    hr = host_key(r.get("host"))
                    if hosts and hr and hr not in hosts:
                        continue
                    evidence = {same[0]: same[1], "time": [t, [r["start_time"], r.get("end_time")]]}
                    if hosts and hr:
                        evidence["host"] = [sorted(h for h in c["hosts"] if h), r.get("host")]
                    elif same[0] != "exec_path":
                        continue  # a program name and a time alone are too little
                    seen.add(r["uid"])
                    matched = (same[0], "host", "time") if "host" in evidence else (same[0], "time")
                    found.append((r["uid"], matched, evidence))
            self.emit(rule, c["uid"], found)

    def run(self) -> Matches:
        steps = {"scheduler_job": self.scheduler_job, "process": self.process,
                 "app_process": self.app_process,
                 "instrumented_run": lambda: self._instrumented(
                     "instrumented_run", self.inputs.xalt),
                 "instrumented_process": lambda: self._instrumented(
                     "instrumented_process", self.inputs.invocations),
                 "host_time": self.host_time}
        for name in RULES:  # always in this order, whatever order they were asked in
            if name in self.rules:
                steps[name]()
        ends = {uid for link in self.out.links for uid in (link.start, link.end)}
        for system, rows in vars(self.inputs).items():
            self.out.unlinked[system] = sum(1 for r in rows if r["uid"] not in ends)
        return self.out


def _exact(fit: tuple) -> bool:
    """Whether a fit's time holds with no clock skew at all (from its ``time`` evidence)."""
    t, (start, end) = fit[2]["time"]
    return start <= t and (end is None or t <= end)


def _owners(x: dict, target: dict) -> list | bool | None:
    """Whether an XALT run's user agrees with a Pegasus row's owners (its workflow's
    submitting user, the attempt's own user): ``[user, owners]`` when both are known and
    agree, False when both are known and differ, None when either is unknown.

    >>> _owners({"user": "ann"}, {"workflow_user": "ann"}), _owners({"user": "eve"},
    ...     {"workflow_user": "ann", "user": "ann"}), _owners({}, {"workflow_user": "ann"})
    (['ann', ['ann']], False, None)
    """
    owners = sorted({o for o in (target.get("workflow_user"), target.get("user")) if o})
    if not x.get("user") or not owners:
        return None
    return [x["user"], owners] if x["user"] in owners else False


def _owned(found: list[tuple]) -> tuple | None:
    """Of several fits, the one whose owners are known to agree (``user`` among what it
    matched) when it is the only such one; else None (ownership does not decide).

    >>> _owned([("a", ("job_id", "user"), {}), ("b", ("job_id",), {})])[0]
    'a'
    >>> _owned([("a", ("job_id",), {}), ("b", ("job_id",), {})]) is None
    True
    """
    owned = [f for f in found if "user" in f[1]]
    return owned[0] if len(owned) == 1 else None


def _narrow(found: list[tuple]) -> list[tuple]:
    """Several targets fit within the skew: when exactly one fits with no skew at all, that
    one (its evidence says ``time_exact``); else all of them (ambiguous).

    >>> fits = [("a", ("time",), {"time": [5, [0, 10]]}), ("b", ("time",), {"time": [5, [6, 9]]})]
    >>> _narrow(fits)
    [('a', ('time', 'time_exact'), {'time': [5, [0, 10]]})]
    """
    if len(found) < 2:
        return found
    exact = [f for f in found if _exact(f)]
    if len(exact) != 1:
        return found
    target, matched, evidence = exact[0]
    return [(target, matched + ("time_exact",), evidence)]


def _chimbuko_start(c: dict) -> float | None:
    """A Chimbuko run's start in seconds: its ranks' first starting timestamp, else its
    first recorded function entry (both microseconds since the epoch)."""
    us = c.get("first_start_us") or c.get("first_entry_us")
    return us / 1e6 if isinstance(us, (int, float)) else None


def _chimbuko_programs(c: dict) -> set[str]:
    programs = {p for p in c.get("executables") or () if p}
    programs |= {argv0(line) for line in c.get("command_lines") or () if argv0(line)}
    return programs


def match(inputs: Inputs, rules: Iterable[str] | None = None,
          skew: float = DEFAULT_SKEW) -> Matches:
    """Apply the rules (all by default, in the order of :data:`RULES`) to the rows."""
    chosen = list(RULES) if rules is None else list(rules)
    unknown = [r for r in chosen if r not in RULES]
    if unknown:
        raise ValueError(f"no link rule {', '.join(unknown)}; known: {', '.join(RULES)}")
    if skew < 0:
        raise ValueError(f"clock skew must be zero or more seconds, not {skew}")
    return _Matcher(inputs, chosen, skew).run()
