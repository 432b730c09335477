"""Asking the graph: which Neo4j to talk to and a handle that returns plain rows
(:mod:`.connection`), the Cypher templates by name (:mod:`.templates`), example values for
them from the loaded graph (:mod:`.examples`), and the answers computed in Python over a
template's rows (:mod:`.analysis`: a workflow's critical path).
"""
