"""W3C PROV documents (PROV-JSON, PROV-N, PROV-XML) from other tools (yProv, ProvToolbox,
noWorkflow, the prov package) and from ``lineage export``: every PROV element and relation,
bundles, typed and multi-valued attributes, identity by full URI (docs/sources/prov.md).

``model`` declares the PROV kinds, ``vocabulary`` what reading and writing share, ``trust``
which documents are this installation's own exports, ``ours`` and ``foreign`` turn records
into graph records (``mapping`` chooses), ``stored`` keeps each record exactly, and each
module in :data:`READERS` reads one input format (its ``FORMATS``).
"""

#: Reader modules, in the order their formats are tried when detecting a file.
READERS = ("provjson", "provn", "provxml")
