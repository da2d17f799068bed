"""Fire times: cron in an IANA zone across DST changes, standard weekday numbering, intervals."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

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
    from datetime import timedelta

    from oraculum.scheduler.runner import decide

    now = utc("2026-12-01T12:00:10")
    times = [now - timedelta(seconds=s) for s in (9, 5, 2)]
    assert decide(times, now, 60) == [(times[0], 9.0), (times[1], 5.0), (times[2], None)]
    assert decide(times, now, 1) == [(times[0], 9.0), (times[1], 5.0), (times[2], 2.0)]
    assert decide([now], now, 1) == [(now, None)]
