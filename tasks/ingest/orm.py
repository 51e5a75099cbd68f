"""The per-file ORM path (the original implementation), for a file whose parse raised part-way.

Such a file keeps the rows its entries produced before the parse raised, written one entry at a
time through the ORM, exactly as they always were; `tasks.ingest.rows` is the bulk twin of this.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Anchor, Item, KnowledgeSnapshot, Mention, PaperCard, QueueEntry, Source
from tasks.cards.parse import parse_card
from tasks.common.guard import describe
from tasks.common.text import clamp_text
from tasks.ingest.rows import CATEGORY_CHARS, add_warnings, cap_entries, cap_mentions, source_header
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.sources import ExtractedItem, card_items, note_items, queue_items
from tasks.ingest.write import IngestOutcome
from tasks.knowledge.parse import parse_knowledge
from tasks.model.windows import local_midnight
from tasks.queue.parse import parse_queue

UTC = dt.UTC


def ingest_file_orm(
    session: Session, workspace_id: int, wf: WorkspaceFile, data: bytes, digest: str, error: str | None,
    tz: ZoneInfo,
) -> IngestOutcome:
    """Store one new file version through the ORM, one entry at a time (keeps partial rows of a failed parse)."""
    source, text_ = source_header(workspace_id, wf, data, digest, error, tz)
    error = source["error"]
    source_id = session.execute(
        insert(Source).values(**source).on_conflict_do_nothing(constraint="uq_sources_path_sha256").returning(Source.id)
    ).scalar_one_or_none()
    if source_id is None:  # another worker stored the same version a moment ago
        row = session.execute(
            select(Source.id, Source.error).where(
                Source.workspace_id == workspace_id, Source.path == wf.path, Source.sha256 == digest
            )
        ).one()
        return IngestOutcome(wf.path, row.id, "unchanged", row.error)

    session.execute(
        update(Source)
        .where(Source.workspace_id == workspace_id, Source.path == wf.path, Source.id != source_id,
               Source.superseded_at.is_(None))
        .values(superseded_at=dt.datetime.now(tz=UTC))
    )
    if text_ is not None and error is None:
        before = list(source["warnings"])
        try:
            error = _store_content(session, source_id, wf, text_, tz, source)
        except Exception as exc:  # a parser bug must not lose the file or stop the run
            error = f"parse failed: {describe(exc)}"
        if error:
            session.execute(update(Source).where(Source.id == source_id).values(error=error))
        if source["warnings"] != before:
            session.execute(update(Source).where(Source.id == source_id).values(warnings=source["warnings"]))
    return IngestOutcome(wf.path, source_id, "new", error)


def _store_content(
    session: Session, source_id: int, wf: WorkspaceFile, text_: str, tz: ZoneInfo, source: dict[str, Any],
) -> str | None:
    """Parse by kind and store items, mentions and kind-specific rows; returns an error or None."""
    items: list[ExtractedItem] = []
    card = None
    if wf.kind == "paper_card":
        card = parse_card(text_, wf.path.rsplit("/", 1)[-1])
        add_warnings(source, card.warnings)
        items = list(card_items(card, tz.key))
        card_time = local_midnight(card.created, tz.key) if card.created else None
        session.add(PaperCard(
            source_id=source_id, arxiv_id=card.arxiv_id, title=card.title, primary_category=card.primary,
            secondary=list(card.secondary), created_on=card.created, votes=card.votes, tldr=card.tldr,
        ))
        if card_time is not None:
            session.execute(update(Source).where(Source.id == source_id).values(observed_at=card_time, time_basis="header"))
    elif wf.kind == "work_queue":
        snapshots = parse_queue(text_, tz)
        add_warnings(source, [w for s in snapshots for w in s.warnings])
        items = list(queue_items(snapshots))
        if snapshots:
            newest = max(s.at for s in snapshots)
            session.execute(update(Source).where(Source.id == source_id).values(observed_at=newest, time_basis="header"))
    elif wf.kind == "knowledge":
        doc = parse_knowledge(text_, tz)
        add_warnings(source, doc.warnings)
        snapshot = KnowledgeSnapshot(
            source_id=source_id, topic=wf.topic or "", version=doc.version, updated_at=doc.updated_at,
            citations=doc.citations,
            changelog=[{"at": r.at.isoformat(), "summary": r.summary, "citations_before": r.citations_before,
                        "citations_after": r.citations_after, "version": r.version} for r in doc.changelog],
            sections=[{"number": s.number, "title": s.title, "level": s.level, "text": s.text} for s in doc.sections],
        )
        session.add(snapshot)
        session.flush()
        session.add_all(
            Anchor(snapshot_id=snapshot.id, topic=wf.topic or "", arxiv_id=a.arxiv_id, section=a.section,
                   anchored_on=a.anchored_on, cited_on=a.cited_on, reference_only=a.reference_only, entry=a.entry)
            for a in doc.anchors
        )
        if doc.updated_at is not None:
            session.execute(update(Source).where(Source.id == source_id).values(observed_at=doc.updated_at, time_basis="header"))
        return None
    else:
        items = list(note_items(text_))
    items = cap_mentions(cap_entries(items, source["warnings"]), source["warnings"])
    for ordinal, extracted in enumerate(items):
        item = Item(
            source_id=source_id, ordinal=ordinal, label=extracted.label, heading=extracted.heading,
            title=extracted.title, text=extracted.text, key_points=extracted.key_points, numbers=extracted.numbers,
            hedges=extracted.hedges, links=extracted.links, observed_at=extracted.observed_at, extra=extracted.extra,
        )
        item.mentions = [
            Mention(arxiv_id=m.canonical, version=m.version, raw=m.raw, malformed=m.malformed, context=m.context)
            for m in extracted.mentions
        ]
        session.add(item)
        session.flush()
        if extracted.queue_row is not None:
            row = extracted.queue_row
            session.add(QueueEntry(
                source_id=source_id, item_id=item.id, snapshot_at=extracted.observed_at, rank=row.rank,
                arxiv_id=row.arxiv_id, title=row.title, primary_category=row.primary,
                secondary_category=clamp_text(", ".join(row.secondary), CATEGORY_CHARS) or None, note=row.note,
            ))
    return None
