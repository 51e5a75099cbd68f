"""Promised dates in free text ("计划 2026-09 开源", "planned for Q3 2026 release") and when they lapse."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

from tasks.verify.markers import Markers

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m} | {
    m.lower(): i for i, m in enumerate(calendar.month_abbr) if m
}
_DATE = re.compile(
    r"(?P<y>20\d\d)\s*(?:[-/.]|年)\s*(?P<m>\d{1,2})(?:\s*(?:[-/.]|月)\s*(?P<d>\d{1,2})\s*日?)?\s*月?"
    r"|(?P<qy>20\d\d)\s*[- ]?Q(?P<q>[1-4])|Q(?P<q2>[1-4])\s*(?P<qy2>20\d\d)"
    r"|(?:(?P<dm>\d{1,2})\s+)?(?P<mon>[A-Z][a-z]{2,8})\.?\s+(?:(?P<md>\d{1,2})(?:st|nd|rd|th)?,?\s+)?(?P<my>20\d\d)",
)
_SENTENCES = re.compile(r"[^。！？!?；;\n]+")


@dataclass(frozen=True)
class Promise:
    """A dated commitment found in a sentence; `due` is the last day it can still be kept."""

    due: dt.date
    written: str
    sentence: str


def _due(m: re.Match[str]) -> dt.date | None:
    if m.group("y"):
        year, month = int(m.group("y")), int(m.group("m"))
        if not 1 <= month <= 12:
            return None
        if m.group("d"):
            try:
                return dt.date(year, month, int(m.group("d")))
            except ValueError:
                return None
        return dt.date(year, month, calendar.monthrange(year, month)[1])
    quarter, year_text = (m.group("q"), m.group("qy")) if m.group("q") else (m.group("q2"), m.group("qy2"))
    if quarter:
        year, last = int(year_text), int(quarter) * 3
        return dt.date(year, last, calendar.monthrange(year, last)[1])
    named = _MONTHS.get((m.group("mon") or "").lower())
    if named:
        year, day = int(m.group("my")), m.group("md") or m.group("dm")
        try:  # "Oct 20, 2026" and "20 October 2026" are due that day, "October 2026" at its end
            return dt.date(year, named, int(day) if day else calendar.monthrange(year, named)[1])
        except ValueError:
            return None
    return None


def find_promises(m: Markers, text: str) -> list[Promise]:
    """Sentences that commit to doing something by a date (future marker + date + action)."""
    out: list[Promise] = []
    if not _DATE.search(text) or not m.future.search(text):
        return out
    for sentence in _SENTENCES.findall(text):
        future = m.future.search(sentence)
        if not future or not m.action.search(sentence):
            continue
        for date in _DATE.finditer(sentence):
            due = _due(date)
            if due is not None:
                plain = " ".join(sentence.replace("**", "").split()).lstrip("-*+> ")
                out.append(Promise(due, date.group(0).strip(), plain[:300]))
                break
    return out
