"""Assemble the judged content of one briefing from a collected window."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

from predigest.topics import Topic
from tasks.briefing.collect import SourceView, WindowData
from tasks.briefing.judge import collect_verifications, judge_papers
from tasks.briefing.model import BriefingContent, Paper, SourceCheck
from tasks.judge.density import density_of

_STARS = re.compile(r"可信度[^⭐\n]{0,16}?(⭐+)")
READ_ONLY_KINDS = {"paper_card": "参考", "work_queue": "参考", "hf_daily": "参考", "knowledge": "基线"}
KIND_ORDER = {"note": 0, "hf_daily": 1, "arxiv_feed": 2, "paper_card": 3, "work_queue": 4, "other": 5, "knowledge": 6}


def _credibility(source: SourceView, data: WindowData) -> str:
    if source.error:
        return "—"
    if source.kind in READ_ONLY_KINDS:
        return READ_ONLY_KINDS[source.kind]
    ratings = [len(m.group(1)) for e in data.entries if e.source_id == source.id for m in _STARS.finditer(e.text)]
    if not ratings:
        return "未自评"
    low, high = min(ratings), max(ratings)
    return "⭐" * high if low == high else f"{'⭐' * low}–{'⭐' * high}（逐条自评）"


def _summary(source: SourceView, data: WindowData, papers: list[Paper]) -> str:
    if source.error:
        return f"读取失败：{source.error}"
    if source.kind == "work_queue":
        ids = [p.arxiv_id for p in papers if source.path in p.sources]
        return f"快照 Top {len(ids)}：" + "、".join(ids[:6]) + ("…" if len(ids) > 6 else "")
    by_id = {p.arxiv_id: p for p in papers}
    parts: list[str] = []
    for entry in (e for e in data.entries if e.source_id == source.id and e.label != "preamble"):
        ids = [m.arxiv_id for m in data.mentions
               if m.source_id == source.id and m.item_ordinal == entry.ordinal and m.arxiv_id]
        title = entry.title or entry.heading
        if not title:
            continue
        tagged = [i for i in dict.fromkeys(ids) if i in by_id]
        parts.append(title + (f"（arXiv:{'/'.join(tagged)}）" if tagged else ""))
    if not parts:
        return "无条目"
    shown = parts[:5]
    return "；".join(shown) + (f"；另 {len(parts) - 5} 条" if len(parts) > 5 else "")


def _conclusion(source: SourceView, papers: list[Paper]) -> str:
    if source.error:
        return f"未能检查（{source.error}）"
    mine = [p for p in papers if source.path in p.sources]
    counts = Counter(p.status for p in mine)
    parts = []
    if counts["net_new"]:
        parts.append(f"{counts['net_new']} 条 NET-new（" + "/".join(p.arxiv_id for p in mine if p.status == "net_new") + "）")
    if counts["adjacent"]:
        parts.append(f"{counts['adjacent']} 条邻接（" + "/".join(p.arxiv_id for p in mine if p.status == "adjacent") + "）")
    if parts:
        return "；".join(parts)
    if counts["already_anchored"] or counts["reference_list_only"]:
        return "确认性（仅涉及已锚定或引用列表中的条目）"
    if counts["off_topic"]:
        return "无本主题增量（所涉论文属其他主题）"
    return "确认性 / 背景，无 arXiv 增量"


def _knowledge_as_of(data: WindowData) -> tuple[dt.datetime | None, int | None]:
    """Update time and citation count of the knowledge document as they stood at the cutoff.

    A document updated after the cutoff still tells, through its change log, when it was last
    updated before it and with how many citations.
    """
    doc = data.knowledge
    if doc is None:
        return None, None
    if doc.updated_at is None or doc.updated_at <= data.window.end:
        return doc.updated_at, doc.citations
    earlier = [row for row in doc.changelog if dt.datetime.fromisoformat(row["at"]) <= data.window.end]
    if not earlier:
        return None, None
    row = max(earlier, key=lambda r: dt.datetime.fromisoformat(r["at"]))
    return dt.datetime.fromisoformat(row["at"]), row.get("citations_after")


def build_content(data: WindowData, topic: Topic, known_topics: list[str]) -> BriefingContent:
    """Judge the window and return everything the renderers need, in a deterministic order."""
    papers = judge_papers(data, topic, known_topics)
    verifications = collect_verifications(data, papers, topic, known_topics)
    checks = [
        SourceCheck(s.path, s.kind, s.observed_at, s.time_basis, _credibility(s, data), _summary(s, data, papers),
                    _conclusion(s, papers), s.error)
        for s in data.sources
    ]
    updated, citations = _knowledge_as_of(data)
    if data.knowledge is not None:
        doc = data.knowledge
        day = data.window.cutoff_local.date()
        anchored = {a.arxiv_id for a in doc.anchors if not a.reference_only and a.anchored_on and a.anchored_on <= day}
        cited = {a.arxiv_id for a in doc.anchors if a.reference_only and a.cited_on and a.cited_on <= day} - anchored
        checks.append(SourceCheck(
            doc.path, "knowledge", updated or data.window.end, "header", "基线",
            f"{doc.version or '版本未标'}；截至 {day.isoformat()} 锚定 arXiv {len(anchored)} 件，"
            f"References {len(cited)} 件", "对照基线", None,
        ))
    checks.sort(key=lambda c: (KIND_ORDER.get(c.kind, 9), c.observed_at, c.path))
    net_new = sum(1 for p in papers if p.status == "net_new")
    adjacent = sum(1 for p in papers if p.status == "adjacent")
    malformed = sorted({(m.raw, m.path) for m in data.mentions if m.malformed})
    k = data.knowledge
    return BriefingContent(
        topic=topic.name, date=data.window.date, window_start=data.window.start, cutoff=data.window.end,
        timezone=data.window.timezone, knowledge_path=k.path if k else None, knowledge_version=k.version if k else None,
        knowledge_updated=updated, knowledge_citations=citations,
        density=density_of(net_new, adjacent), sources=checks, papers=papers, verifications=verifications,
        malformed=malformed,
    )
