"""Parse a topic's living knowledge document (`organized/knowledge/<topic>.md`).

`parse_knowledge(text, tz)` reads, from the document's one CommonMark parse (`tasks.knowledge.layout`),
the header line (version · updated · citations), the change-log table (columns found by name), every
heading as a `Section`, and one `ParsedAnchor` per valid arXiv id per entry (a list item with its
continuation lines, or a paragraph): body entries carry `[anchored YYYY-MM-DD]` (a nested item
inherits its parent's), entries under `## References` carry `(cited YYYY-MM-DD)`. Tables, quotes and
fenced code give no anchors; times are wall clock in `tz`, returned as aware UTC. Drift (undated
entries, malformed ids) becomes `warnings`; `ParseError` only for non-empty text with none of header,
section, change log or anchor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal, NamedTuple, Protocol
from zoneinfo import ZoneInfo

from tasks.cards.parse import ParseError as ParseError  # re-exported: callers catch it from here
from tasks.common.arxiv_ids import find_id_spans
from tasks.common.decode import normalise_newlines
from tasks.knowledge.header import ChangelogRow as ChangelogRow  # re-exported
from tasks.knowledge.header import DocumentWords, Header, document_words, parse_changelog, parse_header
from tasks.knowledge.layout import read_layout


class SectionEntry(NamedTuple):
    """A list item of a section, its own text: what judging reads of the document's entries."""

    text: str
    anchored_on: date | None  # its own `[anchored D]`, else its parent item's


@dataclass(frozen=True)
class Section:
    """One heading and the text up to the next heading of any level."""

    number: str  # "§1.1", or "" for unnumbered headings
    title: str
    heading: str  # heading text without the hashes
    level: int
    text: str
    entries: tuple[SectionEntry, ...] = ()  # its list items (not those of the sections below it)


@dataclass(frozen=True)
class ParsedAnchor:
    """One id named by one entry of the document."""

    arxiv_id: str
    raw: str
    section: str  # e.g. "§1.1 框架格局 › Router 选型安全审查（子节，2026-10-08 新开）" or "References"
    anchored_on: date | None
    cited_on: date | None
    reference_only: bool
    entry: str


@dataclass(frozen=True)
class ParsedKnowledge:
    """Everything read from a knowledge document."""

    title: str | None
    version: str | None
    updated_at: datetime | None  # aware, UTC
    citations: int | None
    changelog: tuple[ChangelogRow, ...]  # newest first
    sections: tuple[Section, ...]
    anchors: tuple[ParsedAnchor, ...]  # document order
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnchorStatus:
    """Where an id stood in the document on a given day."""

    status: Literal["already_anchored", "reference_list_only"]
    anchored_on: date | None
    cited_on: date | None  # a reference-list-only id's earliest citation (None once anchored)
    sections: tuple[str, ...]  # body sections anchoring it by that day, document order; ("References",) when cited only


class Anchor(Protocol):
    """An id named by an entry of the document, parsed (`ParsedAnchor`) or stored (`AnchorView`)."""

    @property
    def arxiv_id(self) -> str: ...
    @property
    def section(self) -> str | None: ...
    @property
    def anchored_on(self) -> date | None: ...
    @property
    def cited_on(self) -> date | None: ...
    @property
    def reference_only(self) -> bool: ...


# An entry's anchor date. The workspace convention is "[anchored 2026-10-07]"; a colon, full-width
# brackets, upper case or a one-digit month or day are read as the same (the briefing's sections
# read bullets with this one definition, tasks.judge.sections).
ANCHORED = re.compile(r"[\[【(（]\s*anchored\s*[:：]?\s*(\d{4}-\d{1,2}-\d{1,2})\s*[\]】)）]", re.I)
_CITED = re.compile(r"[(（]\s*cited\s*[:：]?\s*(\d{4}-\d{1,2}-\d{1,2})\s*[)）]", re.I)


def to_date(y: str, m: str, d: str) -> date | None:
    """The date, or None for one that cannot exist (Feb 30)."""
    try:
        return date(int(y), int(m), int(d))
    except ValueError:
        return None


def _earliest(pattern: re.Pattern[str], text: str, warnings: list[str]) -> date | None:
    """The earliest date `pattern` finds in `text`; one that cannot exist is a warning."""
    out: date | None = None
    for m in pattern.finditer(text):
        parsed = to_date(*m.group(1).split("-"))
        if parsed is None:
            warnings.append(f"invalid date {m.group(0)!r} in: {text}")
        elif out is None or parsed < out:
            out = parsed
    return out


class _Entry(NamedTuple):
    text: str
    section: str
    in_refs: bool
    parent: int | None  # index of the entry of the list item it is nested in, for date inheritance


def _section_label(stack: list[tuple[int, str, str]]) -> str:
    """Deepest numbered heading plus any unnumbered headings below it, joined by ' › '."""
    numbered = [i for i, (_, number, _) in enumerate(stack) if number]
    start = numbered[-1] if numbered else 0
    parts = [f"{n} {t}".strip() for _, n, t in stack[start:]]
    return " › ".join(p for p in parts if p)


