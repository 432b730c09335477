"""W3C PROV documents (PROV-JSON) from other tools (yProv, prov2neo users, noWorkflow) and
from ``lineage export``: entities, activities and agents with their PROV relations.

``model`` declares the generic PROV kinds, ``mapping`` turns a document into graph records,
and ``provjson`` reads the format (its ``FORMATS``).
"""

from ..source import Source

SOURCE = Source("prov", "W3C PROV-JSON documents (other tools' and lineage export's)",
                readers=("provjson",), views_module=None, title="PROV")
