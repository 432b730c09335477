"""Secrets out of what the graph stores and what the tool prints.

- :func:`redact_text`: the secrets detect-secrets' plugins and our few extra rules find
  (:mod:`lineage.secrets.detector`) replaced by a mark; for messages, log lines and the
  ``:Load`` record.
- :func:`redact_value`: the same, plus the command-line rules (``--password X``,
  ``mysql -pX``: :mod:`lineage.secrets.words`) on the words of the value; for
  environment values and command lines written as one string.
- :func:`redact_command_line`: a command line as a list of words or one string, what every
  source's mapping calls for the command lines it stores.

The secret part goes and the rest stays readable; a value whose secret cannot be cut out
(a PEM private key) goes whole. :func:`redact_value` (and so :func:`redact_command_line`)
remembers the results of recent distinct values.

>>> redact_value("-Djavax.net.ssl.keyStorePassword=KsP4ss -Xmx2g")
'-Djavax.net.ssl.keyStorePassword=[redacted] -Xmx2g'
>>> redact_command_line(["mysql", "-uroot", "-pS3cr3t", "--password", "x y", "prod"])
['mysql', '-uroot', '-p[redacted]', '--password', '[redacted]', 'prod']
>>> redact_text("error at postgresql://alice:S3cr3t@db/x", "***")
'error at postgresql://alice:***@db/x'
"""

from __future__ import annotations

import functools
from typing import Any

from .detector import may_hold_secret, merge, secret_spans
from .words import text_word_spans, word_spans

REDACTED = "[redacted]"


def _apply(text: str, spans, mark: str) -> str:
    if any(whole for _, _, whole in spans):
        return mark
    parts, last = [], 0
    for start, end, _ in spans:
        parts += [text[last:start], mark]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def redact_text(text: str, mark: str = REDACTED) -> str:
    """``text`` with the secrets the detector finds replaced by ``mark``.

    >>> redact_text("token=t0k3n&page=2")
    'token=[redacted]&page=2'
    """
    spans = secret_spans(text)
    return _apply(text, spans, mark) if spans else text


#: distinct values remembered: a site's recurring environment values stay; more would only
#: cost the garbage collector's time (a cache of 65,536 doubled the cost of unseen values)
CACHED_VALUES = 8192


@functools.lru_cache(maxsize=CACHED_VALUES)
def redact_value(text: str, mark: str = REDACTED, program: str | None = None) -> str:
    """:func:`redact_text` plus the command-line rules on the words of ``text`` (``program``:
    the program whose arguments ``text`` holds, when it does not name it itself).

    >>> redact_value("--db-url x --api-key abc123 -v")
    '--db-url x --api-key [redacted] -v'
    """
    if not may_hold_secret(text):
        return text
    spans = secret_spans(text)
    words = text_word_spans(text, program)
    if words:
        spans = merge([*spans, *((s, e, False) for s, e in words)])
    return _apply(text, spans, mark) if spans else text


def redact_command_line(value: Any, program: str | None = None,
                        counts: dict | None = None) -> Any:
    """A command line without its secrets: a list of words (XALT ``cmdlineA``) word by word
    and across words, a string (a Pegasus ``argv``, Swift arguments) as by
    :func:`redact_value`; anything else as it is. ``counts["command_lines_redacted"]`` goes
    up by one when something was redacted.

    >>> redact_command_line("-i in.txt --token abc", program="transfer")
    '-i in.txt --token [redacted]'
    >>> redact_command_line(None) is None
    True
    """
    if isinstance(value, str):
        out: Any = redact_value(value, REDACTED, program)
    elif isinstance(value, (list, tuple)) and all(isinstance(w, str) for w in value):
        out = _redact_words(list(value), program)
    else:
        return value
    if counts is not None and out != value:
        counts["command_lines_redacted"] = counts.get("command_lines_redacted", 0) + 1
    return out


def _redact_words(words: list[str], program: str | None) -> list[str]:
    return list(_redacted_words(tuple(words), program))


@functools.lru_cache(maxsize=CACHED_VALUES)
def _redacted_words(words: tuple[str, ...], program: str | None) -> tuple[str, ...]:
    """The words of a command line redacted (remembered: XALT's process trees repeat the
    same parent commands, a shell and a batch script, run after run)."""
    out = [redact_value(w) for w in words]
    for index, (start, end) in word_spans(words, program).items():
        word = words[index]
        out[index] = word[:start] + REDACTED + word[end:] if out[index] == word else REDACTED
    return tuple(out)


def redact_props(props: dict[str, Any], mark: str = "***") -> dict[str, Any]:
    """Every string (and list of strings) of ``props`` through :func:`redact_text`: what
    the ``:Load`` record and other bookkeeping store.

    >>> redact_props({"error": "postgresql://u:pw@h/db: refused", "n": 3})
    {'error': 'postgresql://u:***@h/db: refused', 'n': 3}
    """
    def clean(value):
        if isinstance(value, str):
            return redact_text(value, mark)
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    return {key: clean(value) for key, value in props.items()}
