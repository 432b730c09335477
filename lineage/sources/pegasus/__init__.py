"""Pegasus (Stampede): NetLogger BP streams, monitord JSON lines and stampede databases.

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records,
each reader module (``bp``, ``db``, ``jsonl``) reads one input format (its ``FORMATS``),
``views`` says what reports, ``why``, ``diff``, exports and ``lineage link`` show of it,
``demo`` writes its files of the demo campaign, and ``cypher/`` holds its templates
(``pegasus/failed_jobs``, ...).
"""

from ..source import Source

SOURCE = Source(
    "pegasus", "Pegasus workflows: Stampede event streams (NetLogger BP, monitord JSON lines) "
    "and stampede databases", readers=("bp", "db", "jsonl"), demo="demo")
