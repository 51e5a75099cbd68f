"""Prefect tasks for the feeds flow; only the network-facing fetch retries."""

from __future__ import annotations

import datetime as dt

from prefect import task

from tasks.config.settings import Settings
from tasks.feeds import stage
from tasks.feeds.model import FeedSnapshot
from tasks.ingest.store import IngestOutcome


@task(name="fetch-feed", task_run_name="fetch {kind} {category} {day}", retries=2, retry_delay_seconds=[30, 120])
def fetch_feed(settings: Settings, kind: str, day: dt.date, category: str | None = None) -> FeedSnapshot:
    """Fetch one feed snapshot (errors are returned inside the snapshot)."""
    return stage.fetch_feed(settings, kind, day, category)


@task(name="store-feed", task_run_name="store {snapshot.uri}")
def store_feed(settings: Settings, workspace_id: int, snapshot: FeedSnapshot) -> IngestOutcome:
    """Store one feed snapshot as a source with its items."""
    return stage.store_feed(settings, workspace_id, snapshot)


@task(name="lookup-papers", retries=1, retry_delay_seconds=60)
def lookup_papers(settings: Settings, workspace_id: int, refresh: bool = False) -> stage.PaperLookupSummary:
    """Look up arXiv metadata for every mentioned id not stored yet."""
    return stage.lookup_papers(settings, workspace_id, refresh=refresh)
