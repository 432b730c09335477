"""Neo4j Browser: the guide of the templates the managed server opens after login
(:mod:`.guide`) and the GraSS stylesheet that colours nodes by kind and failure
(:mod:`.grass`).
"""
