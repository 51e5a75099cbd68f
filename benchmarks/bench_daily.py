"""The evening of one date under Prefect against the same stage functions called directly.

Setup (not timed): a generated workspace of `base_notes` notes is ingested into a template
database; then `new_notes` notes dated `day` are added. Each variant gets its own database copied
from the template (CREATE DATABASE … TEMPLATE) and its own published folder, so both start from the
same rows. The evening is: poll the two feeds (HF Daily JSON and one arXiv RSS category, answered by
`ReplayHttpClient` from bodies generated for `day`), then the daily briefing of topic `inference`
(ingest what changed, record verifications with the 7-day catch-up, assemble and publish).

- Prefect: `flows.feeds.poll_feeds(...)` then `flows.daily.daily_briefing(...)` on an ephemeral API
  that a warm-up flow has already started (server start-up is excluded);
- direct: `tasks.feeds.stage.fetch_feed`/`store_feed` and the `tasks.run` stage functions the flows
  call, in the same order (one `ingest_batch` per 100 changed files, as the flow's one task per batch).
Both must publish byte-identical briefings.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.harness import Databases, Result, environment, settings_for, temp_dir, timed
from benchmarks.profile import profiled
from benchmarks.workspace import DEFAULT_END, add_notes, feed_bodies, generate

TOPIC = "inference"
CATEGORY = "cs.LG"


@contextmanager
def replayed_feeds(day: dt.date, seed: int) -> Iterator[Any]:
    """Route the feed stage's HTTP client to recorded-style bodies for `day`; yields the client."""
    from tasks.feeds import clients
    from tasks.feeds.hf_daily import HF_DAILY_API
    from tasks.feeds.http import Recorded, ReplayHttpClient

    hf, rss = feed_bodies(day, seed)
    client = ReplayHttpClient({
        (lambda url, params: url.startswith(HF_DAILY_API)): Recorded(body=hf, headers={"content-type": "application/json"}),
        (lambda url, params: "rss.arxiv.org" in url or "export.arxiv.org/rss" in url): Recorded(body=rss),
    })
    original = clients.http_client
    clients.http_client = lambda settings: client
    try:
        yield client
    finally:
        clients.http_client = original


def evening_direct(settings: Any, root: Path, day: dt.date) -> list[Any]:
    """What poll_feeds + daily_briefing do, without Prefect."""
    from tasks import run
    from tasks.feeds import stage
    from tasks.steps import batches_of  # a plain function: the same batches as the flow's tasks

    ref = run.register_workspace(settings, root)
    snapshots = [stage.fetch_feed(settings, "hf_daily", day), stage.fetch_feed(settings, "arxiv", day, CATEGORY)]
    for snapshot in snapshots:
        stage.store_feed(settings, ref.id, snapshot)
    for files in batches_of(run.find_changed_files(settings, ref)):
        run.ingest_batch(settings, ref, files, batch_size=len(files))
    results = []
    for topic in run.topics_for(settings, root, [TOPIC]):
        window = run.window_of(topic, day)
        run.record_recent_verifications(settings, ref, topic, day, run.VERIFY_CATCH_UP_DAYS)
        results.append(run.assemble_and_publish(settings, ref, topic, window))
    return results


def evening_prefect(root: Path, day: dt.date) -> list[Any]:
    from flows.daily import daily_briefing
    from flows.feeds import poll_feeds

    poll_feeds(date=day, sources=["hf_daily", "arxiv"], categories=[CATEGORY], workspace=str(root), lookup=False)
    return daily_briefing(date=day, topics=[TOPIC], workspace=str(root))


def warm_up_prefect() -> float:
    """Start the ephemeral API (and import the flows) outside any timing; returns how long it took."""
    from prefect import flow

    @flow(name="bench-warm-up")
    def warm_up() -> int:
        return 1

    with timed() as t:
        import flows.backfill  # noqa: F401
        import flows.daily  # noqa: F401
        import flows.feeds  # noqa: F401

        warm_up()
    return t()


def template_database(dbs: Databases, url: str, name: str) -> str:
    """A new database copied from the database at `url` (no connection may be open on it)."""
    import psycopg
    from psycopg import sql
    from sqlalchemy import make_url

    from db import engine as db_engine

    for key in [k for k in db_engine._engines if k == url]:
        db_engine._engines.pop(key).dispose()
    new = dbs.create(name)
    new_name, source = str(make_url(new).database), str(make_url(url).database)
    with psycopg.connect(dbs._conninfo(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(new_name)))
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(new_name), sql.Identifier(source)))
    return new


def bench_daily(
    dbs: Databases, base_notes: int = 1_000, new_notes: int = 100, seed: int = 1, day: dt.date = DEFAULT_END
) -> Result:
    from tasks import run

    result = Result(
        f"daily flow for {day} ({new_notes} new notes + 2 feed snapshots on a {base_notes:,}-note workspace), "
        "Prefect vs direct",
        "python -m benchmarks --only daily",
    )
    with temp_dir("daily") as tmp:
        root = tmp / "workspace"
        generate(root, notes=base_notes, seed=seed)
        template = dbs.create("daily_template")
        try:
            from db.engine import make_engine, upgrade_database

            engine = make_engine(template, pool_size=1)
            upgrade_database(engine)
            engine.dispose()
            base = settings_for(template, tmp / "base")
            ref = run.register_workspace(base, root)
            run.ingest_batch(base, ref, run.find_changed_files(base, ref))
            add_notes(root, day, new_notes, seed=seed)
            result.add("Prefect ephemeral API start-up (excluded)", warm_up_prefect(), "s")

            published: dict[str, str] = {}
            timings: dict[str, float] = {}
            with replayed_feeds(day, seed) as client:
                for variant in ("direct", "prefect"):
                    url = template_database(dbs, template, f"daily_{variant}")
                    settings = settings_for(url, tmp / variant)
                    try:
                        with environment(settings), profiled(f"daily-{variant}"), timed() as t:
                            results = (evening_direct(settings, root, day) if variant == "direct"
                                       else evening_prefect(root, day))
                        timings[variant] = t()
                        published[variant] = results[0].content_hash
                        print(f"   [daily] {variant}: {t():.1f} s", flush=True)
                    finally:
                        dbs.drop(url)
                requests = client.count
        finally:
            dbs.drop(template)
    if published["direct"] != published["prefect"]:
        raise AssertionError("the Prefect and direct evenings published different briefings")
    ratio = timings["prefect"] / timings["direct"]
    result.add("direct stage calls", timings["direct"], "s")
    result.add("under Prefect (poll_feeds + daily_briefing)", timings["prefect"], "s")
    result.add("Prefect overhead", timings["prefect"] - timings["direct"], "s",
               "two flow runs; feed, ingest (one per 100 files), verify and publish tasks")
    result.add("Prefect / direct", ratio, "x")
    result.add("feed requests (both runs)", requests, "count")
    result.check("daily flow under Prefect / direct calls", ratio, 1.3, "x")
    return result
