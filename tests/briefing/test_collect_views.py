"""Contract of `collect_window`: the Core reads (one items scan, the mention history by index, the
knowledge document cached per snapshot, entries cached by content) give the same WindowData, to
the repr, as the ORM reads they replaced, window after window; the knowledge cache never serves
another database state's snapshot, reads a snapshot once while it is in force, and a caller changing its copy does not change the cache."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, and_, delete, func, or_, select
from sqlalchemy.orm import Session

from db.engine import get_engine, session_scope
from db.models import Anchor, Item, KnowledgeSnapshot, Mention, PaperCard, QueueEntry, Source
from db.models import Paper as PaperRow
from tasks.common.limits import limited
from tasks.config.settings import Settings
from tasks.judge.echoes import trim_summaries
from tasks.model.outline import Outline, PaperOutlines
from tasks.model.window_views import (
    NOTE_KINDS,
    AnchorView,
    CardView,
    EntryView,
    KnowledgeView,
    MentionView,
    PaperLookup,
    SourceView,
    WindowData,
)
from tasks.model.windows import Window
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace
from tasks.window import anchors as knowledge
from tasks.window import collect
from tasks.window.collect import LOOKBACK_DAYS, collect_window
from tests.generate.large import generate
from tests.generate.ten_days import DAYS, make_workspace
from tests.helpers import SAMPLE_WORKSPACE, empty_tables, ingest_all


def _current(workspace_id: int) -> Any:
    """Current versions with a date (an undated file is in no window, `tasks.window.undated`)."""
    return and_(Source.workspace_id == workspace_id, Source.superseded_at.is_(None), Source.time_basis != "undated")


def orm_collect(session: Session, workspace_id: int, topic: str, window: Window) -> WindowData:
    """The ORM implementation `collect_window` replaced, kept here as the reference."""
    data = WindowData(window)
    data.undated, data.undated_count = collect.undated_sources(  # listed, not compared: it is one read either way
        session, and_(Source.workspace_id == workspace_id, Source.superseded_at.is_(None)), collect.FIRST_SEEN, window)
    item_time = func.coalesce(Item.observed_at, Source.observed_at)
    in_window = and_(item_time > window.start, item_time <= window.end)
    named = (select(Mention.arxiv_id).join(Item, Item.id == Mention.item_id).join(Source, Source.id == Item.source_id)
             .where(_current(workspace_id), in_window, Mention.arxiv_id.is_not(None)))
    data.sources = [SourceView(s.id, s.path, s.kind, s.author, s.observed_at, s.time_basis, s.error,
                               limits=limited(s.warnings))
                    for s in session.execute(
        select(Source).where(_current(workspace_id), Source.kind != "knowledge").where(or_(
            and_(Source.observed_at > window.start, Source.observed_at <= window.end),
            Source.id.in_(select(Item.source_id).join(Source, Source.id == Item.source_id).where(in_window)),
            and_(Source.kind == "paper_card", Source.observed_at <= window.end,
                 Source.id.in_(select(PaperCard.source_id).where(PaperCard.arxiv_id.in_(named))))))
        .order_by(Source.path)).scalars()]
    for mention, item, path, kind, when in session.execute(
        select(Mention, Item, Source.path, Source.kind, item_time).join(Item, Item.id == Mention.item_id)
        .join(Source, Source.id == Item.source_id).where(_current(workspace_id), in_window)
        .order_by(Source.path, Item.ordinal, Mention.id)
    ).all():
        data.mentions.append(MentionView(
            item.source_id, path, kind, item.ordinal, item.label, item.heading, item.title, mention.arxiv_id,
            mention.raw, mention.malformed, mention.context, when, tuple(item.hedges or ())))

    def entries(where: Any, mentions: list[MentionView] | None) -> list[EntryView]:
        rows = session.execute(select(Item, Source.path, Source.kind, item_time).join(Source, Source.id == Item.source_id)
                               .where(_current(workspace_id), where).order_by(Source.path, Item.ordinal)).all()
        ids: dict[tuple[int, int], list[str]] = {}
        if mentions is not None:
            for m in mentions:
                if m.arxiv_id and not m.malformed:
                    ids.setdefault((m.source_id, m.item_ordinal), []).append(m.arxiv_id)
        elif rows:
            for source_id, ordinal, arxiv_id in session.execute(
                select(Item.source_id, Item.ordinal, Mention.arxiv_id).join(Mention, Mention.item_id == Item.id)
                .where(Item.id.in_([i.id for i, *_ in rows]), Mention.arxiv_id.is_not(None),
                       Mention.malformed.is_(False)).order_by(Item.source_id, Item.ordinal, Mention.id)
            ).all():
                if arxiv_id:
                    ids.setdefault((source_id, ordinal), []).append(arxiv_id)
        return [trim_summaries(EntryView(i.source_id, path, kind, i.ordinal, i.label, i.heading, i.title, i.text,
                          tuple(i.hedges or ()), tuple(i.numbers or ()),
                          when, tuple(dict.fromkeys(ids.get((i.source_id, i.ordinal), ()))),
                          tuple(sorted((str(k), str(v)) for k, v in ((i.extra or {}).get("front_matter") or {}).items())),
                          None if i.outline is None else Outline.from_json(i.outline),
                          None if i.cells is None else tuple(i.cells),
                          None if i.paper_outlines is None else PaperOutlines.from_json(i.paper_outlines),
                          (i.extra or {}).get("note_title")))
                for i, path, kind, when in rows]

    data.entries = entries(in_window, data.mentions)
    since = window.start - dt.timedelta(days=LOOKBACK_DAYS)
    data.history = entries(and_(item_time > since, item_time <= window.start, Source.kind.in_(NOTE_KINDS)), None)
    window_ids = sorted({m.arxiv_id for m in data.mentions if m.arxiv_id and not m.malformed})
    if window_ids:
        days: dict[str, set[dt.date]] = {}
        for arxiv_id, when in session.execute(
            select(Mention.arxiv_id, item_time).join(Item, Item.id == Mention.item_id)
            .join(Source, Source.id == Item.source_id)
            .where(_current(workspace_id), Mention.arxiv_id.in_(window_ids), item_time <= window.end,
                   Source.kind != "knowledge")
        ).all():
            if arxiv_id:
                days.setdefault(arxiv_id, set()).add(when.astimezone(window.tz).date())
        data.mention_days = {k: tuple(sorted(v)) for k, v in days.items()}
        data.lookups.update({p.arxiv_id: PaperLookup(p.arxiv_id, p.status, p.title, p.looked_up_at)
                             for p in session.execute(select(PaperRow).where(
                                 PaperRow.arxiv_id.in_(window_ids), PaperRow.looked_up_at <= window.end)).scalars()})
    candidates = session.execute(
        select(KnowledgeSnapshot, Source).join(Source, Source.id == KnowledgeSnapshot.source_id)
        .where(Source.workspace_id == workspace_id, KnowledgeSnapshot.topic == topic, Source.error.is_(None))
        .order_by(Source.observed_at, Source.id)).all()
    if candidates:
        before = [c for c in candidates if c[1].observed_at <= window.end]
        snapshot, source = before[-1] if before else candidates[0]
        anchors = session.execute(select(Anchor).where(Anchor.snapshot_id == snapshot.id).order_by(Anchor.id)).scalars()
        data.knowledge = KnowledgeView(
            source.path, topic, snapshot.version, snapshot.updated_at, snapshot.citations,
            tuple(snapshot.changelog or ()),
            tuple(AnchorView(a.arxiv_id, a.section, a.anchored_on, a.cited_on, a.reference_only, a.entry) for a in anchors),
            tuple(snapshot.sections or ()))
    for card, path in session.execute(
        select(PaperCard, Source.path).join(Source, Source.id == PaperCard.source_id)
        .where(_current(workspace_id), PaperCard.arxiv_id.is_not(None), Source.observed_at <= window.end)
        .order_by(Source.path)).all():
        if card.arxiv_id is not None:
            data.cards.setdefault(card.arxiv_id, []).append(CardView(
                card.arxiv_id, path, card.title, card.primary_category, tuple(card.secondary or ()),
                card.created_on, card.votes))
    for arxiv_id, primary, secondary in session.execute(
        select(QueueEntry.arxiv_id, QueueEntry.primary_category, QueueEntry.secondary_category)
        .join(Source, Source.id == QueueEntry.source_id)
        .where(_current(workspace_id), QueueEntry.arxiv_id.is_not(None), QueueEntry.snapshot_at <= window.end)
        .order_by(QueueEntry.snapshot_at, QueueEntry.rank)).all():
        if arxiv_id is not None:
            data.queue_categories.setdefault(arxiv_id, []).append((primary, secondary))
    return data


def _compare(settings: Settings, root: Path, days: list[dt.date]) -> int:
    ref = register_workspace(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    seen = 0
    for day in days:
        window = window_of(topic, day)
        with session_scope(get_engine(settings)) as session:
            for _ in range(2):  # the second time from the caches
                fast = collect_window(session, ref.id, topic.name, window, topic.schedule)
                plain = orm_collect(session, ref.id, topic.name, window)
                assert fast == plain
                # Down to the repr (time zones included); these two dicts are filled from rows read
                # in no particular order, and only ever looked up.
                for data in (fast, plain):
                    data.mention_days = dict(sorted(data.mention_days.items()))
                    data.lookups = dict(sorted(data.lookups.items()))
                assert repr(fast) == repr(plain)
            seen += len(fast.entries) + len(fast.history) + len(fast.mentions)
    return seen


def test_same_window_data_on_the_sample_workspace(clean_db: Engine, settings: Settings) -> None:
    ingest_all(settings, SAMPLE_WORKSPACE)
    days = [dt.date(2026, 10, d) for d in (5, 6, 7, 8, 9, 10)]
    assert _compare(settings, SAMPLE_WORKSPACE, days) > 100


@pytest.mark.slow
def test_same_window_data_on_a_generated_workspace(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    generate(root, notes=120, seed=4)
    ref = register_workspace(settings, root)
    ingest_batch(settings, ref, find_changed_files(settings, ref))
    days = [dt.date(2026, 10, 9) - dt.timedelta(days=k) for k in (0, 1, 2, 40, 200)]
    assert _compare(settings, root, days) > 100


def test_knowledge_cache_follows_the_database(clean_db: Engine, settings: Settings, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The view is read once per snapshot and database state: a second window in force under the
    same snapshot is served from the cache, a caller's change to its copy stays in that copy, and
    the same ids after a truncate (identities restart) over other rows are read again."""
    loads: list[int] = []
    load = knowledge._load

    def counted(session: Session, topic: str, snapshot_id: int) -> KnowledgeView:
        loads.append(snapshot_id)
        return load(session, topic, snapshot_id)

    monkeypatch.setattr(knowledge, "_load", counted)
    monkeypatch.setattr(knowledge, "_cache", type(knowledge._cache)())  # an empty cache for this test only
    root = tmp_path / "ws"
    make_workspace(root)
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    window = window_of(topic, DAYS[-1])
    with session_scope(get_engine(settings)) as session:
        first = collect_window(session, ref.id, topic.name, window, topic.schedule).knowledge
        assert first is not None and first.anchors
        first.sections[0]["text"] = "changed by a caller"  # its own copy: the cache keeps the stored text
        again = collect_window(session, ref.id, topic.name, window_of(topic, DAYS[-2]), topic.schedule).knowledge
        assert again is not None and again.sections[0]["text"] != "changed by a caller"
    assert len(loads) == 1, "the second window's view came from the cache"
    empty_tables(clean_db)
    ref = ingest_all(settings, root)
    with session_scope(get_engine(settings)) as session:
        session.execute(delete(Anchor).where(Anchor.arxiv_id == first.anchors[0].arxiv_id))
        fresh = collect_window(session, ref.id, topic.name, window, topic.schedule).knowledge
        assert fresh is not None and len(fresh.anchors) < len(first.anchors)
        assert fresh == orm_collect(session, ref.id, topic.name, window).knowledge
        session.rollback()
    assert loads == [loads[0], loads[0]], "the same snapshot id over other rows was read again"
