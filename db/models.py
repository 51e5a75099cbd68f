"""Typed SQLAlchemy 2 models: the data path source -> items -> mentions -> anchors -> briefings.

Times are stored as UTC `timestamptz`; dates that are calendar days in a topic's timezone
(anchored_on, a card's created day, a briefing's date) are stored as `date`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSONB, list[Any]: JSONB}


class Workspace(Base):
    """A workspace root; several workspaces can share one database without mixing."""

    __tablename__ = "workspaces"
    id: Mapped[int] = mapped_column(primary_key=True)
    root: Mapped[str] = mapped_column(Text, unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # What ingest stores of an item's text for judging, as numbered by tasks.ingest.reparse.STORED_PARSE,
    # that all of the workspace's rows carry (0: rows stored before migration 0013).
    stored_parse: Mapped[int] = mapped_column(Integer, server_default="0")


class Source(Base):
    """One version of one file, or one feed snapshot, identified by (path or URI, content sha256)."""

    __tablename__ = "sources"
    __table_args__ = (
        UniqueConstraint("workspace_id", "path", "sha256", name="uq_sources_path_sha256"),
        Index("ix_sources_workspace_observed", "workspace_id", "observed_at"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(Text)  # workspace-relative POSIX path, or a feed URI
    kind: Mapped[str] = mapped_column(String(32))  # note, hf_daily, arxiv_feed, paper_card, work_queue, knowledge, other
    author: Mapped[str | None] = mapped_column(String(128))
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(BigInteger)
    encoding: Mapped[str | None] = mapped_column(String(32))
    observed_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    time_basis: Mapped[str] = mapped_column(String(16))  # filename, header, mtime, feed
    error: Mapped[str | None] = mapped_column(Text)
    # Read, but with losses or drops (lossy decoding, undated name, capped ids, out-of-range numbers).
    warnings: Mapped[list[Any]] = mapped_column(JSONB, default=list, server_default="[]")
    # A feed snapshot that is empty, stale or truncated against its feed's history (tasks.feeds.health).
    feed_problem: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # What a judged feed snapshot says by itself (count, listing_day, expected_day): what its
    # feed_problem and its later days' are recomputed from (tasks.feeds.marks); NULL when never judged.
    feed_facts: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    ingested_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    superseded_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # The file's mtime when this version was read: with ingested_at, when the version was first seen.
    modified_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))

    items: Mapped[list[Item]] = relationship(back_populates="source", cascade="all, delete-orphan")


class Item(Base):
    """One entry of a source, in order: a note's entry, a card, a queue row, a knowledge entry."""

    __tablename__ = "items"
    __table_args__ = (
        UniqueConstraint("source_id", "ordinal", name="uq_items_source_ordinal"),
        # Only entries with a time of their own: most (notes) take their source's and need no entry.
        Index("ix_items_observed_at", "observed_at", postgresql_where=text("observed_at IS NOT NULL")),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"), index=True)
    ordinal: Mapped[int] = mapped_column(Integer)
    label: Mapped[str | None] = mapped_column(Text)  # how the source names it: "条目#4", "增量 2", "#3"
    heading: Mapped[str] = mapped_column(Text)
    title: Mapped[str | None] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    numbers: Mapped[list[Any]] = mapped_column(JSONB, default=list)
    hedges: Mapped[list[Any]] = mapped_column(JSONB, default=list)
    links: Mapped[list[Any]] = mapped_column(JSONB, default=list)
    # Set when an entry has its own time (a queue snapshot, a card's created day); else the source's.
    observed_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # Feed fields (upvotes, announce_type, categories, doi, journal_ref, authors) and the like.
    extra: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict, server_default="{}")
    # The text's outline, parsed once at ingest and read by judging (tasks.model.outline); NULL for a
    # queue row. A row stored before 0011 gets it from the next ingest run (tasks.ingest.reparse).
    outline: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    # A queue row without a recognised title column: its cells that can name the paper, in order
    # (tasks.inbox.outline_reader.naming_cells), read by judging for its title; NULL for every other row.
    cells: Mapped[list[str] | None] = mapped_column(JSONB, nullable=True)
    # A note entry's papers' own joined texts, their outlines parsed once at ingest (tasks.inbox.own_parts,
    # tasks.model.outline.PaperOutlines); NULL when none differs from the entry's own outline.
    paper_outlines: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    # The topic the entry is mostly about, and the others it touches (from the topics' vocabularies).

    source: Mapped[Source] = relationship(back_populates="items")
    mentions: Mapped[list[Mention]] = relationship(back_populates="item", cascade="all, delete-orphan")


