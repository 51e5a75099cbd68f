"""When a note was written, from what it says, never from its file's mtime.

Order (docs/work-budget.md, "Dates"): the file name (`YYYY-MM-DD[T|-]HHMM…` or the date alone = 00:00 local,
after any separators it starts with), else the front matter (`date`, `created`, `created_at`,
`日期`), else the content header (the first line of the body, when it is a heading or a
`Date:`/`日期：` line, with `YYYY-MM-DD` and optionally `HH:MM`). The first of them that carries a
date decides. A date that cannot exist (Feb 30, month 13), before MIN_YEAR or without a UTC
equivalent makes the note *undated*: it is stored with `time_basis` "undated" and a warning, placed
in no window, and listed in the briefings as undated. A date after a briefing's cutoff is judged
there (`tasks.window.collect`), where the cutoff is known.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from tasks.common.frontmatter import split_front_matter
from tasks.inbox.filenames import MIN_YEAR, name_date_problem, parse_note_name

UTC = dt.UTC
# Front-matter keys that give a note's date, in order.
DATE_KEYS = ("date", "created", "created_at", "日期")
_TEXT_DATE = re.compile(r"(?<!\d)(?P<y>\d{4})[-/.年](?P<mo>\d{1,2})[-/.月](?P<d>\d{1,2})日?"
                        r"(?:[T ]+(?P<h>\d{1,2})[:：](?P<mi>\d{2}))?(?!\d)")
_HEADER_LINE = re.compile(r"^\s*(?:#{1,6}\s|(?:date|日期)\s*[:：])", re.IGNORECASE)
# Characters of the text read for a header: the front matter and the first lines, not a whole dump.
HEAD_CHARS = 4000


@dataclass(frozen=True)
class NoteDate:
    """A note's time (aware UTC) and where it came from, or why it has none (`at` None)."""

    at: dt.datetime | None
    basis: str  # filename, header, undated
    problem: str | None = None


def local_to_utc(local: dt.datetime, tz: ZoneInfo) -> dt.datetime | None:
    """A naive wall-clock time in `tz` as aware UTC; None when it has no UTC equivalent (year 1)."""
    try:
        return local.replace(tzinfo=tz).astimezone(UTC)
    except (OverflowError, ValueError):
        return None


def _from_text(value: str, where: str, tz: ZoneInfo) -> NoteDate | None:
    """The date written in `value` (`where` names it in a problem), None when it holds no date."""
    m = _TEXT_DATE.search(value)
    if m is None:
        return None
    y, mo, d = int(m["y"]), int(m["mo"]), int(m["d"])
    h, mi = (int(m["h"]), int(m["mi"])) if m["h"] else (0, 0)
    try:
        local = dt.datetime(y, mo, d, h if h < 24 else 0, mi if mi < 60 else 0)
    except ValueError:
        return NoteDate(None, "undated", f"{where} date {m.group(0)} does not exist")
    if y < MIN_YEAR:
        return NoteDate(None, "undated", f"{where} date {m.group(0)} is before {MIN_YEAR}")
    at = local_to_utc(local, tz)
    if at is None:
        return NoteDate(None, "undated", f"{where} date {m.group(0)} has no UTC equivalent")
    return NoteDate(at, "header")


def _header_date(text: str, tz: ZoneInfo) -> NoteDate | None:
    fields, body = split_front_matter(text[:HEAD_CHARS])
    for key in DATE_KEYS:
        value = fields.get(key)
        if isinstance(value, str) and (found := _from_text(value, "front matter", tz)) is not None:
            return found
    first = next((line for line in body.split("\n") if line.strip()), "")
    if _HEADER_LINE.match(first):
        return _from_text(first, "header", tz)
    return None


def note_date(file_name: str, text: str | None, tz: ZoneInfo) -> NoteDate:
    """The note's date by the documented order (name, front matter, header), or undated."""
    problem = name_date_problem(file_name)
    if problem is not None:
        return NoteDate(None, "undated", problem)
    name = parse_note_name(file_name)
    if name is not None:
        at = local_to_utc(name.local_time, tz)
        if at is None:
            return NoteDate(None, "undated", "file name date has no UTC equivalent")
        return NoteDate(at, "filename")
    found = _header_date(text, tz) if text else None
    return found or NoteDate(None, "undated", "no date in its name, front matter or header")
