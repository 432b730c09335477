"""Pegasus (Stampede): NetLogger BP streams, monitord JSON lines, Stampede databases and
master databases (the index of a user's runs).

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records,
each reader module (``bp``, ``db``, ``master_db``, ``jsonl``) reads one input format (its
``FORMATS``),
``views`` says what reports, ``why``, ``diff``, exports and ``lineage link`` show of it,
``demo`` writes its files of the demo campaign, ``follow`` reads its event streams while
they grow and ``stampede.rows`` its databases while they get rows (``lineage watch``), and ``cypher/`` holds its templates (``pegasus/failed_jobs``,
...).
"""

from ..source import Follow, Source

SOURCE = Source(
    "pegasus", "Pegasus workflows: Stampede event streams (NetLogger BP, monitord JSON lines), "
    "stampede databases and master databases (the index of a user's runs)",
    readers=("bp", "db", "master_db", "jsonl"), demo="demo",
    follows={"pegasus-bp": Follow("lines", "follow:bp_stream"),
             "pegasus-json": Follow("lines", "follow:json_stream"),
             "pegasus-stampede-db": Follow("rows", "stampede.rows:stampede_rows")})
