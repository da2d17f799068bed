"""Turn artifacts: activate each candidate, read the bytes the UI produces, validate, store.

Bytes come first from page-realm hooks (download.js); Playwright's download event is the
fallback for a control that makes the browser download natively. Validated bytes are stored
once per sha256 as `artifacts/<sha256>-<name>`; `artifacts.json` records every candidate as
discovered → downloaded → validated | failed. A candidate already validated with its file intact
is not activated again.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Download, Page
from playwright.async_api import Error as PlaywrightError

from oraculum.capture.page import Candidate, script
from oraculum.capture.validation import (
    MAX_ARTIFACT_BYTES,
    Validation,
    validate_artifact_bytes,
)
from oraculum.core.fsio import atomic_write_bytes, atomic_write_json, ensure_private_dir

__all__ = [
    "MAX_ARTIFACT_BYTES",
    "ArtifactOutcome",
    "DownloadTimings",
    "Validation",
    "collect_artifacts",
    "safe_file_name",
    "validate_artifact_bytes",
]

MANIFEST_SCHEMA_VERSION = 1
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class DownloadTimings:
    poll_count: int = 30
    poll_ms: int = 100
    settle_ms: int = 5000
    fetch_timeout_ms: int = 5000
    native_wait_s: float = 10.0


def safe_file_name(name: str | None, fallback: str = "artifact") -> str:
    """A file name with only letters, digits, `.`, `_` and `-`; never a path or a dot file."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    cleaned = _UNSAFE_NAME_CHARS.sub("_", base).lstrip(".")
    return cleaned[:120] or fallback


@dataclass
class Fetched:
    data: bytes
    name: str | None
    content_type: str | None
    declared_size: int | None
    via: str


async def _read_native(download: Download, max_bytes: int) -> Fetched:
    path = await download.path()
    size = path.stat().st_size
    if size > max_bytes:
        raise ValueError(f"The download has {size} bytes, over the {max_bytes}-byte limit.")
    return Fetched(path.read_bytes(), download.suggested_filename, None, None, "native_download")


async def activate(
    page: Page, candidate: Candidate, *, max_bytes: int, timings: DownloadTimings
) -> Fetched:
    """Click ``candidate`` under the page hooks; fall back to the browser's download event."""
    downloads: list[Download] = []

    def on_download(download: Download) -> None:
        downloads.append(download)

    page.on("download", on_download)
    try:
        result: dict[str, Any] = await page.evaluate(
            script("download.js"),
            {
                "selector": candidate.selector,
                "maxBytes": max_bytes,
                "timeoutMs": timings.fetch_timeout_ms,
                "pollCount": timings.poll_count,
                "pollMs": timings.poll_ms,
                "settleMs": timings.settle_ms,
            },
        )
        if result.get("ok"):
            return Fetched(
                base64.b64decode(result["base64"]),
                result.get("name"),
                result.get("contentType") or None,
                result.get("declaredSize"),
                str(result.get("via")),
            )
        if result.get("error") in ("control_missing", "capture_failed"):
            # The hooks saw the download and could not read it; nothing native was started.
            raise ValueError(result.get("message") or "The artifact control is gone.")
        # Nothing the hooks could read: the click may have started a native download.
        deadline = asyncio.get_running_loop().time() + timings.native_wait_s
        while not downloads and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)
        if downloads:
            return await _read_native(downloads[0], max_bytes)
        raise ValueError(result.get("message") or "No download was captured.")
    finally:
        page.remove_listener("download", on_download)


def load_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _already_validated(record: dict[str, Any] | None, job_dir: Path) -> bool:
    if not record or record.get("state") != "validated" or not record.get("path"):
        return False
    path = job_dir / str(record["path"])
    try:
        data = path.read_bytes()
    except OSError:
        return False
    check = validate_artifact_bytes(data, path.name.split("-", 1)[-1], None)
    return check.ok and check.sha256 == record.get("sha256")


