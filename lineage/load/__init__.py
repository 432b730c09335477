"""Loading: inputs -> readers -> checked records -> spool -> writer -> graph, one ``:Load``
record per input.

- :mod:`.inputs`: what to load (files found by walking, database URLs) and how each is named;
- :mod:`.spool`: one input's records, checked against the model, kept until it is known good;
- :mod:`.pipeline`: each input parsed whole, then written under a new version of its load;
- :mod:`.fleet`: many small first loads written in batches, each still a load of its own;
- :mod:`.writer`: batched ``UNWIND ... MERGE`` writes (:mod:`.node_ids`: its fast path for
  relationship ends, by element id);
- :mod:`.loads`: the ``:Load`` bookkeeping (versions, tags, unload);
- :mod:`.early_nodes`, :mod:`.reader_process`, :mod:`.collector`: overlapping the reading
  and the writing of large inputs, a second core for the reading, fewer garbage collections;
- :mod:`.status_labels`: the ``:Failed`` label after every load and unload;
- :mod:`.tally`: what a load's results add up to, without keeping them.
"""
