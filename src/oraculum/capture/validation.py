"""Is this really the file? Pure checks on downloaded bytes (facts §2.10).

A download button can hand back an HTML error page, a JSON redirect body or a file cut short.
Each is refused with a reason a person can act on; a file is accepted only when its magic bytes
and structure agree with its extension and its declared size.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

MAX_ARTIFACT_BYTES = 25 * 1024 * 1024

PDF_MAGIC = b"%PDF-"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ZIP_MAGIC = b"PK"
ZIP_EOCD = b"PK\x05\x06"
ZIP_EOCD_SIZE = 22
ZIP_EOCD_WINDOW = ZIP_EOCD_SIZE + 0xFFFF  # 65557: the record plus the longest comment
HTML_PREFIXES = (b"<!doctype html", b"<html", b"<head", b"<body")
JSON_REDIRECT_KEYS = ("download_url", "downloadUrl", "error", "redirect")

OOXML_PARTS = {
    "docx": "word/document.xml",
    "xlsx": "xl/workbook.xml",
    "pptx": "ppt/presentation.xml",
}
# Which detected kind each extension requires.
EXTENSION_KINDS = {
    "pdf": "pdf",
    "zip": "zip",
    "docx": "zip",
    "xlsx": "zip",
    "pptx": "zip",
    "png": "png",
    "md": "text",
    "txt": "text",
    "csv": "text",
    "tsv": "text",
    "json": "text",
}


@dataclass(frozen=True)
class Validation:
    ok: bool
    size: int
    sha256: str
    kind: str | None  # pdf | zip | docx | xlsx | pptx | png | text
    reason: str | None = None

    def to_json_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"ok": self.ok, "size": self.size, "sha256": self.sha256}
        if self.kind:
            data["kind"] = self.kind
        if self.reason:
            data["reason"] = self.reason
        return data


def extension(name: str) -> str:
    return PurePosixPath(name).suffix.lower().lstrip(".")


def _is_html(data: bytes, content_type: str | None) -> bool:
    if content_type and "text/html" in content_type.lower():
        return True
    head = data[:8192].lstrip().lower()
    return head.startswith(HTML_PREFIXES)


def _json_problem(data: bytes, ext: str, content_type: str | None) -> str | None:
    looks_json = data.lstrip()[:1] in (b"{", b"[") or (
        content_type is not None and "json" in content_type.lower()
    )
    if not looks_json:
        return None
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if isinstance(value, dict) and any(key in value for key in JSON_REDIRECT_KEYS):
        return "The download returned JSON metadata (a redirect or error body), not the file."
    if ext != "json":
        return "The download returned JSON, but the file is not a .json file."
    return None


def _pdf_problem(data: bytes) -> str | None:
    if b"%%EOF" not in data[-2048:]:
        return "The PDF is incomplete: no %%EOF marker at its end."
    return None


def _zip_problem(data: bytes) -> str | None:
    start = max(0, len(data) - ZIP_EOCD_WINDOW)
    at = data.rfind(ZIP_EOCD, start)
    if at < 0 or len(data) - at < ZIP_EOCD_SIZE:
        return "The ZIP is incomplete: no end-of-central-directory record."
    comment_length = int.from_bytes(data[at + 20 : at + 22], "little")
    if comment_length != len(data) - at - ZIP_EOCD_SIZE:
        return "The ZIP is incomplete: its end record does not match its length."
    return None


def _ooxml_problem(data: bytes, ext: str) -> str | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        return f"The {ext} file is not a readable ZIP package: {exc}"
    missing = [part for part in ("[Content_Types].xml", OOXML_PARTS[ext]) if part not in names]
    if missing:
        return f"The {ext} file lacks required parts: {', '.join(missing)}."
    return None


def _png_problem(data: bytes) -> str | None:
    if b"IEND" not in data[-12:]:
        return "The PNG is incomplete: no IEND chunk at its end."
    return None


def _text_problem(data: bytes) -> str | None:
    if b"\x00" in data:
        return "Unrecognized binary document; validation is unconfirmed."
    try:
        data.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return "Unrecognized binary document; validation is unconfirmed."
    return None


def detect(data: bytes) -> str:
    if data.startswith(PDF_MAGIC):
        return "pdf"
    if data.startswith(PNG_MAGIC):
        return "png"
    if data.startswith(ZIP_MAGIC):
        return "zip"
    return "text"


def validate_artifact_bytes(
    data: bytes,
    name: str,
    declared_size: int | None,
    *,
    content_type: str | None = None,
    max_bytes: int = MAX_ARTIFACT_BYTES,
) -> Validation:
    """Whether ``data`` is a complete, genuine copy of the file ``name``."""
    digest = hashlib.sha256(data).hexdigest()
    size = len(data)

    def refuse(reason: str, kind: str | None = None) -> Validation:
        return Validation(False, size, digest, kind, reason)

    if not data:
        return refuse("The download is empty.")
    if size > max_bytes:
        return refuse(f"The download is larger than the {max_bytes}-byte limit.")
    if declared_size is not None and declared_size != size:
        return refuse(f"The download has {size} bytes but declared {declared_size}.")
    if _is_html(data, content_type):
        return refuse("The download is an HTML page, not the file.")
    ext = extension(name)
    problem = _json_problem(data, ext, content_type)
    if problem:
        return refuse(problem)
    kind = detect(data)
    checks = {"pdf": _pdf_problem, "zip": _zip_problem, "png": _png_problem, "text": _text_problem}
    problem = checks[kind](data)
    if problem:
        return refuse(problem, kind)
    wanted = EXTENSION_KINDS.get(ext)
    if wanted is not None and wanted != kind:
        return refuse(f"A .{ext} file must be {wanted}, but the bytes are {kind}.", kind)
    if ext in OOXML_PARTS:
        problem = _ooxml_problem(data, ext)
        if problem:
            return refuse(problem, kind)
        kind = ext
    return Validation(True, size, digest, kind)
