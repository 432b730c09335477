"""Secrets never leave through messages: database URLs without their passwords.

Every URL the package prints, stores on a ``:Load`` node or puts in an error goes through
:func:`redact_url` first.
"""

from __future__ import annotations

import re

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_SECRET_PARAM = re.compile(r"(?i)([?&;](?:password|passwd|pwd|pass|access_token|token|"
                           r"secret|api_key|apikey|sslpassword)=)[^&;#]*")


def redact_url(text: str) -> str:
    """A database URL without its password, for messages and the :Load record: the userinfo
    password (which may itself hold ``@``, ``/`` or spaces: userinfo ends at the last ``@``
    before the query) and secret query parameters.

    >>> redact_url("postgresql://alice:s3cret@db:5432/provdb")
    'postgresql://alice:***@db:5432/provdb'
    >>> redact_url("postgresql://bob:p@ss/w rd@db/x?sslmode=require&password=hunter2")
    'postgresql://bob:***@db/x?sslmode=require&password=***'
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


_URL_WITH_PASSWORD = re.compile(
    r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*):(?P<secret>.{0,256}?)"
    r"@(?=[\w.\-\[\]]+(?::\d+)?(?:[/?#\s,;]|$))")
_BARE_USERINFO = re.compile(r"(?<![\w/:])(?P<head>[\w.\-]+):(?P<secret>[^@\s/:]+)"
                            r"@(?=[\w\-]+(?:\.[\w\-]+)*(?::\d+)?(?:[/?#\s,;]|$))")
_SECRET_ASSIGNMENT = re.compile(r"(?i)\b(password|passwd|pwd|pass|access_token|token|"
                                r"secret|api_key|apikey|client_secret)=[^&;#\s]+")


def redact_text(text: str, mark: str = "***") -> str:
    """``text`` (an environment value, a command line) with the passwords of URLs (even
    holding ``@``, ``/`` or spaces), of bare ``user:password@host`` and of
    ``password=``/``token=``-like assignments replaced by ``mark``.

    >>> redact_text("http://bob:p@ss@proxy:3128 and ftp://u:a b/c@h/x")
    'http://bob:***@proxy:3128 and ftp://u:***@h/x'
    >>> redact_text("bob:hunter2@db.example.org"), redact_text("x?access_token=t0k&y=1")
    ('bob:***@db.example.org', 'x?access_token=***&y=1')
    """
    text = _URL_WITH_PASSWORD.sub(lambda m: f"{m['head']}:{mark}@", text)
    text = _BARE_USERINFO.sub(lambda m: f"{m['head']}:{mark}@", text)
    return _SECRET_ASSIGNMENT.sub(lambda m: f"{m.group(1)}={mark}", text)
