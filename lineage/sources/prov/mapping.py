"""W3C PROV documents to graph records, and the vocabulary both directions share.

A document ``lineage export`` wrote carries each element's kind and uid (``lineage:kind``,
``lineage:uid``) and each property as a ``lineage:<name>`` attribute (lists as JSON text
under ``lineage:list__<name>``): it comes back as the same nodes and relationships.
Elements of other tools' documents become ``ProvEntity`` / ``ProvActivity`` / ``ProvAgent``.
PROV relations map to the lineage relations (:data:`RELATION_OF`); ``wasInfluencedBy`` with a
``lineage:type`` attribute carries the lineage relations PROV has no term for (``PART_OF``,
``INSTANCE_OF``, ...). A relation keeps its ``lineage:*`` attributes and a single
``prov:role`` (as ``role``, where its relationship declares one); relationship types declare
no attribute families, so any other attribute of a relation (``prov:time``, ``prov:plan``,
``ex:note``, ...) is counted by relation and name under ``dropped_relation_attributes``, with
one warning per document.

>>> RELATION_OF["wasGeneratedBy"]
'WAS_GENERATED_BY'
>>> prop_name("ex:size"), prop_name("http://x.org/a#b c")
('attr_ex_size', 'attr_http_x_org_a_b_c')
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from typing import Any, Iterator

from ... import model
from ...model.prov import LIST_PREFIX, PREFIX
from ...model.prov import PROV_RELATIONS as RELATIONS
from ...model.records import Edge, Node, Record
from ..base import LoadReport
from . import model as prov_model

RELATION_OF = {prov: rel for prov, (rel, _, _) in RELATIONS.items() if rel}
#: At most this many (relation, attribute) keys are counted apart; the rest are summed.
MAX_DROPPED_KEYS = 50
GENERIC = {"prov:Entity": prov_model.PROV_ENTITY, "prov:Activity": prov_model.PROV_ACTIVITY,
           "prov:Agent": prov_model.PROV_AGENT}


def prop_name(attribute: str) -> str:
    """The property name of a foreign attribute: ``attr_`` and its name as an identifier."""
    return "attr_" + re.sub(r"[^0-9A-Za-z]+", "_", attribute).strip("_")


def epoch(value: Any) -> float | None:
    """Seconds since the epoch of a PROV time (a datetime), None for none."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return value.timestamp()
    return None


