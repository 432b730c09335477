"""Swift: run logs and the PostgreSQL provenance database.

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records,
each reader module (``log``, ``db``) reads one input format (its ``FORMATS``), ``views``
says what reports, ``why``, ``diff``, exports and ``lineage link`` show of it, ``demo``
writes its files of the demo campaign, and ``cypher/`` holds its templates
(``swift/ancestors``, ...).
"""

from ..source import Source

SOURCE = Source("swift", "Swift script runs: run logs and the provenance database",
                readers=("log", "db"), demo="demo")
