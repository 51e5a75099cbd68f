"""Write workspace files as source versions with their items and mentions; unchanged files write nothing.

`ingest_files` takes a batch of files in one transaction: each file is read and hashed once, one
query finds the versions already stored, the new ones are parsed, and everything they produce is
written in bulk (one multi-row INSERT for the sources, COPY for cards, anchors, items, mentions
and queue entries). The rows, and the order ids are handed out in, are those `ingest_file` wrote
one file at a time: ids are taken from each table's sequence in file order, then entry order.
A file whose parse raises part-way is written by the per-file ORM path (`_ingest_file_orm`, the
original implementation) at its place in the order, so its partial rows are what they always were.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
from psycopg.types.json import Jsonb
from sqlalchemy import select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from db.models import Anchor, Item, KnowledgeSnapshot, Mention, PaperCard, QueueEntry, Source, Workspace
from predigest.topics import Topic
from predigest.windows import local_midnight
from tasks.cards.parse import ParsedCard, parse_card
from tasks.common.decode import decode_bytes
from tasks.inbox.filenames import parse_note_name
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.sources import ExtractedItem, card_items, note_items, queue_items
from tasks.ingest.topics import TopicClassifier
from tasks.knowledge.parse import parse_knowledge
from tasks.queue.parse import parse_queue

MAX_SOURCE_BYTES = 64 * 1024 * 1024
UTC = dt.UTC
# Rows per multi-row INSERT of sources (9 parameters a row; PostgreSQL allows 65,535 a statement).
_SOURCE_ROWS_PER_INSERT = 1000

Classify = Callable[[str, str | None, Iterable[str]], tuple[str | None, list[str]]]


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
    return ingest_files(session, workspace_id, [wf], timezone, topics)[0]


def ingest_files(
    session: Session, workspace_id: int, files: Sequence[WorkspaceFile], timezone: str, topics: Sequence[Topic] = ()
) -> list[IngestOutcome]:
    """Ingest files in the session's transaction, in order; what `ingest_file` would do for each in turn."""
    if len({wf.path for wf in files}) != len(files):
        # The same path twice: the second must see what the first wrote, so one at a time.
        return [ingest_files(session, workspace_id, [wf], timezone, topics)[0] for wf in files]
    builder = RowBuilder(workspace_id, timezone, topics)
    planned = plan_files(session, workspace_id, files)
    rows = builder.build([p for p in planned if p.existing is None])
    return write_planned(session, workspace_id, planned, rows, builder)


@dataclass(frozen=True)
class _Stored:
    id: int
    error: str | None
    superseded_at: dt.datetime | None


@dataclass(frozen=True)
class PlannedFile:
    """A file read and hashed once, with the stored version of the same bytes if there is one."""

    wf: WorkspaceFile
    data: bytes
    digest: str
    error: str | None
    existing: _Stored | None


def plan_files(session: Session, workspace_id: int, files: Sequence[WorkspaceFile]) -> list[PlannedFile]:
    """Read and hash each file once and find which (path, sha256) are stored already (one query)."""
    read = [(wf, *_read(wf)) for wf in files]
    stored = _stored_versions(session, workspace_id, [wf.path for wf in files])
    planned = []
    for wf, data, error in read:
        digest = hashlib.sha256(data).hexdigest()
        planned.append(PlannedFile(wf, data, digest, error, stored.get((wf.path, digest))))
    return planned


class RowBuilder:
    """Parses new file versions into rows (CPU only: runs in this process or in a worker process)."""

    def __init__(self, workspace_id: int, timezone: str, topics: Sequence[Topic]):
        self.workspace_id = workspace_id
        self.tz = ZoneInfo(timezone)
        self.classify: Classify = TopicClassifier(topics).classify

    def build(self, planned: Sequence[PlannedFile]) -> list[_Rows | None]:
        """Rows per file, in order; None for a file whose parse raised after producing rows."""
        return [_build(self.workspace_id, p.wf, p.data, p.digest, p.error, self.tz, self.classify) for p in planned]


def write_planned(
    session: Session, workspace_id: int, planned: Sequence[PlannedFile], rows: Sequence[_Rows | None],
    builder: RowBuilder,
) -> list[IngestOutcome]:
    """Write planned files in order: unchanged ones touch nothing (a reverted one becomes current
    again), new ones are written in bulk from `rows` (one per new file, in order)."""
    outcomes: dict[int, IngestOutcome] = {}
    pending: list[tuple[int, _Rows]] = []
    new_rows = iter(rows)
    for index, p in enumerate(planned):
        if p.existing is not None:
            outcomes[index] = _unchanged(session, workspace_id, p.wf, p.existing)
            continue
        built = next(new_rows)
        if built is None:  # its parse raised part-way: the per-file path writes what it always wrote
            outcomes.update(_write(session, workspace_id, pending))
            pending = []
            outcomes[index] = _ingest_file_orm(session, workspace_id, p.wf, p.data, p.digest, p.error,
                                               builder.tz, builder.classify)
            continue
        pending.append((index, built))
    outcomes.update(_write(session, workspace_id, pending))
    return [outcomes[i] for i in range(len(planned))]


