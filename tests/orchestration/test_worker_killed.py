"""Fault: a worker killed mid-backfill, on a real `prefect server` with two process workers.

Contract:
- A backfill over five dates of the generated workspace (`workspace_gen`: notes in Chinese and
  English, two topics) runs its dates as `briefing-for-date` children on the two workers. Once a
  date has completed, the test holds the lock every publish takes, so the next children run up to
  it and wait; once a worker runs such a child (Running, its heartbeat in), that worker and
  every process under it (the flow-run processes it started, in their own sessions, and their
  spawned helpers) are SIGKILLed at once, as a machine crash would: nobody reports a final state.
- Every run the dead worker held (a child, and the backfill itself if it was there) is set Crashed
  by the server, through the automation `up` registers (`predigest.automations`: no heartbeat for
  3 periods; the workers beat every 30 s here); a surviving backfill then fails on its crashed
  child. No run is left Pending or Running.
- The operator re-runs the backfill deployment with the same parameters; it completes on the
  surviving worker and publishes the killed dates. Each briefing that was out keeps its row's
  `published_at` (the re-run wrote nothing for it); each (topic, date) has exactly one briefings
  row, published; and the published objects, every key and every byte, are those of a clean
  in-process backfill of the same dates into a fresh database and storage.
Which worker held the backfill is up to the workers: either way the same end state is asserted.
Waits poll with generous deadlines that only turn a hang into a failure; nothing asserts durations.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from sqlalchemy import Engine, text

from predigest import orchestrate
from predigest.settings import Settings
from tasks.publish.storage import store_for
from tests.helpers import point_flows_at
from tests.orchestration.test_prefect_server import (
    _client,
    _flow_runs,
    _free_port,
    _wait_for,
    one_stack_at_a_time,
    stack_parts,
)
from tests.orchestration.workspace_gen import DAYS

pytestmark = pytest.mark.slow

RANGE = DAYS[:5]  # enough dates to kill one mid-way; few, so the re-run is short
TOPICS = ("inference", "rag")
HEARTBEAT_S = 30  # Prefect's minimum; the zombie automation waits 3 of them
FLOWS = ("backfill-briefings", "briefing-for-date")


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _descendants(root: int) -> list[int]:
    """Every live process under `root` (by parent pid; sessions do not matter)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (parent := _ppid(int(entry.name))) is not None:
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _flow_run_of(pid: int) -> str | None:
    """The flow run a process runs (the worker puts PREFECT__FLOW_RUN_ID in its environment)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    return next((v.split(b"=", 1)[1].decode() for v in environ if v.startswith(b"PREFECT__FLOW_RUN_ID=")), None)


def _worker_pids(home: Path) -> dict[str, int]:
    return {name: int((home / "run" / f"{name}.pid").read_text()) for name in ("worker-1", "worker-2")}


def _all_runs(api_url: str) -> list[Any]:
    return [r for name in FLOWS for r in _flow_runs(api_url, name)]


def _heartbeat_seen(api_url: str, run_ids: set[str]) -> bool:
    """Whether the server has a heartbeat of each run: the zombie automation is armed by it."""
    from prefect.events.filters import EventFilter, EventNameFilter, EventResourceFilter

    with _client(api_url) as client:
        page = client.read_events(EventFilter(event=EventNameFilter(name=["prefect.flow-run.heartbeat"]),
                                              resource=EventResourceFilter(id=[f"prefect.flow-run.{i}" for i in run_ids])),
                                  limit=50)
    return {e.resource.id.removeprefix("prefect.flow-run.") for e in page.events} >= run_ids


def _taken(pid: int, ids: set[str]) -> set[str]:
    """The runs of `ids` a process under the worker `pid` runs (its log is no guide: both workers
    log "submitting" a run they race for)."""
    return {i for p in _descendants(pid) if (i := _flow_run_of(p)) in ids}


def _victim(api_url: str, home: Path, engine: Engine) -> tuple[str, int, set[str]] | None:
    """(worker, pid, its unfinished runs) once a worker runs a child that has published nothing
    (so its date is surely left undone), and every run the worker has taken is Running and has
    beaten: a run killed before that would never send a heartbeat, so nothing would ever crash it.
    Every Pending run must have its process (until then it could be this worker's)."""
    runs = {str(r.id): r for r in _all_runs(api_url) if r.state is not None}
    open_runs = {i for i, r in runs.items() if not r.state.is_final()}
    taken = {name: _taken(pid, open_runs) for name, pid in _worker_pids(home).items()}
    pending = {i for i in open_runs if runs[i].state.is_pending()}
    if not pending <= set().union(*taken.values()):
        return None
    published = {day for (_, day), rows in _published(engine).items() if rows[0][0] is not None}
    for name, pid in _worker_pids(home).items():
        held = taken[name]
        days = {dt.date.fromisoformat(runs[i].parameters["date"]) for i in held if runs[i].name.startswith("briefing ")}
        if days and not days & published and all(runs[i].state.is_running() for i in held) and \
                _heartbeat_seen(api_url, held):
            return name, pid, held
    return None


def _kill_machine(pid: int) -> list[int]:
    """SIGKILL the worker and everything under it at once (listed first: the orphans would move to init)."""
    victims = [pid, *_descendants(pid)]
    for victim in victims:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
    return victims


def _processes_of(run_ids: set[str]) -> list[str]:
    """Live processes (pid, parent, command) running any of `run_ids`, wherever they are."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _flow_run_of(int(entry.name)) in run_ids:
            with contextlib.suppress(OSError):
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{entry.name} (parent {_ppid(int(entry.name))}): {cmd[:120]}")
    return found


def _start_backfill(api_url: str, params: dict[str, Any]) -> str:
    """Run the backfill deployment on the stack, as `prefect deployment run` would; its flow run id."""
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: api_url}):
        flow_run = run_deployment("backfill-briefings/backfill-briefings", timeout=0, parameters=params)
    return str(flow_run.id)  # type: ignore[union-attr]  # sync call


@contextmanager
def _publishing_held(engine: Engine) -> Iterator[None]:
    """Hold the lock every publish takes (`assemble_and_publish`'s index lock): children run up to
    it, rendered and Running, and wait there; so the one killed has surely published nothing."""
    from sqlalchemy.orm import Session

    from tasks.stages.briefings import _lock_index

    with Session(engine) as session:
        _lock_index(session)
        yield
        session.rollback()


def _published(engine: Engine) -> dict[tuple[str, dt.date], list[Any]]:
    """Every briefings row by (topic, date): a list, so a duplicate would show."""
    rows: dict[tuple[str, dt.date], list[Any]] = {}
    with engine.connect() as conn:
        for topic, day, content_hash, published_at in conn.execute(
                text("SELECT topic, date, content_hash, published_at FROM briefings")):
            rows.setdefault((topic, day), []).append((content_hash, published_at))
    return rows


def _objects(settings: Settings) -> dict[str, bytes]:
    store = store_for(settings)
    root = Path(settings.storage_root_url.removeprefix("file://"))
    return {key: (root / key).read_bytes() for key in store.list("")}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory,
          migrated_database: Callable[[str], str]) -> Iterator[tuple[str, Path, Path, Settings, Engine]]:
    parts = stack_parts(tmp_path_factory.mktemp("killed"), migrated_database("predigest_killed"))
    extra = {**parts.env, "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(HEARTBEAT_S)}
    with one_stack_at_a_time():
        try:
            # No workspace for `up`: no watcher; the backfill names its workspace as a parameter.
            result = orchestrate.up(parts.home, port=_free_port(), workers=2, extra_env=extra, echo=lambda _: None)
            assert sorted(result.started) == ["server", "worker-1", "worker-2"]
            yield result.api_url, parts.home, parts.workspace, parts.settings, parts.engine
        finally:
            orchestrate.down(parts.home, echo=lambda _: None)
        parts.engine.dispose()


def _final(api_url: str, ids: set[str]) -> list[Any] | None:
    """The flow runs `ids` once every one of them has reached a final state."""
    with _client(api_url) as client:
        runs = [client.read_flow_run(UUID(i)) for i in ids]
    return runs if all(r.state and r.state.is_final() for r in runs) else None


def test_a_killed_worker_s_dates_are_completed_once_by_the_re_run(
    stack: tuple[str, Path, Path, Settings, Engine], migrated_database: Callable[[str], str],
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    api_url, home, workspace, settings, engine = stack
    with _client(api_url) as client:
        assert client.read_automations_by_name("predigest: crash unresponsive flow runs")
    params = {"start": str(RANGE[0]), "end": str(RANGE[-1]), "max_concurrency": 2, "workspace": str(workspace)}
    first = _start_backfill(api_url, params)
    _wait_for(lambda: any(r.state.is_completed() for r in _flow_runs(api_url, "briefing-for-date")),
              "the first date to be published", 300)

    with _publishing_held(engine):
        worker, pid, held = _wait_for(lambda: _victim(api_url, home, engine), "a worker running a date", 300)
        with _client(api_url) as client:
            killed_days = {dt.date.fromisoformat(r.parameters["date"]) for r in
                           (client.read_flow_run(UUID(i)) for i in held) if "date" in r.parameters}
        _kill_machine(pid)
    print(f"killed {worker} running {sorted(map(str, killed_days))}; the backfill was there too: {first in held}")
    _wait_for(lambda: not _processes_of(held), "the killed processes to be gone", 60)

    # The server crashes what the dead worker ran; a surviving backfill fails on its crashed child.
    for killed in _wait_for(lambda: _final(api_url, held), "the killed runs to be set Crashed", 400):
        assert killed.state.type.value == "CRASHED", (killed.name, killed.state)
    original = _wait_for(lambda: _final(api_url, {first}), "the first backfill to end", 400)[0]
    assert not original.state.is_completed(), original.state
    _wait_for(lambda: all(r.state.is_final() for r in _all_runs(api_url)), "every run to end", 400)
    before = {k: rows[0][1] for k, rows in _published(engine).items() if rows[0][0] is not None}
    assert any((t, d) not in before for t in TOPICS for d in killed_days)  # the dead worker left them undone

    rerun = _start_backfill(api_url, params)  # the operator's re-run, with the same parameters
    again = _wait_for(lambda: _final(api_url, {rerun}), "the re-run to end", 400)[0]
    assert again.state.is_completed(), again.state
    assert not [(r.name, r.state.name) for r in _all_runs(api_url) if not r.state.is_final()]

    after = _published(engine)
    assert sorted(after) == sorted((t, d) for t in TOPICS for d in RANGE)
    assert all(len(rows) == 1 and rows[0][0] and rows[0][1] for rows in after.values()), after
    assert {k: after[k][0][1] for k in before} == before  # what was out is not published again
    print(f"{len(before)} of {len(after)} briefings were out before the re-run")

    clean = Settings(_env_file=None, home=tmp_path / "home", database_url=migrated_database("predigest_clean"),  # type: ignore[call-arg]
                     storage_url=(tmp_path / "published").as_uri())
    point_flows_at(monkeypatch, clean)
    from flows.backfill import backfill_briefings

    with temporary_settings(updates={PREFECT_API_URL: api_url}):  # in this process: no worker, no deployment
        backfill_briefings(start=RANGE[0], end=RANGE[-1], workspace=str(workspace), max_concurrency=1)
    expected, got = _objects(clean), _objects(settings)
    assert sorted(got) == sorted(expected)
    assert [k for k in expected if got[k] != expected[k]] == []
