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


def cutoff_on(day: dt.date, schedule: str, timezone: str) -> dt.datetime:
    """The last scheduled time on `day` (local), as an aware datetime in the topic's timezone."""
    tz = ZoneInfo(timezone)
    day_end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(0, 0), tzinfo=tz)
    try:
        previous = next(iter(CronSim(schedule, day_end, reverse=True)))
    except (CronSimError, StopIteration) as exc:
        raise ScheduleError(f"invalid schedule {schedule!r}: {exc}") from exc
    if previous.date() != day:
        raise ScheduleError(f"schedule {schedule!r} has no briefing on {day.isoformat()}")
    return previous


def previous_cutoff(cutoff: dt.datetime, schedule: str) -> dt.datetime:
    """The scheduled time strictly before `cutoff`."""
    return next(iter(CronSim(schedule, cutoff, reverse=True)))


def window_for(
    day: dt.date, schedule: str, timezone: str, since: dt.datetime | None = None
) -> Window:
    """The window of the briefing for `day`; `since` (aware) overrides the start."""
    end = cutoff_on(day, schedule, timezone)
    start = since if since is not None else previous_cutoff(end, schedule)
    if start.tzinfo is None:
        start = start.replace(tzinfo=ZoneInfo(timezone))
    if start >= end:
        raise ScheduleError(f"window start {start.isoformat()} is not before cutoff {end.isoformat()}")
    return Window(day, start.astimezone(UTC), end.astimezone(UTC), timezone)


def local_midnight(day: dt.date, timezone: str) -> dt.datetime:
    """00:00 of `day` in `timezone`, as UTC; how a date without a time is placed in time."""
    return dt.datetime.combine(day, dt.time(0, 0), tzinfo=ZoneInfo(timezone)).astimezone(UTC)
