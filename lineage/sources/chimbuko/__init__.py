"""Chimbuko: provenance database exports (JSON) and UnQLite shards.

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records,
each module in :data:`READERS` reads one input format (its ``FORMATS``), and :data:`DEMO`
writes this source's files of the demo campaign.
"""

#: Reader modules, in the order their formats are tried when detecting a file.
READERS = ('mapping',)

#: The module whose ``write(campaign, directory)`` writes the demo campaign's files.
DEMO = "demo"