def _anchors(entries: list[_Entry], warnings: list[str]) -> tuple[tuple[ParsedAnchor, ...], list[date | None]]:
    """One anchor per valid id per entry, dated by the entry's own (or inherited) date; and that
    date of each entry (None in References)."""
    anchors: list[ParsedAnchor] = []
    own_dates: list[date | None] = []
    for entry in entries:
        body = entry.text
        ids: dict[str, str] = {}  # canonical -> first raw form, in document order
        for span in find_id_spans(body)[0]:  # find_ids' (raw, canonical, …), without an object per id
            if span[1]:
                ids.setdefault(span[1], span[0])
            else:
                warnings.append(f"malformed arXiv id {span[0]!r} in {entry.section or 'preamble'}: {body}")
        anchored = cited = None
        if entry.in_refs:
            cited = _earliest(_CITED, body, warnings)
            if ids and cited is None:
                warnings.append(f"reference without a (cited date): {body}")
        else:
            anchored = _earliest(ANCHORED, body, warnings)
            if anchored is None and entry.parent is not None:
                anchored = own_dates[entry.parent]  # nested detail bullets belong to their parent entry
            if ids and anchored is None:
                warnings.append(f"entry names ids without an [anchored date] in {entry.section}: {body}")
        own_dates.append(anchored)
        for arxiv_id, raw in ids.items():
            anchors.append(ParsedAnchor(arxiv_id, raw, entry.section, anchored, cited, entry.in_refs, body))
    return tuple(anchors), own_dates


def parse_knowledge(text: str, tz: ZoneInfo, words: DocumentWords | None = None) -> ParsedKnowledge:
    """Parse a knowledge document; see the module docstring for the rules. `words`: the run's
    `[knowledge]` words (`document_words`)."""
    words = words if words is not None else document_words()
    layout = read_layout(normalise_newlines(text))
    lines = layout.lines
    warnings: list[str] = []
    header = Header()
    if layout.header is not None:
        parse_header(lines[layout.header], tz, header, warnings)
    heads = layout.heads
    title = next((h.text for h in heads if h.level == 1), None)
    ends = [h.line for h in heads[1:]] + [len(lines)]
    # Each entry is labelled by the headings above it: the deepest numbered one and those below it.
    entries: list[_Entry] = []
    stack: list[tuple[int, str, str]] = []
    ref_level: int | None = None
    k, label = 0, ""
    in_section: list[int] = []  # the index of the heading each entry sits under (-1: none)
    for entry in layout.entries:
        if k < len(heads) and heads[k].line < entry.line:
            while k < len(heads) and heads[k].line < entry.line:
                h = heads[k]
                if ref_level is not None and h.level <= ref_level:
                    ref_level = None
                if ref_level is None and words.references.match(h.text):
                    ref_level = h.level
                stack = [s for s in stack if s[0] < h.level] + ([(h.level, h.number, h.title)] if h.level > 1 else [])
                k += 1
            label = "References" if ref_level is not None else _section_label(stack)
        entries.append(_Entry(entry.text, label, ref_level is not None, entry.parent))
        in_section.append(k - 1)

    anchors, dates = _anchors(entries, warnings)
    listed: list[list[SectionEntry]] = [[] for _ in heads]
    for entry, at, when in zip(layout.entries, in_section, dates, strict=True):
        if entry.listed and at >= 0:
            listed[at].append(SectionEntry(entry.text, when))
    sections = tuple(Section(h.number, h.title, h.text, h.level, "\n".join(lines[h.line + h.used:end]).strip(),
                             tuple(own)) for h, end, own in zip(heads, ends, listed, strict=False))
    changelog = [row for a, b in layout.tables for row in parse_changelog(list(lines[a:b]), tz, warnings, words)]
    changelog.sort(key=lambda r: r.at, reverse=True)
    if text.strip() and not (header.seen or changelog or anchors or any(s.number for s in sections)):
        raise ParseError("not a knowledge document: no header, numbered section, change log or anchor")
    if not text.strip():
        warnings.append("empty document")
    return ParsedKnowledge(
        title=title,
        version=header.version,
        updated_at=header.updated_at,
        citations=header.citations,
        changelog=tuple(changelog),
        sections=sections,
        anchors=anchors,
        warnings=tuple(warnings),
    )


def section_entries(text: str) -> tuple[SectionEntry, ...]:
    """The entries of a section read from its text alone: for a snapshot stored before sections
    carried their entries (`Section.entries`, which ingest stores)."""
    layout = read_layout(normalise_newlines(text))
    _, dates = _anchors([_Entry(e.text, "", False, e.parent) for e in layout.entries], [])
    return tuple(SectionEntry(e.text, when) for e, when in zip(layout.entries, dates, strict=True) if e.listed)


def anchor_status_as_of(anchors: Iterable[Anchor], day: date) -> dict[str, AnchorStatus]:
    """Status of every id the document anchors or cites on or before `day`.

    An id is already anchored when a body entry naming it carries a date on or before `day` (the
    earliest such date, every section anchoring it by then); it is reference-list only when it is
    cited in References by then and not anchored. Anything dated after `day` does not exist yet.
    """
    body: dict[str, list[Anchor]] = {}
    cited: dict[str, date] = {}
    for anchor in anchors:
        if anchor.reference_only:
            if anchor.cited_on is not None and anchor.cited_on <= day:
                cited[anchor.arxiv_id] = min(anchor.cited_on, cited.get(anchor.arxiv_id, anchor.cited_on))
        elif anchor.anchored_on is not None and anchor.anchored_on <= day:
            body.setdefault(anchor.arxiv_id, []).append(anchor)
    result: dict[str, AnchorStatus] = {}
    for arxiv_id, entries in body.items():
        first = min(a.anchored_on for a in entries if a.anchored_on is not None)
        sections = tuple(dict.fromkeys(a.section or "" for a in entries if a.section))
        result[arxiv_id] = AnchorStatus("already_anchored", first, None, sections)
    for arxiv_id, when in cited.items():
        if arxiv_id not in result:
            result[arxiv_id] = AnchorStatus("reference_list_only", None, when, ("References",))
    return result


def changelog_as_of(parsed: ParsedKnowledge, when: datetime) -> ChangelogRow | None:
    """The newest change-log row at or before `when` (which must be timezone-aware)."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("changelog_as_of needs an aware datetime")
    return max((r for r in parsed.changelog if r.at <= when), key=lambda r: r.at, default=None)
