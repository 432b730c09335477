"""The ``:Failed`` label on exactly the nodes whose ``status`` counts as failed
(:data:`lineage.model.FAILED_STATUSES`).

Neo4j Browser styles a node by its labels only, never by a property, so the lineage
stylesheet (:mod:`lineage.browser.grass`) can draw failed jobs, attempts and app executions
in the failure colour only if they carry a label. A node's final status is known only once
every record of every input has been merged (a job's first attempt fails, its retry
succeeds), so the label is not written with the records: :func:`refresh` puts it on and
takes it off for the whole graph after each load and unload. Both statements start from an
index (``status`` on ``:Lineage``) or from the label itself, so their cost grows with the
failed nodes, not with the graph.

>>> [s.split()[0] for s in STATEMENTS]
['MATCH', 'MATCH']
"""

from __future__ import annotations

import logging
import random
import time

from neo4j import Driver
from neo4j.exceptions import TransientError

from ..model import FAILED_LABEL, FAILED_STATUSES

log = logging.getLogger(__name__)

#: Label the nodes that failed and unlabel the ones that no longer did; each returns a count.
STATEMENTS = (
    "MATCH (n:Lineage) WHERE n.status IN $failed AND NOT n:Failed "
    "CALL (n) { SET n:Failed } IN TRANSACTIONS OF 10000 ROWS RETURN count(n) AS n",
    "MATCH (n:Failed) WHERE n.status IS NULL OR NOT n.status IN $failed "
    "CALL (n) { REMOVE n:Failed } IN TRANSACTIONS OF 10000 ROWS RETURN count(n) AS n",
)
if FAILED_LABEL != "Failed":  # the statements spell the model's label
    raise ImportError(f"status_labels.STATEMENTS spell :Failed, the model says {FAILED_LABEL}")


def refresh(driver: Driver, database: str | None = None, attempts: int = 6) -> dict[str, int]:
    """Make ``:Failed`` true of the graph; returns how many nodes gained and lost it. A
    deadlock with a concurrent load (a transient error) is retried, ``attempts`` times.

    >>> refresh(lineage.connect().graph.driver)  # doctest: +SKIP
    {'labelled': 3, 'unlabelled': 0}
    """
    for attempt in range(attempts):
        try:
            counts = []
            with driver.session(database=database) as session:  # IN TRANSACTIONS: auto-commit
                for statement in STATEMENTS:
                    counts.append(session.run(statement, failed=sorted(FAILED_STATUSES))
                                  .single()["n"])
            break
        except TransientError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.1 * 2 ** attempt + random.random() * 0.1)
    out = {"labelled": counts[0], "unlabelled": counts[1]}
    log.debug("status labels: %s", out)
    return out


def refresh_quietly(driver: Driver, database: str | None = None) -> None:
    """:func:`refresh` after a load or unload: logs instead of raising, so a load that
    wrote its facts is not reported failed (nor a load's own error hidden) because the
    labels could not be refreshed; the next load or unload refreshes them again."""
    try:
        refresh(driver, database)
    except Exception as exc:  # the server may be the reason the load failed
        log.warning("could not refresh the %s labels (the next load or unload will): %s",
                    FAILED_LABEL, exc)
