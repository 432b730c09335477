"""Builders of XALT records for the tests: signed (crc) records and syslog chunk lines
written the way XALT's ``transmit`` writes them."""

from __future__ import annotations

import base64
import json
import zlib

from lineage.sources.xalt.demo import signed_text

from .conftest import SAMPLES

XALT = SAMPLES / "xalt"
RUN_AAA = XALT / "run.stampede2.2017_06_29_11_48_33.aaa.acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5.json"
LINK_S2 = XALT / "link.stampede2.2017_06_29_11_41_47.b6e67891-9362-4ccd-8476-a08b9bd9898b.json"
LINK_RT = XALT / "link.rt_end2end.example.json"
RUN_UUID = "acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5"
BUILD_UUID = "b6e67891-9362-4ccd-8476-a08b9bd9898b"
EXE_SHA1 = "3eae43c087b90e0672ccdbe7f0d44058491274bf"


def sample_run() -> dict:
    return json.loads(RUN_AAA.read_text())


def signed(record: dict) -> str:
    """The record as XALT writes it: compact JSON led by a crc over the text with 0xFFFF."""
    return signed_text(record)


def zzz_from_aaa(record: dict, run_time: float = 42.5) -> dict:
    """The end record XALT writes for the run of a start record."""
    out = json.loads(json.dumps(record))
    start = out["userDT"]["start_time"]
    out["userDT"]["end_time"] = start + run_time
    out["userDT"]["run_time"] = run_time
    out["userT"]["exit_status"] = "0"
    return out


def syslog_lines(text: str, key: str, kind: str = "run", syshost: str = "stampede2",
                 block: int = 200, version: int = 4, crc: str = "") -> list[str]:
    """XALT_LOGGING lines carrying ``text`` in chunks (V:2 compresses, V:3 has no crc)."""
    payload = text
    if version == 2:
        payload = base64.b64encode(zlib.compress(text.encode())).decode()
    chunks = [payload[i:i + block] for i in range(0, len(payload), block)]
    nb = len(chunks)
    lines = []
    for idx, chunk in enumerate(chunks):
        prefix = f"Jun 29 11:48:33 c455-043 XALT_LOGGING_{syshost}: "
        if version >= 4:
            head = (f"V:{version} kind:{kind} syshost:{syshost} key:{key} crcStr:{crc or '0x0000'} "
                    f"nb:{nb:02d} idx:{idx:02d}")
        else:
            head = f"V:{version} kind:{kind} idx:{idx} nb:{nb} syshost:{syshost} key:{key}"
        lines.append(f"{prefix}{head} value:{chunk}\n")
    return lines
