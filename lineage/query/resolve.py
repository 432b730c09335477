"""Uids as people type them: a full uid, a unique start of one, a run's short uuid (its first
8 characters) or a run's name, resolved to one uid (``resolve_uid`` template); several
matches are an error listing them ("did you mean").

>>> ambiguous("diamond", [{"uid": "pegasus:workflow:9a81", "kind": "Workflow", "name": "diamond",
...                        "start_time": None, "how": "run name"}])
"'diamond' names 1 node: did you mean\\n  pegasus:workflow:9a81  (Workflow diamond)"
"""

from __future__ import annotations

from ..errors import LineageError

SHOWN = 10


def ambiguous(text: str, rows: list[dict]) -> str:
    """The message for a text that names several nodes, listing them."""
    listed = "\n".join(f"  {r['uid']}  ({r['kind']} {r['name']})" for r in rows[:SHOWN])
    more = f"\n  ... and {len(rows) - SHOWN} more" if len(rows) > SHOWN else ""
    return (f"{text!r} names {len(rows)} node{'s' if len(rows) != 1 else ''}: did you mean\n"
            f"{listed}{more}")


def resolve(lin, text: str) -> str:
    """The one uid ``text`` names (itself when it is a uid in the graph); a
    :class:`LineageError` when it names none, or several (listing them)."""
    if not isinstance(text, str) or not text:
        raise LineageError(f"{text!r} is not a uid")
    rows = lin.query("resolve_uid", text=text)
    exact = [r for r in rows if r["how"] == "uid"]
    if exact:
        return exact[0]["uid"]
    if not rows:
        raise LineageError(f"no node with uid {text!r} in the graph, and no uid or run name "
                           "starts with it (`lineage runs` lists the runs)")
    if len(rows) > 1:
        raise LineageError(ambiguous(text, rows))
    return rows[0]["uid"]
