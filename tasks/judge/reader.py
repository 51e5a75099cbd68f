"""A reader's verdict as evidence: the strongest kind, deciding the briefed topic's membership first.

`ours` counts `[weights] reader_verdict` for the topic, `not-ours` as much against it. Of one
paper's verdicts (`tasks.briefing.verdicts`: recorded by the cutoff), the latest recorded decides;
the earlier ones were overruled by it and are not evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from tasks.config.judgment import Judgment
from tasks.judge.relevance import Verdict
from tasks.model.briefing import Evidence, Reason
from tasks.model.window import ReaderVerdict

KIND = "reader_verdict"


def reader_evidence(verdicts: Sequence[ReaderVerdict], topic: str, j: Judgment) -> list[Evidence]:
    """The latest of one paper's `verdicts` for `topic` as evidence (none when no reader gave one)."""
    if not verdicts:
        return []
    v = max(verdicts, key=lambda v: v.at)
    weight = j.weight(KIND) * (1 if v.verdict == "ours" else -1)
    when = v.at.isoformat(sep=" ", timespec="minutes")
    # Who and when first, in no language's words: the reason quotes it in zh and en alike.
    detail = " · ".join((v.by, when, v.verdict, *((v.reason,) if v.reason else ())))
    return [Evidence(v.path, KIND, topic, weight, detail)]


def reader_decision(evidence: Sequence[Evidence], topic: str) -> tuple[Verdict, Reason] | None:
    """What a reader decided for `topic`, and the reason naming who and when; None without a verdict."""
    said = next((e for e in evidence if e.kind == KIND and e.topic == topic), None)
    if said is None:
        return None
    if said.weight >= 0:
        return Verdict.RELEVANT, Reason("reader_ours", (("topic", topic), ("said", said.detail)))
    return Verdict.NONE, Reason("reader_not_ours", (("topic", topic), ("said", said.detail)))
