"""After publishing: say what was published and where, on the Prefect run page and to the destinations.

`announce` is called by the thin Prefect task and flow wrappers (daily, backfill, UI runs) with the
results of publishing. Each briefing is logged as "published" or "unchanged" with its keys; each
published one gets a markdown artifact (title, density, NET-new ids, keys of its page and feed) and
is handed to `tasks.publish.notify` (backfills only when `notify_backfill` is set); both are
made from the summary the result carries (`BriefingResult.summary`, of the view the run rendered),
never from the twin read back. Unchanged briefings get neither an artifact nor a notification.
A backfill run in one flow (its dates in lanes, not child runs) gets one table artifact instead, a
row per date and topic (`announce_backfill`): a year is 365 artifacts otherwise, each a round trip the API server
serves while the lanes compete with it for the cores. Daily runs also emit
`predigest.briefing.published` or `.unchanged` per briefing (see predigest/automations.py). Outside a Prefect run nothing is created.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from jinja2 import Environment, PackageLoader, StrictUndefined

from tasks.common.urls import safe_url
from tasks.config.settings import Settings
from tasks.model.keys import briefing_keys, site_keys
from tasks.publish.notify import notify_published
from tasks.publish.pages import labels_for, statement
from tasks.publish.safety import clean_text
from tasks.publish.storage import ObjectStore, store_for

log = logging.getLogger(__name__)

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~])")
# Markdown artifacts are text, not HTML: no autoescape, every value through `md` instead.
_ENV = Environment(loader=PackageLoader("tasks.publish", "templates"), autoescape=False, undefined=StrictUndefined,
                   trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
_ENV.filters["md"] = lambda value: _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(clean_text(str(value)).split()))


class Published(Protocol):
    """What a run reports for one briefing (tasks.stages.briefings.BriefingResult)."""

    @property
    def topic(self) -> str: ...
    @property
    def date(self) -> dt.date: ...
    @property
    def content_hash(self) -> str: ...
    @property
    def written(self) -> bool: ...
    @property
    def summary(self) -> Mapping[str, Any] | None: ...  # what it published (`date_summary`); None when it failed


def artifact_key(topic: str, date: dt.date) -> str:
    """Prefect artifact keys allow lower-case letters, digits and dashes only."""
    return re.sub(r"[^a-z0-9-]+", "-", f"briefing-{topic.lower()}-{date.isoformat()}").strip("-")


def public_url(settings: Settings, store: ObjectStore, key: str) -> str:
    """Where a reader finds `key`: under `site_url` when configured, else the store's own location."""
    base = safe_url(settings.site_url)
    return f"{base.rstrip('/')}/{key}" if base else store.url_for(key)


def artifact_markdown(topic: str, summary: Mapping[str, Any], keys: dict[str, str], lang: str) -> str:
    """The run page's note on one published briefing, from its summary (`tasks.publish.pages.date_summary`)."""
    lang, L, density = labels_for(lang)
    return _ENV.get_template("artifact.md").render(
        title=L["title"].format(topic=topic, date=summary["date"]), summary=summary, L=L, D=density,
        statement=statement(summary, lang), net_new=[p for p in summary["increments"] if p["status"] == "net_new"],
        keys=keys,
    )


def _run_logger() -> logging.Logger | logging.LoggerAdapter[logging.Logger]:
    from prefect.context import FlowRunContext, TaskRunContext
    from prefect.logging import get_run_logger

    if TaskRunContext.get() or FlowRunContext.get():
        return get_run_logger()
    return log


