"""Age pending verifications: derive each topic's verifications through a date (the derivation the
briefings read), then report how they stand as of it and which turned stale that day (the stage is
`tasks.stages.verifications.report_staleness`; this flow only sequences it per topic).

Async only so that the run ends with its work (see `flows/daily.py`); the tasks stay sync, and a
Python caller runs it with `asyncio.run(...)`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from prefect import flow

from tasks.config.settings import resolve_workspace
from tasks.model.windows import local_date
from tasks.stages.briefed_topics import topics_for
from tasks.stages.verifications import report_staleness
from tasks.stages.workspace import register_workspace


@flow(name="check-staleness", flow_run_name="check-staleness {date}")
async def check_staleness(
    date: dt.date | None = None,
    topics: list[str] | None = None,
    workspace: str | None = None,
) -> list[dict[str, Any]]:
    """How every topic's verifications stand as of `date` (default: today in the workspace's timezone)."""
    settings, root = resolve_workspace(workspace)
    day = date or local_date(settings.timezone)
    ref = register_workspace(settings, Path(root))
    return [report_staleness(settings, ref, topic, day) for topic in topics_for(settings, Path(ref.root), topics)]
