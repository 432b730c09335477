"""The sources lineage-explorer reads, one folder each.

A source folder holds ``model.py`` (its node kinds and relations), one reader module per
input format, and ``mapping.py`` (source facts to graph records). Adding a fifth source is
one folder plus one entry in :data:`SOURCES`.

>>> SOURCES
('pegasus', 'swift', 'chimbuko', 'xalt', 'prov')
"""

#: Every source, in the order formats are tried when detecting a file's format.
SOURCES = ("pegasus", "swift", "chimbuko", "xalt", "prov")
