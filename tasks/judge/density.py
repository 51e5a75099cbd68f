"""How dense the day was, as a documented function of the counts (never padded).

Rule (the briefing states it under section 六, worded by its label tables from `DensityRule.numbers()`;
weights and thresholds in tasks/config/judgment.toml `[density]`; a topic may override them
under `density` in its topics TOML entry or `[defaults.density]`):
score = NET-new + min(extras_cap, engineering_weight × engineering + adjacent_weight × adjacent
        + deepening_weight × reference-list papers the window discusses as the topic's);
score >= high: high, >= medium: medium, >= medium_low: medium-low, else low.
A new paper counts 1 and everything else a fraction, so the level is the band of the NET-new count:
the team calls an evening of 2 NET-new papers with engineering, adjacencies and deepenings around
them medium-low, one of 3 or 5 NET-new medium, one of 6 high, and one paper with a release low.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from tasks.config.judgment import Judgment
from tasks.model.judged import DensityReport

LEVELS = ("high", "medium", "medium-low", "low")


@dataclass(frozen=True)
class DensityRule:
    """Thresholds on the score and the weight of each kind of increment (`DensityRule.of(judgment)`)."""

    high: float
    medium: float
    medium_low: float
    engineering_weight: float
    adjacent_weight: float
    deepening_weight: float
    extras_cap: float = 0.95  # everything but NET-new together weighs less than one more NET-new paper

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None, base: Mapping[str, Any]) -> DensityRule:
        """A rule from a TOML table (a topic's `density`) over `base` (the run's judgment's `[density]`)."""
        names = {f.name for f in fields(cls)}
        merged = {**base, **(values or {})}
        picked = {k.replace("-", "_"): float(v) for k, v in merged.items() if k.replace("-", "_") in names}
        return cls(**picked)

    @classmethod
    def of(cls, j: Judgment) -> DensityRule:
        """The rule of the judgment `j` (its `[density]`)."""
        return cls.from_mapping(None, j.density)

    def score(self, net_new: int, adjacent: int = 0, engineering: int = 0, deepening: int = 0) -> float:
        extras = (self.engineering_weight * engineering + self.adjacent_weight * adjacent
                  + self.deepening_weight * deepening)
        return round(net_new + min(self.extras_cap, extras), 6)

    def numbers(self) -> dict[str, float]:
        """The rule's thresholds and weights by name: what a briefing's label tables word the rule from."""
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}

    def describe(self) -> str:
        """The rule in one line, in English (logs and `explain`; briefings word it from `numbers()`)."""
        return (f"score = NET-new + {self.engineering_weight:g}×engineering + {self.adjacent_weight:g}×adjacent"
                f" + {self.deepening_weight:g}×reference-list deepening (these three together at most {self.extras_cap:g}); "
                f"≥{self.high:g} high, ≥{self.medium:g} medium, ≥{self.medium_low:g} medium-low, else low")


def density_of(rule: DensityRule, net_new: int, adjacent: int = 0, engineering: int = 0, deepening: int = 0) -> str:
    """high / medium / medium-low / low from the day's counts, by `rule`."""
    score = rule.score(net_new, adjacent, engineering, deepening)
    if score >= rule.high:
        return "high"
    if score >= rule.medium:
        return "medium"
    if score >= rule.medium_low:
        return "medium-low"
    return "low"



def density_report(
    counts: Mapping[str, int], outcomes: Sequence[tuple[str, str]], rule: DensityRule,
    topic_cards: int = 0, cards: int = 0, main_source: str | None = None,
    feed_problems: Sequence[dict[str, Any]] = (), deepening: int | None = None,
) -> DensityReport:
    """The report for `counts` (by increment status) and each checked source's (path, outcome).
    `deepening`: the reference-list papers the window discusses as the topic's (default: every
    reference-list paper counted)."""
    net_new, engineering, adjacent = counts.get("net_new", 0), counts.get("engineering", 0), counts.get("adjacent", 0)
    deepening = counts.get("reference_list_only", 0) if deepening is None else deepening
    tally: dict[str, int] = {}
    for _, outcome in outcomes:
        tally[outcome] = tally.get(outcome, 0) + 1
    return DensityReport(
        level=density_of(rule, net_new, adjacent, engineering, deepening),
        score=rule.score(net_new, adjacent, engineering, deepening),
        rule=rule.describe(), net_new=net_new, engineering=engineering, adjacent=adjacent,
        anchored=counts.get("already_anchored", 0), reference_only=counts.get("reference_list_only", 0),
        checked=len(outcomes), outcomes=dict(sorted(tally.items())),
        empty=tuple(p for p, o in outcomes if o in ("confirmatory", "off_topic")),
        errors=tuple(p for p, o in outcomes if o == "error"), topic_cards=topic_cards, cards=cards,
        main_source=main_source, numbers=rule.numbers(),
        feed_problems=tuple(sorted(feed_problems, key=lambda p: str(p["path"]))),
    )
