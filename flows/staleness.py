"""Age pending verifications: derive each topic's verifications through a date (the derivation the
briefings read), then mark those past `stale_after_days` stale as of it (the stage is
`tasks.run.mark_stale`; this flow only sequences it per topic).

Async only so that the run ends with its work (see `flows/daily.py`); the tasks stay sync, and a
Python caller runs it with `asyncio.run(...)`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from prefect import flow

from tasks import run
from tasks.config.settings import get_settings


@flow(name="check-staleness", flow_run_name="check-staleness {date}")
async def check_staleness(
    date: dt.date | None = None,
    topics: list[str] | None = None,
    workspace: str | None = None,
) -> list[dict[str, Any]]:
    """Set every verification's status as of `date` (default: today in the workspace's timezone)."""
    settings = get_settings()
    root = workspace or (str(settings.workspace) if settings.workspace else None)
    if root is None:
        raise ValueError("no workspace: pass `workspace` or set PREDIGEST_WORKSPACE")
    day = date or dt.datetime.now(ZoneInfo(settings.timezone)).date()
    ref = run.register_workspace(settings, Path(root))
    return [run.mark_stale(settings, ref, topic, day) for topic in run.topics_for(settings, Path(ref.root), topics)]
