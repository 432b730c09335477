"""The project's own error types.

>>> str(ParseError("run.bp", 12, "a key=value pair", "garbage"))
"run.bp:12: expected a key=value pair, found 'garbage'"
"""

from __future__ import annotations


class LineageError(Exception):
    """Base class of every error this package raises on purpose. Its message is shown and
    stored (``:Load.error``), so the secrets in it (a database URL's password, a token in a
    value it quotes) are redacted when it is made.

    >>> str(LineageError("postgresql://alice:S3cr3t@db/x?password=S3cr3t: refused"))
    'postgresql://alice:***@db/x?password=***: refused'
    """

    def __init__(self, *args):
        from .redact import redact_text  # imported when used (it imports this module's users)

        super().__init__(*(redact_text(a) if isinstance(a, str) else a for a in args))


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

    def __reduce__(self):  # pickled as its parts (a reader in a child process raises it)
        return type(self), (self.path, self.where, self.expected, self.found)


class WholeInputError(ParseError):
    """Malformed in a way ``--lenient`` cannot skip: the error stops the input in either mode
    (a value of the wrong type in a database, which is one input with no line to leave out; a
    uid the model cannot build; a value a reader could not turn into a record).

    >>> lenient_helps(WholeInputError("x.stampede.db", "job row", "a number", "abc"))
    False
    """


def lenient_helps(error: ParseError) -> bool:
    """Whether ``--lenient`` would have skipped (some of) what stopped the load.

    >>> lenient_helps(InputsFailed([ParseError("a.bp", 3, "a key=value pair"),
    ...                             WholeInputError("b.db", None, "a number")]))
    True
    """
    failures = error.failures if isinstance(error, InputsFailed) else [error]
    return any(not isinstance(f, WholeInputError) for f in failures)


class InputsFailed(ParseError):
    """Some inputs of a load were malformed: the others were loaded. ``failures`` holds each
    input's :class:`ParseError`, ``results`` every input's result; the message names them.

    >>> e = InputsFailed([ParseError("a.bp", 3, "a key=value pair"), ParseError("b.log", 1, "x")])
    >>> str(e).splitlines()[0]
    '2 inputs failed (the others were loaded):'
    """

    def __init__(self, failures: list[ParseError], results: list | None = None):
        first = failures[0]
        super().__init__(first.path, first.where, first.expected, first.found)
        self.failures, self.results = failures, results or []
        lines = [f"{len(failures)} inputs failed (the others were loaded):"]
        lines += [f"  {f}" for f in failures]
        self.args = ("\n".join(lines),)

    def __reduce__(self):
        return type(self), (self.failures, self.results)

    def __str__(self) -> str:
        return self.args[0]


class LoadInterrupted(LineageError):
    """A load whose graph was reset (``reset --force``) while it wrote: what it wrote after
    the reset was removed again; load the input again."""


class WriteFailed(LineageError):
    """The database refused a load's write (a constraint, a node another client deleted
    meanwhile...): what the load wrote was removed again; the message says what Neo4j said."""


class UnknownFormatError(LineageError):
    """A file whose format could not be detected (and no --source was given)."""


class ServerError(LineageError):
    """The managed Neo4j server could not be installed, started or reached."""


class TemplateError(LineageError):
    """A Cypher template that does not exist or was given wrong parameters."""
