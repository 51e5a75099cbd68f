"""Record a reader's verdict: one line appended to `organized/feedback/<topic>.md`, atomically.

The file is the record (`tasks.inbox.feedback_file` reads it at ingest, like every workspace file), so
a verdict is versioned, triggers the inbox watch and is visible to anyone reading the workspace.
Refused, with one line saying why (`FeedbackRefused`): a malformed arXiv id or item key, a verdict
that is not about such an item (or `settled` without a reason), a date with no published briefing
of the topic, an item key that briefing does not show. An unknown topic is refused by the caller,
as `run` refuses it.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import get_args
from zoneinfo import ZoneInfo

from tasks.common.files import write_atomically
from tasks.common.item_keys import key_prefix
from tasks.config.settings import Lang, Settings
from tasks.inbox.feedback_file import canonical_item, feedback_path, format_line, verdict_problem
from tasks.model.keys import briefing_keys
from tasks.publish.workspace_store import workspace_store
from tasks.stages.briefed_topics import topics_for


class FeedbackRefused(ValueError):
    """A verdict that cannot be recorded; the message says why, in one line."""


def canonical_id(raw: str) -> str:
    """`raw` ("2611.00010", "arXiv:2611.00010v2", "p-1a2b3c4d") as a canonical id or item key;
    FeedbackRefused when it is neither."""
    found = canonical_item(raw)
    if found is None:
        raise FeedbackRefused(f"{raw!r} is not an arXiv id (e.g. 2611.00010 or hep-th/9901001) "
                              "or an item key the page shows (p-…, e-…)")
    return found


def _twins(settings: Settings, workspace: Path, topic: str, day: dt.date) -> list[dict]:
    """The published JSON twins of (topic, day), one per language published."""
    store = workspace_store(settings, workspace)
    found = (store.get(briefing_keys(topic, day, lang)[1]) for lang in get_args(Lang))
    return [json.loads(raw) for raw in found if raw is not None]


def shown_keys(twin: dict) -> set[str]:
    """The item keys a briefing shows: its increments' and its pending items'."""
    listed = [*(twin.get("increments") or []), *(twin.get("verifications") or []),
              *(twin.get("earlier_verifications") or [])]
    return {str(i["item_key"]) for i in listed if i.get("item_key")}


def record_feedback(settings: Settings, workspace: Path, topic: str, day: dt.date, raw_id: str, verdict: str,
                    by: str, reason: str = "", now: dt.datetime | None = None) -> tuple[Path, str]:
    """Append the verdict to the topic's feedback file; returns the file and the line written."""
    item = canonical_id(raw_id)
    problem = verdict_problem(item, verdict, reason)
    if problem is not None:
        raise FeedbackRefused(problem)
    twins = _twins(settings, workspace, topic, day)
    if not twins:
        raise FeedbackRefused(f"no published briefing of {topic} {day.isoformat()}: feedback answers a briefing; "
                              f"run `predigest run --date {day.isoformat()} --topic {topic}` first")
    if key_prefix(item) and not any(item in shown_keys(t) for t in twins):
        raise FeedbackRefused(f"the briefing of {topic} {day.isoformat()} shows no item {item}: "
                              "copy the key from its page")
    (resolved,) = topics_for(settings, workspace, [topic])
    at = (now or dt.datetime.now(dt.UTC)).astimezone(ZoneInfo(resolved.timezone))
    line = format_line(day, item, verdict, by, at, reason)
    path = workspace / feedback_path(topic)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        before = path.read_bytes()
    except FileNotFoundError:
        before = f"# Feedback · {topic}\n\n".encode()
    if before and not before.endswith(b"\n"):
        before += b"\n"
    write_atomically(path, before + line.encode("utf-8") + b"\n")
    return path, line
