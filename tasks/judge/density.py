"""How dense the day was, as a documented function of the counts (never padded)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DensityRule:
    """Thresholds on NET-new papers (engineering increments count half): >= high -> high, etc."""

    high: float = 5
    medium: float = 3
    medium_low: float = 1


def density_of(net_new: int, adjacent: int = 0, engineering: int = 0, rule: DensityRule = DensityRule()) -> str:
    """high / medium / medium-low / low from the day's counts; adjacent items do not count."""
    score = net_new + 0.5 * engineering
    if score >= rule.high:
        return "high"
    if score >= rule.medium:
        return "medium"
    if score >= rule.medium_low:
        return "medium-low"
    return "low"
