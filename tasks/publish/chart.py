"""The density chart of a topic's index page: SVG coordinates computed here, drawn by `topic.html`.

The x axis is calendar time, one slot per day from the first published date to the last, so a date
without a briefing is a gap, not a neighbour's bar moved over. A bar's height is its density score
over the highest score (at least `MIN_TOP`); a score of 0 still gets a short outlined mark, so a quiet
evening is visibly there and visibly empty. Date labels sit under the axis: at most `MAX_LABELS`
of them, evenly spaced, the last date always labelled; every other one is "minor" and hidden on a
narrow screen, where the scaled-down chart has room for fewer.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

WIDTH, PLOT_HEIGHT, AXIS_HEIGHT, PAD = 640.0, 160.0, 28.0, 4.0
HEIGHT = PLOT_HEIGHT + AXIS_HEIGHT
MIN_TOP = 5.0
ZERO_MARK = 3.0  # the height of a score-0 mark: thin, but a visible outline
MAX_LABELS = 7
EDGE = 60.0  # a label centred closer than this to an edge is aligned to the edge instead


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
class Chart:
    width: float
    height: float
    baseline: float
    bars: list[Bar]
    ticks: list[Tick]


def _label(day: dt.date, first: dt.date, last: dt.date) -> str:
    """ISO dates: the year only where the chart spans more than one."""
    return day.isoformat() if first.year != last.year else day.isoformat()[5:]


def density_chart(summaries: Sequence[Mapping[str, Any]]) -> Chart:
    """The chart of every date in `summaries` (each with `date`, `density_score`, `density`)."""
    baseline = PLOT_HEIGHT - PAD
    if not summaries:
        return Chart(WIDTH, HEIGHT, baseline, [], [])
    scored = sorted(((dt.date.fromisoformat(str(s["date"])), s) for s in summaries), key=lambda t: t[0])
    first, last = scored[0][0], scored[-1][0]
    days = (last - first).days + 1
    slot = (WIDTH - 2 * PAD) / days
    top = max([MIN_TOP, *(float(s.get("density_score") or 0) for _, s in scored)])

    def left(day: dt.date) -> float:
        return PAD + (day - first).days * slot

    bars = []
    for day, s in scored:
        score = float(s.get("density_score") or 0)
        height = round(max((PLOT_HEIGHT - 2 * PAD) * score / top, ZERO_MARK), 2)
        bars.append(Bar(x=round(left(day) + slot * 0.1, 2), y=round(baseline - height, 2),
                        width=round(max(slot * 0.8, 1.0), 2), height=height, date=day.isoformat(),
                        density=str(s.get("density") or "low"), score=score, zero=score == 0))
    step = max(1, math.ceil((days - 1) / (MAX_LABELS - 1))) if days > 1 else 1
    offsets = list(range(days - 1, -1, -step))[::-1]  # counted back from the last date, which is always labelled
    ticks = []
    for k, n in enumerate(offsets):
        x = left(first + dt.timedelta(days=n)) + slot / 2
        anchor = "start" if x < EDGE else "end" if x > WIDTH - EDGE else "middle"
        ticks.append(Tick(x=round(x, 2), text_x=round(PAD if anchor == "start" else WIDTH - PAD if anchor == "end" else x, 2),
                          label=_label(first + dt.timedelta(days=n), first, last),
                          minor=(len(offsets) - 1 - k) % 2 == 1, anchor=anchor))
    return Chart(WIDTH, HEIGHT, baseline, bars, ticks)
