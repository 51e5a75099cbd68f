"""Backfill stage: each date's verifications and briefings from one collected window per topic, in
date order, in this process or pipelined over worker processes.

Contract:
- `plan_derivation` finds, per topic, the windows whose stored verifications are missing or no
  longer match what is stored (`tasks.stages.derive`), through the last date, and drops them;
  `plan_jobs` turns them and a range of dates into jobs, one per date, oldest first: first the
  windows before the range that must be derived (record only), then each date of the range
  (derive if it must be, then publish). A job covers every topic scheduled that date, in the
  topics' order.
- `run_job` collects and judges each topic's window once, records what it observes
  (`tasks.stages.derive.record_window`) when the window must be derived, then assembles and
  publishes the briefing from the same window (`tasks.run.assemble_and_publish` with
  `render_collected`): the bytes of `tasks.run.render_briefing` of that date on any database.
- `DateLanes.run` runs the next jobs of the plan, in order. With one worker they run in this
  process one after another. With `workers` > 1, in this process and `workers` - 1 spawned ones
  (CPU-bound Python: threads would share one core), a whole job per lane: windows are collected and
  judged and briefings rendered in parallel, while recording goes strictly in job order (`Turns`:
  job i records after job i-1 has committed), because a window is observed against the state the
  windows before it left, and a briefing is rendered only after its own date is derived.
- A failure stops the lanes: queued jobs and jobs waiting for their turn raise `BackfillAborted`
  instead of waiting for a date that will never be recorded.
"""

from __future__ import annotations

import datetime as dt
import functools
import gc
import multiprocessing
import queue
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from db.engine import get_engine, resolve_database_url, session_scope
from predigest.settings import Settings
from predigest.topics import Topic
from predigest.windows import Window
from tasks import run
from tasks.judge.density import DensityRule
from tasks.stages.derive import (
    DerivedWindow,
    Judged,
    collect_and_judge,
    drop_from,
    lock_topic,
    pending_windows,
    record_window,
)
from tasks.stages.topics import scheduled_window

__all__ = ["BackfillAborted", "BackfillContext", "DateJob", "DateLanes", "JobOutcome", "Turns", "plan_derivation",
           "plan_jobs", "run_job", "scheduled_window"]


class BackfillAborted(RuntimeError):
    """An earlier job failed, so this one cannot record its verifications in order."""


@dataclass(frozen=True)
class BackfillContext:
    """What every job of one backfill shares, loaded once (not per date)."""

    settings: Settings
    ref: run.WorkspaceRef
    topics: dict[str, Topic]
    known: list[str]  # every topic name, for judging relevance
    rules: dict[str, DensityRule]
    force: bool = False

    @classmethod
    def load(cls, settings: Settings, ref: run.WorkspaceRef, topics: Sequence[Topic], force: bool) -> BackfillContext:
        root = Path(ref.root)
        # The database as resolved here: worker processes need not look up an embedded server again.
        settings = settings.model_copy(update={"database_url": resolve_database_url(settings)})
        return cls(settings, ref, {t.name: t for t in topics}, run.known_topic_names(settings, root),
                   {t.name: run.density_rule_for(settings, root, t.name) for t in topics}, force)


@dataclass(frozen=True)
class DateJob:
    index: int  # position in the plan: the order verifications are recorded in
    day: dt.date
    windows: tuple[tuple[str, Window], ...]  # (topic, window) of each topic collected that day
    publish: bool  # False: only record (windows before the range, or a range left to other workers)
    derive: tuple[tuple[str, DerivedWindow], ...] = ()  # (topic, window of the fold) to record


@dataclass(frozen=True)
class JobOutcome:
    day: dt.date
    recorded: list[dict[str, Any]]
    results: list[run.BriefingResult] = field(default_factory=list)


Derive = Mapping[str, Mapping[dt.date, DerivedWindow]]


def plan_derivation(settings: Settings, ref: run.WorkspaceRef, topics: Sequence[Topic], through: dt.date,
                    known: list[str]) -> dict[str, dict[dt.date, DerivedWindow]]:
    """Per topic, the windows up to `through` to derive (by date); what is stored from the first of
    them on is dropped here, so the jobs record them again in order."""
    out: dict[str, dict[dt.date, DerivedWindow]] = {}
    with session_scope(get_engine(settings)) as session:
        for topic in topics:
            lock_topic(session, ref.id, topic.name)
            first_bad, steps = pending_windows(session, ref.id, topic, known, through)
            if first_bad is not None:
                drop_from(session, ref.id, topic.name, first_bad)
            out[topic.name] = {step.day: step for step in steps}
    return out


