"""The evening of one date under Prefect against the same stage functions called directly.

Setup (not timed): a generated workspace ingested into a template database, derived through the day
before `day`, plus `new_notes` notes dated `day`; each variant gets its own database copy and
published folder. The evening polls the two feeds (replayed) and runs the daily briefing of
`inference`: through `flows.feeds.poll_feeds` and `flows.daily.daily_briefing` on a warm ephemeral
API, or through the `tasks` functions the flows call, in the same order.
The feeds and the daily flow are timed apart; variants alternate, `REPEATS` each, medians reported.
Targets: the daily flow and the whole evening each <= 1.3x direct. Every evening must publish the
same bytes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
from tests.generate.large import DEFAULT_END, add_notes, feed_bodies, generate

TOPIC = "inference"
REPEATS = 5  # evenings per variant; the figures are medians (on 2 shared cores an evening varies by ~1.5 s)
CATEGORY = "cs.LG"


@contextmanager
def replayed_feeds(day: dt.date, seed: int) -> Iterator[Any]:
    """Route the feed stage's HTTP client to recorded-style bodies for `day`; yields the client."""
    from tasks.feeds import clients
    from tasks.feeds.hf_daily import HF_DAILY_API
    from tasks.feeds.http import Recorded, ReplayHttpClient

    hf, rss = feed_bodies(day, seed)
    client = ReplayHttpClient({
        (lambda url, _params: url.startswith(HF_DAILY_API)): Recorded(body=hf, headers={"content-type": "application/json"}),
        (lambda url, _params: "rss.arxiv.org" in url or "export.arxiv.org/rss" in url): Recorded(body=rss),
    })
    original = clients.http_client
    clients.http_client = lambda *_args, **_kwargs: client
    try:
        yield client
    finally:
        clients.http_client = original


def feeds_direct(settings: Any, root: Path, day: dt.date) -> None:
    """What poll_feeds does, without Prefect."""
    from tasks.feeds import stage
    from tasks.stages.workspace import register_workspace

    ref = register_workspace(settings, root)
    snapshots = [stage.fetch_feed(settings, "hf_daily", day), stage.fetch_feed(settings, "arxiv", day, CATEGORY)]
    for snapshot in snapshots:
        stage.store_feed(settings, ref.id, snapshot)


def daily_direct(settings: Any, root: Path, day: dt.date) -> list[Any]:
    """What daily_briefing does, without Prefect."""
    from flows.stage_tasks import batches_of  # a plain function: the same batches as the flow's tasks
    from tasks.stages.briefed_topics import topics_for
    from tasks.stages.briefings import brief
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    ref = register_workspace(settings, root)
    for files in batches_of(find_changed_files(settings, ref)):
        ingest_batch(settings, ref, files, batch_size=len(files))
    results = []
    for topic in topics_for(settings, root, [TOPIC]):
        results.append(brief(settings, ref, topic, day))
    return results


def feeds_prefect(_settings: Any, root: Path, day: dt.date) -> None:
    """poll_feeds as a flow (it resolves its own settings from the workspace)."""
    from flows.feeds import poll_feeds

    asyncio.run(poll_feeds(date=day, sources=["hf_daily", "arxiv"], categories=[CATEGORY], workspace=str(root),
                           lookup=False))


def daily_prefect(_settings: Any, root: Path, day: dt.date) -> list[Any]:
    """daily_briefing as a flow (it resolves its own settings from the workspace)."""
    from flows.daily import daily_briefing

    return asyncio.run(daily_briefing(date=day, topics=[TOPIC], workspace=str(root)))


EVENING = {"direct": (feeds_direct, daily_direct), "prefect": (feeds_prefect, daily_prefect)}


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


