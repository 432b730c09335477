"""The answers the API gives from the graph, generic over the sources: ``why`` a run failed
(:mod:`.why`), what differs between two runs (:mod:`.diff`), and a run's lineage as W3C PROV,
GraphML (:mod:`.exchange`), OpenLineage events (:mod:`.openlineage`) or a Workflow Run
RO-Crate (:mod:`.runcrate`). What each source
adds to them it declares in its views (:class:`lineage.sources.source.Views`); what their
pieces share is :mod:`.common`.
"""
