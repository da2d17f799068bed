"""A validated :class:`Timing` → APScheduler 3 trigger, and the fire times it gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from oraculum.scheduler.cron import to_apscheduler
from oraculum.scheduler.validation import Timing

if TYPE_CHECKING:
    from apscheduler.triggers.base import BaseTrigger

__all__ = [
    "WallClockCronTrigger",
    "build_trigger",
    "fire_times",
    "first_fire_time",
    "repeated_wall_time",
]

# An interval's end date sits half a period after its last occurrence, so clock jitter never
# drops the last one.
_END_SLACK = 0.5


def repeated_wall_time(moment: datetime) -> bool:
    """Whether ``moment`` (aware, in its zone) is the second pass of a wall-clock time that
    occurs twice (the hour a clock goes back)."""
    if not moment.fold:
        return False
    return moment.replace(fold=0).utcoffset() != moment.utcoffset()


class WallClockCronTrigger(CronTrigger):
    """A cron trigger that fires once for a wall-clock time the zone repeats (as cron does):
    ``30 2 * * *`` runs once on the night the clocks go back, not twice."""

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        nxt: datetime | None = super().get_next_fire_time(previous_fire_time, now)
        while nxt is not None and repeated_wall_time(nxt):
            nxt = super().get_next_fire_time(nxt, nxt)
        return nxt


def build_trigger(timing: Timing) -> BaseTrigger:
    from apscheduler.triggers.date import DateTrigger
    from apscheduler.triggers.interval import IntervalTrigger

    if timing.kind == "cron":
        assert timing.cron is not None
        expression = to_apscheduler(timing.cron)
        return WallClockCronTrigger.from_crontab(expression, timezone=ZoneInfo(timing.tz or "UTC"))
    if timing.kind in ("now", "once"):
        return DateTrigger(run_date=timing.start, timezone=UTC)
    assert timing.every_s is not None and timing.start is not None
    end = None
    if timing.count is not None:
        end = timing.start + timedelta(seconds=timing.every_s * (timing.count - 1 + _END_SLACK))
    return IntervalTrigger(
        seconds=timing.every_s, start_date=timing.start, end_date=end, timezone=UTC
    )


def first_fire_time(trigger: BaseTrigger, created: datetime) -> datetime | None:
    """The first fire time counted from the submission, however late the runner adds the job
    (APScheduler would count from the moment it is added and silently skip what passed)."""
    nxt: datetime | None = trigger.get_next_fire_time(None, created)
    return nxt


def fire_times(timing: Timing, *, after: datetime, limit: int) -> list[datetime]:
    """The next ``limit`` fire times strictly after ``after`` (fewer when the timing ends)."""
    trigger = build_trigger(timing)
    times: list[datetime] = []
    previous: datetime | None = None
    now = after
    while len(times) < limit:
        nxt = trigger.get_next_fire_time(previous, now)
        if nxt is None:
            break
        if nxt > after:
            times.append(nxt)
        previous = nxt
        now = nxt
    return times
