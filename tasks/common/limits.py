"""Bounds on what one input may cost: numbers that fit their columns, and the per-source caps and
time budget of the stages.

Numbers that fit their columns: out-of-range values are rejected (None) with a warning.

An INTEGER column holds -2^31..2^31-1; counts (votes, upvotes, ranks, citations, versions) are
never negative. A value outside its range is not a count anyone wrote on purpose, so it is
dropped and the source says so, rather than stopping the run at the database.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

INT4_MAX = 2**31 - 1


def count_or_none(value: object, field: str, warnings: list[str], maximum: int = INT4_MAX) -> int | None:
    """`value` when it is an int in 0..maximum (bools are not counts), else None and a warning."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        warnings.append(f"{field}: not a whole number: {str(value)[:40]!r}; ignored")
        return None
    if not 0 <= value <= maximum:
        shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
        warnings.append(f"{field}: {shown} is out of range 0..{maximum}; ignored")
        return None
    return value


def parse_count(text: str, field: str, warnings: list[str], maximum: int = INT4_MAX) -> int | None:
    """A count written as digits (commas allowed), bounded like `count_or_none`."""
    digits = text.replace(",", "")
    if len(digits) > 40:  # int() of a huge digit string is slow and the value is out of range anyway
        warnings.append(f"{field}: {digits[:37]}... is out of range 0..{maximum}; ignored")
        return None
    return count_or_none(int(digits), field, warnings, maximum)


# --- Caps on what one source may make the stages do (README, "Hostile inputs: the work budget") ---
# Each is far above any real note (the sample's largest is ~400 lines, ~60 entries, ~40 ids) and
# small enough that the per-source work the stages do after it stays within seconds. A source cut
# by one keeps what came before the cut, and says so: its warning starts with CAPPED, and the
# briefing's source row names it.

CAPPED = "capped: "
CUT_SHORT = "cut short: "
# Lines read per source: a note of 200,000 lines is a dump; the rest of the file is not parsed.
MAX_LINES_PER_SOURCE = 200_000
# Characters per line: a line longer than this (a minified blob, a base64 image) is cut to it;
# 200,000 still holds a pasted list of 10,000 ids, which the id cap below then cuts.
MAX_LINE_CHARS = 200_000
# Entries (items) per source: the queue of a year is 365 x 15 rows; notes have tens.
MAX_ENTRIES_PER_SOURCE = 20_000
# arXiv mentions kept per source: beyond this a file is a dump, not a note.
MAX_IDS_PER_SOURCE = 5000


def cap_lines(text: str, warnings: list[str]) -> str:
    """`text` within MAX_LINES_PER_SOURCE lines of at most MAX_LINE_CHARS characters each (the
    rest dropped, with a warning per cap). Linear in the text; the text itself when within both."""
    if len(text) <= MAX_LINE_CHARS and text.count("\n") < MAX_LINES_PER_SOURCE:
        return text
    lines = text.split("\n")
    if len(lines) > MAX_LINES_PER_SOURCE:
        warnings.append(f"{CAPPED}{len(lines)} lines; only the first {MAX_LINES_PER_SOURCE} are read")
        lines = lines[:MAX_LINES_PER_SOURCE]
    long = sum(len(line) > MAX_LINE_CHARS for line in lines)
    if not long:
        return text if len(lines) == text.count("\n") + 1 else "\n".join(lines)
    warnings.append(f"{CAPPED}{long} lines longer than {MAX_LINE_CHARS} characters; cut to that length")
    return "\n".join(line[:MAX_LINE_CHARS] for line in lines)


def limited(warnings: Iterable[object] | None) -> tuple[str, ...]:
    """The warnings of a source that say a cap or its time budget cut it (`CAPPED`, `CUT_SHORT`)."""
    return tuple(w for w in warnings or () if isinstance(w, str) and w.startswith((CAPPED, CUT_SHORT)))


class Deadline:
    """A source's time budget, checked cooperatively by the loops that work on it (nothing is
    interrupted from outside): `expired(where)` is True once the budget is spent, and the first
    place it was found spent is kept for the warning (`cut_short`). The loops check it between
    entries, from the second on, so every source keeps at least its first entry."""

    def __init__(self, seconds: float | None, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.seconds = seconds
        self.end = None if seconds is None else clock() + seconds
        self.where: str | None = None

    def expired(self, where: str) -> bool:
        if self.where is not None:
            return True
        if self.end is None or self.clock() < self.end:
            return False
        self.where = where
        return True

    def cut_short(self, done: str) -> str | None:
        """The warning for a source whose budget ran out (None if it did not): where, and what was done."""
        if self.where is None:
            return None
        return f"{CUT_SHORT}over its {self.seconds:g} s budget at {self.where}; {done}"