def plan_jobs(
    topics: Sequence[Topic], days: Sequence[dt.date], publish: bool = True, derive: Derive | None = None,
) -> list[DateJob]:
    """The windows of `derive` before the first date (record only), then every date of `days`
    (published unless `publish` is False: the briefings are then left to another worker), each
    recording the windows of `derive` dated that day."""
    derive = derive or {}
    in_range = set(days)
    before = sorted({d for steps in derive.values() for d in steps if not days or d < days[0]})
    jobs: list[DateJob] = []
    for day in [*before, *days]:
        steps = tuple((t.name, derive[t.name][day]) for t in topics if day in derive.get(t.name, {}))
        if day in in_range and publish:
            windows = tuple((t.name, w) for t in topics if (w := scheduled_window(t, day)) is not None)
        else:
            windows = tuple((name, step.window) for name, step in steps)
        if steps or (day in in_range and (publish or windows)):  # a date of the range is heard even without a briefing
            jobs.append(DateJob(len(jobs), day, windows, day in in_range and publish, steps))
    return jobs


def run_job(ctx: BackfillContext, job: DateJob, turns: Turns | None = None) -> JobOutcome:
    """Collect and judge, record (in turn), then publish one date; see the module docstring."""
    settings, ref = ctx.settings, ctx.ref
    steps = dict(job.derive)
    try:
        with session_scope(get_engine(settings)) as session:
            # Judged once for recording and rendering, and before this job's turn: lanes judge in parallel.
            collected = [(ctx.topics[name], collect_and_judge(session, ref.id, ctx.topics[name], ctx.known,
                                                              steps.get(name) or DerivedWindow(window.date, window, "")))
                         for name, window in job.windows]
        if turns is not None:
            turns.wait(job.index)
        recorded = []
        if steps:
            with session_scope(get_engine(settings)) as session:
                recorded = [{"topic": topic.name, **record_window(session, ref.id, topic, ctx.known, steps[topic.name],
                                                                   judged)}
                            for topic, judged in collected if topic.name in steps]
    except BaseException:
        if turns is not None:
            turns.abort()
        raise
    if turns is not None:
        turns.done(job.index)
    results = []
    if job.publish:
        for topic, judged in collected:
            results.append(_publish(ctx, topic, judged))
    return JobOutcome(job.day, recorded, results)


def _publish(ctx: BackfillContext, topic: Topic, judged: Judged) -> run.BriefingResult:
    render = functools.partial(run.render_collected, ctx.settings, ctx.ref, topic, judged.data, ctx.known,
                               ctx.rules[topic.name], judged.papers)
    return run.assemble_and_publish(ctx.settings, ctx.ref, topic, judged.data.window, ctx.force, render=render)


class Turns:
    """Recording order across processes: job i records once job i-1 has (`done`), unless aborted."""

    def __init__(self, context: Any) -> None:
        self._cond = context.Condition()
        self._last = context.RawValue("q", -1)  # index of the last job that recorded
        self._aborted = context.RawValue("b", 0)

    def wait(self, index: int) -> None:
        with self._cond:
            while self._last.value < index - 1:
                if self._aborted.value:
                    raise BackfillAborted(f"an earlier date failed; job {index} was not recorded")
                parent = multiprocessing.parent_process()
                if parent is not None and not parent.is_alive():  # an orphan would wait forever
                    raise BackfillAborted("the backfill process is gone")
                self._cond.wait(timeout=1.0)

    def done(self, index: int) -> None:
        with self._cond:
            self._last.value = index
            self._cond.notify_all()

    def abort(self) -> None:
        with self._cond:
            self._aborted.value = 1
            self._cond.notify_all()


_worker: tuple[BackfillContext, Turns] | None = None


def _init_worker(ctx: BackfillContext, turns: Turns) -> None:
    global _worker
    _worker = (ctx, turns)
    _fewer_full_collections()


def _fewer_full_collections() -> None:
    """A job keeps its windows (hundreds of thousands of objects) alive for a while, long enough to
    reach the oldest generation, so full collections ran after most jobs, each scanning all that a
    flow's process holds (Prefect, SQLAlchemy): 19 s of a 125 s one-worker year. Objects alive now
    are left out of collections, and full ones run a tenth as often (cycles are rare here: the
    rows are freed by reference counting)."""
    gc.freeze()
    first, second, third = gc.get_threshold()
    gc.set_threshold(first, second, max(third, 100))


def _ready() -> None:
    pass


def _run_in_worker(job: DateJob) -> JobOutcome:
    assert _worker is not None, "worker not initialised"
    return run_job(_worker[0], job, _worker[1])