def announce(settings: Settings, results: Iterable[Published], *, backfill: bool = False, artifact: bool = True) -> None:
    """Log, record an artifact for (unless `artifact` is False), and notify about each published briefing in `results`."""
    results = list(results)
    if not results:
        return
    logger = _run_logger()
    store = store_for(settings)
    notify = not backfill or settings.notify_backfill
    for result in results:
        markdown_key, json_key = briefing_keys(result.topic, result.date, settings.lang)
        site = site_keys(result.topic, result.date, settings.lang)
        keys = {"page": site["page"], "feed": site["feed"], "markdown": markdown_key, "json": json_key}
        if error := getattr(result, "error", None):
            logger.warning("%s %s failed: %s", result.topic, result.date.isoformat(), error)
            continue
        state = "published" if result.written else "unchanged"
        logger.info("%s %s %s: %s (feed %s)", result.topic, result.date.isoformat(), state,
                    store.url_for(site["page"]), store.url_for(site["feed"]))
        if not backfill:
            _emit(result, state, keys)
        if not result.written or not (artifact or notify):
            continue
        summary = result.summary
        if summary is None:
            logger.warning("%s %s: nothing says what was published; no artifact or notification", result.topic,
                           result.date.isoformat())
            continue
        if artifact:
            _create_artifact(result, artifact_markdown(result.topic, summary, keys, settings.lang), logger)
        if not notify:
            continue
        outcome = notify_published(settings, store, result.topic, result.date, result.content_hash, summary,
                                   public_url(settings, store, site["page"]), public_url(settings, store, site["feed"]))
        for destination, how in outcome.items():
            logger.info("%s %s notification to %s: %s", result.topic, result.date.isoformat(), destination, how)


def backfill_rows(settings: Settings, results: Iterable[Published]) -> list[dict[str, str]]:
    """A row per briefing of a backfill: date, topic, what happened to it, and where it is."""
    store = store_for(settings)
    rows = []
    for result in sorted(results, key=lambda r: (r.date, r.topic)):
        error = getattr(result, "error", None)
        state = "failed" if error else "published" if result.written else "unchanged"
        page = "" if error else store.url_for(site_keys(result.topic, result.date, settings.lang)["page"])
        rows.append({"date": result.date.isoformat(), "topic": clean_text(result.topic), "state": state,
                     "page": page, "error": clean_text(error)[:500]})
    return rows


def announce_backfill(settings: Settings, results: Iterable[Published], start: dt.date, end: dt.date) -> None:
    """One table artifact for a backfill run, a row per briefing (`backfill_rows`); nothing outside a run."""
    from prefect.artifacts import create_table_artifact
    from prefect.context import FlowRunContext

    if FlowRunContext.get() is None:
        return
    rows = backfill_rows(settings, results)
    if not rows:
        return
    written = sum(r["state"] == "published" for r in rows)
    try:
        create_table_artifact(table=rows, description=f"backfill {start.isoformat()}..{end.isoformat()}: "
                                                      f"{len(rows)} briefings, {written} published")
    except Exception as exc:  # the run page is a convenience; the briefings are already published
        _run_logger().warning("could not create the backfill's artifact: %s", exc)


def _create_artifact(result: Published, markdown: str, logger: Any) -> None:
    from prefect.artifacts import create_markdown_artifact
    from prefect.context import FlowRunContext, TaskRunContext

    if not (TaskRunContext.get() or FlowRunContext.get()):
        return
    try:
        create_markdown_artifact(markdown=markdown, key=artifact_key(result.topic, result.date),
                                 description=f"{result.topic} {result.date.isoformat()} published")
    except Exception as exc:  # the run page is a convenience; the briefing is already published
        logger.warning("could not create the artifact of %s %s: %s", result.topic, result.date.isoformat(), exc)


def _emit(result: Published, state: str, keys: dict[str, str]) -> None:
    """`predigest.briefing.published|unchanged`, what the "no briefing by 23:00" automation waits for."""
    from prefect.context import FlowRunContext
    from prefect.events import emit_event

    if FlowRunContext.get() is None:
        return
    try:  # the run's flow and deployment are added as related resources from the run context
        emit_event(event=f"predigest.briefing.{state}",
                   resource={"prefect.resource.id": f"predigest.briefing.{result.topic}",
                             "predigest.topic": result.topic, "predigest.date": result.date.isoformat()},
                   payload={"page": keys["page"], "feed": keys["feed"], "content_hash": result.content_hash})
    except Exception as exc:  # an event is a convenience; the briefing is already published
        log.warning("could not emit the event of %s %s: %s", result.topic, result.date.isoformat(), exc)
