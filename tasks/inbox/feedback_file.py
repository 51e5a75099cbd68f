"""Reader feedback files: `organized/feedback/<topic>.md`, one list item per verdict.

A verdict line (`predigest feedback` writes them; docs/feedback.md has the format):

    - date: 2026-11-01 · item: 2611.00010 · verdict: not-ours · by: jay · at: 2026-11-02T09:30:00+08:00 · reason: …

`item` is an arXiv id (`ours`, `not-ours`), a pending item's key `p-…` (`settled`, with a reason
or link; `not-a-contradiction`) or an engineering increment's key `e-…` (`not-new`). Fields are
read by key, `reason` last. A line without a readable `at` is undated: named, never applied. Only
list items are verdicts (the file's one parse, `tasks.inbox.document`); one that is not a verdict
is an error naming its line, and never stops the run.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from tasks.common.arxiv_ids import canonicalize
from tasks.common.item_keys import ENGINEERING, PENDING, key_prefix
from tasks.inbox.document import read_document
from tasks.inbox.part_text import ITEM_MARKER

FEEDBACK_DIR = ("organized", "feedback")
# Each verdict and the items it can be about: an arXiv id ("") or an item key's prefix.
ITEMS_OF = {"ours": "", "not-ours": "", "settled": PENDING, "not-a-contradiction": PENDING, "not-new": ENGINEERING}
VERDICTS = tuple(ITEMS_OF)
NEEDS_REASON = ("settled",)
_ITEM_NAMES = {"": "a paper (arXiv id)", PENDING: "a pending item (p-…)", ENGINEERING: "an engineering increment (e-…)"}
FIELDS = ("date", "item", "verdict", "by", "at", "reason")
REQUIRED = ("date", "item", "verdict", "by", "at")
_KEY = re.compile(r"(?:^|\s·\s)\s*(" + "|".join(FIELDS) + r")\s*[:：]\s*")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class FeedbackLine:
    """One verdict as written: the briefing date it answers, the item, the verdict, who, when, why."""

    line: int  # 1-based
    date: dt.date
    item: str  # a canonical arXiv id or an item key
    verdict: str
    by: str
    at: dt.datetime  # aware
    reason: str = ""

    def as_extra(self) -> dict[str, str]:
        """What the item's `extra` stores (`tasks.window.collect` reads it back)."""
        return {"date": self.date.isoformat(), "item": self.item, "verdict": self.verdict, "by": self.by,
                "at": self.at.isoformat(), "reason": self.reason}


@dataclass(frozen=True)
class ParsedFeedback:
    lines: tuple[FeedbackLine, ...]
    errors: tuple[str, ...]  # "line N: why", in file order
    latest: dt.datetime | None  # the latest `at` any line gives (well-formed or not): the file's time


def feedback_path(topic: str) -> str:
    """The workspace-relative path of `topic`'s feedback file."""
    return "/".join((*FEEDBACK_DIR, f"{topic}.md"))


def format_line(day: dt.date, item: str, verdict: str, by: str, at: dt.datetime, reason: str = "") -> str:
    """One verdict as a list item line (no newline); what `parse_feedback` reads back."""
    parts = [f"date: {day.isoformat()}", f"item: {item}", f"verdict: {verdict}", f"by: {_one_line(by)}",
             f"at: {at.isoformat(timespec='seconds')}"]
    if reason.strip():
        parts.append(f"reason: {_one_line(reason)}")
    return "- " + " · ".join(parts)


def _one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _fields(text: str) -> dict[str, str]:
    """Key -> value of one item's text; `reason` takes the rest of the line."""
    found = list(_KEY.finditer(text))
    out: dict[str, str] = {}
    for k, m in enumerate(found):
        key = m.group(1)
        if key in out:
            continue
        end = len(text) if key == "reason" or k + 1 == len(found) else found[k + 1].start()
        out[key] = text[m.end():end].strip()
        if key == "reason":
            break
    return out


def canonical_item(raw: str) -> str | None:
    """`raw` as a canonical arXiv id or a lower-case item key; None when it is neither."""
    token = raw.strip()
    if key_prefix(token):
        return token.lower()
    found = canonicalize(token[6:] if token.lower().startswith("arxiv:") else token)
    return found[0] if found else None


def verdict_problem(item: str, verdict: str, reason: str) -> str | None:
    """Why `verdict` cannot be given about `item` (canonical), or None."""
    if verdict not in ITEMS_OF:
        return f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}"
    wanted = ITEMS_OF[verdict]
    if (key_prefix(item) or "") != wanted:
        return f"verdict {verdict} is about {_ITEM_NAMES[wanted]}, not {item!r}"
    if verdict in NEEDS_REASON and not reason.strip():
        return f"verdict {verdict} needs a reason or a link"
    return None


def parse_line(text: str, line: int) -> tuple[FeedbackLine | None, str | None, dt.datetime | None]:
    """(the verdict, None, its time) or (None, why it is not one, its time if it gives one)."""
    fields = _fields(_one_line(ITEM_MARKER.sub("", text, count=1)))
    at = None
    try:
        at = dt.datetime.fromisoformat(fields["at"]) if fields.get("at") else None
        undated = None if at is None or at.utcoffset() is not None else f"time {fields['at']!r} has no UTC offset"
    except ValueError:
        undated = f"time {fields['at']!r} is not an ISO time"
    if undated is not None:
        at = None
    missing = [k for k in REQUIRED if not fields.get(k)]
    if missing == ["at"]:
        undated = "no time"
    elif missing:
        return None, f"line {line}: not a verdict (missing {', '.join(missing)})", at
    try:
        day = dt.date.fromisoformat(fields["date"])
    except ValueError:
        return None, f"line {line}: date {fields['date']!r} is not YYYY-MM-DD", at
    item = canonical_item(fields["item"])
    if item is None:
        return None, f"line {line}: item {fields['item']!r} is not an arXiv id or an item key (p-…, e-…)", at
    verdict, reason = fields["verdict"].lower(), fields.get("reason", "")
    problem = verdict_problem(item, verdict, reason)
    if problem is not None:
        return None, f"line {line}: {problem}", at
    if at is None:  # a verdict counts from when it was recorded: without that time it is named, not applied
        return None, f"line {line}: undated verdict ({undated}), not applied", None
    return FeedbackLine(line, day, item, verdict, fields["by"], at, reason), None, at


def parse_feedback(text: str) -> ParsedFeedback:
    """Every top-level list item of a feedback file, read as a verdict (see the module docstring)."""
    rows = text.split("\n")
    lines: list[FeedbackLine] = []
    errors: list[str] = []
    times: list[dt.datetime] = []
    for item in read_document(text).items:
        if item.parent is not None:
            continue  # a nested item belongs to the verdict above it
        body = "\n".join(rows[item.start:max(item.own_end, item.start + 1)]).rstrip()
        parsed, error, at = parse_line(body, item.start + 1)
        if at is not None:
            times.append(at)
        if parsed is not None:
            lines.append(parsed)
        elif error is not None:
            errors.append(error)
    return ParsedFeedback(tuple(lines), tuple(errors), max(times) if times else None)
