"""Log lines on stderr for ``lineage -v`` / ``-vv`` / ``-q``, through :mod:`logging`.

The package logs to loggers named ``lineage.*`` (``lineage.api``: loads, links, reports,
queries; ``lineage.server.connection``; ``lineage.server``; ``lineage.config.profile``) and never configures
logging itself: a script or notebook decides (``logging.basicConfig(level="INFO")``). The
command line calls :func:`setup`: warnings only by default, ``-v`` INFO, ``-vv`` DEBUG (the
Neo4j driver's own log too, which is only shown then), ``-q`` errors only.

Every line passes :class:`SecretFilter`: registered secrets (the Neo4j password) and
passwords in URLs never reach the output.

>>> f = SecretFilter(); f.add("hunter2")
>>> f.scrub("login hunter2 at bolt://u:pw@db:7687")
'login *** at bolt://u:***@db:7687'
"""

from __future__ import annotations

import logging
import sys

from ..redact import redact_text

#: -q, default, -v, -vv
LEVELS = {-1: logging.ERROR, 0: logging.WARNING, 1: logging.INFO, 2: logging.DEBUG}
FORMAT = "lineage: %(levelname)s %(name)s: %(message)s"
_HANDLER_NAME = "lineage-cli"


class SecretFilter(logging.Filter):
    """Replaces known secrets and URL passwords in every record's final message."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 3:  # a one-letter "secret" would mask every word
            self.secrets.add(secret)

    def scrub(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = text.replace(secret, "***")
        return redact_text(text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = self.scrub(record.getMessage())
        if record.exc_info:  # the traceback is formatted later: render and scrub it now
            message += "\n" + self.scrub(logging.Formatter().formatException(record.exc_info))
            record.exc_info, record.exc_text = None, None
        record.msg, record.args = message, None
        return True


SECRETS = SecretFilter()


def setup(verbosity: int = 0, stream=None) -> logging.Handler:
    """Send ``lineage.*`` log lines (and, at ``verbosity >= 2``, the Neo4j driver's) to
    ``stream`` (stderr) at the level of ``verbosity`` (-1 quiet ... 2 debug); idempotent."""
    level = LEVELS[max(-1, min(2, verbosity))]
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(SECRETS)
    for name in ("lineage", "neo4j"):
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if h.get_name() == _HANDLER_NAME]:
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.propagate = False
    logging.getLogger("lineage").setLevel(level)
    # the driver's log is its own business: shown at -vv only
    logging.getLogger("neo4j").setLevel(logging.DEBUG if verbosity >= 2 else max(
        level, logging.WARNING))
    return handler
