"""Backfill of consecutive dates for one topic: `flows.backfill.backfill_briefings` with
`max_concurrency=1` and `max_concurrency=2`, on an ephemeral Prefect API.

Setup (not timed): a generated workspace of `notes` notes over 365 days in a template database;
each run gets its own copy (no verifications yet, so every window is derived) and published folder.
Both runs must publish the same content hashes. The same jobs called directly in one lane show
what the flow adds.
`dates` (`--backfill-dates`) is how many dates end at `end`; below 365 the year's figure is extrapolated per
date, which overstates it, since every window before the range is derived too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from benchmarks.bench_daily import warm_up_prefect
from benchmarks.harness import (
    Databases,
    Result,
    environment,
    fresh_database,
    ingested_template,
    settings_for,
    temp_dir,
    timed,
)
from benchmarks.profile import profiled
from tests.generate.large import DEFAULT_END, generate

TOPIC = "inference"
FULL_YEAR = 365


def _direct_run(dbs: Databases, template: str, tmp: Any, root: Any, days: list[dt.date]) -> float:
    """Seconds for the same dates' jobs called directly in one lane (no Prefect, no ingest step; the
    lane is a worker process, as under the flow):
    the work the one-worker flow sequences, on its own copy of the template."""
    from tasks.backfill import jobs as backfill
    from tasks.backfill import lanes
    from tasks.stages.briefed_topics import topics_for
    from tasks.stages.workspace import register_workspace

    with fresh_database(dbs, "backfill_direct", template=template) as url:
        settings = settings_for(url, tmp / "direct")
        ref = register_workspace(settings, root)
        topics = topics_for(settings, root, [TOPIC])
        with profiled("backfill-direct"), timed() as t:
            ctx = backfill.BackfillContext.load(settings, ref, topics, force=False)
            derive = backfill.plan_derivation(settings, ref, topics, days[-1], ctx.known)
            with lanes.DateLanes(ctx, 1) as one_lane:
                one_lane.run(backfill.plan_jobs(topics, days, derive=derive))
            backfill.refresh_sites(ctx, days)  # the topic's site, once, as the flow does after its lanes
        return t()


def bench_backfill(
    dbs: Databases, notes: int = 1_000, dates: int = FULL_YEAR, seed: int = 1, end: dt.date = DEFAULT_END
) -> Result:
    from flows.backfill import backfill_briefings, date_range

    start = end - dt.timedelta(days=dates - 1)
    result = Result(
        f"backfill of {dates} dates ({start}..{end}) for topic {TOPIC} on a {notes:,}-note, 365-day workspace, "
        "1 vs 2 workers",
        f"python -m benchmarks --only backfill --backfill-dates {dates}",
    )
    with temp_dir("backfill") as tmp:
        root = tmp / "workspace"
        generate(root, notes=notes, seed=seed)
        with ingested_template(dbs, "backfill_template", root, tmp / "base") as template:
            warm_up_prefect()
            timings: dict[int, float] = {}
            hashes: dict[int, list[str]] = {}
            for workers in (1, 2):
                with fresh_database(dbs, f"backfill_{workers}w", template=template) as url:
                    settings = settings_for(url, tmp / f"w{workers}")
                    with environment(settings), profiled(f"backfill-{workers}-workers"), timed() as t:
                        results = backfill_briefings(start=start, end=end, topics=[TOPIC], force=False,
                                                     max_concurrency=workers, workspace=str(root))
                timings[workers] = t()
                hashes[workers] = [r.content_hash for r in results]
                print(f"   [backfill] {workers} worker(s): {t():.1f} s for {len(results)} briefings", flush=True)
            direct = _direct_run(dbs, template, tmp, root, date_range(start, end))
    if hashes[1] != hashes[2]:
        raise AssertionError("one and two workers published different briefings")
    one, two = timings[1], timings[2]
    result.add("1 worker (max_concurrency=1)", one, "s", f"{one / dates:.2f} s per date")
    result.add("2 workers (max_concurrency=2)", two, "s", f"{two / dates:.2f} s per date")
    result.add("2 workers / 1 worker", two / one, "x")
    result.add("the same jobs called directly, one lane", direct, "s",
               f"{direct / dates:.2f} s per date; tasks.backfill.jobs.lanes.DateLanes without Prefect")
    result.add("1 worker under Prefect / direct", one / direct, "x")
    if dates != FULL_YEAR:
        result.add("365 dates on 1 worker (extrapolated)", one / dates * FULL_YEAR, "s",
                   f"measured {dates} dates x {FULL_YEAR / dates:.1f}")
        result.notes.append(f"measured {dates} consecutive dates; the 365-date figure is extrapolated "
                            "linearly, an overstatement: the windows before the range are derived too "
                            "(run --backfill-dates 365 to measure it)")
    result.check("365-date backfill on 1 worker", one / dates * FULL_YEAR, 120.0)
    result.check("2 workers / 1 worker", two / one, 0.6, "x")
    return result
