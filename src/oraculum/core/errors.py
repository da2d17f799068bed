"""The one error type every layer raises, and its stable JSON shape.

Every refusal carries a stable ``code`` that agents and scripts can branch on, a human
``message``, and where useful the rejected value, the allowed values, the next step to take,
and whether retrying the same call can succeed.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    """CLI exit codes, documented in the README."""

    OK = 0
    FAILED = 1  # the operation ran and failed (or an unexpected internal error)
    INVALID_INPUT = 2  # bad arguments or input: fix the call
    NOT_FOUND = 3  # a named job or file does not exist
    NOT_READY = 4  # environment not ready: config, auth seed, browser, session
    BUSY = 5  # retryable: capacity, queue, lock timeout, archive too large
    JOB_UNSUCCESSFUL = 6  # a waited-for job ended failed or cancelled


# Codes whose exit code is not FAILED. Anything not listed (including every `<op>_failed`
# fallback) exits with FAILED.
_EXIT_BY_CODE: dict[str, ExitCode] = {
    **{
        code: ExitCode.INVALID_INPUT
        for code in (
            "invalid_argument",
            "invalid_preset",
            "invalid_provider",
            "invalid_job_id",
            "invalid_session_id",
            "invalid_chatgpt_conversation_id",
            "oracle_thread_target_conflict",
            "archive_input_required",
            "archive_input_blank",
            "archive_input_whole_repo_sentinel_invalid",
            "archive_input_missing",
            "archive_input_outside_project",
            "archive_input_symlink_escape",
            "archive_input_git_dir",
            "archive_input_unreadable",
            "archive_empty",
            "follow_up_job_wrong_project",
            "follow_up_job_not_complete",
            "follow_up_job_missing_chat_url",
            "job_id_ambiguous",
            "job_not_terminal",
            "job_not_cancellable",
            "prompt_too_large",
            "prompt_file_missing",
            "prompt_file_unreadable",
        )
    },
    **{code: ExitCode.NOT_FOUND for code in ("job_not_found", "follow_up_job_not_found")},
    **{
        code: ExitCode.NOT_READY
        for code in (
            "oracle_config_invalid",
            "oracle_profile_path_unsafe",
            "persisted_session_required",
            "auth_seed_profile_missing",
            "auth_seed_profile_unreadable",
            "auth_seed_profile_invalid_type",
            "auth_seed_profile_unauthenticated",
            "browser_executable_missing",
            "browser_executable_not_executable",
            "local_dependency_missing",
            "runtime_profiles_dir_unwritable",
            "jobs_dir_unwritable",
            "job_corrupt",
            "auth_unavailable",
            "disk_full",  # free space, then retry: an environment problem, not the call's
            "doctor_failed",  # a doctor check failed: its next step says what to fix
        )
    },
    **{
        code: ExitCode.BUSY
        for code in (
            "queue_full",
            "lock_timeout",
            "archive_too_large",
            "clean_blocked",
            "wait_timeout",
        )
    },
    **{code: ExitCode.JOB_UNSUCCESSFUL for code in ("job_failed", "job_cancelled")},
}


class OracleError(Exception):
    """A refusal or failure with a stable code.

    ``details`` holds structured extras specific to one code (for example the size summary of
    ``archive_too_large``); it is carried into the JSON shape unchanged.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        rejected_value: Any = None,
        allowed_values: list[Any] | None = None,
        suggested_next_step: str | None = None,
        retryable: bool = False,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rejected_value = rejected_value
        self.allowed_values = allowed_values
        self.suggested_next_step = suggested_next_step
        self.retryable = retryable
        self.details = details or {}

    @property
    def exit_code(self) -> ExitCode:
        return _EXIT_BY_CODE.get(self.code, ExitCode.FAILED)

    def to_dict(self) -> dict[str, Any]:
        """The one JSON shape of an error: ``{"error": {...}}`` holds this dict."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.rejected_value is not None:
            out["rejectedValue"] = _jsonable(self.rejected_value)
        if self.allowed_values is not None:
            out["allowedValues"] = [_jsonable(v) for v in self.allowed_values]
        if self.suggested_next_step:
            out["suggestedNextStep"] = self.suggested_next_step
        out["retryable"] = self.retryable
        if self.details:
            out["details"] = self.details
        return out

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"OracleError({self.code!r}, {self.message!r})"


def _jsonable(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return str(value)


def failed(operation: str, exc: BaseException) -> OracleError:
    """Wrap an unexpected exception from ``operation`` as the ``<operation>_failed`` fallback."""
    if isinstance(exc, OracleError):
        return exc
    return OracleError(
        f"{operation}_failed",
        f"{operation} failed: {exc}",
        suggested_next_step="Check the message above; run `oraculum preflight` to check the setup.",
    )
