"""What one new file version writes: its source row, and its other rows already in COPY text form.

CPU only, no database: this runs in the ingesting process or in worker processes (`build_files`),
so parsing, classifying and turning rows into COPY text happen off the process that writes. A
row's ids are not known here (the writer takes them from the sequences, in order), so the id
columns come last in the COPY column lists below and each row ends in `%d` placeholders that the
writer fills in (`tasks.ingest.write`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from tasks.cards.parse import CardWords, ParsedCard, card_words, parse_card
from tasks.common.guard import describe, guarded
from tasks.common.limits import Deadline, cap_lines
from tasks.common.text import clamp_text
from tasks.config.judgment import Judgment
from tasks.inbox.feedback_file import parse_feedback
from tasks.inbox.notes import NoteWords, note_words
from tasks.ingest.copytext import NULL, escape, json_field, line, template
from tasks.ingest.copytext import field as f
from tasks.ingest.past_caps import rest_item
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.source_row import (
    CATEGORY_CHARS,
    MAX_SOURCE_BYTES,
    add_warnings,
    cap_contexts,
    cap_entries,
    fallback_source,
    read_file,
    sha256,
    source_header,
)
from tasks.ingest.sources import (
    WHOLE_ITEMS,
    ExtractedItem,
    card_items,
    feedback_error,
    feedback_items,
    note_items,
    queue_items,
    with_paper_outlines,
)
from tasks.knowledge.header import DocumentWords, document_words
from tasks.knowledge.parse import ParsedKnowledge, parse_knowledge
from tasks.model.windows import local_midnight
from tasks.queue.parse import parse_queue

__all__ = [
    "CATEGORY_CHARS", "MAX_SOURCE_BYTES", "BuiltFile", "FileRows", "IngestWords", "RowBuilder",
    "ParsedContent", "add_warnings", "build_files", "cap_contexts", "cap_entries", "fallback_source", "ingest_words",
    "init_worker", "parse_by_kind", "read_file", "sha256", "snapshot_fields", "source_header",
]

UTC = dt.UTC


# COPY column lists; the ids a row leaves out are its last columns.
CARD_COLUMNS = ("arxiv_id", "title", "primary_category", "secondary", "created_on", "votes", "tldr", "source_id")
ANCHOR_COLUMNS = ("topic", "arxiv_id", "section", "anchored_on", "cited_on", "reference_only", "entry", "snapshot_id")
ITEM_COLUMNS = ("ordinal", "label", "heading", "title", "text", "numbers", "hedges", "links",
                "observed_at", "extra", "outline", "cells", "paper_outlines", "id", "source_id")
MENTION_COLUMNS = ("arxiv_id", "version", "raw", "malformed", "context", "item_id")
QUEUE_COLUMNS = ("snapshot_at", "rank", "arxiv_id", "title", "primary_category", "secondary_category", "note",
                 "source_id", "item_id")


@dataclass
class FileRows:
    """Everything one new file version writes: its source row as first inserted, and its other
    rows as UTF-8 COPY text in `bytes % ids` templates (`copytext.template`): per file and table
    one bytes object, not one per row, because they cross from worker processes (unpickling
    150,000 small objects cost more than writing their rows) and the writer fills in each
    table's ids with one `%` (a Python loop over the rows was most of its work)."""

    source: dict[str, Any]
    card: bytes = b""  # %d: source id
    snapshot: dict[str, Any] | None = None  # inserted on its own: the anchors need its id
    anchors: bytes = b""  # per line %d: snapshot id
    anchor_count: int = 0
    items: bytes = b""  # per line %d %d: item id, source id
    mentions: bytes = b""  # per line %d: item id
    mention_counts: list[int] = field(default_factory=list)  # per item, in order: its mention lines
    queue: bytes = b""  # per line %d %d: source id, item id
    queue_items: list[int] = field(default_factory=list)  # per queue line: the index of its item


