"""Where the secrets of a text are: detect-secrets' plugins, chosen, and the rules it lacks.

Each :class:`Rule` has a *trigger*, a cheap pattern without which its secret cannot be
there, and a function giving the secret's spans. :func:`secret_spans` first runs the
triggers, all in one regular expression, and only then the rules they name: most
provenance values (paths, hashes, module names) fire none.

The detect-secrets plugins used, by their own patterns (``denylist``), and why:

- keyword (``password=``, ``"password": "..."``, ``secret: ...``, ``-D...keyStorePassword=``),
  in its configuration-file mode: values and command lines are written like configuration;
- private key (PEM and PuTTY key headers): the whole value goes, a key cannot be cut out;
- basic auth (``scheme://user:password@``), AWS key ids, Azure storage account keys,
  GitHub, GitLab, JWT, Slack, Stripe, Twilio, SendGrid, npm, PyPI, OpenAI, Discord,
  Telegram, Mailchimp, Square tokens: each a token format of its own.

Left out: the two high-entropy plugins (every sha1, uuid, build id and hashed path of
provenance is high-entropy hex or base64: they would redact what lineage is made of), the
public-IP plugin (hosts are provenance, not secrets), Artifactory (its password pattern is
``AP`` and a hex digit then 8 letters, which ordinary capitalised words match), and the
IBM Cloud, IBM COS, Cloudant and SoftLayer plugins (their secrets sit under ``key=``,
``password=`` names the keyword plugin already catches, at 40-75 us a value each).

Rules detect-secrets lacks (:data:`EXTRA_RULES`), each for a secret it misses:
URL passwords holding reserved characters (``@``, ``/``, spaces) of any length; a URL whose
user part is a lone token (Sentry DSNs, ``https://<token>@github.com``); ``user:pw@host``
without a scheme; ``token=``, ``access_key=``, ``credential=``, ``api-key:`` assignments (its
keyword list has no ``token``); signed-URL parameters (Azure SAS ``sig=``,
``X-Amz-Signature``, ``X-Amz-Security-Token``, ``X-Goog-Signature``); ``Bearer`` tokens and
``Authorization:`` / ``Cookie:`` header values; PEM headers it does not list (``ENCRYPTED
PRIVATE KEY``, PuTTY v3); GitHub fine-grained tokens (``github_pat_``).

>>> text = "-Djavax.net.ssl.keyStorePassword=KsP4ss -Xmx2g"
>>> [text[s:e] for s, e, whole in secret_spans(text)]
['KsP4ss']
>>> secret_spans("/usr/lib64/libm.so.6 3eae43c087b90e0672ccdbe7f0d44058491274bf")
()
"""

from __future__ import annotations

import functools
import importlib
import re
from dataclasses import dataclass
from typing import Callable, Iterator


Span = tuple[int, int, bool]  # start, end, whether the whole value must go


@dataclass(frozen=True)
class Rule:
    """One kind of secret: one of its ``triggers`` (lower-case words its secrets cannot be
    without) must be in the lower-cased value for ``find`` to run."""

    name: str
    triggers: tuple[str, ...]
    find: Callable[[str], Iterator[tuple[int, int]]]
    whole: bool = False  # the secret cannot be cut out of its value


# ------------------------------------------------------------------ span helpers
_QUOTES = "'\"`"
_UNQUOTED_END = re.compile(r"[\s;&,]")


def _cut_unquoted(text: str, start: int, end: int) -> int:
    """The end of a value that starts at ``start``: an unquoted value ends at whitespace,
    ``;``, ``&`` or ``,`` (what separates values in option strings, connection strings,
    query strings and mount options), less a ``.`` or ``:`` that ends a sentence; a quoted
    one runs to its quote."""
    if start > 0 and text[start - 1] in _QUOTES:
        return end
    stop = _UNQUOTED_END.search(text, start, end)
    end = stop.start() if stop else end
    if end - start > 1 and text[end - 1] in ".:" and (end == len(text) or text[end].isspace()):
        end -= 1  # the punctuation of a message (``password=x: refused``)
    return end


@functools.cache
def plugin_class(name: str) -> type:
    """A detect-secrets plugin class by ``module.Class``, imported on first use (detect-secrets
    imports ``requests`` for its online checks, 0.3 s and more: a value no trigger fires
    never pays for it).

    >>> plugin_class("github_token.GitHubTokenDetector").secret_type
    'GitHub Token'
    """
    module, _, cls = name.partition(".")
    return getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)


