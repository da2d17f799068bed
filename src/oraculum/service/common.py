"""What the operations share: a project's config, the provider choice, and
the prerequisites a submission needs (which preflight reports without acting on them)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.browser.chromium import resolve_executable
from oraculum.core import providers
from oraculum.core.config import Config, load_config, seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import ensure_private_dir
from oraculum.core.paths import jobs_dir
from oraculum.core.presets import resolve_selection
from oraculum.core.providers import canonical_name, provider_spec
from oraculum.jobs.model import JobSelection

# The dry-run provider: no browser, no sign-in; the worker answers by echoing the prompt.
TEST_PROVIDER = providers.TEST.name


def project_config(root: Path) -> Config:
    return load_config(root).config


@dataclass(frozen=True)
class ProviderChoice:
    provider: str  # chatgpt | grok | test
    selection: JobSelection
    options: dict[str, Any]  # the job's library-only knobs (see `Job.options`)


def choose_provider(
    provider: str | None,
    preset: str | None,
    config: Config,
    extras: dict[str, Any] | None = None,
) -> ProviderChoice:
    """The provider, the selection snapshot a job persists and its options.

    ``extras`` are library-only knobs kept as the job's options (the test provider and the
    Deep Research reply read them); no surface exposes them.
    """
    options = dict(extras or {})
    if provider is not None and canonical_name(provider) == TEST_PROVIDER:
        selection: dict[str, Any] = {"provider": TEST_PROVIDER, "label": "Test (dry run)"}
        if preset is not None:
            # The preset still has to be a real one, so a dry run catches the same mistakes.
            selection["preset"] = resolve_selection("chatgpt", preset, config).preset
        return ProviderChoice(TEST_PROVIDER, JobSelection.model_validate(selection), options)
    if provider is not None:
        provider = _surface_provider(provider)
    chosen = resolve_selection(provider, preset, config)
    return ProviderChoice(chosen.provider, JobSelection.of(chosen), options)


def _surface_provider(provider: str) -> str:
    """A real provider by any alias; a refusal lists what a caller may pass, dry run included."""
    return provider_spec(provider).name


def _writable_dir(path: Path, code: ErrorCode, label: str) -> None:
    try:
        if path.exists() and not path.is_dir():
            raise OSError(f"{path} is not a directory")
        ensure_private_dir(path)
        if not os.access(path, os.W_OK | os.X_OK):
            raise OSError("not writable")
    except OSError as exc:
        raise OracleError(
            code,
            f"The {label} is not writable: {path} ({getattr(exc, 'strerror', None) or exc})",
            rejected_value=str(path),
            suggested_next_step=f"Fix the permissions of {path} or point oraculum elsewhere.",
        ) from None


def check_seed_profile(config: Config, provider: str) -> Path:
    seed = seed_profile_dir(config, provider)
    if not seed.exists():
        raise OracleError(
            ErrorCode.AUTH_SEED_PROFILE_MISSING,
            f"Oracle auth seed profile not found: {seed}",
            rejected_value=str(seed),
            suggested_next_step=f"Run `oraculum auth {provider}` (oracle_auth) once, then retry.",
        )
    if not seed.is_dir():
        raise OracleError(
            ErrorCode.AUTH_SEED_PROFILE_INVALID_TYPE,
            f"Oracle auth seed profile is not a directory: {seed}",
            rejected_value=str(seed),
            suggested_next_step=f"Remove {seed} and run `oraculum auth {provider}`.",
        )
    if not os.access(seed, os.R_OK | os.X_OK):
        raise OracleError(
            ErrorCode.AUTH_SEED_PROFILE_UNREADABLE,
            f"Oracle auth seed profile is not readable: {seed}",
            rejected_value=str(seed),
            suggested_next_step=f"Fix the permissions of {seed}.",
        )
    return seed


def check_prerequisites(config: Config, provider: str) -> dict[str, Any]:
    """Everything a submission needs before archiving, in the upstream order; raises the first
    blocker. Returns what was found (seed dir, browser executable) for preflight to show."""
    found: dict[str, Any] = {}
    if provider != TEST_PROVIDER and config.browser.transport == "relay":
        from oraculum.browser.relay import opted_in

        opted_in(config.browser.relay.endpoint, enabled=config.browser.relay.enabled)
        found["transport"] = "relay"  # the user's own Chrome: no seed, no executable of ours
    elif provider != TEST_PROVIDER:
        if config.browser.transport == "isolated":  # managed: signed in by hand in the keeper
            found["seedProfileDir"] = str(check_seed_profile(config, provider))
        configured = config.browser.executable_path
        found["browserExecutable"] = str(
            resolve_executable(str(configured) if configured else None)
        )
        _writable_dir(
            config.browser.runtime_profiles_dir,
            ErrorCode.RUNTIME_PROFILES_DIR_UNWRITABLE,
            "runtime profiles directory",
        )
    _writable_dir(jobs_dir(), ErrorCode.JOBS_DIR_UNWRITABLE, "jobs directory")
    found["jobsDir"] = str(jobs_dir())
    return found
