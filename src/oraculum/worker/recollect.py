"""`python -m oraculum.worker recollect <job-dir>`: collect a completed job's answer again.

It opens the saved conversation in a fresh runtime profile (a clone of the signed-in seed),
reacquires the exact bound turn and finalises. It never configures a model, uploads or sends:
the only page action besides reading is activating the turn's own download controls.
Earlier usable bytes survive a failure; the outcome is recorded on the job either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from oraculum.browser.errors import classify_browser_error
from oraculum.browser.profile import clone_profile, remove_profile
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.browser.transport import attached_page
from oraculum.capture.collect import CollectionResult
from oraculum.core.config import Config, seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs import transitions
from oraculum.jobs.ids import JOB_DIR_PREFIX, validate_job_id
from oraculum.jobs.locks import RECOLLECT_LOCK, named_lock
from oraculum.jobs.model import Job, Status, utc_now
from oraculum.jobs.rules import recollect_refusal
from oraculum.jobs.runtime import job_settings_config
from oraculum.jobs.store import JobStore
from oraculum.providers import get_provider
from oraculum.providers.base import RecollectHooks, Recollector
from oraculum.worker.run import WorkerLog

SOURCE = "oracle:recollect"
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 3
NAVIGATION_TIMEOUT_MS = 60_000


def _check_recollectable(job: Job) -> str:
    refusal = recollect_refusal(job)
    if refusal is not None:
        raise refusal
    assert job.chat_url is not None
    return job.chat_url


@contextlib.asynccontextmanager
async def _page(config: Config, job: Job, profile: Path, log: WorkerLog) -> AsyncIterator[Page]:
    """A page on the configured transport (docs/transports.md): a fresh clone of the seed, or
    a new background tab of the managed or relay browser."""
    if config.browser.transport != "isolated":
        async with attached_page(config, log) as page:
            yield page
        return
    with named_lock("auth", timeout=600):
        clone_profile(seed_profile_dir(config, job.provider), profile)
    log(f"recollect: cloned runtime profile {profile.name}")
    async with browser_on_profile(profile, LaunchOptions.from_config(config)) as context:
        yield context.pages[0] if context.pages else await context.new_page()


async def _run(store: JobStore, job: Job, config: Config, log: WorkerLog) -> CollectionResult:
    paths = store.paths(job.id)
    chat_url = _check_recollectable(job)
    name = f"{job.runtime_id}-recollect-{secrets.token_hex(4)}"
    profile = config.browser.runtime_profiles_dir / name

    async def persist(patch: dict[str, Any]) -> Job:
        return await asyncio.to_thread(_record, store, job.id, patch, None)

    try:
        async with _page(config, job, profile, log) as page:

            async def reopen() -> None:
                await page.goto(chat_url, wait_until="domcontentloaded")

            await page.goto(chat_url, wait_until="domcontentloaded", timeout=NAVIGATION_TIMEOUT_MS)
            # The provider's own page part: a completed job's saved turn again, or (failed,
            # prompt accepted) the reply to its archive's turn once it has finished.
            driver = get_provider(job.provider)
            if not isinstance(driver, Recollector):
                raise OracleError(
                    ErrorCode.RECOLLECT_UNSUPPORTED, f"{job.provider} jobs cannot be recollected."
                )
            hooks = RecollectHooks(reopen=reopen, persist=persist, log=log)
            return await driver.recollect_page(page, job, paths, config, hooks=hooks)
    finally:
        for warning in remove_profile(profile):
            log(f"recollect cleanup warning: {warning}")


def _record(store: JobStore, job_id: str, patch: dict[str, Any], message: str | None) -> Job:
    now = utc_now()
    return store.update(
        job_id,
        lambda job: transitions.update(job, at=now, source=SOURCE, patch=patch, message=message),
    )


def recollect_job(job_dir: Path) -> int:
    job_id = validate_job_id(job_dir.name.removeprefix(JOB_DIR_PREFIX))
    store = JobStore(root=job_dir.parent)
    log = WorkerLog(store.paths(job_id).worker_log)
    try:
        # One recollection per job at a time; while it runs, clean and prune leave the job be.
        with named_lock(RECOLLECT_LOCK, job_id, timeout=0.1):
            return _recollect_locked(store, job_id, log)
    except OracleError as error:
        log(f"recollect refused: [{error.code}] {error.message}")
        return EXIT_REFUSED


def _recollect_locked(store: JobStore, job_id: str, log: WorkerLog) -> int:
    try:
        job = store.load(job_id)
        _check_recollectable(job)
    except OracleError as error:
        log(f"recollect refused: [{error.code}] {error.message}")
        return EXIT_REFUSED
    try:
        config = job_settings_config(job)
        log(f"recollect {job_id}: started (pid {os.getpid()})")
        result = asyncio.run(_run(store, job, config, log))
    except Exception as exc:  # the job keeps its earlier bytes; say why on the job
        reason = (
            f"{exc.code}: {exc.message}"
            if isinstance(exc, OracleError)
            else f"recollect_crashed: {classify_browser_error(exc).message}"
        )
        log(f"recollect failed: {reason}")
        try:
            _record(
                store,
                job_id,
                {"recollection_error": reason, "recollection_needed": True},
                f"Recollection failed: {reason}",
            )
        except OracleError as error:
            log(f"recollect could not record the failure: {error.message}")
        return EXIT_FAILED
    message = (
        f"Recollection finished: collection {result.status}."
        if result.error is None
        else f"Recollection failed: {result.error}"
    )
    if job.status == Status.FAILED and result.response_text is not None:
        _revive(store, job, result)
        log(f"recollect: the failed job's answer was there; the job is complete ({message})")
        return EXIT_OK
    if job.status == Status.FAILED and result.error is not None:
        result.patch["recollection_error"] = result.error
    _record(store, job_id, result.patch, message)
    log(message)
    return EXIT_OK if result.error is None else EXIT_FAILED


def _revive(store: JobStore, job: Job, result: CollectionResult) -> Job:
    now = utc_now()
    earlier = f"[{job.error_code}] {job.error}" if job.error_code else (job.error or "failed")
    return store.update(
        job.id,
        lambda current: transitions.revive(
            current,
            result.phase_hint,
            at=now,
            source=SOURCE,
            message=f"Recollection found the answer; the job is complete (it had failed: "
            f"{earlier}).",
            patch={"generation_status": "completed", **result.patch},
        ),
    )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python -m oraculum.worker recollect <job-dir>\n")
        return 2
    return recollect_job(Path(argv[0]).absolute())
