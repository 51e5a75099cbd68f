"""Backfill of consecutive dates for one topic: `flows.backfill.backfill_briefings` with
`max_concurrency=1` (one worker) and `max_concurrency=2` (two), on an ephemeral Prefect API.

Setup (not timed): a generated workspace of `notes` notes over 365 days is ingested into a template
database; each run gets its own copy (so verifications and briefings start empty) and its own
published folder. The backfill ingests nothing new, then per date, oldest first (after the 7-day
catch-up before the first), collects the window once, records its verifications and publishes its
briefing (`tasks.backfill`): in the flow's process with one worker, pipelined over two spawned
processes with two. Both runs must publish the same content hashes.

`dates` is how many dates end at `end` (`--backfill-dates`; 365 is the whole year, which the
targets are about); for fewer, the 365-date figure is extrapolated from the time per date. The
per-date figures called directly (no Prefect) show what the flow adds.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from benchmarks.bench_daily import template_database, warm_up_prefect
from benchmarks.harness import Databases, Result, environment, settings_for, temp_dir, timed
from benchmarks.profile import profiled
from benchmarks.workspace import DEFAULT_END, generate

TOPIC = "inference"
FULL_YEAR = 365


def _per_date_profile(dbs: Databases, template: str, tmp: Any, root: Any, days: list[dt.date]) -> dict[str, float]:
    """Mean seconds per date called directly (for the README): the two stages one after the other
    (each collects the window), and the backfill's one job per date (collects it once)."""
    from tasks import backfill, run

    out: dict[str, float] = {}
    for variant in ("stages", "job"):
        url = template_database(dbs, template, f"backfill_{variant}")
        try:
            settings = settings_for(url, tmp / variant)
            ref = run.register_workspace(settings, root)
            (topic,) = run.topics_for(settings, root, [TOPIC])
            ctx = backfill.BackfillContext.load(settings, ref, [topic], force=False)
            jobs = backfill.plan_jobs([topic], days, catch_up_days=0)
            for job in jobs:
                with timed() as t:
                    if variant == "job":
                        backfill.run_job(ctx, job)
                    else:
                        run.record_recent_verifications(settings, ref, topic, job.day, 0)
                        out["verify"] = out.get("verify", 0.0) + t()
                        run.assemble_and_publish(settings, ref, topic, run.window_of(topic, job.day))
                out[variant] = out.get(variant, 0.0) + t()
        finally:
            dbs.drop(url)
    return {k: v / len(days) for k, v in out.items()}


def bench_backfill(
    dbs: Databases, notes: int = 1_000, dates: int = FULL_YEAR, seed: int = 1, end: dt.date = DEFAULT_END
) -> Result:
    from flows.backfill import backfill_briefings
    from tasks import run

    start = end - dt.timedelta(days=dates - 1)
    result = Result(
        f"backfill of {dates} dates ({start}..{end}) for topic {TOPIC} on a {notes:,}-note, 365-day workspace, "
        "1 vs 2 workers",
        f"python -m benchmarks --only backfill --backfill-dates {dates}",
    )
    with temp_dir("backfill") as tmp:
        root = tmp / "workspace"
        generate(root, notes=notes, seed=seed)
        template = dbs.create("backfill_template")
        try:
            from db.engine import make_engine, upgrade_database

            engine = make_engine(template, pool_size=1)
            upgrade_database(engine)
            engine.dispose()
            base = settings_for(template, tmp / "base")
            ref = run.register_workspace(base, root)
            run.ingest_batch(base, ref, run.find_changed_files(base, ref))
            warm_up_prefect()
            timings: dict[int, float] = {}
            hashes: dict[int, list[str]] = {}
            for workers in (1, 2):
                url = template_database(dbs, template, f"backfill_{workers}w")
                settings = settings_for(url, tmp / f"w{workers}")
                try:
                    with environment(settings), profiled(f"backfill-{workers}-workers"), timed() as t:
                        results = backfill_briefings(start=start, end=end, topics=[TOPIC], force=False,
                                                     max_concurrency=workers, workspace=str(root))
                    timings[workers] = t()
                    hashes[workers] = [r.content_hash for r in results]
                    print(f"   [backfill] {workers} worker(s): {t():.1f} s for {len(results)} briefings", flush=True)
                finally:
                    dbs.drop(url)
            per_date = _per_date_profile(dbs, template, tmp, root, [end - dt.timedelta(days=k) for k in (2, 1, 0)])
        finally:
            dbs.drop(template)
    if hashes[1] != hashes[2]:
        raise AssertionError("one and two workers published different briefings")
    one, two = timings[1], timings[2]
    result.add("1 worker (max_concurrency=1)", one, "s", f"{one / dates:.2f} s per date")
    result.add("2 workers (max_concurrency=2)", two, "s", f"{two / dates:.2f} s per date")
    result.add("2 workers / 1 worker", two / one, "x")
    result.add("per date, direct: record verifications", per_date["verify"], "s", "mean of the last 3 dates")
    result.add("per date, direct: assemble and publish", per_date["stages"] - per_date["verify"], "s",
               "mean of the last 3 dates")
    result.add("per date, direct: one backfill job (one collect)", per_date["job"], "s",
               "tasks.backfill.run_job, mean of the last 3 dates")
    if dates != FULL_YEAR:
        result.add("365 dates on 1 worker (extrapolated)", one / dates * FULL_YEAR, "s",
                   f"measured {dates} dates x {FULL_YEAR / dates:.1f}")
        result.notes.append(f"measured {dates} consecutive dates; the 365-date figure is extrapolated "
                            "linearly (run --backfill-dates 365 to measure it)")
    result.check("365-date backfill on 1 worker", one / dates * FULL_YEAR, 120.0)
    result.check("2 workers / 1 worker", two / one, 0.6, "x")
    return result
