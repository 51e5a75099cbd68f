"""Briefing windows: (previous scheduled cutoff, this date's cutoff] in the topic's timezone."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError

UTC = dt.UTC


class ScheduleError(ValueError):
    """The topic's schedule is invalid or does not fire on the requested date."""


@dataclass(frozen=True)
class Window:
    """A half-open window (start, end] of aware datetimes, plus the local date it is named after."""

    date: dt.date
    start: dt.datetime
    end: dt.datetime
    timezone: str

    def contains(self, moment: dt.datetime) -> bool:
        return self.start < moment <= self.end

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def cutoff_local(self) -> dt.datetime:
        return self.end.astimezone(self.tz)

    @property
    def start_local(self) -> dt.datetime:
        return self.start.astimezone(self.tz)


def cutoff_on(day: dt.date, schedule: str, timezone: str, off_schedule: bool = False) -> dt.datetime:
    """The last scheduled time on `day` (local), as an aware datetime in the topic's timezone.

    `off_schedule`: a day the schedule does not fire on (a Sunday of a Monday-to-Saturday team)
    takes the time of day of the schedule's last firing before it, so a briefing asked for by hand
    still has an evening; without it such a day raises ScheduleError."""
    tz = ZoneInfo(timezone)
    day_end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(0, 0), tzinfo=tz)
    try:
        previous = next(iter(CronSim(schedule, day_end, reverse=True)))
    except (CronSimError, StopIteration) as exc:
        raise ScheduleError(f"invalid schedule {schedule!r}: {exc}") from exc
    if previous.date() != day:
        if not off_schedule:
            raise ScheduleError(f"schedule {schedule!r} has no briefing on {day.isoformat()}")
        return dt.datetime.combine(day, previous.time(), tzinfo=tz)
    return previous


def previous_cutoff(cutoff: dt.datetime, schedule: str) -> dt.datetime:
    """The scheduled time strictly before `cutoff`."""
    return next(iter(CronSim(schedule, cutoff, reverse=True)))


def window_for(
    day: dt.date, schedule: str, timezone: str, since: dt.datetime | None = None, off_schedule: bool = False
) -> Window:
    """The window of the briefing for `day`; `since` (aware) overrides the start; `off_schedule`
    as for `cutoff_on` (the window then starts at the schedule's last firing before that time)."""
    end = cutoff_on(day, schedule, timezone, off_schedule)
    start = since if since is not None else previous_cutoff(end, schedule)
    if start.tzinfo is None:
        start = start.replace(tzinfo=ZoneInfo(timezone))
    if start >= end:
        raise ScheduleError(f"window start {start.isoformat()} is not before cutoff {end.isoformat()}")
    return Window(day, start.astimezone(UTC), end.astimezone(UTC), timezone)


def local_midnight(day: dt.date, timezone: str) -> dt.datetime:
    """00:00 of `day` in `timezone`, as UTC; how a date without a time is placed in time."""
    return dt.datetime.combine(day, dt.time(0, 0), tzinfo=ZoneInfo(timezone)).astimezone(UTC)


def local_date(timezone: str, now: dt.datetime | None = None) -> dt.date:
    """The date it is in `timezone` at `now` (aware; default: the clock): what "today" means for a
    run given no date (a topic's timezone, or the settings' for runs not of one topic)."""
    return (now or dt.datetime.now(UTC)).astimezone(ZoneInfo(timezone)).date()


def latest_closed_date(schedule: str, timezone: str, now: dt.datetime) -> dt.date:
    """The date of the latest window whose cutoff has passed at `now` (aware): what a run that is
    given no date briefs, so a manual run before this evening's cutoff briefs last evening, not an
    open window. A date's cutoff is its last scheduled time, so a schedule firing twice a day
    names a date only once its second time has passed."""
    tz = ZoneInfo(timezone)
    local_now = now.astimezone(tz)
    try:
        fires = iter(CronSim(schedule, local_now + dt.timedelta(seconds=1), reverse=True))
        for fire, _ in zip(fires, range(366), strict=False):  # bounded: a valid cron fires within a year
            if cutoff_on(fire.date(), schedule, timezone) <= local_now:
                return fire.date()
    except CronSimError as exc:
        raise ScheduleError(f"invalid schedule {schedule!r}: {exc}") from exc
    raise ScheduleError(f"schedule {schedule!r} has no cutoff in the year before {local_now.isoformat()}")


def closed_dates_containing(moment: dt.datetime, schedule: str, timezone: str, now: dt.datetime) -> list[dt.date]:
    """The dates whose window (previous scheduled time, cutoff] contains `moment` (aware) and whose
    cutoff is at or before `now` (aware): the closed briefings a file dated `moment` belongs to.

    Windows are consecutive, so at most one date: the one whose cutoff is the first scheduled time
    at or after `moment`. A schedule firing more than once a day has gaps between a date's window
    and the previous date's cutoff (the window starts at the previous firing), and a moment in such
    a gap is in no window. Open windows are left out: that briefing is published at its cutoff."""
    tz = ZoneInfo(timezone)
    local = moment.astimezone(tz)
    try:
        # From a little before `moment`, so a firing exactly at it (cron has whole minutes) is seen.
        fires = iter(CronSim(schedule, local - dt.timedelta(minutes=2)))
        first = next(f for f, _ in zip(fires, range(527_040), strict=False) if f >= local)  # a year of minutes
    except (CronSimError, StopIteration) as exc:
        raise ScheduleError(f"invalid schedule {schedule!r}: {exc}") from exc
    if first > now.astimezone(tz) or cutoff_on(first.date(), schedule, timezone) != first:
        return []
    window = window_for(first.date(), schedule, timezone)
    return [window.date] if window.contains(moment) else []
