"""Why did this run differ? The differences between two runs of one kind, most telling first,
by the differ their source declares for the kind (``views.differs`` of
``lineage/sources/<source>/``).

Parts are matched by stable names, never by uid (each differ says how). For run kinds whose
parts ``lineage link`` connects to other systems (``views.linked_runs``), each job's or
call's linked run is compared too, by the differ of its own kind, and the anomaly count of
what watched it. Each difference is a row ``{aspect, name, first, second}``.

>>> sorted(differs())
['Execution', 'ProgramRun', 'ScriptRun', 'Workflow']
"""

from __future__ import annotations

from .. import model
from ..errors import LineageError
from ..sources import registry
from ..sources.answering import named


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
                            "name": f"{job}: {row['name']}"})
        if ra["anomaly_count"] != rb["anomaly_count"]:
            out.append({"aspect": "anomalies (linked Chimbuko run)", "name": job,
                        "first": ra["anomaly_count"], "second": rb["anomaly_count"]})
    out += [{"aspect": "linked XALT run in one run only", "name": job,
             "first": (chain_a.get(job) or {}).get("execution"),
             "second": (chain_b.get(job) or {}).get("execution")}
            for job in sorted(set(chain_a) ^ set(chain_b))]
    return out


def diff(lin, first: str, second: str) -> dict:
    """``{kind, first, second, differences}`` for two runs of one kind."""
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
    return {"kind": a["kind"], "first": first, "second": second, "differences": differences}
