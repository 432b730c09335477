"""Chimbuko: provenance database exports (JSON) and UnQLite shards.

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records
and reads its formats (its ``FORMATS``), ``views`` says what reports, ``diff`` and ``lineage
link`` show of it, ``demo`` writes its files of the demo campaign, and ``cypher/`` holds its
templates (``chimbuko/top_anomalies``, ...). ``lineage watch`` loads its new JSON record
files as they appear. Its load option ``chimbuko_run`` names the run
of the inputs (their uids carry it).
"""

from ..source import Follow, Option, Source

SOURCE = Source(
    "chimbuko", "Chimbuko anomaly detection: provenance database exports and shards",
    readers=("mapping",), demo="demo",
    options=(Option("chimbuko_run", None,
                    "Name the Chimbuko run of these inputs (default: from their folder).",
                    cli="--chimbuko-run", metavar="NAME"),),
    follows={"chimbuko-json": Follow("files")})
