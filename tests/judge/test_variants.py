"""Contract: judgment holds on evenings it has never seen.

Each variant (tests/judge/variants.py) rewrites or adds to a copy of examples/workspace without
changing what is true, and is paired with the unchanged expected/*.json: on both sample dates the
NET-new, already-anchored and reference-list ids and the density label must be the base's, and no
paper of another topic may be NET-new. The variants are (a)-(g) of issue 11 and one per failure
class seen on unseen evenings (another topic's prep note claiming the paper; a queue row with
another primary and a secondary the other topic has taken; a mixed digest, one vocabulary word a
line; a card of another primary amid inference prose); the reverse case (a card with another
primary and secondary inference, anchored nowhere) must add exactly that paper as NET-new. On every
variant the markdown and the JSON twin carry the same sources, items, ids and counts
(tests/briefing/twins.py).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tests.briefing.twins import assert_twins
from tests.helpers import SAMPLE_WORKSPACE, expected, ingest_all
from tests.judge import variants

DAYS = ["2026-10-07", "2026-10-09"]
VARIANTS: dict[str, variants.Variant] = {
    "a_english_increment_headings": variants.english_increments,
    "b_restarting_numbered_headings": variants.restarting_numbers,
    "c_ids_as_arxiv_urls": variants.url_ids,
    "d_other_topic_prep_notes": variants.other_topic_prep,
    "e_mixed_digest_one_word_a_line": variants.mixed_digest,
    "g_dotted_cards_other_primaries": variants.dotted_cards,
    "class2_queue_secondary_taken_elsewhere": variants.queue_secondary_taken,
    "class4_llm_infra_card_amid_inference_prose": variants.prose_around_llm_infra_card,
}


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
    return root


def _briefings(settings: Settings, root: Path, days: list[str] = DAYS) -> dict[str, dict[str, Any]]:
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    out = {}
    for day in days:
        markdown, text = render_briefing(settings, ref, topic, window_of(topic, dt.date.fromisoformat(day)))
        out[day] = json.loads(text)
        assert_twins(markdown, out[day])  # the two renderings carry the same content on every variant
    return out


def _ids(brief: dict[str, Any], status: str) -> set[str]:
    return {c["arxiv_id"] for c in brief["citations"] if c["status"] == status}


def _assert_truth(briefs: dict[str, dict[str, Any]], added_net_new: frozenset[str] = frozenset()) -> None:
    for day, brief in briefs.items():
        exp = expected(day)
        net_new = {i["arxiv_id"] for i in brief["increments"] if i["status"] == "net_new"}
        assert net_new == set(exp["net_new"]) | added_net_new, (day, net_new ^ set(exp["net_new"]))
        assert _ids(brief, "already_anchored") == set(exp["already_anchored"]), day
        assert _ids(brief, "reference_list_only") == set(exp["reference_list_only"]), day
        assert brief["density"] == exp["density"], (day, brief["density_score"])
        others = set(exp["off_topic_ids"])
        assert not net_new & others, (day, net_new & others)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_keeps_the_truth(name: str, clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    VARIANTS[name](root)
    _assert_truth(_briefings(settings, root))


def test_f_previous_briefing_in_the_inbox_keeps_the_truth(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    """(f) the evening before's published briefing, dropped into the inbox as a note of the next day,
    is an echo of sources already judged: it adds no paper."""
    root = _workspace(tmp_path)
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    for before, into in (("2026-10-06", "2026-10-07-0800"), ("2026-10-08", "2026-10-09-0800")):
        markdown, _ = render_briefing(settings, ref, topic, window_of(topic, dt.date.fromisoformat(before)))
        (root / f"inbox/tom/{into}-tom-e1-briefing-{before}.md").write_text(markdown, encoding="utf-8")
    _assert_truth(_briefings(settings, root))


@pytest.mark.parametrize("primary", ["llm-infra", "evaluation"])
def test_reverse_card_with_inference_secondary_is_net_new(primary: str, clean_db: Engine, settings: Settings,
                                                           tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    variants.reverse_secondary_card(primary)(root)
    briefs = _briefings(settings, root, ["2026-10-09"])
    _assert_truth(briefs, {"2610.13888"})
    (paper,) = [i for i in briefs["2026-10-09"]["increments"] if i["arxiv_id"] == "2610.13888"]
    assert "主分类邻接" in paper["reason"] and any(e["kind"] == "card_secondary" for e in paper["evidence"])
