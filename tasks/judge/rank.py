"""The order of a briefing's increments (documented rule, deterministic), and its 最高价值条目.

1. NET-new arXiv papers first, then engineering increments, then adjacent items;
2. more independent sources first (distinct authors; paper cards and the queue count once each);
3. owned by the topic (its evidence leads to it) before owned by another topic and only adjacent
   or secondary here: the reader of this topic's briefing gains most from what is its own;
4. higher self-rated credibility (⭐ of the entries about it);
5. more HF upvotes;
6. a paper card whose primary category is the topic before one that is not;
7. seen earlier first, then by id or title.

The highest-value item is the first in this order, with a one-line reason built from its status,
its sources and independent origins, and its thesis and headline number as its own text gives them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from tasks.model.judged import Highlight, Paper

INCREMENT_ORDER = {"net_new": 0, "engineering": 1, "adjacent": 2}
_ENDS = "。.；;，, "


def rank_key(paper: Paper, topic: str) -> tuple[int, int, int, int, int, int, dt.date, str]:
    """Sort key of one increment for `topic` (smaller comes first)."""
    return (
        INCREMENT_ORDER.get(paper.status, 9),
        -paper.independent,
        1 if paper.owner is not None and paper.owner.lower() != topic.lower() else 0,
        -paper.credibility,
        -(paper.votes or 0),
        0 if (paper.primary or "").lower() == topic.lower() else 1,
        paper.first_seen or dt.date.max,
        paper.arxiv_id or paper.title,
    )


def rank_increments(papers: Sequence[Paper], topic: str) -> list[Paper]:
    """The increments (NET-new, engineering, adjacent) in briefing order."""
    return sorted((p for p in papers if p.status in INCREMENT_ORDER), key=lambda p: rank_key(p, topic))


def highlight(ranked: Sequence[Paper]) -> Highlight | None:
    """The 最高价值条目: the first ranked increment and what its reason line is made of."""
    if not ranked:
        return None
    top = ranked[0]
    point = top.thesis or next(iter(top.key_points), "")
    return Highlight(top.title, top.status, len(top.sources), top.independent, point.rstrip(_ENDS),
                     top.headline.rstrip(_ENDS), top.arxiv_id)
