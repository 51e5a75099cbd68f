"""How a flow runs its tasks: the task runner it fans out on (bounded threads, or a Dask cluster),
and the one API client its sync tasks share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from prefect.context import SyncClientContext
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


@contextlib.contextmanager
def shared_task_client() -> Iterator[None]:
    """Sync tasks called in an async flow's body share one sync API client.

    Only Prefect's sync flow engine opens a `SyncClientContext`; under an async flow every sync task
    run opened its own client, and each new client loads the CA bundle into a new SSL context (even
    for a plain-http local API), most of what an evening spent in Prefect (the daily benchmark's
    Prefect/direct ratio). Task threads inherit the context (the thread runner copies contextvars)."""
    with SyncClientContext.get_or_create():
        yield