def _plugin(name: str, captures: bool = False) -> Callable[[str], Iterator[tuple[int, int]]]:
    """Spans of a detect-secrets regex plugin's ``denylist`` matches: the first non-empty
    group where the plugin captures the secret in one (``captures``), else the match less a
    leading ``Name=`` (``AccountKey=``) and with the rest of a token it ends inside (a
    pattern of fixed length matched in a longer token); cut like an unquoted value."""
    def find(text: str) -> Iterator[tuple[int, int]]:
        for regex in plugin_class(name).denylist:
            for m in regex.finditer(text):
                group = next((g for g in range(1, regex.groups + 1) if m.group(g)), 0)
                start, end = m.span(group if captures else 0)
                if not captures:
                    head = _ASSIGNMENT_HEAD.match(text, start, end)
                    start = head.end() if head else start
                    end = _TOKEN_TAIL.match(text, end).end()
                yield start, _cut_unquoted(text, start, end)
    return find


_ASSIGNMENT_HEAD = re.compile(r"[A-Za-z_][\w.\-]*=")
_TOKEN_TAIL = re.compile(r"[\w\-+/=]*")


def _keyword(text: str) -> Iterator[tuple[int, int]]:
    """detect-secrets' keyword patterns of configuration files, every occurrence."""
    keyword = importlib.import_module("detect_secrets.plugins.keyword")
    for regex, group in keyword.CONFIG_DENYLIST_REGEX_TO_GROUP.items():
        pos = 0
        while (m := regex.search(text, pos)) is not None:
            start, end = m.span(group)
            end = _cut_unquoted(text, start, end)
            if end > start:
                yield start, end
            pos = max(end, m.start() + 1)


_JWT_TAIL = re.compile(r"[A-Za-z0-9_\-.+/=]*")


def _jwt(text: str) -> Iterator[tuple[int, int]]:
    """JWTs the plugin finds and checks (``is_formally_valid``), with their signature (the
    plugin's pattern ends lazily, before it)."""
    detector = plugin_class("jwt.JwtTokenDetector")
    for regex in detector.denylist:
        for m in regex.finditer(text):
            end = _JWT_TAIL.match(text, m.end()).end()
            if detector.is_formally_valid(text[m.start():end]):
                yield m.start(), end


# ------------------------------------------------------------------ rules it lacks
_HOST_AFTER = re.compile(r"[\w.\-\[\]]+(?::\d+)?(?:[/?#\s,;\"')]|$)")
_URL_USER = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://(?P<user>[^:/@\s]*)(?P<colon>:?)")
_PORT_THEN_PATH = re.compile(r"\d{1,5}[/?#]")


def _url_password(text: str) -> Iterator[tuple[int, int]]:
    """``scheme://user:password@host`` where the password holds reserved characters or
    spaces, of any length: the password ends at the first ``@`` followed by a host; a port
    and a path (``http://h:8080/p?to=bob@x.org``) are not taken for a password."""
    for m in _URL_USER.finditer(text):
        if not m["colon"]:
            continue
        start = at = m.end()
        while (at := text.find("@", at)) >= 0:
            if _HOST_AFTER.match(text, at + 1):
                if at > start and not _PORT_THEN_PATH.match(text, start):
                    yield start, at
                break
            at += 1


_TOKEN_USER = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]*://(?P<token>(?=[\w\-]*\d)(?=[\w\-]*[A-Za-z])[\w\-]{16,})@")


def _token_userinfo(text: str) -> Iterator[tuple[int, int]]:
    """A URL whose user part is a lone token (16+ letters and digits, no password): Sentry
    DSNs (``https://<key>@o1.ingest.sentry.io/1``), ``https://<token>@github.com/...``."""
    for m in _TOKEN_USER.finditer(text):
        yield m.span("token")


_BARE_USERINFO = re.compile(r"(?<![\w/:@.\-])[\w.\-]+:(?P<pw>[^@\s/:]+)"
                            r"@(?=[\w\-]+(?:\.[\w\-]+)*(?::\d+)?(?:[/?#\s,;]|$))")


def _bare_userinfo(text: str) -> Iterator[tuple[int, int]]:
    """``user:password@host`` without a scheme (``mysql`` and ``rsync`` style)."""
    for m in _BARE_USERINFO.finditer(text):
        yield m.span("pw")


_TOKEN_NAMES = (r"[\w.\-]*?(?:token|credentials?|access[_\-]?key|secret[_\-]?key|api[_\-]?key|"
                r"auth[_\-]?key|session[_\-]?key|sessionid|passphrase)")
