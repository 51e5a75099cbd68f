"""Poll HF Daily Papers and arXiv category listings for a date, then look up arXiv metadata.

Async only so that the run ends with its work (see `flows/daily.py`); the tasks stay sync, and a
Python caller runs it with `asyncio.run(...)`."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from prefect import flow

from flows import stage_tasks
from flows.runners import shared_task_client
from tasks.config.settings import resolve_workspace
from tasks.feeds import steps as feed_steps
from tasks.ingest.store import IngestOutcome
from tasks.model.windows import local_date

FeedName = Literal["hf_daily", "arxiv"]


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
            fetches.append(feed_steps.fetch_feed.submit(settings, "hf_daily", day))
        if "arxiv" in wanted:
            fetches += [feed_steps.fetch_feed.submit(settings, "arxiv", day, c) for c in categories or settings.arxiv_categories]
        outcomes = [feed_steps.store_feed(settings, ref.id, f.result()) for f in fetches]
        if settings.arxiv_lookup if lookup is None else lookup:
            feed_steps.lookup_papers(settings, ref.id)
        return outcomes
