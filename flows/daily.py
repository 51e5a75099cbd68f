"""The evening briefing: ingest what changed, then assemble and publish each topic's briefing.

The flow is `async` only so that its run ends when its work ends: Prefect's sync flow engine joins
the flow-run heartbeat thread on exit, and that thread sleeps in 1 s steps, so every sync run ended
up to a second late (prefect/flow_engine.py `_send_heartbeats`); the async engine keeps the same
heartbeats without the join. The tasks stay plain sync functions, each called (and blocking) in
order; a Python caller runs the flow with `asyncio.run(daily_briefing(...))`."""

from __future__ import annotations

import datetime as dt

from prefect import flow, unmapped

from flows import stage_tasks
from flows.runners import shared_task_client, task_runner_for
from tasks.config.settings import Lang, get_settings, resolve_workspace
from tasks.model.windows import latest_closed_date
from tasks.stages.briefings import BriefingResult


def _latest_closed(schedule: str, timezone: str) -> dt.date:
    """The date a run given none briefs: the latest window whose cutoff has passed (never an open one)."""
    return latest_closed_date(schedule, timezone, dt.datetime.now(dt.UTC))


def _run_name() -> str:
    """`daily-briefing <date>`: the date given, else the latest closed one of the default schedule."""
    from prefect.runtime import flow_run

    given = flow_run.parameters.get("date")
    settings = get_settings()
    day = given or _latest_closed(settings.default_schedule, settings.timezone)
    return f"daily-briefing {day}"


@flow(
    name="daily-briefing",
    flow_run_name=_run_name,
    # Threads bounded below the DB pool (each ingest task holds one connection), or Dask when configured.
    task_runner=task_runner_for(get_settings()),
)
async def daily_briefing(
    date: dt.date | None = None,
    topics: list[str] | None = None,
    workspace: str | None = None,
    since: dt.datetime | None = None,
    lang: Lang | None = None,
    rehash: bool | None = None,
) -> list[BriefingResult]:
    """Ingest the workspace (one task per 100 changed files), then publish each topic's briefing for
    `date` (default: each topic's latest closed window). `workspace`, `lang` and `rehash` left
    unset are the settings' (PREDIGEST_WORKSPACE, PREDIGEST_LANG, PREDIGEST_REHASH)."""
    with shared_task_client():
        settings, root = resolve_workspace(workspace, lang, rehash)
        ref = stage_tasks.register_workspace(settings, root)
        changed = stage_tasks.find_changed_files(settings, ref)
        stage_tasks.ingest_sources.map(unmapped(settings), unmapped(ref), stage_tasks.batches_of(changed)).result()
        if settings.arxiv_lookup:
            from flows.feeds import lookup_papers  # the arXiv client stack, only when asked for

            lookup_papers(settings, ref.id)
        # Per topic, verifications are derived through `day` first: the briefing lists them as of its date.
        # Without a date, each topic briefs its own latest closed window (its schedule, its timezone).
        return [stage_tasks.brief_topic(settings, ref, topic, date or _latest_closed(topic.schedule, topic.timezone), since)
                for topic in stage_tasks.resolve_topics(settings, root, topics)]
