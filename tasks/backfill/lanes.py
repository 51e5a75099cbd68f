"""Lanes of a backfill: the jobs of one plan (`tasks.backfill.jobs`) run in order, in worker processes
forked from a forkserver (one per lane), recording strictly in job order (`Turns`)."""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from types import TracebackType

from tasks.backfill.jobs import BackfillAborted, BackfillContext, DateJob, JobOutcome, Turns, run_job
from tasks.common.gc_policy import fewer_full_collections


class _Worker:
    """This worker process's backfill and turns, set by the pool's initializer (`_init_worker`)."""

    state: tuple[BackfillContext, Turns] | None = None


def lanes_for(max_concurrency: int) -> int:
    """Lanes for a backfill's dates: as asked, but no more than the cores (the work is CPU-bound)."""
    return max(1, min(max_concurrency, os.cpu_count() or 1))


def _init_worker(ctx: BackfillContext, turns: Turns) -> None:
    _Worker.state = (ctx, turns)
    # A job keeps its windows alive long enough to reach the oldest generation, so full
    # collections ran after most jobs, each scanning all a flow's process holds.
    fewer_full_collections()


def _ready() -> None:
    pass


def _lane_context() -> multiprocessing.context.BaseContext:
    """Lanes are forked from a forkserver: a process that runs no threads (never fork one that does,
    as this one does) and has imported the backfill once, so a lane starts without importing it
    again. The server starts with the first lane of this
    process and serves every backfill it runs after that."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def _run_in_worker(job: DateJob) -> JobOutcome:
    state = _Worker.state
    assert state is not None, "worker not initialised"
    return run_job(state[0], job, state[1])


class DateLanes:
    """Runs the jobs of one plan in order over `workers` lanes, each a worker process (each job wholly
    in one lane; a lane takes the next job when it is free).

    Callers (one task per chunk of dates, possibly in several threads) pass consecutive slices of
    the plan; a slice is queued only after the slice before it, and lanes take jobs in queue order,
    so a job never waits for its turn behind a job no lane has taken (no deadlock).

    This process runs no job, not even with one lane: a lane here would share its interpreter lock
    with the threads that hand the lanes their jobs and with Prefect's log and event senders (the
    backfill benchmark measures the difference). The processes start while the caller ingests; each
    lane then forks from the forkserver.
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
        context = _lane_context()
        self._turns = turns = Turns(context)
        for n in range(self.workers):
            pool = ProcessPoolExecutor(1, mp_context=context, initializer=_init_worker, initargs=(self.ctx, turns))
            self._pools.append(pool)
            ready = pool.submit(_ready)  # the process starts now and imports while the caller works

            def in_process(job: DateJob, pool: ProcessPoolExecutor = pool) -> JobOutcome:
                return pool.submit(_run_in_worker, job).result()

            self._lanes.append(threading.Thread(target=self._lane, args=(in_process, ready),
                                                name=f"backfill-lane-{n}", daemon=True))
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
            # Every job is done: the idle processes may finish exiting on their own.
            pool.shutdown(wait=kind is not None, cancel_futures=True)

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

    def _lane(self, run: Callable[[DateJob], JobOutcome], ready: Future[None]) -> None:
        """Take the next queued job whenever free, until the sentinel."""
        try:
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