# --- worker processes: one RowBuilder each --------------------------------------------------------

_WORKER_BUILDER: RowBuilder | None = None


def init_worker(workspace_id: int, timezone: str, topics: Sequence[Topic]) -> None:
    """Initializer of a process pool that builds rows (`build_in_worker`)."""
    global _WORKER_BUILDER
    _WORKER_BUILDER = RowBuilder(workspace_id, timezone, topics)


def build_in_worker(planned: Sequence[PlannedFile]) -> list[_Rows | None]:
    assert _WORKER_BUILDER is not None, "init_worker did not run in this process"
    return _WORKER_BUILDER.build(planned)


def _stored_versions(session: Session, workspace_id: int, paths: list[str]) -> dict[tuple[str, str], _Stored]:
    """Every stored version of these paths, by (path, sha256)."""
    if not paths:
        return {}
    rows = session.execute(
        text("SELECT id, path, sha256, error, superseded_at FROM sources "
             "WHERE workspace_id = :w AND path = ANY(:paths)"),
        {"w": workspace_id, "paths": paths},
    )
    return {(r.path, r.sha256): _Stored(r.id, r.error, r.superseded_at) for r in rows}


def _unchanged(session: Session, workspace_id: int, wf: WorkspaceFile, existing: _Stored) -> IngestOutcome:
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


# --- one file's rows ---------------------------------------------------------------------------


@dataclass
class _Entry:
    values: dict[str, Any]
    mentions: list[dict[str, Any]]
    queue: dict[str, Any] | None


@dataclass
class _Rows:
    """Everything one new file version writes."""

    source: dict[str, Any]
    card: dict[str, Any] | None = None
    snapshot: dict[str, Any] | None = None
    anchors: list[dict[str, Any]] = field(default_factory=list)
    entries: list[_Entry] = field(default_factory=list)


def _source_header(
    workspace_id: int, wf: WorkspaceFile, data: bytes, digest: str, error: str | None, tz: ZoneInfo
) -> tuple[dict[str, Any], str | None]:
    """The source row as first inserted (time from the file name, else mtime), and the text if readable."""
    text_, encoding = None, None
    if error is None:
        try:
            decoded = decode_bytes(data)
            text_, encoding = decoded.text, decoded.encoding
        except ValueError as exc:
            error = str(exc)
    observed_at, basis = _mtime(wf), "mtime"
    if wf.kind in ("note", "hf_daily", "other"):
        name = parse_note_name(wf.absolute.name, wf.author)
        if name is not None:
            observed_at, basis = name.local_time.replace(tzinfo=tz).astimezone(UTC), "filename"
    source = dict(
        workspace_id=workspace_id, path=wf.path, kind=wf.kind, author=wf.author, sha256=digest,
        size=len(data) if wf.problem is None else 0, encoding=encoding, observed_at=observed_at,
        time_basis=basis, error=error,
    )
    return source, text_


def _build(
    workspace_id: int, wf: WorkspaceFile, data: bytes, digest: str, error: str | None, tz: ZoneInfo,
    classify: Classify,
) -> _Rows | None:
    """The rows of a new file version, or None when its parse raised after producing rows."""
    source, text_ = _source_header(workspace_id, wf, data, digest, error, tz)
    rows = _Rows(source)
    if text_ is None or source["error"] is not None:
        return rows
    started = [False]
    try:
        _content(rows, wf, text_, tz, classify, started)
    except Exception as exc:  # a parser bug must not lose the file or stop the run
        if started[0]:
            return None
        # Nothing was produced yet: the version is stored with the error and no entries, as before.
        return _Rows({**source, "error": f"parse failed: {type(exc).__name__}: {exc}"})
    return rows


