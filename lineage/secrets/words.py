"""Secrets that only the shape of a command line shows: an option naming a secret followed by
its value as the next word, and the few programs whose short options carry a password.

Rules (detect-secrets scans text, not argument lists, so none of these are its own):

- ``--password X``, ``--token X``, ``--api-key X``, ``--secret X``, ``--passphrase X``... (an
  option whose name holds a secret word, given without ``=``): the next word is the secret;
  options naming a file, a path, a variable or a prompt (``--password-file``,
  ``--password-stdin``, ``--no-password``) are not, nor is a value that is a plain path
  (``--private-key ~/.ssh/id_rsa``);
- ``mysql``/``mariadb`` and their tools: ``-pSECRET``; ``sshpass -p SECRET`` / ``-pSECRET``;
- ``curl``/``wget`` ``-u user:password`` (also ``--user``, ``--proxy-user``, ``-U``), and
  ``smbclient -U user%password``: the part after the user.

A program's rules hold from the word that names it (``srun mysql -p...``, ``env A=1 curl``).

>>> spans = word_spans(["mysql", "-pS3cret", "--password", "hunter2", "-h", "db"])
>>> sorted(spans.items())
[(1, (2, 8)), (3, (0, 7))]
"""

from __future__ import annotations

import re
from typing import Sequence

_SECRET_OPTION = re.compile(
    r"(?i)^--?(?!no-|ask-|skip-|prompt)[\w\-]*?(?:password|passwd|pass|pwd|passphrase|secret|"
    r"token|api-?key|apikey|access-?key|secret-?key|private-?key|credentials?|auth-?key)"
    r"(?:[\-_](?!file|path|dir|fd|env|cmd|command|stdin|prompt|length|policy)[\w\-]*)?$")

MYSQL_FAMILY = frozenset({
    "mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck",
    "mysqlslap", "mysqlpump", "mysqlbinlog", "mariadb", "mariadb-dump", "mariadb-admin",
    "mariadb-import", "mariadb-show", "mariadb-check", "mariadb-slap", "mariadb-binlog"})
#: a word that is only a path names where a secret is (``--private-key ~/.ssh/id``), not one
_PATH_WORD = re.compile(r"(?:~|\.{1,2})?/[\w.\-+/~%,]*")
USER_PASSWORD = {"curl": ("-u", "--user", "-U", "--proxy-user"),
                 "wget": ("--user", "--proxy-user")}


def program_of(word: str) -> str:
    """The program a word names (its basename, without a version suffix).

    >>> program_of("/usr/bin/mysql"), program_of("curl-7.88")
    ('mysql', 'curl')
    """
    name = word.rsplit("/", 1)[-1]
    return re.sub(r"-\d[\w.]*$", "", name)


def _after_user(word: str, separator: str) -> tuple[int, int] | None:
    at = word.find(separator)
    return (at + 1, len(word)) if 0 <= at < len(word) - 1 else None


def word_spans(words: Sequence[str], program: str | None = None) -> dict[int, tuple[int, int]]:
    """Which words hold a secret, and where in the word: ``{index: (start, end)}``.
    ``program`` names the program when ``words`` are its arguments only (a Pegasus
    ``argv``).

    >>> word_spans(["-u", "bob:pw"], program="curl"), word_spans(["-U", "bob%pw"], "smbclient")
    ({1: (4, 6)}, {1: (4, 6)})
    """
    found: dict[int, tuple[int, int]] = {}
    current = program_of(program) if program else ""
    for i, word in enumerate(words):
        if not word.startswith("-"):
            name = program_of(word)
            if name in MYSQL_FAMILY or name in USER_PASSWORD or name in ("sshpass", "smbclient"):
                current = name
            continue
        following = i + 1 < len(words)
        if _SECRET_OPTION.match(word) and following and not words[i + 1].startswith("-"):
            if not _PATH_WORD.fullmatch(words[i + 1]):
                found[i + 1] = (0, len(words[i + 1]))
        elif current in MYSQL_FAMILY and word.startswith("-p") and len(word) > 2:
            found[i] = (2, len(word))
        elif current == "sshpass" and word.startswith("-p"):
            if len(word) > 2:
                found[i] = (2, len(word))
            elif following:
                found[i + 1] = (0, len(words[i + 1]))
        elif current in USER_PASSWORD:
            span = _user_password(words, i, USER_PASSWORD[current], ":")
            if span:
                found[span[0]] = span[1]
        elif current == "smbclient":
            span = _user_password(words, i, ("-U", "--user"), "%")
            if span:
                found[span[0]] = span[1]
    return found


def _user_password(words: Sequence[str], i: int, options: tuple[str, ...],
                   separator: str) -> tuple[int, tuple[int, int]] | None:
    """The password part of ``-u user:password`` (next word) or ``-uuser:password`` /
    ``--user=user:password`` (same word)."""
    word = words[i]
    if word in options and i + 1 < len(words):
        inner = _after_user(words[i + 1], separator)
        return (i + 1, inner) if inner else None
    for option in options:
        for joined in (option + "=", option if len(option) == 2 else None):
            if joined and word.startswith(joined) and len(word) > len(joined):
                inner = _after_user(word[len(joined):], separator)
                if inner:
                    return i, (inner[0] + len(joined), inner[1] + len(joined))
    return None


_WORD = re.compile(r"""(?:'[^']*'|"[^"]*"|[^\s'"]|['"])+""")


def text_word_spans(text: str, program: str | None = None) -> list[tuple[int, int]]:
    """:func:`word_spans` of a command line written as one string (a Pegasus ``argv``, a
    Swift job's arguments, an environment value), as spans of the string; a quoted word's
    quotes stay.

    >>> text = "run --password 'a b' -x"
    >>> [text[s:e] for s, e in text_word_spans(text)]
    ['a b']
    """
    if not (text.startswith("-") or " -" in text or "\t-" in text or "\n-" in text):
        return []
    matches = list(_WORD.finditer(text))
    spans = []
    for index, (start, end) in word_spans([m.group() for m in matches], program).items():
        begin = matches[index].start()
        word = matches[index].group()
        if end - start >= 2 and word[start] in "'\"" and word[end - 1] == word[start]:
            start, end = start + 1, end - 1
        spans.append((begin + start, begin + end))
    return spans
