"""`demo`: one real job, end to end, against the built-in ChatGPT (or Grok) simulator.

It starts the provider's simulator, signs a demo seed profile into it (kept apart from your
real seed), submits a small bundled sample project through the normal submit path, in the demo's
own session and project, and follows the job to its saved answer. Nothing reaches the internet,
nothing of the current project is read, and the sample's temporary copy is removed afterwards;
the demo's job stays readable (`oraculum read ID` works from anywhere) and no other session is
ever woken for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.auth.simulator import seed_simulator_profile
from oraculum.browser.session import LaunchOptions
from oraculum.core.config import seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import ensure_private_dir
from oraculum.core.paths import data_dir
from oraculum.core.providers import CHATGPT, GROK, provider_spec
from oraculum.core.surface import Surface
from oraculum.jobs.model import Job, Status
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.simulator_use import simulator_browser_keys
from oraculum.service.submit import submit
from oraculum.sessions.poller import DEMO_SOURCE
from oraculum.simulator import SimulatorThread
from oraculum.simulator.scenarios import ANSWERS

DEMO_PROMPT = (
    "You are reviewing the attached project archive. Describe what the project does, "
    "list its main files, and suggest one improvement."
)
SAMPLE_PROJECT = {
    "README.md": "# tiny-calc\n\nA tiny calculator used by `oraculum demo`.\n",
    "pyproject.toml": '[project]\nname = "tiny-calc"\nversion = "0.1.0"\n',
    "tiny_calc/__init__.py": "",
    "tiny_calc/ops.py": (
        "def add(a: float, b: float) -> float:\n    return a + b\n\n\n"
        "def divide(a: float, b: float) -> float:\n    return a / b\n"
    ),
    "tests/test_ops.py": (
        "from tiny_calc.ops import add\n\n\ndef test_add() -> None:\n    assert add(1, 2) == 3\n"
    ),
}
FINISH_TIMEOUT_S = 300.0
# The answer template the demo asks for: the upload receipt without links, so the job ends
# `complete` with collection `complete`. Others show partial collection (`default` carries a
# signed link, `files` a broken download) on request: `oraculum demo --answer files`.
DEMO_ANSWER = "receipt"
# The selection each provider's demo asks for; one not named here takes its default mode.
DEMO_PRESET: dict[str, str] = {CHATGPT.name: "thinking_standard"}


@dataclass(frozen=True)
class DemoResult:
    """The demo's finished job, the project it sent and the saved answer (None if missing)."""

    job: Job
    project: Path
    sample_project: bool
    response: str | None

    @property
    def error(self) -> OracleError | None:
        """`demo_failed` when the job ended other than complete."""
        job = self.job
        if job.status == Status.COMPLETE:
            return None
        return OracleError(
            ErrorCode.DEMO_FAILED,
            f"The demo job {job.id} ended {job.status.value}: {job.error}",
            suggested_next_step=f"See `oraculum status {job.id}` and its logs directory.",
        )

    @property
    def headline(self) -> str:
        return f"job {self.job.id} complete — answer saved to {self.job.response_path}"

    def to_json(self) -> dict[str, Any]:
        return {
            "job": self.job.to_json_dict(),
            "project": str(self.project),
            "sampleProject": self.sample_project,
            "response": self.response,
        }

    def text(self, surface: Surface) -> str:
        # The answer as plain text after its headline; no command here names a tool.
        return f"{self.headline}\n\n{self.response or ''}"


@contextlib.contextmanager
def sample_project() -> Iterator[Path]:
    """A fresh copy of the sample project, removed when the demo ends (whatever the outcome)."""
    sample = Path(tempfile.mkdtemp(prefix="oraculum-demo-project-"))
    try:
        for name, text in SAMPLE_PROJECT.items():
            path = sample / name
            ensure_private_dir(path.parent)
            path.write_text(text)
        yield sample
    finally:
        shutil.rmtree(sample, ignore_errors=True)


def demo_overrides(
    sim: SimulatorThread, *, shell: str, picker: str, provider: str = CHATGPT.name
) -> dict[str, Any]:
    """Point the browser at the simulator and at a demo seed, never at the real ones. The
    shell and picker knobs are the ChatGPT look-alike's; Grok's and Gemini's pages have one
    look."""
    home = data_dir() / "demo"
    browser: dict[str, Any] = {
        "authSeedProfileDir": str(home / "seed-profile"),
        "runtimeProfilesDir": str(home / "runtime-profiles"),
    }
    chat_url = sim.chat_url(shell=shell, picker=picker) if provider == CHATGPT.name else None
    browser.update(simulator_browser_keys(provider, sim.url, chat_url))
    return {"browser": browser, "worker": {"pollMs": 300, "urlVerifyTimeoutMs": 10_000}}


def follow(
    job_id: str, on_phase: Callable[[Job, float], None], *, timeout_s: float = FINISH_TIMEOUT_S
) -> Job:
    store = JobStore()
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        job = store.load(job_id)
        on_phase(job, time.monotonic() - started)
        if job.is_terminal and not job.cleanup_pending:
            return job
        time.sleep(0.2)
    raise OracleError(
        ErrorCode.DEMO_TIMEOUT,
        f"The demo job {job_id} did not finish within {timeout_s:.0f} s.",
        suggested_next_step=f"Inspect it with `oraculum status {job_id}`.",
    )


