"""Feed stages over settings and ids: fetch a snapshot, store it, look up arXiv metadata."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from db.engine import get_engine, session_scope
from predigest.settings import Settings
from tasks.feeds import clients
from tasks.feeds.arxiv_api import ArxivLookup
from tasks.feeds.arxiv_rss import fetch_arxiv_category
from tasks.feeds.hf_daily import fetch_hf_daily
from tasks.feeds.model import FeedSnapshot
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
    client = clients.http_client(settings)
    if kind == "hf_daily":
        return fetch_hf_daily(client, day)
    if kind == "arxiv" and category:
        return fetch_arxiv_category(client, category, day)
    raise ValueError(f"unknown feed {kind!r} (category {category!r})")


def store_feed(settings: Settings, workspace_id: int, snapshot: FeedSnapshot) -> IngestOutcome:
    """Store one snapshot in its own transaction."""
    with session_scope(get_engine(settings)) as session:
        return store_snapshot(session, workspace_id, snapshot, dt.datetime.now(dt.UTC))


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