def bench_daily(
    dbs: Databases, base_notes: int = 1_000, new_notes: int = 100, seed: int = 1, day: dt.date = DEFAULT_END,
    repeats: int = REPEATS,
) -> Result:
    result = Result(
        f"daily flow for {day} ({new_notes} new notes + 2 feed snapshots on a {base_notes:,}-note workspace), "
        f"Prefect vs direct, median of {repeats} evenings each",
        "python -m benchmarks --only daily",
    )
    with temp_dir("daily") as tmp:
        root = tmp / "workspace"
        generate(root, notes=base_notes, seed=seed)
        with ingested_template(dbs, "daily_template", root, tmp / "base") as template:
            # The database of a team that ran every evening before: verifications derived up to the
            # day before (on a fresh one, the first evening derives the whole year, a backfill's work).
            result.add("deriving the evenings before (excluded)", _derive_before(template, root, tmp, day), "s")
            add_notes(root, day, new_notes, seed=seed)
            result.add("Prefect ephemeral API start-up (excluded)", warm_up_prefect(), "s")

            published: set[tuple[str, str]] = set()
            feeds: dict[str, list[float]] = {"direct": [], "prefect": []}
            daily: dict[str, list[float]] = {"direct": [], "prefect": []}
            with replayed_feeds(day, seed) as client:
                # Interleaved, each evening on its own copy of the template: noise of the host falls on both.
                for n in range(repeats):
                    for variant in ("direct", "prefect"):
                        poll, brief = EVENING[variant]
                        with fresh_database(dbs, f"daily_{variant}", template=template) as url:
                            settings = settings_for(url, tmp / f"{variant}{n}")
                            with environment(settings), profiled(f"daily-{variant}-{n}"):
                                with timed() as t_feeds:
                                    poll(settings, root, day)
                                with timed() as t_daily:
                                    results = brief(settings, root, day)
                        feeds[variant].append(t_feeds())
                        daily[variant].append(t_daily())
                        published.add((variant, results[0].content_hash))
                        print(f"   [daily] {variant} #{n + 1}: feeds {t_feeds():.2f} s, daily {t_daily():.2f} s",
                              flush=True)
                requests = client.count
    if len({content for _, content in published}) != 1:
        raise AssertionError(f"the evenings published different briefings: {sorted(published)}")
    med = statistics.median
    evening = {v: [f + d for f, d in zip(feeds[v], daily[v], strict=True)] for v in feeds}
    daily_ratio = med(daily["prefect"]) / med(daily["direct"])
    evening_ratio = med(evening["prefect"]) / med(evening["direct"])
    result.add("daily_briefing: direct stage calls", med(daily["direct"]), "s", _spread(daily["direct"]))
    result.add("daily_briefing: under Prefect", med(daily["prefect"]), "s", _spread(daily["prefect"]))
    result.add("daily_briefing: Prefect / direct", daily_ratio, "x")
    result.add("poll_feeds: direct / under Prefect", med(feeds["direct"]), "s",
               f"under Prefect {med(feeds['prefect']):.2f} s")
    result.add("evening (poll_feeds + daily_briefing): direct", med(evening["direct"]), "s", _spread(evening["direct"]))
    result.add("evening (poll_feeds + daily_briefing): under Prefect", med(evening["prefect"]), "s",
               _spread(evening["prefect"]))
    result.add("evening: Prefect overhead", med(evening["prefect"]) - med(evening["direct"]), "s",
               "two async flow runs (no heartbeat join at their end); ~11 task runs")
    result.add("evening: Prefect / direct", evening_ratio, "x")
    result.add("feed requests (all evenings)", requests, "count")
    result.check("daily flow under Prefect / direct calls", daily_ratio, 1.3, "x")
    result.check("evening (feeds + daily flows) under Prefect / direct", evening_ratio, 1.3, "x")
    return result


def _derive_before(template: str, root: Path, tmp: Path, day: dt.date) -> float:
    from tasks.stages.briefed_topics import topics_for
    from tasks.stages.verifications import derive_verifications
    from tasks.stages.workspace import register_workspace

    settings = settings_for(template, tmp / "base")
    ref = register_workspace(settings, root)
    with timed() as t:
        for topic in topics_for(settings, root, [TOPIC]):
            derive_verifications(settings, ref, topic, day - dt.timedelta(days=1))
    return t()


def _spread(values: list[float]) -> str:
    return "runs " + ", ".join(f"{v:.2f}" for v in values)
