"""Contract of `predigest explain`: on the sample's 2026-10-09 it prints, for every NET-new and every
off-topic paper of the hand-written expectation, its status, the decision for the topic and the
evidence that decided it (at least one row naming a window source, its kind and weight), the
statements bound to it with file and line, and the window in the topic's timezone; the JSON twin
carries the same evidence per paper. For every paper of the window explain's status equals the
twin's, on both sample evenings and on a 48-hour `--since` window. Its last table says, per
increment, where the noon merge proposal puts it (NET-new into a body section, adjacent into
References) and what the proposal does with it now. The CLI takes run's window flags.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re

import pytest
from sqlalchemy import Engine

from predigest.cli import build_parser
from predigest.explain import explain
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tests.helpers import SAMPLE_WORKSPACE, expected, ingest_all
from tests.judge.test_shared_papers import assert_explain_equals_twin, twin_statuses

DAY = "2026-10-09"


def _merge_rows(text: str) -> dict[str, list[str]]:
    """The noon merge table's rows by increment."""
    _, _, table = text.partition("\n## noon merge")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.split("\n") if line.startswith("| ")]
    return {row[0]: row for row in rows if row[0] not in ("increment", "---")}


def _blocks(text: str) -> dict[str, tuple[str, list[list[str]]]]:
    out = {}
    for block in text.split("\n## ")[1:]:
        head, *lines = block.split("\n")
        if head.startswith("noon merge"):
            continue
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines
                if line.startswith("| ") and not line.startswith("| source")]
        rows = [[path, kind, topic, weight, detail] for path, _line, kind, topic, weight, detail in rows]
        out[head.split(" · ")[0]] = (head, rows)
    return out


def test_explain_prints_the_deciding_evidence(clean_db: Engine, settings: Settings) -> None:
    text = explain(settings, SAMPLE_WORKSPACE, "inference", dt.date.fromisoformat(DAY), [])
    assert text.startswith("# inference · 2026-10-09 · window 2026-10-08T22:20:00+08:00 → 2026-10-09T22:20:00+08:00")
    blocks = _blocks(text)
    exp = expected(DAY)
    placed = _merge_rows(text)
    assert set(placed) == set(exp["net_new"]) | set(exp["adjacent_pending"])
    for arxiv_id in exp["net_new"]:
        assert placed[arxiv_id][1] == "body" and placed[arxiv_id][2].startswith("§")
        assert placed[arxiv_id][5].startswith("entry:")
    for arxiv_id in exp["adjacent_pending"]:
        assert placed[arxiv_id][1:3] == ["references", "References"]
    for status, ids in (("net_new", exp["net_new"]), ("off_topic", exp["off_topic_ids"])):
        for arxiv_id in ids:
            head, rows = blocks[arxiv_id]
            assert f"· {status} ·" in head, head
            assert rows, arxiv_id
            for path, kind, topic, weight, _ in rows:
                assert path and kind and topic and re.fullmatch(r"-?\d+(\.\d+)?", weight), (arxiv_id, path, kind)
    # The reverse case of the sample: cards of another primary with inference as secondary.
    for arxiv_id in ("2609.23130", "2610.07219"):
        assert any(r[1] == "card_secondary" and r[2] == "inference" for r in blocks[arxiv_id][1])
    # A statement bound to the paper is shown with its file and line.
    assert "- inbox/spark/2026-10-09-llm-infra-e1prep.md:42 · exclusion · inference · 「不进 inference」" in text
    # Asking for ids narrows the table; an id outside the window is named as such.
    narrowed = explain(settings, SAMPLE_WORKSPACE, "inference", dt.date.fromisoformat(DAY),
                       ["arXiv:2609.39334v2", "2501.00001"])
    assert set(_blocks(narrowed)) == {"2609.39334"} and "not in this window: 2501.00001" in narrowed
    assert list(_merge_rows(narrowed)) == ["2609.39334"]


@pytest.mark.parametrize(("day", "since"), [("2026-10-07", None), ("2026-10-09", None),
                                           ("2026-10-09", "2026-10-07T22:20:00+08:00")])
def test_explain_equals_the_twin_for_every_paper(day: str, since: str | None, clean_db: Engine,
                                                 settings: Settings) -> None:
    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    (topic,) = topics_for(settings, SAMPLE_WORKSPACE, ["inference"])
    start = dt.datetime.fromisoformat(since) if since else None
    window = window_of(topic, dt.date.fromisoformat(day), start)
    brief = json.loads(render_briefing(settings, ref, topic, window)[1])
    assert_explain_equals_twin(settings, SAMPLE_WORKSPACE, "inference", window.date, start, brief)
    if since:  # 48 hours: the evening before's papers are in it too (PreScale, only in an Oct 8 note)
        assert window.end - window.start == dt.timedelta(hours=48) and "2610.10102" in twin_statuses(brief)


def test_json_twin_carries_the_evidence(clean_db: Engine, settings: Settings) -> None:
    from tests.helpers import ingest_all

    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    (topic,) = topics_for(settings, SAMPLE_WORKSPACE, ["inference"])
    brief = json.loads(render_briefing(settings, ref, topic, window_of(topic, dt.date.fromisoformat(DAY)))[1])
    for paper in brief["increments"] + brief["off_topic"] + brief["citations"]:
        if paper.get("arxiv_id"):
            assert paper["evidence"] and {"path", "kind", "topic", "weight", "detail"} <= set(paper["evidence"][0])


def test_cli_takes_runs_window_flags() -> None:
    args = build_parser().parse_args(["explain", "--workspace", "w", "--date", DAY, "--topic", "inference", "2609.39334"])
    assert args.ids == ["2609.39334"] and args.topic == ["inference"] and args.date == dt.date(2026, 10, 9)
    args = build_parser().parse_args(["explain", "--since", "2026-10-07T22:20", "--json", "--topic", "rag"])
    assert args.date is None and args.since == dt.datetime(2026, 10, 7, 22, 20) and args.json
    assert _flags("run") <= _flags("explain"), _flags("run") - _flags("explain")


def _flags(command: str) -> set[str]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest for a in sub.choices[command]._actions}


def test_without_a_date_explain_reads_the_window_run_would_brief(clean_db: Engine, settings: Settings) -> None:
    from zoneinfo import ZoneInfo

    from tasks.model.windows import latest_closed_date

    # A schedule with one briefing day a week, tomorrow's weekday: today is no briefing date, so the
    # latest closed window is days ago, never today's (which `explain` used to read).
    today = dt.datetime.now(ZoneInfo("Asia/Shanghai")).date()
    weekly = settings.model_copy(update={"briefing_days": str((today.isoweekday() + 1) % 7)})
    (topic,) = topics_for(weekly, SAMPLE_WORKSPACE, ["inference"])
    before = latest_closed_date(topic.schedule, topic.timezone, dt.datetime.now(dt.UTC))
    text = explain(weekly, SAMPLE_WORKSPACE, "inference", None, [])
    after = latest_closed_date(topic.schedule, topic.timezone, dt.datetime.now(dt.UTC))
    shown = text.splitlines()[0].split(" · ")[1]
    assert shown in {before.isoformat(), after.isoformat()} and shown != today.isoformat()
