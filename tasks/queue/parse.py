"""Parse the work queue (`organized/queue/work-queue.md`) into dated Top-15 snapshots.

Contract: `parse_queue(text, tz)` returns one `QueueSnapshot` per dated heading
(`## YYYY-MM-DD HH:MM`, `## YYYY-MM-DD` = 00:00, `## YYYY-MM-DDTHH:MM`), newest first, with
the heading's wall-clock time in `tz` converted to aware UTC. Table columns are found by
their header names (#/rank, arXiv, 标题/title, 主分类/primary, 副分类/secondary, 备注/note), so
column order may drift. Bad rows are kept as far as they can be read and noted in the
snapshot's `warnings`. Whitespace-only text gives `[]`; non-empty text with neither a dated
heading nor a table raises `ParseError`. `snapshot_at_or_before` picks the newest snapshot
whose time is <= a given aware datetime.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from tasks.cards.parse import CardWords, card_words, normalize_category, split_categories
from tasks.cards.parse import ParseError as ParseError  # re-exported: callers catch it from here
from tasks.common.arxiv_ids import canonicalize, find_ids
from tasks.common.decode import normalise_newlines
from tasks.common.guard import guarded
from tasks.common.limits import parse_count
from tasks.common.tables import split_table_row


@dataclass(frozen=True)
class QueueRow:
    """One ranked row of a snapshot table."""

    rank: int | None
    raw_id: str  # the arXiv cell as written
    arxiv_id: str | None  # canonical; None when missing or malformed
    title: str | None
    primary: str | None
    secondary: tuple[str, ...]
    note: str | None
    line: str  # the raw table row


@dataclass(frozen=True)
class QueueSnapshot:
    """One dated snapshot of the queue."""

    at: datetime  # aware, UTC
    heading: str  # heading text without the leading hashes
    rows: tuple[QueueRow, ...]
    warnings: tuple[str, ...] = ()


_SNAPSHOT = re.compile(
    r"^#{2,3}\s+(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
    r"(?:(?:\s+|T)(?P<hh>\d{1,2}):?(?P<mm>\d{2})(?::\d{2})?)?(?![\d:])"
)
_ANY_HEADING = re.compile(r"^(#{1,6})\s")
_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")

# Header names, normalised (lower-case, no spaces/markup), per field they fill.
_COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "rank": ("#", "rank", "no", "no.", "排名", "序号", "名次"),
    "arxiv": ("arxiv", "arxivid", "arxiv号", "id", "论文id"),
    "title": ("标题", "title", "论文", "名称", "name"),
    "primary": ("主分类", "primary", "primarycategory", "主类"),
    "secondary": ("副分类", "secondary", "secondarycategory", "副类"),
    "note": ("备注", "note", "notes", "remark", "comment", "说明"),
}
_COLUMNS = {name: field for field, names in _COLUMN_NAMES.items() for name in names}


def _column_key(header: str) -> str | None:
    name = re.sub(r"[\s*`_]", "", header).lower()
    if name in _COLUMNS:
        return _COLUMNS[name]
    return "arxiv" if name.startswith("arxiv") else None


def _text(cell: str | None) -> str | None:
    if cell is None:
        return None
    return cell.strip() or None


def _parse_row(cells: list[str], columns: dict[str, int], line: str, warnings: list[str], words: CardWords) -> QueueRow:
    def cell(key: str) -> str | None:
        idx = columns.get(key)
        return cells[idx] if idx is not None and idx < len(cells) else None

    raw_id = (cell("arxiv") or "").strip()
    arxiv_id: str | None = None
    if raw_id:
        valid = [m.canonical for m in find_ids(raw_id) if m.canonical]
        parsed = canonicalize(raw_id.strip("`"))
        arxiv_id = valid[0] if valid else parsed[0] if parsed else None
        if arxiv_id is None:
            warnings.append(f"malformed arXiv id {raw_id!r} in row: {line.strip()}")
    else:
        warnings.append(f"row without arXiv id: {line.strip()}")
    rank_cell = cell("rank") or ""
    rank_match = re.search(r"\d+", rank_cell[:200])
    primary_cell = cell("primary")
    return QueueRow(
        rank=parse_count(rank_match.group(0), "rank", warnings) if rank_match else None,
        raw_id=raw_id,
        arxiv_id=arxiv_id,
        title=_text(cell("title")),
        primary=normalize_category(primary_cell, words) if primary_cell is not None else None,
        secondary=split_categories(cell("secondary"), words),
        note=_text(cell("note")),
        line=line,
    )


def _continues_table(lines: list[str], i: int, warnings: list[str]) -> bool:
    """Whether line i is still a row of the table above it. A row that lost its leading pipe, or a
    stray line between rows (the next line is a row again), must not end the table: the rows after
    it are kept, and the stray line is skipped with a warning."""
    line = lines[i]
    if line.lstrip().startswith("|"):
        return True
    if not line.strip() or _ANY_HEADING.match(line):
        return False
    if "|" in line:
        warnings.append(f"row without its leading pipe: {line.strip()[:200]}")
        return True
    if i + 1 < len(lines) and lines[i + 1].lstrip().startswith("|"):
        warnings.append(f"broken row skipped: {line.strip()[:200]}")
        del lines[i]  # the section's own copy of its lines (see parse_queue)
        return _continues_table(lines, i, warnings)
    return False


def _parse_tables(lines: list[str], warnings: list[str], words: CardWords) -> tuple[list[QueueRow], bool]:
    """Rows of every table in a snapshot section, and whether any table was seen."""
    rows: list[QueueRow] = []
    seen_table = False
    i = 0
    while i < len(lines):
        is_table = lines[i].lstrip().startswith("|")
        if not (is_table and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1].strip())):
            i += 1
            continue
        seen_table = True
        headers = split_table_row(lines[i])
        columns: dict[str, int] = {}
        for idx, header in enumerate(headers):
            key = _column_key(header)
            if key is not None and key not in columns:
                columns[key] = idx
        if "arxiv" not in columns:
            warnings.append(f"table without an arXiv column: {lines[i].strip()}")
        i += 2
        while i < len(lines) and _continues_table(lines, i, warnings):
            cells = split_table_row(lines[i])
            if len(cells) != len(headers):
                warnings.append(f"row has {len(cells)} cells, header has {len(headers)}: {lines[i].strip()}")
            row = guarded(lines[i], _parse_row, cells, columns, lines[i], warnings, words)
            if row.value is not None:
                rows.append(row.value)
            elif row.failure is not None:  # one broken row costs that row, not the snapshot
                warnings.append(f"row skipped ({row.failure.error}): {lines[i].strip()[:200]}")
            i += 1
    return rows, seen_table


def _snapshot_time(m: re.Match[str], tz: ZoneInfo) -> datetime | None:
    try:
        local = datetime(
            int(m.group("y")),
            int(m.group("m")),
            int(m.group("d")),
            int(m.group("hh") or 0),
            int(m.group("mm") or 0),
            tzinfo=tz,
        )
        return local.astimezone(UTC)
    except (ValueError, OverflowError):  # Feb 30, hour 25, year 1 at +08:00
        return None


def parse_queue(text: str, tz: ZoneInfo, words: CardWords | None = None) -> list[QueueSnapshot]:
    """All dated snapshots in the queue, newest first; times are the headings' wall clock in `tz`, as UTC.
    `words`: the run's `[cards]` words (a category placeholder; `card_words`)."""
    words = words if words is not None else card_words()
    lines = normalise_newlines(text).split("\n")
    sections: list[tuple[datetime, str, list[str]]] = []
    current: list[str] | None = None
    for line in lines:
        heading = _ANY_HEADING.match(line)
        if heading is None:
            if current is not None:
                current.append(line)
            continue
        m = _SNAPSHOT.match(line)
        at = _snapshot_time(m, tz) if m else None
        if at is not None:
            current = []
            sections.append((at, line.lstrip("#").strip(), current))
        elif len(heading.group(1)) <= 2:
            current = None  # a non-dated section ends the snapshot
        elif current is not None:
            current.append(line)  # sub-heading inside a snapshot

    snapshots: list[QueueSnapshot] = []
    any_table = False
    for at, heading_text, body in sections:
        warnings: list[str] = []
        rows, seen = _parse_tables(body, warnings, words)
        any_table = any_table or seen
        if not seen:
            warnings.append("snapshot without a table")
        snapshots.append(QueueSnapshot(at, heading_text, tuple(rows), tuple(warnings)))
    if not snapshots and text.strip() and not any(line.lstrip().startswith("|") for line in lines):
        raise ParseError("not a work queue: no dated snapshot heading and no table")
    snapshots.sort(key=lambda s: s.at, reverse=True)
    return snapshots


def snapshot_at_or_before(snapshots: Iterable[QueueSnapshot], when: datetime) -> QueueSnapshot | None:
    """The newest snapshot taken at or before `when` (which must be timezone-aware)."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("snapshot_at_or_before needs an aware datetime")
    eligible = [s for s in snapshots if s.at <= when]
    return max(eligible, key=lambda s: s.at, default=None)
