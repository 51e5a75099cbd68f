"""Feed stages over settings and ids: fetch a snapshot, store it, look up arXiv metadata."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from db.engine import get_engine, session_scope
from tasks.common.guard import guarded
from tasks.config.judgment import load_config
from tasks.config.settings import Settings
from tasks.feeds import clients
from tasks.feeds.arxiv_api import ArxivLookup
from tasks.feeds.arxiv_rss import arxiv_feed_uri, fetch_arxiv_category
from tasks.feeds.health import FeedHealthRule
from tasks.feeds.hf_daily import fetch_hf_daily, hf_daily_uri
from tasks.feeds.results import FeedSnapshot, failed_snapshot
from tasks.feeds.store import known_paper_ids, mentioned_ids, store_papers, store_snapshot
from tasks.ingest.store import IngestOutcome


@dataclass(frozen=True)
class PaperLookupSummary:
    asked: int
    found: int
    unknown: int
    requests: int
    errors: tuple[str, ...]


def fetch_feed(settings: Settings, kind: str, day: dt.date, category: str | None = None) -> FeedSnapshot:
    """One feed response as a snapshot; failures come back as a snapshot with its error, never raised."""
    if kind not in ("hf_daily", "arxiv") or (kind == "arxiv" and not category):
        raise ValueError(f"unknown feed {kind!r} (category {category!r})")
    step = guarded(kind, _fetch, settings, kind, day, category)
    if step.value is not None:
        # The day asked for travels with the snapshot: a listing dated before it is stale.
        return replace(step.value, requested_day=day)
    # Whatever the client or parser raised (a bug, a response nobody foresaw): this feed's error.
    uri, feed_kind = (hf_daily_uri(day), "hf_daily") if kind == "hf_daily" else (arxiv_feed_uri(category or ""), "arxiv_feed")
    error = step.failure.error if step.failure else "failed"
    return failed_snapshot(uri, feed_kind, day, b"", f"feed failed: {error}")  # type: ignore[arg-type]


def _fetch(settings: Settings, kind: str, day: dt.date, category: str | None) -> FeedSnapshot:
    client = clients.http_client(settings)
    if kind == "hf_daily":
        return fetch_hf_daily(client, day)
    return fetch_arxiv_category(client, category or "", day)


def store_feed(settings: Settings, workspace_id: int, snapshot: FeedSnapshot) -> IngestOutcome:
    """Store one snapshot in its own transaction."""
    step = guarded(snapshot.uri, _store, settings, workspace_id, snapshot)
    if step.value is not None:
        return step.value
    # The database refused something in it: the snapshot is stored as failed, with that error.
    error = f"storing failed: {step.failure.error if step.failure else 'failed'}"
    return _store(settings, workspace_id, failed_snapshot(snapshot.uri, snapshot.kind, snapshot.day, b"", error))


def _store(settings: Settings, workspace_id: int, snapshot: FeedSnapshot) -> IngestOutcome:
    rule = FeedHealthRule.from_mapping(load_config(settings.workspace, settings.judgment_file)["feed_health"])
    with session_scope(get_engine(settings)) as session:
        return store_snapshot(session, workspace_id, snapshot, dt.datetime.now(dt.UTC), rule)


def lookup_papers(
    settings: Settings, workspace_id: int, lookup: ArxivLookup | None = None, refresh: bool = False
) -> PaperLookupSummary:
    """Look up every mentioned id not stored yet (all of them with `refresh`) and store the answers."""
    engine = get_engine(settings)
    with session_scope(engine) as session:
        ids = sorted(mentioned_ids(session, workspace_id))
        known = known_paper_ids(session)
    result = (lookup or clients.arxiv_lookup(settings)).lookup(ids, known, refresh=refresh)
    with session_scope(engine) as session:
        store_papers(session, result.found.values(), sorted(result.unknown))
    asked = len(ids) if refresh else len(set(ids) - known)
    return PaperLookupSummary(asked, len(result.found), len(result.unknown), result.requests, tuple(result.errors))
