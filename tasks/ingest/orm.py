"""The per-file ORM path (the original implementation), for a file whose parse raised part-way.

Such a file keeps the rows its entries produced before the parse raised, written one entry at a
time through the ORM, exactly as they always were. The parse is the bulk path's
(`tasks.ingest.rows.parse_by_kind`); only how the rows are written differs.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Anchor, Item, KnowledgeSnapshot, Mention, PaperCard, QueueEntry, Source
from tasks.common.guard import describe
from tasks.common.text import clamp_text
from tasks.ingest.rows import CATEGORY_CHARS, IngestWords, parse_by_kind, snapshot_fields, source_header
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.write import IngestOutcome

UTC = dt.UTC


def ingest_file_orm(
    session: Session, workspace_id: int, wf: WorkspaceFile, data: bytes, digest: str, error: str | None,
    tz: ZoneInfo, words: IngestWords,
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
            error = _store_content(session, source_id, wf, text_, tz, source, words)
        except Exception as exc:  # a parser bug must not lose the file or stop the run
            error = f"parse failed: {describe(exc)}"
        if error:
            session.execute(update(Source).where(Source.id == source_id).values(error=error))
        if source["warnings"] != before:
            session.execute(update(Source).where(Source.id == source_id).values(warnings=source["warnings"]))
    return IngestOutcome(wf.path, source_id, "new", error)


def _store_content(
    session: Session, source_id: int, wf: WorkspaceFile, text_: str, tz: ZoneInfo, source: dict[str, Any],
    words: IngestWords,
) -> str | None:
    """Parse by kind (`rows.parse_by_kind`) and store items, mentions and kind-specific rows; returns an error or None."""
    parsed = parse_by_kind(wf, text_, tz, source, words)
    card, doc = parsed.card, parsed.knowledge
    if card is not None:
        session.add(PaperCard(
            source_id=source_id, arxiv_id=card.arxiv_id, title=card.title, primary_category=card.primary,
            secondary=list(card.secondary), created_on=card.created, votes=card.votes, tldr=card.tldr,
        ))
    if parsed.header_time is not None:
        session.execute(update(Source).where(Source.id == source_id).values(
            observed_at=parsed.header_time, time_basis="header"))
    if doc is not None:
        snapshot = KnowledgeSnapshot(source_id=source_id, **snapshot_fields(doc, wf.topic or ""))
        session.add(snapshot)
        session.flush()
        session.add_all(
            Anchor(snapshot_id=snapshot.id, topic=wf.topic or "", arxiv_id=a.arxiv_id, section=a.section,
                   anchored_on=a.anchored_on, cited_on=a.cited_on, reference_only=a.reference_only, entry=a.entry)
            for a in doc.anchors
        )
        return None
    items = parsed.items
    for ordinal, extracted in enumerate(items):
        item = Item(
            source_id=source_id, ordinal=ordinal, label=extracted.label, heading=extracted.heading,
            title=extracted.title, text=extracted.text, numbers=extracted.numbers,
            hedges=extracted.hedges, links=extracted.links, observed_at=extracted.observed_at, extra=extracted.extra,
            outline=None if extracted.outline is None else extracted.outline.to_json(),
            cells=None if extracted.cells is None else list(extracted.cells),
        )
        if extracted.paper_outlines is not None:  # unset, not None: SQL NULL, as the bulk path writes it
            item.paper_outlines = extracted.paper_outlines.to_json()
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
    return parsed.error
