"""Backfill stage: each date's verifications and briefings from one collected window per topic, in
date order, in this process or pipelined over worker processes (`tasks.backfill.lanes.DateLanes`).

- `plan_derivation` finds per topic the windows that must be derived again (`tasks.stages.derive`);
  `plan_jobs` makes one job per date, oldest first: windows before the range (record only), then
  each date of the range. A job covers every topic scheduled that date.
- `run_job` collects and judges each topic's window once, records it when it must be derived
  (strictly in job order, `Turns`), then publishes that date's briefing without its topic's site.
- `refresh_sites` refreshes each topic's site once for the range, also after a failure, to the bytes
  publishing the dates one by one would have left.
- A failure stops the lanes: jobs not yet run raise `BackfillAborted`.
docs/layout.md ("Backfill") describes the command around it.
"""

from __future__ import annotations

import datetime as dt
import functools
import multiprocessing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db.engine import get_engine, resolve_database_url, session_scope
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.judge.density import DensityRule
from tasks.model.windows import Window
from tasks.stages import briefings
from tasks.stages.briefed_topics import density_rule_for, known_topic_names, scheduled_window
from tasks.stages.briefings import BriefingResult, assemble_and_publish, collected_content
from tasks.stages.derive import (
    DerivedWindow,
    Judged,
    collect_and_judge,
    drop_from,
    lock_topic,
    pending_windows,
    record_window,
)
from tasks.stages.workspace import WorkspaceRef

__all__ = ["BackfillAborted", "BackfillContext", "DateJob", "JobOutcome", "date_range", "plan_derivation",
           "plan_jobs", "refresh_sites", "run_job", "scheduled_window"]


def date_range(start: dt.date, end: dt.date) -> list[dt.date]:
    """Every date from `start` to `end`, both included; ValueError when `end` is before `start`."""
    if end < start:
        raise ValueError(f"backfill end {end} is before its start {start}")
    return [start + dt.timedelta(days=n) for n in range((end - start).days + 1)]


class BackfillAborted(RuntimeError):
    """An earlier job failed, so this one cannot record its verifications in order."""


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


@dataclass(frozen=True)
class BackfillContext:
    """What every job of one backfill shares, loaded once (not per date)."""

    settings: Settings
    ref: WorkspaceRef
    topics: dict[str, Topic]
    known: list[str]  # every topic name, for judging relevance
    rules: dict[str, DensityRule]
    force: bool = False

    @classmethod
    def load(cls, settings: Settings, ref: WorkspaceRef, topics: Sequence[Topic], force: bool) -> BackfillContext:
        root = Path(ref.root)
        # The database as resolved here: worker processes need not look up an embedded server again.
        settings = settings.model_copy(update={"database_url": resolve_database_url(settings)})
        return cls(settings, ref, {t.name: t for t in topics}, known_topic_names(settings, root),
                   {t.name: density_rule_for(settings, root, t.name) for t in topics}, force)


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
    results: list[BriefingResult] = field(default_factory=list)


Derive = Mapping[str, Mapping[dt.date, DerivedWindow]]


def plan_derivation(settings: Settings, ref: WorkspaceRef, topics: Sequence[Topic], through: dt.date,
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
    """Collect and judge each topic's window once; record what it observes
    (`tasks.stages.derive.record_window`) when it must be derived, in turn (`Turns`: job i records
    after job i-1 has committed, since a window is observed against the state the earlier windows
    left); then publish from the same window (`assemble_and_publish` with `collected_content`): the
    markdown, JSON twin, index.json entry and page, not the topic's site, which covers every date
    (rewriting it per date would make a backfill O(dates²); `refresh_sites` writes it once)."""
    settings, ref = ctx.settings, ctx.ref
    steps = dict(job.derive)
    try:
        with session_scope(get_engine(settings)) as session:
            # Judged once for recording and rendering, and before this job's turn: lanes judge in parallel.
            collected = [(ctx.topics[name], collect_and_judge(session, ref.id, ctx.topics[name],
                                                              steps.get(name) or DerivedWindow(window.date, window, ""),
                                                              settings.source_budget_units))
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


def _publish(ctx: BackfillContext, topic: Topic, judged: Judged) -> BriefingResult:
    content = functools.partial(collected_content, ctx.settings, ctx.ref, topic, judged.data, ctx.known,
                                ctx.rules[topic.name], judged.papers, judged.budgets)
    # The topic's site is left to `refresh_sites`, once for the whole range.
    return assemble_and_publish(ctx.settings, ctx.ref, topic, judged.data.window, ctx.force, content=content,
                                site=False)


def refresh_sites(ctx: BackfillContext, days: Sequence[dt.date]) -> None:
    """Refresh the site of each topic of the backfill once for `days`, after their jobs ran (or
    stopped): every date with a stored JSON twin is listed with its summary, so a date that
    published is never missing, and a date that did not keeps what an earlier run published."""
    briefings.refresh_sites(ctx.settings, list(ctx.topics), days)
