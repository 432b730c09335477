"""Which PROV documents are this installation's own exports: those whose signature verifies.

``lineage export`` ends each PROV-JSON and PROV-N document that holds nodes of its own
kinds with one last record, an entity ``lineage:export`` whose ``lineage:signature`` is an
HMAC-SHA256 of every byte before that record, keyed by a secret of this installation
(``export-key`` in the state directory, ``$LINEAGE_HOME``, created on the first export,
readable by its owner only). Only a document whose signature verifies is read back into the
kinds and uids it names; any other document, however it spells ``lineage:kind`` or
``lineage:uid``, is another tool's: its elements get the PROV kinds and URIs of their own.
A changed byte, another installation's export, a copied signature: all read as another
tool's document.

>>> key = b"k" * 32
>>> body = '{"prefix": {}, "entity": {\\n'
>>> text = body + json_signature(sign(key, body.encode())) + "}}\\n"
>>> verified(key, io.BytesIO(text.encode()))
True
>>> verified(key, io.BytesIO(text.replace("prefix", "prefiX").encode()))
False
"""

from __future__ import annotations

import hashlib
import hmac
import io  # noqa: F401  (the examples)
import os
import re
import secrets
import time
from pathlib import Path
from typing import BinaryIO


_CONTEXT = b"lineage-explorer export, signed\n"
#: The last entry of a signed PROV-JSON document (its ``entity`` section is the last one).
JSON_SIGNATURE = '"lineage:export": {{"lineage:signature": "{}"}}'
JSON_END = "}}\n"
#: The last statement of a signed PROV-N document.
PROVN_SIGNATURE = '  entity(lineage:export, [lineage:signature="{}"])\n'
PROVN_END = "endDocument\n"
_SIGNED = re.compile(
    rb'(?:"lineage:export": \{"lineage:signature": "([0-9a-f]{64})"\}\}\}\n'
    rb'|  entity\(lineage:export, \[lineage:signature="([0-9a-f]{64})"\]\)\nendDocument\n)\Z')
#: How much of a document's end is searched for its signature.
_TAIL = 256


def key_path() -> Path:
    """Where this installation's export key is kept (the managed server's state directory).
    """
    from ...private_file import state_dir

    return state_dir() / "export-key"


def key(create: bool = False) -> bytes | None:
    """This installation's export key; made first (0600) when ``create`` and there is none
    (two exports at once make one key: the second reads the first's); None when there is
    none, or it is damaged (a damaged key verifies nothing and is not overwritten)."""
    path = key_path()
    if create and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_bytes(32).hex() + "\n")
    for _ in range(40 if create else 1):  # another export may be writing it this moment
        try:
            text = path.read_text().strip()
        except FileNotFoundError:
            return None
        if text:
            break
        time.sleep(0.05)
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        return None
    return secret if len(secret) >= 16 else None


def sign(secret: bytes, signed: bytes | None = None, *, path: str | os.PathLike | None = None
         ) -> str:
    """The signature (hex) of ``signed``, or of the whole file at ``path``."""
    mac = hmac.new(secret, _CONTEXT, hashlib.sha256)
    if path is not None:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                mac.update(block)
    else:
        mac.update(signed or b"")
    return mac.hexdigest()


def json_signature(signature: str) -> str:
    return JSON_SIGNATURE.format(signature)


def provn_signature(signature: str) -> str:
    return PROVN_SIGNATURE.format(signature)


def verified(secret: bytes | None, stream: BinaryIO) -> bool:
    """Whether the document in ``stream`` (binary, seekable) ends in a signature of
    everything before it under ``secret``; read in blocks (memory stays flat)."""
    if secret is None:
        return False
    size = stream.seek(0, os.SEEK_END)
    stream.seek(max(size - _TAIL, 0))
    match = _SIGNED.search(stream.read())
    if match is None:
        return False
    left = max(size - _TAIL, 0) + match.start()
    mac = hmac.new(secret, _CONTEXT, hashlib.sha256)
    stream.seek(0)
    while left > 0:
        block = stream.read(min(left, 1 << 20))
        if not block:
            return False
        mac.update(block)
        left -= len(block)
    return hmac.compare_digest(mac.hexdigest(), (match.group(1) or match.group(2)).decode())


def verified_file(path: str | os.PathLike) -> bool:
    """:func:`verified` for a file, with this installation's key."""
    with open(path, "rb") as fh:
        return verified(key(), fh)
