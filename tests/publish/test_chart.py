"""Contract of the density chart's geometry (`tasks.publish.chart.density_chart`), over generated dates:

- one bar per published date of the last `MAX_DATES`, oldest left, on a calendar axis: the distance
  between two bars is their distance in days times one day's slot, so a missing date is a gap; a
  gap longer than `BREAK_DAYS` is a break of `BREAK_SLOTS` slots with a mark between the two bars,
  so a month without briefings never squeezes the others against an edge;
- a score of 0 has a mark of `ZERO_MARK` height flagged `zero`; other heights are proportional to
  the score over the top of the y axis: max(highest score, MIN_TOP, HEADROOM x highest threshold);
- the density rule's thresholds (the newest briefing's `density_numbers`) are gridlines at their
  score's height, labelled with the band they start;
- date labels: the first and the last date always, at most `MAX_LABELS`, neither end minor, no two
  adjacent both minor (a phone shows every other one), every label anchored inside the chart;
- no dates: no bars, no labels.
"""

from __future__ import annotations

import datetime as dt
import itertools

from hypothesis import given
from hypothesis import strategies as st

from tasks.publish.chart import (
    BREAK_DAYS,
    BREAK_SLOTS,
    HEADROOM,
    LEFT,
    MAX_DATES,
    MAX_LABELS,
    MIN_TOP,
    PAD,
    PLOT_HEIGHT,
    RIGHT,
    WIDTH,
    ZERO_MARK,
    density_chart,
)

START = dt.date(2026, 1, 1)
RULE = {"medium_low": 0.5, "medium": 1.5, "high": 3.0, "adjacent_weight": 0.3}


@given(st.dictionaries(st.integers(0, 400), st.sampled_from([0.0, 0.5, 1.25, 3.0, 7.5]), min_size=1, max_size=90),
       st.booleans())
def test_bars_sit_on_a_calendar_axis_with_breaks_zero_marks_bands_and_labels(scores: dict[int, float],
                                                                             ruled: bool) -> None:
    summaries = [{"date": (START + dt.timedelta(days=d)).isoformat(), "density_score": s, "density": "low",
                  **({"density_numbers": RULE} if ruled else {})}
                 for d, s in sorted(scores.items(), reverse=True)]  # any order in
    chart = density_chart(summaries)
    days = sorted(scores)[-MAX_DATES:]
    assert [b.date for b in chart.bars] == [(START + dt.timedelta(days=d)).isoformat() for d in days]
    units = 1 + sum(g if g <= BREAK_DAYS else 1 + BREAK_SLOTS for g in (b - a for a, b in itertools.pairwise(days)))
    slot = (WIDTH - LEFT - RIGHT) / units
    breaks = iter(chart.breaks or [])
    for a, b, da, db in zip(chart.bars, chart.bars[1:], days, days[1:], strict=False):
        gap = db - da
        assert abs((b.x - a.x) - (gap if gap <= BREAK_DAYS else 1 + BREAK_SLOTS) * slot) < 0.03
        if gap > BREAK_DAYS:
            assert a.x + a.width < next(breaks) < b.x
    assert next(breaks, None) is None
    top = max(MIN_TOP, *(scores[d] for d in days), *((HEADROOM * RULE["high"],) if ruled else ()))
    for bar, d in zip(chart.bars, days, strict=True):
        assert bar.zero == (scores[d] == 0)
        expected = ZERO_MARK if scores[d] == 0 else max((PLOT_HEIGHT - 2 * PAD) * scores[d] / top, ZERO_MARK)
        assert abs(bar.height - expected) < 0.01 and abs(bar.y + bar.height - chart.baseline) < 0.02
        assert chart.top_y - 0.01 <= bar.y and bar.x >= LEFT and bar.x + bar.width <= WIDTH - RIGHT + 0.01
    bands = chart.bands or []
    assert [b.level for b in bands] == (["medium-low", "medium", "high"] if ruled else [])
    assert all(chart.top_y < b.y < chart.baseline for b in bands) and [b.y for b in bands] == sorted(
        (b.y for b in bands), reverse=True)
    labels = [t.label for t in chart.ticks]
    assert 1 <= len(labels) <= MAX_LABELS
    assert labels[-1].endswith(chart.bars[-1].date[5:]) and labels[0].endswith(chart.bars[0].date[5:])
    assert not chart.ticks[-1].minor and not chart.ticks[0].minor
    assert all(not (a.minor and b.minor) for a, b in itertools.pairwise(chart.ticks))
    for tick in chart.ticks:
        assert LEFT <= tick.text_x <= WIDTH - RIGHT


def test_a_long_gap_does_not_squeeze_the_dates_before_it() -> None:
    october = [{"date": f"2026-10-{d:02d}", "density_score": 1.0} for d in (6, 7, 8, 9, 12)]
    chart = density_chart([*october, {"date": "2026-12-07", "density_score": 2.0}])
    first, last_october, december = chart.bars[0], chart.bars[4], chart.bars[5]
    assert last_october.x + last_october.width - first.x > 0.5 * (WIDTH - LEFT - RIGHT)
    assert chart.breaks and last_october.x < chart.breaks[0] < december.x
    assert [t.label for t in chart.ticks][0] == "10-06" and chart.ticks[-1].label == "12-07"


def test_labels_carry_the_year_only_when_the_chart_spans_two() -> None:
    one = density_chart([{"date": "2026-10-01"}, {"date": "2026-10-09"}])
    two = density_chart([{"date": "2025-12-30"}, {"date": "2026-01-02"}])
    assert one.ticks[-1].label == "10-09" and two.ticks[-1].label == "2026-01-02"


def test_no_dates_no_bars() -> None:
    chart = density_chart([])
    assert chart.bars == [] and chart.ticks == []