class Mention(Base):
    """An item naming an arXiv id (canonical + raw form), or a malformed id-like string."""

    __tablename__ = "mentions"
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    arxiv_id: Mapped[str | None] = mapped_column(String(64), index=True)
    version: Mapped[int | None] = mapped_column(Integer)
    raw: Mapped[str] = mapped_column(Text)
    malformed: Mapped[bool] = mapped_column(Boolean, default=False)
    # The text around the mention that judges its topic (its table row, or its entry).
    context: Mapped[str] = mapped_column(Text, default="")

    item: Mapped[Item] = relationship(back_populates="mentions")


class PaperCard(Base):
    """Front matter of a paper card."""

    __tablename__ = "paper_cards"
    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"), unique=True)
    arxiv_id: Mapped[str | None] = mapped_column(String(64), index=True)
    title: Mapped[str | None] = mapped_column(Text)
    primary_category: Mapped[str | None] = mapped_column(String(64))
    secondary: Mapped[list[Any]] = mapped_column(JSONB, default=list)
    created_on: Mapped[dt.date | None] = mapped_column(Date)
    votes: Mapped[int | None] = mapped_column(Integer)
    tldr: Mapped[str | None] = mapped_column(Text)


class QueueEntry(Base):
    """One row of one dated snapshot of the reading queue."""

    __tablename__ = "queue_entries"
    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    snapshot_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    rank: Mapped[int | None] = mapped_column(Integer)
    arxiv_id: Mapped[str | None] = mapped_column(String(64))
    title: Mapped[str | None] = mapped_column(Text)
    primary_category: Mapped[str | None] = mapped_column(String(64))
    secondary_category: Mapped[str | None] = mapped_column(String(64))
    note: Mapped[str | None] = mapped_column(Text)


class KnowledgeSnapshot(Base):
    """The header of one version of a topic's knowledge document."""

    __tablename__ = "knowledge_snapshots"
    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"), unique=True)
    topic: Mapped[str] = mapped_column(String(128), index=True)
    version: Mapped[str | None] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    citations: Mapped[int | None] = mapped_column(Integer)
    # [{"at": iso, "summary": str, "citations": int|None}] newest first, as the document's change log.
    changelog: Mapped[list[Any]] = mapped_column(JSONB, default=list)
    sections: Mapped[list[Any]] = mapped_column(JSONB, default=list)  # [{"number", "title", "text"}]


