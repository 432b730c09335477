"""The project's own error types.

>>> str(ParseError("run.bp", 12, "a key=value pair", "garbage"))
"run.bp:12: expected a key=value pair, found 'garbage'"
"""

from __future__ import annotations


class LineageError(Exception):
    """Base class of every error this package raises on purpose."""


class ParseError(LineageError):
    """Input that does not follow its format: names the file, the line or record, and what
    was expected.
    """

    def __init__(self, path: str, where: int | str | None, expected: str, found: str = ""):
        self.path = str(path)
        self.where = where
        self.expected = expected
        self.found = found
        loc = self.path if where is None else f"{self.path}:{where}"
        found_part = f", found {found[:120]!r}" if found else ""
        super().__init__(f"{loc}: expected {expected}{found_part}")


class UnknownFormatError(LineageError):
    """A file whose format could not be detected (and no --source was given)."""


class ServerError(LineageError):
    """The managed Neo4j server could not be installed, started or reached."""


class TemplateError(LineageError):
    """A Cypher template that does not exist or was given wrong parameters."""
