"""Poll HF Daily Papers and arXiv category listings for a date, then look up arXiv metadata.

Async only so that the run ends with its work (see `flows/daily.py`); the tasks stay sync, and a
Python caller runs it with `asyncio.run(...)`."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from prefect import flow, task

from flows import stage_tasks
from flows.runners import shared_task_client
from tasks.config.settings import Settings, resolve_workspace
from tasks.feeds import stage
from tasks.feeds.results import FeedSnapshot
from tasks.ingest.store import IngestOutcome
from tasks.model.windows import local_date

FeedName = Literal["hf_daily", "arxiv"]


# Only the network-facing tasks retry; a feed's own errors come back inside its snapshot.
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


@flow(name="poll-feeds", flow_run_name="poll-feeds {date}")
async def poll_feeds(
    date: dt.date | None = None,
    sources: list[FeedName] | None = None,
    categories: list[str] | None = None,
    workspace: str | None = None,
    lookup: bool | None = None,
) -> list[IngestOutcome]:
    """Fetch and store each feed snapshot for `date` (default: today in the settings' timezone); one
    unreachable feed never stops the others."""
    with shared_task_client():
        settings, root = resolve_workspace(workspace)
        day = date or local_date(settings.timezone)
        ref = stage_tasks.register_workspace(settings, root)
        wanted = sources or ["hf_daily", "arxiv"]
        fetches = []
        if "hf_daily" in wanted:
            fetches.append(fetch_feed.submit(settings, "hf_daily", day))
        if "arxiv" in wanted:
            fetches += [fetch_feed.submit(settings, "arxiv", day, c) for c in categories or settings.arxiv_categories]
        outcomes = [store_feed(settings, ref.id, f.result()) for f in fetches]
        if settings.arxiv_lookup if lookup is None else lookup:
            lookup_papers(settings, ref.id)
        return outcomes