class ReadFile(Protocol):
    """A file as read and hashed (`tasks.ingest.store.PlannedFile`)."""

    @property
    def wf(self) -> WorkspaceFile: ...
    @property
    def data(self) -> bytes: ...
    @property
    def digest(self) -> str: ...
    @property
    def error(self) -> str | None: ...


@dataclass(frozen=True)
class IngestWords:
    """The words the parsers read at ingest, from the ingest run's merged judgment (packaged, the
    workspace's `predigest-judgment.toml`, PREDIGEST_JUDGMENT_FILE): a note's hedge markers and
    segmenting words (entry words, lead-in labels), a card's (and the queue's) `[cards]` words, the
    knowledge document's `[knowledge]` words."""

    notes: NoteWords
    cards: CardWords
    document: DocumentWords


@lru_cache(maxsize=8)
def ingest_words(j: Judgment | None = None) -> IngestWords:
    """`j`'s ingest words, compiled once per judgment (None: the packaged judgment, for tools and tests)."""
    return IngestWords(note_words(j), card_words(j), document_words(j))


class RowBuilder:
    """Parses new file versions into rows (CPU only: runs in this process or in a worker process),
    with the words of `judgment`, the ingest run's (`tasks.config.topics.judgment_for`)."""

    def __init__(self, workspace_id: int, timezone: str, judgment: Judgment | None, budget: int | None = None):
        self.workspace_id = workspace_id
        self.tz = ZoneInfo(timezone)
        self.words = ingest_words(judgment)
        self.budget = budget  # units of work per source (Settings.source_budget_units); None: unbounded

    def build(self, files: Sequence[ReadFile]) -> list[FileRows | None]:
        """Rows per file, in order; None for a file whose parse raised after producing rows."""
        return [self.build_one(p.wf, p.data, p.digest, p.error) for p in files]

    def build_one(self, wf: WorkspaceFile, data: bytes, digest: str, error: str | None) -> FileRows | None:
        """The rows of a new file version, or None when its parse raised after producing rows.

        Guarded as a whole: an exception anywhere (reading the header, parsing, classifying)
        costs this file alone. Before any row was made, the version is stored with the error
        (`parse failed: Type: message`) and no entries; after, the per-file path keeps the rows."""
        deadline = Deadline(self.budget)
        header = guarded(wf.path, source_header, self.workspace_id, wf, data, digest, error, self.tz)
        if header.value is None:
            failure = header.failure.error if header.failure else "no header"
            return FileRows(fallback_source(self.workspace_id, wf, digest, f"parse failed: {failure}", self.tz))
        source, text_ = header.value
        rows = FileRows(source)
        if text_ is None or source["error"] is not None:
            return rows
        started = [False]
        try:
            _content(rows, wf, text_, self.tz, started, self.words, deadline)
        except Exception as exc:  # a parser bug must not lose the file or stop the run
            if started[0]:
                return None
            # Nothing was produced yet: the version is stored with the error and no entries, as before.
            return FileRows({**source, "error": f"parse failed: {describe(exc)}"})
        return rows


@dataclass
class ParsedContent:
    """A file version parsed by its kind: its entries (within the caps), its card or its knowledge
    document, and the time its header gives (the source's time then has the basis "header")."""

    items: list[ExtractedItem] = field(default_factory=list)
    card: ParsedCard | None = None
    knowledge: ParsedKnowledge | None = None
    header_time: dt.datetime | None = None
    error: str | None = None  # what keeps part of it from being read (a feedback file's malformed lines)


