"""Integration: the deployments on a real `prefect server` (not the ephemeral API) with two process
workers on the `predigest` pool, started and stopped by `predigest.orchestrate.up` / `down`.

Set-up: a free localhost port, PREFECT_HOME under a temp predigest home, Prefect's own database a
temp SQLite file (PREFECT_API_DATABASE_CONNECTION_URL), predigest's data in a fresh PostgreSQL
database from the test fixtures, briefings in a temp folder, and the generated ten-day workspace,
ingested before `up` so the watcher's start-up rescan finds nothing to send.

- A note written into the workspace's inbox is seen by the watcher, which emits
  `inbox.file.created`; the trigger runs `ingest-inbox-file` for that path on a worker, the run
  completes, the note's source row appears, and the briefings of the closed window it is dated into
  (the last day's, which the backfill below publishes again to the same bytes) are published.
- Two backfill runs at once (one over the last four dates, one over two of them), children spread
  over both workers: exactly 4 briefings per topic, one row per (topic, date), each object
  byte-identical to `tasks.stages.briefings.render_briefing` for that date. (Four dates, not all ten: each
  child is a flow-run process to start, and more dates only repeat the same overlap.)
- `up` registers the automations (predigest/automations.py): a failed daily-briefing run is notified
  to the configured webhook by the server; one "no briefing by 23:00" automation per topic; the one
  that crashes runs whose heartbeats stopped (the killed-worker drill, tests/stacks/test_worker_killed.py).
- A daily-briefing run on a worker shows a markdown artifact for each published briefing on its
  run page, and the webhook hears one message per published briefing.
- `down` stops the server, the workers and the watcher and removes their pid files; before it, no
  Prefect sender of this process is bound to the stack's server (tests/predigest/prefect_senders.py).
Waits have generous deadlines that only turn a hang into a failure; nothing asserts durations.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from db.engine import make_engine
from predigest import orchestrate
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.workspace import register_workspace
from tests.generate.ten_days import DAYS, make_workspace
from tests.helpers import ingest_all
from tests.predigest.prefect_senders import drain_senders_to
from tests.prefect_db import seed_prefect_home
from tests.publish.hooks import Hooks, serve_hooks

pytestmark = [pytest.mark.slow, pytest.mark.stack]


@dataclass
class Stack:
    api_url: str
    home: Path
    workspace: Path
    published: Path
    settings: Settings
    engine: Engine
    hooks: Hooks


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(condition: Callable[[], Any], what: str, deadline_s: float = 150.0) -> Any:
    end = time.monotonic() + deadline_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.5)


@dataclass
class StackParts:
    """What a test stack is made of before `up`: folders, a generated workspace, predigest's settings,
    an engine on its database, and the environment the stack's processes get."""

    home: Path
    published: Path
    workspace: Path
    settings: Settings
    engine: Engine
    env: dict[str, str]


def stack_parts(tmp: Path, url: str) -> StackParts:
    """Folders under `tmp`, the generated workspace, predigest's data in database `url`, Prefect's
    own in a SQLite file, workers polling every second and logging the runs they take."""
    engine = make_engine(url, pool_size=2)
    home, published, workspace = tmp / "home", tmp / "published", (tmp / "ws").resolve()
    settings = Settings(_env_file=None, home=home, database_url=url, storage_url=published.as_uri())  # type: ignore[call-arg]
    make_workspace(workspace)
    env = {
        "PREDIGEST_DATABASE_URL": url,
        "PREDIGEST_STORAGE_URL": published.as_uri(),
        "PREDIGEST_TOPICS": "[]",
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{tmp / 'prefect.db'}",
        "PREFECT_WORKER_QUERY_SECONDS": "1",
        "PREFECT_LOGGING_LEVEL": "INFO",  # the workers' logs name the runs they took
        "PREFECT_LOGGING_TO_API_ENABLED": "false",  # spare the server on two cores
    }
    return StackParts(home, published, workspace, settings, engine, env)


@contextmanager
def one_stack_at_a_time() -> Iterator[None]:
    """Hold the machine-wide lock of the real-server stacks (this module's and the killed-worker
    test's): two `prefect server`s on their SQLite databases, each with two workers, at once on two
    cores answered 503 to a backfill's task-run writes. Within one `make test` the two modules are
    one xdist work unit (tests/conftest.py, "worker balance"), so they never meet here; the lock
    still keeps test runs started side by side on one machine from starting stacks at once."""
    import fcntl

    with open(Path(tempfile.gettempdir()) / "predigest-tests-real-prefect-stack.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, migrated_database: Callable[[str], str],
          prefect_db_template: Path) -> Iterator[Stack]:
    with one_stack_at_a_time():
        yield from _stack(tmp_path_factory, migrated_database, prefect_db_template)


