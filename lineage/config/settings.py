"""Settings, read from the environment once and passed down (nothing else reads it).

:class:`Settings` holds every ``NEO4J_*`` and ``LINEAGE_*`` value the package uses, with the
default options of a load (:class:`lineage.sources.options.LoadOptions`: ``lenient``, the
tuning, and each source's own options, read from the variables and profile keys the sources
declare, such as ``LINEAGE_XALT_ENV``).

>>> s = Settings.from_env({"NEO4J_URI": "bolt://db:7687", "LINEAGE_REPORT_MAX_NODES": "50"})
>>> s.neo4j_uri, s.neo4j_user, s.report_max_nodes
('bolt://db:7687', 'neo4j', 50)
>>> s.load.as_json()
'{"lenient": false, "xalt_env": "filtered"}'
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Mapping

from ..sources import options as source_options
from ..sources.options import LoadOptions

__all__ = ["Settings", "LoadOptions", "ENV_VARS", "SECRETS"]

def _int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name)
    try:
        return int(text) if text not in (None, "") else default
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected a whole number") from None


def _count_or_off(env: Mapping[str, str], name: str, default: int) -> int | None:
    """A count of at least 1,000, or ``None`` for ``off``.

    >>> _count_or_off({"X": "off"}, "X", 5), _count_or_off({"X": "5000"}, "X", 5)
    (None, 5000)
    >>> _count_or_off({"X": "10"}, "X", 5)
    Traceback (most recent call last):
    ...
    ValueError: X='10': expected a whole number of at least 1000, or off
    """
    if (env.get(name) or "").strip().lower() in ("off", "never", "none"):
        return None
    try:
        value = _int(env, name, default)
    except ValueError:
        value = -1
    if value < 1000:
        raise ValueError(f"{name}={env.get(name)!r}: expected a whole number of at least "
                         "1000, or off")
    return value


def _bytes_or_off(env: Mapping[str, str], name: str, default: int) -> int | None:
    """A size in bytes (0 or more), or ``None`` for ``off``.

    >>> _bytes_or_off({"X": "off"}, "X", 5), _bytes_or_off({"X": "0"}, "X", 5)
    (None, 0)
    >>> _bytes_or_off({"X": "-1"}, "X", 5)
    Traceback (most recent call last):
    ...
    ValueError: X='-1': expected a size in bytes (0 or more) or off
    """
    if (env.get(name) or "").strip().lower() in ("off", "never", "none"):
        return None
    value = _int(env, name, default)
    if value < 0:
        raise ValueError(f"{name}={env.get(name)!r}: expected a size in bytes (0 or more) "
                         "or off")
    return value


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name)
    try:
        return float(text) if text not in (None, "") else default
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected a number") from None


#: the environment variable of each setting (the profile file's keys: lineage.config.profile), and
#: of each source option that declares one (``LINEAGE_XALT_ENV``)
ENV_VARS = {"neo4j_uri": "NEO4J_URI", "neo4j_user": "NEO4J_USERNAME",
            "neo4j_password": "NEO4J_PASSWORD", "neo4j_database": "NEO4J_DATABASE",
            "report_max_nodes": "LINEAGE_REPORT_MAX_NODES",
            "report_max_rows": "LINEAGE_REPORT_MAX_ROWS", "lenient": "LINEAGE_LENIENT",
            **{o.name: o.env for o in source_options.options() if o.env},
            "default_format": "LINEAGE_FORMAT"}
#: the source options the environment or the profile file may set
SOURCE_OPTIONS = {o.name: o for o in source_options.options() if o.env or o.profile}
#: settings whose value is a secret (shown masked)
SECRETS = ("neo4j_password",)


def _bool(name: str, text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}={text!r}: expected true or false")


@dataclass(frozen=True)
class Settings:
    """Every setting the package reads from the environment and the profile file.

    ``neo4j_uri`` empty means the managed local server. Report limits bound what a report
    draws and tabulates; ``load`` holds the default load options; ``default_format`` is the
    output format of tabular commands. ``origins`` tells where each value came from
    (``default``, ``$NAME``, the profile file), ``config_file`` and ``profile`` what was read.
    """

    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str | None = None
    report_max_nodes: int = 500
    report_max_rows: int = 1000
    ci: bool = False
    load: LoadOptions = field(default_factory=source_options.load_options)
    default_format: str = "table"
    config_file: str | None = None
    profile: str | None = None
    origins: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, profile: str | None = None,
                 config: str | os.PathLike | None = None) -> "Settings":
        """Settings from the profile file and ``env`` (default: ``os.environ``), read once;
        the environment wins. ``profile`` (else ``$LINEAGE_PROFILE``) picks a named
        profile of the file, ``config`` another file (else ``$LINEAGE_CONFIG``)."""
        from . import profile as profile_file

        if env is None:
            env = dict(os.environ)
            env.setdefault("HOME", str(os.path.expanduser("~")))
        profile = profile or env.get("LINEAGE_PROFILE") or None
        layer, path = profile_file.read(env, profile, config,
                                        {o.name: str for o in SOURCE_OPTIONS.values()
                                         if o.profile})
        values: dict = {}
        origins: dict[str, str] = {}
        for name, (value, origin) in layer.items():
            values[name], origins[name] = value, origin
        file_uri = values.get("neo4j_uri")
        if env.get("NEO4J_URI") and file_uri and env["NEO4J_URI"] != file_uri:
            # the file's login belongs to the file's server: never send it to another one
            for name in ("neo4j_user", "neo4j_password"):
                values.pop(name, None)
                origins.pop(name, None)
        for name, var in ENV_VARS.items():
            text = env.get(var)
            if text is None or (text == "" and name not in ("neo4j_user", "neo4j_password")):
                continue
            if name in ("report_max_nodes", "report_max_rows"):
                values[name] = _int(env, var, 0)
            elif name == "lenient":
                values[name] = _bool(var, text)
            elif name == "default_format":
                values[name] = text.strip().lower()
            elif name in SOURCE_OPTIONS:
                values[name] = SOURCE_OPTIONS[name].check(text)
            else:
                values[name] = text
            origins[name] = f"${var}"
        if values.get("default_format", "table") not in ("table", "json", "csv"):
            raise ValueError(f"LINEAGE_FORMAT={values['default_format']!r}: expected table, "
                             "json or csv")
        load = source_options.load_options(LoadOptions(
            lenient=values.pop("lenient", False),
            unqlite_probe_seconds=_float(env, "LINEAGE_UNQLITE_PROBE_SECONDS", 30.0),
            reader_process_bytes=_bytes_or_off(env, "LINEAGE_READER_PROCESS_BYTES", 16 << 20),
            overlap_bytes=_bytes_or_off(env, "LINEAGE_OVERLAP_BYTES", 16 << 20),
            bulk_fold_elements=_count_or_off(env, "LINEAGE_BULK_FOLD_ELEMENTS", 2_000_000),
            min_free_bytes=_bytes_or_off(env, "LINEAGE_MIN_FREE_BYTES", 256 << 20)),
            **{name: values.pop(name) for name in SOURCE_OPTIONS if name in values})
        values.setdefault("neo4j_uri", None)
        return cls(ci=bool(env.get("CI")), load=load,
                   config_file=str(path) if path else None,
                   profile=profile, origins=origins, **values)

    def public(self) -> dict:
        """The settings without the password (for messages and ``--json`` output)."""
        out = asdict(self)
        out.pop("origins")
        out["neo4j_password"] = "***" if self.neo4j_password else ""
        return out

    def described(self) -> list[dict]:
        """Each setting with its value (secrets masked) and where it came from, for
        ``lineage config show``.

        >>> [r for r in Settings.from_env({"NEO4J_PASSWORD": "s"}).described()
        ...  if r["setting"] == "neo4j_password"]
        [{'setting': 'neo4j_password', 'value': '***', 'source': '$NEO4J_PASSWORD'}]
        """
        flat = {k: v for k, v in self.public().items()
                if k not in ("load", "config_file", "profile", "ci")}
        flat.update(lenient=self.load.lenient,
                    **{name: self.load.get(name) for name in SOURCE_OPTIONS})
        if not self.neo4j_uri:
            flat["neo4j_uri"] = None
        rows = []
        for name in ENV_VARS:
            value = flat.get(name)
            if name in SECRETS:
                value = "***" if getattr(self, name) else ""
            source = self.origins.get(name, "default")
            if name == "neo4j_uri" and not self.neo4j_uri:
                value, source = "(the managed local server)", source
            rows.append({"setting": name, "value": value, "source": source})
        return rows
