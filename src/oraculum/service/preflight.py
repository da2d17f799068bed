"""`preflight`: can this session submit right now? Checks, in order, the session, the config,
the follow-up job, the auth seed profile, the browser and the writable directories, and reports
capacity from the live leases — without acquiring, sweeping or changing anything."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oraculum.auth.seed_check import seed_session_problem
from oraculum.core.config import Config, provider_urls
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.surface import Surface, for_surface
from oraculum.jobs.admission import Capacity, capacity
from oraculum.service.caller import Caller
from oraculum.service.common import (
    TEST_PROVIDER,
    check_prerequisites,
    choose_provider,
)
from oraculum.service.submit import check_follow_up

if TYPE_CHECKING:
    from oraculum.service.doctor import Check

_SEED_CODES = frozenset(
    {
        ErrorCode.AUTH_SEED_PROFILE_MISSING,
        ErrorCode.AUTH_SEED_PROFILE_UNREADABLE,
        ErrorCode.AUTH_SEED_PROFILE_INVALID_TYPE,
        ErrorCode.AUTH_SEED_PROFILE_UNAUTHENTICATED,
    }
)
_BROWSER_CODES = frozenset(
    {ErrorCode.BROWSER_EXECUTABLE_MISSING, ErrorCode.BROWSER_EXECUTABLE_NOT_EXECUTABLE}
)


@dataclass(frozen=True)
class SeedState:
    ready: bool = True
    seed_profile_dir: str | None = None
    problem: str | None = None  # the seed's error code when it blocks

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"ready": self.ready}
        if self.seed_profile_dir is not None or self.problem is not None:
            shown["seedProfileDir"] = self.seed_profile_dir
        if self.problem is not None:
            shown["problem"] = self.problem
        return shown


@dataclass(frozen=True)
class PreflightReport:
    """A readiness report: ``ready`` is False with ``error`` set at the first blocker."""

    project_root: Path
    session_id: str | None = None
    config_ready: bool = False
    auth: SeedState = field(default_factory=SeedState)
    browser_ready: bool = True
    browser_executable: str | None = None
    capacity: Capacity | None = None
    provider: str | None = None
    follow_up_job_id: str | None = None
    jobs_dir: str | None = None
    error: OracleError | None = None
    # `--live` only: what the live page says a submit would still meet (doctor's checks).
    warnings: tuple[Check, ...] = ()

    @property
    def ready(self) -> bool:
        return self.error is None

    @property
    def message(self) -> str:
        if self.error is not None:
            return f"Oracle preflight blocked: {self.error.message}"
        assert self.capacity is not None
        return f"Oracle preflight ready. {self.capacity.line()}"

    def parts(self) -> dict[str, dict[str, Any]]:
        """Each checked part and whether it is ready (what a report lists line by line)."""
        session: dict[str, Any] = {"ready": self.session_id is not None}
        if self.session_id is not None:
            session["sessionId"] = self.session_id
        browser: dict[str, Any] = {"ready": self.browser_ready}
        if self.browser_executable is not None:
            browser["executable"] = self.browser_executable
        return {
            "session": session,
            "config": {"ready": self.config_ready},
            "auth": self.auth.to_json(),
            "browser": browser,
        }

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"ready": self.ready, "projectRoot": str(self.project_root)}
        shown.update(self.parts())
        if self.capacity is not None:
            shown["capacity"] = {
                "active": self.capacity.active,
                "maxActive": self.capacity.max_active,
                "queued": self.capacity.queued,
                "maxQueued": self.capacity.max_queued,
            }
            shown["capacityLine"] = self.capacity.line()
        optional = {
            "followUpJobId": self.follow_up_job_id,
            "provider": self.provider,
            "jobsDir": self.jobs_dir,
        }
        shown.update({key: value for key, value in optional.items() if value is not None})
        if self.warnings:
            shown["warnings"] = [w.to_json() for w in self.warnings]
        if self.error is not None:
            shown["error"] = self.error.to_dict()
        shown["message"] = self.message
        return shown

    def text(self, surface: Surface) -> str:
        if self.error is not None:
            return for_surface(self.message, surface) or self.message
        assert self.capacity is not None
        text = (
            f"Oracle preflight ready. Provider {self.provider}, session {self.session_id}. "
            f"{self.capacity.line()}"
        )
        if self.follow_up_job_id:
            text += f" Follow-up of job {self.follow_up_job_id}."
        for warning in self.warnings:
            text += f"\nWarning ({warning.check}): {warning.detail}"
        return text

    def blocker(self) -> OracleError | None:
        """The blocker as an error (for exit codes and tool errors), the report in its
        details."""
        if self.error is None:
            return None
        facts = {k: v for k, v in self.to_json().items() if k != "error"}
        return OracleError(
            self.error.code,
            self.message,
            rejected_value=self.error.rejected_value,
            allowed_values=self.error.allowed_values,
            suggested_next_step=self.error.suggested_next_step,
            retryable=self.error.retryable,
            details={"preflight": facts},
        )


def preflight(
    *,
    caller: Caller | None = None,
    provider: str | None = None,
    follow_up_job: str | None = None,
    live: bool = False,
) -> PreflightReport:
    """Check, in order, what a submission needs; the report stops at the first blocker. With
    ``live``, a ready report also opens the provider's page on a throwaway clone of the seed
    (as `doctor --live` does) and carries what it found as warnings: a preset the account's
    plan lacks, where the picker shows it locked (issue 38 §7)."""
    caller = caller or Caller()
    report = PreflightReport(caller.root)
    try:
        report = _check(report, caller, provider, follow_up_job)
    except _Blocked as blocked:
        return blocked.report
    seed = report.auth.seed_profile_dir
    if not live or report.provider in (None, TEST_PROVIDER) or seed is None:
        return report  # the test provider has no page; attached browsers have no seed
    from oraculum.service.doctor import live_warnings

    warnings = live_warnings(caller.config, str(report.provider), Path(seed))
    return replace(report, warnings=tuple(warnings))


class _Blocked(Exception):
    def __init__(self, report: PreflightReport) -> None:
        self.report = report


def _check(
    report: PreflightReport,
    caller: Caller,
    provider: str | None,
    follow_up_job: str | None,
) -> PreflightReport:
    def blocked(error: OracleError) -> _Blocked:
        changes: dict[str, Any] = {"error": error}
        if error.code in _SEED_CODES:
            changes["auth"] = SeedState(False, error.rejected_value, error.code)
        if error.code in _BROWSER_CODES:
            changes["browser_ready"] = False
            changes["browser_executable"] = None
        return _Blocked(replace(report, **changes))

    try:
        report = replace(report, session_id=caller.session_id("submit oracle jobs"))
        store, config = caller.store, caller.config
        report = replace(report, config_ready=True, capacity=capacity(store, config))
        if follow_up_job is not None:
            prior = check_follow_up(store, follow_up_job)
            report = replace(report, follow_up_job_id=prior.id)
            provider = provider or prior.provider
        chosen = choose_provider(provider, None, config).provider
        report = replace(report, provider=chosen)
        found = check_prerequisites(config, chosen)
        if found.get("transport") == "relay":
            # Ready only when the user's Chrome answers as a DevTools endpoint right now.
            from oraculum.browser.relay import prove_relay_now

            relay = config.browser.relay
            prove_relay_now(relay.endpoint, enabled=relay.enabled)
        elif chosen != TEST_PROVIDER and config.browser.transport == "managed":
            _check_managed_session(config, chosen)
        if chosen != TEST_PROVIDER:
            # Managed and relay browsers are signed in by hand: there is no seed to check.
            seed = found.get("seedProfileDir")
            report = replace(
                report,
                auth=SeedState(True, seed),
                browser_executable=found.get("browserExecutable"),
            )
            if seed is not None:
                _check_seed_session(config, chosen, Path(seed))
        return replace(report, jobs_dir=found["jobsDir"])
    except OracleError as error:
        raise blocked(error) from None


def _check_managed_session(config: Config, provider: str) -> None:
    """Ready only when the managed browser can run the job signed in (it is never started)."""
    import asyncio

    from oraculum.auth.seed_check import managed_session_problem

    problem = asyncio.run(managed_session_problem(config, provider))
    if problem is not None:
        raise problem


def _check_seed_session(config: Config, provider: str, seed: Path) -> None:
    """The seed exists and is a readable directory; does it hold a session? (no browser
    needed)"""
    chat_url, _ = provider_urls(config, provider)
    unsigned = seed_session_problem(seed, provider, chat_url)
    if unsigned is not None:
        raise unsigned
