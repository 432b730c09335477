"""Workflow Run RO-Crates read back (``lineage load DIR``, ``lineage load FILE.zip``, or the
crate's ``ro-crate-metadata.json``): ``reader`` reads one crate, ``model`` declares the kinds
of a crate another tool wrote (docs/guide/exchange.md).

A crate ``lineage export --format ro-crate`` wrote names the graph's nodes (``lineage:uid``):
it is read back as those nodes, whose values must agree with what other loads stated (it
never changes them). A crate of another producer gets nodes of its own, named by the SHA-256
of its metadata.
"""

from ..source import Source

SOURCE = Source("rocrate", "Workflow Run RO-Crates (lineage export's and other tools')",
                readers=("reader",), views_module=None, title="RO-Crate")
