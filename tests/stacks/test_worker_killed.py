"""Fault: a worker killed mid-backfill, on a real `prefect server` with two process workers.

Contract, for both ways a worker's death can hit a backfill, met by one kill (each way has its own
backfill over its own three dates of the generated workspace, `tests.generate.ten_days`: notes in
Chinese and English, two topics): path "child only", backfill A runs on the worker that survives
and its children on the one killed; path "backfill too", backfill B runs on the one killed, with
its children. Each runs its dates one at a time as `briefing-for-date` children: the first is
published before the kill, the second is in flight, the third not begun (more dates would add only
more of the third kind, each a child process to start).
- Which worker takes a run is up to the workers, so the test places them: once A runs on a worker,
  that worker is SIGSTOPped until the kill (it takes nothing more; its flow-run processes go on),
  so B and every child go to the other one; the placement is all that stopping does.
- The test holds the lock every publish takes while the runs are placed, so the first dates'
  children wait at it, then lets both publish, then holds it again, so the second dates' children
  run up to it and wait. As soon as both are taken (a process under the worker runs each, Pending or
  Running, beaten or not), that worker and every process under it (the flow-run processes it
  started and their spawned helpers) are SIGKILLed at once, as a machine
  crash would: nobody reports a final state.
- Every run the dead worker held (B, both second children) is set Crashed by the server, through
  the automation `up` registers (`predigest.automations`: Pending, Running or beaten, then nothing
  for `PREDIGEST_ZOMBIE_MISSED_HEARTBEATS` heartbeat periods: 2 here, the least it takes, where 3 is
  the default; the runs beat every 30 s, the shortest Prefect allows); the surviving backfill A
  then fails on its crashed child. No run is left Pending or Running.
- The operator re-runs both backfills with the same parameters; they complete on the surviving
  worker and publish the dates left undone. Each briefing that was out keeps its row's
  `published_at` (the re-run wrote nothing for it); each (topic, date) has exactly one briefings
  row, published; and the published objects, every key and every byte, are those of clean
  backfills of the same dates into a fresh database and storage, made by the backfill's own jobs
  called directly (`tasks.backfill.jobs`, one lane, as the flow runs them in its process), without Prefect.
Waits poll with generous deadlines that only turn a hang into a failure; nothing asserts durations.

This process runs no flow: it reads the stack's server and creates runs on it, which sends no
events. A flow run here would bind the session's Prefect event senders to the stack's server, which
hung the test harness's teardown once the stack had stopped (tests/predigest/prefect_senders.py);
before the stack stops, a sender bound to it is drained while the server answers, and the test fails.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from sqlalchemy import Engine, text

from predigest import orchestrate
from tasks.config.settings import Settings, resolve_workspace
from tasks.publish.storage import store_for
from tests.generate.ten_days import DAYS
from tests.helpers import ingest_all
from tests.predigest.prefect_senders import drain_senders_to
from tests.prefect_db import seed_prefect_home
from tests.stacks.test_prefect_server import (
    _client,
    _flow_runs,
    _free_port,
    _wait_for,
    close_clients,
    one_stack_at_a_time,
    stack_parts,
)

pytestmark = [pytest.mark.slow, pytest.mark.stack]

TOPICS = ("inference", "rag")
HEARTBEAT_S = 30  # Prefect's minimum
MISSED_HEARTBEATS = 2  # the zombie automation's wait, in heartbeats: the least the setting allows
FLOWS = ("backfill-briefings", "briefing-for-date")
WORKERS = ("worker-1", "worker-2")


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


def _taken(pid: int) -> set[str]:
    """The flow runs processes under the worker `pid` run (its log is no guide: both workers log
    "submitting" a run they race for)."""
    return {i for p in _descendants(pid) if (i := _flow_run_of(p)) is not None}


def _processes_of(run_ids: set[str]) -> list[str]:
    """Live processes (pid, parent, command) running any of `run_ids`, wherever they are."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _flow_run_of(int(entry.name)) in run_ids:
            with contextlib.suppress(OSError):
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{entry.name} (parent {_ppid(int(entry.name))}): {cmd[:120]}")
    return found


