"""The demo's ``index.html``: every run with a link to its report, failed runs first, the
count of failed runs above the table, and for each run the runs of other systems ``lineage
link`` joined to it (its partners: the XALT runs of a workflow's jobs, the Chimbuko run
within an XALT run), each linked to its report. Every value is escaped (Jinja2 autoescaping).

>>> rows = [{"uid": "a", "kind": "Workflow", "name": "<b>", "status": "succeeded",
...          "start_time": 1.7e9, "report": "a.html"},
...         {"uid": "b", "kind": "Workflow", "name": "b", "status": "failed",
...          "start_time": 1.8e9, "report": "b.html"}]
>>> [r["uid"] for r in failed_first(rows)]
['b', 'a']
>>> page = render_index(rows)
>>> "1 of 2 runs failed" in page, "&lt;b&gt;" in page, "<b>" in page
(True, True, False)
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, select_autoescape

from ..humanize import human

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lineage demo: every run</title></head>
<body>
<h1>{{ failed|length }} of {{ rows|length }} runs failed</h1>
{% if failed %}<p>Failed: {% for r in failed %}<a href="{{ r.report }}">{{ r.name }}</a>
{%- if not loop.last %}, {% endif %}{% endfor %}</p>{% endif %}
<table>
<thead><tr><th>status</th><th>kind</th><th>run</th><th>started</th><th>across systems</th><th>uid</th></tr></thead>
<tbody>
{% for r in rows %}<tr><td>{{ r.status or "" }}</td><td>{{ r.kind }}</td>
<td><a href="{{ r.report }}">{{ r.name }}</a></td>
<td>{{ human("start_time", r.start_time) or "" }}</td>
<td class="partners">{% for p in r.partners or () %}{% if p.report %}<a href="{{ p.report }}">{{ p.kind }} {{ p.name }}</a>{% else %}{{ p.kind }} {{ p.name }}{% endif %}{% if not loop.last %}, {% endif %}{% endfor %}</td>
<td>{{ r.uid }}</td></tr>
{% endfor %}</tbody>
</table>
</body></html>
"""


def failed_first(rows: list[dict]) -> list[dict]:
    """Failed runs first, then the rest; each group by start time, then uid."""
    return sorted(rows, key=lambda r: (r.get("status") != "failed",
                                       r.get("start_time") is None, r.get("start_time") or 0.0,
                                       r["uid"]))


#: The runs joined to each of ``$runs`` by ``lineage link`` (through their parts: a job's
#: attempts and invocations, a program run's executions).
PARTNERS_CYPHER = """
UNWIND $runs AS run_uid
MATCH (r:Lineage:Run {uid: run_uid})
CALL (r) {
  MATCH (p:Lineage)-[:PART_OF|INSTANCE_OF*0..4]->(r)
  MATCH (p)-[:SAME_ACTIVITY|RAN_WITHIN]-(o:Lineage)
  MATCH (o)-[:PART_OF|INSTANCE_OF*0..4]->(other:Run)
  WHERE other <> r
  RETURN collect(DISTINCT other.uid) AS partners
}
RETURN r.uid AS uid, partners
"""


def with_partners(lin, rows: list[dict]) -> list[dict]:
    """``rows`` of runs, each with ``partners``: the other runs linked to it, as
    ``{uid, kind, name, report}`` (``report`` from the row of that run, when it has one)."""
    by_uid = {r["uid"]: r for r in rows}
    found = {r["uid"]: r["partners"] for r in
             lin.query(PARTNERS_CYPHER, runs=[r["uid"] for r in rows])}
    out = []
    for r in rows:
        partners = [{"uid": u, "kind": by_uid[u]["kind"] if u in by_uid else "",
                     "name": by_uid[u]["name"] if u in by_uid else u,
                     "report": by_uid[u].get("report") if u in by_uid else None}
                    for u in sorted(found.get(r["uid"], ()))]
        out.append({**r, "partners": partners})
    return out


def render_index(rows: list[dict]) -> str:
    """The page for ``rows`` (``uid, kind, name, status, start_time, report``: the runs
    template's columns and the report's path relative to the page; ``partners`` as
    :func:`with_partners` gives them)."""
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
    ordered = failed_first(rows)
    return env.from_string(_PAGE).render(
        rows=ordered, failed=[r for r in ordered if r.get("status") == "failed"], human=human)


def write_index(rows: list[dict], path: Path) -> Path:
    """Write the index of ``rows`` to ``path``."""
    path = Path(path)
    path.write_text(render_index(rows), encoding="utf-8")
    return path
