"""Turn parsed notes, cards and queue snapshots into uniform items with their mentions."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from tasks.cards.parse import ParsedCard
from tasks.common.arxiv_ids import find_ids
from tasks.common.limits import Deadline
from tasks.inbox.feedback_file import ParsedFeedback, format_line
from tasks.inbox.notes import MentionRef, NoteWords, parse_note
from tasks.inbox.outline_reader import naming_cells, stored_outline
from tasks.inbox.own_parts import EntryText, paper_outlines
from tasks.model.note_facts import note_facts
from tasks.model.outline import Outline, PaperOutlines
from tasks.model.windows import local_midnight
from tasks.queue.parse import QueueRow, QueueSnapshot

# Any item's mention: a note's are stored as its parse made them, not copied one by one.
ExtractedMention = MentionRef


@dataclass(frozen=True)
class ExtractedItem:
    label: str | None
    heading: str
    title: str | None
    text: str
    numbers: list[Any] = field(default_factory=list)
    hedges: list[Any] = field(default_factory=list)
    links: list[Any] = field(default_factory=list)
    mentions: list[ExtractedMention] = field(default_factory=list)
    observed_at: dt.datetime | None = None
    queue_row: QueueRow | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # the note's front matter, on its first entry
    outline: Outline | None = None  # its text's outline (`items.outline`, read by judging); none for a queue row
    # A queue row without a recognised title column: its cells that can name the paper (`items.cells`).
    cells: tuple[str, ...] | None = None
    # A note's entry: its papers' own joined texts' outlines (`items.paper_outlines`, `with_paper_outlines`).
    paper_outlines: PaperOutlines | None = None
    line: int | None = None  # a note's entry: the 1-based line it starts at (not stored)


def note_items(text: str, deadline: Deadline | None = None,
               words: NoteWords | None = None) -> Iterator[ExtractedItem]:
    """One item per entry of a note, in order (those parsed before `deadline` expired); `words`:
    the ingest run's note words (`tasks.ingest.rows.IngestWords`)."""
    note = parse_note(text, deadline, words)
    for k, entry in enumerate(note.entries):
        yield ExtractedItem(
            label=entry.label, heading=entry.heading_path, title=entry.title, text=entry.text,
            numbers=entry.numbers, hedges=entry.hedges, links=entry.links, outline=stored_outline(entry.text, entry.tree),
            mentions=entry.mentions,
            extra=note_facts(note.front_matter, note.title) if k == 0 else {}, line=entry.line,
        )


# Kinds whose items judging reads whole (a card, a queue row), never as a paper's own parts.
WHOLE_ITEMS = ("paper_card", "work_queue")


def with_paper_outlines(items: list[ExtractedItem], warnings: list[str]) -> list[ExtractedItem]:
    """A note's entries as stored (within the caps, mentions capped too), each with its papers' own
    joined texts' outlines (`tasks.inbox.own_parts.paper_outlines`, which judging reads)."""
    found = paper_outlines([entry_text(x.heading, x.text, (m.canonical for m in x.mentions if not m.malformed),
                                       x.outline) for x in items], warnings)
    return [x if p is None and x.paper_outlines is None else replace(x, paper_outlines=p)
            for x, p in zip(items, found, strict=True)]


def entry_text(heading: str, text: str, canonical: Iterable[str | None], stored: Outline | None = None) -> EntryText:
    """What `paper_outlines` reads of an entry: its well-formed mentions' ids as judging reads them,
    and the outline stored of it with its part of its note's tree, so it is not read again."""
    return EntryText(heading, text, tuple(dict.fromkeys(i for i in canonical if i)), stored)


def card_items(card: ParsedCard, timezone: str) -> Iterator[ExtractedItem]:
    """A card is one item naming its paper; it counts on its created day."""
    body = "\n".join(x for x in (card.title, card.tldr) if x)
    mentions = []
    if card.arxiv_id:
        mentions.append(ExtractedMention(card.raw_arxiv or card.arxiv_id, card.arxiv_id, None, False, body))
    elif card.raw_arxiv and card.raw_arxiv not in body:
        # The card's own id is not a valid one (month 13): a malformed id, listed, never repaired.
        mentions.append(ExtractedMention(card.raw_arxiv, None, None, True, body))
    mentions += [
        ExtractedMention(m.raw, m.canonical, m.version, True, body) for m in find_ids(body) if m.malformed
    ]
    yield ExtractedItem(
        label=None, heading=card.title or (card.arxiv_id or "paper card"), title=card.title, text=card.tldr or "",
        outline=stored_outline(card.tldr or ""), mentions=mentions, observed_at=local_midnight(card.created, timezone) if card.created else None,
    )


def queue_items(snapshots: list[QueueSnapshot]) -> Iterator[ExtractedItem]:
    """One item per queue row, timed at its snapshot."""
    for snapshot in sorted(snapshots, key=lambda s: s.at):
        for row in snapshot.rows:
            mentions = []
            if row.arxiv_id:
                mentions.append(ExtractedMention(row.raw_id, row.arxiv_id, None, False, row.line))
            elif row.raw_id.strip():
                mentions.append(ExtractedMention(row.raw_id, None, None, True, row.line))
            yield ExtractedItem(
                label=f"#{row.rank}" if row.rank is not None else None, heading=snapshot.heading,
                title=row.title, text=row.line, mentions=mentions, observed_at=snapshot.at, queue_row=row,
                cells=None if row.title else naming_cells(row.line),
            )


# Malformed lines named in a feedback source's error, at most; the rest counted.
MAX_FEEDBACK_ERRORS = 5


def feedback_items(parsed: ParsedFeedback) -> Iterator[ExtractedItem]:
    """One item per verdict, timed when it was recorded, its fields in `extra["feedback"]`."""
    for v in parsed.lines:
        yield ExtractedItem(label=f"line {v.line}", heading="feedback", title=None,
                            text=format_line(v.date, v.item, v.verdict, v.by, v.at, v.reason),
                            observed_at=v.at.astimezone(dt.UTC), extra={"feedback": v.as_extra()})


def feedback_error(parsed: ParsedFeedback) -> str | None:
    """The source's error for its malformed lines (None when every list item is a verdict)."""
    if not parsed.errors:
        return None
    shown = "; ".join(parsed.errors[:MAX_FEEDBACK_ERRORS])
    more = len(parsed.errors) - MAX_FEEDBACK_ERRORS
    return f"malformed feedback: {shown}" + (f"; and {more} more" if more > 0 else "")
