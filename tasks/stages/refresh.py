"""Which closed briefings a newly stored file changes: the (topic, date) pairs the inbox trigger
re-briefs after storing it, so a late note reaches the evening it is dated into.

A file belongs to the windows its stored times fall in: the source's time and (paper cards,
work queues) each entry's own time, as `tasks.window.collect` places them. An undated file is
in no window, and a knowledge document is read by the next evening, so neither refreshes anything.
Only windows whose cutoff has passed are refreshed; an open window is briefed at its cutoff.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from sqlalchemy import select

from db.engine import get_engine, session_scope
from db.models import Item, Source
from tasks.common.sql import any_of
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.model.windows import closed_dates_containing
from tasks.window.undated import UNDATED

# Kinds no window reads by their time (the knowledge in force is looked up per cutoff).
UNWINDOWED_KINDS = ("knowledge",)


def stored_times(settings: Settings, source_ids: Sequence[int]) -> list[dt.datetime]:
    """The distinct times (UTC) that place the sources `source_ids` in windows, in order."""
    if not source_ids:
        return []
    with session_scope(get_engine(settings)) as session:
        dated = dict(session.execute(
            select(Source.id, Source.observed_at).where(
                any_of(Source.id, sorted(set(source_ids))),
                Source.kind.not_in(UNWINDOWED_KINDS), Source.time_basis != UNDATED)
        ).tuples().all())
        entry_times = session.execute(
            select(Item.observed_at).distinct().where(
                any_of(Item.source_id, sorted(dated)), Item.observed_at.is_not(None))
        ).scalars().all() if dated else []
    return sorted(set(dated.values()) | {t for t in entry_times if t is not None})

def briefings_to_refresh(
    times: Iterable[dt.datetime], topics: Sequence[Topic], now: dt.datetime
) -> list[tuple[Topic, dt.date]]:
    """Per topic (in the order given), the dates whose closed window contains one of `times`, oldest first."""
    moments = sorted(set(times))
    pairs: list[tuple[Topic, dt.date]] = []
    for topic in topics:
        days = {day for moment in moments
                for day in closed_dates_containing(moment, topic.schedule, topic.timezone, now)}
        pairs += [(topic, day) for day in sorted(days)]
    return pairs
