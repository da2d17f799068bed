"""`--provider grok` on every surface (CLI submit/followup/preflight, MCP oracle_submit and
oracle_preflight), through real workers and real Chromium against the Grok simulator: Grok's
default mode is Heavy, a ChatGPT preset is refused, and a follow-up stays on Grok."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from homes import SIMULATOR_WORKER, finished, write_global_config
from oraculum.auth.simulator import seed_simulator_profile
from oraculum.browser.session import LaunchOptions
from oraculum.cli import main
from oraculum.core.config import Config, seed_profile_dir
from oraculum.core.errors import OracleError
from oraculum.core.presets import GROK_MODE_IDS
from oraculum.jobs.ids import JOB_DIR_PREFIX
from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit
from oraculum.simulator import SimulatorThread

from ..mcp.support import mcp_client, text_of

FAST_SIM = {"think_ms": 150, "token_ms": 2, "hydrate_ms": 80, "upload_ms": 120}


@pytest.fixture(scope="module")
def grok_sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(provider="grok", **FAST_SIM) as running:
        yield running


def write_grok_config(sim: SimulatorThread) -> Config:
    return write_global_config({"browser": {"grokUrl": sim.url + "/"}, "worker": SIMULATOR_WORKER})


@pytest.fixture
def grok_project(project: Path, grok_sim: SimulatorThread) -> Path:
    """The project fixture's home, configured for the Grok simulator, its Grok seed signed in."""
    config = write_grok_config(grok_sim)
    seed = seed_profile_dir(config, "grok")
    options = LaunchOptions.from_config(config)
    asyncio.run(seed_simulator_profile(seed, grok_sim.url, options, provider="grok"))
    return project


def cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def job_dirs() -> list[Path]:
    root = JobStore().root
    return [p for p in root.iterdir() if p.name.startswith(JOB_DIR_PREFIX)] if root.exists() else []


@pytest.mark.browser
@pytest.mark.slow
def test_cli_submit_provider_grok_runs_heavy_and_its_followup_stays_on_grok(
    grok_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, ready = cli_json(["preflight", "--provider", "grok", "--session", "s1"], capsys)
    assert code == 0 and ready["ready"] is True and ready["provider"] == "grok", ready

    code, submitted = cli_json(
        ["submit", "--provider", "grok", "--session", "s1", "-p", "Summarise the project.", "."],
        capsys,
    )
    assert code == 0, submitted
    first = finished(submitted["job"]["id"])
    assert first.status == Status.COMPLETE, first.error
    assert first.provider == "grok"
    assert first.selection.mode == "heavy"  # Grok's default mode
    assert first.conversation_id and first.archive_path.endswith(".tar.gz")

    code, ready = cli_json(["preflight", "--follow-up", first.id, "--session", "s1"], capsys)
    assert code == 0 and ready["provider"] == "grok", ready

    code, followed = cli_json(
        ["followup", first.id, "And the tests?", ".", "--session", "s1"], capsys
    )
    assert code == 0, followed
    second = finished(followed["job"]["id"])
    assert second.status == Status.COMPLETE, second.error
    assert second.provider == "grok" and second.selection.mode == "heavy"
    assert second.follow_up_to_job_id == first.id
    assert second.conversation_id == first.conversation_id  # the same Grok conversation

    # A follow-up cannot move the thread to another provider.
    code, moved = cli_json(
        [
            "submit",
            "--provider",
            "chatgpt",
            "--follow-up",
            first.id,
            "--session",
            "s1",
            "-p",
            "x",
            ".",
        ],
        capsys,
    )
    assert code != 0 and moved["error"]["code"] == "oracle_thread_target_conflict"


def test_a_chatgpt_preset_with_provider_grok_is_refused_before_any_job(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(OracleError) as refused:
        submit(
            "Hi.", ["."], caller=Caller(session="s1"), provider="grok", preset="thinking_standard"
        )
    assert refused.value.code == "invalid_preset"
    assert "thinking_standard is a ChatGPT preset; Grok has no such mode" in refused.value.message
    assert refused.value.allowed_values == list(GROK_MODE_IDS)
    assert refused.value.rejected_value == "thinking_standard"

    code, result = cli_json(
        ["submit", "--provider", "grok", "--preset", "pro_extended", "--session", "s1", "-p", "x"],
        capsys,
    )
    assert code != 0 and result["error"]["code"] == "invalid_preset"
    assert "ChatGPT preset" in result["error"]["message"]
    assert job_dirs() == []  # refused before an archive or a job directory


@pytest.mark.browser
@pytest.mark.slow
async def test_mcp_oracle_preflight_and_submit_with_provider_grok(grok_project: Path) -> None:
    async with mcp_client(grok_project, "--session", "grok-mcp") as client:
        ready = await client.call_tool("oracle_preflight", {"provider": "grok"})
        assert not ready.is_error, text_of(ready)
        assert ready.structured_content["ready"] is True
        assert ready.structured_content["provider"] == "grok"

        refused = await client.call_tool(
            "oracle_submit",
            {"prompt": "x", "files": ["."], "provider": "grok", "preset": "thinking_standard"},
        )
        assert refused.is_error
        assert refused.structured_content["error"]["code"] == "invalid_preset"

        submitted = await client.call_tool(
            "oracle_submit",
            {"prompt": "Summarise the project.", "files": ["."], "provider": "grok"},
        )
        assert not submitted.is_error, text_of(submitted)
        summary = submitted.structured_content["job"]
        assert "(grok, Grok Heavy)" in text_of(submitted)
    job = await asyncio.to_thread(finished, summary["id"])
    assert job.status == Status.COMPLETE, job.error
    assert job.selection.mode == "heavy"
    assert job.provider == "grok" and job.conversation_id
