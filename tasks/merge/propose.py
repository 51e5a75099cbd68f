"""The noon merge: a briefing's increments written into the knowledge document as it is now.

`propose(text, increments, merge_at, ...)` returns the whole proposed document and a unified diff
against `text`, and says per increment where it went and why:
- a NET-new paper or engineering increment becomes an entry at the end of the section the briefing
  suggests, in that section's style, marked `[anchored <merge date>]` (no such section: a marked
  section at the end of the file);
- an adjacent paper becomes a References entry `(cited <merge date>)`;
- what the document already anchors or cites is left out as already merged.
When anything merges, the header's version, `updated:` and citation count change and a change-log
row is added; every other line keeps its bytes. Applying twice equals applying once.
docs/noon-merge.md describes the whole merge.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from zoneinfo import ZoneInfo

from tasks.common.arxiv_ids import find_ids
from tasks.common.safe_text import markdown_text
from tasks.knowledge.header import DocumentWords, document_words
from tasks.knowledge.parse import ParsedKnowledge, parse_knowledge
from tasks.merge.changelog import cap_changelog, changelog_row, header_line
from tasks.merge.merged_document import (
    DocLines,
    EntryStyle,
    Heading,
    already_merged,
    body,
    clean_title,
    entry_style,
    newline_of,
    reference_line,
    scan,
)
from tasks.model.noon_merge import MergeIncrement

UNPLACED_HEADING = "## predigest merge: to place by hand"
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Placement:
    """What the proposal does with one increment."""

    key: str
    action: str  # entry, reference, already, skipped
    section: str | None  # the heading it goes under (entry, reference)
    why: str
    line: str = ""  # the line it adds


@dataclass(frozen=True)
class Proposal:
    path: str
    base_sha256: str
    merge_at: dt.datetime
    document: str
    diff: str  # unified diff, "" when nothing changes
    placements: tuple[Placement, ...]
    notes: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.diff)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _find_section(doc: DocLines, wanted: str | None) -> Heading | None:
    if not wanted:
        return None
    cleaned = " ".join(wanted.split())
    number = cleaned.split(" ", 1)[0] if cleaned.startswith("§") else ""
    last = cleaned.rsplit(" › ", 1)[-1]
    for match in (lambda h: h.label == cleaned, lambda h: " ".join(h.text.split()) == cleaned,
                  lambda h: bool(number) and h.number == number and " › " not in cleaned,
                  lambda h: clean_title(h.text) == last or h.label.rsplit(" › ", 1)[-1] == last):
        found = [h for h in doc.headings if not h.references and match(h)]
        if found:
            return found[0]
    return None


def _short_label(heading: Heading) -> str:
    """How the change log names a section: `§2.2`, or `§1.1 Router 选型安全审查` for a sub-section."""
    if heading.number:
        return heading.number
    number = heading.label.split(" ", 1)[0] if heading.label.startswith("§") else ""
    return f"{number} {clean_title(heading.text)}".strip()


def _statement(inc: MergeIncrement) -> str:
    """Its statement on one line, unless it names another paper or a date mark the parser would read."""
    text = " ".join(inc.statement.split())
    others = [m for m in find_ids(text) if m.canonical != inc.arxiv_id]
    return "" if others or re.search(r"anchored|cited", text, re.I) else text


def _ids(doc: DocLines, start: int, end: int) -> set[str]:
    return {m.canonical for line in doc.lines[start:end] for m in find_ids(body(line)) if m.canonical}


# Every briefing of a backfill proposes against the same document (as it is in the workspace
# now): it is parsed once per text. Safe to share: the result is frozen (tuples of frozen
# records), a pure function of the text, and keyed by the whole text, so a changed document is
# parsed again.
@lru_cache(maxsize=8)
def _parsed(text: str, words: DocumentWords) -> ParsedKnowledge:
    return parse_knowledge(text, ZoneInfo("UTC"), words)


@dataclass(frozen=True)
class _Document:
    """What proposing reads of a document whatever the increments: its lines and sections, line
    ending, the earliest date of each id in the body and in References, the style of the whole."""

    doc: DocLines
    nl: str
    body_dates: dict[str, dt.date | None]
    cited: dict[str, dt.date | None]
    fallback_style: EntryStyle


# As `_parsed`: one document, many briefings. Shared, so never changed by a proposal (`propose`
# only reads it and builds its own lines).
@lru_cache(maxsize=8)
def _document(text: str, words: DocumentWords) -> _Document:
    doc = scan(text, words)
    body_dates: dict[str, dt.date | None] = {}
    cited: dict[str, dt.date | None] = {}
    for a in _parsed(text, words).anchors:
        target, day_of = (cited, a.cited_on) if a.reference_only else (body_dates, a.anchored_on)
        known = target.get(a.arxiv_id)
        target[a.arxiv_id] = min(d for d in (known, day_of) if d) if (known or day_of) else None
    return _Document(doc, newline_of(doc.lines), body_dates, cited,
                     entry_style(doc.lines, 0, len(doc.lines)) or EntryStyle())


@lru_cache(maxsize=256)
def _section_style(text: str, words: DocumentWords, start: int, end: int) -> EntryStyle | None:
    return entry_style(_document(text, words).doc.lines, start, end)


def as_written(inc: MergeIncrement) -> MergeIncrement:
    """The increment as the document gets it: its title, statement and neighbours through the one
    escaping rule of published markdown (`markdown_text`: no raw HTML, link, image, bidi or control
    character from a source), each on one line."""
    return replace(inc, title=markdown_text(inc.title, ""), statement=markdown_text(inc.statement, ""),
                   neighbours=tuple(markdown_text(n, "") for n in inc.neighbours))


def propose(text: str, increments: Sequence[MergeIncrement], merge_at: dt.datetime, *, briefing_date: dt.date,
            path: str = "knowledge.md", only: Collection[str] = (), skip: Collection[str] = (),
            words: DocumentWords | None = None) -> Proposal:
    """The document with `increments` merged at `merge_at` (aware; its wall clock is the document's).
    `words`: the run's `[knowledge]` words (`document_words`)."""
    words = words if words is not None else document_words()
    # Only ids, dates and the header's count are read here; no time needs the document's timezone.
    parsed = _parsed(text, words)
    prepared = _document(text, words)
    doc, nl, body_dates, cited = prepared.doc, prepared.nl, prepared.body_dates, prepared.cited
    day = merge_at.date().isoformat()
    entries: dict[int, list[str]] = {}  # insert after line index -> new lines
    removed: set[int] = set()
    tail: list[str] = []
    refs_tail: list[str] = []
    placements: list[Placement] = []
    notes: list[str] = []
    merged: list[tuple[MergeIncrement, str]] = []  # (increment, where) for the change log
    refs = doc.references()
    fallback_style = prepared.fallback_style
    seen: set[str] = set()
    for given in increments:
        chosen = (not only or given.key in only or given.title in only) and given.key not in skip \
            and given.title not in skip
        if not chosen:
            placements.append(Placement(given.key, "skipped", None, "not chosen (--only/--skip)"))
            continue
        inc = as_written(given)  # what reaches the team's document is literal text, whatever the source held
        done = "already in this proposal" if inc.key.casefold() in seen else already_merged(doc, inc, body_dates, cited)
        seen.add(inc.key.casefold())
        if done is not None:
            placements.append(Placement(inc.key, "already", None, done))
            continue
        if inc.into_references:
            line = reference_line(doc.lines, refs.index if refs else 0, doc.section_end(refs) if refs else 0,
                                  inc.arxiv_id, inc.title, day)
            if refs is None:
                refs_tail.append(line)
                placements.append(Placement(inc.key, "reference", "References", "adjacent; no References list: "
                                            "the proposal starts one at the end", line))
            else:
                at = doc.last_content(refs.index, doc.section_end(refs))
                entries.setdefault(refs.index if at is None else at, []).append(line)
                placements.append(Placement(inc.key, "reference", refs.text, "adjacent: cited, not in the body", line))
            merged.append((inc, "References"))
            continue
        heading = _find_section(doc, inc.section)
        end = doc.section_end(heading) if heading else 0
        style = (_section_style(text, words, heading.index, end) if heading else None) or fallback_style
        if not style.open and fallback_style.open:
            style = replace(style, open=fallback_style.open, close=fallback_style.close)
        line = style.entry(inc.title, inc.arxiv_id, _statement(inc), day)
        if heading is None:
            tail.append(line)
            why = (f"no section {inc.section!r} in the document" if inc.section
                   else "the briefing suggests no section")
            placements.append(Placement(inc.key, "entry", UNPLACED_HEADING[3:], why, line))
            notes.append(f"{inc.key}: {why}; placed under '{UNPLACED_HEADING[3:]}' at the end")
        else:
            at = doc.last_content(heading.index + heading.used, end)
            entries.setdefault(heading.index + heading.used - 1 if at is None else at, []).append(line)
            neighbours = f"; next to {', '.join(inc.neighbours)}" if inc.neighbours else ""
            basis = {"hint": "the sources name the section", "text": "text match"}.get(inc.basis, "suggested")
            placements.append(Placement(inc.key, "entry", heading.text, f"{basis}{neighbours}", line))
        if inc.arxiv_id and inc.arxiv_id in cited and refs is not None:
            ref_end = doc.section_end(refs)
            gone = [i for i in range(refs.index + 1, ref_end) if inc.arxiv_id in _ids(doc, i, i + 1)]
            removed.update(gone)
            notes.append(f"{inc.key}: promoted from References (its line leaves the list)")
        merged.append((inc, _short_label(heading) if heading else UNPLACED_HEADING[3:]))
    if not merged:
        return Proposal(path, sha256_text(text), merge_at, text, "", tuple(placements), tuple(notes))
    new_ids = {inc.arxiv_id for inc, _ in merged if inc.arxiv_id and inc.arxiv_id not in body_dates
               and inc.arxiv_id not in cited}
    engineering = sum(1 for inc, _ in merged if not inc.arxiv_id)
    before = parsed.citations
    recount = before is not None and before == len(set(body_dates) | set(cited))
    after = (len(set(body_dates) | set(cited) | new_ids) if recount else
             before + len(new_ids) + engineering if before is not None else None)
    out: list[str] = []
    header_changed = False
    log = doc.changelog()
    zh = bool(_CJK.search(text))
    log_at: int | None = None  # where the change log starts in `out`
    for i, raw in enumerate(doc.lines):
        written = raw
        if i == doc.header:
            written, header_changed = header_line(raw, merge_at, after), True
        if log is not None and i == log[0]:
            log_at = len(out)
        if i not in removed:  # a promoted reference's line leaves; what goes after it stays
            out.append(written)
        if log is not None and i == log[0] + 1:  # the row goes under the table's separator line
            out.append(changelog_row(log[2], merge_at, briefing_date, merged, before, after, parsed.version,
                                     zh) + nl)
        for line in entries.get(i, []):
            if out and not out[-1].endswith(("\n", "\r")):
                out[-1] += nl
            out.append(line + nl)
    out = cap_changelog(out, doc, log, log_at)
    for heading_line, block in ((UNPLACED_HEADING, tail), ("## References", refs_tail)):
        if not block:
            continue
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += nl
        out += [nl, heading_line + nl, nl, *(line + nl for line in block)]
    if not header_changed:
        notes.append("no header line (version · updated · citations): left as it is")
    if log is None:
        notes.append("no change log table: no row added")
    document = "".join(out)
    return Proposal(path, sha256_text(text), merge_at, document, unified_diff(text, document, path),
                    tuple(placements), tuple(notes))


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff of two texts, line endings kept; a last line without one is marked as patch does."""
    from tasks.merge.merged_document import split_lines

    out: list[str] = []
    for line in difflib.unified_diff(split_lines(old), split_lines(new), f"a/{path}", f"b/{path}", n=3):
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)
