"""Write new file versions in bulk: one INSERT for their sources, one UPDATE superseding what they
replace, ids for their items from the items sequence, and one COPY per table for the rest.

Ids are what `ingest_file` gave one file at a time: sources, cards, anchors, mentions and queue
entries take their ids from the column default in row order (files in order, entries in order);
item ids are taken up front, ascending, because mentions and queue entries name them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import psycopg
from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from db.models import KnowledgeSnapshot, Source
from tasks.ingest.rows import (
    ANCHOR_COLUMNS,
    CARD_COLUMNS,
    ITEM_COLUMNS,
    MENTION_COLUMNS,
    QUEUE_COLUMNS,
    FileRows,
)

UTC = dt.UTC


@dataclass(frozen=True)
class IngestOutcome:
    path: str
    source_id: int
    status: str  # new, unchanged
    error: str | None


_SOURCE_COLUMNS = ("workspace_id", "path", "kind", "author", "sha256", "size", "encoding", "observed_at",
                   "time_basis", "error", "warnings", "modified_at")
_SOURCE_TYPES = ("int", "text", "text", "text", "text", "bigint", "text", "timestamptz", "text", "text", "text",
                 "timestamptz")
# How each column is selected from its array (warnings travel as JSON text: an array of jsonb
# parameters is not something psycopg adapts from lists).
_SOURCE_SELECT = tuple(f"CAST({c} AS jsonb)" if c == "warnings" else c for c in _SOURCE_COLUMNS)
# One statement for any number of sources: a column per array parameter (a multi-row VALUES list
# would need a statement compiled per size, with ten parameters a row). Rows go in array order,
# so the ids the default hands out follow the files' order.
_INSERT_SOURCES = text(
    f"INSERT INTO sources ({', '.join(_SOURCE_COLUMNS)}) "
    f"SELECT {', '.join(_SOURCE_SELECT)} FROM unnest("
    + ", ".join(f"CAST(:{c} AS {t}[])" for c, t in zip(_SOURCE_COLUMNS, _SOURCE_TYPES, strict=True))
    + f") WITH ORDINALITY AS u({', '.join(_SOURCE_COLUMNS)}, n) ORDER BY n "
    "ON CONFLICT ON CONSTRAINT uq_sources_path_sha256 DO NOTHING RETURNING id, path"
)
# `count` ids from a table's sequence, ascending: the whole list only when another session took
# some in between (otherwise they are first..last, and sending 100,000 numbers back is waste).
_NEXT_IDS = text(
    "WITH taken AS (SELECT nextval((SELECT pg_get_serial_sequence(:t, 'id'))::regclass) AS v "
    "FROM generate_series(1, :n)) "
    "SELECT min(v), max(v), CASE WHEN max(v) - min(v) + 1 = count(*) THEN NULL "
    "ELSE array_agg(v ORDER BY v) END FROM taken"
)


def write_new(session: Session, workspace_id: int, pending: list[tuple[int, FileRows]]) -> dict[int, IngestOutcome]:
    """Insert the new versions (keyed by their index in the batch), supersede their predecessors,
    and copy in everything they hold."""
    if not pending:
        return {}
    outcomes: dict[int, IngestOutcome] = {}
    sources = [rows.source for _, rows in pending]
    result = session.execute(_INSERT_SOURCES, {c: [_source_value(s, c) for s in sources] for c in _SOURCE_COLUMNS})
    ids = {path: source_id for source_id, path in result}
    written: list[tuple[int, int, FileRows]] = []
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

    # Fill in the ids: one `bytes % tuple` per file and table (`FileRows` holds templates).
    cards: list[bytes] = []
    anchors: list[bytes] = []
    for _, sid, rows in written:
        if rows.card:
            cards.append(rows.card % sid)
        if rows.snapshot is not None:
            snapshot_id = session.execute(
                insert(KnowledgeSnapshot).values(source_id=sid, **rows.snapshot).returning(KnowledgeSnapshot.id)
            ).scalar_one()
            anchors.append(rows.anchors % ((snapshot_id,) * rows.anchor_count))
    item_ids = _next_ids(session, "items", sum(len(rows.mention_counts) for _, _, rows in written))
    items: list[bytes] = []
    mentions: list[bytes] = []
    queue: list[bytes] = []
    start = 0
    for _, sid, rows in written:
        own = item_ids[start : start + len(rows.mention_counts)]
        start += len(own)
        if rows.items:
            items.append(rows.items % tuple(chain.from_iterable(zip(own, repeat(sid)))))
        if rows.mentions:
            mentions.append(rows.mentions % tuple(chain.from_iterable(map(repeat, own, rows.mention_counts))))
        if rows.queue:
            queue.append(rows.queue % tuple(chain.from_iterable((sid, own[k]) for k in rows.queue_items)))
    _copy(session, "paper_cards", CARD_COLUMNS, cards)
    _copy(session, "anchors", ANCHOR_COLUMNS, anchors)
    _copy(session, "items", ITEM_COLUMNS, items)
    _copy(session, "mentions", MENTION_COLUMNS, mentions)
    _copy(session, "queue_entries", QUEUE_COLUMNS, queue)
    for index, sid, rows in written:
        outcomes[index] = IngestOutcome(rows.source["path"], sid, "new", rows.source["error"])
    return outcomes


def _source_value(source: dict[str, object], column: str) -> object:
    if column == "warnings":
        return json.dumps(source.get("warnings") or [], ensure_ascii=False)
    return source[column]


def _next_ids(session: Session, table: str, count: int) -> Sequence[int]:
    """`count` ids from the table's own sequence, ascending: what that many INSERTs would have used."""
    if count == 0:
        return ()
    first, last, every = session.execute(_NEXT_IDS, {"t": table, "n": count}).one()
    return range(first, last + 1) if every is None else every


def _copy(session: Session, table: str, columns: tuple[str, ...], lines: list[bytes]) -> None:
    """COPY lines (COPY text, UTF-8) in, in order (ids the COPY leaves to the table's default follow
    that order); one write per table and batch, so psycopg sends it in as few messages as it can."""
    if not lines:
        return
    session.flush()
    raw = session.connection().connection.driver_connection
    assert raw is not None
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:
            copy.write(b"".join(lines))
    except psycopg.Error as exc:
        # Raise what an INSERT through SQLAlchemy would have raised (DataError, IntegrityError, ...).
        raise DBAPIError.instance(statement, None, exc, psycopg.Error) from exc
