"""Artifact validation: every format, truncations, HTML and JSON impostors, declared size."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest

from oraculum.capture.artifacts import safe_file_name, validate_artifact_bytes
from oraculum.simulator import artifacts as sample


def _zip(files: dict[str, str], comment: bytes = b"") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.comment = comment
    return out.getvalue()


OOXML = {
    "docx": {"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>"},
    "xlsx": {"[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>"},
    "pptx": {"[Content_Types].xml": "<Types/>", "ppt/presentation.xml": "<p:presentation/>"},
}


@pytest.mark.parametrize(
    ("name", "data", "kind"),
    [
        ("report.pdf", sample.pdf_bytes(), "pdf"),
        ("bundle.zip", sample.zip_bytes({"a.txt": "a"}), "zip"),
        ("commented.zip", _zip({"a.txt": "a"}, comment=b"a comment"), "zip"),
        ("doc.docx", _zip(OOXML["docx"]), "docx"),
        ("book.xlsx", _zip(OOXML["xlsx"]), "xlsx"),
        ("deck.pptx", _zip(OOXML["pptx"]), "pptx"),
        ("chart.png", sample.png_bytes(), "png"),
        ("notes.md", "# Notes\n\nnaïve café\n".encode(), "text"),
        ("data.csv", b"a,b\n1,2\n", "text"),
        ("data.json", json.dumps({"rows": [1, 2]}).encode(), "text"),
        ("list.json", b"[1, 2, 3]", "text"),
    ],
)
def test_valid_formats(name: str, data: bytes, kind: str) -> None:
    result = validate_artifact_bytes(data, name, len(data))
    assert result.ok, result.reason
    assert result.kind == kind
    assert result.size == len(data)
    assert result.sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.txt", b"", "empty"),
        ("report.pdf", sample.truncated_pdf_bytes(), "%%EOF"),
        ("bundle.zip", sample.zip_bytes({"a.txt": "a" * 500})[:-10], "end-of-central-directory"),
        ("bundle.zip", sample.zip_bytes({"a.txt": "a"}) + b"trailing junk", "end record"),
        ("chart.png", sample.png_bytes()[:-12], "IEND"),
        ("export.zip", sample.HTML_ERROR_PAGE, "HTML page"),
        ("page.txt", b"  \n<html><body>Sign in</body></html>", "HTML page"),
        ("notes.md", b'{"download_url": "https://x.example/f?sig=1"}', "JSON metadata"),
        ("data.json", b'{"error": "expired"}', "JSON metadata"),
        ("data.json", b'{"redirect": "/login"}', "JSON metadata"),
        ("notes.md", b"[1, 2]", "not a .json file"),
        ("doc.docx", _zip({"[Content_Types].xml": "<Types/>"}), "word/document.xml"),
        ("book.xlsx", _zip(OOXML["docx"]), "xl/workbook.xml"),
        ("report.pdf", sample.png_bytes(), "must be pdf"),
        ("notes.md", sample.pdf_bytes(), "must be text"),
        ("blob.bin", b"\x00\x01\x02binary", "Unrecognized binary"),
        ("latin.txt", "café".encode("latin-1"), "Unrecognized binary"),
    ],
)
def test_refusals(name: str, data: bytes, reason: str) -> None:
    result = validate_artifact_bytes(data, name, None)
    assert not result.ok
    assert reason in (result.reason or "")


def test_declared_size_mismatch_and_html_content_type() -> None:
    data = sample.pdf_bytes()
    assert "declared" in (validate_artifact_bytes(data, "r.pdf", len(data) + 1).reason or "")
    typed = validate_artifact_bytes(b"plain words", "n.txt", None, content_type="text/html")
    assert not typed.ok and "HTML" in (typed.reason or "")


def test_size_cap() -> None:
    data = b"x" * 2048
    assert not validate_artifact_bytes(data, "big.txt", None, max_bytes=1024).ok
    assert validate_artifact_bytes(data, "big.txt", None, max_bytes=4096).ok


def test_safe_file_name() -> None:
    assert safe_file_name("../../etc/pass wd") == "pass_wd"
    assert safe_file_name(".hidden") == "hidden"
    assert safe_file_name("rapport été.pdf") == "rapport__t_.pdf"
    assert safe_file_name(None) == "artifact"
