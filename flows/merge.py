"""The noon update as a Prefect flow: propose (and, with `auto_apply`, apply) each topic's merge of
a briefing's increments into its knowledge document. The stage is
`tasks.merge.merge_stage.merge_knowledge`; this flow only sequences it per topic.

Scheduled at 12:00 it merges yesterday's evening briefing (the date defaults to the day before
today in the workspace's timezone); `auto_apply` is false by default, so a scheduled run only
publishes the proposal, and someone applies it from the UI with `auto_apply: true` (or
`predigest merge --apply`). A stale proposal or a missing briefing fails the run, naming it. Async only so that the run ends
with its work (see `flows/daily.py`); the task stays sync, and a Python caller runs the flow with
`asyncio.run(...)`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from prefect import flow, task

from flows.runners import shared_task_client
from tasks.config.settings import Lang, Settings, resolve_workspace
from tasks.merge.merge_stage import merge_knowledge
from tasks.model.windows import local_date
from tasks.stages.briefed_topics import topics_for


@task(name="merge-knowledge")
def merge_topic(settings: Settings, workspace: str, topic: str, day: dt.date, only: list[str], skip: list[str],
                apply: bool) -> dict[str, str]:
    outcome = merge_knowledge(settings, Path(workspace), topic, day, only, skip, apply)
    return {"topic": topic, **outcome.as_dict()}


@flow(name="knowledge-merge", flow_run_name="knowledge-merge {date}")
async def knowledge_merge(
    date: dt.date | None = None,
    topics: list[str] | None = None,
    workspace: str | None = None,
    only: list[str] | None = None,
    skip: list[str] | None = None,
    auto_apply: bool = False,
    lang: Lang | None = None,
) -> list[dict[str, Any]]:
    """Propose (or apply, with `auto_apply`) the merge of `date`'s briefing (in `lang`) for each topic."""
    with shared_task_client():
        settings, root = resolve_workspace(workspace, lang)
        day = date or local_date(settings.timezone) - dt.timedelta(days=1)
        names = [t.name for t in topics_for(settings, Path(root), topics)]
        results = [merge_topic(settings, root, name, day, only or [], skip or [], auto_apply) for name in names]
        failed = [r for r in results if r["status"] in ("stale", "missing", "refused")]
        if failed:
            raise RuntimeError("; ".join(f"{r['topic']}: {r['message']}" for r in failed))
        return results
