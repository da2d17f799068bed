"""Pure checks of a schedule's input: prompt, payload and timing, before anything is stored.

Every refusal is an :class:`OracleError` with a ``schedule_*`` code (or ``prompt_too_large``),
so a caller can branch on it and nothing half-valid ever reaches the store.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.processes.limits import runnable, shell_hint
from oraculum.scheduler.cron import check_cron

__all__ = [
    "MAX_ARGS",
    "MAX_ARGV_BYTES",
    "MAX_ARG_BYTES",
    "MAX_PROMPT_BYTES",
    "TIMING_KEYS",
    "Payload",
    "Submission",
    "Timing",
    "parse_duration",
    "validate_payload",
    "validate_prompt",
    "validate_submission",
    "validate_timing",
]

MAX_PROMPT_BYTES = 8_000
MAX_ARGS = 128
MAX_ARG_BYTES = 8_000
MAX_ARGV_BYTES = 64 * 1024
MAX_TIMING_VALUE_BYTES = 1_024
MAX_COUNT = 100_000
# A delay or period longer than ten years is a typo, and every occurrence of a schedule falls
# within a century: beyond these, date arithmetic overflows (year 9999) instead of refusing.
MAX_DURATION_S = 3_660 * 86_400
MAX_HORIZON = timedelta(days=36_600)
TIMING_KEYS = ("in", "at", "every", "count", "cron", "tz")
PAYLOAD_KEYS = ("executable", "args", "cwd")
_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_UNIT_S = (86_400, 3_600, 60, 1)


@dataclass(frozen=True)
class Payload:
    executable: str
    args: tuple[str, ...] = ()
    cwd: str | None = None  # absolute once validated


@dataclass(frozen=True)
class Timing:
    """One of four shapes: ``now``; ``once`` at ``start``; ``interval`` every ``every_s`` from
    ``start`` (``count`` times, or forever); ``cron`` in ``tz``."""

    kind: str
    start: datetime | None = None  # UTC
    every_s: int | None = None
    count: int | None = None
    cron: str | None = None
    tz: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["start"] = self.start.isoformat() if self.start else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Timing:
        start = datetime.fromisoformat(data["start"]) if data.get("start") else None
        return cls(**{**data, "start": start})


@dataclass(frozen=True)
class Submission:
    prompt: str
    payload: Payload | None
    timing: Timing
    raw_timing: dict[str, Any] = field(default_factory=dict)


def _timing_error(message: str, value: Any = None) -> OracleError:
    return OracleError(
        ErrorCode.SCHEDULE_TIMING_INVALID,
        message,
        rejected_value=value,
        allowed_values=list(TIMING_KEYS),
        suggested_next_step="Use {in}, {at}, {every, count?, in|at?} or {cron, tz?}; durations "
        "look like 30s, 15m, 1h30m, 2d.",
    )


def _payload_error(message: str, value: Any = None) -> OracleError:
    return OracleError(ErrorCode.SCHEDULE_PAYLOAD_INVALID, message, rejected_value=value)


def _out_of_range(message: str, value: Any) -> OracleError:
    return OracleError(
        ErrorCode.INVALID_ARGUMENT,
        message,
        rejected_value=value,
        suggested_next_step="Durations go up to 3660d (ten years); every occurrence must fall "
        "within 36600 days (a century) from now.",
        details={"maxDurationSeconds": MAX_DURATION_S, "horizonDays": MAX_HORIZON.days},
    )


def parse_duration(value: Any, *, key: str) -> int:
    """``"1h30m"`` → 5400 seconds. Days, hours, minutes and seconds, each at most once; at
    most :data:`MAX_DURATION_S` in all."""
    match = _DURATION.fullmatch(value) if isinstance(value, str) and value else None
    if match is None:
        raise _timing_error(f"`{key}` must be a duration such as 30s, 15m or 1h30m.", value)
    seconds = sum(
        int(part) * unit for part, unit in zip(match.groups(), _UNIT_S, strict=True) if part
    )
    if seconds > MAX_DURATION_S:
        raise _out_of_range(f"`{key}` {value} is longer than ten years (3660d).", value)
    return seconds


def _within_horizon(offset_s: float, key: str, value: Any) -> None:
    """Refuse an occurrence ``offset_s`` seconds from now beyond the horizon (counted in
    seconds: the date itself may not exist)."""
    if offset_s > MAX_HORIZON.total_seconds():
        raise _out_of_range(
            f"`{key}` {value} puts an occurrence more than a century (36600 days) away.", value
        )


def validate_prompt(prompt: Any) -> str:
    if not isinstance(prompt, str) or not prompt.strip():
        raise OracleError(ErrorCode.INVALID_ARGUMENT, "reentryPrompt must be a non-empty string.")
    size = len(prompt.encode("utf-8", "surrogatepass"))
    if size > MAX_PROMPT_BYTES:
        raise OracleError(
            ErrorCode.PROMPT_TOO_LARGE,
            f"reentryPrompt is {size} UTF-8 bytes; the limit is {MAX_PROMPT_BYTES}.",
            rejected_value=size,
            suggested_next_step="Shorten the prompt; point at a file for the details.",
        )
    return prompt


def _check_text(value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str) or "\x00" in value:
        raise _payload_error(f"{what} must be a string without NUL bytes.")
    if len(value.encode("utf-8", "surrogatepass")) > limit:
        raise _payload_error(f"{what} is longer than {limit} UTF-8 bytes.")
    return value


def _check_args(args: Any) -> tuple[str, ...]:
    if args is None:
        return ()
    if not isinstance(args, list | tuple):
        raise _payload_error("payload.args must be a list of strings (literal argv, no shell).")
    if len(args) > MAX_ARGS:
        raise _payload_error(f"payload.args has {len(args)} items; the limit is {MAX_ARGS}.")
    checked = tuple(_check_text(a, f"payload.args[{i}]", MAX_ARG_BYTES) for i, a in enumerate(args))
    if sum(len(a.encode("utf-8", "surrogatepass")) for a in checked) > MAX_ARGV_BYTES:
        raise _payload_error(f"payload.args total more than {MAX_ARGV_BYTES} bytes.")
    return checked


def _check_cwd(cwd: Any, base: Path) -> str | None:
    if cwd is None:
        return None
    text = _check_text(cwd, "payload.cwd", 4096)
    resolved = (base / text).resolve() if not Path(text).is_absolute() else Path(text).resolve()
    if not resolved.is_dir():
        raise _payload_error(f"payload.cwd {resolved} is not a directory.", cwd)
    return str(resolved)


def validate_payload(payload: Any, *, base: Path) -> Payload | None:
    """A literal argv: ``executable`` (absolute, a bare name found on PATH at run time, or a
    relative path that needs ``cwd``), ``args`` and ``cwd`` (relative to ``base``)."""
    if payload is None:
        return None
    if not isinstance(payload, dict):
        raise _payload_error("payload must be an object {executable, args?, cwd?}.")
    unknown = sorted(set(payload) - set(PAYLOAD_KEYS))
    if unknown:
        raise OracleError(
            ErrorCode.SCHEDULE_PAYLOAD_INVALID,
            f"Unknown payload keys: {', '.join(unknown)} (no shell strings or environment).",
            rejected_value=unknown,
            allowed_values=list(PAYLOAD_KEYS),
        )
    executable = _check_text(payload.get("executable"), "payload.executable", 4096)
    if not executable.strip():
        raise _payload_error("payload.executable must not be empty.")
    cwd = _check_cwd(payload.get("cwd"), base)
    if "/" in executable and not executable.startswith("/") and cwd is None:
        raise _payload_error(
            f"The relative executable {executable!r} needs payload.cwd to say where it is.",
            executable,
        )
    if not runnable(executable, str(cwd) if cwd is not None else None):
        error = _payload_error(
            f"The payload's executable {executable!r} does not exist: no executable file there "
            + ("" if "/" in executable else "and no such program on PATH ")
            + "(nothing was scheduled).",
            executable,
        )
        error.suggested_next_step = shell_hint(executable) or "Check the program's path."
        raise error
    return Payload(executable=executable, args=_check_args(payload.get("args")), cwd=cwd)


def _zone(name: Any) -> ZoneInfo:
    if not isinstance(name, str) or not name or len(name) > 255:
        raise OracleError(
            ErrorCode.SCHEDULE_TIMEZONE_UNKNOWN,
            "tz must be an IANA zone name.",
            rejected_value=name,
        )
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise OracleError(
            ErrorCode.SCHEDULE_TIMEZONE_UNKNOWN,
            f"Unknown time zone {name!r}.",
            rejected_value=name,
            suggested_next_step="Use an IANA name such as Europe/Berlin or America/Sao_Paulo.",
        ) from exc


def _parse_at(value: Any, tz: str | None, now: datetime) -> datetime:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None:
        raise _timing_error("`at` must be an ISO 8601 time such as 2026-12-01T09:00:00Z.", value)
    if moment.tzinfo is None:
        if tz is None:
            raise _timing_error("`at` without an offset needs `tz` (or add one: ...Z).", value)
        moment = moment.replace(tzinfo=_zone(tz))
    moment = moment.astimezone(UTC)
    if moment <= now:
        raise OracleError(
            ErrorCode.SCHEDULE_TIME_PAST,
            f"`at` {moment.isoformat()} is not in the future (now {now.isoformat()}).",
            rejected_value=value,
        )
    return moment


def _check_cron(expression: Any) -> str:
    if not isinstance(expression, str):
        raise OracleError(
            ErrorCode.SCHEDULE_CRON_INVALID, "cron must be a string.", rejected_value=expression
        )
    try:
        check_cron(expression)
    except ValueError as exc:
        raise OracleError(
            ErrorCode.SCHEDULE_CRON_INVALID,
            f"Bad cron expression {expression!r}: {exc}.",
            rejected_value=expression,
            suggested_next_step="Five fields: minute hour day month weekday, e.g. 0 9 * * 1-5.",
        ) from exc
    return expression


def _check_keys(timing: dict[str, Any]) -> None:
    unknown = sorted(set(timing) - set(TIMING_KEYS))
    if unknown:
        raise _timing_error(f"Unknown timing keys: {', '.join(unknown)}.", unknown)
    for key, value in timing.items():
        size = len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0
        if size > MAX_TIMING_VALUE_BYTES:
            raise _timing_error(f"timing.{key} is longer than {MAX_TIMING_VALUE_BYTES} bytes.")
    present = set(timing)
    if "count" in present and "every" not in present:
        raise _timing_error("`count` needs `every`.", timing["count"])
    if "cron" in present and present & {"in", "at", "every", "count"}:
        raise _timing_error("`cron` cannot be combined with in, at, every or count.")
    if {"in", "at"} <= present:
        raise _timing_error("Give either `in` or `at`, not both.")
    if "tz" in present and not present & {"cron", "at"}:
        raise _timing_error("`tz` applies to `cron` or `at` only.", timing["tz"])


def _check_count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COUNT:
        raise _timing_error(f"`count` must be an integer from 1 to {MAX_COUNT}.", value)
    return value


def validate_timing(timing: Any, *, now: datetime) -> Timing:
    """The timing object → one :class:`Timing`; ``None`` or ``{}`` means run now."""
    if timing is None or timing == {}:
        return Timing(kind="now")
    if not isinstance(timing, dict):
        raise _timing_error("timing must be an object.", None)
    _check_keys(timing)
    tz = timing.get("tz")
    if tz is not None:
        _zone(tz)
    if "cron" in timing:
        return Timing(kind="cron", cron=_check_cron(timing["cron"]), tz=tz or "UTC")
    start = None
    if "in" in timing:
        start = now + timedelta(seconds=parse_duration(timing["in"], key="in"))
    elif "at" in timing:
        start = _parse_at(timing["at"], tz, now)
        _within_horizon((start - now).total_seconds(), "at", timing["at"])
    if "every" not in timing:
        return Timing(kind="once", start=start)
    every_s = parse_duration(timing["every"], key="every")
    if every_s < 1:
        raise _timing_error("`every` must be at least 1s.", timing["every"])
    count = _check_count(timing["count"]) if "count" in timing else None
    # Without in/at the first occurrence comes one period from now, as with a plain interval.
    first = start or now + timedelta(seconds=every_s)
    if count is not None:
        last_s = (first - now).total_seconds() + every_s * (count - 1)
        _within_horizon(last_s, "every", f"{timing['every']} × count {count}")
    return Timing(kind="interval", start=first, every_s=every_s, count=count)


def validate_submission(
    prompt: Any, payload: Any, timing: Any, *, base: Path, now: datetime
) -> Submission:
    """All three checks, in the order a caller fixes them: prompt, timing, payload."""
    checked_prompt = validate_prompt(prompt)
    checked_timing = validate_timing(timing, now=now)
    checked_payload = validate_payload(payload, base=base)
    raw = dict(timing) if isinstance(timing, dict) else {}
    return Submission(checked_prompt, checked_payload, checked_timing, raw)
