"""Split a free-form inbox note into entries and pull out what each entry claims.

Every `##`–`####` heading starts an entry; a heading with no text whose next heading is deeper only
names a section (part of its children's `heading_path`), and `---` closes open sections. Text before
the first heading is the "preamble" entry (or one entry per numbered item). Notes without headings
are read in their own heading style (tasks.inbox.headings), then by top-level list items. Fenced
code never starts anything. Never raises; linear time, so garbage in gives fewer entries.
Structure lives in tasks.inbox.segment, numbers in tasks.inbox.numbers, the rest of an entry's
claims in tasks.inbox.claims.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tasks.common.arxiv_ids import find_id_spans, find_ids
from tasks.common.decode import normalise_newlines
from tasks.common.limits import Deadline
from tasks.config.judgment import Judgment
from tasks.inbox import claims
from tasks.inbox.document import Document, Part, read_document
from tasks.inbox.headings import HeadingWords, heading_words
from tasks.inbox.numbers import find_numbers
from tasks.inbox.segment import (
    PATH_SEP,
    Block,
    front_matter,
    is_hr,
    segment,
    sequence_starts,
)

__all__ = ["PATH_SEP", "Entry", "MentionRef", "NoteWords", "ParsedNote", "note_words", "parse_note"]


@dataclass(frozen=True)
class NoteWords:
    """The words the note parser reads, from the ingest run's merged judgment: its hedge markers
    (`claims.note_hedges`) and the words that head entries and make lead-ins (`headings.heading_words`)."""

    hedges: claims.HedgeMarkers
    headings: HeadingWords


@lru_cache(maxsize=8)
def note_words(j: Judgment | None = None) -> NoteWords:
    """`j`'s note words, compiled once per judgment (None: the packaged judgment, for tools and tests)."""
    return NoteWords(claims.note_hedges(j), heading_words(j))


@dataclass(frozen=True)
class MentionRef:
    """One arXiv reference inside an entry, with the text that decides its topic."""

    raw: str
    canonical: str | None
    version: int | None
    malformed: bool
    context: str  # the table row alone, or heading_path + "\n" + entry text without table rows


