"""Reader feedback files: `organized/feedback/<topic>.md`, one list item per verdict.

A verdict line (README, "Give feedback"; `predigest feedback` writes them):

    - date: 2026-11-01 · item: 2611.00010 · verdict: not-ours · by: jay · at: 2026-11-02T09:30:00+08:00 · reason: …

`date` is the briefing it answers, `item` an arXiv id, `verdict` `ours` or `not-ours`, `by` who
gave it, `at` when it was recorded (ISO, with its UTC offset), `reason` optional and last (it may
hold anything, `·` too). Fields are read by key, in any order before `reason`. Only list items are
verdicts (read as CommonMark, `tasks.inbox.document`): a heading or a paragraph is left to the reader.
A list item that is not a verdict is an error naming its line; it never stops the run, and the
other lines count.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from tasks.common.arxiv_ids import canonicalize
from tasks.inbox.document import read_document

FEEDBACK_DIR = ("organized", "feedback")
VERDICTS = ("ours", "not-ours")
FIELDS = ("date", "item", "verdict", "by", "at", "reason")
REQUIRED = ("date", "item", "verdict", "by", "at")
_KEY = re.compile(r"(?:^|\s·\s)\s*(" + "|".join(FIELDS) + r")\s*[:：]\s*")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class FeedbackLine:
    """One verdict as written: the briefing date it answers, the paper, ours or not, who, when, why."""

    line: int  # 1-based
    date: dt.date
    arxiv_id: str
    verdict: str
    by: str
    at: dt.datetime  # aware
    reason: str = ""

    def as_extra(self) -> dict[str, str]:
        """What the item's `extra` stores (`tasks.briefing.collect` reads it back)."""
        return {"date": self.date.isoformat(), "item": self.arxiv_id, "verdict": self.verdict, "by": self.by,
                "at": self.at.isoformat(), "reason": self.reason}


@dataclass(frozen=True)
class ParsedFeedback:
    lines: tuple[FeedbackLine, ...]
    errors: tuple[str, ...]  # "line N: why", in file order
    latest: dt.datetime | None  # the latest `at` any line gives (well-formed or not): the file's time


def feedback_path(topic: str) -> str:
    """The workspace-relative path of `topic`'s feedback file."""
    return "/".join((*FEEDBACK_DIR, f"{topic}.md"))


def format_line(day: dt.date, arxiv_id: str, verdict: str, by: str, at: dt.datetime, reason: str = "") -> str:
    """One verdict as a list item line (no newline); what `parse_feedback` reads back."""
    parts = [f"date: {day.isoformat()}", f"item: {arxiv_id}", f"verdict: {verdict}", f"by: {_one_line(by)}",
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


def parse_line(text: str, line: int) -> tuple[FeedbackLine | None, str | None, dt.datetime | None]:
    """(the verdict, None, its time) or (None, why it is not one, its time if it gives one)."""
    fields = _fields(_one_line(_MARKER.sub("", text, count=1)))
    at = None
    try:
        at = dt.datetime.fromisoformat(fields["at"]) if fields.get("at") else None
        if at is not None and at.utcoffset() is None:
            return None, f"line {line}: time {fields['at']!r} has no UTC offset", None
    except ValueError:
        return None, f"line {line}: time {fields['at']!r} is not an ISO time", None
    missing = [k for k in REQUIRED if not fields.get(k)]
    if missing:
        return None, f"line {line}: not a verdict (missing {', '.join(missing)})", at
    try:
        day = dt.date.fromisoformat(fields["date"])
    except ValueError:
        return None, f"line {line}: date {fields['date']!r} is not YYYY-MM-DD", at
    found = canonicalize(fields["item"].removeprefix("arXiv:").removeprefix("arxiv:"))
    if found is None:
        return None, f"line {line}: item {fields['item']!r} is not an arXiv id", at
    verdict = fields["verdict"].lower()
    if verdict not in VERDICTS:
        return None, f"line {line}: verdict {fields['verdict']!r} is not one of {', '.join(VERDICTS)}", at
    assert at is not None
    return FeedbackLine(line, day, found[0], verdict, fields["by"], at, fields.get("reason", "")), None, at


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
