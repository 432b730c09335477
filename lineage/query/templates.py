"""The Cypher templates: one ``.cypher`` file each, with a header. The generic ones are in
``cypher/`` (``ancestors``, ``cross/run_chain``); each source's in its folder's ``cypher/``,
named after the source (``lineage/sources/pegasus/cypher/failed_jobs.cypher`` is
``pegasus/failed_jobs``).

A header is a run of ``//`` comment lines at the top::

    // name: ancestors
    // purpose: Everything upstream of a node ...
    // param uid: string, required. The start node. Example: "pegasus:job:wf:j1"
    // param max_depth: integer, optional (default null = no limit). ... Example: 3
    // returns: uid, kind, name, depth

An optional ``// pick <param>: <Cypher query>`` line says how to find a value that fits the
template in any graph (a workflow with failed jobs for ``pegasus/failed_jobs``): one query
returning one column, which the Browser guide uses for its examples.

A parameter documented as ``from the model`` gets its value from the model
(:data:`MODEL_PARAMETERS`): ``$status``, the status vocabulary, so that no template spells a
status (``job.status IN $status.problems``); the ``:param`` line of ``lineage cypher show``
sets it for Neo4j Browser.

Templates are pure Cypher with ``$parameters``, runnable as they are in Neo4j Browser after
``:param`` lines. Optional parameters the caller leaves out are passed as their default.

>>> t = get("ancestors")
>>> [p.name for p in t.params]
['uid', 'max_depth']
>>> t.returns[:2]
['uid', 'kind']
"""

from __future__ import annotations

import difflib

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import TemplateError

_PARAM = re.compile(r"param\s+(\w+)\s*:\s*(.*)")
_EXAMPLE = re.compile(r"Example:\s*(.+?)\s*$")
_DEFAULT = re.compile(r"\(default\s+([^)=]+?)(?:\s*=.*)?\)")
_PICK = re.compile(r"pick\s+(\w+)\s*:\s*(.+)")
_UID = re.compile(r"^([a-z]+:[A-Za-z_]+:)")

def _status_parameter() -> dict:
    from ..model import status  # here: listing templates needs no model

    return status.parameter()


#: The parameters the model gives every template that declares them ``from the model``.
MODEL_PARAMETERS = {"status": _status_parameter}


def cypher_dir() -> Path:
    """The folder of the generic templates: inside the installed wheel, or the repository's
    ``cypher/``."""
    package = Path(__file__).resolve().parent.parent  # lineage/
    packaged = package / "_cypher"
    if packaged.is_dir():
        return packaged
    return package.parent / "cypher"


def template_dirs() -> dict[str, Path]:
    """Every template folder by the prefix of its templates' names: ``""`` for the generic
    ones, ``"<source>/"`` for each source's."""
    from ..sources import registry  # here: a template by name needs no source loaded

    return {"": cypher_dir(), **{f"{name}/": path
                                 for name, path in registry.template_dirs().items()}}


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    required: bool
    default: object
    example: object
    doc: str


@dataclass(frozen=True)
class Template:
    """One template: its name (path under cypher/ without .cypher), header and text."""

    name: str
    path: Path
    purpose: str
    params: tuple[Param, ...]
    returns: list[str]
    text: str
    notes: list[str] = field(default_factory=list)
    #: ``{param: Cypher query}`` from ``// pick`` lines: how to find a fitting example value
    picks: dict[str, str] = field(default_factory=dict)

    def bind(self, given: dict) -> dict:
        """The parameters to send: the given ones, checked, plus defaults for the rest."""
        known = {p.name for p in self.params}
        unknown = set(given) - known
        if unknown:
            raise TemplateError(
                f"template {self.name!r} has no parameter {', '.join(sorted(unknown))}; "
                f"it takes: {', '.join(sorted(known)) or 'none'}"
            )
        out = {}
        for p in self.params:
            if p.name in given and given[p.name] is not None:
                out[p.name] = coerce(given[p.name], p.type)
            elif p.required:
                raise TemplateError(f"template {self.name!r} needs parameter {p.name!r} ({p.doc})")
            else:
                out[p.name] = p.default
        return out

    def browser_text(self, values: dict | None = None) -> str:
        """The template ready for Neo4j Browser: one ``:param`` command setting every
        parameter (run it first), then the query (run it second): one command and one
        result each, where several ``:param`` lines would be a multi-statement run that
        shows no rows. Values are JSON, which Cypher reads as literals.

        >>> print(get("node").browser_text({"uid": "a"}).splitlines()[0])
        :param [{uid}] => { RETURN "a" AS `uid` }
        """
        values = values or {}
        lines = []
        if self.params:
            names = ", ".join(p.name for p in self.params)
            literals = ", ".join(
                f"{cypher_literal(values.get(p.name, p.example if p.example is not None else p.default))}"
                f" AS `{p.name}`" for p in self.params)
            lines += [f":param [{{{names}}}] => {{ RETURN {literals} }}", "",
                      "// run the :param line above first, then the query below", ""]
        return "\n".join(lines + [self.text.strip(), ""])


def uid_prefix(example) -> str | None:
    """The ``<source>:<kind>:`` prefix of an example uid (not of a bare prefix), or None.

    >>> uid_prefix("pegasus:workflow:ea17"), uid_prefix("pegasus:workflow:"), uid_prefix(3)
    ('pegasus:workflow:', None, None)
    """
    if isinstance(example, str):
        m = _UID.match(example)
        return m.group(1) if m and len(example) > len(m.group(1)) else None
    return None


