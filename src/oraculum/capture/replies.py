"""One reply's files, and a comparison's: the response text chosen from a reply (chrome the
capture named left out), its raw evidence and code block files, and for a turn that shows
several candidate answers every other candidate saved as `response-<n>.md` with its own files
(docs/collection.md, "What a turn holds besides the answer")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oraculum.capture import outcome
from oraculum.capture.files import (
    reply_stem,
    sha256_text,
    write_code_blocks,
    write_raw_evidence,
    write_response,
)
from oraculum.capture.markdown import html_to_markdown
from oraculum.capture.page import Reply, TurnCapture


def comparison_record(
    capture: TurnCapture,
    choice: outcome.ResponseChoice | None,
    compared: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """A comparison's question and every candidate's files (the first is response.md)."""
    if capture.comparison is None:
        return {}
    label = capture.comparison.replies[0].label if capture.comparison.replies else None
    first = _candidate_entry(1, choice, capture.message_id, label)
    return {
        "comparison": {
            "question": capture.comparison.question,
            "responses": [first, *(compared or [])],
        }
    }


def _candidate_entry(
    index: int, choice: outcome.ResponseChoice | None, message_id: str | None, label: str | None
) -> dict[str, Any]:
    """Where a candidate is saved (none: it had no text) and what it is."""
    return {
        "index": index,
        "path": f"{reply_stem(index)}.md" if choice else None,
        "messageId": message_id,
        "label": label,
        "sha256": sha256_text(choice.text) if choice else None,
        "fidelity": str(choice.fidelity) if choice else None,
    }


def reply_choice(reply: Reply, base_url: str) -> outcome.ResponseChoice | None:
    """One reply's response text, before redaction (chrome the capture named left out)."""
    markdown = html_to_markdown(reply.raw_html, base_url)
    chrome = [c.get("text") or "" for c in reply.chrome]
    return outcome.choose_response(reply.code_blocks, markdown, reply.raw_text, chrome)


def write_compared(
    job_dir: Path, capture: TurnCapture
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[outcome.ResponseChoice | None]]:
    """A comparison's other candidates, each saved as response-<n>.md with its own raw
    evidence and code block files: their records, their sources and their choices."""
    records: list[dict[str, Any]] = []
    sources: list[dict[str, Any]] = []
    choices: list[outcome.ResponseChoice | None] = []
    replies = capture.comparison.replies[1:] if capture.comparison else []
    for index, reply in enumerate(replies, start=2):
        stem = reply_stem(index)
        choice = reply_choice(reply, capture.url)
        if choice is not None:
            choice = outcome.redact_choice(choice)
            write_response(job_dir / f"{stem}.md", choice.text)
        evidence, blocks, found = reply_evidence(job_dir, reply, capture.url, stem)
        records.append(
            {
                **_candidate_entry(index, choice, reply.message_id, reply.label),
                "rawEvidence": evidence,
                "codeBlocks": blocks,
                "sources": found,
                "chrome": reply.chrome,
            }
        )
        sources += found
        choices.append(choice)
    return records, sources, choices


def reply_evidence(
    job_dir: Path, reply: Reply, base_url: str, stem: str = "response"
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """A reply's raw evidence and code block files (named by ``stem``), and its sources."""
    evidence = write_raw_evidence(job_dir, reply.raw_text, reply.raw_html, stem)
    blocks = write_code_blocks(job_dir, reply.code_blocks, stem)
    sources = outcome.inventory_sources(
        reply.sources, [reply.raw_text, *(b.text for b in reply.code_blocks)], base_url
    )
    return evidence, blocks, sources
