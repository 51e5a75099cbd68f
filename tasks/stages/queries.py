"""Small read-only questions to the database that the CLI and the backfill's child runs ask: the
database's clock, what an ingest stored since then, which inbox paths have a stored version, and
the published state of a date's briefings rows. Each opens its own session and returns plain values
(no ORM objects outlive it); nothing here decides anything."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select

from db.engine import get_engine, session_scope
from db.models import Briefing, Source
from tasks.common.sql import any_of
from tasks.config.settings import Settings


def database_now(settings: Settings) -> dt.datetime:
    """The database's clock (what `ingested_at` and `published_at` default to)."""
    with session_scope(get_engine(settings)) as session:
        return session.execute(select(func.now())).scalar_one()


def ingested_since(settings: Settings, workspace_id: int, since: dt.datetime,
                   named: int = 3) -> tuple[int, int, list[str]]:
    """(files stored, of them unreadable, the first `named` unreadable paths in path order) in the
    workspace at or after `since` (database clock); feed snapshots, stored by URI, are not files."""
    recent = (Source.workspace_id == workspace_id, Source.ingested_at >= since, ~Source.path.contains("://"))
    with session_scope(get_engine(settings)) as session:
        stored, unreadable = session.execute(select(func.count(), func.count(Source.error)).where(*recent)).one()
        paths = list(session.execute(
            select(Source.path).where(*recent, Source.error.is_not(None)).distinct().order_by(Source.path).limit(named)
        ).scalars()) if unreadable else []
    return int(stored), int(unreadable), paths


def stored_paths(settings: Settings, workspace_id: int, paths: Sequence[str]) -> set[str]:
    """Those of `paths` of which some version is stored as a source of the workspace."""
    if not paths:
        return set()
    with session_scope(get_engine(settings)) as session:
        return set(session.execute(
            select(Source.path).where(Source.workspace_id == workspace_id, any_of(Source.path, paths))
        ).scalars())


@dataclass(frozen=True)
class PublishedRow:
    """What a briefings row says was published for (topic, date); None fields: not published."""

    topic: str
    content_hash: str | None
    markdown_key: str | None
    json_key: str | None
    published_at: dt.datetime | None


def published_rows(settings: Settings, workspace_id: int, day: dt.date, topics: Sequence[str]) -> dict[str, PublishedRow]:
    """The briefings rows of `day` for `topics` in the workspace, by topic (a topic without one is absent)."""
    with session_scope(get_engine(settings)) as session:
        rows = session.execute(
            select(Briefing.topic, Briefing.content_hash, Briefing.markdown_key, Briefing.json_key,
                   Briefing.published_at)
            .where(Briefing.workspace_id == workspace_id, Briefing.date == day, any_of(Briefing.topic, topics))
        ).all()
    return {row.topic: PublishedRow(*row) for row in rows}