def parse_by_kind(wf: WorkspaceFile, whole: str, tz: ZoneInfo, source: dict[str, Any], words: IngestWords,
                  deadline: Deadline | None = None) -> ParsedContent:
    """Parse a file version by its kind, its warnings added to the `source` row; the one parse both
    the bulk path (here) and the per-file path (`tasks.ingest.orm`) store, with the run's `words`.
    The parsers read `whole` within the line caps; past `deadline` a note's entries are parsed no
    further (`note_items`), and the ids a note holds outside what was parsed into entries are kept
    on one last entry (`tasks.ingest.past_caps`)."""
    deadline = deadline or Deadline(None)
    text_ = cap_lines(whole, source["warnings"])  # every parser after this is linear in what is left
    if wf.kind == "knowledge":
        doc = parse_knowledge(text_, tz, words.document)
        add_warnings(source, doc.warnings)
        return ParsedContent(knowledge=doc, header_time=doc.updated_at)
    out = ParsedContent()
    if wf.kind == "feedback":
        # Verdicts only: no entry, no mention (a verdict does not put its paper in a window).
        fb = parse_feedback(text_)
        return ParsedContent(items=list(feedback_items(fb)), header_time=fb.latest, error=feedback_error(fb))
    if wf.kind == "paper_card":
        out.card = parse_card(text_, wf.path.rsplit("/", 1)[-1], words.cards)
        add_warnings(source, out.card.warnings)
        items = list(card_items(out.card, tz.key))
        out.header_time = local_midnight(out.card.created, tz.key) if out.card.created else None
    elif wf.kind == "work_queue":
        snapshots = parse_queue(text_, tz, words.cards)
        add_warnings(source, [w for s in snapshots for w in s.warnings])
        items = list(queue_items(snapshots))
        out.header_time = max(s.at for s in snapshots) if snapshots else None
    else:
        items = list(note_items(text_, deadline, words.notes))
    kept = cap_entries(items, source["warnings"])
    out.items = cap_contexts(kept)
    if wf.kind not in WHOLE_ITEMS:
        out.items = with_paper_outlines(out.items, source["warnings"])
        cut = deadline.cut_short(len(kept))
        if cut:
            source["warnings"].append(cut.warning())
        rest = rest_item(whole, items[len(kept)].line if len(kept) < len(items) else deadline.line,
                         source["warnings"])
        if rest is not None:
            out.items.append(rest)
    return out


def snapshot_fields(doc: ParsedKnowledge, topic: str) -> dict[str, Any]:
    """The knowledge_snapshots row of a parsed document (its source id aside)."""
    return dict(
        topic=topic, version=doc.version, updated_at=doc.updated_at, citations=doc.citations,
        changelog=[{"at": r.at.isoformat(), "summary": r.summary, "citations_before": r.citations_before,
                    "citations_after": r.citations_after, "version": r.version} for r in doc.changelog],
        sections=[{"number": s.number, "title": s.title, "level": s.level, "text": s.text,
                   "entries": [[e.text, e.anchored_on.isoformat() if e.anchored_on else None] for e in s.entries]}
                  for s in doc.sections],
    )


def _content(
    rows: FileRows, wf: WorkspaceFile, text_: str, tz: ZoneInfo, started: list[bool], words: IngestWords,
    deadline: Deadline | None = None,
) -> None:
    """Parse by kind into `rows` (the bulk path; `tasks.ingest.orm` the per-file one); `started` flags the first row made.
    Past `deadline`, no further entry is parsed, and the source says where it was cut short."""
    parsed = parse_by_kind(wf, text_, tz, rows.source, words, deadline)
    if parsed.header_time is not None:
        rows.source.update(observed_at=parsed.header_time, time_basis="header")
    if parsed.error is not None:
        rows.source["error"] = parsed.error
    card, doc = parsed.card, parsed.knowledge
    if card is not None:
        started[0] = True
        rows.card = template([f(card.arxiv_id), f(card.title), f(card.primary), json_field(list(card.secondary)),
                              f(card.created), f(card.votes), f(card.tldr)], 1).encode()
    if doc is not None:
        started[0] = True
        rows.snapshot = snapshot_fields(doc, wf.topic or "")
        topic = escape(wf.topic or "")
        rows.anchors = "".join(
            template([topic, f(a.arxiv_id), f(a.section), f(a.anchored_on), f(a.cited_on), f(a.reference_only),
                      f(a.entry)], 1)
            for a in doc.anchors
        ).encode()
        rows.anchor_count = len(doc.anchors)
        return
    lines = _Lines()
    for ordinal, extracted in enumerate(parsed.items):
        started[0] = True
        lines.add(ordinal, extracted)
    rows.items, rows.mentions, rows.queue = (
        "".join(lines.items).encode(), "".join(lines.mentions).encode(), "".join(lines.queue).encode())
    rows.mention_counts, rows.queue_items = lines.mention_counts, lines.queue_items


