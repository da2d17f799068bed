"""A provider with no browser, for exercising the job engine with real worker processes.

It walks the worker phases, optionally creates the runtime profile directory (so teardown has
something real to remove), waits, and writes an answer. The job's ``options`` steer it:
``delayMs`` (time spent awaiting the answer), ``phaseDelayMs`` (time per earlier phase),
``outcome`` (`complete`, `fail`, `hang`, `exit`), ``pauseAt`` (a phase to stop in, forever),
``completeOnTerm`` (finish the answer when told to stop: a completion racing a cancel).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_text, ensure_private_dir
from oraculum.jobs.model import WORKER_PHASES, Phase
from oraculum.providers.base import ProviderOutcome, WorkerContext


class TestProvider:
    __test__ = False  # not a pytest class

    async def run(self, ctx: WorkerContext) -> ProviderOutcome:
        try:
            return await self._run(ctx)
        except asyncio.CancelledError:
            if ctx.job.options.get("completeOnTerm"):
                return await self._answer(ctx)
            raise

    async def _run(self, ctx: WorkerContext) -> ProviderOutcome:
        knobs = ctx.job.options
        phase_delay = float(knobs.get("phaseDelayMs", 0)) / 1000
        for phase in WORKER_PHASES[: WORKER_PHASES.index(Phase.AWAITING_RESPONSE) + 1]:
            await ctx.enter_phase(phase)
            if phase == Phase.CLONING_RUNTIME:
                ensure_private_dir(Path(ctx.job.runtime_profile_dir))
                (Path(ctx.job.runtime_profile_dir) / "Local State").write_text("{}")
            if phase == Phase.UPLOADING_ARCHIVE:
                await ctx.record({"prompt_send_state": "attempted"})
                await ctx.record({"prompt_send_state": "accepted"})
            if phase_delay:
                await asyncio.sleep(phase_delay)
            if knobs.get("pauseAt") == phase.value:
                await asyncio.sleep(3600)
        outcome = knobs.get("outcome", "complete")
        if outcome == "hang":
            await asyncio.sleep(3600)
        if outcome == "exit":
            os._exit(17)  # a crash: no cleanup, no status
        await asyncio.sleep(float(knobs.get("delayMs", 0)) / 1000)
        if outcome == "fail":
            raise OracleError(
                ErrorCode.TEST_PROVIDER_FAILED, "The test provider was asked to fail."
            )
        return await self._answer(ctx)

    async def _answer(self, ctx: WorkerContext) -> ProviderOutcome:
        knobs = ctx.job.options
        await ctx.enter_phase(Phase.EXTRACTING_RESPONSE)
        if knobs.get("pauseAt") == Phase.EXTRACTING_RESPONSE.value:
            await asyncio.sleep(3600)
        text = knobs.get("response") or f"Test answer to: {ctx.prompt.strip()}"
        atomic_write_text(ctx.paths.response, text.rstrip("\n") + "\n")
        await ctx.enter_phase(Phase.DOWNLOADING_ARTIFACTS)
        if knobs.get("pauseAt") == Phase.DOWNLOADING_ARTIFACTS.value:
            await asyncio.sleep(3600)
        return ProviderOutcome(
            patch={"generation_status": "completed", "collection_status": "complete"}
        )
