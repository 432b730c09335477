"""W3C PROV documents (PROV-JSON, PROV-N, PROV-XML) from other tools (yProv, ProvToolbox,
noWorkflow, the prov package) and from ``lineage export``: every PROV element and relation,
bundles, typed and multi-valued attributes, identity by full URI (docs/sources/prov.md).

``model`` declares the PROV kinds, ``vocabulary`` what reading and writing share, ``trust``
which documents are this installation's own exports, ``ours`` and ``foreign`` turn records
into graph records (``mapping`` chooses), ``stored`` keeps each record exactly, ``export``
and ``writers`` write documents, and each reader module (``provjson``, ``provn``,
``provxml``) reads one input format (its ``FORMATS``).
"""

from ..source import Source

SOURCE = Source("prov", "W3C PROV documents: PROV-JSON, PROV-N, PROV-XML (other tools' and "
                "lineage export's)", readers=("provjson", "provn", "provxml"),
                views_module=None, title="PROV",
                exports={"prov-json": "writers:write_prov_json",
                         "prov-n": "writers:write_prov_n"})