def cypher_literal(value) -> str:
    """A Cypher literal of a JSON-like value: strings as JSON writes them (its escapes are
    Cypher's too), maps with back-quoted keys.

    >>> cypher_literal({"failed": "failed", "problems": ["failed", "held"]})
    '{`failed`: "failed", `problems`: ["failed", "held"]}'
    >>> cypher_literal(None), cypher_literal(3)
    ('null', '3')
    """
    if isinstance(value, dict):
        inner = ", ".join(f"`{str(k).replace('`', '``')}`: {cypher_literal(v)}"
                          for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    return "null" if value is None else json.dumps(value)


def coerce(value, type_name: str):
    """Turn a command-line string into the parameter's declared type.

    >>> coerce("3", "integer"), coerce("true", "boolean"), coerce("x", "string")
    (3, True, 'x')
    >>> coerce("99999999999999999999", "integer")
    Traceback (most recent call last):
    ...
    lineage.errors.TemplateError: '99999999999999999999' is not a valid integer (64-bit, as Neo4j stores them)
    """
    if not isinstance(value, str):
        return value
    kind = type_name.split()[0].rstrip(",").lower()
    try:
        if kind == "integer":
            number = int(value)
            if not -(2**63) <= number < 2**63:
                raise TemplateError(f"{value!r} is not a valid integer (64-bit, as Neo4j "
                                    "stores them)")
            return number
        if kind == "float":
            number = float(value)
            if number != number or number in (float("inf"), float("-inf")):
                raise ValueError(value)
            return number
        if kind == "boolean":
            if value.lower() in ("true", "1", "yes"):
                return True
            if value.lower() in ("false", "0", "no"):
                return False
            raise ValueError(value)
        if kind == "list":
            return json.loads(value) if value.startswith("[") else value.split(",")
    except ValueError as exc:
        raise TemplateError(f"{value!r} is not a valid {kind}") from exc
    return value


def _literal(text: str):
    text = text.strip().rstrip(".")
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse(path: Path, name: str) -> Template:
    text = path.read_text(encoding="utf-8")
    header: list[str] = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        header.append(line[2:].strip())
    purpose, returns, params, notes, picks = "", [], [], [], {}
    last = None
    for line in header:
        if line.startswith("purpose:"):
            purpose, last = line[len("purpose:"):].strip(), "purpose"
        elif line.startswith("returns:"):
            returns = [c.strip() for c in line[len("returns:"):].split(",") if c.strip()]
            last = "returns"
        elif (m := _PARAM.match(line)) is not None:
            doc = m.group(2)
            type_name = doc.split(",")[0].strip()
            required = "required" in doc.split(".")[0]
            example = _EXAMPLE.search(doc)
            default = _literal(m_.group(1)) if (m_ := _DEFAULT.search(doc)) else None
            if "from the model" in doc.split(".")[0]:
                if m.group(1) not in MODEL_PARAMETERS:
                    raise TemplateError(f"{path}: the model gives no parameter {m.group(1)!r} "
                                        f"(it gives {', '.join(MODEL_PARAMETERS)})")
                default = MODEL_PARAMETERS[m.group(1)]()
            params.append(Param(
                name=m.group(1),
                type=type_name,
                required=required,
                default=default,
                example=_literal(example.group(1)) if example else None,
                doc=doc,
            ))
            last = "param"
        elif (m := _PICK.match(line)) is not None:
            picks[m.group(1)], last = m.group(2).strip(), "pick"
        elif line.startswith("note:"):
            notes.append(line[len("note:"):].strip())
            last = "note"
        elif line.startswith("name:"):
            last = "name"
        elif last == "purpose":
            purpose += " " + line
        elif last == "note" and notes:
            notes[-1] += " " + line
    if not purpose or not returns:
        raise TemplateError(f"{path}: header needs 'purpose:' and 'returns:' lines")
    return Template(name, path, purpose, tuple(params), returns, text, notes, picks)


def all_templates() -> list[Template]:
    """Every template, sorted by name (``ancestors``, ``pegasus/failed_jobs``, ...)."""
    out = []
    for prefix, root in template_dirs().items():
        for path in sorted(root.rglob("*.cypher")):
            out.append(parse(path, prefix + path.relative_to(root).with_suffix("").as_posix()))
    return sorted(out, key=lambda t: t.name)


def _path_of(name: str) -> tuple[Path, Path]:
    """Where the template called ``name`` would be, and the folder it must be inside."""
    dirs = template_dirs()
    head, _, rest = name.partition("/")
    if rest and f"{head}/" in dirs:
        root = dirs[f"{head}/"]
        return root / f"{rest}.cypher", root
    return dirs[""] / f"{name}.cypher", dirs[""]


def get(name: str) -> Template:
    """The template called ``name`` (``pegasus/failed_jobs`` or ``pegasus.failed_jobs``)."""
    wanted = name.replace(".", "/").removesuffix("/cypher")
    path, root = _path_of(wanted)
    if not path.is_file() or root.resolve() not in path.resolve().parents:
        names = [t.name for t in all_templates()]
        close = difflib.get_close_matches(wanted, names, n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise TemplateError(f"no template {name!r}; {hint}`lineage cypher list` shows all "
                            f"{len(names)}")
    return parse(path, wanted)


def is_template_name(text: str) -> bool:
    """True when ``text`` names a template rather than being a Cypher statement."""
    return re.fullmatch(r"[A-Za-z0-9_]+([./][A-Za-z0-9_]+)*", text) is not None
