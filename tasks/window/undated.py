"""The workspace's undated files as of a briefing's cutoff: listed by path with why, never in a window.

A file is undated when nothing it says gives a date that can exist (`tasks.ingest.dating`: stored
with `time_basis` "undated"), or when it gives one more than a day after the cutoff of a briefing
by which predigest had already seen it (`tasks.window.collect.FIRST_SEEN`): a note that existed at 22:20 cannot have been
written next week (year 9999). Its mtime places it nowhere. A file first seen after the cutoff does
not exist for that briefing, dated or not, so a backfill lists what the evening would have listed.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from db.models import Source
from tasks.ingest.scan import UNLISTABLE
from tasks.model.window_views import NOTE_KINDS
from tasks.model.windows import Window

UNDATED = "undated"
# Kinds dated once for the whole file (a note, a card): a date of theirs far after the cutoff is no
# date. (The queue is dated per snapshot; a feed snapshot by when it was fetched.)
ONE_DATE_KINDS = (*NOTE_KINDS, "paper_card")
# A date this far after the cutoff is a clock's or a typist's error, not the next morning's note.
FUTURE_SLACK = dt.timedelta(days=1)
# Undated files named per briefing; beyond this the listing says how many more.
MAX_LISTED = 200


def undated_sources(session: Session, in_force: Any, first_seen: Any, window: Window) -> tuple[list[tuple[str, str]], int]:
    """(path, reason) of each undated file seen by the cutoff, by path (at most MAX_LISTED), and how
    many in all; `in_force` selects the versions the briefing reads, `first_seen` is when each was seen."""
    future = window.end + FUTURE_SLACK
    rows = session.execute(
        select(Source.path, Source.time_basis, Source.observed_at, Source.warnings, Source.error)
        .where(in_force, Source.kind != "knowledge", first_seen <= window.end, ~_unlistable(),
               or_(Source.time_basis == UNDATED, and_(Source.kind.in_(ONE_DATE_KINDS), Source.observed_at > future)))
        .order_by(Source.path)
    ).all()
    listed = []
    for path, basis, observed_at, warnings, error in rows[:MAX_LISTED]:
        if basis != UNDATED:
            local = observed_at.astimezone(window.tz).strftime("%Y-%m-%d %H:%M")
            reason = f"dated {local}, more than a day after the cutoff"
        else:
            reason = next((w.removeprefix("undated: ").split(";")[0] for w in warnings or () if w.startswith("undated: ")),
                          "no date in its name, front matter or header")
        listed.append((path, f"{reason}; {error}" if error else reason))  # an unreadable file says why too
    return listed, len(rows)


def _unlistable() -> Any:
    """A folder the scan could not list: a source with that error, not an undated file."""
    return and_(Source.error.is_not(None), Source.error.startswith(UNLISTABLE, autoescape=True))


def unlistable_folders(session: Session, in_force: Any, first_seen: Any, window: Window) -> list[tuple[str, str]]:
    """(path, error) of each folder that, as of the cutoff, the last scan could not list: found so
    by then, and not listed again by then (`tasks.ingest.changes.supersede_relisted`), by path."""
    rows = session.execute(
        select(Source.path, Source.error)
        .where(in_force, first_seen <= window.end, _unlistable(),
               or_(Source.superseded_at.is_(None), Source.superseded_at > window.end))
        .order_by(Source.path)
    ).all()
    return [(path, error or "") for path, error in rows]
