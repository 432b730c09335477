"""The profile file: where to connect and which defaults to use, beside the environment.

The file is ``$LINEAGE_CONFIG``, else ``$XDG_CONFIG_HOME/lineage-explorer/config.toml``,
else ``~/.config/lineage-explorer/config.toml`` (none is fine). TOML, two sections, and named
profiles that overlay them (chosen with ``lineage --profile NAME`` or ``$LINEAGE_PROFILE``)::

    [connection]
    uri = "bolt://db.example.org:7687"
    user = "alice"
    password_file = "~/.config/lineage-explorer/db.password"   # never the password itself
    database = "lineage"

    [defaults]
    lenient = false
    xalt_env = "filtered"        # a source's load option (XALT: none | filtered | all)
    report_max_nodes = 500
    report_max_rows = 1000
    format = "table"             # table | json | csv

    [profiles.laptop.connection]
    uri = "bolt://127.0.0.1:7687"
    password_file = "~/.neo4j-laptop"

Environment variables override the file, command-line options override both. The file's
``user`` and ``password_file`` go only to the file's own ``uri``: when ``NEO4J_URI`` names
another server they are not used (the environment's login is).

>>> layer = read_text('[defaults]\\nreport_max_nodes = 50\\n', "c.toml")
>>> layer["report_max_nodes"]
(50, 'c.toml')
>>> read_text('[connection]\\npassword = "x"\\n', "c.toml")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
lineage.config.profile.ConfigError: c.toml: [connection] has a password key; passwords do not go ...
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any, Mapping

from ..errors import LineageError

log = logging.getLogger("lineage.config.profile")

#: [connection] keys and the settings they fill
CONNECTION = {"uri": "neo4j_uri", "user": "neo4j_user", "password_file": "neo4j_password",
              "database": "neo4j_database"}
#: [defaults] keys, the settings they fill, their type (and the sources' load options that
#: the profile may set, given to :func:`read`)
DEFAULTS = {"lenient": ("lenient", bool),
            "report_max_nodes": ("report_max_nodes", int),
            "report_max_rows": ("report_max_rows", int), "format": ("default_format", str)}
FORMATS = ("table", "json", "csv")


class ConfigError(LineageError):
    """The profile file cannot be used (a usage error: exit code 2)."""


def config_path(env: Mapping[str, str]) -> Path | None:
    """Where the profile file is looked for (``None``: nowhere to look).

    >>> str(config_path({"XDG_CONFIG_HOME": "/cfg"}))
    '/cfg/lineage-explorer/config.toml'
    >>> config_path({}) is None
    True
    """
    if env.get("LINEAGE_CONFIG"):
        return Path(env["LINEAGE_CONFIG"]).expanduser()
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "lineage-explorer" / "config.toml"
    if env.get("HOME"):
        return Path(env["HOME"]) / ".config" / "lineage-explorer" / "config.toml"
    return None


def read(env: Mapping[str, str], profile: str | None = None,
         path: str | os.PathLike | None = None, options: Mapping[str, type] | None = None,
         ) -> tuple[dict[str, tuple[Any, str]], Path | None]:
    """The settings the profile file sets, each with where it came from, and the file read
    (``None`` when there is none). ``path`` (``--config``) wins over the environment's;
    ``options``: the sources' load options ``[defaults]`` may set, with their type."""
    named = bool(path or env.get("LINEAGE_CONFIG"))  # asked for: it must exist
    path = Path(path).expanduser() if path else config_path(env)
    if path is None or not path.is_file():
        if named:
            raise ConfigError(f"{path}: no such profile file")
        if profile:
            raise ConfigError(f"profile {profile!r}: there is no profile file "
                              f"({path or 'set LINEAGE_CONFIG'})")
        return {}, None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    return read_text(text, str(path), profile, options), path


def read_text(text: str, where: str, profile: str | None = None,
              options: Mapping[str, type] | None = None) -> dict[str, tuple[Any, str]]:
    """The settings of one profile file's text (see the module docstring); ``options``: the
    sources' load options ``[defaults]`` may set, with their type."""
    defaults = {**DEFAULTS, **{name: (name, kind) for name, kind in (options or {}).items()}}
    import tomllib  # here: 10-20 ms of regular expressions, only when there is a file

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    _known(doc, {"connection", "defaults", "profiles"}, where, "")
    out = _section_settings(doc, where, "", where, defaults)
    if profile:
        profiles = doc.get("profiles") or {}
        if profile not in profiles:
            raise ConfigError(f"{where}: no profile {profile!r} (profiles: "
                              f"{', '.join(sorted(profiles)) or 'none'})")
        chosen = profiles[profile]
        _known(chosen, {"connection", "defaults"}, where, f"profiles.{profile}.")
        out.update(_section_settings(chosen, where, f"profiles.{profile}.",
                                     f"{where} [profile {profile}]", defaults))
    return out


def _known(table: Any, keys: set[str], where: str, prefix: str) -> None:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [{prefix.rstrip('.')}] must be a table")
    for key in table:
        if key not in keys:
            raise ConfigError(f"{where}: unknown {'key' if prefix else 'section'} "
                              f"{prefix}{key} (expected {', '.join(sorted(keys))})")


def _section_settings(doc: dict, where: str, prefix: str, origin: str,
                      keys: Mapping[str, tuple[str, type]]) -> dict:
    out: dict[str, tuple[Any, str]] = {}
    connection = doc.get("connection", {})
    _known(connection, set(CONNECTION) | {"password"}, where, f"{prefix}connection.")
    if "password" in connection:
        raise ConfigError(f"{where}: [{prefix}connection] has a password key; passwords do "
                          "not go into the profile file; put it in a file readable only by you "
                          "(chmod 600) and name it with password_file")
    for key, setting in CONNECTION.items():
        if key not in connection:
            continue
        value = connection[key]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: [{prefix}connection] {key}: expected a non-empty string")
        if key == "password_file":
            file = Path(value).expanduser()
            if not file.is_absolute():
                file = Path(where).parent / file
            out[setting] = (_read_password(file, where), f"{origin} (password_file {file})")
        else:
            out[setting] = (value, origin)
    defaults = doc.get("defaults", {})
    _known(defaults, set(keys), where, f"{prefix}defaults.")
    for key, (setting, kind) in keys.items():
        if key not in defaults:
            continue
        value = defaults[key]
        if type(value) is not kind or (kind is int and value < 1):
            raise ConfigError(f"{where}: [{prefix}defaults] {key} = {value!r}: expected "
                              f"{'a positive whole number' if kind is int else kind.__name__}")
        if key == "format" and value not in FORMATS:
            raise ConfigError(f"{where}: [{prefix}defaults] format = {value!r}: expected one "
                              f"of {', '.join(FORMATS)}")
        out[setting] = (value, origin)
    return out


def _read_password(file: Path, where: str) -> str:
    try:
        mode = file.stat().st_mode
        secret = file.read_text(encoding="utf-8").rstrip("\r\n")
    except OSError as exc:
        raise ConfigError(f"{where}: password_file {file}: {exc.strerror or exc}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("password file %s can be read by other users (mode %o): chmod 600 %s",
                    file, stat.S_IMODE(mode), file)
    return secret
