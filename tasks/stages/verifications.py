"""Verification stage over ids and settings: derive a topic's verifications through a date, and
refresh the `status` column for a day (the staleness check). See `tasks.stages.derive`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from db.engine import get_engine, session_scope
from tasks.briefing.reader_items import answered_keys
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.model.windows import ScheduleError, Window, local_midnight, window_for
from tasks.stages.briefed_topics import known_topic_names, topics_for
from tasks.stages.derive import Derivation, derive_through
from tasks.stages.workspace import WorkspaceRef
from tasks.verify.items import one_per_subject
from tasks.verify.markers import markers_of
from tasks.verify.records import load_tracked, staleness_report
from tasks.verify.status import Tracked, listed
from tasks.window.collect import versions_at
from tasks.window.verdicts import reader_verdicts


def derive_verifications(
    settings: Settings, ref: WorkspaceRef, topic: Topic, day: dt.date, keep: Sequence[dt.date] = (),
    known: list[str] | None = None,
) -> Derivation:
    """Bring the topic's verifications up to date through `day` (idempotent: nothing is written
    when they are); the collected windows of the dates in `keep` come back for rendering."""
    names = known if known is not None else known_topic_names(settings, Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        return derive_through(session, ref.id, topic, names, day, keep, settings.source_budget_units)


def report_staleness(settings: Settings, ref: WorkspaceRef, topic: Topic | str, day: dt.date) -> dict[str, Any]:
    """Derive the topic's verifications through `day`, then count how they stand as of `day`
    (pending, stale past Settings.stale_after_days, or resolved) and name those that turned stale
    on `day` (`tasks.verify.records.staleness_report`)."""
    if isinstance(topic, str):
        (topic,) = topics_for(settings, Path(ref.root), [topic])
    derive_verifications(settings, ref, topic, day)
    with session_scope(get_engine(settings)) as session:
        tracked = load_tracked(session, ref.id, topic.name, day)
        answered = _answered(session, ref, topic, day, tracked, settings.stale_after_days)
        return staleness_report(tracked, topic.name, day, settings.stale_after_days, answered)


def _answered(session: Session, ref: WorkspaceRef, topic: Topic, day: dt.date, tracked: list[Tracked],
              stale_after_days: int) -> frozenset[str]:
    """The pending keys readers' verdicts settled as `day`'s briefing applies them (recorded by its
    cutoff; by the end of `day` when the schedule has no briefing that day)."""
    try:
        window = window_for(day, topic.schedule, topic.timezone)
    except ScheduleError:
        end = local_midnight(day + dt.timedelta(days=1), topic.timezone)
        window = Window(day, end - dt.timedelta(days=1), end, topic.timezone)
    in_force = versions_at(session, ref.id, window.end).condition()
    verdicts = reader_verdicts(session, in_force, topic.name, window, topic.schedule).by_item
    if not verdicts:
        return frozenset()
    items = one_per_subject(listed(tracked, day, stale_after_days), markers_of(topic.judgment))
    return answered_keys(items, verdicts, window)