_TOKEN_ASSIGNMENT = re.compile(
    rf"(?i)(?<![\w\-]){_TOKEN_NAMES}[\"']?\s*(?::=|=|:)\s*(?P<q>[\"']?)(?P<v>\w[^\s\"']*)")


def _token_assignment(text: str) -> Iterator[tuple[int, int]]:
    """``token=``, ``access_token:``, ``X-Api-Key:``, ``credential=``... assignments (the
    keyword plugin's list has ``key`` and ``password`` names but no ``token``); like the
    keyword plugin, a value starting with ``/``, ``$`` or ``{`` (a path, a variable, a
    template) is not taken for a secret."""
    for m in _TOKEN_ASSIGNMENT.finditer(text):
        start, end = m.span("v")
        yield start, (end if m["q"] else _cut_unquoted(text, start, end))


_SIGNED_URL = re.compile(r"(?i)[?&;](?:sig|signature|x-amz-signature|x-amz-security-token|"
                         r"x-amz-credential|x-goog-signature|x-goog-credential|"
                         r"awsaccesskeyid|googleaccessid)=(?P<v>[^&#\s\"']+)")


def _signed_url(text: str) -> Iterator[tuple[int, int]]:
    """The signature and session parameters of signed URLs: Azure SAS ``sig=``, AWS
    ``X-Amz-Signature`` / ``X-Amz-Security-Token`` / ``Signature``, Google
    ``X-Goog-Signature``."""
    for m in _SIGNED_URL.finditer(text):
        yield m.span("v")


_BEARER = re.compile(r"(?i)\bbearer\s+(?P<v>[A-Za-z0-9\-._~+/]+=*)")
_HEADER = re.compile(r"(?i)(?<![\w\-])(?:proxy-)?(?:authorization|cookie|set-cookie)\s*:\s*"
                     r"(?:(?:basic|bearer|token|digest|negotiate|ntlm|aws4-hmac-sha256)\s+)?"
                     r"(?P<v>[^\s\"'][^\n\"']*)")


def _authorization(text: str) -> Iterator[tuple[int, int]]:
    """``Bearer <token>`` anywhere, and the value of ``Authorization:``, ``Proxy-
    Authorization:`` and ``Cookie:`` headers (to the end of the line; the scheme word,
    ``Basic``, ``Digest``..., stays readable)."""
    for m in _BEARER.finditer(text):
        yield m.span("v")
    for m in _HEADER.finditer(text):
        yield m.start("v"), m.end("v") - (len(m["v"]) - len(m["v"].rstrip()))


_MORE_KEY_HEADERS = re.compile(r"BEGIN [A-Z0-9 ]*PRIVATE KEY|PuTTY-User-Key-File-\d")


def _private_key_headers(text: str) -> Iterator[tuple[int, int]]:
    """PEM headers the private-key plugin does not list (``ENCRYPTED PRIVATE KEY``, PuTTY
    key files of version 3)."""
    for m in _MORE_KEY_HEADERS.finditer(text):
        yield m.span()


_GITHUB_FINE_GRAINED = re.compile(r"github_pat_[A-Za-z0-9_]{22,}")


def _github_fine_grained(text: str) -> Iterator[tuple[int, int]]:
    """GitHub's fine-grained personal access tokens (``github_pat_``)."""
    for m in _GITHUB_FINE_GRAINED.finditer(text):
        yield m.span()


# ------------------------------------------------------------------ the rules
PLUGIN_RULES = (
    Rule("keyword", ("key", "pass", "pwd", "secret", "contras"), _keyword),
    Rule("private key", ("private key", "putty-user-key"),
         _plugin("private_key.PrivateKeyDetector"), whole=True),
    Rule("basic auth", ("://",), _plugin("basic_auth.BasicAuthDetector", captures=True)),
    Rule("AWS", ("a3t", "abia", "acca", "akia", "asia", "aws"),
         _plugin("aws.AWSKeyDetector", captures=True)),
    Rule("Azure storage key", ("accountkey=",),
         _plugin("azure_storage_key.AzureStorageKeyDetector")),
    Rule("GitHub", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
         _plugin("github_token.GitHubTokenDetector")),
    Rule("GitLab", ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-",
                    "glptt-", "glagent-", "gloas-", "gr1348941"),
         _plugin("gitlab_token.GitLabTokenDetector")),
    Rule("JWT", ("eyj",), _jwt),
    Rule("Slack", ("xox", "hooks.slack.com"), _plugin("slack.SlackDetector")),
    Rule("Stripe", ("k_live_",), _plugin("stripe.StripeDetector")),
    Rule("SendGrid", ("sg.",), _plugin("sendgrid.SendGridDetector")),
    Rule("npm", ("_authtoken",), _plugin("npm.NpmDetector", captures=True)),
    Rule("PyPI", ("pypi-",), _plugin("pypi_token.PypiTokenDetector")),
    Rule("OpenAI", ("t3blbkfj",), _plugin("openai.OpenAIDetector")),
    Rule("Mailchimp", ("-us",), _plugin("mailchimp.MailchimpDetector")),
    Rule("Square", ("sq0csp-",), _plugin("square_oauth.SquareOAuthDetector")),
)

