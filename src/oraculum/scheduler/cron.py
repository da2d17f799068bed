"""Standard five-field cron, in the one form handed to ``cronsim``.

The weekday field is rewritten as explicit day names (Sunday = 0 or 7), so what a field such as
``1/3`` or ``5-7`` selects is decided here, once, and not by a library's reading of the less
common forms (cronsim reads ``1/3`` as Monday, Thursday and Sunday). An expression that
restricts both the day of month and the weekday is refused: cron fires when *either* matches,
which surprises people as often as not, so such a schedule is submitted as two.
"""

from __future__ import annotations

from datetime import datetime

from cronsim import CronSim, CronSimError

__all__ = ["DAY_NAMES", "check_cron", "normal_form", "weekdays"]

DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")  # standard numbering, 0..6


def _day(token: str) -> int:
    lowered = token.lower()
    if lowered in DAY_NAMES:
        return DAY_NAMES.index(lowered)
    if not lowered.isdigit() or int(lowered) > 7:
        raise ValueError(f"bad weekday {token!r} (0-7 or sun-sat)")
    return int(lowered) % 7  # 7 is Sunday too


def _part(part: str) -> set[int]:
    base, _, step_text = part.partition("/")
    step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else None
    if step_text and step is None:
        raise ValueError(f"bad weekday step in {part!r}")
    if base == "*":
        first, last = 0, 6
    elif "-" in base:
        start, _, end = base.partition("-")
        first, last = _day(start), _day(end)
        if end == "7":
            last = 7  # 5-7 is Friday to Sunday
    else:
        first = _day(base)
        last = 6 if step else first  # "a/n" means from a to the end by n
    if first > last:
        raise ValueError(f"weekday range {base!r} runs backwards")
    return {day % 7 for day in range(first, last + 1, step or 1)}


def weekdays(field: str) -> set[int]:
    """The standard weekday numbers (Sunday = 0) a cron weekday field selects."""
    days: set[int] = set()
    for part in field.split(","):
        days |= _part(part)
    return days


def normal_form(expression: str) -> str:
    """The same schedule with ``?`` as ``*`` and named weekdays; ValueError if it is refused."""
    fields = ["*" if field == "?" else field for field in expression.split()]
    if len(fields) != 5:
        raise ValueError(f"expected 5 fields (minute hour day month weekday), got {len(fields)}")
    day_of_month, weekday = fields[2], fields[4]
    if weekday == "*":
        return " ".join(fields)
    if day_of_month != "*":
        raise ValueError(
            "both day of month and weekday are restricted (cron fires on either): submit one "
            "schedule for each"
        )
    names = ",".join(DAY_NAMES[d] for d in sorted(weekdays(weekday)))
    return " ".join([*fields[:4], names])


def check_cron(expression: str) -> str:
    """The expression's :func:`normal_form`, parsed by cronsim; ValueError when either refuses."""
    normal = normal_form(expression)
    try:
        CronSim(normal, datetime(2000, 1, 1))
    except CronSimError as exc:
        raise ValueError(str(exc).lower()) from exc
    return normal
