"""Contract (issue 46, points 5 and 6; tests/generate/echoes.py): a claim is read in its context.

- A pasted briefing summary block (its fields worded as the renderer words them, tasks/briefing/
  labels.toml) raises no pending item and no increment, as a paragraph or a list, in zh and en;
  the rest of its note still counts.
- A note laid out in a briefing's numbered sections is an echo: its increments are not the window's.
- A release promised for a date that has passed, in a Chinese and an English note, is one item
  listing both sources.
- Two comparisons of the same engines under different conditions are no 矛盾; under the same
  conditions, different figures are.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tests.generate.echoes import (
    DAY,
    ECHOED,
    ECHOED_ID,
    LAID_OUT,
    LAID_OUT_ID,
    OWN,
    RELEASE,
    TOPIC,
    write_workspace,
)
from tests.helpers import empty_tables, ingest_all


def _brief(engine: Engine, settings: Settings, root: Any, **kw: Any) -> dict[str, Any]:
    empty_tables(engine)
    write_workspace(root, **kw)
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, [TOPIC])
    window = window_of(topic, DAY)
    derive_verifications(settings, ref, topic, window.date)
    return dict(json.loads(render_briefing(settings, ref, topic, window)[1]))


@pytest.fixture(scope="module", params=[("zh", False, False), ("en", True, False), ("zh", True, True),
                                        ("en", False, True)],
                ids=lambda p: f"{p[0]}-{'list' if p[1] else 'paragraph'}-{'same' if p[2] else 'other'}-conditions")
def case(request: pytest.FixtureRequest, engine: Engine, module_settings: Settings,
         tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], bool]:
    lang, listed, same = request.param
    root = tmp_path_factory.mktemp("echoes")
    return _brief(engine, module_settings, root, lang=lang, listed=listed, same_conditions=same), same


def _named(v: dict[str, Any]) -> str:
    return f"{v['subject']} {v['title']} {v['claim']}"


def test_a_pasted_summary_raises_nothing_and_the_rest_of_its_note_counts(case: tuple[dict[str, Any], bool]) -> None:
    brief, _ = case
    named = [_named(v) for v in brief["verifications"]]
    assert not [n for n in named if ECHOED in n or ECHOED_ID in n or "Harrier" in n], named
    assert [n for n in named if OWN in n], named  # the note's own claim, beside the pasted block
    listed = {i["arxiv_id"] for i in brief["increments"]} | {c["arxiv_id"] for c in brief["citations"]}
    assert ECHOED_ID not in listed


def test_a_note_laid_out_as_a_briefing_is_an_echo(case: tuple[dict[str, Any], bool]) -> None:
    brief, _ = case
    assert not [i for i in brief["increments"] if i["arxiv_id"] == LAID_OUT_ID or LAID_OUT in i["title"]]


def test_a_passed_promise_in_two_languages_is_one_item_with_both_sources(case: tuple[dict[str, Any], bool]) -> None:
    brief, _ = case
    items = [v for v in brief["verifications"] if RELEASE in _named(v)]
    assert len(items) == 1 and items[0]["kind"] == "promise", items
    assert len(items[0]["sources"]) == 2 and any("spark" in s for s in items[0]["sources"]), items


def test_a_contradiction_needs_the_same_conditions(case: tuple[dict[str, Any], bool]) -> None:
    brief, same = case
    conflicts = [v for v in brief["verifications"] if "conflict" in v["kinds"]]
    assert len(conflicts) == (1 if same else 0), conflicts
