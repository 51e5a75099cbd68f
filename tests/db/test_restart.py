"""Contract of a run whose PostgreSQL restarts under it: against a server the test owns (the machine's
PostgreSQL binaries when the suite runs against a server, pgserver's when it runs embedded), a daily
run whose server is restarted in the middle of an ingest transaction and again while a briefing holds
its row lock retries the lost stage on a fresh connection and completes: it publishes the bytes a clean
run publishes and stores the same rows, nothing lost or duplicated. A server that stays down fails
the stage with one line naming it and saying that a re-run is safe, after the configured attempts,
each new attempt first asking `revive` to bring the server back (tests/db/test_embedded_killed.py:
the embedded server killed under a one-off run)."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg.errors import QueryCanceled
from sqlalchemy import text

from db.retry import DatabaseUnavailable, retry_on_disconnect, retry_reviving
from tasks.config.settings import Settings
from tests.db.counts import table_counts
from tests.db.throwaway_pg import DEBIAN_BINARIES, ThrowawayPostgres, pgserver_binaries
from tests.helpers import SAMPLE_WORKSPACE, point_flows_at

DAY = dt.date(2026, 10, 9)


@pytest.fixture(scope="module")
def server() -> Iterator[ThrowawayPostgres]:
    real = bool(os.environ.get("PREDIGEST_TEST_DATABASE_URL"))
    if real and not (DEBIAN_BINARIES / "pg_ctl").exists():
        pytest.skip(f"no PostgreSQL binaries at {DEBIAN_BINARIES} to run a server of our own")
    pg = ThrowawayPostgres(DEBIAN_BINARIES if real else pgserver_binaries(), tcp=real)
    try:
        yield pg
    finally:
        pg.stop()


def _settings(tmp: Path, url: str) -> Settings:
    return Settings(_env_file=None, home=tmp / "home", database_url=url,  # type: ignore[call-arg]
                    storage_url=(tmp / "published").as_uri(), db_retry_backoff_seconds=0.5)


def _run(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> list[Any]:
    from flows.daily import daily_briefing

    point_flows_at(monkeypatch, settings)
    monkeypatch.setenv("PREDIGEST_DB_RETRY_BACKOFF_SECONDS", "0.5")
    return asyncio.run(daily_briefing(date=DAY, topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))


def _published(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _restart_once(server: ThrowawayPostgres, calls: list[str], name: str, original: Callable[..., Any],
                  session_arg: bool = False) -> Callable[..., Any]:
    """`original`, recording each call in `calls`; its first call restarts the server while the
    caller's transaction holds a connection (`session_arg`: the first argument is that session, made
    to hold one)."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if name not in calls:
            if session_arg:
                args[0].execute(text("SELECT 1"))
            server.restart()
        calls.append(name)
        return original(*args, **kwargs)

    return wrapper


def test_a_restart_mid_run_is_retried_and_publishes_what_a_clean_run_does(
    prefect_harness: None, server: ThrowawayPostgres, monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    import tasks.stages.briefings as briefings
    import tasks.stages.workspace as workspace

    clean_dir, faulted_dir = tmp_path_factory.mktemp("clean"), tmp_path_factory.mktemp("faulted")
    clean_url, faulted_url = server.create_database("clean"), server.create_database("faulted")
    clean = _run(monkeypatch, _settings(clean_dir, clean_url))

    calls: list[str] = []
    # Inside the ingest batch's transaction (its first query is made), and inside the briefing's
    # transaction, which holds the row lock while it renders: both lose their connection.
    monkeypatch.setattr(workspace, "ingest_files", _restart_once(server, calls, "ingest", workspace.ingest_files,
                                                                      session_arg=True))
    monkeypatch.setattr(briefings, "briefing_content",
                        _restart_once(server, calls, "brief", briefings.briefing_content))
    faulted = _run(monkeypatch, _settings(faulted_dir, faulted_url))

    assert calls == ["ingest", "ingest", "brief", "brief"], "each stage lost its connection and was redone"
    assert [(r.topic, r.content_hash, r.error) for r in faulted] == [(r.topic, r.content_hash, r.error) for r in clean]
    assert faulted[0].error is None
    assert _published(faulted_dir / "published") == _published(clean_dir / "published")
    assert table_counts(faulted_url) == table_counts(clean_url)


def test_a_server_that_stays_down_fails_the_stage_with_one_line() -> None:
    from psycopg import OperationalError

    attempts: list[int] = []

    def refused() -> None:
        attempts.append(1)
        raise OperationalError("connection to server on socket \"/x/.s.PGSQL.5432\" failed: Connection refused\n"
                               "\tIs the server running locally?")

    revived: list[int] = []
    with pytest.raises(DatabaseUnavailable) as caught:
        retry_reviving(3, 0.0, lambda: revived.append(len(attempts)), refused)
    assert len(attempts) == 3
    assert revived == [1, 2]  # before each new attempt, never after the last
    said = str(caught.value)
    assert "\n" not in said and "refused" in said and "3 attempts" in said
    assert "running the same command again once the database is back is safe" in said


@pytest.mark.parametrize("error", [ValueError("a bug, not a lost connection"),
                                   QueryCanceled("canceling statement due to statement timeout")])
def test_other_errors_are_not_retried(error: Exception) -> None:
    attempts: list[int] = []

    def broken() -> None:
        attempts.append(1)
        raise error

    with pytest.raises(type(error)):
        retry_on_disconnect(3, 0.0, broken)
    assert len(attempts) == 1
