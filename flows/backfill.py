"""Backfill: publish the briefings of a range of past dates, each exactly as its evening run would have.

The workspace is ingested once; windows are derived strictly in date order (`tasks.backfill.jobs`), and
the dates run as tasks of `DATES_PER_TASK` dates handed to `max_concurrency` worker processes, or,
with `child_deployment`, as runs of that deployment created with an idempotency key. Each topic's
site is refreshed once after the dates. A date whose briefing would not change writes nothing; a
failing date fails the run and the dates after it stay underived. This module is the parameters
and the order of the tasks; the whole contract is in docs/layout.md, "Backfill".
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Any

from prefect import flow, unmapped
from prefect.futures import PrefectFuture, as_completed
from prefect.task_runners import ThreadPoolTaskRunner
from pydantic import Field

from flows import stage_tasks
from tasks.backfill.jobs import BackfillContext, JobOutcome, date_range, plan_jobs, scheduled_window
from tasks.backfill.lanes import DateLanes, lanes_for
from tasks.backfill.runs import idempotency_key, notify_progress
from tasks.config.settings import Lang, Settings, resolve_workspace
from tasks.config.topics import Topic
from tasks.publish.artifacts import announce, announce_backfill
from tasks.stages.briefed_topics import known_topic_names, topics_for
from tasks.stages.briefings import BriefingResult, assemble_and_publish
from tasks.stages.derive import DerivedWindow
from tasks.stages.workspace import WorkspaceRef, register_workspace

MAX_CONCURRENCY = 8  # upper bound of the parameter; each running date holds two DB connections


@flow(name="briefing-for-date", flow_run_name="briefing {date}")
def briefing_for_date(
    date: dt.date,
    topics: list[str] | None = None,
    workspace: str | None = None,
    force: bool = False,
    lang: Lang | None = None,
) -> list[BriefingResult]:
    """Publish each topic's briefing for `date` (in `lang`) from what is already ingested (no scan),
    as the evening run would: verifications derived through `date` (nothing to do when the calling
    backfill derived them), then the briefing. Topics whose schedule has no briefing that date are left out."""
    settings, root = resolve_workspace(workspace, lang)
    ref = register_workspace(settings, Path(root))
    results = []
    for topic in topics_for(settings, Path(ref.root), topics):
        window = scheduled_window(topic, date)
        if window is None:
            continue
        results.append(assemble_and_publish(settings, ref, topic, window, force=force))
    announce(settings, results, backfill=True)
    return results


def _children(settings: Settings, days: list[dt.date], names: list[str], root: str, force: bool,
              child_deployment: str, limit: int) -> list[BriefingResult]:
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
        future = stage_tasks.brief_date.submit(settings, day, names, root, force, child_deployment,
                                         idempotency_key(names, day, parent))
        future_day[id(future)] = day
        running.append(future)
    for done in as_completed(list(running)):
        collect(done)
    return [result for day in days for result in by_day[day]]


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
    lang: Lang | None = None,
    rehash: bool | None = None,
) -> list[BriefingResult]:
    """Ingest the workspace once, then publish every topic's briefing for each date from start to end.

    Dates whose briefing would not change write nothing unless `force`. With `child_deployment`
    (e.g. `briefing-for-date/briefing-for-date`) the dates run on that deployment's workers, in
    this run's `lang`. `workspace`, `lang` and `rehash` left unset are the settings'.
    """
    days = date_range(start, end)
    settings, root = resolve_workspace(workspace, lang, rehash)
    ref = stage_tasks.register_workspace(settings, root)
    resolved = stage_tasks.resolve_topics(settings, root, topics)
    workers = lanes_for(max_concurrency)
    ctx = BackfillContext.load(settings, ref, resolved, force)
    if child_deployment is not None:
        derive = _ingest_and_plan(settings, ref, resolved, root, days)
        # Worker processes only when there are windows to derive: a re-run usually has none.
        if recorded := plan_jobs(resolved, days, publish=False, derive=derive):
            with DateLanes(ctx, workers) as deriving:
                stage_tasks.verify_dates(deriving, recorded)
        # Each running child holds a briefings row lock and renders on a second connection.
        limit = max(1, min(max_concurrency, settings.db_pool_size // 2))
        return _children(settings, days, [t.name for t in resolved], ref.root, force, child_deployment, limit)
    outcomes = _brief_in_lanes(ctx, workers, settings, ref, resolved, root, days)
    # The dates publish without their topics' sites (once per date made a backfill O(dates²)): the
    # sites are refreshed once, after the lanes have stopped (no date is still publishing).
    stage_tasks.refresh_sites(ctx, days)
    announce_backfill(settings, [r for o in outcomes for r in o.results], start, end)
    return [result for outcome in outcomes for result in outcome.results]


def _ingest_and_plan(settings: Settings, ref: WorkspaceRef, resolved: list[Topic], root: str,
                     days: list[dt.date]) -> dict[str, dict[dt.date, DerivedWindow]]:
    """Ingest what is not stored yet, then find the windows to derive through the last date."""
    changed = stage_tasks.find_changed_files(settings, ref)
    stage_tasks.ingest_sources.map(unmapped(settings), unmapped(ref), stage_tasks.batches_of(changed)).result()
    return stage_tasks.plan_derivation(settings, ref, resolved, days[-1], known_topic_names(settings, Path(root)))


def _brief_in_lanes(ctx: BackfillContext, workers: int, settings: Settings, ref: WorkspaceRef,
                    resolved: list[Topic], root: str, days: list[dt.date]) -> list[JobOutcome]:
    """Derive and publish every date in `workers` worker processes, in chunks of DATES_PER_TASK;
    each date's outcome, in date order. When a date fails, the sites are refreshed for the dates
    that did publish before the error is raised."""
    publishing = False  # whether dates may have published (their topics' sites are then refreshed)
    try:
        # Worker processes start up, a second or two each, while the workspace is ingested.
        with DateLanes(ctx, workers) as lanes:
            jobs = plan_jobs(resolved, days, derive=_ingest_and_plan(settings, ref, resolved, root, days))
            before, dated = [j for j in jobs if not j.publish], [j for j in jobs if j.publish]
            futures: list[PrefectFuture[Any]] = [stage_tasks.verify_dates.submit(lanes, before)] if before else []
            publishing = True
            for k in range(0, len(dated), DATES_PER_TASK):
                # Chunk n starts once chunk n - workers is done: `workers` chunks in flight at most.
                upstream = [futures[len(futures) - workers]] if len(futures) >= workers else []
                futures.append(stage_tasks.brief_dates.submit(lanes, dated[k : k + DATES_PER_TASK], on_date=notify_progress,
                                                        wait_for=upstream, return_state=False))
            return [outcome for future in futures for outcome in future.result()]
    except BaseException:
        if publishing:  # the dates before the one that failed did publish: the site lists them
            stage_tasks.refresh_sites_after_failure(ctx, days)
        raise
