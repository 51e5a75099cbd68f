"""Contract of the backfill stage (tasks/backfill/jobs.py), without Prefect:

- `plan_jobs`: the windows to derive before the first date (record only), then one job per date of
  the range (kept even when no topic is scheduled that day, so progress hears every date; deriving
  the windows of that date that must be), numbered in order;
- one lane (this process) and two (two spawned processes), then `refresh_sites` once,
  store the same verifications and publish the same bytes, every object of the store (the topics'
  sites included), as the daily stage run date by date (`tasks.stages.briefings.brief`), each from its own copy
  of the same database; the lanes alone write each date's page but not its topic's site;
- a job that fails stops the jobs after it: they raise `BackfillAborted` (nothing waits forever)
  and record and publish nothing, while the jobs before it are done;
- `Turns` across processes: a process waiting for its turn goes on once the job before it is done,
  and raises `BackfillAborted` when the backfill is aborted.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from tasks.backfill.jobs import (
    BackfillAborted,
    BackfillContext,
    DateJob,
    plan_derivation,
    plan_jobs,
    refresh_sites,
    scheduled_window,
)
from tasks.backfill.lanes import DateLanes, Turns
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tasks.stages.derive import DerivedWindow
from tests.flows.test_backfill import _snapshot, _verifications
from tests.generate.ten_days import DAYS, make_workspace
from tests.helpers import ingest_all


def test_plan_derives_what_it_must_then_every_date() -> None:
    daily = Topic("daily", "Asia/Shanghai", "20 22 * * *")
    weekdays = Topic("weekdays", "Asia/Shanghai", "20 22 * * 1-5")
    first = dt.date(2026, 10, 5)  # a Monday
    days = [first + dt.timedelta(days=n) for n in range(7)]

    def steps(topic: Topic, dates: list[dt.date]) -> dict[dt.date, DerivedWindow]:
        return {d: DerivedWindow(d, w, f"fp-{d}") for d in dates if (w := scheduled_window(topic, d)) is not None}

    # Nothing to derive: one job per date of the range, none before it.
    jobs = plan_jobs([daily, weekdays], days)
    assert [j.index for j in jobs] == list(range(len(jobs)))
    assert [j.day for j in jobs] == days and all(j.publish and not j.derive for j in jobs)
    by_day = {j.day: [name for name, _ in j.windows] for j in jobs}
    assert by_day[dt.date(2026, 10, 9)] == ["daily", "weekdays"]  # Friday
    assert by_day[dt.date(2026, 10, 10)] == ["daily"]  # Saturday
    assert all(w.date == j.day for j in jobs for _, w in j.windows)

    # Windows to derive before the range come first (record only), then the range, deriving its own.
    earlier = [first - dt.timedelta(days=n) for n in (9, 3, 2)]
    derive = {"daily": steps(daily, earlier + days[3:]), "weekdays": steps(weekdays, earlier)}
    jobs = plan_jobs([daily, weekdays], days, derive=derive)
    before = [j for j in jobs if not j.publish]
    assert [j.day for j in before] == sorted(earlier)
    assert [[name for name, _ in j.derive] for j in before] == [["daily"], ["daily", "weekdays"], ["daily"]]  # Sat, Fri, Sat
    assert all([name for name, _ in j.windows] == [name for name, _ in j.derive] for j in before)
    assert [j.day for j in jobs if j.publish] == days
    assert [bool(j.derive) for j in jobs if j.publish] == [False] * 3 + [True] * 4

    # Only the weekday topic: weekend dates of the range stay (progress hears them), without windows.
    only = plan_jobs([weekdays], days)
    assert [(j.day, bool(j.windows)) for j in only][-2:] == [
        (dt.date(2026, 10, 10), False), (dt.date(2026, 10, 11), False)]
    assert [j.day for j in plan_jobs([daily], days, publish=False, derive=derive)] == sorted(earlier) + days[3:]


def _copy(settings: Settings, migrated_database: Callable[[str], str], tmp_path: Path, name: str) -> Settings:
    url = migrated_database(f"predigest_{name}")
    return settings.model_copy(update={"database_url": url, "storage_url": (tmp_path / name).as_uri()})


@pytest.mark.parametrize("workers", [1, 2])
def test_lanes_equal_the_stages_date_by_date(
    workers: int, settings: Settings, tmp_path: Path, migrated_database: Callable[[str], str]
) -> None:
    from db.engine import make_engine

    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    staged = _copy(settings, migrated_database, tmp_path, "staged")
    laned = _copy(settings, migrated_database, tmp_path, "laned")
    ref = ingest_all(staged, ws)
    topics = topics_for(staged, ws, None)
    for day in DAYS:
        for topic in topics:
            brief(staged, ref, topic, day)

    ref = ingest_all(laned, ws)
    heard: list[dt.date] = []
    ctx = BackfillContext.load(laned, ref, topics, force=False)
    with DateLanes(ctx, workers) as lanes:
        jobs = plan_jobs(topics, DAYS, derive=plan_derivation(laned, ref, topics, DAYS[-1], ctx.known))
        split = len(jobs) - len(DAYS[2:])  # the last 8 dates in a second call
        outcomes = lanes.run(jobs[:split]) + lanes.run(jobs[split:], lambda outcome: heard.append(outcome.day))
    assert [o.day for o in outcomes] == [j.day for j in jobs]
    assert heard == DAYS[2:]
    assert [(r.topic, r.date, r.written) for o in outcomes for r in o.results] == [
        (t.name, d, True) for d in DAYS for t in topics]
    laned_keys = set(_snapshot(tmp_path / "laned"))
    assert f"briefings/rag/{DAYS[-1]}.html" in laned_keys and "briefings/rag/index.html" not in laned_keys
    refresh_sites(ctx, DAYS)
    assert {k: v[0] for k, v in _snapshot(tmp_path / "laned").items()} == {
        k: v[0] for k, v in _snapshot(tmp_path / "staged").items()}
    engines = [make_engine(s.database_url or "", pool_size=1) for s in (staged, laned)]
    try:
        assert _verifications(engines[0]) == _verifications(engines[1])
    finally:
        for engine in engines:
            engine.dispose()


def test_a_failed_job_stops_the_later_ones(
    clean_db: Engine, settings: Settings, tmp_path: Path
) -> None:
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    ref = ingest_all(settings, ws)
    topics = topics_for(settings, ws, ["inference"])
    ctx = BackfillContext.load(settings, ref, topics, force=False)
    jobs = plan_jobs(topics, DAYS[:4], derive=plan_derivation(settings, ref, topics, DAYS[3], ctx.known))
    assert [j.day for j in jobs] == DAYS[:4]  # nothing is dated before the first date
    # A topic the backfill does not know makes job 1 fail in its worker process, before recording.
    broken = DateJob(1, jobs[1].day, (("unknown-topic", jobs[1].windows[0][1]),), True)
    jobs = [jobs[0], broken, *jobs[2:]]
    done: list[dt.date] = []
    with DateLanes(ctx, 2) as lanes:
        with pytest.raises(KeyError):  # job 2, queued or waiting for job 1's turn, is abandoned
            lanes.run(jobs[:3], lambda outcome: done.append(outcome.day))
        with pytest.raises(BackfillAborted):  # later chunks are not started
            lanes.run(jobs[3:])
    assert done == [DAYS[0]]
    with clean_db.connect() as conn:
        assert conn.execute(text("SELECT date FROM briefings ORDER BY date")).scalars().all() == [DAYS[0]]
        days = conn.execute(text("SELECT DISTINCT day FROM verification_events")).scalars().all()
    assert DAYS[2] not in days and DAYS[3] not in days


def _wait_for_turn(turns: Turns, index: int, out: Any) -> None:
    try:
        turns.wait(index)
        out.put("turn")
    except BackfillAborted:
        out.put("aborted")


def test_turns_across_processes() -> None:
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    turns = Turns(context)
    waiting = context.Process(target=_wait_for_turn, args=(turns, 1, out))
    waiting.start()
    turns.done(0)
    assert out.get(timeout=120) == "turn"
    waiting.join(60)

    turns = Turns(context)
    waiting = context.Process(target=_wait_for_turn, args=(turns, 2, out))
    waiting.start()
    turns.done(0)  # job 1 never records
    turns.abort()
    assert out.get(timeout=120) == "aborted"
    waiting.join(60)
    assert waiting.exitcode == 0
