"""The one error type every layer raises, and its stable JSON shape.

Every refusal carries a stable ``code`` that agents and scripts can branch on, a human
``message``, and where useful the rejected value, the allowed values, the next step to take,
and whether retrying the same call can succeed.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Any


class ExitCode(IntEnum):
    """CLI exit codes, documented in the README."""

    OK = 0
    FAILED = 1  # the operation ran and failed (or an unexpected internal error)
    INVALID_INPUT = 2  # bad arguments or input: fix the call
    NOT_FOUND = 3  # a named job or file does not exist
    NOT_READY = 4  # environment not ready: config, auth seed, browser, session
    BUSY = 5  # retryable: capacity, queue, lock timeout
    JOB_UNSUCCESSFUL = 6  # a waited-for job ended failed or cancelled; a read answer not saved
    INTERRUPTED = 130  # Ctrl-C, as shells report a process ended by SIGINT


# Shorthands for the table below (module-level: a name assigned in an Enum body is a member).
_FAILED = ExitCode.FAILED
_INPUT = ExitCode.INVALID_INPUT
_MISSING = ExitCode.NOT_FOUND
_SETUP = ExitCode.NOT_READY
_BUSY = ExitCode.BUSY
_RETRY = True  # retrying the same call can succeed (an explicit ``retryable=`` overrides it)
_FINAL = False


class ErrorCode(StrEnum):
    """Every stable error code oraculum reports, with its CLI exit code, its default
    ``retryable`` flag and a one-line meaning (docs/agents.md's table is generated from these:
    ``scripts/error_codes.py`` rewrites it). :class:`OracleError` takes a member, so mypy
    catches a mistyped code; a string that reaches it anyway (from JSON) is refused unless listed.

    ``<operation>_failed`` codes are the fallbacks of :func:`failed`; the doctor's check codes
    (``browser_launch_failed``, ``provider_ui_drift``, ``provider_unsupported``) and the job-only
    codes (``cancel_failed``, ``worker_lost``) are listed too, being part of the same vocabulary.
    """

    _value_: str
    exit_code: ExitCode
    retryable: bool
    meaning: str

    def __new__(cls, value: str, exit_code: ExitCode, retryable: bool, meaning: str) -> ErrorCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.exit_code = exit_code
        member.retryable = retryable
        member.meaning = meaning
        return member

    # Issue 37 §4: generation ended, the answer is in the conversation but not on disk.
    ANSWER_NOT_SAVED = (
        "answer_not_saved",
        _FAILED,
        _FINAL,
        "the provider finished the answer but it could not be saved; `read --recollect` collects "
        "it (nothing is resent)",
    )
    ARCHIVE_EMPTY = "archive_empty", _INPUT, _FINAL, "the inputs select no file to archive"
    ARCHIVE_FAILED = "archive_failed", _FAILED, _FINAL, "building the archive failed unexpectedly"
    ARCHIVE_INPUT_BLANK = (
        "archive_input_blank",
        _INPUT,
        _FINAL,
        "an archive input is empty or blank",
    )
    ARCHIVE_INPUT_GIT_DIR = (
        "archive_input_git_dir",
        _INPUT,
        _FINAL,
        "an archive input is `.git` (needs `--include-git-dir`)",
    )
    ARCHIVE_INPUT_MISSING = (
        "archive_input_missing",
        _INPUT,
        _FINAL,
        "an archive input does not exist",
    )
    ARCHIVE_INPUT_OUTSIDE_PROJECT = (
        "archive_input_outside_project",
        _INPUT,
        _FINAL,
        "an archive input lies outside the project",
    )
    ARCHIVE_INPUT_REQUIRED = (
        "archive_input_required",
        _INPUT,
        _FINAL,
        "no file or directory was given to archive",
    )
    ARCHIVE_INPUT_SYMLINK_ESCAPE = (
        "archive_input_symlink_escape",
        _INPUT,
        _FINAL,
        "an archive input resolves outside the project through a symlink",
    )
    ARCHIVE_INPUT_UNREADABLE = (
        "archive_input_unreadable",
        _INPUT,
        _FINAL,
        "an archive input cannot be read",
    )
    ARCHIVE_INPUT_WHOLE_REPO_SENTINEL_INVALID = (
        "archive_input_whole_repo_sentinel_invalid",
        _INPUT,
        _FINAL,
        "a whole-repository input is not spelled `.` exactly",
    )
    ARCHIVE_MISSING = (
        "archive_missing",
        _FAILED,
        _FINAL,
        "the job's archive file is gone before upload",
    )
    # Issue 38: a broad archive outside a project.
    ARCHIVE_SCOPE_UNSAFE = (
        "archive_scope_unsafe",
        _INPUT,
        _FINAL,
        "`.` outside a project (home, /, no marker): name files or pass `--allow-any-dir`",
    )
    ARCHIVE_TIMEOUT = "archive_timeout", _FAILED, _RETRY, "building the archive timed out"
    ARCHIVE_TOO_LARGE = (
        "archive_too_large",
        _INPUT,
        _RETRY,
        "the archive exceeds the provider's ceiling: select fewer files",
    )
    AUTH_BROWSER_CLOSED = (
        "auth_browser_closed",
        _FAILED,
        _FINAL,
        "the auth browser window was closed before sign-in finished",
    )
    AUTH_BUNDLE_INVALID = (
        "auth_bundle_invalid",
        _INPUT,
        _FINAL,
        "a seed bundle to import is not one `oraculum auth --export` wrote, or holds no session",
    )
    AUTH_CHALLENGE = (
        "auth_challenge",
        _FAILED,
        _RETRY,
        "the site showed a human check during sign-in",
    )
    AUTH_COOKIE_READ_FAILED = (
        "auth_cookie_read_failed",
        _FAILED,
        _FINAL,
        "the local browser's cookies could not be read",
    )
    AUTH_COOKIE_SOURCE_MISSING = (
        "auth_cookie_source_missing",
        _FAILED,
        _FINAL,
        "the browser profile to import cookies from was not found",
    )
    AUTH_FAILED = "auth_failed", _FAILED, _FINAL, "signing in failed unexpectedly"
    AUTH_LOGIN_REQUIRED = (
        "auth_login_required",
        _FAILED,
        _FINAL,
        "the site shows the session signed out: run `oraculum auth`",
    )
    AUTH_ROLLBACK_UNAVAILABLE = (
        "auth_rollback_unavailable",
        _FAILED,
        _FINAL,
        "there is no previous seed profile to restore",
    )
    AUTH_SEED_PROFILE_INVALID_TYPE = (
        "auth_seed_profile_invalid_type",
        _SETUP,
        _FINAL,
        "the seed profile path is not a directory",
    )
    AUTH_SEED_PROFILE_MISSING = (
        "auth_seed_profile_missing",
        _SETUP,
        _FINAL,
        "no signed-in seed profile yet: run `oraculum auth`",
    )
    AUTH_SEED_PROFILE_UNAUTHENTICATED = (
        "auth_seed_profile_unauthenticated",
        _SETUP,
        _FINAL,
        "the seed profile holds no session: run `oraculum auth`",
    )
    AUTH_SEED_PROFILE_UNREADABLE = (
        "auth_seed_profile_unreadable",
        _SETUP,
        _FINAL,
        "the seed profile or its cookie store cannot be read",
    )
    AUTH_SESSION_COOKIE_MISSING = (
        "auth_session_cookie_missing",
        _FAILED,
        _FINAL,
        "the imported browser has no session cookie for the site",
    )
    AUTH_TIMEOUT = "auth_timeout", _FAILED, _RETRY, "verifying the sign-in timed out"
    AUTH_UNAVAILABLE = (
        "auth_unavailable",
        _SETUP,
        _FINAL,
        "no browser profile to import and no display for a manual sign-in",
    )
    AUTH_VERIFICATION_FAILED = (
        "auth_verification_failed",
        _FAILED,
        _FINAL,
        "the signed-in profile did not verify",
    )
    BACKGROUND_LIMIT = (
        "background_limit",
        _BUSY,
        _RETRY,
        "the session already runs as many background tasks of that kind as allowed",
    )
    BROWSER_CRASHED = (
        "browser_crashed",
        _FAILED,
        _RETRY,
        "the browser went away while driving the job",
    )
    BROWSER_ERROR = "browser_error", _FAILED, _FINAL, "the browser reported an error"
    BROWSER_EXECUTABLE_MISSING = (
        "browser_executable_missing",
        _SETUP,
        _FINAL,
        "no Chromium or Chrome executable was found",
    )
    BROWSER_EXECUTABLE_NOT_EXECUTABLE = (
        "browser_executable_not_executable",
        _SETUP,
        _FINAL,
        "the configured browser is not an executable file",
    )
    BROWSER_LAUNCH_FAILED = (
        "browser_launch_failed",
        _FAILED,
        _FINAL,
        "doctor check: Chromium did not start",
    )
    BROWSER_TIMEOUT = "browser_timeout", _FAILED, _RETRY, "a browser step timed out"
    CANCEL_FAILED = (
        "cancel_failed",
        _FAILED,
        _FINAL,
        "job error: the job failed while being cancelled",
    )
    CLEAN_BLOCKED = (
        "clean_blocked",
        _BUSY,
        _RETRY,
        "the job cannot be removed yet (running, or still needed)",
    )
    CODEX_SEARCH_FAILED = (
        "codex_search_failed",
        _FAILED,
        _RETRY,
        "codex_search exited unsuccessfully",
    )
    CODEX_SEARCH_TIMEOUT = (
        "codex_search_timeout",
        _FAILED,
        _RETRY,
        "codex_search did not finish within its fixed ten minutes",
    )
    CODEX_SEARCH_UNAVAILABLE = (
        "codex_search_unavailable",
        _SETUP,
        _FINAL,
        "no `codex_search` executable on PATH",
    )
    CONFIG_TOO_LARGE = (
        "config_too_large",
        _SETUP,
        _FINAL,
        "a configuration file exceeds 1 MiB",
    )
    COMPOSER_NOT_FOUND = (
        "composer_not_found",
        _FAILED,
        _FINAL,
        "a composer control (attach, input) was not found on the page",
    )
    COMPOSER_NOT_READY = (
        "composer_not_ready",
        _FAILED,
        _RETRY,
        "the composer could not be prepared; nothing was sent",
    )
    CONVERSATION_URL_MISSING = (
        "conversation_url_missing",
        _FAILED,
        _FINAL,
        "the site never showed a conversation URL for the job",
    )
    DEEP_RESEARCH_NEEDS_ANSWER = (
        "deep_research_needs_answer",
        _FAILED,
        _FINAL,
        "Deep Research asked a clarifying question the job gave no answer to (saved in the job)",
    )
    DEEP_RESEARCH_TOGGLE_NOT_FOUND = (
        "deep_research_toggle_not_found",
        _FAILED,
        _RETRY,
        "the Deep research tool or its composer pill could not be chosen and verified",
    )
    DEEP_RESEARCH_WIDGET_UNREADABLE = (
        "deep_research_widget_unreadable",
        _FAILED,
        _RETRY,
        "the Deep Research report widget could not be read",
    )
    DEMO_FAILED = "demo_failed", _FAILED, _FINAL, "the demo job did not complete"
    DEMO_TIMEOUT = "demo_timeout", _FAILED, _FINAL, "the demo job did not finish in time"
    DISK_FULL = (
        "disk_full",
        _SETUP,
        _RETRY,
        "the filesystem is full: free space, then retry",
    )
    DOCTOR_FAILED = (
        "doctor_failed",
        _SETUP,
        _FINAL,
        "a doctor check failed: its next step says what to fix",
    )
    # The council (issue 43): one question to several members, each an ordinary job.
    COUNCIL_MEMBER_UNKNOWN = (
        "council_member_unknown",
        _INPUT,
        _FINAL,
        "a council member names an unknown provider or preset (`provider:preset`)",
    )
    COUNCIL_MEMBER_DUPLICATE = (
        "council_member_duplicate",
        _INPUT,
        _FINAL,
        "the same provider and preset is named twice in one council",
    )
    COUNCIL_MEMBER_NOT_SIGNED_IN = (
        "council_member_not_signed_in",
        _SETUP,
        _FINAL,
        "a council member's provider is not signed in: nothing was sent; run its auth step",
    )
    COUNCIL_NOT_FOUND = "council_not_found", _MISSING, _FINAL, "no council with that id"
    INVALID_COUNCIL_ID = (
        "invalid_council_id",
        _INPUT,
        _FINAL,
        "a council id is `cl-` and 13 lower-case letters and digits",
    )
    DUPLICATE_JOB = (
        "duplicate_job",
        _BUSY,
        _FINAL,
        "an identical job (prompt, archive, provider, preset) is queued or running: wait for "
        "it and read it, or pass --force",
    )
    FETCH_ADDRESS_BLOCKED = (
        "fetch_address_blocked",
        _INPUT,
        _FINAL,
        "browser_fetch: the page's address is not public (loopback, private, metadata, …)",
    )
    FETCH_BUSY = "fetch_busy", _BUSY, _RETRY, "browser_fetch: four fetches already run"
    FETCH_CANCELLED = "fetch_cancelled", _FAILED, _FINAL, "browser_fetch: the fetch was cancelled"
    FETCH_FAILED = "fetch_failed", _FAILED, _RETRY, "browser_fetch: the page could not be loaded"
    FETCH_HTTP_ERROR = (
        "fetch_http_error",
        _FAILED,
        _FINAL,
        "browser_fetch: the site answered with an HTTP error",
    )
    FETCH_PAGE_BLOCKED = (
        "fetch_page_blocked",
        _FAILED,
        _FINAL,
        "browser_fetch: the page asks for a sign-in, CAPTCHA or anti-bot check (not bypassed)",
    )
    FETCH_TIMEOUT = "fetch_timeout", _FAILED, _RETRY, "browser_fetch: the page did not load in time"
    FETCH_UNREADABLE = (
        "fetch_unreadable",
        _FAILED,
        _FINAL,
        "browser_fetch: the page has too little readable text",
    )
    FETCH_URL_INVALID = (
        "fetch_url_invalid",
        _INPUT,
        _FINAL,
        "browser_fetch: the URL is not an http(s) URL it can fetch",
    )
    FOLLOW_UP_JOB_MISSING_CHAT_URL = (
        "follow_up_job_missing_chat_url",
        _INPUT,
        _FINAL,
        "the job to follow up has no saved conversation URL",
    )
    FOLLOW_UP_JOB_NOT_COMPLETE = (
        "follow_up_job_not_complete",
        _INPUT,
        _FINAL,
        "only a complete job can be followed up",
    )
    FOLLOW_UP_JOB_NOT_FOUND = (
        "follow_up_job_not_found",
        _MISSING,
        _FINAL,
        "the job to follow up does not exist",
    )
    GENERATION_FAILED = (
        "generation_failed",
        _FAILED,
        _RETRY,
        "the site reported an error instead of an answer",
    )
    INTERNAL_ERROR = (
        "internal_error",
        _FAILED,
        _FINAL,
        "an unexpected internal error (`details.log` holds the traceback)",
    )
    INTERRUPTED = (
        "interrupted",
        ExitCode.INTERRUPTED,
        _FINAL,
        "the command was interrupted (Ctrl-C)",
    )
    INVALID_ARGUMENT = (
        "invalid_argument",
        _INPUT,
        _FINAL,
        "an argument is missing, mistyped or out of range",
    )
    INVALID_CHATGPT_CONVERSATION_ID = (
        "invalid_chatgpt_conversation_id",
        _INPUT,
        _FINAL,
        "not a conversation id or URL of the provider",
    )
    INVALID_JOB_ID = "invalid_job_id", _INPUT, _FINAL, "a job id is blank or malformed"
    INVALID_PRESET = "invalid_preset", _INPUT, _FINAL, "an unknown preset"
    INVALID_PROVIDER = "invalid_provider", _INPUT, _FINAL, "an unknown provider"
    INVALID_SESSION_ID = "invalid_session_id", _INPUT, _FINAL, "a malformed session id"
    INVALID_TRANSITION = (
        "invalid_transition",
        _FAILED,
        _FINAL,
        "a job update broke the job's lifecycle rules",
    )
    IO_ERROR = "io_error", _FAILED, _FINAL, "an OS error reading or writing a file"
    JOB_CORRUPT = "job_corrupt", _SETUP, _FINAL, "a job file cannot be read or parsed"
    JOB_ID_AMBIGUOUS = (
        "job_id_ambiguous",
        _INPUT,
        _FINAL,
        "a job id prefix or short form matches several jobs",
    )
    JOB_NOT_CANCELLABLE = (
        "job_not_cancellable",
        _INPUT,
        _FINAL,
        "the job has already ended",
    )
    JOB_NOT_FOUND = "job_not_found", _MISSING, _FINAL, "no job has that id or prefix"
    JOBS_DIR_UNWRITABLE = (
        "jobs_dir_unwritable",
        _SETUP,
        _FINAL,
        "the jobs directory is not writable",
    )
    LOCK_TIMEOUT = "lock_timeout", _BUSY, _RETRY, "timed out waiting for a lock"
    MANAGED_BROWSER_LOST = (
        "managed_browser_lost",
        _FAILED,
        _RETRY,
        "the managed browser (keeper) went away while the job ran",
    )
    MANAGED_BROWSER_NOT_RUNNING = (
        "managed_browser_not_running",
        _SETUP,
        _RETRY,
        "the managed browser is not running (`oraculum browser start`)",
    )
    MANAGED_BROWSER_SIGNED_OUT = (
        "managed_browser_signed_out",
        _SETUP,
        _FINAL,
        "the managed browser is not signed in to the provider (`oraculum browser login`)",
    )
    MANAGED_BROWSER_START_FAILED = (
        "managed_browser_start_failed",
        _SETUP,
        _RETRY,
        "the managed browser did not start or never showed its DevTools port",
    )
    MANAGED_ENDPOINT_UNPROVEN = (
        "managed_endpoint_unproven",
        _SETUP,
        _FINAL,
        "what answers at the keeper's port does not prove it is oraculum's managed browser",
    )
    MODEL_CONFIGURATION_FAILED = (
        "model_configuration_failed",
        _FAILED,
        _RETRY,
        "the preset's model could not be selected",
    )
    MODEL_ENTRY_AMBIGUOUS = (
        "model_entry_ambiguous",
        _FAILED,
        _FINAL,
        "several picker entries match the wanted model's name once their prefixes are dropped",
    )
    # Issue 38 §7: the page shows the preset's model locked behind an upgrade.
    MODEL_NOT_IN_PLAN = (
        "model_not_in_plan",
        _FAILED,
        _FINAL,
        "the signed-in account's plan lacks the preset's model (the picker offers an upgrade)",
    )
    MODEL_PICKER_NOT_FOUND = (
        "model_picker_not_found",
        _FAILED,
        _RETRY,
        "the model picker was not found on the page",
    )
    MODEL_PICKER_STUCK_OPEN = (
        "model_picker_stuck_open",
        _FAILED,
        _RETRY,
        "the model picker did not close; nothing was sent",
    )
    MODEL_SELECTION_UNVERIFIED = (
        "model_selection_unverified",
        _FAILED,
        _RETRY,
        "the page does not show the chosen model",
    )
    NOTHING_TO_WAIT_FOR = (
        "nothing_to_wait_for",
        _MISSING,
        _FINAL,
        "the session has no queued or running job and no wake-up due",
    )
    ORACLE_CONFIG_INVALID = (
        "oracle_config_invalid",
        _SETUP,
        _FINAL,
        "a configuration file is invalid",
    )
    ORACLE_PROFILE_PATH_UNSAFE = (
        "oracle_profile_path_unsafe",
        _SETUP,
        _FINAL,
        "a profile path goes through a symbolic link",
    )
    ORACLE_SUBMIT_FAILED = (
        "oracle_submit_failed",
        _FAILED,
        _FINAL,
        "handing the job to its worker failed",
    )
    ORACLE_THREAD_BUSY = (
        "oracle_thread_busy",
        _FAILED,
        _RETRY,
        "another job is using the conversation",
    )
    ORACLE_THREAD_TARGET_CONFLICT = (
        "oracle_thread_target_conflict",
        _INPUT,
        _FINAL,
        "the follow-up job and the conversation id name different conversations",
    )
    PAGE_OBSTRUCTED = (
        "page_obstructed",
        _FAILED,
        _RETRY,
        "a dialog or banner covers the page and nothing safe clears it",
    )
    PERSISTED_SESSION_REQUIRED = (
        "persisted_session_required",
        _SETUP,
        _FINAL,
        "the command needs a session id",
    )
    PROFILE_CLONE_TIMEOUT = (
        "profile_clone_timeout",
        _FAILED,
        _RETRY,
        "cloning the seed profile timed out",
    )
    PROCESS_ARGV_TOO_LARGE = (
        "process_argv_too_large",
        _INPUT,
        _FINAL,
        "managed process: argv over 128 items, 8,000 bytes per item or 64 KiB in all",
    )
    PROCESS_LIMIT = (
        "process_limit",
        _BUSY,
        _RETRY,
        "managed process: eight already run in this session",
    )
    PROCESS_NOT_FOUND = (
        "process_not_found",
        _MISSING,
        _FINAL,
        "managed process: no process with that id in this session",
    )
    PROCESS_START_FAILED = (
        "process_start_failed",
        _FAILED,
        _FINAL,
        "managed process: the OS refused the spawn (missing executable, permission, cwd)",
    )
    PROCESS_UNSUPPORTED = (
        "process_unsupported",
        _SETUP,
        _FINAL,
        "managed process: refused here (Windows, or the session's processes were stopped)",
    )
    PROMPT_FILE_MISSING = (
        "prompt_file_missing",
        _INPUT,
        _FINAL,
        "the prompt file does not exist",
    )
    PROMPT_FILE_UNREADABLE = (
        "prompt_file_unreadable",
        _INPUT,
        _FINAL,
        "the prompt file cannot be read",
    )
    PROMPT_TOO_LARGE = "prompt_too_large", _INPUT, _FINAL, "the prompt exceeds the size limit"
    PROVIDER_CHALLENGE = (
        "provider_challenge",
        _FAILED,
        _FINAL,
        "the site shows a human check: solve it in the auth browser",
    )
    PROVIDER_NOT_READY = (
        "provider_not_ready",
        _FAILED,
        _RETRY,
        "the chat page never became ready",
    )
    PROVIDER_OUTAGE = (
        "provider_outage",
        _FAILED,
        _RETRY,
        "the site is having trouble or rate-limiting",
    )
    PROVIDER_RATE_LIMITED = (
        "provider_rate_limited",
        _FAILED,
        _RETRY,
        "the site showed a rate limit while answering",
    )
    PROVIDER_UI_DRIFT = (
        "provider_ui_drift",
        _FAILED,
        _FINAL,
        "doctor check: the site's page no longer matches oraculum's vocabulary",
    )
    PROVIDER_UNAVAILABLE = (
        "provider_unavailable",
        _FAILED,
        _FINAL,
        "the provider's browser flow is not in this version",
    )
    PROVIDER_UNREACHABLE = (
        "provider_unreachable",
        _FAILED,
        _RETRY,
        "the provider's site could not be reached",
    )
    PROVIDER_UNSUPPORTED = (
        "provider_unsupported",
        _FAILED,
        _FINAL,
        "doctor check: the live probe does not know this provider's page",
    )
    QUEUE_FULL = "queue_full", _BUSY, _RETRY, "capacity and queue are full"
    RECOLLECT_NO_CONVERSATION = (
        "recollect_no_conversation",
        _FAILED,
        _FINAL,
        "the job has no saved conversation to recollect from",
    )
    RECOLLECT_NOT_COMPLETE = (
        "recollect_not_complete",
        _FAILED,
        _FINAL,
        "the job cannot be recollected in its state",
    )
    RECOLLECT_UNSUPPORTED = (
        "recollect_unsupported",
        _FAILED,
        _FINAL,
        "the job's provider cannot recollect",
    )
    RELAY_BROWSER_LOST = (
        "relay_browser_lost",
        _FAILED,
        _RETRY,
        "the relay browser went away (or was replaced) while the job ran",
    )
    RELAY_ENDPOINT_REFUSED = (
        "relay_endpoint_refused",
        _INPUT,
        _FINAL,
        "the relay endpoint is not a loopback http:// DevTools address",
    )
    RELAY_ENDPOINT_UNPROVEN = (
        "relay_endpoint_unproven",
        _SETUP,
        _RETRY,
        "the relay endpoint does not answer like a Chrome DevTools endpoint on that address",
    )
    RELAY_NOT_ENABLED = (
        "relay_not_enabled",
        _SETUP,
        _FINAL,
        "browser.transport is relay but browser.relay is not opted into",
    )
    RESPONSE_TIMEOUT = "response_timeout", _FAILED, _RETRY, "the answer did not complete in time"
    RUNTIME_PROFILES_DIR_UNWRITABLE = (
        "runtime_profiles_dir_unwritable",
        _SETUP,
        _FINAL,
        "the runtime profiles directory is not writable",
    )
    SCHEDULE_CRON_INVALID = (
        "schedule_cron_invalid",
        _INPUT,
        _FINAL,
        "a schedule's cron expression does not parse",
    )
    SCHEDULE_NOT_FOUND = "schedule_not_found", _MISSING, _FINAL, "no schedule has that id"
    SCHEDULE_PAYLOAD_INVALID = (
        "schedule_payload_invalid",
        _INPUT,
        _FINAL,
        "a schedule's payload (executable, args, cwd) is malformed or out of bounds",
    )
    SCHEDULE_TIME_PAST = "schedule_time_past", _INPUT, _FINAL, "a schedule's `at` is in the past"
    SCHEDULE_TIMEZONE_UNKNOWN = (
        "schedule_timezone_unknown",
        _INPUT,
        _FINAL,
        "a schedule's `tz` is not a known IANA time zone",
    )
    SCHEDULE_TIMING_INVALID = (
        "schedule_timing_invalid",
        _INPUT,
        _FINAL,
        "a schedule's timing has unknown keys, a bad duration or a forbidden combination",
    )
    SELFCHECK_FAILED = "selfcheck_failed", _FAILED, _FINAL, "a self-check step failed"
    SEND_NOT_ACCEPTED = (
        "send_not_accepted",
        _FAILED,
        _FINAL,
        "the site did not accept the message after Send (it may have been sent)",
    )
    SEND_NOT_FOUND = (
        "send_not_found",
        _FAILED,
        _FINAL,
        "the Send button disappeared before it was clicked",
    )
    SEND_NOT_READY = (
        "send_not_ready",
        _FAILED,
        _RETRY,
        "Send never became enabled; nothing was sent",
    )
    SIMULATOR_HOST_NOT_LOOPBACK = (
        "simulator_host_not_loopback",
        _FAILED,
        _FINAL,
        "the simulator binds to loopback only",
    )
    SIMULATOR_PORT_IN_USE = (
        "simulator_port_in_use",
        _FAILED,
        _FINAL,
        "the simulator's port is taken",
    )
    SIMULATOR_START_FAILED = (
        "simulator_start_failed",
        _FAILED,
        _FINAL,
        "the simulator did not start",
    )
    SUBAGENT_BUSY = (
        "subagent_busy",
        _BUSY,
        _RETRY,
        "the subagent's conversation has an active turn (steer or interrupt it, or wait)",
    )
    SUBAGENT_FAILED = (
        "subagent_failed",
        _FAILED,
        _RETRY,
        "the subagent's turn failed (model error, child exit or protocol failure)",
    )
    SUBAGENT_IDLE = (
        "subagent_idle",
        _INPUT,
        _FINAL,
        "the subagent has no active turn to steer or interrupt",
    )
    SUBAGENT_INTERRUPTED = (
        "subagent_interrupted",
        _FAILED,
        _FINAL,
        "the subagent's turn was interrupted",
    )
    SUBAGENT_NOT_FOUND = (
        "subagent_not_found",
        _MISSING,
        _FINAL,
        "this session has no subagent with that id",
    )
    SUBAGENT_UNAVAILABLE = (
        "subagent_unavailable",
        _SETUP,
        _FINAL,
        "the subagent's agent CLI is not on PATH or its child did not start",
    )
    TASK_CANCELLED = (
        "task_cancelled",
        _FAILED,
        _FINAL,
        "a background task was cancelled (its session ended or it was stopped)",
    )
    TEST_PROVIDER_FAILED = (
        "test_provider_failed",
        _FAILED,
        _FINAL,
        "the dry-run provider was asked to fail",
    )
    UPLOAD_CONTROL_NOT_FOUND = (
        "upload_control_not_found",
        _FAILED,
        _RETRY,
        "the page showed no file input and no upload entry in its attach menu",
    )
    UPLOAD_FAILED = "upload_failed", _FAILED, _RETRY, "the site reported an upload error"
    UPLOAD_NOT_CONFIRMED = (
        "upload_not_confirmed",
        _FAILED,
        _RETRY,
        "the upload was not confirmed in time",
    )
    WAIT_TIMEOUT = (
        "wait_timeout",
        _BUSY,
        _RETRY,
        "the job is still running when the wait ran out",
    )
    WORKER_CRASHED = "worker_crashed", _FAILED, _FINAL, "the job's worker crashed"
    WORKER_LOST = (
        "worker_lost",
        _FAILED,
        _FINAL,
        "job error: the job's worker disappeared",
    )


# By value (a lookup, not ``ErrorCode(code)``: the members' __new__ takes four arguments).
_BY_VALUE: dict[str, ErrorCode] = {code.value: code for code in ErrorCode}


def error_code(code: str | ErrorCode) -> ErrorCode:
    """``code`` as a member; anything else is a programming error, refused loudly."""
    member = _BY_VALUE.get(code)
    if member is None:
        raise ValueError(
            f"Unknown error code {code!r}: add it to ErrorCode in oraculum/core/errors.py."
        )
    return member


# docs/agents.md holds the generated table between these markers (scripts/error_codes.py).
TABLE_START = "<!-- error-codes:start -->"
TABLE_END = "<!-- error-codes:end -->"


def error_code_table() -> str:
    """The Markdown table of every code: exit code, default retryable flag, meaning."""
    rows = ["| code | exit | retryable | meaning |", "| --- | --- | --- | --- |"]
    rows += [
        f"| `{c.value}` | {int(c.exit_code)} | {'yes' if c.retryable else 'no'} | {c.meaning} |"
        for c in ErrorCode
    ]
    return "\n".join(rows) + "\n"


def with_error_code_table(doc: str) -> str:
    """``doc`` with the text between the markers replaced by :func:`error_code_table`."""
    head, start, rest = doc.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise ValueError(f"The document has no {TABLE_START} … {TABLE_END} section.")
    return f"{head}{start}\n{error_code_table()}{end}{tail}"


class OracleError(Exception):
    """A refusal or failure with a stable code.

    ``details`` holds structured extras specific to one code (for example the size summary of
    ``archive_too_large``); it is carried into the JSON shape unchanged.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        rejected_value: Any = None,
        allowed_values: list[Any] | None = None,
        suggested_next_step: str | None = None,
        retryable: bool | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = error_code(code)
        self.message = message
        self.rejected_value = rejected_value
        self.allowed_values = allowed_values
        self.suggested_next_step = suggested_next_step
        # None: the code's own default; a raise site that knows better says so.
        self.retryable = self.code.retryable if retryable is None else retryable
        self.details = details or {}

    @property
    def exit_code(self) -> ExitCode:
        return self.code.exit_code

    def to_dict(self) -> dict[str, Any]:
        """The one JSON shape of an error: ``{"error": {...}}`` holds this dict."""
        out: dict[str, Any] = {"code": self.code.value, "message": self.message}
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
        return f"OracleError({self.code.value!r}, {self.message!r})"


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
        error_code(f"{operation}_failed"),
        f"{operation} failed: {exc}",
        suggested_next_step="Check the message above; run `oraculum preflight` to check the setup.",
    )
