"""Contract: feed health is a function of the stored snapshots and the date, not of the order they
were stored in (`tasks.feeds.health.judge_feed`, kept stored by `tasks.feeds.marks` on every store).

- property (Hypothesis, fixed seed, bounded): a generated set of one arXiv feed's snapshots (counts
  from empty to full, some stale, on various weekdays across a change of US daylight time) stored
  through `tasks.feeds.stage.store_feed` in a random order gives every snapshot the problem it gets
  when the same set is stored in date order, and every briefing of those days the same markdown and
  JSON (so the same density statement, content hash and one notification);
- a snapshot stored before the history it is judged against is re-judged when that history arrives
  (a truncated listing stored first is marked once its earlier weeks are stored), and a problem
  snapshot stored late stops counting as "usual" for the days after it;
- judging in date order needs no database: `judge_feed` gives the same marks for any order of its
  input, same-day snapshots included.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, seed
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from db.engine import get_engine, session_scope
from db.models import Source
from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.feeds import stage
from tasks.feeds.health import Facts, FeedHealthRule, judge_feed, local_day
from tasks.feeds.results import FeedItem, FeedSnapshot
from tasks.ingest.scan import scan_workspace
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.workspace import WorkspaceRef, ingest_one, register_workspace
from tests.helpers import SAMPLE_WORKSPACE

URI = "https://rss.arxiv.org/rss/cs.DC"
FIRST = dt.date(2026, 10, 5)  # a Monday; US daylight time ends on 2026-11-01, inside the span
SPAN = 49  # days: seven of each weekday
STALE_DAYS = FeedHealthRule.of(default_judgment()).stale_days["arxiv_feed"]
Spec = tuple[int, int, int]  # (day offset fetched for, entries, listing age in days)


def snapshot(spec: Spec) -> FeedSnapshot:
    """The feed's listing fetched on FIRST + offset, `age` days old, with `count` entries."""
    offset, count, age = spec
    requested = FIRST + dt.timedelta(days=offset)
    listing = requested - dt.timedelta(days=age)
    items = tuple(FeedItem(f"{listing:%y%m}.{90000 + k:05d}", 1, f"Paper {k} of {listing}", ("A. Author",), "",
                           ("cs.DC",), "new", None, None, None, None, f"oai:arXiv.org:{listing:%y%m}.{90000 + k:05d}")
                  for k in range(count))
    body = f"{URI} {listing} {requested} {count}".encode()
    return FeedSnapshot(URI, "arxiv_feed", listing, hashlib.sha256(body).hexdigest(), items, requested_day=requested)


def counted_on(spec: Spec) -> int:
    """The offset of the day a snapshot counts on (a stale one counts on the day it was fetched for)."""
    offset, _, age = spec
    return offset if age > STALE_DAYS else offset - age


@st.composite
def feed_sets(draw: st.DrawFn) -> list[Spec]:
    """Snapshots of one feed, one per day counted on; at least four Mondays, so some are judged."""
    offsets = draw(st.sets(st.integers(0, SPAN - 1), min_size=4, max_size=16))
    offsets |= draw(st.sets(st.sampled_from(range(0, SPAN, 7)), min_size=4))
    specs: dict[int, Spec] = {}
    for offset in sorted(offsets):
        count = draw(st.one_of(st.just(0), st.integers(1, 6), st.integers(20, 40)))
        spec = (offset, count, draw(st.sampled_from([0, 0, 0, 1, STALE_DAYS + 1, STALE_DAYS + 6])))
        specs.setdefault(counted_on(spec), spec)
    return list(specs.values())


def store_all(settings: Settings, tmp: Path, specs: list[Spec]) -> tuple[WorkspaceRef, dict[str, Any]]:
    """Store `specs` in their order into a fresh copy of the sample workspace (nothing else ingested
    but the knowledge document, without which no topic is briefed); returns it and, by stored
    identity, each snapshot's day and problem."""
    root = tmp / uuid.uuid4().hex
    shutil.copytree(SAMPLE_WORKSPACE, root)
    ref = register_workspace(settings, root)
    for wf in scan_workspace(root):
        if wf.kind == "knowledge":
            ingest_one(settings, ref, wf)
    for spec in specs:
        outcome = stage.store_feed(settings, ref.id, snapshot(spec))
        assert outcome.status == "new" and outcome.error is None
    with session_scope(get_engine(settings)) as session:
        rows = session.execute(select(Source.sha256, Source.observed_at, Source.feed_problem)
                               .where(Source.workspace_id == ref.id, Source.kind != "knowledge")).all()
    return ref, {r.sha256: (local_day("arxiv_feed", r.observed_at), r.feed_problem) for r in rows}


