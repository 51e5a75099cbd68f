"""Topic relevance of an entry that names no paper (engineering increments, hedges, source rows).

Papers are judged by ownership (`tasks.judge.evidence`); an entry without an arXiv id gets one
verdict from its own text, read with the judgment word lists (`tasks/config/judgment.toml`):
- excluded: the entry says it is not for this topic ("不进 inference"), names another owner
  ("归属：agents", "转 rag 线") or leaves itself out ("不收", "无关");
- adjacent: it registers itself as adjacent (邻接 / adjacent) and concerns the topic;
- relevant: it uses the topic's vocabulary;
- none: nothing ties it to the topic.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from tasks.common.working_set import per_window_item
from tasks.config.topics import Topic
from tasks.judge.statements import found_word, topic_statements
from tasks.judge.terms import vocabulary


class Verdict(StrEnum):
    RELEVANT = "relevant"
    ADJACENT = "adjacent"
    EXCLUDED = "excluded"
    NONE = "none"


MAX_CONTEXT_CHARS = 6000


@dataclass(frozen=True)
class ContextVerdict:
    verdict: Verdict
    hits: tuple[str, ...] = ()


def term_hits(text: str, terms: tuple[str, ...]) -> tuple[str, ...]:
    """The distinct vocabulary terms found in `text`, in vocabulary order (`tasks.judge.terms`)."""
    return vocabulary(terms).hits(text)


def judge_context(text: str, topic: Topic, known_topics: Iterable[str]) -> ContextVerdict:
    """The verdict of one context (an entry's heading and text) for `topic`."""
    # What an entry is about shows in its heading and opening; a pasted dump adds only cost.
    return _judge_context(text[:MAX_CONTEXT_CHARS], topic, tuple(known_topics))


# A pure function of its arguments (the verdict is immutable); a backfill judges the same entries
# of its lookback again for each date.
@per_window_item(4096)  # asked of every entry a window and its lookback read, for every window
def _judge_context(text: str, topic: Topic, known_topics: tuple[str, ...]) -> ContextVerdict:
    j = topic.judgment
    own = {n.lower() for n in topic.names}
    extra = (*((n, topic.name) for n in topic.names), *((k, k) for k in known_topics if k.lower() not in own))
    if any(name == topic.name for name, _ in topic_statements(text, j.words("statements", "exclusion"), j, extra)):
        return ContextVerdict(Verdict.EXCLUDED)
    owners = {name for name, _ in topic_statements(text, j.words("statements", "owner"), j, extra)}
    if owners and topic.name not in owners:
        return ContextVerdict(Verdict.EXCLUDED)
    generic = found_word(j.words("statements", "generic_exclusion"), text,
                         j.words("statements", "generic_exclusion_except"))
    if generic and topic.name not in owners:
        return ContextVerdict(Verdict.EXCLUDED)
    hits = term_hits(text, tuple(dict.fromkeys((*topic.names, *topic.terms))))
    if found_word(j.words("statements", "adjacency"), text) and (hits or owners):
        return ContextVerdict(Verdict.ADJACENT, hits)
    if hits:
        return ContextVerdict(Verdict.RELEVANT, hits)
    return ContextVerdict(Verdict.NONE)
