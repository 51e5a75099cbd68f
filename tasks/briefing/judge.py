"""Judge a collected window for one topic: one paper per arXiv id, its status, and each source's conclusion."""

from __future__ import annotations

import re
from collections import defaultdict

from predigest.topics import Topic
from tasks.briefing.collect import MentionView, WindowData
from tasks.briefing.model import EntryRef, Paper, Verification
from tasks.judge.dedup import anchor_status_as_of
from tasks.judge.relevance import CategoryEvidence, ContextVerdict, Verdict, judge_context, judge_paper

_BOLD = re.compile(r"\*\*([^*]{2,80})\*\*")
STATUS_ORDER = {"net_new": 0, "adjacent": 1, "already_anchored": 2, "reference_list_only": 3, "off_topic": 4}


def _title_for(arxiv_id: str, mentions: list[MentionView], data: WindowData) -> str:
    """The paper's name: its card, an entry about it alone, its queue row, the knowledge entry."""
    for card in data.cards.get(arxiv_id, []):
        if card.title:
            return card.title
    ids_per_item: dict[tuple[int, int], set[str]] = defaultdict(set)
    for m in data.mentions:
        if m.arxiv_id:
            ids_per_item[(m.source_id, m.item_ordinal)].add(m.arxiv_id)
    for m in mentions:
        about_it_alone = ids_per_item[(m.source_id, m.item_ordinal)] == {arxiv_id}
        if m.title and m.kind != "work_queue" and (m.raw in m.heading or about_it_alone) and m.label != "preamble":
            return m.title
    for m in mentions:
        if m.kind == "work_queue" and m.title:
            return m.title
    if data.knowledge:
        for anchor in data.knowledge.anchors:
            if anchor.arxiv_id == arxiv_id:
                bold = _BOLD.search(anchor.entry)
                if bold:
                    return bold.group(1).strip()
    return arxiv_id


def _categories(arxiv_id: str, data: WindowData) -> list[CategoryEvidence]:
    evidence = [CategoryEvidence(c.primary, c.secondary, c.path) for c in data.cards.get(arxiv_id, [])]
    evidence += [
        CategoryEvidence(p, tuple(x.strip() for x in (s or "").split(",") if x.strip()), "queue") for p, s in data.queue_categories.get(arxiv_id, [])
    ]
    return evidence


def _context_verdict(
    mention: MentionView, categories: list[CategoryEvidence], topic: Topic, known_topics: list[str]
) -> ContextVerdict:
    """A card's or queue row's own words do not outvote the categories it declares for the paper."""
    verdict = judge_context(mention.context, topic, known_topics)
    declared = mention.kind in ("paper_card", "work_queue") and any(c.primary for c in categories)
    if declared and verdict.verdict is Verdict.RELEVANT:
        return ContextVerdict(Verdict.NONE, verdict.hits, "分类未含本主题")
    return verdict


def judge_papers(data: WindowData, topic: Topic, known_topics: list[str]) -> list[Paper]:
    """One Paper per canonical id mentioned in the window, sorted by status then first appearance."""
    by_id: dict[str, list[MentionView]] = defaultdict(list)
    for m in sorted(data.mentions, key=lambda m: (m.item_time, m.path, m.item_ordinal)):
        if m.arxiv_id and not m.malformed:
            by_id[m.arxiv_id].append(m)
    anchors = anchor_status_as_of(data.knowledge.anchors if data.knowledge else (), data.window.cutoff_local.date())
    papers: list[Paper] = []
    for arxiv_id, mentions in by_id.items():
        categories = _categories(arxiv_id, data)
        contexts = [_context_verdict(m, categories, topic, known_topics) for m in mentions]
        verdict, reason = judge_paper(contexts, categories, topic)
        anchor = anchors.get(arxiv_id)
        if anchor is not None:
            status = anchor.status
        elif verdict is Verdict.RELEVANT:
            status = "net_new"
        elif verdict is Verdict.ADJACENT:
            status = "adjacent"
        else:
            status = "off_topic"
        sources = list(dict.fromkeys(m.path for m in mentions))
        entries = list(dict.fromkeys(EntryRef(m.path, m.label, m.heading) for m in mentions))
        best = max(mentions, key=lambda m: len(m.key_points))
        cards = data.cards.get(arxiv_id, [])
        papers.append(Paper(
            arxiv_id=arxiv_id, title=_title_for(arxiv_id, mentions, data), status=status, reason=reason,
            sources=sources, entries=entries,
            anchored_on=anchor.anchored_on if anchor else None, cited_on=anchor.cited_on if anchor else None,
            sections=anchor.sections if anchor else (), key_points=list(best.key_points),
            hedges=[h for m in mentions for h in m.hedges if _hedge_names(h, m, arxiv_id)],
            primary=cards[0].primary if cards else None,
            votes=max((c.votes for c in cards if c.votes is not None), default=None),
        ))
    papers.sort(key=lambda p: (STATUS_ORDER[p.status], -len(p.sources), p.sources[0], p.arxiv_id))
    return papers


def _hedge_names(hedge: dict[str, object], mention: MentionView, arxiv_id: str) -> bool:
    return mention.arxiv_id == arxiv_id


def collect_verifications(data: WindowData, papers: list[Paper], topic: Topic, known: list[str]) -> list[Verification]:
    """Hedged claims in window entries that concern the topic, one per (subject, source)."""
    status = {p.arxiv_id: p.status for p in papers}
    ids_by_item: dict[tuple[int, int], list[str]] = defaultdict(list)
    for m in data.mentions:
        if m.arxiv_id and m.arxiv_id not in ids_by_item[(m.source_id, m.item_ordinal)]:
            ids_by_item[(m.source_id, m.item_ordinal)].append(m.arxiv_id)
    found: dict[tuple[str, str], Verification] = {}
    for entry in data.entries:
        if not entry.hedges:
            continue
        ids = ids_by_item[(entry.source_id, entry.ordinal)]
        topical = [i for i in ids if status.get(i) in ("net_new", "adjacent", "already_anchored")]
        if ids and not topical:
            continue  # hedges about papers of other topics
        if not topical and judge_context(entry.heading + "\n" + entry.text, topic, known).verdict not in (
            Verdict.RELEVANT, Verdict.ADJACENT):
            continue
        subject = topical[0] if len(topical) == 1 else (entry.title or entry.heading)
        first = entry.hedges[0]
        found.setdefault((subject, entry.path), Verification(
            subject=subject, claim=str(first.get("text", ""))[:300], marker=str(first.get("marker", "")),
            sources=(entry.path,), raised_on=data.window.cutoff_local.date(),
        ))
    return sorted(found.values(), key=lambda v: (v.sources, v.subject))
