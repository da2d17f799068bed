"""The typed results of the operations: their JSON shape (keys and order) and their words."""

from __future__ import annotations

from pathlib import Path

from oraculum.auth.result import AuthResult, SignIn
from oraculum.core.presets import PRESETS
from oraculum.service.clean import CleanResult
from oraculum.service.presets import presets
from oraculum.service.read import ReadResult, ResponseFile
from oraculum.service.result import plain
from oraculum.service.submit import SubmitResult, submit_message


def test_clean_result_json_keeps_its_documented_keys_in_order() -> None:
    result = CleanResult(["a1"], {"b2": "still held"}, "Removed 1 of 2.", ["c3"])
    assert list(result.to_json()) == ["removed", "kept", "skippedOpen", "message"]
    assert result.to_json()["skippedOpen"] == ["c3"]
    assert CleanResult([], {}, "Removed 0.").to_json()["skippedOpen"] == []
    assert result.text("cli") == result.text("mcp") == "Removed 1 of 2."


def test_presets_rows_and_words_per_surface() -> None:
    result = presets()
    rows = result.rows
    assert result.to_json() == {"presets": rows}
    assert [row["id"] for row in rows[: len(PRESETS)]] == [preset.id for preset in PRESETS]
    assert list(rows[0]) == [
        "provider",
        "modelFamily",
        "effort",
        "autoSwitchToThinking",
        "tool",
        "label",
        "id",
    ]
    assert rows[-1]["provider"] == "gemini" and "mode" not in rows[-1]
    mcp, cli = result.text("mcp"), result.text("cli")
    assert "oracle_submit's preset" in mcp and "oraculum submit" not in mcp
    assert "`oraculum submit --preset`" in cli and "oracle_submit" not in cli
    assert f"- chatgpt {rows[0]['id']}: {rows[0]['label']}" in mcp


def test_auth_result_json_for_a_sign_in_and_a_rollback(tmp_path: Path) -> None:
    seed, prev = tmp_path / "seed", tmp_path / "seed.prev"
    sign_in = SignIn("me@example.com", None, ("a@host",), tmp_path / "d", tmp_path / "d" / "log")
    signed = AuthResult("chatgpt", "manual", seed, prev, "g2", "Signed in as me.", sign_in)
    assert list(signed.to_json()) == [
        "provider",
        "mode",
        "seedProfileDir",
        "previousSeedDir",
        "generation",
        "identity",
        "source",
        "cookies",
        "diagnosticsDir",
        "log",
        "message",
    ]
    assert signed.to_json()["cookies"] == ["a@host"] and signed.to_json()["source"] is None
    assert signed.text("cli") == f"Signed in as me.\n  previous seed kept at {prev}"
    assert signed.text("mcp") == "Signed in as me."
    rolled = AuthResult("grok", "rollback", seed, None, None, "Run `oraculum status`.")
    assert rolled.to_json() == {
        "provider": "grok",
        "mode": "rollback",
        "seedProfileDir": str(seed),
        "previousSeedDir": None,
        "generation": None,
        "message": "Run `oraculum status`.",
    }
    assert rolled.text("mcp") == "Call `oracle_status`."


def test_submit_result_words_the_same_job_for_each_surface() -> None:
    job = {
        "id": "abcd",
        "status": "submitted",
        "provider": "chatgpt",
        "selection": {"label": "Pro Extended"},
        "followUpToJobId": "prev1",
        "promptPath": "/j/prompt.md",
        "archivePath": "/j/context.tar.zst",
        "responsePath": "/j/response.md",
        "archive": {"bytes": 2**20, "fileCount": 3},
        "autoPrunedArchivePaths": [{"relativePath": "big.bin"}],
    }
    result = SubmitResult(job)
    # --json keeps the upstream message (an agent's advice); people get what and how to follow.
    assert result.to_json() == {"job": job, "message": submit_message(job)}
    assert result.to_json()["message"].startswith(
        "Oracle job dispatched: abcd\nFollow-up to: prev1"
    )
    cli, mcp = result.text("cli"), result.text("mcp")
    assert cli.startswith(
        "Oracle job abcd dispatched (chatgpt, Pro Extended).\nFollow-up to job prev1"
    )
    assert "Archive: 3 files, 1.00 MiB." in cli and "/j/response.md" in cli
    assert "`oraculum wait abcd`" in cli and "oracle_wait" not in cli and "Stop now" not in cli
    assert mcp.startswith("Oracle job abcd dispatched (chatgpt, Pro Extended).")
    assert (
        "Archive: 3 files, 1.00 MiB." in mcp
        and "Auto-pruned to fit the size limit: big.bin." in mcp
    )
    assert '`oracle_wait {"jobId": "abcd"}`' in mcp and "oraculum wait" not in mcp


def test_gaps_and_details_are_words_never_python_dicts() -> None:
    """A capture's gaps (`{"required": [...], "optional": [...]}`) in a read's text (what
    `oracle_read`, `/oracle-read` and `oraculum read` show) are words (issue 40 §5)."""
    gaps = {"gaps": {"required": ["answer_text"], "optional": []}, "recollectionNeeded": True}
    assert plain(gaps["gaps"]) == "required answer_text"
    assert plain({"required": [], "optional": []}) == "none"
    assert plain([]) == "none" and plain([True, "x"]) == "yes, x"
    job = {"id": "abc", "status": "complete", "phase": "done", "artifactsPath": "/a"}
    text = ReadResult(job, ResponseFile(Path("/r"), False), gaps, [], None).text("mcp")
    assert "gaps: required answer_text" in text and "recollectionNeeded: yes" in text
    assert "{" not in text and "[" not in text
