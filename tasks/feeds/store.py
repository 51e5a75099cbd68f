"""Store feed snapshots as sources with one item per paper, and arXiv metadata as papers rows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Item, Mention, Paper, Source
from tasks.feeds.arxiv_api import ArxivMetadata
from tasks.feeds.health import FeedHealthRule, day_start, is_stale, snapshot_facts, stale_identity
from tasks.feeds.marks import lock_feed, rejudge_feed
from tasks.feeds.results import FeedItem, FeedSnapshot
from tasks.inbox.outline_reader import stored_outline
from tasks.inbox.own_parts import paper_outlines
from tasks.ingest.sources import entry_text
from tasks.ingest.store import IngestOutcome


def snapshot_time(snapshot: FeedSnapshot, fallback: dt.datetime, stale: bool = False) -> dt.datetime:
    """When a snapshot counts as observed: the start of its day in the feed's timezone. A stale
    listing counts on the day it was fetched for: that day's briefing is the one it misleads, and
    the day it names already has its own snapshot."""
    if snapshot.day is None:
        return fallback
    return day_start(snapshot.kind, snapshot.requested_day if stale and snapshot.requested_day else snapshot.day)


def _context(item: FeedItem) -> str:
    lines = [item.title, item.summary]
    if item.categories:
        lines.append("categories: " + ", ".join(item.categories))
    return "\n".join(x for x in lines if x)


def store_snapshot(session: Session, workspace_id: int, snapshot: FeedSnapshot, now: dt.datetime,
                   health: FeedHealthRule) -> IngestOutcome:
    """Write a snapshot once per (uri, body sha256); its items carry upvotes, announce type and categories,
    and it its facts (`tasks.feeds.health.snapshot_facts`); then its feed's problems are re-judged
    from the stored set (`tasks.feeds.marks`), this one's and those of the days it is history for, by
    `health` (the run's `[feed_health]`).

    A stale listing is stored for the day it was fetched for, under its body's hash with that day
    (the same old listing served again on another day is that day's problem too), and without its
    entries: they are an earlier day's, and counted today they would make a broken day look normal.
    Staleness is the snapshot's own fact, so where it is stored never depends on the other snapshots."""
    facts = snapshot_facts(snapshot)
    if facts is not None:
        lock_feed(session, workspace_id, snapshot.kind, snapshot.uri)
    stale = facts is not None and snapshot.requested_day is not None and snapshot.day is not None \
        and is_stale(snapshot.kind, snapshot.day, snapshot.requested_day, health)
    identity = stale_identity(snapshot) if stale else snapshot.fetched_body_sha256
    existing = session.execute(
        select(Source.id, Source.error).where(
            Source.workspace_id == workspace_id, Source.path == snapshot.uri, Source.sha256 == identity
        )
    ).first()
    if existing is not None:
        return IngestOutcome(snapshot.uri, existing.id, "unchanged", existing.error)
    observed_at = snapshot_time(snapshot, now, stale)
    warnings = list(snapshot.warnings)
    if stale and snapshot.items:
        warnings.append(f"{len(snapshot.items)} entries of the listing dated {snapshot.day} not counted: stale")
    entries = () if stale else snapshot.items
    # A feed's entries are read like a note's (`tasks.model.window_views.NOTE_KINDS`): their papers' own texts too.
    papers = paper_outlines([entry_text(e.title, e.summary, [e.arxiv_id]) for e in entries], warnings)
    source_id = session.execute(
        insert(Source)
        .values(
            workspace_id=workspace_id, path=snapshot.uri, kind=snapshot.kind, author=None,
            sha256=identity, size=0, encoding="utf-8",
            observed_at=observed_at, time_basis="feed", error=snapshot.error,
            warnings=warnings, feed_facts=facts,
        )
        .on_conflict_do_nothing(constraint="uq_sources_path_sha256")
        .returning(Source.id)
    ).scalar_one_or_none()
    if source_id is None:
        row = session.execute(select(Source.id, Source.error).where(
            Source.workspace_id == workspace_id, Source.path == snapshot.uri,
            Source.sha256 == identity)).one()
        return IngestOutcome(snapshot.uri, row.id, "unchanged", row.error)
    # A feed URI is re-fetched every day; only the same day's earlier fetch is superseded.
    session.execute(
        update(Source)
        .where(Source.workspace_id == workspace_id, Source.path == snapshot.uri, Source.id != source_id,
               Source.superseded_at.is_(None), Source.observed_at == observed_at)
        .values(superseded_at=now)
    )
    for ordinal, entry in enumerate(entries):
        extra = {
            "upvotes": entry.upvotes, "announce_type": entry.announce_type, "categories": list(entry.categories),
            "doi": entry.doi, "journal_ref": entry.journal_ref, "authors": list(entry.authors), "link": entry.link,
        }
        item = Item(
            source_id=source_id, ordinal=ordinal, label=f"#{ordinal + 1}", heading=entry.title, title=entry.title,
            text=entry.summary, numbers=[], hedges=[], links=[entry.link] if entry.link else [],
            extra=extra, outline=stored_outline(entry.summary).to_json(),
        )
        if (paper := papers[ordinal]) is not None:
            item.paper_outlines = paper.to_json()
        item.mentions = [Mention(
            arxiv_id=entry.arxiv_id, version=entry.version, raw=entry.raw_id, malformed=entry.arxiv_id is None,
            context=_context(entry),
        )]
        session.add(item)
    if facts is not None:
        rejudge_feed(session, workspace_id, snapshot.kind, snapshot.uri, health)
    return IngestOutcome(snapshot.uri, source_id, "new", snapshot.error)


def known_paper_ids(session: Session) -> set[str]:
    """Ids already looked up (found or unknown): never asked again unless a refresh is requested."""
    return set(session.execute(select(Paper.arxiv_id)).scalars())


def mentioned_ids(session: Session, workspace_id: int) -> set[str]:
    """Every canonical arXiv id mentioned anywhere in the workspace's current sources."""
    return {arxiv_id for arxiv_id in session.execute(
        select(Mention.arxiv_id).distinct()
        .join(Item, Item.id == Mention.item_id).join(Source, Source.id == Item.source_id)
        .where(Source.workspace_id == workspace_id, Mention.arxiv_id.is_not(None))
    ).scalars() if arxiv_id}


def store_papers(session: Session, found: Iterable[ArxivMetadata], unknown: Iterable[str]) -> int:
    """Upsert looked-up titles and ids arXiv does not know; returns rows written.

    Each upsert is a new lookup (`looked_up_at` is now): the `papers_lookup_history` trigger then
    adds a row to `paper_lookups` and never overwrites an earlier lookup's status or title."""
    written = 0
    rows: list[tuple[str, dict[str, Any]]] = [(meta.arxiv_id, {"status": "found", "title": meta.title}) for meta in found]
    rows += [(arxiv_id, {"status": "unknown"}) for arxiv_id in unknown]
    for arxiv_id, looked_up in rows:
        values = {**looked_up, "looked_up_at": func.now()}
        session.execute(insert(Paper).values(arxiv_id=arxiv_id, **values)
                        .on_conflict_do_update(index_elements=["arxiv_id"], set_=values))
        written += 1
    return written
