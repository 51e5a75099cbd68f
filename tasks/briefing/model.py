"""The judged content of one briefing, before rendering; plain data, deterministic order."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EntryRef:
    path: str
    label: str | None
    heading: str


@dataclass
class Paper:
    """Every mention of one arXiv id in the window, judged once."""

    arxiv_id: str
    title: str
    status: str  # net_new, adjacent, already_anchored, reference_list_only, off_topic
    reason: str
    sources: list[str]
    entries: list[EntryRef]
    anchored_on: dt.date | None = None
    cited_on: dt.date | None = None
    sections: tuple[str, ...] = ()
    key_points: list[str] = field(default_factory=list)
    hedges: list[dict[str, Any]] = field(default_factory=list)
    primary: str | None = None
    votes: int | None = None


@dataclass(frozen=True)
class Verification:
    subject: str
    claim: str
    marker: str
    sources: tuple[str, ...]
    raised_on: dt.date
    status: str = "pending"


@dataclass(frozen=True)
class SourceCheck:
    path: str
    kind: str
    observed_at: dt.datetime
    time_basis: str
    credibility: str
    summary: str
    conclusion: str
    error: str | None


@dataclass
class BriefingContent:
    topic: str
    date: dt.date
    window_start: dt.datetime
    cutoff: dt.datetime
    timezone: str
    knowledge_path: str | None
    knowledge_version: str | None
    knowledge_updated: dt.datetime | None
    knowledge_citations: int | None
    density: str
    sources: list[SourceCheck]
    papers: list[Paper]
    verifications: list[Verification]
    malformed: list[tuple[str, str]]  # (raw, path)

    def with_status(self, *statuses: str) -> list[Paper]:
        return [p for p in self.papers if p.status in statuses]
