"""Reading Pegasus's SQL databases (Stampede run databases and master indexes of runs),
shared by the formats of :mod:`..db` and :mod:`..master_db`.

``connect`` opens a database read-only; ``schema`` knows every version's tables and columns
and reads rows typed; ``runs`` turns workflow, job, attempt and invocation rows into records;
``files`` does the same for the file tables of both replica-catalogue layouts; ``index``
reads the master tables and follows each run to its Stampede database.
"""
