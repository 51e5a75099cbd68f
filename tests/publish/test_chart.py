"""Contract of the density chart's geometry (`tasks.publish.chart.density_chart`), over generated dates:

- one bar per published date, oldest left, on a calendar axis: the distance between two bars is
  their distance in days times one day's slot, so a missing date is a gap;
- a score of 0 has a mark of `ZERO_MARK` height flagged `zero`; other heights are proportional to
  the score over max(highest score, MIN_TOP);
- at most `MAX_LABELS` date labels, evenly spaced, the last date always labelled, no two labels
  adjacent both minor (a phone shows every other one), and every label anchored inside the chart;
- no dates: no bars, no labels.
"""

from __future__ import annotations

import datetime as dt
import itertools

from hypothesis import given
from hypothesis import strategies as st

from tasks.publish.chart import EDGE, MAX_LABELS, MIN_TOP, PAD, PLOT_HEIGHT, WIDTH, ZERO_MARK, density_chart

START = dt.date(2026, 1, 1)


@given(st.dictionaries(st.integers(0, 400), st.sampled_from([0.0, 0.5, 1.25, 3.0, 7.5]), min_size=1, max_size=60))
def test_bars_sit_on_a_calendar_axis_with_gaps_zero_marks_and_labels(scores: dict[int, float]) -> None:
    summaries = [{"date": (START + dt.timedelta(days=d)).isoformat(), "density_score": s, "density": "low"}
                 for d, s in sorted(scores.items(), reverse=True)]  # any order in
    chart = density_chart(summaries)
    days = sorted(scores)
    assert [b.date for b in chart.bars] == [(START + dt.timedelta(days=d)).isoformat() for d in days]
    slot = (WIDTH - 2 * PAD) / (days[-1] - days[0] + 1)
    for a, b, da, db in zip(chart.bars, chart.bars[1:], days, days[1:], strict=False):
        assert abs((b.x - a.x) - (db - da) * slot) < 0.02
    top = max(MIN_TOP, *scores.values())
    for bar, d in zip(chart.bars, days, strict=True):
        assert bar.zero == (scores[d] == 0)
        expected = ZERO_MARK if scores[d] == 0 else max((PLOT_HEIGHT - 2 * PAD) * scores[d] / top, ZERO_MARK)
        assert abs(bar.height - expected) < 0.01 and abs(bar.y + bar.height - chart.baseline) < 0.02
    labels = [t.label for t in chart.ticks]
    assert 1 <= len(labels) <= MAX_LABELS and labels[-1].endswith(chart.bars[-1].date[5:])
    assert not chart.ticks[-1].minor and all(not (a.minor and b.minor) for a, b in itertools.pairwise(chart.ticks))
    for tick in chart.ticks:
        assert PAD <= tick.text_x <= WIDTH - PAD
        assert tick.anchor == "middle" or tick.text_x in (PAD, WIDTH - PAD)
        assert tick.anchor != "middle" or EDGE <= tick.x <= WIDTH - EDGE


def test_labels_carry_the_year_only_when_the_chart_spans_two() -> None:
    one = density_chart([{"date": "2026-10-01"}, {"date": "2026-10-09"}])
    two = density_chart([{"date": "2025-12-30"}, {"date": "2026-01-02"}])
    assert one.ticks[-1].label == "10-09" and two.ticks[-1].label == "2026-01-02"


def test_no_dates_no_bars() -> None:
    chart = density_chart([])
    assert chart.bars == [] and chart.ticks == []