def _content(rows: _Rows, wf: WorkspaceFile, text_: str, tz: ZoneInfo, classify: Classify, started: list[bool]) -> None:
    """Parse by kind into `rows` (the bulk twin of `_store_content`); `started` flags the first row made."""
    items: list[ExtractedItem] = []
    card: ParsedCard | None = None
    if wf.kind == "paper_card":
        card = parse_card(text_)
        items = list(card_items(card, tz.key))
        card_time = local_midnight(card.created, tz.key) if card.created else None
        started[0] = True
        rows.card = dict(
            arxiv_id=card.arxiv_id, title=card.title, primary_category=card.primary,
            secondary=list(card.secondary), created_on=card.created, votes=card.votes, tldr=card.tldr,
        )
        if card_time is not None:
            rows.source.update(observed_at=card_time, time_basis="header")
    elif wf.kind == "work_queue":
        snapshots = parse_queue(text_, tz)
        items = list(queue_items(snapshots))
        if snapshots:
            rows.source.update(observed_at=max(s.at for s in snapshots), time_basis="header")
    elif wf.kind == "knowledge":
        doc = parse_knowledge(text_, tz)
        started[0] = True
        rows.snapshot = dict(
            topic=wf.topic or "", version=doc.version, updated_at=doc.updated_at, citations=doc.citations,
            changelog=[{"at": r.at.isoformat(), "summary": r.summary, "citations_before": r.citations_before,
                        "citations_after": r.citations_after} for r in doc.changelog],
            sections=[{"number": s.number, "title": s.title, "level": s.level, "text": s.text} for s in doc.sections],
        )
        rows.anchors = [
            dict(topic=wf.topic or "", arxiv_id=a.arxiv_id, section=a.section, anchored_on=a.anchored_on,
                 cited_on=a.cited_on, reference_only=a.reference_only, entry=a.entry)
            for a in doc.anchors
        ]
        if doc.updated_at is not None:
            rows.source.update(observed_at=doc.updated_at, time_basis="header")
        return
    else:
        items = list(note_items(text_))
    for ordinal, extracted in enumerate(items):
        declared = extracted.queue_row or (card if wf.kind == "paper_card" else None)
        primary_topic, adjacent = classify(
            extracted.heading + "\n" + extracted.text,
            getattr(declared, "primary", None), getattr(declared, "secondary", ()),
        )
        started[0] = True
        row = extracted.queue_row
        rows.entries.append(_Entry(
            values=dict(
                ordinal=ordinal, label=extracted.label, heading=extracted.heading, title=extracted.title,
                text=extracted.text, key_points=extracted.key_points, numbers=extracted.numbers,
                hedges=extracted.hedges, links=extracted.links, observed_at=extracted.observed_at, extra={},
                primary_topic=primary_topic, adjacent_topics=adjacent,
            ),
            mentions=[
                dict(arxiv_id=m.canonical, version=m.version, raw=m.raw, malformed=m.malformed, context=m.context)
                for m in extracted.mentions
            ],
            queue=None if row is None else dict(
                snapshot_at=extracted.observed_at, rank=row.rank, arxiv_id=row.arxiv_id, title=row.title,
                primary_category=row.primary, secondary_category=", ".join(row.secondary) or None, note=row.note,
            ),
        ))


# --- bulk write --------------------------------------------------------------------------------

_CARD_COLUMNS = ("source_id", "arxiv_id", "title", "primary_category", "secondary", "created_on", "votes", "tldr")
_ANCHOR_COLUMNS = ("snapshot_id", "topic", "arxiv_id", "section", "anchored_on", "cited_on", "reference_only", "entry")
_ITEM_COLUMNS = ("id", "source_id", "ordinal", "label", "heading", "title", "text", "key_points", "numbers",
                 "hedges", "links", "observed_at", "extra", "primary_topic", "adjacent_topics")
_MENTION_COLUMNS = ("item_id", "arxiv_id", "version", "raw", "malformed", "context")
_QUEUE_COLUMNS = ("source_id", "item_id", "snapshot_at", "rank", "arxiv_id", "title", "primary_category",
                  "secondary_category", "note")
_JSON = frozenset({"secondary", "key_points", "numbers", "hedges", "links", "extra", "adjacent_topics"})


