"""Contract: with PREDIGEST_TASK_RUNNER=dask the daily flow fans extraction out on a Dask cluster of
worker processes and publishes the same bytes as the default thread runner."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import Engine

from flows.runners import task_runner_for
from tasks.config.settings import Settings, get_settings
from tests.helpers import SAMPLE_WORKSPACE, empty_tables, point_flows_at


def test_task_runner_follows_settings(settings: Settings) -> None:
    from prefect.task_runners import ThreadPoolTaskRunner
    from prefect_dask import DaskTaskRunner

    assert isinstance(task_runner_for(settings), ThreadPoolTaskRunner)
    assert isinstance(task_runner_for(settings.model_copy(update={"task_runner": "dask"})), DaskTaskRunner)


def test_dask_fan_out_publishes_the_same_bytes(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from prefect_dask import DaskTaskRunner

    from flows.daily import daily_briefing

    point_flows_at(monkeypatch, settings)
    day = dt.date(2026, 10, 9)
    asyncio.run(daily_briefing(date=day, topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))
    threaded = (tmp_path / "published" / "briefings" / "inference" / "2026-10-09.md").read_bytes()

    empty_tables(clean_db)
    monkeypatch.setenv("PREDIGEST_STORAGE_URL", (tmp_path / "dask").as_uri())
    get_settings.cache_clear()
    runner = DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1, "processes": True,
                                            "dashboard_address": None})
    results = asyncio.run(daily_briefing.with_options(task_runner=runner)(
        date=day, topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))
    assert results[0].written
    assert (tmp_path / "dask" / "briefings" / "inference" / "2026-10-09.md").read_bytes() == threaded
