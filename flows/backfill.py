"""Backfill: publish the briefings of a range of past dates, each exactly as its evening run would have.

Contract:
- The workspace is ingested once (what is not stored yet) and each topic's verifications are
  recorded date by date, oldest first, as the evenings would have; then one child flow run per date
  (`briefing-for-date`, named `briefing <date>`) assembles and publishes every topic scheduled that
  date, as of that date's cutoff. At most `max_concurrency` dates run at once.
- Children run in this process (subflows), or, with `child_deployment` set, as runs of that
  deployment on any worker of its pool, created with the idempotency key
  `backfill-<topics>-<date>-<this flow run's id>`: a retried backfill run does not duplicate
  children, a new backfill run re-assembles (and rewrites only what changed).
- A date whose briefing would not change writes nothing (objects, index and row stay as they are).
  `force` re-publishes every date's objects and bumps `published_at` even when identical; the
  briefings row of a (topic, date) is updated in place, never duplicated.
- Concurrent runs of one (topic, date) are serialised by a row lock (`tasks.run.assemble_and_publish`).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

from prefect import flow, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import FlowRun
from prefect.futures import PrefectFuture, as_completed
from prefect.task_runners import ThreadPoolTaskRunner
from pydantic import Field

from predigest.settings import Settings, get_settings
from predigest.topics import Topic
from predigest.windows import ScheduleError, Window
from tasks import run, steps
from tasks.run import BriefingResult

MAX_CONCURRENCY = 8  # upper bound of the parameter; each running date holds two DB connections

ProgressHook = Callable[[dt.date, list[BriefingResult]], None]
_progress_hooks: list[ProgressHook] = []
_hooks_lock = threading.Lock()


@contextmanager
def report_progress(hook: ProgressHook) -> Iterator[None]:
    """Call `hook(date, results)` as each date finishes while a backfill runs in this process (the CLI)."""
    with _hooks_lock:
        _progress_hooks.append(hook)
    try:
        yield
    finally:
        with _hooks_lock:
            _progress_hooks.remove(hook)


def _notify(day: dt.date, results: list[BriefingResult]) -> None:
    with _hooks_lock:
        hooks = list(_progress_hooks)
    for hook in hooks:
        hook(day, results)


def date_range(start: dt.date, end: dt.date) -> list[dt.date]:
    """Every date from `start` to `end`, both included; ValueError when `end` is before `start`."""
    if end < start:
        raise ValueError(f"backfill end {end} is before its start {start}")
    return [start + dt.timedelta(days=n) for n in range((end - start).days + 1)]


def idempotency_key(topics: list[str], day: dt.date, parent_run_id: str | None) -> str:
    """`backfill-<topic[+topic…]>-<date>-<parent run id>`."""
    return f"backfill-{'+'.join(topics)}-{day.isoformat()}-{parent_run_id or 'none'}"


def _workspace(workspace: str | None) -> str:
    settings = get_settings()
    root = workspace or (str(settings.workspace) if settings.workspace else None)
    if root is None:
        raise ValueError("no workspace: pass `workspace` or set PREDIGEST_WORKSPACE")
    return root


def scheduled_window(topic: Topic, day: dt.date) -> Window | None:
    """The topic's window for `day`, or None when its schedule has no briefing that day."""
    try:
        return run.window_of(topic, day)
    except ScheduleError:
        return None


@flow(name="briefing-for-date", flow_run_name="briefing {date}")
def briefing_for_date(
    date: dt.date,
    topics: list[str] | None = None,
    workspace: str | None = None,
    force: bool = False,
    record_verifications: bool = True,
) -> list[BriefingResult]:
    """Publish each topic's briefing for `date` from what is already ingested (no scan), as the
    evening run would: verifications first (unless the calling backfill recorded them), then the
    briefing. Topics whose schedule has no briefing that date are left out."""
    settings = get_settings()
    root = _workspace(workspace)
    ref = run.register_workspace(settings, Path(root))
    results = []
    for topic in run.topics_for(settings, Path(ref.root), topics):
        window = scheduled_window(topic, date)
        if window is None:
            continue
        if record_verifications:
            run.record_recent_verifications(settings, ref, topic, date, run.VERIFY_CATCH_UP_DAYS)
        results.append(run.assemble_and_publish(settings, ref, topic, window, force=force))
    return results


@task(name="record-verifications-in-order", task_run_name="verify {topic.name} in date order",
      cache_policy=NO_CACHE)
def record_verifications_in_order(
    settings: Settings, ref: run.WorkspaceRef, topic: Topic, days: list[dt.date]
) -> int:
    """Record what each date's window raises and resolves, oldest first (with the daily flow's catch-up
    before the first date), so the stored verifications are those the evenings would have left."""
    recorded = 0
    for n, day in enumerate(days):
        try:
            recorded += len(run.record_recent_verifications(
                settings, ref, topic, day, run.VERIFY_CATCH_UP_DAYS if n == 0 else 0))
        except ScheduleError:
            continue  # no briefing that date (the catch-up before it is recorded all the same)
    return recorded


