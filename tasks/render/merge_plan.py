"""What a briefing says about its noon merge: per increment where the proposal puts it and why,
and for the briefing the proposal's keys (or that there is nothing to merge).

Both follow from the briefing's content alone (its increments and their suggested sections), so a
re-run of the briefing is byte-identical whatever the document became since; the proposal itself
is made against the document as it is now (tasks.merge.propose, published next to the briefing).
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from tasks.model.judged import BriefingContent, Paper
from tasks.model.keys import proposal_keys
from tasks.model.noon_merge import MERGED_STATUSES, MergeIncrement


def statement(p: Paper) -> str:
    """The entry's short statement: its main claim as its own text states it, else its first key point."""
    return " ".join((p.thesis or (p.key_points[0] if p.key_points else "")).split())


def merge_increment(p: Paper) -> MergeIncrement:
    return MergeIncrement(p.arxiv_id, p.title, p.status, statement(p), p.suggested_section, p.section_basis,
                          tuple(p.neighbours))


def merge_placement(p: Paper) -> dict[str, Any] | None:
    """Where the proposal puts an increment (body section or References) and why; None if it merges nothing."""
    if p.status not in MERGED_STATUSES:
        return None
    inc = merge_increment(p)
    if inc.into_references:
        return {"into": "references", "section": "References", "basis": "adjacent", "neighbours": [],
                "statement": inc.statement}
    return {"into": "body", "section": inc.section, "basis": inc.basis or None, "neighbours": list(inc.neighbours),
            "statement": inc.statement}


def knowledge_merge(c: BriefingContent) -> dict[str, Any]:
    """The proposal's keys and merge time; keys are null when the briefing has nothing to merge (or
    no merge time: content assembled without a topic's schedule), and when its run could not make
    the proposal: then `failed` says why (the key is there only then), so nothing links an object
    this run did not write."""
    merged = [p for p in c.increments if p.status in MERGED_STATUSES]
    failed = c.merge_failed if merged and c.merge_at else None
    diff, document = proposal_keys(c.topic, c.date) if merged and c.merge_at and not failed else (None, None)
    refs = sum(1 for p in merged if p.status == "adjacent")
    return {
        "merge_at": c.merge_at.astimezone(ZoneInfo(c.timezone)).isoformat() if c.merge_at else None,
        "diff": diff, "document": document, "increments": len(merged),
        "into_body": len(merged) - refs, "into_references": refs, **({"failed": failed} if failed else {}),
    }
