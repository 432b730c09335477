"""Pegasus (Stampede): NetLogger BP streams, monitord JSON lines, Stampede databases and
master databases (the index of a user's runs).

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records,
and each module in :data:`READERS` reads one input format (its ``FORMATS``).
"""

#: Reader modules, in the order their formats are tried when detecting a file.
READERS = ('bp', 'db', 'master_db', 'jsonl')
