"""No input or user value reaches Cypher except as a parameter, and none reaches HTML unescaped.

- Cypher metacharacters go through every template parameter (``all_templates()``) and
  through every loader (ids, names and command lines): the graph is unchanged, the values
  are stored and returned verbatim.
- A static scan of ``lineage/**/*.py``: Cypher is never built with f-strings, ``format``,
  ``%`` or ``+`` except in the listed places that splice model constants.
- An HTML report of records whose names and command lines hold HTML and script has no
  injected element or attribute (checked with an HTML parser).
"""

from __future__ import annotations

import ast
import json
import re
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lineage import model
from lineage.query import templates
from lineage.sources import registry as loaders
from lineage.sources.pegasus import mapping as pc
from lineage.sources.base import LoadReport
from lineage.sources.pegasus.netlogger import parse_line
from lineage.load.inputs import Input
from lineage.load.pipeline import load_input
from lineage.model.records import Node, clean_props
from lineage.load.writer import Writer, ensure_schema

from . import graphcheck
from .conftest import SAMPLES
from .test_fuzz_parsers import bp_line, samples_of
from .xalt_helpers import syslog_lines
from .corpus import needs_corpus

REPO = Path(__file__).resolve().parent.parent
HOSTILE = [
    "x' }) DETACH DELETE n //",
    'x" }) DETACH DELETE n //',
    "}) DETACH DELETE n //",
    "`) MATCH (m) DETACH DELETE m //",
    "$uid",
    "\\' OR true //",
    "x\\u0027}) DELETE n //",
    "{uid: 'x'}) WITH * MATCH (m) DETACH DELETE m RETURN 1 AS uid //",
    "Ünïcödé ☃ 𝔘 \u202ertl ا",
    "<script>alert(1)</script>",
]
SUFFIX = "'\"}) DETACH DELETE n // `$uid` <b>☃"


