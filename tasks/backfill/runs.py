"""What a backfill run shares besides its lanes: the progress hooks a caller in its process listens
with, and the runs of a child deployment that publish its dates on other workers.

Contract:
- Hooks registered with `report_progress` hear each date once, as it is done (`notify_progress`),
  from whichever thread finished it; registering and notifying are safe across threads.
- A child run of one date is created with the idempotency key
  `backfill-<topic[+topic…]>-<date>-<parent run id>`: a retried backfill run finds its children
  again, a new backfill run makes new ones.
- `stored_results` reads back what a child run published for a date from the briefings rows (the
  child's results stay on the worker that ran it); a scheduled topic without a published row is a
  RuntimeError naming it.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tasks.config.settings import Settings
from tasks.publish.site import site_keys
from tasks.publish.storage import store_for
from tasks.stages.briefed_topics import scheduled_window, topics_for
from tasks.stages.briefings import BriefingResult
from tasks.stages.queries import published_rows
from tasks.stages.workspace import register_workspace

ProgressHook = Callable[[dt.date, list[BriefingResult]], None]
_progress_hooks: list[ProgressHook] = []
_hooks_lock = threading.Lock()


@contextmanager
def report_progress(hook: ProgressHook) -> Iterator[None]:
    """Call `hook(date, results)` as each date finishes while a backfill runs in this process (the CLI)."""
    with _hooks_lock:
        _progress_hooks.append(hook)
    try:
        yield
    finally:
        with _hooks_lock:
            _progress_hooks.remove(hook)


def notify_progress(day: dt.date, results: list[BriefingResult]) -> None:
    """Tell every registered hook that `day` is done with `results`."""
    with _hooks_lock:
        hooks = list(_progress_hooks)
    for hook in hooks:
        hook(day, results)


def idempotency_key(topics: list[str], day: dt.date, parent_run_id: str | None) -> str:
    """`backfill-<topic[+topic…]>-<date>-<parent run id>`."""
    return f"backfill-{'+'.join(topics)}-{day.isoformat()}-{parent_run_id or 'none'}"


def stored_results(settings: Settings, workspace: str, topics: list[str], day: dt.date,
                   since: dt.datetime) -> list[BriefingResult]:
    """What a child run on another worker published for `day`, read back from the briefings rows;
    `written` means the row was (re)published at or after `since` (database clock)."""
    ref = register_workspace(settings, Path(workspace))
    store = store_for(settings)
    rows = published_rows(settings, ref.id, day, topics)
    results = []
    for topic in topics_for(settings, Path(ref.root), topics):
        if scheduled_window(topic, day) is None:
            continue
        row = rows.get(topic.name)
        if row is None or not (row.content_hash and row.markdown_key and row.json_key and row.published_at):
            raise RuntimeError(f"briefing {day} finished without publishing {topic.name}")
        site = site_keys(topic.name, day, settings.lang)
        results.append(BriefingResult(topic.name, day, store.url_for(row.markdown_key),
                                      store.url_for(row.json_key), row.content_hash, row.published_at >= since,
                                      store.url_for(site["page"]), store.url_for(site["feed"])))
    return results
