"""Write one workspace file as a source version with its items and mentions; unchanged files write nothing."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Anchor, Item, KnowledgeSnapshot, Mention, PaperCard, QueueEntry, Source, Workspace
from predigest.topics import Topic
from predigest.windows import local_midnight
from tasks.cards.parse import parse_card
from tasks.common.decode import decode_bytes
from tasks.inbox.filenames import parse_note_name
from tasks.judge.item_topics import classify_topics
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.sources import ExtractedItem, card_items, note_items, queue_items
from tasks.knowledge.parse import parse_knowledge
from tasks.queue.parse import parse_queue

MAX_SOURCE_BYTES = 64 * 1024 * 1024
UTC = dt.UTC


@dataclass(frozen=True)
class IngestOutcome:
    path: str
    source_id: int
    status: str  # new, unchanged
    error: str | None


def get_workspace_id(session: Session, root: str) -> int:
    """The id of the workspace row for `root`, created on first use."""
    session.execute(insert(Workspace).values(root=root).on_conflict_do_nothing(index_elements=["root"]))
    return session.execute(select(Workspace.id).where(Workspace.root == root)).scalar_one()


def _read(wf: WorkspaceFile) -> tuple[bytes, str | None]:
    if wf.problem:
        return wf.problem.encode(), wf.problem
    try:
        size = wf.absolute.stat().st_size
        if size > MAX_SOURCE_BYTES:
            return f"{size}".encode(), f"file too large ({size} bytes > {MAX_SOURCE_BYTES}); skipped"
        return wf.absolute.read_bytes(), None
    except OSError as exc:
        return b"", f"cannot read: {exc.strerror or exc}"


def _mtime(wf: WorkspaceFile) -> dt.datetime:
    try:
        return dt.datetime.fromtimestamp(wf.absolute.lstat().st_mtime, tz=UTC)
    except OSError:
        return dt.datetime.fromtimestamp(0, tz=UTC)


def ingest_file(
    session: Session, workspace_id: int, wf: WorkspaceFile, timezone: str, topics: Sequence[Topic] = ()
) -> IngestOutcome:
    """Ingest one file; a file whose (path, sha256) is already stored writes nothing."""
    data, error = _read(wf)
    digest = hashlib.sha256(data).hexdigest()
    existing = session.execute(
        select(Source.id, Source.error, Source.superseded_at).where(
            Source.workspace_id == workspace_id, Source.path == wf.path, Source.sha256 == digest
        )
    ).first()
    if existing is not None:
        if existing.superseded_at is not None:
            # The file went back to a version stored earlier (an undone edit): that version is current again.
            session.execute(
                update(Source)
                .where(Source.workspace_id == workspace_id, Source.path == wf.path, Source.id != existing.id,
                       Source.superseded_at.is_(None))
                .values(superseded_at=dt.datetime.now(tz=UTC))
            )
            session.execute(update(Source).where(Source.id == existing.id).values(superseded_at=None))
        return IngestOutcome(wf.path, existing.id, "unchanged", existing.error)

    tz = ZoneInfo(timezone)
    text, encoding = None, None
    if error is None:
        try:
            decoded = decode_bytes(data)
            text, encoding = decoded.text, decoded.encoding
        except ValueError as exc:
            error = str(exc)

    observed_at, basis = _mtime(wf), "mtime"
    if wf.kind in ("note", "hf_daily", "other"):
        name = parse_note_name(wf.absolute.name, wf.author)
        if name is not None:
            observed_at, basis = name.local_time.replace(tzinfo=tz).astimezone(UTC), "filename"

    source = Source(
        workspace_id=workspace_id, path=wf.path, kind=wf.kind, author=wf.author, sha256=digest,
        size=len(data) if wf.problem is None else 0, encoding=encoding, observed_at=observed_at,
        time_basis=basis, error=error,
    )
    stmt = (
        insert(Source)
        .values(
            workspace_id=workspace_id, path=wf.path, kind=wf.kind, author=wf.author, sha256=digest,
            size=source.size, encoding=encoding, observed_at=observed_at, time_basis=basis, error=error,
        )
        .on_conflict_do_nothing(constraint="uq_sources_path_sha256")
        .returning(Source.id)
    )
    source_id = session.execute(stmt).scalar_one_or_none()
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
    if text is not None and error is None:
        try:
            error = _store_content(session, source_id, wf, text, tz, topics)
        except Exception as exc:  # a parser bug must not lose the file or stop the run
            error = f"parse failed: {type(exc).__name__}: {exc}"
        if error:
            session.execute(update(Source).where(Source.id == source_id).values(error=error))
    return IngestOutcome(wf.path, source_id, "new", error)


def _store_content(
    session: Session, source_id: int, wf: WorkspaceFile, text: str, tz: ZoneInfo, topics: Sequence[Topic]
) -> str | None:
    """Parse by kind and store items, mentions and kind-specific rows; returns an error or None."""
    items: list[ExtractedItem] = []
    card = None
    if wf.kind == "paper_card":
        card = parse_card(text)
        items = list(card_items(card, tz.key))
        card_time = local_midnight(card.created, tz.key) if card.created else None
        session.add(PaperCard(
            source_id=source_id, arxiv_id=card.arxiv_id, title=card.title, primary_category=card.primary,
            secondary=list(card.secondary), created_on=card.created, votes=card.votes, tldr=card.tldr,
        ))
        if card_time is not None:
            session.execute(update(Source).where(Source.id == source_id).values(observed_at=card_time, time_basis="header"))
    elif wf.kind == "work_queue":
        snapshots = parse_queue(text, tz)
        items = list(queue_items(snapshots))
        if snapshots:
            newest = max(s.at for s in snapshots)
            session.execute(update(Source).where(Source.id == source_id).values(observed_at=newest, time_basis="header"))
    elif wf.kind == "knowledge":
        doc = parse_knowledge(text, tz)
        snapshot = KnowledgeSnapshot(
            source_id=source_id, topic=wf.topic or "", version=doc.version, updated_at=doc.updated_at,
            citations=doc.citations,
            changelog=[{"at": r.at.isoformat(), "summary": r.summary, "citations_before": r.citations_before,
                        "citations_after": r.citations_after} for r in doc.changelog],
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
        items = list(note_items(text))
    for ordinal, extracted in enumerate(items):
        declared = extracted.queue_row or (card if wf.kind == "paper_card" else None)
        primary_topic, adjacent = classify_topics(
            extracted.heading + "\n" + extracted.text, topics,
            getattr(declared, "primary", None), getattr(declared, "secondary", ()),
        )
        item = Item(
            source_id=source_id, ordinal=ordinal, label=extracted.label, heading=extracted.heading,
            title=extracted.title, text=extracted.text, key_points=extracted.key_points, numbers=extracted.numbers,
            hedges=extracted.hedges, links=extracted.links, observed_at=extracted.observed_at,
            primary_topic=primary_topic, adjacent_topics=adjacent,
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
                secondary_category=", ".join(row.secondary) or None, note=row.note,
            ))
    return None
