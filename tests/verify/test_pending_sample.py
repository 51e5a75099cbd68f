"""Contract of section 三 on the sample workspace (issue 12 acceptance), for 2026-10-07 and 2026-10-09:

- every pending subject is named: no item's title or subject is a heading, a marker or a config key,
  and no title keeps the note's labels;
- no subject is split across items: no two items share a subject, a name or a paper's coined name;
- the window's items come first, each with 现象; the expected subjects of the hand-written
  briefing are among them; earlier items are listed after them, one line each, and the markdown
  carries exactly the JSON's items.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.model.judged import StatusAsOf
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tasks.verify.items import one_per_subject
from tasks.verify.markers import markers_of, strip_labels
from tasks.verify.names import names_of
from tests.helpers import SAMPLE_WORKSPACE, empty_tables, expected, ingest_all

M = markers_of(default_judgment())
N = names_of(default_judgment())

DAYS = ["2026-10-07", "2026-10-09"]


@pytest.fixture(scope="module")
def briefings(engine: Engine, module_settings: Settings) -> dict[str, tuple[str, dict[str, Any]]]:
    empty_tables(engine)
    settings = module_settings
    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    (topic,) = topics_for(settings, SAMPLE_WORKSPACE, ["inference"])
    out = {}
    for day in ["2026-10-06", "2026-10-07", "2026-10-08", "2026-10-09"]:
        window = window_of(topic, dt.date.fromisoformat(day))
        derive_verifications(settings, ref, topic, window.date)
        md, js = render_briefing(settings, ref, topic, window)
        out[day] = (md, json.loads(js))
    return out


def _view(v: dict[str, Any]) -> StatusAsOf:
    day = dt.date.fromisoformat(v["raised_on"])
    return StatusAsOf(v["key"], v["kind"], v["subject"], v["title"], v["claim"], v["marker"], tuple(v["sources"]),
                      day, day, v["status"], v["age_days"], None, None, None, "", keys=(v["key"],))


@pytest.mark.parametrize("day", DAYS)
def test_every_pending_subject_is_named(briefings: dict[str, tuple[str, dict[str, Any]]], day: str) -> None:
    for v in briefings[day][1]["verifications"]:
        assert not N.names_nothing(v["title"]), v
        assert strip_labels(M, v["title"]) == v["title"].strip(), v["title"]
        assert v["claim"] and strip_labels(M, v["claim"]) == v["claim"].strip(" ；;"), v["claim"]


@pytest.mark.parametrize("day", DAYS)
def test_no_subject_is_split(briefings: dict[str, tuple[str, dict[str, Any]]], day: str) -> None:
    items = briefings[day][1]["verifications"]
    assert len({v["subject"] for v in items}) == len(items)
    views = [_view(v) for v in items]
    assert len(one_per_subject(views, M)) == len(views)  # nothing left to merge


@pytest.mark.parametrize("day", DAYS)
def test_the_window_first_and_the_same_items_in_markdown(briefings: dict[str, tuple[str, dict[str, Any]]],
                                                         day: str) -> None:
    md, brief = briefings[day]
    items = brief["verifications"]
    flags = [v["seen_in_window"] for v in items]
    assert flags == sorted(flags, reverse=True)
    wanted = {e["subject"] for e in expected(day)["pending_verification"] if e["subject"][:1].isdigit()}
    assert wanted <= {v["subject"] for v in items if v["seen_in_window"]}
    section = md.split("## 三、", 1)[1].split("\n## ", 1)[0]
    full = re.findall(r"^### \S+ T(\d+) ", section, re.M)
    compact = re.findall(r"^- \S+ T(\d+) ", section, re.M)
    assert len(full) == flags.count(True) and len(compact) == flags.count(False)
    for v in items:
        assert (v["title"] in section) or (v["title"].replace("|", "\\|") in section)
