"""Contract of the flows' shape: every flow but the backfill is async over sync tasks.

Prefect's sync flow engine joins the flow-run heartbeat thread when a run ends, and that thread
sleeps in 1 s steps, so a sync run ends up to a second after its work; the async engine keeps the
heartbeats and does not join (prefect/flow_engine.py `_send_heartbeats`). The evening's two flows
and the event-triggered ones are short, so that second was a third of their Prefect cost
(benchmarks/README.md). The backfill runs for minutes and stays sync. These tests pin the shape
and run the one flow no other test runs (check-staleness) the way a caller must: with asyncio.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
import inspect

import pytest
from prefect import Flow
from sqlalchemy import Engine

from tasks.config.settings import Settings, get_settings
from tasks.stages.verifications import report_staleness
from tests.helpers import SAMPLE_WORKSPACE, empty_tables, ingest_all, point_flows_at

SHORT_FLOWS = ["flows.daily", "flows.feeds", "flows.inbox", "flows.staleness"]


def _flows(module_name: str) -> list[Flow[..., object]]:
    module = importlib.import_module(module_name)
    return [value for value in vars(module).values() if isinstance(value, Flow)]


@pytest.mark.parametrize("module_name", SHORT_FLOWS)
def test_short_flows_are_async_over_sync_tasks(module_name: str) -> None:
    found = _flows(module_name)
    assert found, f"{module_name} defines no flow"
    for flow in found:
        assert inspect.iscoroutinefunction(flow.fn), f"{flow.name} is sync: its runs would wait on the heartbeat join"


def test_the_backfill_flows_stay_sync() -> None:
    found = _flows("flows.backfill")
    assert {f.name for f in found} == {"backfill-briefings", "briefing-for-date"}
    assert not any(inspect.iscoroutinefunction(f.fn) for f in found)


def test_check_staleness_under_prefect_equals_the_direct_stage(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.staleness import check_staleness

    point_flows_at(monkeypatch, settings)
    day = dt.date(2026, 10, 9)
    try:
        ingest_all(settings, SAMPLE_WORKSPACE)
        flowed = asyncio.run(check_staleness(date=day, topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))
    finally:
        get_settings.cache_clear()
    empty_tables(clean_db)
    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    direct = [report_staleness(settings, ref, "inference", day)]
    assert flowed == direct
    assert flowed[0]  # a summary with counts, not an empty result


TASK_FLOWS = ["flows.daily", "flows.feeds", "flows.inbox", "flows.merge"]


@pytest.mark.parametrize("module_name", TASK_FLOWS)
def test_async_flows_run_their_tasks_on_one_shared_client(module_name: str) -> None:
    for flow in _flows(module_name):
        assert "with shared_task_client():" in inspect.getsource(flow.fn), f"{flow.name} opens a client per task run"


def test_a_shared_client_does_not_grow_with_the_task_runs(prefect_harness: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `shared_task_client` every sync task run of an async flow made its own API client
    (and SSL context); with it the count of clients a run makes does not depend on its tasks."""
    from prefect import flow, task
    from prefect.client.orchestration import SyncPrefectClient

    from flows.runners import shared_task_client

    made: list[int] = []
    init = SyncPrefectClient.__init__

    def counting(self: SyncPrefectClient, *args: object, **kwargs: object) -> None:
        made.append(1)
        init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SyncPrefectClient, "__init__", counting)

    @task
    def double(n: int) -> int:
        return 2 * n

    @flow
    async def shared(n: int) -> list[int]:
        with shared_task_client():
            return [double(k) for k in range(n)] + double.map(range(n)).result()

    @flow
    async def unshared(n: int) -> list[int]:
        return [double(k) for k in range(n)]

    def clients(run: object, n: int) -> int:
        made.clear()
        assert asyncio.run(run(n)) is not None  # type: ignore[operator]
        return len(made)

    assert clients(shared, 2) == clients(shared, 8)
    assert clients(unshared, 8) > clients(unshared, 2)  # the mechanism the shared client removes