# ------------------------------------------------------------------ hostile Pegasus stream
def hostile_stream(path: Path) -> Path:
    """A Pegasus BP stream whose ids, names and command lines are all Cypher metacharacters."""
    lines = [bp_line({"ts": "1", "event": "stampede.wf.plan", "xwf.id": HOSTILE[0],
                      "dax.label": HOSTILE[8], "user": HOSTILE[3], "argv": HOSTILE[7]})]
    for i, value in enumerate(HOSTILE):
        lines.append(bp_line({"ts": "2", "event": "stampede.job.info", "xwf.id": HOSTILE[0],
                              "job.id": value, "type": "1", "argv": value,
                              "executable": value}))
        lines.append(bp_line({"ts": "3", "event": "stampede.job_inst.main.end",
                              "xwf.id": HOSTILE[0], "job.id": value, "job_inst.id": "1",
                              "status": "-1", "exitcode": "256", "site": value,
                              "stderr.text": value.replace("%", "%25")}))
        if i:
            lines.append(bp_line({"ts": "2", "event": "stampede.job.edge", "xwf.id": HOSTILE[0],
                                  "child.job.id": value, "parent.job.id": HOSTILE[i - 1]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def hostile_graph(lin, tmp_path):
    """The Pegasus samples plus the hostile stream, loaded; returns the hostile file."""
    lin.load([SAMPLES / "pegasus"], source="pegasus", lenient=True)
    path = hostile_stream(tmp_path / "hostile.bp")
    [result] = lin.load([path])
    assert result.status == "loaded" and result.write.unresolved_edges == 0
    return path


@needs_corpus
def test_loader_stores_hostile_values_verbatim(lin, tmp_path):
    lin.load([SAMPLES / "pegasus"], source="pegasus", lenient=True)
    samples_only = graphcheck.of(lin)
    path = hostile_stream(tmp_path / "hostile.bp")
    lin.load([path])
    wf = pc.workflow_uid(HOSTILE[0])
    for value in HOSTILE:
        [row] = lin.query("MATCH (j:Job {uid: $uid}) RETURN j.job_id AS id, j.argv AS argv, "
                          "j.executable AS exe", uid=pc.job_uid(HOSTILE[0], value))
        assert row == {"id": value, "argv": value, "exe": value}
        [inst] = lin.query("MATCH (i:JobInstance {uid: $uid}) RETURN i.site AS site, "
                           "i.stderr_text AS err", uid=pc.job_instance_uid(HOSTILE[0], value, 1))
        assert inst == {"site": value, "err": value}
    [plan] = lin.query("MATCH (w:Workflow {uid: $uid}) RETURN w.name AS name, w.argv AS argv",
                       uid=wf)
    assert plan == {"name": HOSTILE[8], "argv": HOSTILE[7]}
    assert lin.query("MATCH (u:User {uid: $uid}) RETURN u.name AS n",
                     uid=model.USER.uid(HOSTILE[3])) == [{"n": HOSTILE[3]}]
    # remove exactly what the hostile file added: the samples' graph is intact
    uids = sorted({r.uid for r in loaders.detect(path).parse(path, LoadReport(str(path), "x"))
                   if isinstance(r, Node)})
    lin.write("MATCH (n:Lineage) WHERE n.uid IN $uids DETACH DELETE n", {"uids": uids})
    assert graphcheck.of(lin) == samples_only


def _param_values(template, hostile: str) -> dict:
    params = {}
    for p in template.params:
        kind = p.type.split()[0].rstrip(",").lower()
        if kind == "string":
            params[p.name] = hostile
        elif kind == "list":
            params[p.name] = [hostile, pc.job_uid(HOSTILE[0], hostile)]
        elif p.example is not None:
            params[p.name] = p.example
        elif p.required:
            raise AssertionError(f"{template.name}: no example for {p.name} ({p.type})")
    return params


@needs_corpus
def test_every_template_parameter_takes_metacharacters_as_data(lin, hostile_graph):
    before = graphcheck.of(lin)
    assert templates.all_templates()
    for template in templates.all_templates():
        for hostile in HOSTILE:
            lin.query(template.name, **_param_values(template, hostile))  # no syntax error
        assert graphcheck.of(lin) == before, template.name


@needs_corpus
def test_templates_return_hostile_values_verbatim(lin, hostile_graph):
    wf = pc.workflow_uid(HOSTILE[0])
    for value in HOSTILE:
        uid = pc.job_uid(HOSTILE[0], value)
        [row] = lin.query("node", uid=uid)
        assert row["uid"] == uid and row["properties"]["argv"] == value
        [row] = lin.query("nodes", uids=[uid])
        assert row["name"] == value
    jobs = lin.query("pegasus/workflow_jobs", workflow=wf)
    assert sorted(j["job_id"] for j in jobs) == sorted(HOSTILE)
    failed = lin.query("pegasus/failed_jobs", workflow=wf)
    assert sorted(j["job_id"] for j in failed) == sorted(HOSTILE)
    assert {j["stderr"] for j in failed} == set(HOSTILE)
    last = pc.job_uid(HOSTILE[0], HOSTILE[-1])
    ancestors = {r["uid"] for r in lin.query("ancestors", uid=last)}
    assert ancestors == {pc.job_uid(HOSTILE[0], v) for v in HOSTILE[:-1]}


# ------------------------------------------------------------------ every loader
NUMERIC = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$|^\d{4}-\d\d-\d\d"
                     r"|^\d+(:\d+)+$")  # numbers, dates, and structured ids (Chimbuko rank:step:idx)
KEEP_BP_KEYS = {"ts", "event", "level"}


def _hostile_bp(data: bytes) -> bytes:
    out = []
    for raw in data.decode("utf-8").splitlines():
        try:
            pairs = parse_line(raw)
        except ValueError:
            out.append(raw)
            continue
        out.append(bp_line({k: v if k in KEEP_BP_KEYS or not v or NUMERIC.match(v) else v + SUFFIX
                            for k, v in pairs.items()}))
    return ("\n".join(out) + "\n").encode("utf-8")


JSON_LD_NAMES = {"@id", "@type", "@context"}


def _hostile_json(data: bytes) -> bytes:
    """Every string value suffixed, except JSON-LD keywords' values (``@id``, ``@type``,
    ``@context``: an RO-Crate's structure, names rather than values)."""
    def walk(value):
        if isinstance(value, str):
            return value if not value or NUMERIC.match(value) else value + SUFFIX
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: v if k in JSON_LD_NAMES else walk(v) for k, v in value.items()}
        return value

    return json.dumps(walk(json.loads(data)), ensure_ascii=False).encode("utf-8")


def _hostile_prov(data: bytes) -> bytes:
    """A PROV-JSON document with its elements' attribute values suffixed (identifiers, the
    references of relations and the kind / uid an export writes are kept: they are names)."""
    doc = json.loads(data)
    if not isinstance(doc, dict) or "prefix" not in doc:
        raise ValueError("not a PROV-JSON document")
    keep = {"lineage:kind", "lineage:uid"}
    for section in ("entity", "activity", "agent"):
        for attrs in doc.get(section, {}).values():
            for key, value in attrs.items():
                if (key not in keep and not key.startswith("prov:") and isinstance(value, str)
                        and value and not NUMERIC.match(value)):
                    attrs[key] = value + SUFFIX
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


def _hostile_prov_document(path: Path, prov_format: str) -> None:
    """A PROV-N or PROV-XML document with its elements' string attribute values suffixed,
    read and written again by the prov package (which escapes them for its format)."""
    from prov.model import ProvDocument

    doc = ProvDocument.deserialize(str(path), format=prov_format)
    out = ProvDocument()
    for namespace in doc.namespaces:
        out.add_namespace(namespace)
    for record in doc.get_records():
        attrs = [(k, v + SUFFIX if (record.is_element() and isinstance(v, str) and v
                                    and str(k) not in ("lineage:kind", "lineage:uid")
                                    and not NUMERIC.match(v)) else v)
                 for k, v in record.attributes]
        out.new_record(record.get_type(), record.identifier, attrs)
    out.serialize(str(path), format=prov_format)


def _hostile_event(line: bytes) -> bytes:
    """One JSON-lines event with its values suffixed (its ts, event and level kept)."""
    event = json.loads(line)
    if not isinstance(event, dict):
        raise ValueError("not an event object")
    kept = {k: v for k, v in event.items() if k in KEEP_BP_KEYS}
    rest = json.loads(_hostile_json(json.dumps({k: v for k, v in event.items()
                                                if k not in KEEP_BP_KEYS}).encode()))
    return json.dumps({**kept, **rest}, ensure_ascii=False).encode("utf-8")


def _hostile_sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    con.create_function("hostile", 1, lambda v: v if not isinstance(v, str) or not v
                        or NUMERIC.match(v) else v + SUFFIX)
    for table in tables:
        for _, column, *_ in con.execute(f'PRAGMA table_info("{table}")').fetchall():
            try:
                con.execute(f'UPDATE "{table}" SET "{column}" = hostile("{column}")')
            except sqlite3.IntegrityError:  # a CHECK constraint (e.g. workflowstate.state)
                continue
    con.commit()
    con.close()


def _hostile_swift_log(data: bytes) -> bytes:
    """A Swift log whose dataset values and file names end in the suffix (both run to the end
    of their line, so a value with spaces and quotes stays one value)."""
    text = data.decode("utf-8")
    out = re.sub(r"^(.* (?:VALUE|filename)=.+?)$", lambda m: m.group(1) + SUFFIX, text,
                 flags=re.M)
    if out == text:
        raise ValueError("no dataset values or file names to suffix")
    return out.encode("utf-8")


def _hostile_xalt_syslog() -> bytes:
    """The XALT samples, made hostile, sent as XALT's syslog transport does (as
    tests/corpus.py derives the syslog sample in the test run)."""
    lines = []
    for n, path in enumerate(sorted((SAMPLES / "xalt").glob("*.stampede2.*.json"))):
        compact = json.dumps(json.loads(_hostile_json(path.read_bytes())), separators=(",", ":"),
                             ensure_ascii=False)
        lines += syslog_lines(compact, key=f"hostile-{n}", kind=path.name.split(".")[0])
    return "".join(lines).encode("utf-8")


def _hostile_unqlite(target: Path) -> None:
    """A provDB shard of the Chimbuko v0 samples, made hostile, written with unqlite."""
    import unqlite

    target.unlink()
    db = unqlite.UnQLite(str(target))
    for name in ("anomalies", "normalexecs", "metadata"):
        coll = db.collection(name)
        coll.create()
        sample = SAMPLES / "chimbuko" / f"provdb_v0_{name}.json"
        for rec in json.loads(_hostile_json(sample.read_bytes())):
            coll.store({k: v for k, v in rec.items() if k != "__id"})
    db.commit()
    db.close()


def hostile_copy(sample: Path, target: Path) -> Path | None:
    """The sample with every non-numeric string value suffixed with Cypher metacharacters."""
    data = sample.read_bytes()
    target.write_bytes(data)
    if data.startswith(b"SQLite format 3\x00"):
        _hostile_sqlite(target)
        return target
    if b"XALT_LOGGING_" in data[:4096]:
        target.write_bytes(_hostile_xalt_syslog())
        return target
    if sample.suffix == ".unqlite":
        _hostile_unqlite(target)
        return target
    if b" RUNID id=" in data:
        target.write_bytes(_hostile_swift_log(data))
        return target
    if sample.suffix in (".provn", ".provx"):
        _hostile_prov_document(target, "provn" if sample.suffix == ".provn" else "xml")
        return target
    try:
        target.write_bytes(_hostile_prov(data))
        return target
    except ValueError:
        pass
    try:
        target.write_bytes(_hostile_json(data))
        return target
    except ValueError:
        pass
    try:  # JSON lines (monitord --encoding json)
        target.write_bytes(b"\n".join(_hostile_event(line) for line in data.splitlines()
                                      if line.strip()) + b"\n")
        return target
    except ValueError:
        pass
    first = data.lstrip().split(b"\n", 1)[0]
    if first.startswith(b"ts="):
        target.write_bytes(_hostile_bp(data))
        return target
    return None


CASES = [(f, s) for f in loaders.formats() for s in samples_of(f)[:1]]


@needs_corpus
@pytest.mark.parametrize("fmt, sample", CASES, ids=[f"{f.name}:{s.name}" for f, s in CASES])
def test_every_loader_stores_hostile_values_verbatim(lin, tmp_path, fmt, sample):
    path = hostile_copy(sample, tmp_path / sample.name)
    assert path is not None, f"no mutator for {sample.name} ({fmt.name}): write one"
    if (SAMPLES / fmt.source).is_dir():  # the prov source brings no real sample of its own
        lin.load([SAMPLES / fmt.source], source=fmt.source, lenient=True)
    before = {r["uid"] for r in lin.query("MATCH (n:Lineage) RETURN n.uid AS uid")}
    report = LoadReport(str(path), fmt.name, lenient=True)
    records = list(fmt.parse(path, report))
    parsed: dict[str, dict] = {}
    for r in records:
        if isinstance(r, Node):
            parsed.setdefault(r.uid, {}).update(clean_props(r.props))
    writer = Writer(lin.graph.driver, lin.graph.database)
    ensure_schema(writer.driver, writer.database)
    load_input(writer, Input(str(path), fmt, True), lenient=True)
    after = {r["uid"]: r["p"] for r in lin.query(
        "MATCH (n:Lineage) RETURN n.uid AS uid, properties(n) AS p")}
    assert set(after) == before | set(parsed)  # nothing deleted, nothing else created
    carried = 0
    for uid, props in parsed.items():
        for key, value in props.items():
            if isinstance(value, str) and SUFFIX in value:
                assert after[uid][key] == value, (uid, key)
                carried += 1
    assert carried > 0 or any(SUFFIX in uid for uid in parsed), "no hostile value reached the graph"


# ------------------------------------------------------------------ static scan
#: Places that splice names into Cypher; every name there comes from lineage.model.
ALLOWED_DYNAMIC_CYPHER = {
    ("lineage/load/statements.py", "edge_statement"),  # relationship type from model.REL_TYPES
    # the same for rows of many inputs, and what the graph holds of them (model.REL_TYPES)
    ("lineage/load/statements.py", "edge_batch_statement"),
    ("lineage/load/statements.py", "edge_state_statement"),
    # the fixed fragment of an element's own properties (OWN_PROPERTIES) filled at import
    # with the statement's own variable name
    ("lineage/load/statements.py", "<module>"),
    ("lineage/load/writer.py", "ensure_schema"),  # constraint/index names, labels: model.schema()
    # a relationship type's claims statement: the type from model.REL_TYPES (checked upper-case
    # identifier); and two fixed heads joined to one fixed tail at import
    ("lineage/load/claims.py", "edge_claims_statement"),
    ("lineage/load/claims.py", "<module>"),
    # the ancestry family's search block: relation names from model.LINEAGE_RELS, depth
    # bounds from the module's own constant BOUNDS
    ("lineage/query/ancestry.py", "search"),
    # SQL, not Cypher: the Swift database reader picks optional columns and tables that exist
    # from fixed lists (swift_prov.RESOURCE_COLUMNS, mapped / primitive / stage_in tables)
    ("lineage/sources/swift/db.py", "_execs"),
    # SQL, not Cypher: the demo writes its Stampede database's tables from its own fixed SCHEMA
    ("lineage/sources/pegasus/demo_db.py", "write_db"),
    # the Neo4j Browser guide's `:param` lines: expressions over the templates' own header
    # examples (JSON-quoted literals from the templates), shown to the user, never input data
    ("lineage/browser/guide.py", "_uid_lookup"),
    ("lineage/browser/guide.py", "example_expression"),
    # one `:param [{a, b}] => { RETURN <those expressions> AS a, ... }` command per template
    ("lineage/browser/guide.py", "params_command"),
    # wraps a catalogue template's own text (a .cypher file, never input) in
    # CALL () { ... } and collects its header's column names (checked identifiers)
    ("lineage/server/connection.py", "run_collected"),
    # the same wrapping, then a fixed tail (_PAGE_TAIL) whose offset, limit and counted
    # column positions are parameters
    ("lineage/server/connection.py", "run_page"),
    # `lineage cypher show`: one `:param [{a, b}] => { RETURN <JSON literal> AS a }` line
    # printed for the user to paste (never run by us); JSON-quoted values are Cypher string
    # literals whatever they hold (quotes and backslashes escaped)
    ("lineage/query/templates.py", "browser_text"),
}
CYPHER_WORDS = re.compile(r"\b(MATCH|MERGE|CREATE|UNWIND|RETURN|DELETE|DETACH|CALL|SET|WHERE|"
                          r"WITH|REMOVE|LOAD CSV|FOREACH|OPTIONAL)\b")


def _string_parts(node) -> str:
    return " ".join(n.value for n in ast.walk(node)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str))


