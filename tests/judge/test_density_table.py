"""Contract of the day density rule (tasks.judge.density, the packaged rule of judgment.toml [density]).

`density_of(rule, net_new, adjacent, engineering)`: a new paper counts 1, engineering and adjacent items
0.15; >= 6 high, >= 3 medium, >= 2 medium-low, else low; a custom rule moves the boundaries.
The rule labels the seven hand-written evenings as their authors did.

The counts are what each hand-written briefing counted (issue 11): the two sample evenings, two
evenings the maintainers keep and the three held-out evenings. The rule is the packaged one (tasks/config/judgment.toml [density]);
the seeds' 「中偏低」 and 「中低」 are both medium-low. A margin test keeps the calibration from
resting on a knife edge: one more or one fewer non-paper item leaves every label unchanged.
"""

from __future__ import annotations

import pytest

from tasks.config.judgment import default_judgment
from tasks.judge.density import DensityRule, density_of, density_report

RULE = DensityRule.of(default_judgment())

EVENINGS = [
    # (evening, NET-new, engineering, adjacent, reference-list deepening, label)
    ("2026-10-07 sample", 6, 3, 0, 0, "high"),
    ("2026-10-09 sample", 3, 0, 2, 0, "medium"),
    ("unseen A", 2, 1, 0, 0, "medium-low"),
    ("unseen B", 2, 2, 2, 1, "medium-low"),
    # Labelled by hand from the notes alone (tests/fixtures/heldout*/expected/README.md).
    ("heldout 2026-11-05", 5, 0, 0, 0, "medium"),
    ("heldout 2026-11-06", 1, 1, 0, 0, "low"),
    ("heldout2 2026-11-12", 3, 1, 0, 0, "medium"),
]


@pytest.mark.parametrize(("evening", "net_new", "engineering", "adjacent", "deepening", "label"), EVENINGS)
def test_each_evening_gets_its_hand_written_label(evening: str, net_new: int, engineering: int, adjacent: int,
                                                   deepening: int, label: str) -> None:
    assert density_of(RULE, net_new, adjacent, engineering, deepening=deepening) == label, evening


@pytest.mark.parametrize(("evening", "net_new", "engineering", "adjacent", "deepening", "label"), EVENINGS)
@pytest.mark.parametrize("delta", [-1, 1])
def test_labels_hold_with_one_item_more_or_less(evening: str, net_new: int, engineering: int, adjacent: int,
                                                deepening: int, label: str, delta: int) -> None:
    for kind in range(3):
        counts = [engineering, adjacent, deepening]
        counts[kind] = max(0, counts[kind] + delta)
        assert density_of(RULE, net_new, counts[1], counts[0], deepening=counts[2]) == label, (evening, counts)


def test_the_report_states_the_rule_with_its_weights() -> None:
    report = density_report({"net_new": 2, "engineering": 2, "adjacent": 2, "reference_list_only": 1}, [],
                            RULE)
    assert report.level == "medium-low" and report.score == pytest.approx(2.75)
    assert "0.15×engineering" in report.rule and "≥3 medium" in report.rule


# --- the boundaries -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("net_new", "engineering", "expected"),
    [
        (0, 0, "low"),
        (0, 6, "low"),  # 0.9: engineering alone never makes an evening
        (1, 7, "low"),  # 1.95: one paper with any number of extras
        (2, 0, "medium-low"),  # boundary 2
        (2, 6, "medium-low"),  # 2.9
        (3, 0, "medium"),  # boundary 3
        (2, 7, "medium-low"),  # 2.95: the extras together weigh less than one more NET-new paper
        (5, 7, "medium"),  # 5.95
        (6, 0, "high"),  # boundary 6
    ],
)
def test_density_thresholds(net_new: int, engineering: int, expected: str) -> None:
    assert density_of(RULE, net_new, engineering=engineering) == expected


def test_adjacent_items_count_for_little() -> None:
    assert density_of(RULE, 0, adjacent=6) == "low"
    assert density_of(RULE, 2, adjacent=6) == "medium-low"
    assert density_of(RULE, 2, adjacent=7) == "medium-low"


def test_custom_rule_moves_the_boundaries() -> None:
    rule = DensityRule.from_mapping({"high": 10, "medium": 6, "medium_low": 2, "engineering_weight": 0.5,
                                    "extras_cap": 2}, RULE.numbers())
    assert density_of(rule, 1) == "low"
    assert density_of(rule, 2) == "medium-low"
    assert density_of(rule, 5, engineering=2) == "medium"
    assert density_of(rule, 9, engineering=1) == "medium"
    assert density_of(rule, 10) == "high"
