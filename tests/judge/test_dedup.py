"""Contract of dedup against the knowledge document (tasks.judge.dedup).

`anchor_status_as_of(anchors, day)`:
- an id with a body entry dated on or before `day` is already_anchored, with the earliest such
  date and every section that anchors it by then;
- an id cited in References by `day` and anchored nowhere in the body by then is
  reference_list_only, with its earliest cited date;
- anything dated after `day` does not exist yet: an id anchored only later is absent, and an id
  cited early and anchored later is reference_list_only before the anchor and already_anchored
  from the anchor's day on.
"""

from __future__ import annotations

import datetime as dt

from tasks.knowledge.parse import anchor_status_as_of
from tasks.model.window_views import AnchorView

D = dt.date


def body(arxiv_id: str, section: str | None, anchored_on: dt.date | None) -> AnchorView:
    return AnchorView(arxiv_id, section, anchored_on, None, False, f"**entry** arXiv:{arxiv_id}")


def cited(arxiv_id: str, cited_on: dt.date | None) -> AnchorView:
    return AnchorView(arxiv_id, "References", None, cited_on, True, f"arXiv:{arxiv_id} (cited)")


# --- anchor_status_as_of ---------------------------------------------------------------------------


def test_anchored_on_or_before_the_day_with_earliest_date_and_all_sections() -> None:
    anchors = (
        body("2610.04646", "§1.11", D(2026, 10, 8)),
        body("2610.04646", "§2.2", D(2026, 10, 6)),
        body("2610.04646", "§1.3", D(2026, 10, 7)),
        body("2610.04646", "§1.11", D(2026, 10, 7)),  # same section twice: listed once
    )
    status = anchor_status_as_of(anchors, D(2026, 10, 8))["2610.04646"]

    assert status.status == "already_anchored"
    assert status.anchored_on == D(2026, 10, 6)
    assert status.cited_on is None
    assert set(status.sections) == {"§1.11", "§2.2", "§1.3"}
    assert len(status.sections) == 3


def test_anchor_dated_on_the_day_counts() -> None:
    result = anchor_status_as_of((body("2610.06479", "§1.2", D(2026, 10, 9)),), D(2026, 10, 9))
    assert result["2610.06479"].status == "already_anchored"
    assert result["2610.06479"].anchored_on == D(2026, 10, 9)


def test_sections_of_later_anchors_are_not_known_yet() -> None:
    anchors = (body("2610.04646", "§2.2", D(2026, 10, 6)), body("2610.04646", "§1.11", D(2026, 10, 9)))
    status = anchor_status_as_of(anchors, D(2026, 10, 7))["2610.04646"]
    assert status.sections == ("§2.2",)
    assert status.anchored_on == D(2026, 10, 6)


def test_anchor_dated_after_the_day_is_absent() -> None:
    anchors = (body("2610.06479", "§1.2", D(2026, 10, 9)), cited("2610.02732", D(2026, 10, 10)))
    assert anchor_status_as_of(anchors, D(2026, 10, 8)) == {}


def test_undated_body_entry_is_not_an_anchor() -> None:
    assert anchor_status_as_of((body("2610.06479", "§1.2", None),), D(2026, 10, 9)) == {}


def test_reference_only_by_cited_date() -> None:
    anchors = (cited("2610.02732", D(2026, 10, 7)), cited("2610.02732", D(2026, 10, 6)), cited("2511.02230", None))
    result = anchor_status_as_of(anchors, D(2026, 10, 7))

    status = result["2610.02732"]
    assert status.status == "reference_list_only"
    assert status.cited_on == D(2026, 10, 6)
    assert status.anchored_on is None
    assert status.sections == ("References",)
    # A References line without a cited date cannot be placed in time.
    assert "2511.02230" not in result


def test_reference_cited_after_the_day_is_absent() -> None:
    assert anchor_status_as_of((cited("2610.02732", D(2026, 10, 7)),), D(2026, 10, 6)) == {}


def test_cited_then_anchored_changes_status_on_the_anchor_day() -> None:
    anchors = (cited("2610.04631", D(2026, 10, 6)), body("2610.04631", "§1.4", D(2026, 10, 9)))

    before = anchor_status_as_of(anchors, D(2026, 10, 8))["2610.04631"]
    assert before.status == "reference_list_only"
    assert before.cited_on == D(2026, 10, 6)

    on_the_day = anchor_status_as_of(anchors, D(2026, 10, 9))["2610.04631"]
    assert on_the_day.status == "already_anchored"
    assert on_the_day.anchored_on == D(2026, 10, 9)
    assert on_the_day.sections == ("§1.4",)

    after = anchor_status_as_of(anchors, D(2026, 10, 12))["2610.04631"]
    assert after.status == "already_anchored"


def test_ids_are_independent() -> None:
    anchors = (
        body("2610.03394", "§3.1", D(2026, 10, 6)),
        cited("2610.05842", D(2026, 10, 6)),
        body("2610.10845", "§1.2", D(2026, 10, 9)),
    )
    result = anchor_status_as_of(anchors, D(2026, 10, 7))
    assert {k: v.status for k, v in result.items()} == {
        "2610.03394": "already_anchored",
        "2610.05842": "reference_list_only",
    }