def _stack(tmp_path_factory: pytest.TempPathFactory, migrated_database: Callable[[str], str],
           prefect_db_template: Path) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("stack")
    parts = stack_parts(tmp, migrated_database("predigest_orch"))
    seed_prefect_home(tmp, prefect_db_template)  # the server's database (stack_parts names tmp/prefect.db)
    home, published, workspace, settings, engine = parts.home, parts.published, parts.workspace, parts.settings, parts.engine
    ingest_all(settings, workspace)
    port = _free_port()
    hooks_server = serve_hooks()
    hooks = hooks_server.__enter__()
    extra = {**parts.env, "PREDIGEST_NOTIFY_WEBHOOKS": json.dumps([hooks.url])}
    bound: list[str] = []
    try:
        result = orchestrate.up(home, port=port, workers=2, workspace=workspace, extra_env=extra, echo=lambda _: None)
        assert sorted(result.started) == ["server", "watcher", "worker-1", "worker-2"]
        yield Stack(result.api_url, home, workspace, published, settings, engine, hooks)
    finally:
        try:  # while the server still answers: nothing may be left queued for it
            close_clients()
            bound = drain_senders_to(f"http://127.0.0.1:{port}/api")
        finally:
            stopped = orchestrate.down(home, echo=lambda _: None)
            engine.dispose()
            hooks_server.__exit__(None, None, None)
    assert bound == [], f"this process's Prefect senders were bound to the stack's server: {bound}"
    assert set(stopped) == {"server", "watcher", "worker-1", "worker-2"}
    assert not list((home / "run").glob("*.pid"))


_clients: dict[str, Any] = {}  # api_url -> its open client, until the stack stops (`close_clients`)


@contextmanager
def _client(api_url: str) -> Iterator[Any]:
    """A sync Prefect client on the stack's server (the test process otherwise uses the harness API).

    One per server, opened at the first call and kept: the waits below poll every half second, and
    a new client (the settings copied, an HTTP client with its TLS context loaded) per poll was
    most of the stack modules' test process's CPU."""
    client = _clients.get(api_url)
    if client is None:
        from prefect import get_client
        from prefect.settings import PREFECT_API_URL, temporary_settings

        with temporary_settings(updates={PREFECT_API_URL: api_url}):
            client = get_client(sync_client=True)
        client.__enter__()
        _clients[api_url] = client
    yield client


def close_clients() -> None:
    """Close the clients `_client` kept (before the stack stops)."""
    while _clients:
        _clients.popitem()[1].__exit__(None, None, None)


def _flow_runs(api_url: str, flow_name: str) -> list[Any]:
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName

    with _client(api_url) as client:
        return list(client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=[flow_name])), limit=200))


def test_a_new_note_is_ingested_through_the_watcher_and_trigger(stack: Stack) -> None:
    watcher_log = stack.home / "run" / "watcher.log"
    _wait_for(lambda: watcher_log.exists() and "watching" in watcher_log.read_text(), "the watcher to start")
    rel = f"inbox/alice/{DAYS[-1]}T0900-alice-late.md"  # in the last day's window, long closed
    note = stack.workspace / rel
    note.write_text("# Alice · late\n\n## 条目#1 · vLLM\n\n- arXiv:2610.09999 — KV cache for vLLM serving.\n",
                    encoding="utf-8")
    _wait_for(lambda: f"inbox.file.created {rel}" in watcher_log.read_text(), "the watcher to emit the event")

    def completed_run() -> Any:
        runs = [r for r in _flow_runs(stack.api_url, "ingest-inbox-file") if r.parameters.get("path") == rel]
        return next((r for r in runs if r.state and r.state.is_final()), None)

    flow_run = _wait_for(completed_run, "the ingest-inbox-file run to finish")
    assert flow_run.state.is_completed(), flow_run.state
    assert flow_run.parameters == {"path": rel, "workspace": str(stack.workspace)}
    with stack.engine.connect() as conn:
        rows = conn.execute(text("SELECT error FROM sources WHERE path = :p"), {"p": rel}).all()
    assert rows == [(None,)]
    assert all((stack.published / "briefings" / topic / f"{DAYS[-1]}.json").is_file() for topic in ("inference", "rag"))


BACKFILLED = DAYS[-4:]  # the last day's is the one the watcher test above published too


