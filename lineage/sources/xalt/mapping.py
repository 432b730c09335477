"""XALT records (run, link, pkg) mapped to lineage nodes and edges, whatever carried them.

XALT writes one JSON record when a program is linked (``link``), when a tracked program
starts (``run`` ``aaa``, end time 0) and ends (``run`` ``zzz``), and one per package a
Python, R or MATLAB program imports (``pkg``). The same record may arrive as a file or as
syslog chunks (:mod:`lineage.sources.xalt.syslog`); both end up in :func:`record_to_graph`.

The crc: newer XALT starts every record with ``{"crc":"0xHHHH",`` where HHHH is the
CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final xor;
XALT's ``crcFast``) of the record text as written, computed while the crc value still read
``0xFFFF`` (bytes 8 to 13), without the trailing newline.

>>> rec = b'{"crc":"0xFFFF","program":"python","xalt_run_uuid":"u1","package_name":"numpy"}'
>>> value = crc16_ccitt(rec)
>>> signed = rec[:8] + f"0x{value:04X}".encode() + rec[14:]
>>> check_crc(signed)
'ok'
>>> check_crc(signed.replace(b"numpy", b"numpz"))
'bad'
>>> check_crc(b'{"program":"python"}')
'missing'
"""

from __future__ import annotations

import binascii
import functools
import json
import os
import re
from pathlib import PurePosixPath
from typing import Any, Iterator

from ... import model
from ...secrets import redact_command_line, redact_value
from . import ENV_DEFAULT, ENV_MODES
from . import model as xalt_model
from .spellings import canonical, unknown_keys
from ...model.records import Edge, Node, Record, as_json
from ..base import LoadReport

SOURCE = "xalt"

# ------------------------------------------------------------------ crc
_CRC_HEAD = re.compile(rb'^\{"crc":"0x[0-9A-Fa-f]{4}"')


