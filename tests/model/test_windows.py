"""Contract of briefing windows (tasks.model.windows).

The window of the briefing for local date D is (previous scheduled cutoff, D's cutoff] of the
topic's five-field cron schedule, read in the topic's timezone and stored as UTC:
- daily 22:20 Asia/Shanghai gives (D-1 22:20 +08:00, D 22:20 +08:00]; the start is excluded and
  the end included;
- a schedule that skips Sundays gives a 48-hour Monday window;
- `since` overrides the start, and a naive `since` is read in the topic's timezone;
- a date the schedule does not fire on, and an invalid cron, raise ScheduleError; asked for by
  date (`off_schedule`), such a day has the schedule's time of day and starts at its last firing;
- a DST change inside the window changes its length (25 hours when clocks fall back);
- a run given no date briefs the latest closed window: the last date whose cutoff has passed at
  that moment, in the topic's timezone (checked on generated moments and schedules).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasks.model.windows import (
    ScheduleError,
    Window,
    cutoff_on,
    latest_closed_date,
    local_midnight,
    window_for,
)

SHANGHAI = "Asia/Shanghai"
DAILY = "20 22 * * *"
SKIP_SUNDAYS = "20 22 * * 1-6"
UTC = dt.UTC
CST = dt.timezone(dt.timedelta(hours=8))


def test_daily_window_is_previous_evening_to_this_evening_in_shanghai() -> None:
    window = window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI)

    assert window.date == dt.date(2026, 10, 7)
    assert window.timezone == SHANGHAI
    assert window.start_local.isoformat() == "2026-10-06T22:20:00+08:00"
    assert window.cutoff_local.isoformat() == "2026-10-07T22:20:00+08:00"
    # Stored in UTC.
    assert window.start == dt.datetime(2026, 10, 6, 14, 20, tzinfo=UTC)
    assert window.end == dt.datetime(2026, 10, 7, 14, 20, tzinfo=UTC)
    assert window.start.utcoffset() == dt.timedelta(0)
    assert window.end - window.start == dt.timedelta(hours=24)


def test_start_is_excluded_and_end_is_included() -> None:
    window = window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI)
    start = dt.datetime(2026, 10, 6, 22, 20, tzinfo=CST)
    end = dt.datetime(2026, 10, 7, 22, 20, tzinfo=CST)
    second = dt.timedelta(seconds=1)

    assert not window.contains(start)
    assert window.contains(start + second)
    assert window.contains(end)
    assert not window.contains(end + second)
    # The same instants expressed in another offset are judged the same way.
    assert window.contains(end.astimezone(UTC))
    assert not window.contains(start.astimezone(ZoneInfo("America/New_York")))


def test_consecutive_daily_windows_tile_time_without_gap_or_overlap() -> None:
    first = window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI)
    second = window_for(dt.date(2026, 10, 8), DAILY, SHANGHAI)

    assert first.end == second.start
    boundary = first.end
    assert first.contains(boundary) and not second.contains(boundary)


def test_schedule_that_skips_sundays_gives_a_48_hour_monday_window() -> None:
    monday = dt.date(2026, 10, 12)
    assert monday.isoweekday() == 1
    window = window_for(monday, SKIP_SUNDAYS, SHANGHAI)

    assert window.start_local.isoformat() == "2026-10-10T22:20:00+08:00"  # Saturday's cutoff
    assert window.cutoff_local.isoformat() == "2026-10-12T22:20:00+08:00"
    assert window.end - window.start == dt.timedelta(hours=48)
    # A Sunday afternoon note belongs to Monday's briefing.
    assert window.contains(dt.datetime(2026, 10, 11, 15, 0, tzinfo=CST))

    tuesday = window_for(dt.date(2026, 10, 13), SKIP_SUNDAYS, SHANGHAI)
    assert tuesday.end - tuesday.start == dt.timedelta(hours=24)
    assert tuesday.start == window.end


def test_date_the_schedule_does_not_fire_on_raises() -> None:
    sunday = dt.date(2026, 10, 11)
    assert sunday.isoweekday() == 7
    with pytest.raises(ScheduleError, match="2026-10-11"):
        window_for(sunday, SKIP_SUNDAYS, SHANGHAI)


def test_a_skipped_day_asked_for_by_date_has_the_schedules_time_and_starts_at_its_last_firing() -> None:
    sunday = dt.date(2026, 10, 11)
    window = window_for(sunday, SKIP_SUNDAYS, SHANGHAI, off_schedule=True)

    assert window.start_local.isoformat() == "2026-10-10T22:20:00+08:00"  # Saturday's cutoff
    assert window.cutoff_local.isoformat() == "2026-10-11T22:20:00+08:00"
    # A scheduled day is the same window either way.
    monday = dt.date(2026, 10, 12)
    assert window_for(monday, SKIP_SUNDAYS, SHANGHAI, off_schedule=True) == window_for(monday, SKIP_SUNDAYS, SHANGHAI)
    with pytest.raises(ScheduleError):
        window_for(sunday, "bogus", SHANGHAI, off_schedule=True)


@pytest.mark.parametrize("schedule", ["bogus", "20 22 * *", "61 22 * * *", "20 25 * * *", "", "20 22 * * 1-6 *"])
def test_invalid_cron_raises_schedule_error(schedule: str) -> None:
    with pytest.raises(ScheduleError):
        window_for(dt.date(2026, 10, 7), schedule, SHANGHAI)


def test_schedule_error_is_a_value_error() -> None:
    # Callers that validate input generically (CLI, settings) can catch ValueError.
    assert issubclass(ScheduleError, ValueError)


def test_aware_since_overrides_the_start() -> None:
    since = dt.datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
    window = window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI, since=since)

    assert window.start == since
    assert window.start_local.isoformat() == "2026-10-05T20:00:00+08:00"
    assert window.end == dt.datetime(2026, 10, 7, 14, 20, tzinfo=UTC)  # the cutoff is unchanged


def test_naive_since_is_read_in_the_topic_timezone() -> None:
    window = window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI, since=dt.datetime(2026, 10, 5, 12, 0))

    assert window.start_local.isoformat() == "2026-10-05T12:00:00+08:00"
    assert window.start == dt.datetime(2026, 10, 5, 4, 0, tzinfo=UTC)

    in_utc = window_for(dt.date(2026, 10, 7), DAILY, "UTC", since=dt.datetime(2026, 10, 5, 12, 0))
    assert in_utc.start == dt.datetime(2026, 10, 5, 12, 0, tzinfo=UTC)


def test_since_at_or_after_the_cutoff_raises() -> None:
    with pytest.raises(ScheduleError):
        window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI, since=dt.datetime(2026, 10, 7, 22, 20))
    with pytest.raises(ScheduleError):
        window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI, since=dt.datetime(2026, 10, 8, 0, 0))


def test_utc_topic() -> None:
    window = window_for(dt.date(2026, 10, 7), DAILY, "UTC")

    assert window.start == dt.datetime(2026, 10, 6, 22, 20, tzinfo=UTC)
    assert window.end == dt.datetime(2026, 10, 7, 22, 20, tzinfo=UTC)
    assert window.cutoff_local.utcoffset() == dt.timedelta(0)
    # Same wall-clock cutoff, 8 hours later in absolute time than Shanghai's.
    assert window.end - window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI).end == dt.timedelta(hours=8)


def test_dst_fall_back_gives_a_25_hour_window() -> None:
    # America/New_York leaves daylight time at 02:00 on Sunday 2026-11-01.
    window = window_for(dt.date(2026, 11, 1), "0 18 * * *", "America/New_York")

    assert window.start_local.isoformat() == "2026-10-31T18:00:00-04:00"
    assert window.cutoff_local.isoformat() == "2026-11-01T18:00:00-05:00"
    assert window.end - window.start == dt.timedelta(hours=25)

    after = window_for(dt.date(2026, 11, 2), "0 18 * * *", "America/New_York")
    assert after.end - after.start == dt.timedelta(hours=24)


def test_dst_spring_forward_gives_a_23_hour_window() -> None:
    # America/New_York enters daylight time at 02:00 on Sunday 2026-03-08.
    window = window_for(dt.date(2026, 3, 8), "0 18 * * *", "America/New_York")
    assert window.end - window.start == dt.timedelta(hours=23)


def test_window_is_frozen_and_named_after_its_local_date() -> None:
    window = window_for(dt.date(2026, 10, 7), DAILY, SHANGHAI)
    assert isinstance(window, Window)
    with pytest.raises(AttributeError):
        window.start = window.end  # type: ignore[misc]
    # The UTC date of a 22:20 +08:00 cutoff is the same day, but the window start's UTC date is D-1.
    assert window.start.date() == dt.date(2026, 10, 6)


def test_local_midnight_places_a_date_at_00_00_local_in_utc() -> None:
    assert local_midnight(dt.date(2026, 10, 7), SHANGHAI) == dt.datetime(2026, 10, 6, 16, 0, tzinfo=UTC)
    assert local_midnight(dt.date(2026, 10, 7), "UTC") == dt.datetime(2026, 10, 7, 0, 0, tzinfo=UTC)


# --- the date a run without one briefs ---------------------------------------------------------

SCHEDULES = (DAILY, SKIP_SUNDAYS, "0 9,22 * * *", "30 20 * * 0-4")


@given(st.sampled_from(SCHEDULES), st.sampled_from((SHANGHAI, "America/New_York", "UTC")),
       st.datetimes(min_value=dt.datetime(2026, 1, 1), max_value=dt.datetime(2027, 12, 31), timezones=st.just(UTC)))
def test_latest_closed_date_is_the_last_date_whose_cutoff_has_passed(schedule: str, timezone: str, now: dt.datetime) -> None:
    day = latest_closed_date(schedule, timezone, now)
    assert cutoff_on(day, schedule, timezone) <= now  # its window is closed
    later = day + dt.timedelta(days=1)
    while later <= now.astimezone(ZoneInfo(timezone)).date() + dt.timedelta(days=1):
        with contextlib.suppress(ScheduleError):  # raised for a date the schedule does not brief
            assert cutoff_on(later, schedule, timezone) > now  # every later briefing date is still open
        later += dt.timedelta(days=1)


def test_before_tonight_s_cutoff_a_run_briefs_last_evening() -> None:
    assert latest_closed_date(DAILY, SHANGHAI, dt.datetime(2026, 10, 9, 22, 19, tzinfo=CST)) == dt.date(2026, 10, 8)
    assert latest_closed_date(DAILY, SHANGHAI, dt.datetime(2026, 10, 9, 22, 20, tzinfo=CST)) == dt.date(2026, 10, 9)
