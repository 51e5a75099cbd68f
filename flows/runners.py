"""The Prefect task runner a flow fans out on, as configured: bounded threads, or a Dask cluster."""

from __future__ import annotations

from typing import Any

from prefect.task_runners import ThreadPoolTaskRunner

from tasks.config.settings import Settings


def task_runner_for(settings: Settings) -> Any:
    """ThreadPoolTaskRunner bounded below the DB pool, or prefect-dask's DaskTaskRunner when configured."""
    if settings.task_runner == "dask":
        try:
            from prefect_dask import DaskTaskRunner
        except ImportError as exc:  # optional dependency
            raise RuntimeError("PREDIGEST_TASK_RUNNER=dask needs `pip install predigest[dask]`") from exc
        if settings.dask_address:
            return DaskTaskRunner(address=settings.dask_address)
        # Each Dask worker process opens its own small engine; keep the total below the DB pool.
        return DaskTaskRunner(cluster_kwargs={"n_workers": settings.task_concurrency, "threads_per_worker": 1,
                                              "processes": True, "dashboard_address": None})
    return ThreadPoolTaskRunner(max_workers=settings.task_concurrency)