def dynamic_cypher(source: str, filename: str) -> list[tuple[str, int, str]]:
    """(function, line, kind) of strings built dynamically whose text looks like Cypher."""
    tree = ast.parse(source, filename)
    found = []

    def visit(node, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            kind = None
            if isinstance(child, ast.JoinedStr):
                kind = "f-string"
            elif isinstance(child, ast.BinOp) and isinstance(child.op, (ast.Add, ast.Mod)):
                kind = "concatenation"
            elif (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                  and child.func.attr in ("format", "format_map", "replace")):
                kind = f".{child.func.attr}()"
            if kind and CYPHER_WORDS.search(_string_parts(child)):
                dynamic = kind != "concatenation" or any(
                    not isinstance(n, ast.Constant) for n in (child.left, child.right))
                if dynamic:
                    found.append((name, child.lineno, kind))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_no_cypher_is_built_from_values():
    files = sorted((REPO / "lineage").rglob("*.py"))
    assert len(files) > 10
    offenders, allowed_seen = [], set()
    for path in files:
        rel = path.relative_to(REPO).as_posix()
        for func, line, kind in dynamic_cypher(path.read_text(encoding="utf-8"), rel):
            if (rel, func) in ALLOWED_DYNAMIC_CYPHER:
                allowed_seen.add((rel, func))
            else:
                offenders.append(f"{rel}:{line} in {func}: Cypher built with {kind}")
    assert offenders == []
    assert allowed_seen == ALLOWED_DYNAMIC_CYPHER  # the list stays honest


def test_the_scan_catches_injection():
    bad = ('def find(tx, name):\n'
           '    tx.run(f"MATCH (n {{name: \'{name}\'}}) RETURN n")\n'
           '    tx.run("MATCH (n) WHERE n.x = " + name)\n'
           '    tx.run("MATCH (n:{}) RETURN n".format(name))\n')
    assert [k for _, _, k in dynamic_cypher(bad, "x.py")] == ["f-string", "concatenation", ".format()"]


def test_model_names_are_plain_identifiers():
    """What the allowed places splice: labels, relationship types, schema names."""
    for kind in model.NODE_KINDS.values():
        for label in kind.labels:
            assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", label), label
    for name in model.REL_TYPES:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", name), name
    spec = model.schema()
    for name, label, prop in list(spec.unique) + list(spec.ranges):
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name + label + prop)


