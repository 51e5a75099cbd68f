"""Topic relevance of a mention, read from the text around it and from declared categories.

A mention's context is its table row or its entry. Each context gets one verdict:
- excluded: the source says the paper is not for this topic ("不进 inference", "归属：agents",
  "rag，不收", "…无关");
- adjacent: the source registers it as an adjacency (邻接 / adjacent) to the topic;
- relevant: the context uses the topic's vocabulary;
- none: nothing ties it to the topic.
A paper is relevant if any context is relevant (or a card/queue row lists the topic as a
category), else adjacent if any context is adjacent, else off-topic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from predigest.topics import Topic
from tasks.judge.terms import alternation, term_pattern, vocabulary


class Verdict(StrEnum):
    RELEVANT = "relevant"
    ADJACENT = "adjacent"
    EXCLUDED = "excluded"
    NONE = "none"


# Statements that a paper is left out of whatever the note is collecting.
_GENERIC_EXCLUSION = re.compile(r"不收|不进(?!一步)|无关|不相关|unrelated|not relevant|out of scope|skip(?:ped)?\b", re.I)
_ADJACENCY = re.compile(r"邻接|adjacen(?:t|cy)", re.I)
# "归属：agents", "归 agents", "转 rag 线", "主题 rag", "topic: rag": the owner a source declares.
# Name boundaries are ASCII-only: Python's \w also matches CJK, and Chinese prose runs names into
# the next word without a space ("非inference主轴", "归属：agents主线").
_OWNER = re.compile(r"(?:归属|归|转|主题|主分类|topic|belongs to)\s*[:：]?\s*([A-Za-z][A-Za-z0-9_-]*)", re.I)


MAX_CONTEXT_CHARS = 6000


@dataclass(frozen=True)
class ContextVerdict:
    verdict: Verdict
    hits: tuple[str, ...] = ()
    reason: str = ""


# The alternation and per-term patterns live in tasks.judge.terms; these names stay for their
# importers (tasks.ingest.topics builds its classifier from them).
_term_pattern = term_pattern
_vocabulary = alternation


def term_hits(text: str, terms: tuple[str, ...]) -> tuple[str, ...]:
    """The distinct vocabulary terms found in `text`, in vocabulary order.

    Exactly what one `re.I` alternation over the terms finds (`tasks.judge.terms.reference_hits`),
    but only terms that could occur in the text are scanned.
    """
    return vocabulary(terms).hits(text)


def _negated_topic(text: str, names: Sequence[str]) -> bool:
    for name in names:
        escaped = re.escape(name)
        # An ASCII name ends at the next ASCII letter or digit ("非inference主轴"); a Chinese name keeps
        # the \w boundary, since "无训练方法" (training-free method) is not a statement about the topic.
        before, after = (r"(?<![A-Za-z0-9_-])", r"(?![A-Za-z0-9_-])") if name.isascii() else (r"(?<![\w-])", r"(?![\w-])")
        # "not"/"no" must be words of their own: "Nano inference" is not a negation.
        negation = r"(?:不进|不收|不归|非|无|不属于|不是|(?<![A-Za-z0-9])(?:not|no)(?![A-Za-z0-9]))"
        if re.search(rf"{negation}\s*{escaped}{after}", text, re.I):
            return True
        if re.search(rf"{before}{escaped}\s*(?:不收|不进|无关|不相关)", text, re.I):
            return True
    return False


def declared_owners(text: str, known_topics: Iterable[str]) -> set[str]:
    """Topics a source declares as a paper's owner in `text` (only names of known topics count)."""
    known = {t.lower() for t in known_topics}
    return {m.group(1).lower() for m in _OWNER.finditer(text) if m.group(1).lower() in known}


def judge_context(text: str, topic: Topic, known_topics: Iterable[str]) -> ContextVerdict:
    """The verdict of one context (a table row or an entry) for `topic`."""
    # What an entry is about shows in its heading and opening; a pasted dump adds only cost.
    return _judge_context(text[:MAX_CONTEXT_CHARS], topic, tuple(known_topics))


# A pure function of its arguments (the verdict is immutable), and every window of a backfill
# judges the same entries of its lookback again, each date twice (recording, then rendering).
@lru_cache(maxsize=4096)
def _judge_context(text: str, topic: Topic, known_topics: tuple[str, ...]) -> ContextVerdict:
    names = topic.names
    if _negated_topic(text, names):
        return ContextVerdict(Verdict.EXCLUDED, reason=f"标注不属于 {topic.name}")
    owners = declared_owners(text, known_topics)
    own = {n.lower() for n in names}
    if owners and not owners & own:
        return ContextVerdict(Verdict.EXCLUDED, reason="归属 " + "/".join(sorted(owners)))
    if _GENERIC_EXCLUSION.search(text) and not owners & own:
        return ContextVerdict(Verdict.EXCLUDED, reason="来源标注不收")
    hits = term_hits(text, tuple(dict.fromkeys((*names, *topic.terms))))
    if _ADJACENCY.search(text) and (hits or owners & own):
        return ContextVerdict(Verdict.ADJACENT, hits, reason="来源登记为邻接")
    if hits:
        return ContextVerdict(Verdict.RELEVANT, hits)
    return ContextVerdict(Verdict.NONE)


@dataclass(frozen=True)
class CategoryEvidence:
    """Categories a card or queue row declares for a paper."""

    primary: str | None
    secondary: tuple[str, ...] = ()
    origin: str = ""


def judge_paper(
    contexts: Sequence[ContextVerdict], categories: Sequence[CategoryEvidence], topic: Topic
) -> tuple[Verdict, str]:
    """Combine every context and declared category of one paper into its verdict and a reason."""
    own = {n.lower() for n in topic.names}
    if any((c.primary or "").lower() in own for c in categories):
        return Verdict.RELEVANT, "主分类"
    if any(v.verdict is Verdict.RELEVANT for v in contexts):
        return Verdict.RELEVANT, "正文相关"
    if any(own & {s.lower() for s in c.secondary} for c in categories):
        return Verdict.RELEVANT, "副分类"
    if any(v.verdict is Verdict.ADJACENT for v in contexts):
        return Verdict.ADJACENT, "邻接"
    primaries = sorted({c.primary for c in categories if c.primary})
    excluded = [v.reason for v in contexts if v.verdict is Verdict.EXCLUDED]
    if primaries:
        return Verdict.NONE, "主分类 " + "/".join(primaries)
    if excluded:
        return Verdict.NONE, excluded[0]
    return Verdict.NONE, "未涉及本主题"
