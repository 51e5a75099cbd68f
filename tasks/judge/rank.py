"""The order of a briefing's increments (documented rule, deterministic).

1. NET-new arXiv papers first, then engineering increments, then adjacent items;
2. more independent sources first (distinct authors; paper cards and the queue count once each);
3. higher self-rated credibility (⭐ of the entries about it);
4. more HF upvotes;
5. a paper card whose primary category is the topic before one that is not;
6. seen earlier first, then by id or title.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from tasks.model.briefing import Paper

INCREMENT_ORDER = {"net_new": 0, "engineering": 1, "adjacent": 2}


def rank_key(paper: Paper, topic: str) -> tuple[int, int, int, int, int, dt.date, str]:
    """Sort key of one increment for `topic` (smaller comes first)."""
    return (
        INCREMENT_ORDER.get(paper.status, 9),
        -paper.independent,
        -paper.credibility,
        -(paper.votes or 0),
        0 if (paper.primary or "").lower() == topic.lower() else 1,
        paper.first_seen or dt.date.max,
        paper.arxiv_id or paper.title,
    )


def rank_increments(papers: Sequence[Paper], topic: str) -> list[Paper]:
    """The increments (NET-new, engineering, adjacent) in briefing order."""
    return sorted((p for p in papers if p.status in INCREMENT_ORDER), key=lambda p: rank_key(p, topic))