# ------------------------------------------------------------------ HTML
class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.text).append(data)


TEMPLATE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "div",
                 "span", "b", "i", "code", "main", "input", "button", "table", "tr", "th",
                 "td", "pre", "p", "script", "label", "thead", "tbody",
                 # the "what happened" box: a section of facts (dl/dt/dd) and lists
                 "section", "dl", "dt", "dd", "ul", "li"}


@needs_corpus
@pytest.mark.parametrize("root", ["workflow", "job"])
def test_report_escapes_hostile_names_and_command_lines(lin, hostile_graph, tmp_path, root):
    uid = (pc.workflow_uid(HOSTILE[0]) if root == "workflow"
           else pc.job_uid(HOSTILE[0], HOSTILE[9]))
    out = Path(lin.report(uid, tmp_path / "r.html"))
    html = out.read_text(encoding="utf-8")
    page = _Elements()
    page.feed(html)
    page.close()
    tags = {t for t, _ in page.tags}
    assert tags <= TEMPLATE_TAGS, tags - TEMPLATE_TAGS
    # the graph and the tables as JSON data (jinja's tojson escapes <, >, & and quotes),
    # vis-network, the page's own
    assert sum(1 for t, _ in page.tags if t == "script") == 4
    for tag, attrs in page.tags:
        assert not any(a.startswith("on") for a in attrs), (tag, attrs)
        assert "javascript:" not in " ".join(str(v) for v in attrs.values())
    assert "<script>alert" not in html  # neither raw in the page nor in the JSON data
    data = json.loads(next(s for (t, a), s in zip(
        [x for x in page.tags if x[0] == "script"], page.scripts) if a.get("id") == "graph-data"))
    names = {n["name"] for n in data["nodes"]}
    assert HOSTILE[9] in names  # the script tag travels as JSON data, verbatim
    if root == "workflow":
        assert HOSTILE[9] in "".join(page.text)  # and as table text
