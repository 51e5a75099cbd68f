"""Each checked source's row: credibility, summary, what in it concerns the topic, and its conclusion."""

from __future__ import annotations

from collections import Counter

from predigest.topics import Topic
from tasks.briefing.labels import short_title
from tasks.inbox.outline import listed
from tasks.judge.relevance import Verdict, judge_context
from tasks.model.briefing import Paper, SourceCheck
from tasks.model.window import SourceView, WindowData
from tasks.verify.markers import CONFIRMATORY, STARS, found
from tasks.verify.names import is_generic

_STARS = STARS
READ_ONLY_KINDS = {"paper_card": "参考", "work_queue": "参考", "hf_daily": "参考", "knowledge": "基线"}
TAGS = {"net_new": "NET-new", "engineering": "工程新增", "adjacent": "邻接", "already_anchored": "已锚",
        "reference_list_only": "引用列表"}


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
    if source.later_version is not None:
        seen = source.later_version.astimezone(data.window.tz).strftime("%Y-%m-%d %H:%M")
        return f"仅存截止后的版本（最早一版首见于 {seen}），按该版读取；" + _contents(source, data, papers)
    return _contents(source, data, papers)


def _contents(source: SourceView, data: WindowData, papers: list[Paper]) -> str:
    if source.error:
        return f"读取失败：{source.error}"
    if source.kind == "work_queue":
        ids = [p.arxiv_id for p in papers if p.arxiv_id and source.path in p.sources]
        return f"快照 Top {len(ids)}：" + "、".join(ids[:6]) + ("…" if len(ids) > 6 else "")
    by_id = {p.arxiv_id: p for p in papers if p.arxiv_id}
    parts: list[str] = []
    for entry in (e for e in data.entries if e.source_id == source.id and e.label != "preamble"):
        title = entry.title or entry.heading
        if not title or is_generic(title):
            continue
        tagged = [i for i in entry.ids if i in by_id]
        parts.append(title + (f"（arXiv:{'/'.join(tagged)}）" if tagged else ""))
    if not parts:  # no headed entry: a digest may still list its papers in rows, lines or bullets
        texts = [e.text for e in data.entries if e.source_id == source.id]
        parts = [name for text in texts for name in listed(text)]
    if not parts:
        headed = any(e.label != "preamble" for e in data.entries if e.source_id == source.id)
        return "无条目（" + ("只有小结、待办一类的标题" if headed else "正文没有标题、编号行、列表或表格行") + "）"
    return "；".join(parts[:5]) + (f"；另 {len(parts) - 5} 条" if len(parts) > 5 else "")


def _relevance(source: SourceView, data: WindowData, papers: list[Paper], topic: Topic, known: list[str]) -> str:
    """What in the source concerns the topic, each with its standing (NET-new, 已锚, 确认性 …)."""
    mine = [p for p in papers if source.path in p.sources and p.status in TAGS]
    parts = [f"{short_title(p.title)}（{TAGS[p.status]}）" for p in mine]
    named = {e.path + str(e.label) for p in mine for e in p.entries}
    for entry in (e for e in data.entries if e.source_id == source.id and not e.ids and e.label != "preamble"):
        title = entry.title
        if not title or is_generic(title) or entry.path + str(entry.label) in named:
            continue
        if judge_context(f"{entry.heading}\n{entry.text}", topic, known).verdict is Verdict.RELEVANT:
            tag = "确认性" if found(CONFIRMATORY, entry.text) else "背景"
            parts.append(f"{short_title(title)}（{tag}）")
    return "；".join(parts[:6]) + (f"；另 {len(parts) - 6} 项" if len(parts) > 6 else "") if parts else "无"


def _conclusion(source: SourceView, papers: list[Paper], relevance: str) -> tuple[str, str]:
    """(conclusion, outcome): N increments / confirmatory only / off-topic / error."""
    if source.error:
        return f"未能检查（{source.error}）", "error"
    mine = [p for p in papers if source.path in p.sources]
    counts = Counter(p.status for p in mine)
    parts = []
    for status, label in (("net_new", "NET-new"), ("engineering", "工程新增"), ("adjacent", "邻接")):
        if counts[status]:
            names = "/".join(p.arxiv_id or short_title(p.title) for p in mine if p.status == status)
            parts.append(f"{counts[status]} 条{label}（{names}）")
    if parts:
        return "；".join(parts), "increments"
    if counts["already_anchored"] or counts["reference_list_only"]:
        return "确认性（仅涉及已锚定或引用列表中的条目）", "confirmatory"
    if relevance != "无":
        return "确认性 / 背景，无新增量", "confirmatory"
    if counts["off_topic"]:
        return "无本主题增量（所涉论文属其他主题）", "off_topic"
    return "无本主题内容", "off_topic"


def source_checks(data: WindowData, papers: list[Paper], topic: Topic, known: list[str]) -> list[SourceCheck]:
    """One row per window source (errors included), in window order."""
    checks = []
    for s in data.sources:
        relevance = "—" if s.error else _relevance(s, data, papers, topic, known)
        conclusion, outcome = _conclusion(s, papers, relevance)
        checks.append(SourceCheck(s.path, s.kind, s.observed_at, s.time_basis, _credibility(s, data),
                                  _summary(s, data, papers), conclusion, s.error, relevance, outcome))
    return checks
