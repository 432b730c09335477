"""``roc-validator`` (the official RO-Crate validator) run on a crate with no network: its HTTP
cache, in a folder of the test's own, is filled first with the RO-Crate 1.1 JSON-LD context
that scripts/rocrate_context.py keeps (scripts/setup.sh fetches it once), so the validator
resolves the crate's ``@context`` offline."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import requests
from requests_cache import CachedSession
from urllib3 import HTTPResponse
from rocrate_validator import models, services

from .corpus import REPO

_spec = importlib.util.spec_from_file_location("rocrate_context",
                                               REPO / "scripts" / "rocrate_context.py")
rocrate_context = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rocrate_context)

PROFILE = "provenance-run-crate-0.5"


def seed_cache(cache: Path) -> Path:
    """A validator HTTP cache at ``cache`` holding the RO-Crate 1.1 context."""
    document = rocrate_context.target()
    assert document.is_file(), f"{document} is missing: run scripts/setup.sh (or " \
                               "python scripts/rocrate_context.py) once"
    session = CachedSession(str(cache), backend="sqlite", expire_after=-1)
    response = requests.Response()
    response.status_code = 200
    response.url = rocrate_context.URL
    response._content = document.read_bytes()
    response.encoding = "utf-8"
    response.headers["Content-Type"] = "application/ld+json"
    response.request = requests.Request("GET", rocrate_context.URL).prepare()
    response.raw = HTTPResponse(body=b"", headers=dict(response.headers), status=200,
                                preload_content=False, request_url=rocrate_context.URL)
    session.cache.save_response(response)
    session.close()
    return cache


def validate(crate: Path, cache: Path, severity: str = "REQUIRED"):
    """The validator's result for ``crate`` (a directory or a zip) against the Provenance Run
    Crate profile, at ``severity`` (REQUIRED, RECOMMENDED or OPTIONAL) and above."""
    settings = services.ValidationSettings(
        rocrate_uri=str(crate), profile_identifier=PROFILE, offline=True,
        cache_path=str(seed_cache(cache)),
        requirement_severity=models.Severity[severity])
    return services.validate(settings)


def issues(result) -> list[str]:
    """The result's issues as ``SEVERITY check: message`` lines."""
    return [f"{i.severity.name} {i.check.name}: {i.message}" for i in result.get_issues()]


def metadata(crate: Path) -> dict:
    """The crate's ``ro-crate-metadata.json``."""
    return json.loads((crate / "ro-crate-metadata.json").read_text(encoding="utf-8"))