def run_demo(
    *,
    shell: str = "classic",
    picker: str = "power",
    provider: str = CHATGPT.name,
    answer: str = DEMO_ANSWER,
    on_phase: Callable[[Job, float], None] = lambda _job, _t: None,
    on_step: Callable[[str], None] = lambda _text: None,
) -> DemoResult:
    spec = provider_spec(provider, dry_run=False)
    if answer not in ANSWERS:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"No answer template {answer!r}.",
            rejected_value=answer,
            allowed_values=list(ANSWERS),
        )
    with (
        sample_project() as project,
        SimulatorThread(provider=spec.name, think_ms=600, token_ms=6, answer=answer) as sim,
    ):
        on_step(f"project: {project} (a bundled sample project, removed afterwards)")
        on_step(f"{spec.label} simulator: {sim.url}")
        overrides = demo_overrides(sim, shell=shell, picker=picker, provider=spec.name)
        caller = Caller(cwd=project, session=f"demo-{os.getpid()}", overrides=overrides)
        config = caller.config
        seed = seed_profile_dir(config, spec.name)
        options = LaunchOptions.from_config(config)
        asyncio.run(seed_simulator_profile(seed, sim.url, options, provider=spec.name))
        on_step(f"signed a demo seed profile in: {seed}")
        submitted = submit(
            DEMO_PROMPT,
            ["."],
            caller=caller,
            preset=DEMO_PRESET.get(spec.name),
            provider=spec.name,
            request_source=DEMO_SOURCE,
        )
        job_id = submitted.job["id"]
        on_step(f"submitted job {job_id}")
        job = follow(job_id, on_phase)
    response = Path(job.response_path)
    return DemoResult(job, project, True, response.read_text() if response.exists() else None)


# The council demo (issue 43 §1): both simulators, one member each, one council.
DEMO_COUNCIL_MEMBERS = "chatgpt:thinking_standard,grok:heavy"


@dataclass(frozen=True)
class DemoCouncilResult:
    """The demo council once it ended: its record and council.md."""

    council: dict[str, Any]
    markdown: str

    @property
    def error(self) -> OracleError | None:
        failed = [m["name"] for m in self.council["members"] if not _answered(self, m)]
        if not failed:
            return None
        return OracleError(
            ErrorCode.DEMO_FAILED,
            f"The demo council {self.council['id']}: no answer from {', '.join(failed)}.",
            suggested_next_step=f"See `oraculum status {self.council['id']}`.",
        )

    def to_json(self) -> dict[str, Any]:
        return {"council": self.council, "markdown": self.markdown}

    def text(self, surface: Surface) -> str:
        return self.markdown


def _answered(result: DemoCouncilResult, member: dict[str, Any]) -> bool:
    return f"## {member['name']}\n" in result.markdown


def run_demo_council(
    *,
    shell: str = "classic",
    picker: str = "power",
    on_step: Callable[[str], None] = lambda _text: None,
) -> DemoCouncilResult:
    """A council of ChatGPT and Grok, each against its own simulator, in the demo's session."""
    from oraculum.service.council import read_council, submit_council, wait_council

    with (
        sample_project() as project,
        SimulatorThread(provider=CHATGPT.name, think_ms=600, token_ms=6, answer=DEMO_ANSWER) as gpt,
        SimulatorThread(provider=GROK.name, think_ms=600, token_ms=6, answer=DEMO_ANSWER) as grok,
    ):
        on_step(f"project: {project} (a bundled sample project, removed afterwards)")
        chatgpt_keys = demo_overrides(gpt, shell=shell, picker=picker)
        grok_keys = demo_overrides(grok, shell=shell, picker=picker, provider=GROK.name)
        overrides = chatgpt_keys | {"browser": chatgpt_keys["browser"] | grok_keys["browser"]}
        caller = Caller(cwd=project, session=f"demo-{os.getpid()}", overrides=overrides)
        config = caller.config
        options = LaunchOptions.from_config(config)
        for spec, sim in ((CHATGPT, gpt), (GROK, grok)):
            on_step(f"{spec.label} simulator: {sim.url}")
            seed = seed_profile_dir(config, spec.name)
            asyncio.run(seed_simulator_profile(seed, sim.url, options, provider=spec.name))
            on_step(f"signed a demo seed profile in: {seed}")
        started = submit_council(
            DEMO_PROMPT,
            DEMO_COUNCIL_MEMBERS,
            ["."],
            caller=caller,
        )
        council_id = started.council["id"]
        on_step(
            f"started council {council_id}: "
            + ", ".join(f"{m['name']} (job {m.get('jobId')})" for m in started.council["members"])
        )
        wait_council(council_id, timeout_s=FINISH_TIMEOUT_S)
        ended = read_council(council_id)
    return DemoCouncilResult(ended.council, ended.markdown or "")
