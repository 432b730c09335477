"""Example parameter values for a template, taken from the loaded graph when possible.

A parameter whose header example is a uid (``<source>:<kind>:...``) gets that uid when it is in
the graph, else the best-connected uid of the same kind (template ``uids_like``); a list of
uids gets as many uids of that kind; other parameters keep the header's example (or default).

>>> from lineage.query import templates
>>> example_values(None, templates.get("runs"))
{'kind': 'Workflow'}
"""

from __future__ import annotations

from . import templates as _templates
from .templates import uid_prefix


def _header_value(param):
    return param.example if param.example is not None else param.default


def _exists(lin, uid: str) -> bool:
    return bool(lin.query("nodes", uids=[uid]))


def _like(lin, prefix: str, limit: int) -> list[str]:
    return [r["uid"] for r in lin.query("uids_like", prefix=prefix, limit=limit)]


def example_values(lin, template: "_templates.Template") -> dict:
    """``{param: value}`` for every parameter of ``template``; ``lin`` None = header only."""
    values = {}
    for p in template.params:
        value = _header_value(p)
        if lin is not None:
            prefix = uid_prefix(value)
            if prefix and not _exists(lin, value):
                found = _like(lin, prefix, 1)
                value = found[0] if found else value
            elif isinstance(value, list) and value and all(uid_prefix(v) for v in value):
                if not all(_exists(lin, v) for v in value):
                    found = _like(lin, uid_prefix(value[0]), len(value))
                    value = found or value
        values[p.name] = value
    return values
