"""Secrets never leave through messages: database URLs without their passwords.

Every URL the package prints, stores on a ``:Load`` node or puts in an error goes through
:func:`redact_url` first; free text (an error message, a log line) through
:func:`redact_text`, which finds the secrets wherever they are (:mod:`lineage.secrets`).
"""

from __future__ import annotations

import re


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_SECRET_PARAM = re.compile(r"(?i)([?&;](?:password|passwd|pwd|pass|access_token|token|"
                           r"secret|api_key|apikey|sslpassword)=)[^&;#]*")


def redact_url(text: str) -> str:
    """A database URL without its password, for messages and the :Load record: the userinfo
    password (which may itself hold ``@``, ``/`` or spaces: userinfo ends at the last ``@``
    before the query; libpq's multi-host ``h1,h2`` form too) and secret query parameters.

    >>> redact_url("postgresql://alice:s3cret@db:5432/provdb")
    'postgresql://alice:***@db:5432/provdb'
    >>> redact_url("postgresql://bob:p@ss/w rd@db/x?sslmode=require&password=hunter2")
    'postgresql://bob:***@db/x?sslmode=require&password=***'
    >>> redact_url("postgresql://u:pw@h1:5432,h2:5433/db")
    'postgresql://u:***@h1:5432,h2:5433/db'
    """
    scheme = _SCHEME.match(text)
    if not scheme:
        return text
    rest = text[scheme.end():]
    base, mark, query = rest.partition("?")
    userinfo, at, hostpart = base.rpartition("@")
    if at and ":" in userinfo:
        base = f"{userinfo.split(':', 1)[0]}:***@{hostpart}"
    redacted = scheme.group() + base + mark + query
    return _SECRET_PARAM.sub(lambda m: m.group(1) + "***", redacted)


def redact_text(text: str, mark: str = "***") -> str:
    """``text`` (an error message, a log line) with the secrets :mod:`lineage.secrets`
    finds replaced by ``mark``: passwords of URLs (even holding ``@``, ``/`` or spaces), of
    bare ``user:password@host``, ``password=``/``token=`` assignments, tokens and keys.

    >>> redact_text("http://bob:p@ss@proxy:3128 and ftp://u:a b/c@h/x")
    'http://bob:***@proxy:3128 and ftp://u:***@h/x'
    >>> redact_text("bob:hunter2@db.example.org"), redact_text("x?access_token=t0k&y=1")
    ('bob:***@db.example.org', 'x?access_token=***&y=1')
    """
    from . import secrets  # imported when used: detect-secrets is only loaded if needed

    return secrets.redact_text(text, mark)


def unreadable_url(url: str, exc: BaseException) -> str:
    """Why SQLAlchemy could not read a database URL, without its password: a libpq
    multi-host URL (``postgresql://u:pw@h1:5432,h2:5433/db``) said as such.

    >>> unreadable_url("postgresql://u:pw@h1:5432,h2:5433/db", ValueError("invalid literal"))
    'postgresql://u:***@h1:5432,h2:5433/db: a libpq multi-host URL (several hosts after the @), which SQLAlchemy cannot read: name one host, or list them as ?host=h1:5432&host=h2:5433 (a Swift database reads the libpq form with --source swift)'
    """
    shown = redact_url(url)
    hosts = url.partition("://")[2].partition("?")[0].rpartition("@")[2].partition("/")[0]
    if "," in hosts:
        return (f"{shown}: a libpq multi-host URL (several hosts after the @), which SQLAlchemy "
                "cannot read: name one host, or list them as ?host=h1:5432&host=h2:5433 (a "
                "Swift database reads the libpq form with --source swift)")
    return f"{shown}: not a database URL SQLAlchemy can read ({redact_text(str(exc))})"
