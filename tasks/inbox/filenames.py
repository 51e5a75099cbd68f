"""Read the local time, author and slug out of an inbox note's file name.

Accepted shapes (the `.md` suffix is case-insensitive; a path is reduced to its last component):

    YYYY-MM-DD[T|-]HHMM-<author>-<slug>.md   e.g. 2026-10-07-1450-jay-engineering-screening-oct07-r7.md
    YYYY-MM-DD[T|-]HHMM-<slug>.md            e.g. 2026-10-06-0900-hf-daily-2026-10-06.md
    YYYY-MM-DD-<slug>.md                     no time: counts as 00:00, has_time False

A space or underscore is accepted wherever a `-` separates the parts (hand-named files drift), and
separators before the date (`-2026-10-07-...`, ` 2026-10-07 ...`, `_2026-10-07...`) are ignored.
The author always comes from the inbox directory (`author_dir`); when the name repeats it right after
the date or time (`...-1450-jay-...`), that part is dropped from the slug.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

_NAME = re.compile(
    r"^(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:(?P<sep>[Tt _-])(?P<h>\d{2})(?P<mi>\d{2})(?=[-_ ]|\.md$))?"
    r"(?:[-_ ](?P<rest>.*))?\.md$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True)
class NoteName:
    """What a note's file name says about it."""

    local_time: dt.datetime  # naive wall-clock time of the workspace's timezone (Asia/Shanghai)
    has_time: bool
    author: str | None
    slug: str


def _strip_author(rest: str, author_dir: str | None) -> str:
    n = len(author_dir or "")
    if author_dir and len(rest) > n + 1 and rest[:n].lower() == author_dir.lower() and rest[n] in "-_ ":
        return rest[n + 1 :]
    return rest


# The first year a note can be dated in: before it a date is no date (year 0001 overflows UTC). A date
# after the briefing's cutoff (year 9999) is judged against that cutoff (`tasks.window.collect`).
MIN_YEAR = 1990
_DATED = re.compile(r"^(?P<y>\d{4})[-_ .](?P<mo>\d{1,2})[-_ .](?P<d>\d{1,2})(?!\d)")
# Separators a hand-named file may start with before its date.
_LEADING = re.compile(r"^[-_ .]+(?=\d)")


def base_name(name: str) -> str:
    """The last component of `name`, without the separators it may start with before its date."""
    return _LEADING.sub("", name.replace("\\", "/").rsplit("/", 1)[-1])


def name_date_problem(name: str) -> str | None:
    """Why the date a file name starts with cannot be the note's date (Feb 30, month 13, year
    0001), or None when it starts with no date at all or with a real one."""
    base = base_name(name)
    m = _DATED.match(base)
    if m is None or not all(c.isascii() for c in m.group(0)):
        return None
    y, mo, d = int(m["y"]), int(m["mo"]), int(m["d"])
    try:
        dt.date(y, mo, d)
    except ValueError:
        return f"file name date {m.group(0)} does not exist"
    if y < MIN_YEAR:
        return f"file name date {m.group(0)} is before {MIN_YEAR}"
    return None


def parse_note_name(name: str, author_dir: str | None = None) -> NoteName | None:
    """Parse a note file name; None when it does not start with a valid date or is not `.md`."""
    base = base_name(name)
    m = _NAME.match(base)
    if m is None:
        return None
    try:
        day = dt.date(int(m["y"]), int(m["mo"]), int(m["d"]))
    except ValueError:
        return None  # 2026-13-45 is not a date, so the name carries no usable time at all
    if day.year < MIN_YEAR:
        return None  # nor is 0001-01-01 a note's date
    rest = m["rest"] or ""
    has_time = m["h"] is not None
    hour = minute = 0
    if has_time:
        hour, minute = int(m["h"]), int(m["mi"])
        if hour > 23 or minute > 59:
            # An impossible time (25:99) is kept in the slug and the note counts from midnight.
            has_time, hour, minute = False, 0, 0
            rest = f"{m['h']}{m['mi']}-{rest}" if rest else f"{m['h']}{m['mi']}"
    return NoteName(
        local_time=dt.datetime(day.year, day.month, day.day, hour, minute),
        has_time=has_time,
        author=author_dir,
        slug=_strip_author(rest, author_dir),
    )
