"""Settings, read from the environment once and passed down (nothing else reads it).

:class:`Settings` holds every ``NEO4J_*`` and ``LINEAGE_*`` value the package uses;
:class:`LoadOptions` the options of one load, which reach the parsers through their load
context (:class:`lineage.sources.base.LoadReport`).

>>> s = Settings.from_env({"NEO4J_URI": "bolt://db:7687", "LINEAGE_REPORT_MAX_NODES": "50"})
>>> s.neo4j_uri, s.neo4j_user, s.report_max_nodes
('bolt://db:7687', 'neo4j', 50)
>>> LoadOptions(lenient=True).as_json()
'{"lenient": true, "xalt_env": "filtered"}'
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from typing import Mapping

XALT_ENV_MODES = ("none", "filtered", "all")


@dataclass(frozen=True)
class LoadOptions:
    """How to read inputs: ``lenient`` skips and counts malformed records instead of
    stopping; ``xalt_env`` is what is kept of XALT run environments (``none``,
    ``filtered``: secrets redacted, ``all``); ``chimbuko_run`` names the Chimbuko run of
    the inputs (their uids carry it). Loads with different options are different
    attempts (an unchanged file is read again when the options change)."""

    lenient: bool = False
    xalt_env: str = "filtered"
    #: the name of the Chimbuko run the inputs belong to (default: from their directory)
    chimbuko_run: str | None = None
    unqlite_probe_seconds: float = field(default=30.0, compare=False)

    def __post_init__(self) -> None:
        if self.xalt_env not in XALT_ENV_MODES:
            raise ValueError(f"xalt_env={self.xalt_env!r}: expected one of "
                             f"{', '.join(XALT_ENV_MODES)}")

    def as_json(self) -> str:
        """The options that decide what a load writes, as stored on its ``:Load`` node."""
        chosen = {"lenient": self.lenient, "xalt_env": self.xalt_env}
        if self.chimbuko_run is not None:
            chosen["chimbuko_run"] = self.chimbuko_run
        return json.dumps(chosen, sort_keys=True)

    def with_(self, **changes) -> "LoadOptions":
        """A copy with some options changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name)
    try:
        return int(text) if text not in (None, "") else default
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected a whole number") from None


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name)
    try:
        return float(text) if text not in (None, "") else default
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected a number") from None


@dataclass(frozen=True)
class Settings:
    """Every setting the package reads from the environment.

    ``neo4j_uri`` empty means the managed local server. Report limits bound what a report
    draws and tabulates; ``load`` holds the default load options.
    """

    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str | None = None
    report_max_nodes: int = 500
    report_max_rows: int = 1000
    ci: bool = False
    load: LoadOptions = LoadOptions()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """Settings from ``env`` (default: ``os.environ``), read once."""
        env = os.environ if env is None else env
        load = LoadOptions(
            xalt_env=(env.get("LINEAGE_XALT_ENV") or "filtered").strip().lower(),
            unqlite_probe_seconds=_float(env, "LINEAGE_UNQLITE_PROBE_SECONDS", 30.0))
        return cls(
            neo4j_uri=env.get("NEO4J_URI") or None,
            neo4j_user=env.get("NEO4J_USERNAME", "neo4j"),
            neo4j_password=env.get("NEO4J_PASSWORD", ""),
            neo4j_database=env.get("NEO4J_DATABASE") or None,
            report_max_nodes=_int(env, "LINEAGE_REPORT_MAX_NODES", 500),
            report_max_rows=_int(env, "LINEAGE_REPORT_MAX_ROWS", 1000),
            ci=bool(env.get("CI")),
            load=load,
        )

    def public(self) -> dict:
        """The settings without the password (for messages and ``--json`` output)."""
        out = asdict(self)
        out["neo4j_password"] = "***" if self.neo4j_password else ""
        return out