def crc16_ccitt(data: bytes) -> int:
    """XALT's ``crcFast``: CRC-16/CCITT-FALSE (``binascii.crc_hqx`` started at 0xFFFF).

    >>> hex(crc16_ccitt(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


def check_crc(text: bytes) -> str:
    """``ok``, ``bad`` or ``missing``: the crc a record carries against its content."""
    text = text.rstrip(b" \t\r\n")
    if not _CRC_HEAD.match(text):
        return "missing"
    stated = int(text[10:14], 16)
    return "ok" if crc16_ccitt(text[:8] + b"0xFFFF" + text[14:]) == stated else "bad"


# ------------------------------------------------------------------ environment
ENV_VARIABLE = "LINEAGE_XALT_ENV"
REDACTED = "[redacted]"

#: Variable names whose values are never kept in ``filtered`` mode, by their ``_``-separated
#: parts (case-insensitive): ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``MYSQL_PWD``,
#: ``SSHPASS``, ``DB_PASSWORD``, ``SSH_AUTH_SOCK``; not ``TOKENIZERS_PARALLELISM``,
#: ``GIT_AUTHOR_NAME``, ``IDEV_SETUP_BYPASS``, ``SSH_ASKPASS`` (a part that merely holds
#: the letters).
SECRET_NAME_PARTS = (
    r"\w*PASSWORD", r"\w*PASSWD", r"PASS", r"SSHPASS", r"\w*PASSPHRASE", r"\w*PWD",
    r"\w*TOKENS?", r"\w*SECRETS?\w*", r"\w*KEYS?", r"CREDENTIALS?\w*", r"AUTH", r"COOKIES?",
    r"PRIVATE\w*", r"\w*SIGNATURE",
)
_SECRET_NAME = re.compile(r"(?i)(?:^|_)(?:" + "|".join(SECRET_NAME_PARTS) + r")(?:_|$)")
#: a value that is only an absolute path names where a secret is, it is not one
#: (``SSH_AUTH_SOCK=/tmp/ssh-x/agent.1``, ``PGPASSFILE=~/.pgpass``): kept under any name
_PLAIN_PATH = re.compile(r"~?/[\w.\-+/~%,]*")


def env_mode(explicit: str | None = None) -> str:
    """The environment mode: ``explicit`` (the load's ``xalt_env`` option), else ``filtered``.

    >>> env_mode("all")
    'all'
    """
    mode = (explicit or ENV_DEFAULT).strip().lower()
    if mode not in ENV_MODES:
        raise ValueError(f"xalt_env={mode!r} ({ENV_VARIABLE}, --env): expected one of "
                         f"{', '.join(ENV_MODES)}")
    return mode


@functools.lru_cache(maxsize=8192)
def is_secret_name(name: str) -> bool:
    """True for variable names that look like they hold a secret.

    >>> is_secret_name("GITHUB_TOKEN"), is_secret_name("aws_secret_access_key"), is_secret_name("PATH")
    (True, True, False)
    >>> is_secret_name("SSHPASS"), is_secret_name("MYSQL_PWD"), is_secret_name("PWD")
    (True, True, True)
    >>> is_secret_name("TOKENIZERS_PARALLELISM"), is_secret_name("IDEV_SETUP_BYPASS")
    (False, False)
    """
    return _SECRET_NAME.search(name) is not None


def filter_env(env: dict[str, Any], mode: str) -> tuple[dict[str, str] | None, int]:
    """The environment to keep and how many values were redacted.

    ``none`` keeps nothing, ``all`` keeps every value verbatim, ``filtered`` replaces the
    values of secret-looking names (unless a plain absolute path) with ``[redacted]`` and,
    in other values, the secrets
    :func:`lineage.secrets.redact_value` finds (passwords in URLs and options, tokens, keys;
    the rest of the value stays).

    >>> filter_env({"PATH": "/bin", "API_TOKEN": "abc", "DB": "pg://me:pw@h/db"}, "filtered")
    ({'PATH': '/bin', 'API_TOKEN': '[redacted]', 'DB': 'pg://me:[redacted]@h/db'}, 2)
    """
    if mode == "none":
        return None, 0
    out: dict[str, str] = {}
    redacted = 0
    for name, value in env.items():
        text = value if isinstance(value, str) else json.dumps(value)
        if mode == "filtered":
            cleaned = _filtered(name, text)
            if cleaned != text:
                text, redacted = cleaned, redacted + 1
        out[name] = text
    return out, redacted


@functools.lru_cache(maxsize=16384)
def _filtered(name: str, text: str) -> str:
    """The value of variable ``name`` as ``filtered`` mode keeps it (remembered: the runs of
    one site share most of their environment, ``PATH`` and ``HOME`` alike)."""
    if is_secret_name(name) and not _PLAIN_PATH.fullmatch(text):
        return REDACTED
    return redact_value(text, REDACTED)


# ------------------------------------------------------------------ strings
def clean_text(value: Any) -> Any:
    """Strings Neo4j can store: lone surrogates (from ``\\udcff`` escapes or undecodable
    bytes read with ``surrogateescape``) become ``\\xff``/``\\udcff`` text; everything else,
    quotes, semicolons and control characters included, is kept verbatim.

    >>> clean_text("a;'b\\"" + chr(0xdcff))
    'a;\\'b"\\\\xff'
    """
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            out = []
            for ch in value:
                code = ord(ch)
                if 0xDC80 <= code <= 0xDCFF:
                    out.append(f"\\x{code - 0xDC00:02x}")
                elif 0xD800 <= code <= 0xDFFF:
                    out.append(f"\\u{code:04x}")
                else:
                    out.append(ch)
            return "".join(out)
    if isinstance(value, list):
        if _all_ascii(value):
            return value
        return [clean_text(v) for v in value]
    if isinstance(value, dict):
        if _all_ascii(value) and _all_ascii(value.values()):
            return value
        return {clean_text(k): clean_text(v) for k, v in value.items()}
    return value


def _all_ascii(strings) -> bool:
    """Whether ``strings`` are all ASCII text (one pass in C: an environment of hundreds of
    variables is checked at once, not value by value); ``False`` when one is not a string.

    >>> _all_ascii(["a", "b"]), _all_ascii(["a", 1]), _all_ascii(["\u00e9"])
    (True, False, False)
    """
    try:
        return "".join(strings).isascii()
    except TypeError:
        return False


def _str(value: Any) -> str | None:
    if value is None:
        return None
    text = clean_text(value if isinstance(value, str) else str(value))
    return text if text != "" else None


def _num(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def _str_list(values: Any) -> list[str] | None:
    if isinstance(values, str):  # a command line some writers kept as one string
        return [clean_text(values)]
    if not isinstance(values, list):
        return None
    return [clean_text(v) if isinstance(v, str) else json.dumps(v) for v in values]


# ------------------------------------------------------------------ uids
def execution_uid(run_uuid: str) -> str:
    """The execution of one run: its start and end records share it.

    >>> execution_uid("acc1")
    'xalt:run:acc1'
    """
    return xalt_model.EXECUTION.uid(run_uuid)


def build_uid(build_uuid: str) -> str:
    """The link step, named by its build uuid from a link record's ``resultT.uuid`` and a
    run record's ``xaltLinkT.Build_UUID`` alike.

    >>> build_uid("b6e6")
    'xalt:build:b6e6'
    """
    return xalt_model.BUILD.uid(build_uuid)


def executable_uid(sha1: str | None, path: str | None, syshost: str | None) -> str:
    """By sha1 when known (so link and run records meet), else by host and path.

    >>> executable_uid("3eae", "/x/hello", "s2")
    'xalt:executable:3eae'
    >>> executable_uid(None, "/x/hello", "s2")
    'xalt:executable::s2:/x/hello'
    """
    if sha1 and sha1 not in ("0", "unknown"):
        return xalt_model.EXECUTABLE.uid(sha1, None, None)
    return xalt_model.EXECUTABLE.uid(None, syshost or "?", path)


def known_sha1(sha1: Any) -> str | None:
    """A sha1, or None for XALT's ``"0"`` / ``"unknown"`` placeholders."""
    text = _str(sha1)
    return None if text in (None, "0", "unknown") else text


def library_uid(path: str, sha1: str | None) -> str:
    """One library file content at one path; ``0`` stands for an unknown sha1.

    >>> library_uid("/usr/lib64/libm.so.6", None)
    'xalt:library:0:/usr/lib64/libm.so.6'
    """
    return xalt_model.LIBRARY.uid(sha1 or "0", path)


def object_uid(path: str, sha1: str | None) -> str:
    return xalt_model.OBJECT_FILE.uid(sha1 or "0", path)


def package_uid(program: str, name: str, version: str | None, path: str | None) -> str:
    return xalt_model.PACKAGE.uid(program, name, version, path)


# ------------------------------------------------------------------ kinds
def record_kind(record: Any) -> str | None:
    """``run``, ``link`` or ``pkg`` from the keys of a decoded record, else None.

    >>> record_kind({"resultT": {}, "linkA": []}), record_kind({"userT": {}, "userDT": {}})
    ('link', 'run')
    >>> record_kind({"uuid": "b1", "linkA": ["/usr/lib/crt1.o"]})  # XALT 0.x: flat
    'link'
    """
    if not isinstance(record, dict):
        return None
    if "resultT" in record and ("linkA" in record or "link_line" in record):
        return "link"
    if "linkA" in record and "uuid" in record:  # the flat link record of XALT 0.x
        return "link"
    if "userT" in record and ("userDT" in record or "cmdlineA" in record or "xaltLinkT" in record):
        return "run"
    if "xalt_run_uuid" in record and "package_name" in record:
        return "pkg"
    return None


def file_kind(path: str | os.PathLike) -> str | None:
    """The kind named by an XALT file name (``run.<syshost>.<date>...json``), else None."""
    name = PurePosixPath(str(path)).name
    for kind in ("run", "link", "pkg"):
        if name.startswith(kind + ".") and name.endswith(".json"):
            return kind
    return None


def basename(path: str | None) -> str | None:
    if not path:
        return None
    return path.rstrip("/").rsplit("/", 1)[-1] or path


def build_name(exec_path: str | None, compiler: str | None, build_uuid: str) -> str:
    """The same human name from a link record and from a run's watermark.

    >>> build_name("/home/a/hello", "icc", "b6e67891-93")
    'link hello (icc)'
    """
    return f"link {basename(exec_path) or build_uuid[:8]} ({compiler or '?'})"


def lib_stem(name: str) -> str:
    """The library's name without suffix and version, to find every file of one library.

    >>> [lib_stem(n) for n in ("libmpi.so.12", "libc-2.17.so", "libgcc.a", "crt1.o", "libstdc++.so.6.0.21")]
    ['libmpi', 'libc', 'libgcc', 'crt1', 'libstdc++']
    """
    stem = name
    for marker in (".so", ".a", ".o"):
        idx = name.find(marker)
        if idx > 0 and (idx + len(marker) == len(name) or name[idx + len(marker)] == "."):
            stem = name[:idx]
            break
    return re.sub(r"-\d[\d.]*$", "", stem) or stem


def linked_kind(path: str) -> str:
    """XALT's object kinds: ``o`` object file, ``a`` static library, ``so`` shared library."""
    name = basename(path) or path
    if name.endswith(".o"):
        return "o"
    if name.endswith(".a"):
        return "a"
    return "so" if ".so" in name else "other"


# ------------------------------------------------------------------ graph
class _Graph:
    """Turns decoded records into records for the writer, noting what it saw in a report."""

    def __init__(self, report: LoadReport, env: str, one_of_many: bool = False):
        self.report = report
        self.env = env
        # a damaged record among many (a syslog) is skipped and counted, strict too, as
        # XALT's loader does; a JSON file is one record: strict refuses it
        self.skip = report.skip_record if one_of_many else report.skip
        self.counts = report.extra.setdefault("xalt", {})

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def process_tree(self, pt_a: list) -> list:
        """XALT's process tree (``ptA``) with each parent's command line redacted."""
        tree = clean_text(pt_a)
        return [{**p, "cmdlineA": redact_command_line(p["cmdlineA"], counts=self.counts)}
                if isinstance(p, dict) and "cmdlineA" in p else p for p in tree]

    # -------------------------------------------------------- shared pieces
    def user(self, name: str | None, start: str, role: str) -> Iterator[Record]:
        if name:
            yield Node(model.USER, model.USER.uid(name), {"name": name})
            yield Edge(model.WAS_ASSOCIATED_WITH, start, model.USER.uid(name), {"role": role},
                       key=role)

    def host(self, name: str | None, start: str, role: str) -> Iterator[Record]:
        if name:
            yield Node(model.HOST, model.HOST.uid(name), {"name": name})
            yield Edge(model.WAS_ASSOCIATED_WITH, start, model.HOST.uid(name), {"role": role},
                       key=role)

    def linked_file(self, path: str, sha1: str | None) -> Node:
        kind = linked_kind(path)
        name = basename(path) or path
        props = {"name": name, "path": path, "sha1": sha1, "stem": lib_stem(name)}
        if kind == "o":
            return Node(xalt_model.OBJECT_FILE, object_uid(path, sha1), props)
        props["type"] = {"a": "static", "so": "shared"}.get(kind, "other")
        return Node(xalt_model.LIBRARY, library_uid(path, sha1), props)

    # -------------------------------------------------------- run
    def _duplicate(self, run_uuid: str, identity: dict, where: str) -> bool:
        """True for a run record that differs from the first record of its run uuid in this
        input on any identity field (:data:`~lineage.sources.xalt.model.RUN_IDENTITY`: user,
        hosts, job id, program, start) both state: XALT keeps the first record of a uuid and
        counts the others as duplicates (a run's start and end records agree on all of them).
        """
        first = self.report.state.setdefault("xalt_run_identities", {}).setdefault(
            run_uuid, identity)
        differ = [(k, first[k], identity[k]) for k in xalt_model.RUN_IDENTITY
                  if first.get(k) is not None and identity.get(k) is not None
                  and first[k] != identity[k]]
        if differ:
            self.count("duplicate_run_uuid")
            what = "; ".join(f"{k} {old!r} there, {new!r} here" for k, old, new in differ)
            self.report.warn(f"{self.report.path}: {where}: run uuid {run_uuid} already names a "
                             f"run of {first.get('exec_path') or first.get('sha1')}; this record "
                             f"differs ({what}): it is a duplicate and was not loaded (XALT "
                             "keeps the first record of a run uuid)")
        return bool(differ)

    def run(self, rec: dict, crc: str, where: str) -> Iterator[Record]:
        user_t = rec.get("userT") if isinstance(rec.get("userT"), dict) else {}
        user_dt = rec.get("userDT") if isinstance(rec.get("userDT"), dict) else {}
        link_t = rec.get("xaltLinkT") if isinstance(rec.get("xaltLinkT"), dict) else {}
        run_uuid = _str(user_t.get("run_uuid"))
        if not run_uuid:
            self.skip(self.report.path, where, "userT.run_uuid in a run record",
                             json.dumps(sorted(user_t))[:200])
            return
        uid = execution_uid(run_uuid)
        start = _num(user_dt.get("start_time"))
        end = _num(user_dt.get("end_time"))
        is_end = end is not None and end > 0
        self.count("run_end_records" if is_end else "run_start_records")
        exec_path = _str(user_t.get("exec_path"))
        syshost = _str(user_t.get("syshost"))
        user = _str(user_t.get("user"))
        sha1 = known_sha1(rec.get("hash_id"))
        # the execution host (for lineage link): XALT records only the cluster name,
        # newer versions the node in userT, older ones leave it in the environment
        env_t = rec.get("envT") if isinstance(rec.get("envT"), dict) else {}
        hostname = _str(user_t.get("hostname")) or _str(env_t.get("HOSTNAME"))
        job_id = _str(user_t.get("job_id"))
        identity = {"user": user, "syshost": syshost, "hostname": hostname, "job_id": job_id,
                    "exec_path": exec_path, "sha1": sha1, "start_time": start}
        if self._duplicate(run_uuid, identity, where):
            return
        build_uuid = _str(link_t.get("Build_UUID") or link_t.get("Build.UUID"))
        env, redacted = filter_env(clean_text(env_t), self.env)
        if redacted:
            self.count("env_values_redacted", redacted)
        modules = None
        if env is not None and env_t.get("LOADEDMODULES"):
            modules = [m for m in _str(env_t["LOADEDMODULES"]).split(":") if m]
        pt_a = rec.get("ptA") if isinstance(rec.get("ptA"), list) else None
        exit_status = _int(user_t.get("exit_status")) if is_end else None
        props = {
            "uuid": run_uuid,
            "name": f"{basename(exec_path) or 'run'} {run_uuid[:8]}",
            "start_time": start,
            "end_time": end if is_end else None,
            "run_time": _num(user_dt.get("run_time")) if is_end else None,
            "status": xalt_model.execution_status(exit_status) if is_end else None,
            "has_start_record": True if not is_end else None,
            "has_end_record": True if is_end else None,
            "exit_status": exit_status,
            "cores": _int(user_dt.get("num_cores")),
            "nodes": _int(user_dt.get("num_nodes")),
            "tasks": _int(user_dt.get("num_tasks")),
            "threads": _int(user_dt.get("num_threads")),
            "gpus": _int(user_dt.get("num_gpus")),
            "probability": _num(user_dt.get("probability")),
            "job_id": job_id,
            "queue": _str(user_t.get("queue")),
            "account": _str(user_t.get("account")),
            "cwd": _str(user_t.get("cwd")),
            "scheduler": _str(user_t.get("scheduler")),
            "syshost": syshost,
            "hostname": hostname,
            "submit_host": _str(user_t.get("submit_host")),
            "user": user,
            "exec_path": exec_path,
            "exec_type": _str(user_t.get("exec_type")),
            "sha1": sha1,
            "build_uuid": build_uuid,
            "cmdline": redact_command_line(_str_list(rec.get("cmdlineA")), counts=self.counts),
            # the environment (and the modules read from it) of the start record, as XALT's
            # loader keeps it; an end record's goes to end_env, so that loading the start
            # and end records in either order gives the same graph
            "env": as_json(env) if env is not None and not is_end else None,
            "end_env": as_json(env) if env is not None and is_end else None,
            "env_mode": self.env,
            "modules": modules if not is_end else None,
            "end_modules": modules if is_end else None,
            "parent_processes": _str_list([p.get("cmd_name") for p in pt_a
                                           if isinstance(p, dict)]) if pt_a else None,
            "process_tree": as_json(self.process_tree(pt_a)) if pt_a else None,
            "xalt_version": _str(link_t.get("XALT_Version")),
            "crc_status": crc,
        }
        yield Node(xalt_model.EXECUTION, uid, props)
        yield from self.user(user, uid, "user")
        yield from self.host(syshost, uid, "syshost")

        if exec_path or sha1:
            exe = executable_uid(sha1, exec_path, syshost)
            yield Node(xalt_model.EXECUTABLE, exe, {
                "name": basename(exec_path) or sha1, "path": exec_path, "sha1": sha1,
                "type": _str(user_t.get("exec_type")), "syshost": syshost,
            })
            yield Edge(model.USED, uid, exe, {"role": "executable"}, key="executable")
            if build_uuid:
                yield from self.build_from_watermark(build_uuid, link_t, exe, exec_path)

        libs = rec.get("libA") if isinstance(rec.get("libA"), list) else []
        for entry in libs:
            if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
                self.report.unknown_item("libA entry that is not [path, sha1]")
                continue
            path = clean_text(entry[0])
            lib = self.linked_file(path, known_sha1(entry[1] if len(entry) > 1 else None))
            yield lib
            yield Edge(model.USED, uid, lib.uid, {"role": "loaded"}, key="loaded")
        self.count("libraries_loaded", len(libs))

    def build_from_watermark(self, build_uuid: str, link_t: dict, exe: str,
                             exec_path: str | None) -> Iterator[Record]:
        """The build as the run's watermark (``xaltLinkT``) tells it."""
        b = build_uid(build_uuid)
        modules = _str(link_t.get("Build_LOADEDMODULES"))
        compiler_path = _str(link_t.get("Build_compilerPath"))
        compiler = _str(link_t.get("Build_compiler"))
        yield Node(xalt_model.BUILD, b, {
            "uuid": build_uuid,
            "name": build_name(exec_path, compiler, build_uuid),
            "compiler": compiler,
            "compiler_path": compiler_path,
            "build_user": _str(link_t.get("Build_User")),
            "build_host": _str(link_t.get("Build_Syshost")),
            "build_epoch": _num(link_t.get("Build_Epoch")),
            "build_date": _str(link_t.get("Build_date")),
            "build_os": _str(link_t.get("Build_OS")),
            "build_modules": [m for m in modules.split(":") if m] if modules else None,
            "xalt_version": _str(link_t.get("XALT_Version")),
        })
        yield Edge(model.WAS_GENERATED_BY, exe, b)
        yield from self.user(_str(link_t.get("Build_User")), b, "build_user")
        yield from self.host(_str(link_t.get("Build_Syshost")), b, "build_host")

    # -------------------------------------------------------- link
    def link(self, rec: dict, crc: str, where: str) -> Iterator[Record]:
        result = rec.get("resultT") if isinstance(rec.get("resultT"), dict) else {}
        build_uuid = _str(result.get("uuid"))
        if not build_uuid:
            self.skip(self.report.path, where, "resultT.uuid in a link record",
                             json.dumps(sorted(result))[:200])
            return
        self.count("link_records")
        b = build_uid(build_uuid)
        exec_path = _str(result.get("exec_path"))
        syshost = _str(result.get("build_syshost"))
        sha1 = known_sha1(result.get("hash_id"))
        compiler_path = _str(result.get("link_path"))
        compiler = _str(result.get("link_program"))
        yield Node(xalt_model.BUILD, b, {
            "uuid": build_uuid,
            "name": build_name(exec_path, compiler, build_uuid),
            "compiler": compiler,
            "compiler_path": compiler_path,
            "build_user": _str(result.get("build_user")),
            "build_host": syshost,
            "build_epoch": _num(result.get("build_epoch")),
            "wd": _str(result.get("wd")),
            "exec_path": exec_path,
            "link_line": redact_command_line(_str_list(rec.get("link_line")),
                                             counts=self.counts),
            "functions": _str_list(rec.get("function")),
            "has_link_record": True,
            "crc_status": crc,
        })
        yield from self.user(_str(result.get("build_user")), b, "build_user")
        yield from self.host(syshost, b, "build_host")
        if exec_path or sha1:
            exe = executable_uid(sha1, exec_path, syshost)
            yield Node(xalt_model.EXECUTABLE, exe, {
                "name": basename(exec_path) or sha1, "path": exec_path, "sha1": sha1,
                "syshost": syshost,
            })
            yield Edge(model.WAS_GENERATED_BY, exe, b)
        seen: set[str] = set()
        for entry in rec.get("linkA") or []:
            if isinstance(entry, str) and entry:  # XALT 0.x: a bare path, no sha1
                entry = [entry]
            if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
                self.report.unknown_item("linkA entry that is not [path, sha1]")
                continue
            node = self.linked_file(clean_text(entry[0]),
                                    known_sha1(entry[1] if len(entry) > 1 else None))
            if node.uid in seen:  # the linker names some libraries more than once
                continue
            seen.add(node.uid)
            yield node
            yield Edge(model.USED, b, node.uid, {"role": "linked"}, key="linked")
        self.count("linked_files", len(seen))

    # -------------------------------------------------------- pkg
    def pkg(self, rec: dict, crc: str, where: str) -> Iterator[Record]:
        run_uuid = _str(rec.get("xalt_run_uuid"))
        name = _str(rec.get("package_name"))
        if not run_uuid or not name:
            self.skip(self.report.path, where,
                             "xalt_run_uuid and package_name in a pkg record", "")
            return
        self.count("pkg_records")
        program = _str(rec.get("program")) or "?"
        version = _str(rec.get("package_version"))
        path = _str(rec.get("package_path"))
        p = package_uid(program, name, version, path)
        yield Node(xalt_model.PACKAGE, p, {"name": name, "version": version, "path": path,
                                      "program": program})
        run = execution_uid(run_uuid)
        yield Node(xalt_model.EXECUTION, run, {"uuid": run_uuid})
        yield Edge(xalt_model.IMPORTED, run, p, {"crc_status": crc})


def record_to_graph(rec: Any, raw: bytes | None, report: LoadReport, where: str,
                    env: str | None = None, one_of_many: bool = False) -> Iterator[Record]:
    """Nodes and edges of one decoded XALT record; ``raw`` is its text for the crc check;
    ``one_of_many`` (a syslog record): damage skips the record, strict too.

    >>> from lineage.sources.base import LoadReport
    >>> r = LoadReport("x", "xalt-json")
    >>> recs = list(record_to_graph({"xalt_run_uuid": "u", "package_name": "numpy",
    ...     "program": "python"}, None, r, "record 1"))
    >>> [x.uid for x in recs if hasattr(x, "uid")]
    ['xalt:package:python:numpy', 'xalt:run:u']
    """
    kind = record_kind(rec)
    skip = report.skip_record if one_of_many else report.skip
    if kind is None:
        skip(report.path, where, "an XALT run, link or pkg record",
                    json.dumps(sorted(rec))[:200] if isinstance(rec, dict) else type(rec).__name__)
        return
    graph = _Graph(report, env_mode(env or report.options.xalt_env), one_of_many)
    crc = check_crc(raw) if raw is not None else ("missing" if "crc" not in rec else "unchecked")
    moved = canonical(rec, kind)  # older spellings (lineage/sources/xalt/spellings.py)
    if moved:
        graph.count("older_spellings", moved)
    for key in unknown_keys(rec, kind):  # a spelling no XALT is known to write: counted
        report.unknown_item(f"XALT {kind} record key {key}")
    graph.count(f"crc_{crc}")
    if crc == "bad":
        report.warn(f"{report.path}: {where}: the {kind} record's crc {rec.get('crc')} does not "
                    f"match its content (loaded anyway; crc_status='bad' on its node)")
    yield from getattr(graph, kind)(rec, crc, where)
