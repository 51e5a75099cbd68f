"""How dense the day was, as a documented function of the counts (never padded).

Rule (defaults; a topic may override them under `density` in its topics TOML entry or
`[defaults.density]`): score = NET-new + 0.5 × engineering + 0 × adjacent;
score >= 5 high, >= 3 medium, >= 1 medium-low, else low.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

LEVELS = ("high", "medium", "medium-low", "low")


@dataclass(frozen=True)
class DensityRule:
    """Thresholds on the score and the weight of each kind of increment."""

    high: float = 5
    medium: float = 3
    medium_low: float = 1
    engineering_weight: float = 0.5
    adjacent_weight: float = 0.0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> DensityRule:
        """A rule from a TOML table (`high`, `medium`, `medium_low`, `engineering_weight`, `adjacent_weight`)."""
        names = {f.name for f in fields(cls)}
        picked = {k.replace("-", "_"): float(v) for k, v in (values or {}).items() if k.replace("-", "_") in names}
        return cls(**picked)

    def score(self, net_new: int, adjacent: int = 0, engineering: int = 0) -> float:
        return net_new + self.engineering_weight * engineering + self.adjacent_weight * adjacent

    def describe(self) -> str:
        """The rule in one line (for the briefing's footnote)."""
        return (f"score = NET-new + {self.engineering_weight:g}×engineering + {self.adjacent_weight:g}×adjacent; "
                f"≥{self.high:g} high, ≥{self.medium:g} medium, ≥{self.medium_low:g} medium-low, else low")


def density_of(net_new: int, adjacent: int = 0, engineering: int = 0, rule: DensityRule = DensityRule()) -> str:
    """high / medium / medium-low / low from the day's counts; adjacent items do not count by default."""
    score = rule.score(net_new, adjacent, engineering)
    if score >= rule.high:
        return "high"
    if score >= rule.medium:
        return "medium"
    if score >= rule.medium_low:
        return "medium-low"
    return "low"


@dataclass(frozen=True)
class DensityReport:
    """The density and what the statement says about it: counts, and what was checked and found empty."""

    level: str
    score: float
    rule: str
    net_new: int
    engineering: int
    adjacent: int
    anchored: int
    reference_only: int
    checked: int
    outcomes: dict[str, int] = field(default_factory=dict)  # increments, confirmatory, off_topic, error
    empty: tuple[str, ...] = ()  # sources checked and found without increments
    errors: tuple[str, ...] = ()
    topic_cards: int = 0  # window paper cards whose primary category is the topic
    cards: int = 0
    main_source: str | None = None  # the source behind most increments


def density_report(
    counts: Mapping[str, int], outcomes: Sequence[tuple[str, str]], rule: DensityRule,
    topic_cards: int = 0, cards: int = 0, main_source: str | None = None,
) -> DensityReport:
    """The report for `counts` (by increment status) and each checked source's (path, outcome)."""
    net_new, engineering, adjacent = counts.get("net_new", 0), counts.get("engineering", 0), counts.get("adjacent", 0)
    tally: dict[str, int] = {}
    for _, outcome in outcomes:
        tally[outcome] = tally.get(outcome, 0) + 1
    return DensityReport(
        level=density_of(net_new, adjacent, engineering, rule), score=rule.score(net_new, adjacent, engineering),
        rule=rule.describe(), net_new=net_new, engineering=engineering, adjacent=adjacent,
        anchored=counts.get("already_anchored", 0), reference_only=counts.get("reference_list_only", 0),
        checked=len(outcomes), outcomes=dict(sorted(tally.items())),
        empty=tuple(p for p, o in outcomes if o in ("confirmatory", "off_topic")),
        errors=tuple(p for p, o in outcomes if o == "error"), topic_cards=topic_cards, cards=cards,
        main_source=main_source,
    )
