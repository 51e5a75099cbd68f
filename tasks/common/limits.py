"""Bounds on what one input may cost: numbers that fit their columns, and the per-source caps and
work budget of the stages.

Numbers that fit their columns: out-of-range values are rejected (None) with a warning.

An INTEGER column holds -2^31..2^31-1; counts (votes, upvotes, ranks, citations, versions) are
never negative. A value outside its range is not a count anyone wrote on purpose, so it is
dropped and the source says so, rather than stopping the run at the database.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

INT4_MAX = 2**31 - 1
T = TypeVar("T")


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


# --- Caps on what one source may make the stages do (docs/work-budget.md) ---
# Each is far above any real note (the sample's largest is ~400 lines, ~60 entries, ~40 ids) and
# small enough that the per-source work the stages do after it stays within seconds. A source cut
# by one keeps what came before the cut, and says so: its warning starts with CAPPED, and the
# briefing's source row names it.

CAPPED = "capped: "
CUT_SHORT = "cut short: "
# Lines read per source: a note of 200,000 lines is a dump; the rest of the file is not parsed.
MAX_LINES_PER_SOURCE = 200_000
# Characters per line: a line longer than this (a minified blob, a base64 image) is cut to it.
MAX_LINE_CHARS = 200_000
# Entries (items) per source: the queue of a year is 365 x 15 rows; notes have tens.
MAX_ENTRIES_PER_SOURCE = 20_000
# No cap on arXiv ids: every id of a file is stored, those of the part no entry was parsed from
# on one entry of their own (`tasks.ingest.past_caps`); the work budget bounds how many are judged.
# Other sources one window source's numbers about a subject are paired with, when one side holds
# several comparable readings (`tasks.verify.conflicts`): a paper discussed by this many notes of
# one month is a dump or a flood; each pair costs the product of the two sources' readings.
MAX_COMPARED_SOURCES = 200


# What an arXiv reference is written with ("arXiv:2610.04646", "hep-th/9901001v2"): a line is cut
# before a word of these that runs across its cap, so no reference is cut into another or a
# malformed one; a run longer than any reference (a blob) is cut at the cap.
_WORD_AT = re.compile(r"[A-Za-z0-9.:/_-]")
_WORD_TAIL = re.compile(r"(?<![A-Za-z0-9.:/_-])[A-Za-z0-9.:/_-]{1,99}\Z")


def line_cut(line: str) -> int:
    """Where a line longer than MAX_LINE_CHARS is cut: at MAX_LINE_CHARS, or before the word there."""
    if not _WORD_AT.match(line, MAX_LINE_CHARS):
        return MAX_LINE_CHARS
    word = _WORD_TAIL.search(line, MAX_LINE_CHARS - 99, MAX_LINE_CHARS)
    return word.start() if word else MAX_LINE_CHARS


def cap_lines(text: str, warnings: list[str]) -> str:
    """`text` within MAX_LINES_PER_SOURCE lines of at most MAX_LINE_CHARS characters each (the
    rest dropped, with a warning per cap; a line is cut where `line_cut` says). Linear in the
    text; the text itself when within both."""
    if len(text) <= MAX_LINE_CHARS and text.count("\n") < MAX_LINES_PER_SOURCE:
        return text
    lines = text.split("\n")
    if len(lines) > MAX_LINES_PER_SOURCE:
        warnings.append(f"{CAPPED}{len(lines)} lines; only the first {MAX_LINES_PER_SOURCE} are read")
        lines = lines[:MAX_LINES_PER_SOURCE]
    long = sum(len(line) > MAX_LINE_CHARS for line in lines)
    if not long:
        return text if len(lines) == text.count("\n") + 1 else "\n".join(lines)
    warnings.append(f"{CAPPED}{long} lines longer than {MAX_LINE_CHARS} characters; cut to that length, before a word it would split")
    return "\n".join(line[: line_cut(line)] if len(line) > MAX_LINE_CHARS else line for line in lines)


def limited(warnings: Iterable[object] | None) -> tuple[str, ...]:
    """The warnings of a source that say a cap or its work budget cut it (`CAPPED`, `CUT_SHORT`)."""
    return tuple(w for w in warnings or () if isinstance(w, str) and w.startswith((CAPPED, CUT_SHORT)))


class Deadline:
    """A source's work budget at ingest, counted in units (one per entry a loop works on), checked
    cooperatively by the loops that work on it: `expired(step, entry)` charges one unit and is True
    once the budget is spent, and the first place it was found spent is kept (`cut_short`). The
    loops check it between entries, from the second on, so every source keeps at least its first
    entry. Counted, not timed: the same input is cut at the same entry on any machine, at any load."""

    def __init__(self, units: int | None):
        self.units = units
        self.spent = 1  # the first entry, always kept
        self.where: tuple[str, int] | None = None  # (step, 0-based entry) where it was found spent
        self.line: int | None = None  # the 1-based line of the text the step stopped at, when it says

    def expired(self, step: str, entry: int = 0) -> bool:
        if self.where is not None:
            return True
        if self.units is None or self.spent < self.units:
            self.spent += 1
            return False
        self.where = (step, entry)
        return True

    def cut_short(self, done: int) -> CutShort | None:
        """Where the budget ran out and how many entries were `done` by then (None if it did not)."""
        if self.where is None:
            return None
        step, entry = self.where
        return CutShort(step, entry + 1, done, self.units or 0)


# --- The per-source budget of ingest, judging and verification (docs/work-budget.md) ---
PARSING = "parsing"
JUDGING = "judging"
VERIFYING = "verifying"
# Each loop that works through a source, and the stage it belongs to (its wording: the label tables).
STEPS = {"entries": PARSING, "papers": JUDGING, "engineering": JUDGING,
         "hedges": VERIFYING, "numbers": VERIFYING, "promises": VERIFYING, "settlements": VERIFYING}
# A unit of work: the source path it is charged to, and the position (0-based) of the entry it is about.
Unit = tuple[str, int]


@dataclass(frozen=True)
class CutShort:
    """Where a source's budget ran out: in which step (of which stage), at which of its entries
    (1-based), and how many of its entries that step had done.

    A cut made at ingest is stored among the source's warnings as `warning()`, and read back by
    `read` when a briefing words it in its own language: the two are one format, kept here."""

    step: str  # a key of STEPS
    at: int
    done: int
    units: int  # the budget that ran out
    left: int = 0  # the evening's units of work it left undone, in every step after (not stored)

    @property
    def stage(self) -> str:
        return STEPS[self.step]

    def warning(self) -> str:
        return f"{CUT_SHORT}over its {self.units}-unit budget in step {self.step}, at entry {self.at}; done: {self.done}"

    @classmethod
    def read(cls, warning: str) -> CutShort | None:
        """The cut a stored `warning()` says (None for any other warning, and for the seconds form
        stored before budgets were counted: that one is shown as stored)."""
        m = _CUT_WARNING.fullmatch(warning)
        if m is None or m["step"] not in STEPS:
            return None
        return cls(m["step"], int(m["at"]), int(m["done"]), int(m["units"]))


_CUT_WARNING = re.compile(re.escape(CUT_SHORT) + r"over its (?P<units>\d+)-unit budget in step (?P<step>\w+), "
                          r"at entry (?P<at>\d+); done: (?P<done>\d+)")


class SourceBudgets:
    """Each source's work budget for judging and verifying one window, counted in units: each unit
    of work done for a source (a paper it names first, an engineering candidate of it, an entry of
    it a check reads) costs it one, and a loop whose unit does more (comparisons, say) charges that
    too (`charge`). A slow source spends its own budget and never another's, and the same window
    is cut at the same place on any machine, at any load.

    Checked cooperatively between units (`each`), from a source's second unit on, so every source
    keeps its first. Once a source is found spent it is skipped from then on, in every step, and
    `cut` says where; what it contributed before stays. `units=None`: unbounded."""

    def __init__(self, units: int | None):
        self.units = units
        self.spent: Counter[str] = Counter()  # path -> units charged
        self.total: Counter[str] = Counter()  # path -> units of work done in every step
        self.done: dict[tuple[str, str], set[int]] = defaultdict(set)  # (path, step) -> entries worked on
        self.cut: dict[str, CutShort] = {}
        self.left: Counter[str] = Counter()  # path -> units skipped once it was cut
        self.capped: dict[str, list[str]] = defaultdict(list)  # path -> what a cap left out, as `capped:` warnings

    def cap(self, path: str, warning: str) -> None:
        """Record that a cap of the evening's checks left part of `path`'s work undone (`CAPPED` ...);
        once, however often a window's checks run."""
        if warning not in self.capped[path]:
            self.capped[path].append(warning)

    def charge(self, path: str, cost: int) -> None:
        """Charge `path` `cost` more units for the unit of work in hand (what it did beyond one)."""
        if cost > 0:
            self.spent[path] += cost

    def go_on(self, path: str, step: str, entry: int) -> bool:
        """True while `path` may do another unit of `step` (about its entry `entry`); False, recorded
        in `cut`, once its budget is spent."""
        if path in self.cut:
            return False
        if not self.total[path] or self.units is None or self.spent[path] < self.units:
            return True
        self.cut[path] = CutShort(step, entry + 1, len(self.done[(path, step)]), self.units)
        return False

    def each(self, items: Iterable[T], step: str, unit: Callable[[T], Unit]) -> Iterator[T]:
        """The items whose source (`unit(item)`: its path and entry) is within its budget, each
        charged one unit (the caller adds what it costs beyond that with `charge`)."""
        for item in items:
            path, entry = unit(item)
            if not self.go_on(path, step, entry):
                self.skip(path)
                continue
            self.spent[path] += 1
            self.total[path] += 1
            self.done[(path, step)].add(entry)
            yield item

    def skip(self, path: str) -> None:
        """Count a unit of work `path` leaves undone, being cut."""
        self.left[path] += 1

    def cuts(self) -> dict[str, CutShort]:
        """`cut`, each with the units of work it left undone so far (what a briefing says it left out)."""
        return {path: replace(cut, left=self.left[path]) for path, cut in self.cut.items()}

    def kept(self, items: Iterable[T], path: Callable[[T], str]) -> list[T]:
        """The items whose source is not cut (a spent source's contributions are dropped from then on)."""
        return [item for item in items if path(item) not in self.cut]


def unbounded() -> SourceBudgets:
    """Budgets that never run out (a caller that gave none: tests, `predigest explain`)."""
    return SourceBudgets(None)
