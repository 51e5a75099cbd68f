"""The knowledge document's header line and noon-update change log (see tasks.knowledge.parse).

Times are wall clock in the document's timezone, returned as aware UTC; unreadable values are
skipped with a warning, never raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from tasks.common.limits import parse_count
from tasks.common.tables import split_table_row
from tasks.config.judgment import Judgment, default_judgment

_DATETIME = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]+(\d{1,2}):(\d{2}))?")
_HEADER_SPLIT = re.compile(r"\s*(?:·|\||;|,(?=\s*[A-Za-z_]+\s*[:：]))\s*")
_ARROW = re.compile(r"→|->|=>|⟶|➜|➔")
_VERSION = re.compile(r"[vV]?\d+(?:\.\d+)*[a-z]?")


@dataclass(frozen=True)
class ChangelogRow:
    """One row of the noon-update change log."""

    at: datetime  # aware, UTC
    summary: str
    citations_before: int | None
    citations_after: int | None  # a lone number (`448`) is the count after the update
    version: str | None = None  # the document's version after the update, when the log has a version column


@dataclass(frozen=True, eq=False)
class DocumentWords:
    """A judgment's `[knowledge]` words, compiled (`document_words`): the heading of the document's
    reference list ("## References", "## 参考文献") and the change log's column names."""

    references: re.Pattern[str]
    changelog_columns: dict[str, frozenset[str]]


@lru_cache(maxsize=8)
def document_words(j: Judgment | None = None) -> DocumentWords:
    """`j`'s document words (the run's judgment; None: the packaged one), compiled once per judgment."""
    j = j if j is not None else default_judgment()
    return DocumentWords(
        re.compile("^(" + "|".join(map(re.escape, j.words("knowledge", "references"))) + r")\b", re.I),
        {key: frozenset(j.words("knowledge", f"changelog_{key}")) for key in ("at", "summary", "citations", "version")},
    )


def local_to_utc(value: str, tz: ZoneInfo) -> datetime | None:
    """The first `YYYY-MM-DD[ HH:MM]` in `value`, read as wall clock in `tz`, as aware UTC."""
    m = _DATETIME.search(value)
    if m is None:
        return None
    y, mo, d, hh, mm = m.groups()
    try:
        return datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0), tzinfo=tz).astimezone(UTC)
    except (ValueError, OverflowError):  # Feb 30, or year 1 at +08:00
        return None


def _version(cell: str) -> str | None:
    """The version a change-log row leaves the document at: `v266 → v267` gives v267, `267` gives 267."""
    found = _VERSION.findall(_ARROW.split(cell)[-1].strip("*` "))
    return found[0] if found else None


def _int(text: str, warnings: list[str] | None = None, field: str = "citations") -> int | None:
    m = re.search(r"\d[\d,]*", text[:200])
    return parse_count(m.group(0), field, warnings if warnings is not None else []) if m else None


# A header version is what people write: v3, 2.1, v2026.10-rc1; anything else ("v∞", prose) is not stored.
_HEADER_VERSION = re.compile(r"[vV]?[0-9][0-9A-Za-z._+-]{0,62}")


@dataclass
class Header:
    seen: bool = False
    version: str | None = None
    updated_at: datetime | None = None
    citations: int | None = None


_HEADER_KEY = re.compile(r"\b(version|updated|citations)\s*[:：]", re.I)
_FIELD = re.compile(r"\s*([^:：]+?)\s*[:：]\s*(.*)$")
_HEADER_FIELDS = ("version", "updated", "citations")


def _fields(line: str) -> list[tuple[str, str]]:
    """(key, value) of each `key: value` field of a header line, key lower-cased."""
    fields = (_FIELD.match(f) for f in _HEADER_SPLIT.split(line.strip().strip("*`>").strip()))
    return [(m.group(1).strip("*` ").lower(), m.group(2).strip("*` ")) for m in fields if m is not None]


def names_header_field(line: str) -> bool:
    """Whether `line` is a header line: it has a `version`, `updated` or `citations` field."""
    return bool(_HEADER_KEY.search(line)) and any(key in _HEADER_FIELDS for key, _ in _fields(line))


def parse_header(line: str, tz: ZoneInfo, out: Header, warnings: list[str]) -> None:
    """Fill `out` from a `version · updated · citations` line; unreadable values become warnings."""
    for key, value in _fields(line):
        if key == "version":
            out.version = value if _HEADER_VERSION.fullmatch(value) else None
            if value and out.version is None:
                warnings.append(f"header: unreadable version {value[:80]!r}; not stored")
        elif key == "updated":
            out.updated_at = local_to_utc(value, tz)
            if out.updated_at is None:
                warnings.append(f"header: unreadable updated time {value!r}")
        elif key == "citations":
            out.citations = _int(value, warnings)
            if out.citations is None:
                warnings.append(f"header: unreadable citation count {value!r}")
        else:
            continue
        out.seen = True


def changelog_columns(table: list[str], words: DocumentWords) -> dict[str, int | None] | None:
    """Column index of each change-log field (at, summary, citations, version) when `table` (its
    lines, header first) is the change log: a time column plus a summary or citations column."""
    if len(table) < 2 or not re.fullmatch(r"[\s|:\-]+", table[1]):
        return None
    headers = [re.sub(r"[\s*`]", "", h).lower() for h in split_table_row(table[0])]
    cols = {
        key: next((i for i, h in enumerate(headers) if h in names), None)
        for key, names in words.changelog_columns.items()
    }
    if cols["at"] is None or (cols["summary"] is None and cols["citations"] is None):
        return None
    return cols


def parse_changelog(table: list[str], tz: ZoneInfo, warnings: list[str], words: DocumentWords) -> list[ChangelogRow]:
    """Rows of `table` when its columns name a change log (time plus summary or citations), else []."""
    cols = changelog_columns(table, words)
    if cols is None:
        return []  # not the change log (e.g. the §0 numbering map)
    rows: list[ChangelogRow] = []
    for line in table[2:]:
        cells = split_table_row(line)

        def cell(key: str, cells: list[str] = cells) -> str:
            idx = cols[key]
            return cells[idx] if idx is not None and idx < len(cells) else ""

        at = local_to_utc(cell("at"), tz)
        if at is None:
            warnings.append(f"change log: unreadable time in row: {line.strip()}")
            continue
        sides = _ARROW.split(cell("citations"), maxsplit=1)
        before, after = (_int(sides[0]), _int(sides[1])) if len(sides) == 2 else (None, _int(sides[0]))
        rows.append(ChangelogRow(at, cell("summary"), before, after, _version(cell("version"))))
    return rows