def _kill_machine(pid: int) -> None:
    """SIGKILL the worker and everything under it at once (listed first: the orphans would move to init)."""
    for victim in [pid, *_descendants(pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)


@contextmanager
def _stopped(pid: int) -> Iterator[None]:
    """The worker `pid` takes no run meanwhile (its flow-run processes go on)."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


def _all_runs(api_url: str) -> list[Any]:
    return [r for name in FLOWS for r in _flow_runs(api_url, name)]


def _final(api_url: str, ids: set[str]) -> list[Any] | None:
    """The flow runs `ids` once every one of them has reached a final state."""
    with _client(api_url) as client:
        runs = [client.read_flow_run(UUID(i)) for i in ids]
    return runs if all(r.state and r.state.is_final() for r in runs) else None


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
    it and wait there; so the one killed has surely published nothing."""
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


def _clean_backfill(settings: Settings, workspace: Path, days: list[dt.date]) -> None:
    """Publish `days` as the backfill flow does in its process (`flows.backfill`: ingest, derive
    the windows through the last date, the dates in one lane, each topic's site once), by calling
    its jobs directly: no flow run, so nothing here sends anything to any Prefect server."""
    from tasks.backfill import jobs as backfill
    from tasks.backfill.lanes import DateLanes
    from tasks.stages.briefed_topics import topics_for

    settings, root = resolve_workspace(workspace, settings=settings)
    ref = ingest_all(settings, Path(root))
    topics = topics_for(settings, Path(root), None)
    ctx = backfill.BackfillContext.load(settings, ref, topics, force=False)
    derive = backfill.plan_derivation(settings, ref, topics, days[-1], ctx.known)
    with DateLanes(ctx, 1) as one_lane:
        one_lane.run(backfill.plan_jobs(topics, days, derive=derive))
    backfill.refresh_sites(ctx, days)


def _objects(settings: Settings) -> dict[str, bytes]:
    store = store_for(settings)
    root = Path(settings.storage_root_url.removeprefix("file://"))
    return {key: (root / key).read_bytes() for key in store.list("")}


@dataclass
class KilledStack:
    api_url: str
    home: Path
    workspace: Path
    settings: Settings
    engine: Engine


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, migrated_database: Callable[[str], str],
          prefect_db_template: Path) -> Iterator[KilledStack]:
    tmp = tmp_path_factory.mktemp("killed")
    parts = stack_parts(tmp, migrated_database("predigest_killed"))
    seed_prefect_home(tmp, prefect_db_template)  # the server's database (stack_parts names tmp/prefect.db)
    extra = {**parts.env, "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(HEARTBEAT_S),
             "PREDIGEST_ZOMBIE_MISSED_HEARTBEATS": str(MISSED_HEARTBEATS)}
    port = _free_port()
    with one_stack_at_a_time():
        bound: list[str] = []
        try:
            # No workspace for `up`: no watcher; the backfill names its workspace as a parameter.
            started = orchestrate.up(parts.home, port=port, workers=2, extra_env=extra, echo=lambda _: None)
            assert sorted(started.started) == ["server", *WORKERS]
            yield KilledStack(started.api_url, parts.home, parts.workspace, parts.settings, parts.engine)
        finally:
            try:  # while the server still answers: nothing may be left queued for it
                close_clients()
                bound = drain_senders_to(f"http://127.0.0.1:{port}/api")
            finally:
                orchestrate.down(parts.home, echo=lambda _: None)
                parts.engine.dispose()
        assert bound == [], f"this process's Prefect senders were bound to the stack's server: {bound}"


def _worker_pids(home: Path) -> dict[str, int]:
    return {name: int((home / "run" / f"{name}.pid").read_text()) for name in WORKERS}


def _children_of(api_url: str, days: list[dt.date]) -> dict[dt.date, set[str]]:
    """The ids of the `briefing-for-date` runs of each of `days`."""
    out: dict[dt.date, set[str]] = {day: set() for day in days}
    for r in _flow_runs(api_url, "briefing-for-date"):
        day = dt.date.fromisoformat(str(r.parameters.get("date")))
        if day in out:
            out[day].add(str(r.id))
    return out


def _all_taken(api_url: str, pid: int, days: list[dt.date]) -> dict[dt.date, str] | None:
    """Each of `days`' child run once processes under the worker `pid` run all of them."""
    taken = _taken(pid)
    found = {day: next(iter(ids & taken), "") for day, ids in _children_of(api_url, days).items()}
    return found if all(found.values()) else None


def _completed(api_url: str, days: list[dt.date]) -> bool:
    return all(any(r.state.is_completed() for r in _flow_runs(api_url, "briefing-for-date")
                   if r.parameters.get("date") == str(day)) for day in days)