@dataclass
class Entry:
    """One headed, numbered or listed unit of a note."""

    ordinal: int
    label: str | None  # numbering as written ("条目#4", "增量 2", "1", "#3"), "preamble", or None
    heading: str | None  # own heading (a list item's first line), as written; None for preamble
    heading_path: str  # enclosing section headings, then its own heading, joined by " › "
    title: str | None  # heading without label, separators, votes and arXiv references
    text: str  # body without the heading line
    line: int  # 1-based line in the note where the entry starts
    numbers: list[dict[str, str]] = field(default_factory=list)
    hedges: list[dict[str, Any]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    mentions: list[MentionRef] = field(default_factory=list)
    tree: Part = field(default_factory=Part)  # its part of the note's document, in lines of `text`


@dataclass
class ParsedNote:
    """A note's front matter, title and entries."""

    front_matter: dict[str, str]
    title: str | None
    entries: list[Entry]


def _entry(ordinal: int, block: Block, lines: list[str], doc: Document, skip: range, offset: int,
           hedge_words: claims.HedgeMarkers) -> Entry:
    """An entry from its block."""
    a, b = block.start, block.end
    code = doc.code
    idx: Sequence[int]  # line index of each body line
    if skip.start < b and a < skip.stop:  # the title line sits inside the block (the preamble)
        idx = [*range(a, min(b, skip.start)), *range(max(a, skip.stop), b)]
        body, flags = [lines[j] for j in idx], [code[j] for j in idx]
    else:
        idx, body, flags = range(a, b), lines[a:b], list(code[a:b])
    lo, hi = 0, len(body)
    while lo < hi and (not body[lo].strip() or is_hr(body[lo])):
        lo += 1
    while hi > lo and (not body[hi - 1].strip() or is_hr(body[hi - 1])):
        hi -= 1
    if lo or hi < len(body):
        idx, body, flags = idx[lo:hi], body[lo:hi], flags[lo:hi]
    text = "\n".join(body)
    tree = doc.part(idx)
    heading = block.heading
    # Rows: the heading (never code), then the body lines; `scanned` is the rows joined by "\n".
    rows, row_code = ([heading, *body], [False, *flags]) if heading else (body, flags)
    scanned = f"{heading}\n{text}" if heading else text
    shift = 1 if heading else 0  # rows are the heading, then the text's lines
    found, by_line = find_id_spans(scanned)
    # Table rows and items as the tree reads them, in rows (the heading, a heading, is neither).
    tabled = {k for a, b in tree.rows for k in range(a + shift, b + shift)}
    mentions = []
    shared: str | None = None
    row, row_end, context = 0, -1, ""
    for raw, canonical, version, start, _ in found:
        if start > row_end:  # a new row: its context is worked out once, however many ids it holds
            row += scanned.count("\n", max(row_end, 0), start)
            at = scanned.rfind("\n", max(row_end, 0), start) + 1
            row_end = scanned.find("\n", start)
            row_end = len(scanned) if row_end < 0 else row_end
            if row in tabled:
                context = scanned[at:row_end].strip()  # an id in a table row belongs to that row alone
            else:
                if shared is None:
                    untabled = "\n".join(x for k, x in enumerate(body, shift) if k not in tabled) if tabled else text
                    shared = f"{block.path}\n{untabled}" if block.path else untabled
                context = shared
        mentions.append(MentionRef(raw, canonical, version, canonical is None, context))
    title = None
    if heading:
        title = claims.title(heading if block.rest is None else block.rest)
    return Entry(
        ordinal=ordinal, label=block.label, heading=heading, heading_path=block.path, title=title, text=text,
        line=offset + 1 + (block.head if heading or not body else idx[0]),
        numbers=find_numbers(scanned, row_code, found, by_line, tabled, {i.start + shift for i in tree.items}),
        hedges=claims.hedges(scanned, rows, row_code, hedge_words, tree.items, shift),
        links=claims.links(scanned), mentions=mentions, tree=tree,
    )


def _parse(text: str, deadline: Deadline | None, words: NoteWords) -> ParsedNote:
    text = normalise_newlines(text).lstrip("\ufeff")
    front, offset, body = front_matter(text)
    lines = body.split("\n")
    doc = read_document(body, sequence_starts(lines))
    code, hr, heads = list(doc.code), list(doc.hr), doc.heads
    # The first level-1 heading is the note's title, unless it names a paper: then it heads that
    # paper's entry ("# Relay (arXiv:2610.90003)" in a note whose entries are all level 1).
    title_at = next((i for i, (level, _, _) in heads.items() if level == 1), None)
    if title_at is not None and any(m.canonical for m in find_ids(heads[title_at][1])):
        title_at = None
    skip = range(0) if title_at is None else range(title_at, title_at + heads[title_at][2])
    entries: list[Entry] = []
    for block in segment(lines, body, code, hr, heads, skip, words.headings):
        # An empty preamble or gap is not an entry (a headed block always is).
        if block.heading is None and not any(
            lines[j].strip() and not is_hr(lines[j]) for j in range(block.start, block.end) if j not in skip
        ):
            continue
        if entries and deadline is not None and deadline.expired("entries", len(entries)):
            deadline.line = offset + 1 + min(block.head, block.start)  # its ids on are kept without an entry
            break  # the source's work budget is spent: keep the entries parsed so far (at least one)
        entries.append(_entry(len(entries), block, lines, doc, skip, offset, words.hedges))
    title = heads[title_at][1] if title_at is not None else None
    if not entries and body.strip():
        # Text that made no entry (a note that is one huge title line, say) is still one entry.
        entries.append(_whole(body, offset, doc))
    return ParsedNote(front_matter=front, title=title or None, entries=entries)


def _whole(body: str, offset: int, doc: Document) -> Entry:
    """The whole body as one preamble entry, with its ids and its part of the tree."""
    text = body.strip()
    first = body.count("\n", 0, len(body) - len(body.lstrip()))  # the line its text starts on
    mentions = [MentionRef(m.raw, m.canonical, m.version, m.malformed, text) for m in find_ids(text)]
    return Entry(0, "preamble", None, "", None, text, offset + 1, mentions=mentions,
                 tree=doc.part(range(first, first + text.count("\n") + 1)))


def parse_note(text: str, deadline: Deadline | None = None, words: NoteWords | None = None) -> ParsedNote:
    """Parse a note's text (any line endings) into front matter, title and entries; never raises.
    Once `deadline` has expired no further entry is parsed (the caller says so on the source).
    `words`: the ingest run's (`note_words` of its judgment; None: the packaged judgment's)."""
    try:
        return _parse(text, deadline, words if words is not None else note_words())
    except Exception:  # noqa: BLE001 - a note must never stop a run; keep its ids rather than nothing
        try:
            mentions = [MentionRef(m.raw, m.canonical, m.version, m.malformed, text) for m in find_ids(text)]
            return ParsedNote({}, None, [Entry(0, "preamble", None, "", None, text, 1, mentions=mentions)])
        except Exception:  # noqa: BLE001
            return ParsedNote({}, None, [])