def briefings(settings: Settings, ref: WorkspaceRef, days: list[dt.date]) -> list[tuple[str, str]]:
    topic = topics_for(settings, Path(ref.root), None)[0]
    return [render_briefing(settings, ref, topic, window_of(topic, day)) for day in days]


IN_ORDER = sorted  # date order: by the day each snapshot is fetched for


@pytest.mark.slow  # about 30 s: each example stores its set twice and renders up to six briefings
@seed(20261202)
@hypothesis_settings(max_examples=8, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(specs=feed_sets(), shuffle=st.randoms(use_true_random=False))
@example(specs=[(0, 30, 0), (7, 31, 0), (14, 0, 0), (21, 29, 0), (28, 32, 0), (35, 3, 0), (44, 0, 0), (42, 30, 9)],
         shuffle=random.Random(3))
def test_marks_and_briefings_do_not_depend_on_the_storage_order(
    clean_db: Engine, settings: Settings, tmp_path: Path, specs: list[Spec], shuffle: random.Random
) -> None:
    shuffled = list(specs)
    shuffle.shuffle(shuffled)
    ordered_ref, ordered = store_all(settings, tmp_path, IN_ORDER(specs))
    shuffled_ref, marks = store_all(settings, tmp_path, shuffled)
    assert marks == ordered
    # The briefings of the last day and of the last two days with a feed problem.
    problem_days = sorted({day for day, problem in ordered.values() if problem})[-2:]
    days = [*problem_days, max(d for d, _ in ordered.values())]
    rendered = briefings(settings, ordered_ref, days)
    assert briefings(settings, shuffled_ref, days) == rendered
    # Each problem is named in its day's density statement.
    for day, (_, json_text) in zip(days, rendered, strict=True):
        named = json.loads(json_text).get("feed_problems", [])
        assert len(named) == sum(1 for d, p in ordered.values() if d == day and p)


def test_a_snapshot_stored_before_its_history_is_judged_when_the_history_arrives(
    clean_db: Engine, settings: Settings, tmp_path: Path
) -> None:
    monday, weeks = 35, [(0, 30, 0), (7, 31, 0), (14, 29, 0), (21, 32, 0)]
    _, first = store_all(settings, tmp_path, [(monday, 3, 0), *weeks])
    _, ordered = store_all(settings, tmp_path, [*weeks, (monday, 3, 0)])
    assert [p["problem"] for _, p in first.values() if p] == ["truncated"] and first == ordered
    # A broken week stored before its history is marked once the history arrives, and so is no
    # measure of the usual for the week after it: that one is judged on three weeks, not four.
    broken, after = (21, 2, 0), (28, 5, 0)
    _, late = store_all(settings, tmp_path, [broken, *weeks[:3], after])
    _, in_order = store_all(settings, tmp_path, [*weeks[:3], broken, after])
    assert late == in_order
    by_count = {p["count"]: p for _, p in late.values() if p}
    assert sorted(by_count) == [2, 5] and by_count[2]["problem"] == by_count[5]["problem"] == "truncated"
    assert by_count[5]["history"] == 3 and by_count[5]["usual"] == 30


def test_judge_feed_gives_the_same_marks_for_any_input_order() -> None:
    rule = FeedHealthRule.of(default_judgment())
    rng = random.Random(7)
    for _ in range(200):
        facts = [Facts(i, f"{rng.random():.6f}", FIRST + dt.timedelta(days=d), rng.choice([0, 2, 25, 30, 35]),
                       FIRST + dt.timedelta(days=d - rng.choice([0, 0, 1])), FIRST + dt.timedelta(days=d))
                 for i, d in enumerate(rng.choices(range(30), k=rng.randint(1, 25)))]
        expected = judge_feed("arxiv_feed", "arXiv cs.DC", facts, rule)
        rng.shuffle(facts)
        assert judge_feed("arxiv_feed", "arXiv cs.DC", facts, rule) == expected
