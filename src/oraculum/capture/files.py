"""Writing a collection's response files into the job directory.

Every text written here has passed transport-secret redaction. `response.md` is replaced
atomically; an earlier, different version is kept beside it as `response.md.<sha>.previous`
so a recollection can never silently destroy an answer someone already read. A write that
fails (a full disk) raises `disk_full` / `io_error` naming the file and leaves the earlier
file whole; the worker then ends the job with that code and `recollectionNeeded`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from oraculum.capture.page import CodeBlock
from oraculum.capture.redact import redact_transport_secrets
from oraculum.core.fsio import atomic_write_bytes, atomic_write_json, atomic_write_text

CAPTURE_SCHEMA_VERSION = 1
CAPTURE_JSON = "response.capture.json"


def reply_stem(index: int) -> str:
    """The file stem of a turn's ``index``-th (1-based) reply: `response`, then `response-2`
    for a comparison's second candidate, and so on."""
    return "response" if index == 1 else f"response-{index}"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_response(path: Path, text: str) -> Path | None:
    """Write ``text`` as ``path``; returns where an earlier, different version was kept."""
    kept: Path | None = None
    try:
        previous = path.read_bytes()
    except FileNotFoundError:
        previous = None
    data = text.encode("utf-8")
    if previous is not None and previous != data:
        digest = hashlib.sha256(previous).hexdigest()[:16]
        kept = path.with_name(f"{path.name}.{digest}.previous")
        if not kept.exists():
            atomic_write_bytes(kept, previous)
    if previous != data:
        atomic_write_bytes(path, data)
    return kept


def write_raw_evidence(
    job_dir: Path, raw_text: str, raw_html: str, stem: str = "response"
) -> dict[str, Any]:
    text = redact_transport_secrets(raw_text)
    html = redact_transport_secrets(raw_html)
    text_name, html_name = f"{stem}.raw.txt", f"{stem}.raw.html"
    atomic_write_text(job_dir / text_name, text)
    atomic_write_text(job_dir / html_name, html)
    return {
        "rawText": {"path": text_name, "sha256": sha256_text(text), "chars": len(text)},
        "rawHtml": {"path": html_name, "sha256": sha256_text(html), "chars": len(html)},
    }


def write_code_blocks(
    job_dir: Path, blocks: list[CodeBlock], stem: str = "response"
) -> list[dict[str, Any]]:
    records = []
    for block in blocks:
        text = redact_transport_secrets(block.text)
        name = f"{stem}.block-{block.index}.txt"
        data = text.encode("utf-8")
        atomic_write_bytes(job_dir / name, data)
        records.append(
            {
                "index": block.index,
                "language": block.language,
                "path": name,
                "exact": text == block.text,  # false when redaction had to change it
                "sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data),
            }
        )
    return records


def write_capture_record(job_dir: Path, record: dict[str, Any]) -> None:
    atomic_write_json(job_dir / CAPTURE_JSON, {"schemaVersion": CAPTURE_SCHEMA_VERSION, **record})
