"""Verification stage over ids and settings: derive a topic's verifications through a date, and
refresh the `status` column for a day (the staleness check). See `tasks.stages.derive`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from db.engine import get_engine, session_scope
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.stages.briefed_topics import known_topic_names, topics_for
from tasks.stages.derive import Derivation, derive_through
from tasks.stages.workspace import WorkspaceRef
from tasks.verify.records import staleness_report


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
        return staleness_report(session, ref.id, topic.name, day, settings.stale_after_days)
