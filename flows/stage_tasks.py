"""The Prefect tasks the flows run: each calls the stage functions of `tasks.stages` (or of the
backfill) by name. Options say how a task fails: `reconnecting` redoes a stage that touches the
database when its connection is lost (`db.retry`); `isolated` turns a topic's failure into a failed
result, so the other topics publish. Prefect retries belong to network tasks only (flows/feeds.py).

Named so, not `tasks.py`: Prefect puts `flows/` first on sys.path when it loads a deployment's
entrypoint, where a `tasks.py` would hide the `tasks` package."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from db.reconnect import reconnecting
from tasks.backfill import jobs as backfill
from tasks.backfill.jobs import BackfillContext, DateJob, JobOutcome
from tasks.backfill.lanes import DateLanes
from tasks.backfill.runs import notify_progress, stored_results
from tasks.common.guard import isolated
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.store import IngestOutcome
from tasks.publish.artifacts import announce
from tasks.stages import workspace as workspace_stage
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import BriefingResult, brief, failed_briefing
from tasks.stages.derive import DerivedWindow
from tasks.stages.queries import database_now
from tasks.stages.refresh import briefings_to_refresh, stored_times
from tasks.stages.workspace import WorkspaceRef, ingest_batch, ingest_one

log = logging.getLogger(__name__)


@task(name="register-workspace")
@reconnecting
def register_workspace(settings: Settings, workspace: str) -> WorkspaceRef:
    """Migrate the schema if behind and return the workspace's id."""
    return workspace_stage.register_workspace(settings, Path(workspace))


@task(name="find-changed-files")
@reconnecting
def find_changed_files(settings: Settings, ref: WorkspaceRef) -> list[WorkspaceFile]:
    """List workspace files whose bytes are not stored yet."""
    return workspace_stage.find_changed_files(settings, ref)


@task(name="ingest-source", task_run_name="ingest {wf.path}")
@reconnecting
def ingest_source(settings: Settings, ref: WorkspaceRef, wf: WorkspaceFile) -> IngestOutcome:
    """Store one file as a source with its items and mentions."""
    return ingest_one(settings, ref, wf)


# Files per ingest task: each is one transaction and one bulk write (`ingest_batch`); a task has a
# fixed orchestration cost, which one task per file would pay for every note of the day.
INGEST_TASK_FILES = 100


def batches_of(files: list[WorkspaceFile], size: int = INGEST_TASK_FILES) -> list[list[WorkspaceFile]]:
    """`files` in order, `size` at a time (the fan-out of `ingest_sources`)."""
    return [files[start : start + size] for start in range(0, len(files), size)]


def _batch_run_name() -> str:
    from prefect.runtime import task_run

    files: list[WorkspaceFile] = task_run.parameters.get("files", [])
    return f"ingest {files[0].path} (+{len(files) - 1})" if files else "ingest nothing"


@task(name="ingest-sources", task_run_name=_batch_run_name)
@reconnecting
def ingest_sources(settings: Settings, ref: WorkspaceRef, files: list[WorkspaceFile]) -> list[IngestOutcome]:
    """Store a batch of files as sources with their items and mentions, in one transaction."""
    return ingest_batch(settings, ref, files, max(1, len(files)))


@task(name="resolve-topics")
def resolve_topics(settings: Settings, workspace: str, topics: list[str] | None) -> list[Topic]:
    """Decide which topics to brief and load their configuration."""
    return topics_for(settings, Path(workspace), topics)


def _failed_topic(error: str, settings: Settings, ref: WorkspaceRef, topic: Topic, day: dt.date,  # noqa: ARG001
                  since: dt.datetime | None = None) -> BriefingResult:  # noqa: ARG001
    """A topic that failed is reported failed: its result and the index say why."""
    return failed_briefing(settings, topic.name, day, error)


# One task per topic, not three (window, verifications, briefing): each task run costs the API
# CPU recording its events, on the cores the evening's work runs on.
@task(name="brief-topic", task_run_name="brief {topic.name} {day}")
@isolated(_failed_topic)  # one topic's failure leaves the others to publish
@reconnecting
def brief_topic(
    settings: Settings, ref: WorkspaceRef, topic: Topic, day: dt.date, since: dt.datetime | None = None
) -> BriefingResult:
    """Derive the topic's verifications through `day` (nothing is written when they are up to
    date), then assemble its briefing as of the cutoff and publish it."""
    result = brief(settings, ref, topic, day, since)
    announce(settings, [result])  # log, run-page artifact, notifications
    return result


