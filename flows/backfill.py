"""Backfill: publish the briefings of a range of past dates, each exactly as its evening run would have.

Contract:
- The workspace is ingested once (what is not stored yet). Then the windows whose verifications
  must be derived (again) through the last date are found (`tasks.backfill.plan_derivation`): those
  before the first date are derived only; per date of the range, oldest first, each scheduled
  topic's window is collected and judged once, derived if it must be, and its briefing assembled
  and published as of that date's cutoff from the same window (`tasks.backfill`). Windows are
  derived strictly in date order (each is observed against the state the earlier ones left; a
  briefing lists them as of its own date, after they are derived); everything else runs in parallel.
- In this process the dates run as tasks, one per chunk of `DATES_PER_TASK` consecutive dates
  (`brief <first>..<last>`; windows before the range are `verify <first>..<last>`), not as child flow runs.
  With `max_concurrency` > 1 the dates run in that many spawned worker processes (at most one per
  core: the work is CPU-bound Python, which threads cannot spread), pipelined: while one process
  renders and publishes date D, another collects date D+1 and records it as soon as D's are.
- With `child_deployment` set, verifications are derived here first, then each date is a run of
  that deployment (`briefing-for-date`, named `briefing <date>`) on any worker of its pool, at most
  `max_concurrency` at once, created with the idempotency key
  `backfill-<topics>-<date>-<this flow run's id>`: a retried backfill run does not duplicate
  children, a new backfill run re-assembles (and rewrites only what changed).
- In this process the dates publish their markdown, JSON twin, index entry and page; each topic's
  site (index page, feed, site.json, site index) is refreshed once, after the lanes stop, from the
  twins of the range (`tasks.backfill.refresh_sites`, under the index lock), also when a date
  failed, so it lists every date that published. Child runs publish each date with its site.
- A date whose briefing would not change writes nothing (objects, index and row stay as they are).
  `force` re-publishes every date's objects and bumps `published_at` even when identical; the
  briefings row of a (topic, date) is updated in place, never duplicated.
- Concurrent runs of one (topic, date) are serialised by a row lock (`tasks.run.assemble_and_publish`);
  deriving is serialised per topic by an advisory lock (`tasks.stages.derive`).
- Hooks registered with `report_progress` hear each date once, as it is done (within a chunk in
  date order).
- A failing date fails the run; dates after it that have not derived their verifications yet
  are abandoned, never derived out of order (the next run derives them).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from prefect import flow, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import FlowRun
from prefect.futures import PrefectFuture, as_completed
from prefect.task_runners import ThreadPoolTaskRunner
from pydantic import Field

from tasks import run, steps
from tasks.backfill import BackfillContext, plan_jobs, scheduled_window
from tasks.config.settings import get_settings
from tasks.lanes import DateLanes
from tasks.publish.artifacts import announce, announce_backfill
from tasks.run import BriefingResult

log = logging.getLogger(__name__)

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


@flow(name="briefing-for-date", flow_run_name="briefing {date}")
def briefing_for_date(
    date: dt.date,
    topics: list[str] | None = None,
    workspace: str | None = None,
    force: bool = False,
    record_verifications: bool = True,
) -> list[BriefingResult]:
    """Publish each topic's briefing for `date` from what is already ingested (no scan), as the
    evening run would: verifications derived through `date` (nothing to do when the calling
    backfill derived them; `record_verifications` is kept for callers and no longer needed), then
    the briefing. Topics whose schedule has no briefing that date are left out."""
    settings = get_settings()
    root = _workspace(workspace)
    ref = run.register_workspace(settings, Path(root))
    results = []
    for topic in run.topics_for(settings, Path(ref.root), topics):
        window = scheduled_window(topic, date)
        if window is None:
            continue
        results.append(run.assemble_and_publish(settings, ref, topic, window, force=force))
    announce(settings, results, backfill=True)
    return results


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
    from tasks.publish.site import site_keys
    from tasks.publish.storage import store_for

    settings = get_settings()
    ref = run.register_workspace(settings, Path(workspace))
    store = store_for(settings)
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
        site = site_keys(topic.name, day, settings.lang)
        results.append(BriefingResult(topic.name, day, store.url_for(row.markdown_key),
                                      store.url_for(row.json_key), row.content_hash, row.published_at >= since,
                                      store.url_for(site["page"]), store.url_for(site["feed"])))
    return results


@task(name="brief-date", task_run_name="brief {day}", cache_policy=NO_CACHE)
def brief_date(
    day: dt.date, topics: list[str], workspace: str, force: bool, child_deployment: str, key: str,
) -> list[BriefingResult]:
    """One date as a run of `child_deployment` on a worker (waits for it)."""
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


def _children(days: list[dt.date], names: list[str], root: str, force: bool, child_deployment: str,
              limit: int) -> list[BriefingResult]:
    """One `child_deployment` run per date, at most `limit` at once; results in date order."""
    from prefect.runtime import flow_run

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
        future = brief_date.submit(day, names, root, force, child_deployment, idempotency_key(names, day, parent))
        future_day[id(future)] = day
        running.append(future)
    for done in as_completed(list(running)):
        collect(done)
    return [result for day in days for result in by_day[day]]


def _refresh_after_failure(ctx: BackfillContext, days: list[dt.date]) -> None:
    """Refresh the sites after a date failed; a failure here is logged, so the run reports the date's."""
    try:
        steps.refresh_sites(ctx, days)
    except Exception:  # the date's failure is the one the run raises
        log.exception("refreshing the sites of %s after a failed date failed too", ", ".join(ctx.topics))