def _write(session: Session, workspace_id: int, pending: list[tuple[int, _Rows]]) -> dict[int, IngestOutcome]:
    """Insert the new versions, supersede their predecessors, and copy in everything they hold."""
    if not pending:
        return {}
    outcomes: dict[int, IngestOutcome] = {}
    ids: dict[str, int] = {}
    sources = [rows.source for _, rows in pending]
    for start in range(0, len(sources), _SOURCE_ROWS_PER_INSERT):
        result = session.execute(
            insert(Source).values(sources[start : start + _SOURCE_ROWS_PER_INSERT])
            .on_conflict_do_nothing(constraint="uq_sources_path_sha256")
            .returning(Source.id, Source.path)
        )
        ids.update({path: source_id for source_id, path in result})
    written: list[tuple[int, int, _Rows]] = []
    for index, rows in pending:
        path = rows.source["path"]
        if path in ids:
            written.append((index, ids[path], rows))
            continue
        # Another worker stored the same version a moment ago.
        row = session.execute(
            select(Source.id, Source.error).where(
                Source.workspace_id == workspace_id, Source.path == path, Source.sha256 == rows.source["sha256"]
            )
        ).one()
        outcomes[index] = IngestOutcome(path, row.id, "unchanged", row.error)
    if not written:
        return outcomes
    session.execute(
        text("UPDATE sources SET superseded_at = :now WHERE workspace_id = :w AND superseded_at IS NULL "
             "AND path = ANY(:paths) AND NOT (id = ANY(:ids))"),
        {"now": dt.datetime.now(tz=UTC), "w": workspace_id,
         "paths": [rows.source["path"] for _, _, rows in written], "ids": [sid for _, sid, _ in written]},
    )

    cards = [{"source_id": sid, **rows.card} for _, sid, rows in written if rows.card is not None]
    anchors: list[dict[str, Any]] = []
    for _, sid, rows in written:
        if rows.snapshot is not None:
            snapshot_id = session.execute(
                insert(KnowledgeSnapshot).values(source_id=sid, **rows.snapshot).returning(KnowledgeSnapshot.id)
            ).scalar_one()
            anchors += [{"snapshot_id": snapshot_id, **a} for a in rows.anchors]
    entries = [(sid, entry) for _, sid, rows in written for entry in rows.entries]
    item_ids = _next_ids(session, "items", len(entries))
    items, mentions, queue = [], [], []
    for item_id, (sid, entry) in zip(item_ids, entries, strict=True):
        items.append({"id": item_id, "source_id": sid, **entry.values})
        mentions += [{"item_id": item_id, **m} for m in entry.mentions]
        if entry.queue is not None:
            queue.append({"source_id": sid, "item_id": item_id, **entry.queue})
    _copy(session, "paper_cards", _CARD_COLUMNS, cards)
    _copy(session, "anchors", _ANCHOR_COLUMNS, anchors)
    _copy(session, "items", _ITEM_COLUMNS, items)
    _copy(session, "mentions", _MENTION_COLUMNS, mentions)
    _copy(session, "queue_entries", _QUEUE_COLUMNS, queue)
    for index, sid, rows in written:
        outcomes[index] = IngestOutcome(rows.source["path"], sid, "new", rows.source["error"])
    return outcomes


def _next_ids(session: Session, table: str, count: int) -> list[int]:
    """`count` ids from the table's own sequence, ascending: what that many INSERTs would have used."""
    if count == 0:
        return []
    rows = session.execute(
        text("SELECT nextval(pg_get_serial_sequence(:t, 'id')) FROM generate_series(1, :n)"),
        {"t": table, "n": count},
    ).scalars()
    return sorted(rows)


def _copy(session: Session, table: str, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    """COPY rows in, in order (ids the COPY leaves to the table's default follow that order)."""
    if not rows:
        return
    session.flush()
    raw = session.connection().connection.driver_connection
    assert raw is not None
    json_columns = [(c, c in _JSON) for c in columns]
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row([Jsonb(row[c]) if is_json else row[c] for c, is_json in json_columns])
    except psycopg.Error as exc:
        # Raise what an INSERT through SQLAlchemy would have raised (DataError, IntegrityError, ...).
        raise DBAPIError.instance(statement, None, exc, psycopg.Error) from exc


# --- the per-file ORM path (the original implementation) ----------------------------------------


def _ingest_file_orm(
    session: Session, workspace_id: int, wf: WorkspaceFile, data: bytes, digest: str, error: str | None,
    tz: ZoneInfo, classify: Classify,
) -> IngestOutcome:
    """Store one new file version through the ORM, one entry at a time (keeps partial rows of a failed parse)."""
    source, text_ = _source_header(workspace_id, wf, data, digest, error, tz)
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
        try:
            error = _store_content(session, source_id, wf, text_, tz, classify)
        except Exception as exc:  # a parser bug must not lose the file or stop the run
            error = f"parse failed: {type(exc).__name__}: {exc}"
        if error:
            session.execute(update(Source).where(Source.id == source_id).values(error=error))
    return IngestOutcome(wf.path, source_id, "new", error)


def _store_content(
    session: Session, source_id: int, wf: WorkspaceFile, text_: str, tz: ZoneInfo, classify: Classify
) -> str | None:
    """Parse by kind and store items, mentions and kind-specific rows; returns an error or None."""
    items: list[ExtractedItem] = []
    card = None
    if wf.kind == "paper_card":
        card = parse_card(text_)
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
        items = list(queue_items(snapshots))
        if snapshots:
            newest = max(s.at for s in snapshots)
            session.execute(update(Source).where(Source.id == source_id).values(observed_at=newest, time_basis="header"))
    elif wf.kind == "knowledge":
        doc = parse_knowledge(text_, tz)
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
        items = list(note_items(text_))
    for ordinal, extracted in enumerate(items):
        declared = extracted.queue_row or (card if wf.kind == "paper_card" else None)
        primary_topic, adjacent = classify(
            extracted.heading + "\n" + extracted.text,
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
