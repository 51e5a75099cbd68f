"""The briefed topic's reader verdicts as of a cutoff (`tasks.inbox.feedback_file` stores them as items).

A verdict counts for a briefing when it was recorded by its cutoff and answers a briefing of its
date or before: one recorded later does not exist for that evening, so a backfill gives the bytes
the evening gave. A verdict answering a date with no briefing (the schedule has none that day, or
the date comes after the day it was recorded) is applied nowhere; the evening whose window holds
it names it (`ReadVerdicts.refused`).
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import Item, Source
from tasks.inbox.feedback_file import feedback_path
from tasks.model.window_views import ReaderVerdict
from tasks.model.windows import ScheduleError, Window, window_for

FEEDBACK = "feedback"
NO_BRIEFING = "no_briefing"  # the schedule has no briefing on the date answered
BEFORE_BRIEFING = "before_briefing"  # the date answered comes after the day it was recorded


class ReadVerdicts(NamedTuple):
    by_item: dict[str, list[ReaderVerdict]]  # those that count, by item, oldest first
    refused: list[tuple[str, ReaderVerdict]]  # (why, verdict) of those recorded in this window that answer no briefing
    recorded: int  # the well-formed verdicts of the file recorded by the cutoff


@lru_cache(maxsize=4096)
def _answered_start(day: dt.date, schedule: str, timezone: str) -> dt.datetime | None:
    """The start of the window of the briefing of `day`; None when the schedule has none that day."""
    try:
        return window_for(day, schedule, timezone).start
    except ScheduleError:
        return None


def reader_verdicts(session: Session, in_force: Any, topic: str, window: Window, schedule: str) -> ReadVerdicts:
    """`topic`'s verdicts recorded by the cutoff about briefings up to its date, by paper, oldest
    first; `in_force` selects the source versions the briefing reads (`collect.Versions.condition`);
    `schedule`: the topic's, which says what dates have a briefing."""
    rows = session.execute(
        select(Source.path, Item.extra, Item.label)
        .join(Source, Source.id == Item.source_id)
        .where(in_force, Source.kind == FEEDBACK, Source.path == feedback_path(topic),
               Item.observed_at.is_not(None), Item.observed_at <= window.end)
        .order_by(Item.observed_at, Item.ordinal)
    ).all()
    out: dict[str, list[ReaderVerdict]] = {}
    refused: list[tuple[str, ReaderVerdict]] = []
    for path, extra, label in rows:
        v = (extra or {}).get(FEEDBACK) or {}
        day, at = dt.date.fromisoformat(v["date"]), dt.datetime.fromisoformat(v["at"])
        line = int(label.removeprefix("line ")) if (label or "").removeprefix("line ").isdigit() else 0
        start = _answered_start(day, schedule, window.timezone)
        said = ReaderVerdict(path, day, v["item"], v["verdict"], v["by"], at, v.get("reason") or "", line, start)
        why = NO_BRIEFING if start is None else BEFORE_BRIEFING if day > at.astimezone(window.tz).date() else None
        if why is not None:
            if at > window.start:
                refused.append((why, said))
            continue
        if day <= window.date:
            out.setdefault(v["item"], []).append(said)
    return ReadVerdicts(out, refused, len(rows))