def test_two_overlapping_backfills_publish_each_date_once(stack: Stack) -> None:
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: stack.api_url}):
        parents = [
            run_deployment("backfill-briefings/backfill-briefings", timeout=0,
                           parameters={"start": str(BACKFILLED[0]), "end": str(BACKFILLED[-1]), "max_concurrency": 4}),
            run_deployment("backfill-briefings/backfill-briefings", timeout=0,
                           parameters={"start": str(BACKFILLED[1]), "end": str(BACKFILLED[2]), "max_concurrency": 2}),
        ]

    def finished() -> list[Any] | None:
        with _client(stack.api_url) as client:
            runs = [client.read_flow_run(p.id) for p in parents]  # type: ignore[union-attr]
        return runs if all(r.state and r.state.is_final() for r in runs) else None

    for flow_run in _wait_for(finished, "both backfill runs to finish", deadline_s=240):
        assert flow_run.state.is_completed(), flow_run.state

    children = _flow_runs(stack.api_url, "briefing-for-date")
    assert sorted(r.name for r in children) == sorted([f"briefing {d}" for d in [*BACKFILLED, *BACKFILLED[1:3]]])
    assert all(r.state.is_completed() and r.work_pool_name == "predigest" for r in children)
    with stack.engine.connect() as conn:
        rows = conn.execute(text("SELECT topic, date, count(*) FROM briefings GROUP BY topic, date")).all()
    assert sorted((t, d) for t, d, _ in rows) == sorted((t, d) for d in BACKFILLED for t in ("inference", "rag"))
    assert {n for _, _, n in rows} == {1}

    ref = register_workspace(stack.settings, stack.workspace)
    out = stack.published / "briefings"
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "index.json", "inference", "rag"]
    for topic in topics_for(stack.settings, stack.workspace, None):
        assert len(list((out / topic.name).glob("[0-9]*.json"))) == len(BACKFILLED)  # site.json is the site's own
        for day in BACKFILLED:
            markdown, json_text = render_briefing(stack.settings, ref, topic, window_of(topic, day))
            assert (out / topic.name / f"{day}.md").read_bytes() == markdown.encode("utf-8")
            assert (out / topic.name / f"{day}.json").read_bytes() == json_text.encode("utf-8")
    # Which worker ran which child is up to the workers; print it for the log, assert nothing.
    for n in (1, 2):
        log = (stack.home / "run" / f"worker-{n}.log").read_text(errors="replace").splitlines()
        taken = [line for line in log if "submitted to infrastructure" in line and "'briefing 2026" in line]
        print(f"worker-{n} ran {len(taken)} of {len(children)} children")


def test_up_registers_automations_and_a_failed_daily_run_is_notified(stack: Stack) -> None:
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
    from prefect.states import Failed, Scheduled

    with _client(stack.api_url) as client:
        names = sorted(a.name for a in client.read_automations() if a.name.startswith("predigest:"))
        assert names == ["predigest: crash unresponsive flow runs", "predigest: daily briefing failed",
                         "predigest: no inference briefing by 23:00",
                         "predigest: no rag briefing by 23:00"]
        deadline = client.read_automations_by_name("predigest: no inference briefing by 23:00")[0]
        assert deadline.trigger.within == dt.timedelta(minutes=40)  # 22:20 cutoff to 23:00
        deployment = client.read_deployments(deployment_filter=DeploymentFilter(
            name=DeploymentFilterName(any_=["daily-briefing"])))[0]
        # Far in the future, so no worker takes it before it is failed by hand.
        flow_run = client.create_flow_run_from_deployment(
            deployment.id, state=Scheduled(scheduled_time=dt.datetime.now(dt.UTC) + dt.timedelta(days=30)))
        client.set_flow_run_state(flow_run.id, Failed(message="boom"), force=True)

    def notified() -> list[dict[str, Any]]:
        return [b for b in stack.hooks.bodies if "subject" in b and "Failed" in b["subject"]]

    found = _wait_for(notified, "the failure automation to post to the webhook", deadline_s=120)
    assert flow_run.name in found[0]["subject"] and "boom" in found[0]["body"]


def test_a_daily_run_on_a_worker_shows_an_artifact_and_notifies_once(stack: Stack) -> None:
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    day = DAYS[-1] + dt.timedelta(days=1)  # a date nothing has published yet
    before = [b for b in stack.hooks.bodies if b.get("date") == day.isoformat()]
    with temporary_settings(updates={PREFECT_API_URL: stack.api_url}):
        flow_run = run_deployment("daily-briefing/daily-briefing", parameters={"date": day.isoformat()}, timeout=240)
    assert flow_run.state is not None and flow_run.state.is_completed(), flow_run.state  # type: ignore[union-attr]
    with _client(stack.api_url) as client:
        artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(
            flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run.id])))  # type: ignore[union-attr]
    assert sorted(a.key for a in artifacts) == [f"briefing-inference-{day}", f"briefing-rag-{day}"]
    assert all(a.type == "markdown" and f"briefings/{a.key.split('-')[1]}/{day}.html" in str(a.data)
               for a in artifacts)
    assert (stack.published / "briefings" / "inference" / f"{day}.html").is_file()
    sent = [b for b in stack.hooks.bodies if b.get("date") == day.isoformat()]
    assert before == [] and sorted(b["topic"] for b in sent) == ["inference", "rag"]
