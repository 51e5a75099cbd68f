"""The knowledge document in force at a cutoff, with its anchors, read once per snapshot and process.

A snapshot's header and anchors are written once, with the snapshot, and never updated: a new
version of the document is a new snapshot. Every window of a backfill reads the same snapshot
(3,150 anchors on the generated workspace), so the view is kept in a small process-level cache.
The key names the database (its URL) and the snapshot's source row down to its `ingested_at`, so a
database dropped and re-created, or truncated with its ids restarted, never serves a stale view.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import Anchor, KnowledgeSnapshot, Source
from tasks.knowledge.parse import AnchorStatus, anchor_status_as_of
from tasks.model.window_views import AnchorView, KnowledgeView

# Snapshots kept: one per topic a worker briefs is enough; a few more cover tests and re-ingests.
CACHE_SIZE = 8
_cache: OrderedDict[Hashable, KnowledgeView] = OrderedDict()
_lock = threading.Lock()


class BaselineUnreadable(RuntimeError):
    """The topic's knowledge document cannot be read: its briefing stops, loudly, rather than judge
    every paper NET-new against no baseline."""


class NoBaseline(RuntimeError):
    """The topic has no knowledge document (it is only configured): nothing is briefed for it, since
    every paper would be NET-new against nothing (`tasks.config.topics.no_document` says how to add one)."""


def unreadable_baseline(session: Session, workspace_id: int, topic: str, cutoff: dt.datetime) -> str | None:
    """"<path>: <error>" when the topic's knowledge document, in its version in force at the cutoff
    (the newest dated at or before it, else the oldest), could not be read; None when it could, or
    when the topic has no document at all."""
    rows = session.execute(
        select(Source.path, Source.error, Source.observed_at)
        .where(Source.workspace_id == workspace_id, Source.kind == "knowledge",
               Source.path == f"organized/knowledge/{topic}.md")
        .order_by(Source.observed_at, Source.id)
    ).all()
    if not rows:
        return None
    before = [r for r in rows if r.observed_at <= cutoff]
    path, error, _ = before[-1] if before else rows[0]
    return f"{path}: {error}" if error else None


def knowledge_in_force(session: Session, workspace_id: int, topic: str, cutoff: dt.datetime) -> KnowledgeView | None:
    """The newest version dated at or before the cutoff, else the oldest one we have.

    Anchors carry their own dates, so an older cutoff still reads the right anchors from a newer
    version; what a newer version cannot tell is an id that was later removed from References.
    """
    candidates = session.execute(
        select(KnowledgeSnapshot.id, Source.id, Source.sha256, Source.ingested_at, Source.observed_at)
        .join(Source, Source.id == KnowledgeSnapshot.source_id)
        .where(Source.workspace_id == workspace_id, KnowledgeSnapshot.topic == topic, Source.error.is_(None))
        .order_by(Source.observed_at, Source.id)
    ).all()
    if not candidates:
        return None
    before = [c for c in candidates if c[4] <= cutoff]
    snapshot_id, source_id, sha256, ingested_at, _ = before[-1] if before else candidates[0]
    url = session.get_bind().engine.url.render_as_string(hide_password=True)
    key = (url, topic, snapshot_id, source_id, sha256, ingested_at)
    with _lock:
        view = _cache.get(key)
        if view is not None:
            _cache.move_to_end(key)
    if view is None:
        view = _load(session, topic, snapshot_id)
        with _lock:
            _cache[key] = view
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    # Callers get their own row dicts: a change made to one window's view must not reach the cache.
    return dataclasses.replace(view, changelog=tuple(dict(row) for row in view.changelog),
                               sections=tuple(dict(row) for row in view.sections))


def _load(session: Session, topic: str, snapshot_id: int) -> KnowledgeView:
    path, version, updated_at, citations, changelog, sections = session.execute(
        select(Source.path, KnowledgeSnapshot.version, KnowledgeSnapshot.updated_at, KnowledgeSnapshot.citations,
               KnowledgeSnapshot.changelog, KnowledgeSnapshot.sections)
        .join(Source, Source.id == KnowledgeSnapshot.source_id)
        .where(KnowledgeSnapshot.id == snapshot_id)
    ).one()
    anchors = session.execute(
        select(Anchor.arxiv_id, Anchor.section, Anchor.anchored_on, Anchor.cited_on, Anchor.reference_only,
               Anchor.entry)
        .where(Anchor.snapshot_id == snapshot_id).order_by(Anchor.id)
    ).all()
    return KnowledgeView(
        path=path, topic=topic, version=version, updated_at=updated_at, citations=citations,
        changelog=tuple(changelog or ()), anchors=tuple(AnchorView(*row) for row in anchors),
        sections=tuple(sections or ()),
    )


class BaselineAsOf(NamedTuple):
    """The knowledge document's version, update time and citation count as they stood at a cutoff;
    None where neither the header nor the change log tells."""

    version: str | None
    updated_at: dt.datetime | None
    citations: int | None


def baseline_as_of(doc: KnowledgeView, cutoff: dt.datetime) -> BaselineAsOf:
    """The header when it is dated at or before the cutoff; else the change log's last update by
    then (its version column, its citations after the update, or the next update's before)."""
    if doc.updated_at is None or doc.updated_at <= cutoff:
        return BaselineAsOf(doc.version, doc.updated_at, doc.citations)
    rows = sorted(doc.changelog, key=lambda r: dt.datetime.fromisoformat(r["at"]))
    earlier = [r for r in rows if dt.datetime.fromisoformat(r["at"]) <= cutoff]
    later = [r for r in rows if dt.datetime.fromisoformat(r["at"]) > cutoff]
    if not earlier:
        return BaselineAsOf(None, None, None)
    row = earlier[-1]
    citations = row.get("citations_after")
    if citations is None and later:
        citations = later[0].get("citations_before")
    return BaselineAsOf(row.get("version"), dt.datetime.fromisoformat(row["at"]), citations)


class _AsOf:
    """The last `anchors_as_of` answer: (view, day, statuses)."""

    last: tuple[KnowledgeView, dt.date, dict[str, AnchorStatus]] | None = None


def anchors_as_of(doc: KnowledgeView | None, day: dt.date) -> dict[str, AnchorStatus]:
    """`anchor_status_as_of` of the document's anchors on `day` (none without a document).

    A window's judging and its briefing's baseline ask it of the same view on every date (thousands
    of anchors), so the last answer is kept for that view object: views are frozen, and the one
    kept is held, so while kept its identity names its anchors."""
    last = _AsOf.last
    if doc is not None and last is not None and last[0] is doc and last[1] == day:
        return dict(last[2])
    found = anchor_status_as_of(doc.anchors if doc else (), day)
    if doc is not None:
        _AsOf.last = (doc, day, dict(found))
    return found
