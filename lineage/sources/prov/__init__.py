"""W3C PROV documents (PROV-JSON) from other tools (yProv, prov2neo users, noWorkflow) and
from ``lineage export``: entities, activities and agents with their PROV relations.

``model`` declares the generic PROV kinds, ``mapping`` turns a document into graph records,
and each module in :data:`READERS` reads one input format (its ``FORMATS``).
"""

#: Reader modules, in the order their formats are tried when detecting a file.
READERS = ("provjson",)
