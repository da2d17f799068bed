"""Fire times of a validated :class:`Timing`: pure arithmetic, cron by ``cronsim``.

Cron follows the wall clock of its zone. ``cronsim`` walks the wall clock (naive times, no
zone) and each wall time becomes an instant the way :mod:`zoneinfo` reads it with ``fold=0``:

- a time the zone skips (the hour the clocks go forward) takes the offset from before the gap,
  so ``02:30`` in Berlin that night fires at 03:30 CEST, the same instant 02:30 CET would be;
- a time the zone repeats (the hour they go back) takes its first pass only.

Instants only ever move forward: a wall time that lands on or before the previous fire time
(the hour after a gap, whose times the gap's shifted ones already covered) does not fire again,
so an hourly schedule fires once in that hour too.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import islice
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError

from oraculum.scheduler.cron import normal_form
from oraculum.scheduler.validation import Timing

__all__ = ["cron_times", "fire_iter", "fire_times"]

# A clock that went forward within this long before ``after`` leaves wall times earlier than
# ``after``'s own that are instants after it (the gap's shifted times): the walk starts that
# much earlier. No zone changes its clock twice in a day.
_LOOKBACK = timedelta(days=1)


def _wall_start(after: datetime, zone: ZoneInfo) -> datetime:
    """The wall time to walk from: ``after``'s own, less any forward jump in the last day."""
    local = after.astimezone(zone)
    earlier = (after - _LOOKBACK).astimezone(zone)
    jump = (local.utcoffset() or timedelta()) - (earlier.utcoffset() or timedelta())
    return local.replace(tzinfo=None) - max(jump, timedelta())


def cron_times(expression: str, zone: ZoneInfo, *, after: datetime) -> Iterator[datetime]:
    """The fire times (UTC) of ``expression`` in ``zone`` strictly after ``after``, in order."""
    latest = after.astimezone(UTC)
    try:
        for wall in CronSim(normal_form(expression), _wall_start(after, zone)):
            moment = wall.replace(tzinfo=zone).astimezone(UTC)  # fold=0: see the module doc
            if moment > latest:
                latest = moment
                yield moment
    except CronSimError:  # nothing matches within cronsim's fifty-year search
        return


def _interval_times(timing: Timing, after: datetime) -> Iterator[datetime]:
    assert timing.start is not None and timing.every_s is not None
    every = timedelta(seconds=timing.every_s)
    index = 0
    if after >= timing.start:
        index = int((after - timing.start) // every) + 1
    while timing.count is None or index < timing.count:
        yield timing.start + every * index
        index += 1


def fire_iter(timing: Timing, *, after: datetime) -> Iterator[datetime]:
    """The fire times strictly after ``after``, in order, worked out one at a time."""
    if timing.kind == "cron":
        assert timing.cron is not None
        return cron_times(timing.cron, ZoneInfo(timing.tz or "UTC"), after=after)
    if timing.kind == "interval":
        return _interval_times(timing, after)
    assert timing.start is not None  # now, once
    return iter([timing.start] if timing.start > after else [])


def fire_times(timing: Timing, *, after: datetime, limit: int) -> list[datetime]:
    """The next ``limit`` fire times strictly after ``after`` (fewer when the timing ends)."""
    return list(islice(fire_iter(timing, after=after), limit))
