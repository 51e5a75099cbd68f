"""Read what a briefing needs from Postgres, as of its cutoff: window sources, mentions, anchors, cards."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from db.models import Anchor, Item, KnowledgeSnapshot, Mention, PaperCard, QueueEntry, Source
from predigest.windows import Window


@dataclass(frozen=True)
class SourceView:
    id: int
    path: str
    kind: str
    author: str | None
    observed_at: dt.datetime
    time_basis: str
    error: str | None


@dataclass(frozen=True)
class MentionView:
    source_id: int
    path: str
    kind: str
    item_ordinal: int
    label: str | None
    heading: str
    title: str | None
    arxiv_id: str | None
    raw: str
    malformed: bool
    context: str
    item_time: dt.datetime
    key_points: tuple[str, ...] = ()
    hedges: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class EntryView:
    """One window item, with or without arXiv mentions."""

    source_id: int
    path: str
    kind: str
    ordinal: int
    label: str | None
    heading: str
    title: str | None
    text: str
    key_points: tuple[str, ...]
    hedges: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class AnchorView:
    arxiv_id: str
    section: str | None
    anchored_on: dt.date | None
    cited_on: dt.date | None
    reference_only: bool
    entry: str


@dataclass(frozen=True)
class KnowledgeView:
    path: str
    topic: str
    version: str | None
    updated_at: dt.datetime | None
    citations: int | None
    changelog: tuple[dict[str, Any], ...]
    anchors: tuple[AnchorView, ...]
    sections: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class CardView:
    arxiv_id: str
    path: str
    title: str | None
    primary: str | None
    secondary: tuple[str, ...]
    created_on: dt.date | None
    votes: int | None


@dataclass
class WindowData:
    window: Window
    sources: list[SourceView] = field(default_factory=list)  # window sources, incl. errors
    mentions: list[MentionView] = field(default_factory=list)
    entries: list[EntryView] = field(default_factory=list)
    knowledge: KnowledgeView | None = None
    cards: dict[str, list[CardView]] = field(default_factory=dict)  # every card known by the cutoff
    queue_categories: dict[str, list[tuple[str | None, str | None]]] = field(default_factory=dict)


def _current(workspace_id: int) -> Any:
    """Sources that are the latest stored version of their path."""
    return and_(Source.workspace_id == workspace_id, Source.superseded_at.is_(None))


def collect_window(session: Session, workspace_id: int, topic: str, window: Window) -> WindowData:
    """Everything dated inside (window.start, window.end], plus the knowledge document in force."""
    data = WindowData(window)
    item_time = func.coalesce(Item.observed_at, Source.observed_at)
    in_window = and_(item_time > window.start, item_time <= window.end)

    # A source is in the window if it is dated there, or (queue, cards) has an entry dated there.
    source_rows = session.execute(
        select(Source)
        .where(_current(workspace_id), Source.kind != "knowledge")
        .where(
            or_(
                and_(Source.observed_at > window.start, Source.observed_at <= window.end),
                Source.id.in_(select(Item.source_id).join(Source, Source.id == Item.source_id).where(in_window)),
            )
        )
        .order_by(Source.path)
    ).scalars()
    data.sources = [
        SourceView(s.id, s.path, s.kind, s.author, s.observed_at, s.time_basis, s.error) for s in source_rows
    ]

    rows = session.execute(
        select(Mention, Item, Source.path, Source.kind, item_time.label("t"))
        .join(Item, Item.id == Mention.item_id)
        .join(Source, Source.id == Item.source_id)
        .where(_current(workspace_id), in_window)
        .order_by(Source.path, Item.ordinal, Mention.id)
    ).all()
    for mention, item, path, kind, when in rows:
        data.mentions.append(MentionView(
            source_id=item.source_id, path=path, kind=kind, item_ordinal=item.ordinal, label=item.label,
            heading=item.heading, title=item.title, arxiv_id=mention.arxiv_id, raw=mention.raw,
            malformed=mention.malformed, context=mention.context, item_time=when,
            key_points=tuple(str(k) for k in item.key_points or ()), hedges=tuple(item.hedges or ()),
        ))

    item_rows = session.execute(
        select(Item, Source.path, Source.kind)
        .join(Source, Source.id == Item.source_id)
        .where(_current(workspace_id), in_window)
        .order_by(Source.path, Item.ordinal)
    ).all()
    data.entries = [
        EntryView(item.source_id, path, kind, item.ordinal, item.label, item.heading, item.title, item.text,
                  tuple(str(k) for k in item.key_points or ()), tuple(item.hedges or ()))
        for item, path, kind in item_rows
    ]

    data.knowledge = _knowledge_in_force(session, workspace_id, topic, window.end)

    card_rows = session.execute(
        select(PaperCard, Source.path)
        .join(Source, Source.id == PaperCard.source_id)
        .where(_current(workspace_id), PaperCard.arxiv_id.is_not(None), Source.observed_at <= window.end)
        .order_by(Source.path)
    ).all()
    for card, path in card_rows:
        if card.arxiv_id is None:
            continue
        data.cards.setdefault(card.arxiv_id, []).append(CardView(
            card.arxiv_id, path, card.title, card.primary_category, tuple(card.secondary or ()),
            card.created_on, card.votes,
        ))
    queue_rows = session.execute(
        select(QueueEntry.arxiv_id, QueueEntry.primary_category, QueueEntry.secondary_category)
        .join(Source, Source.id == QueueEntry.source_id)
        .where(_current(workspace_id), QueueEntry.arxiv_id.is_not(None), QueueEntry.snapshot_at <= window.end)
        .order_by(QueueEntry.snapshot_at, QueueEntry.rank)
    ).all()
    for arxiv_id, primary, secondary in queue_rows:
        if arxiv_id is None:
            continue
        data.queue_categories.setdefault(arxiv_id, []).append((primary, secondary))
    return data


def _knowledge_in_force(session: Session, workspace_id: int, topic: str, cutoff: dt.datetime) -> KnowledgeView | None:
    """The newest version dated at or before the cutoff, else the oldest one we have.

    Anchors carry their own dates, so an older cutoff still reads the right anchors from a newer
    version; what a newer version cannot tell is an id that was later removed from References.
    """
    candidates = session.execute(
        select(KnowledgeSnapshot, Source)
        .join(Source, Source.id == KnowledgeSnapshot.source_id)
        .where(Source.workspace_id == workspace_id, KnowledgeSnapshot.topic == topic, Source.error.is_(None))
        .order_by(Source.observed_at, Source.id)
    ).all()
    if not candidates:
        return None
    before = [c for c in candidates if c[1].observed_at <= cutoff]
    snapshot, source = before[-1] if before else candidates[0]
    anchors = session.execute(
        select(Anchor).where(Anchor.snapshot_id == snapshot.id).order_by(Anchor.id)
    ).scalars()
    return KnowledgeView(
        path=source.path, topic=topic, version=snapshot.version, updated_at=snapshot.updated_at,
        citations=snapshot.citations, changelog=tuple(snapshot.changelog or ()),
        anchors=tuple(AnchorView(a.arxiv_id, a.section, a.anchored_on, a.cited_on, a.reference_only, a.entry)
                      for a in anchors),
        sections=tuple(snapshot.sections or ()),
    )
