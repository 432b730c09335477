"""``lineage watch``: follow provenance that is still being written.

- :mod:`.watcher`: the files under the given paths, one look at a time
  (:meth:`~.watcher.Watcher.poll_once`), repeated on file-system events or by polling;
- :mod:`.follow`: one followed file: the lines it grew by (a NetLogger BP or monitord
  JSON-lines stream, an XALT syslog) or a record file that appeared (XALT, Chimbuko);
- :mod:`.rows`: one followed database: the rows it got (a Pegasus Stampede database), each
  look one read transaction;
- :mod:`.increments`: one increment as a load of its own, named by file and byte range, and
  where the next one starts (what the graph says was read).

Which formats are followed, and how, each source declares (``Source.follows``).
"""
