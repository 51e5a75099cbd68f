"""Which topic an entry is mostly about, and which others it touches, from every topic's vocabulary."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from predigest.topics import Topic
from tasks.judge.relevance import MAX_CONTEXT_CHARS, term_hits

# A declared category outweighs a few vocabulary hits: cards and queue rows are curated.
PRIMARY_CATEGORY_WEIGHT = 3
SECONDARY_CATEGORY_WEIGHT = 2


def score_topics(
    text: str, topics: Sequence[Topic], primary: str | None = None, secondary: Iterable[str] = ()
) -> dict[str, int]:
    """Score of each topic: distinct vocabulary hits plus weights for declared categories."""
    text = text[:MAX_CONTEXT_CHARS]
    secondary_set = {s.lower() for s in secondary}
    scores: dict[str, int] = {}
    for topic in topics:
        names = {n.lower() for n in topic.names}
        score = len(term_hits(text, tuple(dict.fromkeys((*topic.names, *topic.terms)))))
        if primary and primary.lower() in names:
            score += PRIMARY_CATEGORY_WEIGHT
        if names & secondary_set:
            score += SECONDARY_CATEGORY_WEIGHT
        if score:
            scores[topic.name] = score
    return scores


def classify_topics(
    text: str, topics: Sequence[Topic], primary: str | None = None, secondary: Iterable[str] = ()
) -> tuple[str | None, list[str]]:
    """(primary topic, adjacent topics): the best score wins, ties by name; the rest are adjacent."""
    scores = score_topics(text, topics, primary, secondary)
    if not scores:
        return None, []
    ranked = sorted(scores, key=lambda name: (-scores[name], name))
    return ranked[0], sorted(ranked[1:])
