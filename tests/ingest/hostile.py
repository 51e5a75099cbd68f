"""The evening as the daily flow runs it, called directly (no Prefect): ingest in batches, then
each topic's guarded briefing. Shared by the hostile-input tests."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from db.engine import session_scope
from db.models import Item, Source
from flows import stage_tasks
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import BriefingResult
from tasks.stages.workspace import WorkspaceRef, find_changed_files, ingest_batch, register_workspace

DAY = dt.date(2026, 10, 9)


def run_evening(
    settings: Settings, workspace: Path, topics: list[str] | None = None, day: dt.date = DAY
) -> tuple[WorkspaceRef, list[BriefingResult]]:
    """What `daily_briefing` does, in this process: every changed file ingested, every topic briefed."""
    ref = register_workspace(settings, workspace)
    ingest_batch(settings, ref, find_changed_files(settings, ref), batch_size=50)
    results = [stage_tasks.brief_topic.fn(settings, ref, topic, day, None)
               for topic in topics_for(settings, workspace, topics)]
    return ref, results


def sources(engine: Engine) -> dict[str, Source]:
    with session_scope(engine) as session:
        rows = list(session.execute(select(Source).where(Source.superseded_at.is_(None))).scalars())
        session.expunge_all()
    return {s.path: s for s in rows}


def item_texts(engine: Engine, path: str) -> list[str]:
    with session_scope(engine) as session:
        return [h + "\n" + t for h, t in session.execute(
            select(Item.heading, Item.text).join(Source, Source.id == Item.source_id)
            .where(Source.path == path, Source.superseded_at.is_(None)).order_by(Item.ordinal))]


def published(settings: Settings, topic: str, day: dt.date = DAY) -> tuple[str, dict[str, Any]]:
    base = Path(settings.storage_root_url.removeprefix("file://")) / "briefings" / topic
    md = (base / f"{day.isoformat()}.md").read_text("utf-8")
    return md, json.loads((base / f"{day.isoformat()}.json").read_text("utf-8"))
