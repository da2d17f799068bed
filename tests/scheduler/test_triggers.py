"""Fire times: cron in an IANA zone across DST changes, standard weekday numbering, intervals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oraculum.scheduler.cron import normal_form, weekdays
from oraculum.scheduler.triggers import fire_times
from oraculum.scheduler.validation import validate_timing

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# (cron, tz, after (UTC), the next fire times in UTC)
DST_TABLE = [
    # Berlin springs forward on 2026-03-29: 09:00 local is 08:00 UTC before, 07:00 UTC after.
    (
        "0 9 * * *",
        "Europe/Berlin",
        "2026-03-27T00:00",
        ["2026-03-27T08:00", "2026-03-28T08:00", "2026-03-29T07:00", "2026-03-30T07:00"],
    ),
    # 02:30 does not exist that night: it runs at the first instant after the gap (03:30 CEST).
    (
        "30 2 * * *",
        "Europe/Berlin",
        "2026-03-28T00:00",
        ["2026-03-28T01:30", "2026-03-29T01:30", "2026-03-30T00:30"],
    ),
    # Berlin falls back on 2026-10-25: 02:30 happens twice and runs once (the first).
    (
        "30 2 * * *",
        "Europe/Berlin",
        "2026-10-24T00:00",
        ["2026-10-24T00:30", "2026-10-25T00:30", "2026-10-26T01:30"],
    ),
    # New York falls back on 2026-11-01: noon is 16:00 UTC before, 17:00 UTC after.
    (
        "0 12 * * *",
        "America/New_York",
        "2026-10-31T00:00",
        ["2026-10-31T16:00", "2026-11-01T17:00", "2026-11-02T17:00"],
    ),
    # Weekdays in standard numbering (1-5 = Monday to Friday); Dec 5-6 2026 is a weekend.
    (
        "0 9 * * 1-5",
        "America/Sao_Paulo",
        "2026-12-04T00:00",
        ["2026-12-04T12:00", "2026-12-07T12:00", "2026-12-08T12:00"],
    ),
    # 0 and 7 are both Sunday.
    ("0 0 * * 0", "UTC", "2026-12-01T00:00", ["2026-12-06T00:00", "2026-12-13T00:00"]),
    ("0 0 * * 7", "UTC", "2026-12-01T00:00", ["2026-12-06T00:00", "2026-12-13T00:00"]),
]


@pytest.mark.parametrize(("cron", "tz", "after", "expected"), DST_TABLE)
def test_cron_fire_times_across_dst(cron: str, tz: str, after: str, expected: list[str]) -> None:
    timing = validate_timing({"cron": cron, "tz": tz}, now=NOW)
    times = fire_times(timing, after=utc(after), limit=len(expected))
    assert [t.astimezone(UTC) for t in times] == [utc(e) for e in expected]


# The same rule wherever a zone skips wall times: each skipped time fires, shifted forward by
# the gap (APScheduler 3 dropped some of them: these are the cases where it did).
GAP_TABLE = [
    # Lord Howe skips 02:00-02:30 on 2026-10-04: 02:00 fires at 02:30 (+11), 03:00 as usual.
    (
        "0 * * * *",
        "Australia/Lord_Howe",
        "2026-10-03T14:00",
        ["2026-10-03T14:30", "2026-10-03T15:30", "2026-10-03T16:00", "2026-10-03T17:00"],
    ),
    # Every skipped time of the hour, not only the first.
    (
        "*/20 2 * * *",
        "Europe/Berlin",
        "2026-03-28T12:00",
        ["2026-03-29T01:00", "2026-03-29T01:20", "2026-03-29T01:40", "2026-03-30T00:00"],
    ),
    # Counted from inside the shifted hour (the runner's cursor is its latest fire time).
    ("*/20 2 * * *", "Europe/Berlin", "2026-03-29T01:00", ["2026-03-29T01:20"]),
    ("*/20 2 * * *", "Europe/Berlin", "2026-03-29T01:10", ["2026-03-29T01:20"]),
    # Havana skips midnight on 2026-03-08: that Sunday's run comes at 01:00 CDT.
    ("0 0 * * 0", "America/Havana", "2026-03-07T00:00", ["2026-03-08T05:00", "2026-03-15T04:00"]),
    # A month that starts in summer time is not skipped.
    ("0 0 1 * *", "Europe/Berlin", "2026-03-07T00:00", ["2026-03-31T22:00", "2026-04-30T22:00"]),
    # Falling back: 01:00 and 01:30 run once (the first pass), then 02:00 EST.
    (
        "*/30 1-2 * * *",
        "America/New_York",
        "2026-11-01T04:00",
        ["2026-11-01T05:00", "2026-11-01T05:30", "2026-11-01T07:00", "2026-11-01T07:30"],
    ),
]


@pytest.mark.parametrize(("cron", "tz", "after", "expected"), GAP_TABLE)
def test_every_skipped_wall_time_fires_once_shifted(
    cron: str, tz: str, after: str, expected: list[str]
) -> None:
    timing = validate_timing({"cron": cron, "tz": tz}, now=NOW)
    times = fire_times(timing, after=utc(after), limit=len(expected))
    assert [t.astimezone(UTC) for t in times] == [utc(e) for e in expected]


@pytest.mark.parametrize(
    ("field", "days"),
    [
        ("1-5", {1, 2, 3, 4, 5}),
        ("0", {0}),
        ("7", {0}),
        ("5-7", {5, 6, 0}),
        ("*/2", {0, 2, 4, 6}),
        ("1/3", {1, 4}),
        ("mon,wed,FRI", {1, 3, 5}),
        ("sat,0", {6, 0}),
    ],
)
def test_weekday_fields_use_standard_numbering(field: str, days: set[int]) -> None:
    assert weekdays(field) == days


def test_normal_form_names_the_weekdays_and_refuses_what_cron_would_surprise_with() -> None:
    assert normal_form("0 9 * * 1-5") == "0 9 * * mon,tue,wed,thu,fri"
    assert normal_form("*/5 * * * *") == "*/5 * * * *"
    assert normal_form("0 9 1 * ?") == "0 9 1 * *"
    for bad in ("0 9 1 * 1", "0 9 * * 8", "0 9 * * 5-1", "0 9 * *"):
        with pytest.raises(ValueError):
            normal_form(bad)


def test_interval_with_count_ends_after_count() -> None:
    timing = validate_timing({"in": "2s", "every": "1s", "count": 3}, now=NOW)
    times = fire_times(timing, after=NOW, limit=10)
    assert [(t - NOW).total_seconds() for t in times] == [2.0, 3.0, 4.0]
    once = validate_timing({"in": "2s"}, now=NOW)
    assert fire_times(once, after=NOW, limit=10) == [utc("2026-01-01T00:00:02")]


def test_late_fire_times_are_missed_and_only_the_last_may_run() -> None:
    from oraculum.scheduler.runner import decide

    now = utc("2026-12-01T12:00:10")
    times = [now - timedelta(seconds=s) for s in (9, 5, 2)]
    assert decide(times, now, 60) == [(times[0], 9.0), (times[1], 5.0), (times[2], None)]
    assert decide(times, now, 1) == [(times[0], 9.0), (times[1], 5.0), (times[2], 2.0)]
    assert decide([now], now, 1) == [(now, None)]


_DST_ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Havana"]
_EXPRESSIONS = ["30 2 * * *", "0 * * * *", "*/20 2 * * *", "*/7 * * * *", "0 0 * * 0"]
_TRANSITIONS = [utc(t) for t in ("2026-03-08T00:00", "2026-03-29T00:00", "2026-10-03T12:00")]


@settings(max_examples=150, deadline=None)
@given(
    cron=st.sampled_from(_EXPRESSIONS),
    tz=st.sampled_from(_DST_ZONES),
    start=st.sampled_from(_TRANSITIONS),
    offset_s=st.integers(-86_400, 2 * 86_400),
)
def test_fire_times_continue_the_same_from_any_point(
    cron: str, tz: str, start: datetime, offset_s: int
) -> None:
    """The runner counts from its latest occurrence: from there (or between two fire times)
    the sequence goes on as if counted from the start, strictly increasing."""
    timing = validate_timing({"cron": cron, "tz": tz}, now=NOW)
    after = start + timedelta(seconds=offset_s)
    times = fire_times(timing, after=after, limit=8)
    assert all(a < b for a, b in pairwise(times)) and times[0] > after
    for index, (current, following) in enumerate(pairwise(times)):
        for cursor in (current, current + (following - current) / 2):
            rest = fire_times(timing, after=cursor, limit=len(times) - index - 1)
            assert rest == times[index + 1 :]
