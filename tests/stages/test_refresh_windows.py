"""Contract of which closed briefings a stored time refreshes (tasks.model.windows.closed_dates_containing,
tasks.stages.refresh.briefings_to_refresh), with `now` given, never read from a clock:

- the dates returned for a moment are exactly those whose window (previous scheduled time, cutoff]
  of the topic's schedule contains it and whose cutoff is at or before `now` (checked against
  `window_for` over the nearby dates, on generated moments, nows, schedules and timezones);
- a window still open at `now` is not returned; its cutoff itself closes it;
- a schedule that skips Sundays puts a Sunday note into Monday's 48-hour window;
- per topic, each topic's own schedule and timezone decide, and several times in one window name it once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from tasks.config.topics import Topic
from tasks.model.windows import ScheduleError, closed_dates_containing, window_for
from tasks.stages.refresh import briefings_to_refresh

UTC = dt.UTC
CST = dt.timezone(dt.timedelta(hours=8))
SHANGHAI = "Asia/Shanghai"
DAILY = "20 22 * * *"
SKIP_SUNDAYS = "20 22 * * 1-6"
SCHEDULES = (DAILY, SKIP_SUNDAYS, "0 9,22 * * *", "30 20 * * 0-4", "0 0 * * *")
TIMEZONES = (SHANGHAI, "America/New_York", "Europe/London", "UTC")
MOMENTS = st.datetimes(min_value=dt.datetime(2026, 1, 1), max_value=dt.datetime(2027, 12, 31), timezones=st.just(UTC))


def _expected(moment: dt.datetime, schedule: str, timezone: str, now: dt.datetime) -> list[dt.date]:
    """Every date within a week of `moment` whose window contains it and is closed at `now`."""
    local_day = moment.astimezone(ZoneInfo(timezone)).date()
    found = []
    for offset in range(-7, 8):
        day = local_day + dt.timedelta(days=offset)
        with contextlib.suppress(ScheduleError):  # a date the schedule does not brief
            window = window_for(day, schedule, timezone)
            if window.contains(moment) and window.end <= now:
                found.append(day)
    return found


@given(st.sampled_from(SCHEDULES), st.sampled_from(TIMEZONES), MOMENTS,
       st.timedeltas(min_value=dt.timedelta(days=-3), max_value=dt.timedelta(days=5)))
def test_dates_are_exactly_the_closed_windows_containing_the_moment(
    schedule: str, timezone: str, moment: dt.datetime, later: dt.timedelta
) -> None:
    now = moment + later
    assert closed_dates_containing(moment, schedule, timezone, now) == _expected(moment, schedule, timezone, now)


@given(st.sampled_from(SCHEDULES), st.sampled_from(TIMEZONES), MOMENTS)
def test_a_window_closes_exactly_at_its_cutoff(schedule: str, timezone: str, moment: dt.datetime) -> None:
    far = closed_dates_containing(moment, schedule, timezone, moment + dt.timedelta(days=8))
    for day in far:  # at most one: the windows do not overlap
        cutoff = window_for(day, schedule, timezone).end
        assert closed_dates_containing(moment, schedule, timezone, cutoff) == [day]
        assert closed_dates_containing(moment, schedule, timezone, cutoff - dt.timedelta(microseconds=1)) == []
    assert len(far) <= 1


def test_a_late_note_refreshes_yesterday_and_tonight_s_note_waits() -> None:
    now = dt.datetime(2026, 10, 9, 9, 0, tzinfo=CST)
    assert closed_dates_containing(dt.datetime(2026, 10, 8, 15, 0, tzinfo=CST), DAILY, SHANGHAI, now) == [
        dt.date(2026, 10, 8)]
    assert closed_dates_containing(dt.datetime(2026, 10, 8, 22, 20, tzinfo=CST), DAILY, SHANGHAI, now) == [
        dt.date(2026, 10, 8)]  # the cutoff belongs to the window it ends
    assert closed_dates_containing(dt.datetime(2026, 10, 8, 22, 21, tzinfo=CST), DAILY, SHANGHAI, now) == []


def test_a_sunday_note_belongs_to_monday_s_48_hour_window() -> None:
    sunday_noon = dt.datetime(2026, 10, 11, 12, 0, tzinfo=CST)  # 2026-10-11 is a Sunday
    tuesday = dt.datetime(2026, 10, 13, 9, 0, tzinfo=CST)
    assert closed_dates_containing(sunday_noon, SKIP_SUNDAYS, SHANGHAI, tuesday) == [dt.date(2026, 10, 12)]
    assert closed_dates_containing(sunday_noon, DAILY, SHANGHAI, tuesday) == [dt.date(2026, 10, 11)]


def test_each_topic_uses_its_own_schedule_and_names_a_date_once() -> None:
    evening = Topic("evening", SHANGHAI, DAILY)
    weekdays = Topic("weekdays", SHANGHAI, SKIP_SUNDAYS)
    york = Topic("york", "America/New_York", "0 18 * * *")
    times = [dt.datetime(2026, 10, 11, h, 0, tzinfo=CST) for h in (6, 10)]  # Sunday morning, twice
    now = dt.datetime(2026, 10, 13, 9, 0, tzinfo=CST)

    pairs = briefings_to_refresh(times, [evening, weekdays, york], now)

    assert [(t.name, d) for t, d in pairs] == [
        ("evening", dt.date(2026, 10, 11)), ("weekdays", dt.date(2026, 10, 12)),
        # Sunday 06:00 in Shanghai is Saturday 18:00 in New York, that evening's cutoff; 10:00 is after it.
        ("york", dt.date(2026, 10, 10)), ("york", dt.date(2026, 10, 11))]
    assert briefings_to_refresh([], [evening], now) == []