@task(name="plan-refresh", cache_policy=NO_CACHE)  # it reads the clock
@reconnecting
def plan_refresh(settings: Settings, workspace: str, source_ids: list[int]) -> list[tuple[Topic, dt.date]]:
    """The (topic, date) pairs whose closed windows the sources `source_ids` are dated into (none
    for undated files and knowledge documents; an open window is briefed at its cutoff)."""
    times = stored_times(settings, source_ids)
    if not times:
        return []  # the topics are not even loaded
    return briefings_to_refresh(times, topics_for(settings, Path(workspace), None), dt.datetime.now(dt.UTC))


@task(name="plan-derivation", cache_policy=NO_CACHE)  # it drops what no longer matches
@reconnecting
def plan_derivation(
    settings: Settings, ref: WorkspaceRef, topics: list[Topic], through: dt.date, known: list[str]
) -> dict[str, dict[dt.date, DerivedWindow]]:
    """Per topic, the windows through `through` whose verifications must be derived (again)."""
    return backfill.plan_derivation(settings, ref, topics, through, known)


# Backfill: `lanes` runs the jobs (here or in its worker processes) and keeps them in date order;
# not cached: the tasks write, and their inputs (the lanes) are not values.
def _dates_run_name(verb: str) -> Callable[..., str]:
    def name(parameters: dict[str, Any]) -> str:  # "verify 2026-10-01..2026-10-07"
        jobs: list[DateJob] = parameters["jobs"]
        return f"{verb} {jobs[0].day}..{jobs[-1].day}" if jobs else f"{verb} no dates"

    return name


@task(name="verify-dates", task_run_name=_dates_run_name("verify"), cache_policy=NO_CACHE)
def verify_dates(lanes: DateLanes, jobs: list[DateJob]) -> list[JobOutcome]:
    """Derive the verifications of consecutive dates, oldest first (no briefing is published)."""
    return lanes.run(jobs)


@task(name="brief-dates", task_run_name=_dates_run_name("brief"), cache_policy=NO_CACHE)
def brief_dates(
    lanes: DateLanes, jobs: list[DateJob], on_date: Callable[[dt.date, list[BriefingResult]], None] | None = None
) -> list[JobOutcome]:
    """Derive (where needed), then publish, consecutive dates in order, each from one collected window per topic;
    `on_date(day, results)` hears each date as it is done."""
    def report(outcome: JobOutcome) -> None:
        announce(lanes.ctx.settings, outcome.results, backfill=True, artifact=False)  # one table at the end
        if on_date is not None:
            on_date(outcome.day, outcome.results)

    return lanes.run(jobs, report)


@task(name="refresh-sites", cache_policy=NO_CACHE)
def refresh_sites(ctx: BackfillContext, days: list[dt.date]) -> None:
    """Refresh each topic's site (index page, feed, site index) once for the backfilled `days`."""
    backfill.refresh_sites(ctx, days)


def refresh_sites_after_failure(ctx: BackfillContext, days: list[dt.date]) -> None:
    """Refresh the sites after a date failed; a failure here is logged, so the run reports the date's."""
    try:
        refresh_sites(ctx, days)
    except Exception:  # the date's failure is the one the run raises
        log.exception("refreshing the sites of %s after a failed date failed too", ", ".join(ctx.topics))


@task(name="brief-date", task_run_name="brief {day}", cache_policy=NO_CACHE)
def brief_date(
    settings: Settings, day: dt.date, topics: list[str], workspace: str, force: bool, child_deployment: str, key: str,
) -> list[BriefingResult]:
    """One date as a run of `child_deployment` on a worker, in this run's language (waits for it)."""
    from prefect.client.schemas.objects import FlowRun
    from prefect.deployments import run_deployment

    since = database_now(settings)
    flow_run: FlowRun = run_deployment(  # type: ignore[assignment]  # sync call in a sync task
        child_deployment,
        parameters={"date": day.isoformat(), "topics": topics, "workspace": workspace, "force": force,
                    "lang": settings.lang},
        flow_run_name=f"briefing {day.isoformat()}",
        idempotency_key=key,
        timeout=None,
        poll_interval=2,
    )
    state = flow_run.state
    if state is None or not state.is_completed():
        raise RuntimeError(f"briefing {day} ended {state.name if state else 'without a state'}")
    # Results stay on the worker that ran the child; read what it published from the database.
    results = stored_results(settings, workspace, topics, day, since)
    notify_progress(day, results)
    return results