def lanes_for(max_concurrency: int) -> int:
    """Worker processes for the dates: as asked, but no more than the cores (the work is CPU-bound)."""
    return max(1, min(max_concurrency, os.cpu_count() or 1))


# Dates per task run: a task run costs the API a few calls, so a year is ~50 runs rather than 365,
# and two chunks in flight keep enough dates queued for the worker processes.
DATES_PER_TASK = 7


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
    days = date_range(start, end)
    settings = get_settings()
    root = _workspace(workspace)
    ref = steps.register_workspace(settings, root)
    resolved = steps.resolve_topics(settings, root, topics)
    workers = lanes_for(max_concurrency)
    ctx = BackfillContext.load(settings, ref, resolved, force)
    publishing = False  # whether dates may have published here (their topics' sites are then refreshed)
    try:
        # Worker processes (if any) start up, a second or two each, while the workspace is ingested.
        with DateLanes(ctx, workers) as lanes:
            changed = steps.find_changed_files(settings, ref)
            steps.ingest_sources.map(unmapped(settings), unmapped(ref), steps.batches_of(changed)).result()
            derive = steps.plan_derivation(settings, ref, resolved, days[-1],
                                           run.known_topic_names(settings, Path(root)))
            if child_deployment is not None:
                if recorded := plan_jobs(resolved, days, publish=False, derive=derive):
                    steps.verify_dates(lanes, recorded)
            else:
                jobs = plan_jobs(resolved, days, derive=derive)
                before, dated = [j for j in jobs if not j.publish], [j for j in jobs if j.publish]
                futures: list[PrefectFuture[Any]] = [steps.verify_dates.submit(lanes, before)] if before else []
                publishing = True
                for k in range(0, len(dated), DATES_PER_TASK):
                    # Chunk n starts once chunk n - workers is done: `workers` chunks in flight at most.
                    upstream = [futures[len(futures) - workers]] if len(futures) >= workers else []
                    futures.append(steps.brief_dates.submit(lanes, dated[k : k + DATES_PER_TASK], on_date=_notify,
                                                            wait_for=upstream, return_state=False))
                outcomes = [outcome for future in futures for outcome in future.result()]
    except BaseException:
        if publishing:  # the dates before the one that failed did publish: the site lists them
            _refresh_after_failure(ctx, days)
        raise
    # The dates publish without their topics' sites (once per date made a backfill O(dates²)): the
    # sites are refreshed once, after the lanes have stopped (no date is still publishing).
    if publishing:
        steps.refresh_sites(ctx, days)
        announce_backfill(settings, [r for o in outcomes for r in o.results], start, end)
    if child_deployment is not None:
        # Each running child holds a briefings row lock and renders on a second connection.
        limit = max(1, min(max_concurrency, settings.db_pool_size // 2))
        return _children(days, [t.name for t in resolved], ref.root, force, child_deployment, limit)
    return [result for outcome in outcomes for result in outcome.results]
