"""Job ids: path-safe, sortable by creation time, short enough to type.

An id is 13 characters of Crockford base32 (lower case): 9 encode the creation time in
milliseconds, 4 are random. Every entry point validates ids with :func:`validate_job_id` before
any path is built from them.

The head sorts ids by creation time (the queue is its index listed in name order), so it is the
same for every job of the same hours; the tail tells jobs apart. People name a job by its
:func:`short_id` (the last 6 characters) or by any unique prefix
or tail of 4 or more characters (:func:`names_job`); ids from before the short form existed have
the same layout and resolve the same way.
"""

from __future__ import annotations

import re
import secrets
import threading
import time

from oraculum.core.errors import ErrorCode, OracleError

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
TIME_CHARS = 9
RANDOM_CHARS = 4
JOB_ID_LENGTH = TIME_CHARS + RANDOM_CHARS
JOB_ID_PATTERN = re.compile(rf"^[{ALPHABET}]{{{JOB_ID_LENGTH}}}$")
# A prefix used to name a job on the command line.
JOB_PREFIX_PATTERN = re.compile(rf"^[{ALPHABET}]{{4,{JOB_ID_LENGTH}}}$")
JOB_DIR_PREFIX = "oracle-"
JOB_FILE = "job.json"  # in each job's directory; named here so the watchdog needs no store


def _encode(value: int, width: int) -> str:
    chars = []
    for _ in range(width):
        value, digit = divmod(value, 32)
        chars.append(ALPHABET[digit])
    return "".join(reversed(chars))


_RANDOM_SPACE = 32**RANDOM_CHARS
_last: tuple[int, int] = (0, 0)
_last_lock = threading.Lock()


def new_job_id(now_ms: int | None = None, *, after: str | None = None) -> str:
    """A fresh id. Within one process ids strictly increase, so two ids made in the same
    millisecond never collide; across processes the random part (and the store's exclusive
    directory creation) keeps them apart. ``after`` forces an id later than that one."""
    global _last
    moment = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    if after is not None:
        moment = max(moment, _decode(after[:TIME_CHARS]) + 1)
    with _last_lock:
        last_ms, last_random = _last
        if moment <= last_ms:
            moment, suffix = last_ms, last_random + 1
            if suffix >= _RANDOM_SPACE:
                moment, suffix = moment + 1, secrets.randbelow(_RANDOM_SPACE // 2)
        else:
            suffix = secrets.randbelow(_RANDOM_SPACE // 2)
        _last = (moment, suffix)
    return _encode(moment, TIME_CHARS) + _encode(suffix, RANDOM_CHARS)


def _decode(text: str) -> int:
    value = 0
    for char in text:
        value = value * 32 + ALPHABET.index(char)
    return value


def _describe(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value if len(value) <= 80 else value[:77] + "..."


def validate_job_id(value: object) -> str:
    """Return ``value`` when it is a well-formed full job id; refuse anything else."""
    if isinstance(value, str) and JOB_ID_PATTERN.fullmatch(value):
        return value
    raise OracleError(
        ErrorCode.INVALID_JOB_ID,
        "A job id is 13 lower-case letters and digits (as printed by `oraculum status`).",
        rejected_value=_describe(value),
        suggested_next_step="Run `oraculum status` to list job ids.",
    )


def given_job_ref(value: str | None) -> str | None:
    """The one rule for a job id a caller may omit: omitted (None) stays None, so each command
    keeps its documented default (newest job, the session's next, a usage error); anything given
    must be a job id or prefix, so a blank one is `invalid_job_id`, never "the default"."""
    return None if value is None else validate_job_ref(value)


def validate_job_ref(value: object) -> str:
    """A full id or a unique prefix of at least 4 characters (case-insensitive)."""
    if isinstance(value, str):
        lowered = value.strip().lower()
        if JOB_PREFIX_PATTERN.fullmatch(lowered):
            return lowered
    raise OracleError(
        ErrorCode.INVALID_JOB_ID,
        "A job id is 13 lower-case letters and digits; its last 6 (as `oraculum status` lists "
        "them) or any unique prefix or tail of 4 or more also work.",
        rejected_value=_describe(value),
        suggested_next_step="Run `oraculum status` to list job ids.",
    )


# The short form people type: the id's tail, which changes from one job to the next (the random
# part and the low milliseconds), where the head is the same for every job of the same hours.
SHORT_ID_CHARS = 6


def short_id(job_id: str) -> str:
    """The distinguishing tail of a job id, as listings show it (resolves like the full id)."""
    return job_id[-SHORT_ID_CHARS:]


def names_job(ref: str, job_id: str) -> bool:
    """Whether a validated reference names ``job_id``: as its prefix (the time-sorted head,
    as ids were always typed) or as its tail (the short form). A reference that names several
    jobs either way is ambiguous, never guessed."""
    return job_id.startswith(ref) or job_id.endswith(ref)


# Councils (issue 43) are named apart from jobs: `cl-` and a job-shaped id.
COUNCIL_PREFIX = "cl-"
COUNCIL_ID_PATTERN = re.compile(rf"^{COUNCIL_PREFIX}[{ALPHABET}]{{{JOB_ID_LENGTH}}}$")


def new_council_id() -> str:
    return COUNCIL_PREFIX + new_job_id()


def is_council_ref(value: object) -> bool:
    """Whether a reference a command was given names a council rather than a job."""
    return isinstance(value, str) and value.strip().lower().startswith(COUNCIL_PREFIX)


def validate_council_id(value: object) -> str:
    if isinstance(value, str) and COUNCIL_ID_PATTERN.fullmatch(value.strip().lower()):
        return value.strip().lower()
    raise OracleError(
        ErrorCode.INVALID_COUNCIL_ID,
        "A council id is `cl-` and 13 lower-case letters and digits (as `oraculum council` "
        "printed it).",
        rejected_value=_describe(value),
    )
