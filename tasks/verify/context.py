"""What every verification check needs to know about a window: topical papers, names, keys."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from predigest.arxiv_ids import find_ids
from predigest.topics import Topic
from tasks.briefing.collect import EntryView, WindowData
from tasks.briefing.model import Paper
from tasks.judge.relevance import Verdict, judge_context
from tasks.verify.names import names_match, normalise, short_name
from tasks.verify.status import Observation, Tracked

TOPICAL = ("net_new", "adjacent", "already_anchored", "reference_list_only")


def text_ids(text: str) -> list[str]:
    """Canonical arXiv ids written in `text`, in order."""
    return list(dict.fromkeys(m.canonical for m in find_ids(text) if m.canonical and not m.malformed))


class Keyer:
    """Stable keys: arXiv subjects by id, named subjects by fuzzy match to names already tracked."""

    def __init__(self, tracked: Sequence[Tracked]) -> None:
        self.named: list[tuple[str, str, str]] = sorted(
            (t.kind, t.subject, t.key) for t in tracked if not text_ids(t.subject)
        )

    def key(self, kind: str, subject: str, suffix: str = "") -> tuple[str, str]:
        """(key, subject) for a new observation; a named subject reuses a matching tracked one."""
        if text_ids(subject) == [subject]:
            return f"{kind}:{subject}{suffix}", subject
        for k, s, key in self.named:
            if k == kind and names_match(s, subject) and key.endswith(suffix):
                return key, s
        key = f"{kind}:{normalise(subject)}{suffix}"
        self.named.append((kind, subject, key))
        return key, subject


@dataclass
class Context:
    """A judged window, as the checks read it."""

    data: WindowData
    topic: Topic
    known: list[str]
    papers: dict[str, Paper]
    keyer: Keyer
    day: dt.date
    out: list[Observation] = field(default_factory=list)
    raised_by_entry: set[tuple[str, str, int]] = field(default_factory=set)  # (key, path, ordinal)

    @classmethod
    def build(cls, data: WindowData, papers: Sequence[Paper], topic: Topic, known: list[str],
              tracked: Sequence[Tracked]) -> Context:
        topical = {p.arxiv_id: p for p in papers if p.arxiv_id and p.status in TOPICAL}
        return cls(data, topic, known, topical, Keyer(tracked), data.window.date)

    def topical(self, ids: Sequence[str]) -> list[str]:
        return [i for i in ids if i in self.papers]

    def named_ids(self, text: str) -> list[str]:
        """Topical ids whose coined name appears in `text` ("FooQuant" -> the id of "FooQuant: …")."""
        out = []
        for arxiv_id, paper in sorted(self.papers.items()):
            name = short_name(paper.title)
            if name and re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", text):
                out.append(arxiv_id)
        return out

    def relevant(self, entry: EntryView) -> bool:
        verdict = judge_context(f"{entry.heading}\n{entry.text}", self.topic, self.known).verdict
        return verdict in (Verdict.RELEVANT, Verdict.ADJACENT)

    def title_of(self, subject: str) -> str:
        paper = self.papers.get(subject)
        return paper.title if paper else subject

    def add(self, obs: Observation, entry: EntryView | None = None) -> None:
        self.out.append(obs)
        if entry is not None and obs.action == "raised":
            self.raised_by_entry.add((obs.key, entry.path, entry.ordinal))