def _db_now() -> dt.datetime:
    from sqlalchemy import func, select

    from db.engine import get_engine, session_scope

    with session_scope(get_engine(get_settings())) as session:
        return session.execute(select(func.now())).scalar_one()


def stored_results(
    workspace: str, topics: list[str], day: dt.date, since: dt.datetime
) -> list[BriefingResult]:
    """What a child run on another worker published for `day`, read back from the briefings rows;
    `written` means the row was (re)published at or after `since` (database clock)."""
    from sqlalchemy import select

    from db.engine import get_engine, session_scope
    from db.models import Briefing
    from tasks.publish.storage import open_store

    settings = get_settings()
    ref = run.register_workspace(settings, Path(workspace))
    store = open_store(settings.storage_root_url, s3_endpoint_url=settings.s3_endpoint_url)
    with session_scope(get_engine(settings)) as session:
        rows = {row.topic: row for row in session.execute(
            select(Briefing).where(Briefing.workspace_id == ref.id, Briefing.date == day,
                                   Briefing.topic.in_(topics))
        ).scalars()}
    results = []
    for topic in run.topics_for(settings, Path(ref.root), topics):
        if scheduled_window(topic, day) is None:
            continue
        row = rows.get(topic.name)
        if row is None or not (row.content_hash and row.markdown_key and row.json_key and row.published_at):
            raise RuntimeError(f"briefing {day} finished without publishing {topic.name}")
        results.append(BriefingResult(topic.name, day, store.url_for(row.markdown_key),
                                      store.url_for(row.json_key), row.content_hash, row.published_at >= since))
    return results


@task(name="brief-date", task_run_name="brief {day}", cache_policy=NO_CACHE)
def brief_date(
    day: dt.date, topics: list[str], workspace: str, force: bool, child_deployment: str | None,
    key: str,
) -> list[BriefingResult]:
    """One date: a subflow here, or a run of `child_deployment` on a worker (waits for it)."""
    if child_deployment is None:
        results = briefing_for_date(date=day, topics=topics, workspace=workspace, force=force,
                                    record_verifications=False)
    else:
        from prefect.deployments import run_deployment

        since = _db_now()
        flow_run: FlowRun = run_deployment(  # type: ignore[assignment]  # sync call in a sync task
            child_deployment,
            parameters={"date": day.isoformat(), "topics": topics, "workspace": workspace, "force": force,
                        "record_verifications": False},
            flow_run_name=f"briefing {day.isoformat()}",
            idempotency_key=key,
            timeout=None,
            poll_interval=2,
        )
        state = flow_run.state
        if state is None or not state.is_completed():
            raise RuntimeError(f"briefing {day} ended {state.name if state else 'without a state'}")
        # Results stay on the worker that ran the child; read what it published from the database.
        results = stored_results(workspace, topics, day, since)
    _notify(day, results)
    return results


@flow(
    name="backfill-briefings",
    flow_run_name="backfill {start}..{end}",
    task_runner=ThreadPoolTaskRunner(max_workers=MAX_CONCURRENCY),  # type: ignore[arg-type]
)
def backfill_briefings(
    start: dt.date,
    end: dt.date,
    topics: list[str] | None = None,
    force: bool = False,
    max_concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)] = 2,
    workspace: str | None = None,
    child_deployment: str | None = None,
) -> list[BriefingResult]:
    """Ingest the workspace once, then publish every topic's briefing for each date from start to end.

    Dates whose briefing would not change write nothing unless `force`. With `child_deployment`
    (e.g. `briefing-for-date/briefing-for-date`) the dates run on that deployment's workers.
    """
    from prefect.runtime import flow_run

    days = date_range(start, end)
    settings = get_settings()
    root = _workspace(workspace)
    ref = steps.register_workspace(settings, root)
    changed = steps.find_changed_files(settings, ref)
    steps.ingest_source.map(unmapped(settings), unmapped(ref), changed).result()
    resolved = steps.resolve_topics(settings, root, topics)
    names = [t.name for t in resolved]
    # Verifications depend on what earlier windows stored: record them date by date, before the
    # dates are assembled in parallel (each briefing reads them as of its own date).
    for topic in resolved:
        record_verifications_in_order(settings, ref, topic, days)
    # Each running date holds a briefings row lock and renders on a second connection.
    limit = max(1, min(max_concurrency, settings.db_pool_size // 2))
    parent = flow_run.get_id()
    by_day: dict[dt.date, list[BriefingResult]] = {}
    running: list[PrefectFuture[list[BriefingResult]]] = []
    future_day: dict[int, dt.date] = {}

    def collect(done: PrefectFuture[list[BriefingResult]]) -> None:
        running.remove(done)
        by_day[future_day[id(done)]] = done.result()

    for day in days:
        if len(running) >= limit:
            collect(next(as_completed(running)))
        future = brief_date.submit(day, names, ref.root, force, child_deployment,
                                   idempotency_key(names, day, parent))
        future_day[id(future)] = day
        running.append(future)
    for done in as_completed(list(running)):
        collect(done)
    return [result for day in days for result in by_day[day]]
