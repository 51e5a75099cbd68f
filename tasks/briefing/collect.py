"""Read what a briefing needs from Postgres, as of its cutoff: window sources, mentions, anchors, cards."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from db.models import Anchor, Item, KnowledgeSnapshot, Mention, PaperCard, QueueEntry, Source
from db.models import Paper as PaperRow
from predigest.windows import Window

# How far back earlier windows are read for names seen before and numbers to compare with.
LOOKBACK_DAYS = 30
NOTE_KINDS = ("note", "hf_daily", "other")


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
    numbers: tuple[dict[str, Any], ...] = ()
    item_time: dt.datetime | None = None
    ids: tuple[str, ...] = ()  # canonical arXiv ids the entry names, in order


@dataclass(frozen=True)
class PaperLookup:
    """What the arXiv API said about an id, if it was looked up by the cutoff."""

    arxiv_id: str
    status: str  # found, unknown
    title: str | None
    looked_up_at: dt.datetime


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
    # Note entries of earlier windows (LOOKBACK_DAYS before the window start, as of the cutoff).
    history: list[EntryView] = field(default_factory=list)
    # Local days on which each window id was mentioned anywhere, up to the cutoff.
    mention_days: dict[str, tuple[dt.date, ...]] = field(default_factory=dict)
    lookups: dict[str, PaperLookup] = field(default_factory=dict)


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

    data.entries = _entries(session, workspace_id, in_window, data.mentions)
    since = window.start - dt.timedelta(days=LOOKBACK_DAYS)
    earlier = and_(item_time > since, item_time <= window.start, Source.kind.in_(NOTE_KINDS))
    data.history = _entries(session, workspace_id, earlier, None)
    _mention_history(session, workspace_id, data)

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


def _entries(session: Session, workspace_id: int, where: Any, mentions: list[MentionView] | None) -> list[EntryView]:
    """Items matching `where`, with the ids each names (from `mentions`, or read from the database)."""
    item_time = func.coalesce(Item.observed_at, Source.observed_at)
    rows = session.execute(
        select(Item, Source.path, Source.kind, item_time.label("t"))
        .join(Source, Source.id == Item.source_id)
        .where(_current(workspace_id), where)
        .order_by(Source.path, Item.ordinal)
    ).all()
    ids: dict[tuple[int, int], list[str]] = {}
    if mentions is not None:
        for m in mentions:
            if m.arxiv_id and not m.malformed:
                ids.setdefault((m.source_id, m.item_ordinal), []).append(m.arxiv_id)
    else:
        item_ids = [item.id for item, *_ in rows]
        found = session.execute(
            select(Item.source_id, Item.ordinal, Mention.arxiv_id).join(Mention, Mention.item_id == Item.id)
            .where(Item.id.in_(item_ids), Mention.arxiv_id.is_not(None), Mention.malformed.is_(False))
            .order_by(Item.source_id, Item.ordinal, Mention.id)
        ).all() if item_ids else []
        for source_id, ordinal, arxiv_id in found:
            if arxiv_id:
                ids.setdefault((source_id, ordinal), []).append(arxiv_id)
    return [
        EntryView(item.source_id, path, kind, item.ordinal, item.label, item.heading, item.title, item.text,
                  tuple(str(k) for k in item.key_points or ()), tuple(item.hedges or ()),
                  tuple(item.numbers or ()), when, tuple(dict.fromkeys(ids.get((item.source_id, item.ordinal), ()))))
        for item, path, kind, when in rows
    ]


def _mention_history(session: Session, workspace_id: int, data: WindowData) -> None:
    """Days each window id was mentioned up to the cutoff, and its arXiv lookup if made by then."""
    window_ids = sorted({m.arxiv_id for m in data.mentions if m.arxiv_id and not m.malformed})
    if not window_ids:
        return
    item_time = func.coalesce(Item.observed_at, Source.observed_at)
    rows = session.execute(
        select(Mention.arxiv_id, item_time)
        .join(Item, Item.id == Mention.item_id).join(Source, Source.id == Item.source_id)
        .where(_current(workspace_id), Mention.arxiv_id.in_(window_ids), item_time <= data.window.end,
               Source.kind != "knowledge")
    ).all()
    days: dict[str, set[dt.date]] = {}
    for arxiv_id, when in rows:
        if arxiv_id:
            days.setdefault(arxiv_id, set()).add(when.astimezone(data.window.tz).date())
    data.mention_days = {k: tuple(sorted(v)) for k, v in days.items()}
    add_lookups(session, data, window_ids)


def add_lookups(session: Session, data: WindowData, ids: Sequence[str]) -> None:
    """arXiv lookups of `ids` made by the cutoff (a later lookup does not exist yet for this window)."""
    wanted = sorted(set(ids) - set(data.lookups))
    if not wanted:
        return
    rows = session.execute(
        select(PaperRow).where(PaperRow.arxiv_id.in_(wanted), PaperRow.looked_up_at <= data.window.end)
    ).scalars()
    data.lookups.update({p.arxiv_id: PaperLookup(p.arxiv_id, p.status, p.title, p.looked_up_at) for p in rows})


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