def test_a_killed_worker_s_dates_are_completed_once_by_the_re_run(
    stack: KilledStack, migrated_database: Callable[[str], str], tmp_path_factory: pytest.TempPathFactory,
) -> None:
    api_url, engine = stack.api_url, stack.engine
    a_days, b_days = DAYS[:3], DAYS[5:8]  # A: the backfill survives; B: it dies with its child
    with _client(api_url) as client:
        (zombie,) = client.read_automations_by_name("predigest: crash unresponsive flow runs")
    assert zombie.trigger.within == dt.timedelta(seconds=MISSED_HEARTBEATS * HEARTBEAT_S)  # the stack's setting

    def params(days: list[dt.date]) -> dict[str, Any]:
        return {"start": str(days[0]), "end": str(days[-1]), "max_concurrency": 1, "workspace": str(stack.workspace)}

    pids = _worker_pids(stack.home)
    with contextlib.ExitStack() as placed:
        with _publishing_held(engine):  # the first dates' children wait at publishing while runs are placed
            first_a = _start_backfill(api_url, params(a_days))
            survivor = _wait_for(lambda: next((n for n, pid in pids.items() if first_a in _taken(pid)), None),
                                 "a worker to run backfill A", 300)
            doomed = next(n for n in WORKERS if n != survivor)
            placed.enter_context(_stopped(pids[survivor]))  # every run from now on goes to the doomed worker
            first_b = _start_backfill(api_url, params(b_days))
            _wait_for(lambda: _all_taken(api_url, pids[doomed], [a_days[0], b_days[0]]),
                      "both first dates to be taken", 400)
            assert first_b in _taken(pids[doomed])
        _wait_for(lambda: _completed(api_url, [a_days[0], b_days[0]]), "both first dates to be published", 400)
        with _publishing_held(engine):
            children = _wait_for(lambda: _all_taken(api_url, pids[doomed], [a_days[1], b_days[1]]),
                                 "both second dates to be taken", 400)
            taken = _taken(pids[doomed])
            _kill_machine(pids[doomed])
    # What the dead worker held: the runs it ran that had not ended (one may have ended and still be exiting).
    with _client(api_url) as client:
        states = {i: client.read_flow_run(UUID(i)).state for i in taken}
    held = {i for i, state in states.items() if not state.is_final()}
    print(f"killed {doomed} holding {sorted((i, states[i].name) for i in held)} (backfills {first_a} on "
          f"{survivor}, {first_b}; second dates' children {children})")
    assert set(children.values()) | {first_b} <= held and first_a not in held
    _wait_for(lambda: not _processes_of(held), "the killed processes to be gone", 60)

    # The server crashes what the dead worker ran; the surviving backfill fails on its crashed child.
    for killed in _wait_for(lambda: _final(api_url, held), "the killed runs to be set Crashed", 600):
        assert killed.state.type.value == "CRASHED", (killed.name, killed.state)
    original = _wait_for(lambda: _final(api_url, {first_a}), "backfill A to end", 600)[0]
    assert not original.state.is_completed(), original.state
    _wait_for(lambda: all(r.state.is_final() for r in _all_runs(api_url)), "every run to end", 600)
    before = {k: rows[0][1] for k, rows in _published(engine).items() if rows[0][0] is not None}
    undone = [(t, d) for t in TOPICS for d in [*a_days[1:], *b_days[1:]]]
    assert [k for k in undone if k in before] == []  # the dead worker left them undone
    assert all((t, d) in before for t in TOPICS for d in (a_days[0], b_days[0]))

    reruns = {_start_backfill(api_url, params(days)) for days in (a_days, b_days)}  # the operator's re-runs
    for again in _wait_for(lambda: _final(api_url, reruns), "the re-runs to end", 600):
        assert again.state.is_completed(), again.state
    assert not [(r.name, r.state.name) for r in _all_runs(api_url) if not r.state.is_final()]

    days = [*a_days, *b_days]
    after = _published(engine)
    assert sorted(k for k in after if k[1] in days) == sorted((t, d) for t in TOPICS for d in days)
    assert all(len(rows) == 1 and rows[0][0] and rows[0][1] for rows in after.values()), after
    assert {k: after[k][0][1] for k in before} == before  # what was out is not published again

    tmp = tmp_path_factory.mktemp("clean")  # the clean backfills share one database and storage, as the stack's do
    clean = Settings(_env_file=None, home=tmp / "home", database_url=migrated_database("predigest_clean"),  # type: ignore[call-arg]
                     storage_url=(tmp / "published").as_uri())
    for part in (a_days, b_days):
        _clean_backfill(clean, stack.workspace, part)
    expected, got = _objects(clean), _objects(stack.settings)
    assert sorted(got) == sorted(expected)
    assert [k for k in expected if got[k] != expected[k]] == []
