"""A reader's verdict as evidence: the strongest kind, deciding before any other.

`ours` counts `[weights] reader_verdict` for the topic, `not-ours` as much against it. Of one
item's verdicts (`tasks.window.verdicts`: recorded by the cutoff), the latest recorded decides;
the earlier ones were overruled by it and are not evidence. `not-new` makes an engineering
increment confirmatory (`reader_not_new`); the pending items' verdicts are applied where the
briefing lists them (`tasks.briefing.reader_items`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tasks.config.judgment import Judgment
from tasks.judge.relevance import Verdict
from tasks.model.judged import Evidence, Paper, Reason
from tasks.model.window_views import ReaderVerdict

KIND = "reader_verdict"
MEMBERSHIP = ("ours", "not-ours")


def latest_verdict(verdicts: Mapping[str, Sequence[ReaderVerdict]], keys: Iterable[str]) -> ReaderVerdict | None:
    """The latest recorded verdict on any of `keys` (an item's names), or None."""
    said = [v for k in dict.fromkeys(keys) for v in verdicts.get(k, ())]
    return max(said, key=lambda v: (v.at, v.line)) if said else None


def said_text(v: ReaderVerdict) -> str:
    """Who, when, what and why, in no language's words: reasons quote it in zh and en alike."""
    when = v.at.isoformat(sep=" ", timespec="minutes")
    return " · ".join((v.by, when, v.verdict, *((v.reason,) if v.reason else ())))


def reader_evidence(verdicts: Sequence[ReaderVerdict], topic: str, j: Judgment) -> list[Evidence]:
    """The latest of one paper's membership `verdicts` for `topic` as evidence (none when no reader gave one)."""
    v = latest_verdict({"": [v for v in verdicts if v.verdict in MEMBERSHIP]}, [""])
    if v is None:
        return []
    weight = j.weight(KIND) * (1 if v.verdict == "ours" else -1)
    return [Evidence(v.path, KIND, topic, weight, said_text(v))]


def reader_not_new(paper: Paper, verdicts: Mapping[str, Sequence[ReaderVerdict]], topic: str) -> ReaderVerdict | None:
    """An engineering increment a reader called not new becomes confirmatory, the verdict its first
    evidence and reason; returns the verdict (None: no reader said so, `paper` unchanged)."""
    v = latest_verdict(verdicts, paper.item_keys)
    if v is None or v.verdict != "not-new":
        return None
    paper.status = "confirmatory"
    paper.reason = (Reason("reader_not_new", (("topic", topic), ("said", said_text(v)))), *paper.reason)
    paper.evidence = (Evidence(v.path, KIND, topic, 0.0, said_text(v)), *paper.evidence)
    return v


def reader_decision(evidence: Sequence[Evidence], topic: str) -> tuple[Verdict, Reason] | None:
    """What a reader decided for `topic`, and the reason naming who and when; None without a verdict."""
    said = next((e for e in evidence if e.kind == KIND and e.topic == topic), None)
    if said is None:
        return None
    if said.weight >= 0:
        return Verdict.RELEVANT, Reason("reader_ours", (("topic", topic), ("said", said.detail)))
    return Verdict.NONE, Reason("reader_not_ours", (("topic", topic), ("said", said.detail)))