class DateLanes:
    """Runs the jobs of one plan in order over `workers` lanes: this process, and `workers` - 1
    spawned processes (each job wholly in one lane; a lane takes the next job when it is free).

    Callers (one task per chunk of dates, possibly in several threads) pass consecutive slices of
    the plan; a slice is queued only after the slice before it, and lanes take jobs in queue order,
    so a job never waits for its turn behind a job no lane has taken (no deadlock). This process is
    a lane too, so the first dates start at once while the other processes start up (~1 s each).
    """

    def __init__(self, ctx: BackfillContext, workers: int = 1) -> None:
        self.ctx = ctx
        self.workers = max(1, workers)
        self._next = 0  # index of the first job not queued yet
        self._aborted = False
        self._cond = threading.Condition()
        self._queue: queue.SimpleQueue[tuple[DateJob, Future[JobOutcome]] | None] = queue.SimpleQueue()
        self._turns: Turns | None = None
        self._pools: list[ProcessPoolExecutor] = []
        self._lanes: list[threading.Thread] = []

    def __enter__(self) -> DateLanes:
        # The process's settings, changed while the lanes run and restored on exit.
        self._gc_thresholds, self._switch_interval = gc.get_threshold(), sys.getswitchinterval()
        _fewer_full_collections()
        if self.workers > 1:
            # This process's lane holds the GIL while it works; the threads handing the other lanes
            # their next job and their results then waited up to 5 ms a turn (3 s of idle lanes a year).
            sys.setswitchinterval(0.001)
            context = multiprocessing.get_context("spawn")  # never fork a process that runs threads
            self._turns = turns = Turns(context)
            for n in range(1, self.workers):
                pool = ProcessPoolExecutor(1, mp_context=context, initializer=_init_worker, initargs=(self.ctx, turns))
                self._pools.append(pool)
                ready = pool.submit(_ready)  # the process starts now and imports while this one works

                def in_process(job: DateJob, pool: ProcessPoolExecutor = pool) -> JobOutcome:
                    return pool.submit(_run_in_worker, job).result()

                self._lanes.append(threading.Thread(target=self._lane, args=(in_process, ready),
                                                    name=f"backfill-lane-{n}", daemon=True))

        def here(job: DateJob) -> JobOutcome:
            return run_job(self.ctx, job, self._turns)

        self._lanes.append(threading.Thread(target=self._lane, args=(here, None), name="backfill-lane-0", daemon=True))
        for lane in self._lanes:
            lane.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is not None:
            self.abort()
        for _ in self._lanes:
            self._queue.put(None)
        for lane in self._lanes:  # after a failure, a date still running finishes before the caller goes on
            lane.join()
        for pool in self._pools:
            # Every job is done: the idle processes may finish exiting (~1 s) on their own.
            pool.shutdown(wait=kind is not None, cancel_futures=True)
        gc.unfreeze()
        gc.set_threshold(*self._gc_thresholds)
        sys.setswitchinterval(self._switch_interval)

    def abort(self) -> None:
        """Stop: queued jobs, jobs waiting for their turn and callers waiting to queue raise `BackfillAborted`."""
        with self._cond:
            self._aborted = True
            self._cond.notify_all()
        if self._turns is not None:
            self._turns.abort()

    def run(self, jobs: Sequence[DateJob], on_outcome: Callable[[JobOutcome], None] | None = None) -> list[JobOutcome]:
        """Run the next `jobs` of the plan; outcomes in job order, each passed to `on_outcome` as it is known."""
        if not jobs:
            return []
        try:
            futures: list[Future[JobOutcome]] = []
            with self._cond:
                while self._next != jobs[0].index and not self._aborted:
                    self._cond.wait()
                if self._aborted:
                    raise BackfillAborted(f"an earlier date failed; {jobs[0].day} was not run")
                for job in jobs:
                    futures.append(Future())
                    self._queue.put((job, futures[-1]))
                self._next = jobs[-1].index + 1
                self._cond.notify_all()
            outcomes = []
            for future in futures:
                outcomes.append(future.result())
                if on_outcome is not None:
                    on_outcome(outcomes[-1])
            return outcomes
        except BaseException:
            self.abort()
            raise

    def _lane(self, run: Callable[[DateJob], JobOutcome], ready: Future[None] | None) -> None:
        """Take the next queued job whenever free, until the sentinel."""
        try:
            if ready is not None:
                ready.result()  # take no job before the process can run it
        except BaseException:
            self.abort()
        while (item := self._queue.get()) is not None:
            job, future = item
            if self._aborted:
                future.set_exception(BackfillAborted(f"an earlier date failed; {job.day} was not run"))
                continue
            try:
                future.set_result(run(job))
            except BaseException as exc:
                self.abort()
                future.set_exception(exc)
