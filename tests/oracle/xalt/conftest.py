"""XALT's own code, vendored here (see NOTICE), is run by tests/test_xalt_loader_oracle.py as
separate processes; pytest must not import it (``--doctest-modules``): ``createDB.in.py`` is no
module name, and ``MySQLdb.py`` would shadow a real MySQLdb."""

collect_ignore_glob = ["*.py"]