def store_bytes(artifacts_dir: Path, data: bytes, sha256: str, name: str) -> Path:
    """``artifacts/<sha256>-<name>``; identical bytes already stored are reused."""
    ensure_private_dir(artifacts_dir)
    existing = sorted(artifacts_dir.glob(f"{sha256}-*"))
    if existing:
        return existing[0]
    target = artifacts_dir / f"{sha256}-{name}"
    atomic_write_bytes(target, data)
    return target


@dataclass
class ArtifactOutcome:
    inspection_state: str  # inspected | not_performed | failed
    records: list[dict[str, Any]]
    paths: list[str]

    @property
    def failure_count(self) -> int:
        return sum(1 for r in self.records if r.get("state") == "failed")


async def collect_artifacts(
    page: Page,
    candidates: list[Candidate],
    job_dir: Path,
    manifest_path: Path,
    *,
    enabled: bool = True,
    max_bytes: int = MAX_ARTIFACT_BYTES,
    timings: DownloadTimings | None = None,
    heartbeat: Callable[[], Awaitable[None]] | None = None,
) -> ArtifactOutcome:
    """Download and validate every candidate of the bound turn; write artifacts.json."""
    timings = timings or DownloadTimings()
    previous = {
        r.get("candidateId"): r
        for r in load_manifest(manifest_path).get("artifacts", [])
        if isinstance(r, dict)
    }
    records: list[dict[str, Any]] = []
    state = "inspected" if enabled else "not_performed"
    for candidate in candidates if enabled else []:
        old = previous.get(candidate.candidate_id)
        if old is not None and _already_validated(old, job_dir):
            records.append({**old, "reused": True})
            continue
        record = _discovered(candidate)
        try:
            fetched = await activate(page, candidate, max_bytes=max_bytes, timings=timings)
        except (ValueError, PlaywrightError) as exc:
            records.append({**record, "state": "failed", "reason": str(exc).splitlines()[0]})
            continue
        finally:
            if heartbeat is not None:
                await heartbeat()
        records.append(_checked_and_stored(record, candidate, fetched, job_dir, max_bytes))
    _write_manifest(manifest_path, state, candidates, enabled=enabled, records=records)
    return ArtifactOutcome(state, records, _validated_paths(records, job_dir))


def _discovered(candidate: Candidate) -> dict[str, Any]:
    """A candidate's record before anything was read from it."""
    return {
        "candidateId": candidate.candidate_id,
        "label": candidate.label,
        "fileName": candidate.file_name,
        "hrefKind": candidate.href_kind,
        "required": False,
        "state": "discovered",
    }


def _checked_and_stored(
    record: dict[str, Any], candidate: Candidate, fetched: Fetched, job_dir: Path, max_bytes: int
) -> dict[str, Any]:
    """The record of downloaded bytes: validated and stored once per sha256, or failed."""
    record = {**record, "state": "downloaded", "via": fetched.via}
    name = safe_file_name(candidate.file_name or fetched.name or candidate.label)
    check = validate_artifact_bytes(
        fetched.data,
        name,
        fetched.declared_size,
        content_type=fetched.content_type,
        max_bytes=max_bytes,
    )
    record["validation"] = check.to_json_dict()
    if not check.ok:
        return {**record, "state": "failed", "reason": check.reason}
    stored = store_bytes(job_dir / "artifacts", fetched.data, check.sha256, name)
    return {
        **record,
        "state": "validated",
        "path": str(stored.relative_to(job_dir)),
        "sha256": check.sha256,
        "size": check.size,
        "kind": check.kind,
    }


def _validated_paths(records: list[dict[str, Any]], job_dir: Path) -> list[str]:
    """The stored files of validated records that are still on disk."""
    return sorted(
        {
            str(job_dir / r["path"])
            for r in records
            if r.get("state") == "validated" and (job_dir / r["path"]).exists()
        }
    )


def _write_manifest(
    manifest_path: Path,
    state: str,
    candidates: list[Candidate],
    *,
    enabled: bool,
    records: list[dict[str, Any]],
) -> None:
    atomic_write_json(
        manifest_path,
        {
            "schemaVersion": MANIFEST_SCHEMA_VERSION,
            "inspection": {
                "state": state,
                "candidatesFound": len(candidates),
                "noneFound": enabled and not candidates,
            },
            "artifacts": records,
        },
    )
