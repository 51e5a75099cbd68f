"""The density chart of a topic's index page: SVG coordinates computed here, drawn by `topic.html`.

It shows the last `MAX_DATES` briefed dates. The x axis is calendar time, one slot per day, so a
date without a briefing is a gap, not a neighbour's bar moved over; but a gap longer than
`BREAK_DAYS` is drawn as a break of `BREAK_SLOTS` slots with a mark, so a month without briefings
does not squeeze the rest against an edge. The y axis is the density score, with the density bands'
thresholds (the briefings' own rule) as labelled gridlines; a bar's height is its score over the top
of the axis (at least `MIN_TOP`, and above the highest threshold), and a score of 0 still gets a
short outlined mark, so a quiet evening is visibly there and visibly empty. Date labels sit under
the axis: the first and the last date always, at most `MAX_LABELS` in all, evenly spaced over the
dates; every other inner one is "minor" and hidden on a narrow screen.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

WIDTH, PLOT_HEIGHT, AXIS_HEIGHT, PAD = 640.0, 160.0, 28.0, 4.0
LEFT = 30.0  # room for the score labels left of the y axis
RIGHT = 60.0  # room for the band names right of the plot, where no bar covers them
HEIGHT = PLOT_HEIGHT + AXIS_HEIGHT
MIN_TOP = 5.0
HEADROOM = 1.2  # the axis reaches this far above the highest band threshold, so its line is inside
ZERO_MARK = 3.0  # the height of a score-0 mark: thin, but a visible outline
MAX_LABELS = 7
MAX_DATES = 60
BREAK_DAYS = 7
BREAK_SLOTS = 1.5
EDGE = 60.0  # a label centred closer than this to an edge is aligned to the edge instead
# The thresholds of a briefing's density rule (its JSON's `density_numbers`) and the band each starts.
BANDS = (("medium_low", "medium-low"), ("medium", "medium"), ("high", "high"))


@dataclass(frozen=True)
class Bar:
    """One published date: its bar (or score-0 mark) in SVG user units."""

    x: float
    y: float
    width: float
    height: float
    date: str
    density: str
    score: float
    zero: bool


@dataclass(frozen=True)
class Tick:
    """One date label under the axis, centred on its day's slot."""

    x: float  # the centre of its day's slot (the tick mark)
    text_x: float
    label: str
    minor: bool
    anchor: str  # SVG text-anchor: "start"/"end" at the chart's edges, so no label is cut off


@dataclass(frozen=True)
class Band:
    """A density threshold as a gridline: the band it starts, its score and height."""

    level: str
    score: float
    y: float


@dataclass(frozen=True)
class Chart:
    width: float
    height: float
    baseline: float
    bars: list[Bar]
    ticks: list[Tick]
    left: float = LEFT
    right: float = WIDTH - RIGHT  # the plot's right edge
    top: float = MIN_TOP  # the score at the top of the y axis
    top_y: float = PAD
    bands: list[Band] | None = None
    breaks: list[float] | None = None  # the x of each break's mark


def _label(day: dt.date, first: dt.date, last: dt.date) -> str:
    """ISO dates: the year only where the chart spans more than one."""
    return day.isoformat() if first.year != last.year else day.isoformat()[5:]


def _thresholds(summaries: Sequence[Mapping[str, Any]]) -> list[tuple[str, float]]:
    """The band thresholds of the newest briefing that states them."""
    for s in reversed(summaries):
        numbers = s.get("density_numbers") or {}
        found = [(level, float(numbers[key])) for key, level in BANDS if isinstance(numbers.get(key), int | float)]
        if found:
            return found
    return []


def _slots(days: Sequence[dt.date]) -> tuple[list[float], list[float]]:
    """Each date's slot index, counted in days, a long gap as a break; and where the breaks are."""
    slots, breaks = [0.0], []
    for before, day in zip(days, days[1:], strict=False):
        gap = (day - before).days
        if gap > BREAK_DAYS:
            breaks.append(slots[-1] + 1 + BREAK_SLOTS / 2)
            slots.append(slots[-1] + 1 + BREAK_SLOTS)
        else:
            slots.append(slots[-1] + gap)
    return slots, breaks


def density_chart(summaries: Sequence[Mapping[str, Any]]) -> Chart:
    """The chart of the last MAX_DATES dates in `summaries` (each with `date`, `density_score`,
    `density`, and the rule's `density_numbers` where known)."""
    baseline = PLOT_HEIGHT - PAD
    if not summaries:
        return Chart(WIDTH, HEIGHT, baseline, [], [], bands=[], breaks=[])
    scored = sorted(((dt.date.fromisoformat(str(s["date"])), s) for s in summaries), key=lambda t: t[0])[-MAX_DATES:]
    days = [day for day, _ in scored]
    first, last = days[0], days[-1]
    slots, breaks = _slots(days)
    slot = (WIDTH - LEFT - RIGHT) / (slots[-1] + 1)
    thresholds = _thresholds([s for _, s in scored])
    top = max([MIN_TOP, *(float(s.get("density_score") or 0) for _, s in scored),
               *(HEADROOM * t for _, t in thresholds)])
    span = PLOT_HEIGHT - 2 * PAD

    def left(k: int) -> float:
        return LEFT + slots[k] * slot

    bars = []
    for k, (day, s) in enumerate(scored):
        score = float(s.get("density_score") or 0)
        height = round(max(span * score / top, ZERO_MARK), 2)
        bars.append(Bar(x=round(left(k) + slot * 0.1, 2), y=round(baseline - height, 2),
                        width=round(max(slot * 0.8, 1.0), 2), height=height, date=day.isoformat(),
                        density=str(s.get("density") or "low"), score=score, zero=score == 0))
    n = len(days)
    picked = sorted({round(i * (n - 1) / (MAX_LABELS - 1)) for i in range(MAX_LABELS)}) if n > 1 else [0]
    ticks = []
    for j, k in enumerate(picked):
        x = left(k) + slot / 2
        anchor = "start" if x < LEFT + EDGE else "end" if x > WIDTH - RIGHT - EDGE else "middle"
        text_x = LEFT if anchor == "start" else WIDTH - RIGHT if anchor == "end" else x
        ticks.append(Tick(x=round(x, 2), text_x=round(text_x, 2), label=_label(days[k], first, last),
                          minor=0 < j < len(picked) - 1 and j % 2 == 1, anchor=anchor))
    bands = [Band(level, score, round(baseline - span * score / top, 2)) for level, score in thresholds]
    return Chart(WIDTH, HEIGHT, baseline, bars, ticks, top=round(top, 2), top_y=round(baseline - span, 2),
                 bands=bands, breaks=[round(LEFT + b * slot, 2) for b in breaks])