EXTRA_RULES = (
    Rule("URL password", ("://",), _url_password),
    Rule("URL token user", ("://",), _token_userinfo),
    Rule("user:password@host", ("@",), _bare_userinfo),
    Rule("token assignment", ("token", "credential", "key", "session", "passphrase"),
         _token_assignment),
    Rule("signed URL", ("sig=", "signature=", "x-amz-", "x-goog-", "accesskeyid=",
                        "googleaccessid="), _signed_url),
    Rule("authorization", ("bearer", "authorization", "cookie"), _authorization),
    Rule("private key header", ("private key", "putty-user-key"), _private_key_headers,
         whole=True),
    Rule("GitHub fine-grained", ("github_pat_",), _github_fine_grained),
)

RULES = PLUGIN_RULES + EXTRA_RULES


def trie_pattern(words: list[str]) -> str:
    """One regex matching any of ``words``, shaped as a trie so that Python's engine tries
    one branch per position instead of every word (40 words: 0.75 us a character as a flat
    alternation).

    >>> trie_pattern(["key", "keys", "pass", "pwd"])
    '(?:key|p(?:ass|wd))'
    """
    words = sorted(set(words))
    kept = [w for w in words if not any(w != o and w.startswith(o) for o in words)]
    groups: dict[str, list[str]] = {}
    for word in kept:
        groups.setdefault(word[0], []).append(word[1:])
    parts = []
    for head, tails in groups.items():
        if len(tails) == 1:
            parts.append(re.escape(head + tails[0]))
        else:
            parts.append(re.escape(head) + trie_pattern(tails))
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


#: every rule's triggers in one pattern, searched in the lower-cased value (a
#: case-insensitive pattern costs Python's engine several times more)
_ANY_TRIGGER = re.compile(trie_pattern([t for rule in RULES for t in rule.triggers]))
#: the same, and an option word (what the command-line rules need): one search says whether
#: a value may hold a secret at all
_ANY_TRIGGER_OR_OPTION = re.compile(
    trie_pattern([t for rule in RULES for t in rule.triggers] + [" -", "\t-", "\n-"]))


def may_hold_secret(text: str) -> bool:
    """False for a value no rule and no command-line rule can find a secret in (most of
    them: paths, hashes, module lists), after one search.

    >>> may_hold_secret("/usr/lib64/libm.so.6"), may_hold_secret("run --token x")
    (False, True)
    """
    return text.startswith("-") or _ANY_TRIGGER_OR_OPTION.search(text.lower()) is not None


def fired(text: str) -> list[Rule]:
    """The :data:`RULES` whose triggers are in ``text``: one search for any trigger (most
    values have none), then each rule's own.

    >>> [rule.name for rule in fired("Bearer abc")]
    ['authorization']
    """
    low = text.lower()
    if _ANY_TRIGGER.search(low) is None:
        return []
    return [rule for rule in RULES if any(t in low for t in rule.triggers)]


def secret_spans(text: str) -> tuple[Span, ...]:
    """The secrets of ``text`` as sorted, merged ``(start, end, whole)`` spans; ``whole``
    when the value cannot keep its readable rest (a private key).

    >>> text = '{"user": "bob", "password": "hunter2"}'
    >>> [text[s:e] for s, e, _ in secret_spans(text)]
    ['hunter2']
    """
    spans: list[Span] = []
    for rule in fired(text):
        spans.extend((s, e, rule.whole) for s, e in rule.find(text) if e > s)
    return merge(spans) if spans else ()


def merge(spans: list[Span]) -> tuple[Span, ...]:
    """Sorted spans with overlapping ones joined.

    >>> merge([(5, 9, False), (0, 3, False), (2, 4, True)])
    ((0, 4, True), (5, 9, False))
    """
    out: list[Span] = []
    for start, end, whole in sorted(spans):
        if out and start <= out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2] or whole)
        else:
            out.append((start, end, whole))
    return tuple(out)
