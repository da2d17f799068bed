"""`preflight`: can this session submit right now? Checks, in order, the session, the config,
the follow-up job, the auth seed profile, the browser and the writable directories, and reports
capacity from the live leases — without acquiring, sweeping or changing anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oraculum.auth.seed_check import seed_session_problem
from oraculum.core.config import provider_urls
from oraculum.core.errors import OracleError
from oraculum.core.session import resolve_session_id
from oraculum.jobs.admission import capacity
from oraculum.jobs.store import JobStore
from oraculum.service.common import (
    TEST_PROVIDER,
    check_prerequisites,
    choose_provider,
    project_config,
    project_root,
)
from oraculum.service.submit import check_follow_up

_SEED_CODES = frozenset(
    {
        "auth_seed_profile_missing",
        "auth_seed_profile_unreadable",
        "auth_seed_profile_invalid_type",
        "auth_seed_profile_unauthenticated",
    }
)
_BROWSER_CODES = frozenset({"browser_executable_missing", "browser_executable_not_executable"})


def preflight(
    *,
    cwd: Path | None = None,
    session: str | None = None,
    provider: str | None = None,
    follow_up_job: str | None = None,
    store: JobStore | None = None,
) -> dict[str, Any]:
    """A readiness report; ``ready`` is False with ``error`` set at the first blocker."""
    store = store or JobStore()
    root = project_root(cwd)
    result: dict[str, Any] = {
        "ready": False,
        "projectRoot": str(root),
        "session": {"ready": False},
        "config": {"ready": False},
        "auth": {"ready": True},
        "browser": {"ready": True},
    }
    try:
        session_id = resolve_session_id(session, action="submit oracle jobs")
        result["session"] = {"ready": True, "sessionId": session_id}
        config = project_config(root)
        result["config"] = {"ready": True}
        cap = capacity(store, config)
        result["capacity"] = {
            "active": cap.active,
            "maxActive": cap.max_active,
            "queued": cap.queued,
            "maxQueued": cap.max_queued,
        }
        result["capacityLine"] = cap.line()
        chosen_provider = provider
        if follow_up_job is not None:
            prior = check_follow_up(store, follow_up_job, root)
            result["followUpJobId"] = prior.id
            chosen_provider = provider or prior.provider
        choice = choose_provider(chosen_provider, None, config)
        result["provider"] = choice.provider
        found = check_prerequisites(config, choice.provider)
        if choice.provider != TEST_PROVIDER:
            result["auth"]["seedProfileDir"] = found["seedProfileDir"]
            result["browser"]["executable"] = found["browserExecutable"]
            # Exists and is a readable directory; does it hold a session? (no browser needed)
            chat_url, _ = provider_urls(config, choice.provider)
            unsigned = seed_session_problem(
                Path(found["seedProfileDir"]), choice.provider, chat_url
            )
            if unsigned is not None:
                raise unsigned
        result["jobsDir"] = found["jobsDir"]
    except OracleError as error:
        if error.code in _SEED_CODES:
            result["auth"] = {
                "ready": False,
                "seedProfileDir": error.rejected_value,
                "problem": error.code,
            }
        if error.code in _BROWSER_CODES:
            result["browser"] = {"ready": False}
        result["error"] = error.to_dict()
        result["message"] = f"Oracle preflight blocked: {error.message}"
        return result
    result["ready"] = True
    result["message"] = f"Oracle preflight ready. {result['capacityLine']}"
    return result


def preflight_error(result: dict[str, Any]) -> OracleError | None:
    """The blocker of a preflight report as an error (for exit codes and tool errors)."""
    error = result.get("error")
    if not error:
        return None
    return OracleError(
        error["code"],
        result["message"],
        rejected_value=error.get("rejectedValue"),
        allowed_values=error.get("allowedValues"),
        suggested_next_step=error.get("suggestedNextStep"),
        retryable=error.get("retryable", False),
        details={"preflight": {k: v for k, v in result.items() if k != "error"}},
    )