def _plain(value: Any) -> Any:
    """A PROV attribute value as a storable scalar (qualified names and literals as text)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return str(value)


def _lineage_props(attributes: list[tuple[str, Any]]) -> tuple[str | None, str | None, dict]:
    """The kind, uid and properties that ``lineage:*`` attributes carry; ValueError for an
    attribute that names no property (``lineage:`` or ``lineage:list__`` alone: a damaged
    document, and no graph property may have an empty name)."""
    kind = uid = None
    props: dict[str, Any] = {}
    for name, value in attributes:
        if not name.startswith(PREFIX + ":"):
            continue
        local = name[len(PREFIX) + 1:]
        if local == "kind":
            kind = str(value)
        elif local == "uid":
            uid = str(value)
        elif local.startswith(LIST_PREFIX):
            if not local[len(LIST_PREFIX):]:
                raise ValueError(f"attribute {name!r} names no property")
            props[local[len(LIST_PREFIX):]] = json.loads(str(value))
        elif not local:
            raise ValueError(f"attribute {name!r} names no property ({PREFIX}:<property>)")
        else:
            props[local] = _plain(value)
    return kind, uid, props


def element_record(record, where: str) -> Node:
    """The node of one PROV element (entity, activity or agent)."""
    attributes = [(str(k), v) for k, v in record.attributes]
    kind_name, uid, props = _lineage_props(attributes)
    if kind_name is not None:  # written by lineage export: its own kind and uid
        kind = model.NODE_KINDS.get(kind_name)
        if kind is None or uid is None or model.kind_of_uid(uid) is not kind:
            raise ValueError(f"{where}: lineage:kind {kind_name!r} with lineage:uid {uid!r} "
                             "is not a kind and uid scheme of this model")
        return Node(kind, uid, props)
    kind = GENERIC[str(record.get_type())]
    identifier = str(record.identifier)
    props = {"identifier": identifier, "name": identifier}
    types = [str(v) for k, v in attributes if k == "prov:type"]
    if types:
        props["prov_type"] = types
    for name, value in attributes:
        if name == "prov:label":
            props["label"] = str(value)
        elif name in ("prov:startTime", "prov:endTime"):
            props["start_time" if name.endswith("startTime") else "end_time"] = epoch(value)
        elif name != "prov:type":
            props[prop_name(name)] = _plain(value)
    return Node(kind, kind.uid(identifier), props)


def relation_record(record, uids: dict[str, str],
                    where: str) -> tuple[Edge | None, list[str]]:
    """The relationship of one PROV relation between elements of the document (None for a
    relation this model has no term for), and the names of the attributes it does not keep
    (see :func:`_keep_role`)."""
    name = record.get_type().localpart
    name = name[0].lower() + name[1:]
    spec = _relation_spec(name)
    if spec is None:
        return None, []
    rel_name, start_attr, end_attr = spec
    formal = {str(k): v for k, v in record.formal_attributes}
    start, end = formal.get(start_attr), formal.get(end_attr)
    if start is None or end is None:
        raise ValueError(f"{where}: a {name} without {start_attr} and {end_attr}")
    attributes = [(str(k), v) for k, v in record.attributes]
    _, _, props = _lineage_props(attributes)
    rel_name = props.pop("type", None) if rel_name is None else rel_name
    if rel_name is None or rel_name not in model.REL_TYPES:
        return None, []
    rel = model.REL_TYPES[rel_name]
    key = props.pop("key", "")
    foreign = [(n, v) for n, v in attributes
               if not n.startswith(PREFIX + ":") and n not in (start_attr, end_attr)]
    dropped = _keep_role(foreign, rel, props)
    try:
        edge = Edge(rel, uids[str(start)], uids[str(end)], props, key=key)
    except KeyError as exc:
        raise ValueError(f"{where}: {name} names {exc.args[0]}, which the document does not "
                         "declare") from None
    return edge, dropped


def _keep_role(foreign: list[tuple[str, Any]], rel, props: dict) -> list[str]:
    """Put a relation's one ``prov:role`` on its edge as ``role`` when the relationship
    declares ``role`` and ``lineage:role`` did not set it; the names of the other attributes
    (none of which the relationship declares).

    >>> props = {}
    >>> _keep_role([("prov:role", "ex:input"), ("prov:time", 0)], model.USED, props), props
    (['prov:time'], {'role': 'ex:input'})
    >>> _keep_role([("prov:role", "ex:input")], model.WAS_GENERATED_BY, {})
    ['prov:role']
    """
    roles = [value for name, value in foreign if name == "prov:role"]
    if len(roles) == 1 and "role" in rel.props and "role" not in props:
        props["role"] = str(_plain(roles[0]))
        return [name for name, _ in foreign if name != "prov:role"]
    return [name for name, _ in foreign]


_PROV_NAMES = {"usage": "used", "generation": "wasGeneratedBy",
               "communication": "wasInformedBy", "derivation": "wasDerivedFrom",
               "membership": "hadMember", "association": "wasAssociatedWith",
               "start": "wasStartedBy", "influence": "wasInfluencedBy"}


def _relation_spec(name: str):
    return RELATIONS.get(_PROV_NAMES.get(name, name))


def document_records(document, report: LoadReport, path: str) -> Iterator[Record]:
    """Records of a PROV document (its bundles flattened): elements first, then relations."""
    uids: dict[str, str] = {}
    relations = []
    for number, record in enumerate(document.get_records(), 1):
        where = f"record {number} ({record.get_type()} {record.identifier or ''})".rstrip()
        try:
            if str(record.get_type()) in GENERIC:
                node = element_record(record, where)
                uids[str(record.identifier)] = node.uid
                yield node
            else:
                relations.append((where, record))
        except ValueError as exc:
            report.skip(path, where, "a PROV element this model can hold", str(exc))
    dropped: Counter = Counter()
    for where, record in relations:
        try:
            edge, unkept = relation_record(record, uids, where)
        except ValueError as exc:
            report.skip(path, where, "a PROV relation between declared elements", str(exc))
            continue
        if edge is None:
            report.unknown_item(f"PROV {record.get_type()}")
        else:
            relation = _PROV_NAMES.get(record.get_type().localpart.lower(),
                                       str(record.get_type()))
            dropped.update(f"{relation} {name}" for name in unkept)
            yield edge
    _report_dropped(dropped, report, path)


def _report_dropped(dropped: Counter, report: LoadReport, path: str) -> None:
    """Count the relation attributes no edge keeps (``dropped_relation_attributes``, by
    relation and attribute) and say so in one warning."""
    if not dropped:
        return
    ranked = sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0]))
    counts = dict(ranked[:MAX_DROPPED_KEYS - 1] if len(ranked) > MAX_DROPPED_KEYS else ranked)
    if len(counts) < len(ranked):
        counts["(other attributes)"] = sum(n for _, n in ranked[len(counts):])
    report.extra["dropped_relation_attributes"] = counts
    listed = ", ".join(f"{k} ({n})" for k, n in ranked[:5])
    more = f", ... ({len(ranked) - 5} more)" if len(ranked) > 5 else ""
    report.warn(f"{path}: {sum(dropped.values())} attributes of PROV relations not kept, the "
                f"model declares no such relationship property: {listed}{more}")