def _text(value: str | None) -> str:
    """`copytext.field` for a text column, without its type tests (called for every entry and mention)."""
    return NULL if value is None else escape(value)


def _item_line(ordinal: int, x: ExtractedItem) -> str:
    return template([
        str(ordinal), _text(x.label), escape(x.heading), _text(x.title), escape(x.text),
        json_field(x.numbers), json_field(x.hedges), json_field(x.links),
        NULL if x.observed_at is None else str(x.observed_at), json_field(x.extra) if x.extra else "{}",
        NULL if x.outline is None else json_field(x.outline.to_json()),
        NULL if x.cells is None else json_field(list(x.cells)),
        NULL if x.paper_outlines is None else json_field(x.paper_outlines.to_json()),
    ], 2)


class _Lines:
    """A file's item, mention and queue rows as they are made, entry by entry."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.mentions: list[str] = []
        self.mention_counts: list[int] = []
        self.queue: list[str] = []
        self.queue_items: list[int] = []

    def add(self, ordinal: int, x: ExtractedItem) -> None:
        self.items.append(_item_line(ordinal, x))
        # Mentions of an entry mostly share one context (the entry's text): each distinct one is
        # made a line's end once (`template`'s escaping and `%` doubling), not copied through it per mention.
        ends: dict[str, str] = {}
        for m in x.mentions:
            end = ends.get(m.context)
            if end is None:
                end = ends[m.context] = template([escape(m.context)], 1)
            self.mentions.append(line([
                _text(m.canonical), NULL if m.version is None else str(m.version), escape(m.raw),
                "t" if m.malformed else "f", "",
            ]).replace("%", "%%") + end)
        self.mention_counts.append(len(x.mentions))
        row = x.queue_row
        if row is not None:
            self.queue.append(template([
                f(x.observed_at), f(row.rank), f(row.arxiv_id), f(row.title), f(row.primary),
                f(clamp_text(", ".join(row.secondary), CATEGORY_CHARS) or None), f(row.note),
            ], 2))
            self.queue_items.append(len(self.items) - 1)


# --- worker processes: one RowBuilder each --------------------------------------------------------


@dataclass(frozen=True)
class BuiltFile:
    """A file read, hashed and parsed in a worker: `rows` None when its parse raised after producing
    rows (then `data` holds its bytes for the per-file path; otherwise `data` is left empty). Its
    `WorkspaceFile` is not sent back: the writer has it."""

    digest: str
    error: str | None
    rows: FileRows | None
    data: bytes = b""


class _Worker:
    """This worker process's builder, made by the pool's initializer (`init_worker`)."""

    builder: RowBuilder | None = None


def init_worker(workspace_id: int, timezone: str, judgment: Judgment | None, budget: int | None = None) -> None:
    """Initializer of a process pool that builds rows (`build_files`)."""
    _Worker.builder = RowBuilder(workspace_id, timezone, judgment, budget)


def build_files(files: Sequence[WorkspaceFile]) -> list[BuiltFile]:
    """Read, hash and build each file, in a worker process.

    Every file is parsed, even one whose bytes turn out to be stored already (the writer finds
    that out and drops its rows): files handed to `ingest_batch` have changed, nearly all of them,
    so reading each file once, here, beats reading it in the writer and shipping the bytes over.
    """
    builder = _Worker.builder
    assert builder is not None, "init_worker did not run in this process"
    out = []
    for wf in files:
        data, error = read_file(wf)
        digest = sha256(data)
        rows = builder.build_one(wf, data, digest, error)
        out.append(BuiltFile(digest, error, rows, data if rows is None else b""))
    return out

