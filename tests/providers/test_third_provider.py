"""Issue 39 §5's proof: a provider from outside oraculum's source — `providers/third_provider/`,
with its own web app, registry entry, vocabulary, scripts and driver — runs preflight → submit
→ worker → capture → read through real Chromium and a real detached worker, registered by the
registry's hook (``$ORACULUM_PROVIDER_MODULES``) and touching no oraculum file. Every fact the
surfaces use comes from its entry: its selection table, prompt cap, archive format, seed, capture
function and (the lack of) a live probe."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from homes import SIMULATOR_WORKER, complete, write_global_config
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.core.config import Config, seed_profile_dir
from oraculum.core.errors import OracleError
from oraculum.core.providers import (
    PROVIDER_MODULES_ENV,
    REGISTRY,
    ProviderSpec,
    load_provider_modules,
    unregister_provider,
)
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.doctor import doctor
from oraculum.service.preflight import preflight
from oraculum.service.presets import presets
from oraculum.service.read import read
from oraculum.service.submit import submit

from .third_provider.webapp import Server, Site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = "providers.third_provider"
ENTRY = f"{PACKAGE}.entry"


@pytest.fixture(scope="module")
def webapp() -> Iterator[Server]:
    with Server(Site(stream_ms=600)) as running:
        yield running


def hook_environment(url: str) -> dict[str, str]:
    """What makes every oraculum process (a worker, a CLI, an MCP server) see the provider."""
    path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH")) if p)
    return {"THIRD_PROVIDER_URL": url, PROVIDER_MODULES_ENV: ENTRY, "PYTHONPATH": path}


@pytest.fixture
def third(webapp: Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderSpec]:
    """The provider registered here (the hook's import) and for every process started here."""
    for name, value in hook_environment(webapp.url).items():
        monkeypatch.setenv(name, value)
    load_provider_modules(os.environ[PROVIDER_MODULES_ENV])
    try:
        yield REGISTRY["third"]
    finally:
        unregister_provider("third")
        for name in [n for n in sys.modules if n.startswith(PACKAGE + ".")]:
            del sys.modules[name]  # the next import registers it again


def sign_in(config: Config, url: str) -> Path:
    """The third provider's seed profile, signed in through its web app's /login."""
    seed = seed_profile_dir(config, "third")

    async def visit() -> None:
        async with browser_on_profile(seed, LaunchOptions.from_config(config)) as context:
            page = context.pages[0] if context.pages else await context.new_page()
            await page.goto(url + "login")
            await page.get_by_role("textbox", name="Message Third").wait_for()

    asyncio.run(visit())
    return seed


def test_a_registered_provider_runs_a_job_from_preflight_to_read(
    project: Path, third: ProviderSpec, webapp: Server
) -> None:
    config = write_global_config({"worker": SIMULATOR_WORKER})
    seed = sign_in(config, webapp.url)
    assert seed.name.endswith("-third")  # the entry's seed suffix

    report = preflight(caller=Caller(session="s1"), provider="3rd")  # an alias of its entry
    assert report.ready, report.error
    assert (report.provider, report.auth.seed_profile_dir) == ("third", str(seed))

    submitted = submit(
        "Review src/app.py.", ["src"], caller=Caller(session="s1"), provider="third", preset="slow"
    )
    job = complete(JobStore().load(submitted.job["id"]))
    assert job.provider == "third"
    assert job.selection.to_json_dict()["mode"] == "deep"  # its table: "slow" names Third Deep
    assert job.observed_selection == {"mode": "deep"}
    assert job.archive_path.endswith(".tar.gz")  # its archive format
    assert job.chat_url and job.chat_url.startswith(webapp.url + "c/")

    sent = webapp.site.sends
    assert [(s["prompt"], s["file"]) for s in sent] == [
        ("Review src/app.py.", Path(job.archive_path).name)
    ]  # sent once, with the archive
    paths = JobStore().paths(job.id)
    capture = json.loads((paths.dir / "response.capture.json").read_text())
    assert capture["binding"]["messageId"] == "b1"  # read by its own capture function

    result = read(job.id, caller=Caller(session="s1"))
    assert result.job["status"] == "complete"
    saved = result.response.path.read_text()
    assert "Third answer to: Review src/app.py." in saved and "END-OF-ANSWER" in saved
    assert (paths.dir / "response.block-1.txt").read_text().strip() == 'print("third")'


def test_every_surface_takes_the_entry_facts(project: Path, third: ProviderSpec) -> None:
    rows = [(s.provider, s.mode, s.label) for s in presets().selections if s.provider == "third"]
    assert rows == [("third", "swift", "Third Swift"), ("third", "deep", "Third Deep")]

    with pytest.raises(OracleError) as refused:
        submit("x", ["src"], caller=Caller(session="s1"), provider="third", preset="thinking_heavy")
    assert refused.value.code == "invalid_preset"
    assert "thinking_heavy is a ChatGPT preset; Third has no such mode" in refused.value.message
    assert refused.value.allowed_values == ["swift", "deep"]

    cap = third.max_prompt_bytes
    with pytest.raises(OracleError) as too_large:
        submit("x" * (cap + 1), ["src"], caller=Caller(session="s1"), provider="third")
    assert too_large.value.code == "prompt_too_large"
    assert too_large.value.details == {"bytes": cap + 1, "limit": cap}

    write_global_config({})
    report = doctor("third", live=True)
    live = next(c for c in report.checks if c.check == "live page")
    assert (live.status, live.code) == ("warn", "provider_unsupported")  # no live probe named
    assert "Third's page is not checked" in live.detail


def test_a_fresh_process_derives_the_mcp_enums_from_the_hook(webapp: Server) -> None:
    script = (
        "import json\n"
        "from typing import get_args\n"
        "from oraculum.mcp.schemas import PresetId, Provider, RealProvider\n"
        "print(json.dumps([get_args(t) for t in (Provider, RealProvider, PresetId)]))\n"
    )
    env = {**os.environ, **hook_environment(webapp.url)}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    ).stdout
    provider, real, preset = json.loads(out)
    assert provider == ["chatgpt", "grok", "gemini", "test", "third"]
    assert real == ["chatgpt", "grok", "gemini", "third"]
    assert preset[-2:] == ["swift", "deep"]