class Anchor(Base):
    """An arXiv id the knowledge document anchors in its body, or cites only in References."""

    __tablename__ = "anchors"
    __table_args__ = (Index("ix_anchors_snapshot_arxiv", "snapshot_id", "arxiv_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    snapshot_id: Mapped[int] = mapped_column(ForeignKey("knowledge_snapshots.id", ondelete="CASCADE"))
    topic: Mapped[str] = mapped_column(String(128))
    arxiv_id: Mapped[str] = mapped_column(String(64))
    section: Mapped[str | None] = mapped_column(Text)
    anchored_on: Mapped[dt.date | None] = mapped_column(Date)  # body entries
    cited_on: Mapped[dt.date | None] = mapped_column(Date)  # References entries
    reference_only: Mapped[bool] = mapped_column(Boolean, default=False)
    entry: Mapped[str] = mapped_column(Text, default="")


class Briefing(Base):
    """A published briefing for (workspace, topic, date); the row lock serialises concurrent assembly."""

    __tablename__ = "briefings"
    __table_args__ = (UniqueConstraint("workspace_id", "topic", "date", name="uq_briefings_topic_date"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    topic: Mapped[str] = mapped_column(String(128))
    date: Mapped[dt.date] = mapped_column(Date)
    window_start: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    cutoff: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    content_hash: Mapped[str | None] = mapped_column(String(64))
    markdown_key: Mapped[str | None] = mapped_column(Text)
    json_key: Mapped[str | None] = mapped_column(Text)
    published_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Paper(Base):
    """The latest arXiv lookup of one canonical id: found (with its title) or unknown."""

    __tablename__ = "papers"
    arxiv_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))  # found, unknown
    title: Mapped[str | None] = mapped_column(Text)
    looked_up_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ArxivLookup(Base):
    """Every arXiv lookup as it was made: `papers` keeps the latest, a trigger (migration 0004) adds
    each new one here, so a window reads the lookups made by its cutoff."""

    __tablename__ = "paper_lookups"
    __table_args__ = (UniqueConstraint("arxiv_id", "looked_up_at", name="uq_paper_lookups_arxiv_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    arxiv_id: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    title: Mapped[str | None] = mapped_column(Text)
    looked_up_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class Verification(Base):
    """A claim pending verification, tracked across days for one topic; its status as of a day comes from its events."""

    __tablename__ = "verifications"
    __table_args__ = (UniqueConstraint("workspace_id", "topic", "key", name="uq_verifications_key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    topic: Mapped[str] = mapped_column(String(128))
    key: Mapped[str] = mapped_column(Text)  # stable identity of the subject + claim kind
    kind: Mapped[str] = mapped_column(String(32))  # hedge, unknown_id, title_mismatch, conflict, promise
    subject: Mapped[str] = mapped_column(Text)
    claim: Mapped[str] = mapped_column(Text)
    raised_on: Mapped[dt.date] = mapped_column(Date)
    last_seen: Mapped[dt.date] = mapped_column(Date)
    # How it stands (pending, stale, resolved) is never stored: it is read from its events as of a day.

    events: Mapped[list[VerificationEvent]] = relationship(back_populates="verification", cascade="all, delete-orphan")


class VerificationEvent(Base):
    """One observation of a verification: raised or seen again, or resolved, by a source on a day."""

    __tablename__ = "verification_events"
    __table_args__ = (
        UniqueConstraint("verification_id", "day", "action", "source_path", name="uq_verification_events_obs"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    verification_id: Mapped[int] = mapped_column(ForeignKey("verifications.id", ondelete="CASCADE"), index=True)
    day: Mapped[dt.date] = mapped_column(Date)
    window_day: Mapped[dt.date] = mapped_column(Date)  # the derived window that observed it
    action: Mapped[str] = mapped_column(String(16))  # raised, seen, resolved
    source_path: Mapped[str] = mapped_column(Text)
    detail: Mapped[str] = mapped_column(Text, default="")

    verification: Mapped[Verification] = relationship(back_populates="events")


class VerificationWindow(Base):
    """A window whose verifications are derived and stored, with the fingerprint of what the
    derivation up to it read: rows whose fingerprint no longer matches are dropped and derived again."""

    __tablename__ = "verification_windows"
    __table_args__ = (UniqueConstraint("workspace_id", "topic", "day", name="uq_verification_windows_day"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    topic: Mapped[str] = mapped_column(String(128))
    day: Mapped[dt.date] = mapped_column(Date)
    fingerprint: Mapped[str] = mapped_column(String(64))
    # The caps the window's checks met, per source path (`SourceBudgets.capped`): its briefing names
    # them whether it derived the window itself or reads the stored derivation.
    limits: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict, server_default="{}")
    derived_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
