"""Record a reader's verdict: one line appended to `organized/feedback/<topic>.md`, atomically.

The file is the record (`tasks.inbox.feedback_file` reads it at ingest, like every workspace file), so
a verdict is versioned, triggers the inbox watch and is visible to anyone reading the workspace.
Refused, with one line saying why (`FeedbackRefused`): a malformed arXiv id, a date with no
published briefing of the topic. An unknown topic is refused by the caller, as `run` refuses it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import get_args
from zoneinfo import ZoneInfo

from tasks.common.arxiv_ids import canonicalize
from tasks.common.files import write_atomically
from tasks.config.settings import Lang, Settings
from tasks.inbox.feedback_file import feedback_path, format_line
from tasks.model.keys import briefing_keys
from tasks.publish.workspace_store import workspace_store
from tasks.stages.topics import topics_for


class FeedbackRefused(ValueError):
    """A verdict that cannot be recorded; the message says why, in one line."""


def canonical_id(raw: str) -> str:
    """`raw` ("2611.00010", "arXiv:2611.00010v2") as a canonical id; FeedbackRefused when it is none."""
    token = raw.strip()
    found = canonicalize(token[6:] if token.lower().startswith("arxiv:") else token)
    if found is None:
        raise FeedbackRefused(f"{raw!r} is not an arXiv id (e.g. 2611.00010 or hep-th/9901001)")
    return found[0]


def has_briefing(settings: Settings, workspace: Path, topic: str, day: dt.date) -> bool:
    """Whether a briefing of (topic, day) is published, in any language (as `predigest merge` finds it)."""
    store = workspace_store(settings, workspace)
    return any(store.get(briefing_keys(topic, day, lang)[1]) is not None for lang in get_args(Lang))


def record_feedback(settings: Settings, workspace: Path, topic: str, day: dt.date, raw_id: str, verdict: str,
                    by: str, reason: str = "", now: dt.datetime | None = None) -> tuple[Path, str]:
    """Append the verdict to the topic's feedback file; returns the file and the line written."""
    arxiv_id = canonical_id(raw_id)
    if not has_briefing(settings, workspace, topic, day):
        raise FeedbackRefused(f"no published briefing of {topic} {day.isoformat()}: feedback answers a briefing; "
                              f"run `predigest run --date {day.isoformat()} --topic {topic}` first")
    (resolved,) = topics_for(settings, workspace, [topic])
    at = (now or dt.datetime.now(dt.UTC)).astimezone(ZoneInfo(resolved.timezone))
    line = format_line(day, arxiv_id, verdict, by, at, reason)
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
