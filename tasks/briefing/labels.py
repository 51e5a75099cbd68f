"""Fixed wording of the markdown briefing, Chinese (default, the seeds' wording) and English."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tasks.briefing.labels_rows import EN_ROWS, ZH_ROWS
from tasks.model.briefing import Reason

ZH: dict[str, str] = {
    "title": "{topic} · E1 预消化简报({date})",
    "runner": "执行体：predigest · E1 日间预消化轮({topic}) · {cutoff}",
    "window": "窗口：{start} → {end}（{tz}）",
    "baseline": "基线：{path} {version}（更新于 {updated}；引→{citations}）",
    "version_unknown": "版本不明",
    "no_baseline": "基线：未找到 {topic} 的知识文档，全部 arXiv 号按未锚定处理",
    "honesty": "诚实度声明：本轮增量密度为「{density}」——{counts}。{checked}{feeds}{cards}{main}诚实报告，不硬凑字数。",
    "counts": "{net_new} 条 NET-new arXiv{net_names} + {engineering} 条工程新增{eng_names} + {adjacent} 条邻接{adj_names}",
    "checked": "检查 {n} 个来源：{parts}。",
    "outcome_increments": "{n} 个带来增量",
    "outcome_confirmatory": "{n} 个仅确认性/背景",
    "outcome_off_topic": "{n} 个无本主题内容",
    "outcome_error": "{n} 个读取失败（{paths}）",
    "cards": "窗口新卡 {n} 张，主分类 {topic} {k} 张。",
    "feed_problems": "订阅源异常：{items}。",
    "fp_empty": "{feed} 列表今日为空：不计为平静的一天",
    "fp_stale": "{feed} 列表今日过期（列表日期 {listing_day}，应为 {expected_day}）：不计为平静的一天",
    "fp_truncated": "{feed} 列表今日残缺（{count} 条，同星期通常 {usual} 条）：不计为平静的一天",
    "main": "今日增量主要来自 {path}。",
    "s1": "## 一、检查过的来源清单",
    "s1_head": "| 来源 | 内容摘要 | 可信度 |\n|---|---|---|",
    "s2": "## 二、今日该主题最重要的增量（{n} 条）",
    "s2_none": "本窗口没有 NET-new、工程新增或邻接增量（已检查的来源见第六节）。",
    "increment": "### 增量 {i} · {tag} · {label}",
    "tag_net_new": "🟢 NET-new arXiv",
    "tag_engineering": "🟠 工程新增",
    "tag_adjacent": "🟡 邻接",
    "tag_adjacent_hedged": "🟡 邻接待核实",
    "from": "来源：{refs}",
    "seen": "（{n} 个来源，{k} 个独立；首见 {first}，累计 {days} 天{earlier}）",
    "earlier": "；此前见于 {paths}",
    "also": "；亦被提及：{paths}",
    "points": "要点：",
    "points_more": "…（另 {n} 条）",
    "relation": "与 knowledge/{topic}.md 现有脉络的关系：",
    "rel_new": "知识文档截至 {date} 未锚定{what}。",
    "rel_adj": "来源登记为本主题邻接（{reason}），不计入 NET-new。",
    "rel_neighbours": "与 {section} 中已锚的 {names} 相邻",
    "rel_section": "最接近 {section}（该节截至 {date} 尚无与之相近的已锚条目）",
    "suggest": "建议归入：{section}（{basis}）",
    "basis_hint": "来源建议",
    "basis_text": "按文本匹配",
    "no_section": "建议归入：未找到匹配的节，需人工判断",
    "s3": "## 三、值得警惕的矛盾或待核实说法（{n} 条）",
    "s3_none": "本窗口及此前没有未解决的待核实项。",
    "v_head": "### {icon} T{i} {kind} · {title}",
    "v_status_pending": "状态：待核实 · 已挂 {age} 天（{raised} 提出，最近 {last} 再现；{limit} 天未决即过期）",
    "v_status_stale": "状态：已过期 · 已挂 {age} 天（{raised} 提出，超过 {limit} 天阈值），仍未核实",
    "v_status_resolved": "状态：已于 {resolved} 解决（{raised} 提出）",
    "v_claim": "现象：{claim}",
    "v_sources": "来源：{sources}",
    "v_evidence": "证据：{evidence}（{source}）",
    "v_advice": "建议：{advice}",
    "v_risk": "风险：{risk}",
    "v_earlier": "此前提出、本窗口无来源再提及、仍在跟踪（{n} 条，不计入本节条数）：",
    "v_compact": "- {icon} 此前 · {kind} · {title} · {status} · 来源：{sources}",
    "v_compact_pending": "已挂 {age} 天（{raised} 提出）",
    "v_compact_stale": "已过期 · 已挂 {age} 天（{raised} 提出）",
    "kind_hedge": "待核实",
    "kind_conflict": "矛盾",
    "kind_unknown_id": "arXiv 查无此号",
    "kind_title_mismatch": "标题与 arXiv 不符",
    "kind_promise": "承诺日期已过",
    "s4": "## 四、可引用的 arXiv 号列表",
    "s4_head": "| arXiv 号 | 标题 | 状态 | 关联节 |\n|---|---|---|---|",
    "st_net_new": "NET-new",
    "st_adjacent": "邻接·待定",
    "st_already_anchored": "已锚定（{date}）",
    "st_reference_list_only": "仅在引用列表（引用于 {date}）",
    "s5": "## 五、摘要",
    "sum_count": "增量条数：{n} 条（{net_new} 条 NET-new arXiv + {engineering} 条工程新增 + {adjacent} 条邻接）",
    "sum_ids": "涉及 arXiv 号：{n} 件（{net_new} 件 NET-new + {adjacent} 件邻接 + {anchored} 件延续锚定 + {refs} 件仅引用列表）",
    "sum_top": "最高价值条目：{label}——{why}",
    "sum_top_why": "{tag}，{n} 个来源（{k} 个独立）；{thesis}",
    "sum_nodes": "本轮新增主题节点：{nodes}",
    "sum_checks": "矛盾/待核实：{items}",
    "sum_next": "下次跟进重点：{items}",
    "sum_merge": "午间合入提案（{at}）：{n} 条（正文 {body}，References {refs}），差异见 `{diff}`，全文见 `{document}`",
    "sum_merge_none": "午间合入提案：本期无可合入的增量，不发布提案。",
    "none": "无",
    "off_topic": "窗口内其他主题论文 {n} 篇（未计入增量）：{ids}",
    "malformed": "格式错误的 arXiv 号（未解析、未改写）：{items}",
    "s6": "## 六、检查过的来源完整清单（诚实度声明）",
    "s6_intro": "本轮 {date} {topic} 主题检查了以下来源，确认净增量密度为「{density}」：",
    "s6_head": "| 来源 | {topic} 相关性 | 结论 | 时间依据 |\n|---|---|---|---|",
    "s6_rule": "密度规则：{rule}；本轮得分 {score:g}。",
    "s6_end": "结论：{main}诚实报告，不硬凑条目。",
    "s6_main_empty": "本窗口无增量，检查过的来源均为确认性、背景或其他主题。",
    "s6_main": "增量 {n} 条，其中 NET-new {net_new} 条。",
    "time_mtime": "文件时间（名称无日期）",
    "undated": "未定日期的文件（文件名、元数据头与文头均无可成立的日期；不计入任何窗口）{n} 个：{items}",
    "undated_more": "，另有 {n} 个",
    "footer": "predigest · {cutoff} · {topic} · E1 预消化轮完成",
    "sep": "；",
    "names": "（{names}）",
    "list_sep": "、",
    "paper_label": "{title}（arXiv:{arxiv_id}）",
    "follow": "{ref} {title}：{advice}",
    "follow_earlier": "此前",
    "follow_more": "…（另 {n} 条）",
    "follow_none": "无未决的待核实项",
    "follow_no_advice": "{n} 个未决项的来源均未给出建议",
    "follow_unadvised": "另 {n} 个未决项的来源未给出建议。",
    "v_item": "T{i} {title}（{status}）",
    "paren": "（{text}）",
    "vs_pending": "待核实",
    "vs_stale": "已过期",
    "vs_resolved": "已解决",
    "time_filename": "文件名",
    "time_header": "文件头",
    "time_feed": "订阅源",
}

EN: dict[str, str] = {
    **ZH,
    "title": "{topic} · E1 pre-digest briefing ({date})",
    "runner": "Run by: predigest · E1 daytime pre-digest ({topic}) · {cutoff}",
    "window": "Window: {start} → {end} ({tz})",
    "baseline": "Baseline: {path} {version} (updated {updated}; citations {citations})",
    "version_unknown": "version unknown",
    "no_baseline": "Baseline: no knowledge document for {topic}; every arXiv id is treated as unanchored",
    "honesty": "Honesty statement: increment density is \"{density}\": {counts}. {checked}{feeds}{cards}{main}Reported as found, not padded.",
    "counts": "{net_new} NET-new arXiv{net_names} + {engineering} engineering{eng_names} + {adjacent} adjacent{adj_names}",
    "checked": "{n} sources checked: {parts}. ",
    "outcome_increments": "{n} with increments",
    "outcome_confirmatory": "{n} confirmatory or background only",
    "outcome_off_topic": "{n} without this topic",
    "outcome_error": "{n} unreadable ({paths})",
    "cards": "{n} new paper cards, {k} with primary category {topic}. ",
    "feed_problems": "Feed problems: {items}. ",
    "fp_empty": "{feed} listing empty today: not counted as a quiet day",
    "fp_stale": "{feed} listing stale today (dated {listing_day}, expected {expected_day}): not counted as a quiet day",
    "fp_truncated": "{feed} listing truncated today ({count} entries, usually {usual} on this weekday): not counted as a quiet day",
    "main": "Most increments come from {path}. ",
    "s1": "## 1. Sources checked",
    "s1_head": "| Source | Summary | Credibility |\n|---|---|---|",
    "s2": "## 2. Most important increments today ({n})",
    "s2_none": "No NET-new, engineering or adjacent increments in this window (see section 6 for what was checked).",
    "increment": "### Increment {i} · {tag} · {label}",
    "tag_net_new": "🟢 NET-new arXiv",
    "tag_engineering": "🟠 engineering",
    "tag_adjacent": "🟡 adjacent",
    "tag_adjacent_hedged": "🟡 adjacent, to verify",
    "from": "Sources: {refs}",
    "seen": " ({n} sources, {k} independent; first seen {first}, {days} day(s){earlier})",
    "earlier": "; earlier in {paths}",
    "also": "; also mentioned in {paths}",
    "points": "Key points:",
    "points_more": "… ({n} more)",
    "relation": "Relation to knowledge/{topic}.md:",
    "rel_new": "Not anchored in the knowledge document as of {date}{what}.",
    # The judge words its reason in Chinese (tasks/judge/evidence.py); until it carries a key the
    # English line leaves it out (the JSON keeps it as `reason`).
    "rel_adj": "Registered by its source as adjacent; not counted as NET-new.",
    "rel_neighbours": "next to {names}, anchored in {section}",
    "rel_section": "closest to {section} (nothing anchored there is close to it as of {date})",
    "suggest": "Suggested section: {section} ({basis})",
    "basis_hint": "the sources' suggestion",
    "basis_text": "text match",
    "no_section": "Suggested section: no matching section; needs a human call",
    "s3": "## 3. Contradictions and claims pending verification ({n})",
    "s3_none": "No open verification items.",
    "v_status_pending": "Status: pending · {age} day(s) open (raised {raised}, last seen {last}; stale after {limit} days)",
    "v_status_stale": "Status: stale · {age} day(s) open (raised {raised}, past the {limit}-day threshold), still unverified",
    "v_status_resolved": "Status: resolved on {resolved} (raised {raised})",
    "v_claim": "Claim: {claim}",
    "v_sources": "Sources: {sources}",
    "v_evidence": "Evidence: {evidence} ({source})",
    "v_advice": "Advice: {advice}",
    "v_risk": "Risk: {risk}",
    "v_earlier": "Raised earlier, not mentioned by any source of this window, still tracked ({n}; not counted above):",
    "v_compact": "- {icon} earlier · {kind} · {title} · {status} · sources: {sources}",
    "v_compact_pending": "{age} day(s) open (raised {raised})",
    "v_compact_stale": "stale · {age} day(s) open (raised {raised})",
    "kind_hedge": "to verify",
    "kind_conflict": "contradiction",
    "kind_unknown_id": "unknown arXiv id",
    "kind_title_mismatch": "title differs from arXiv",
    "kind_promise": "promised date passed",
    "s4": "## 4. Citable arXiv ids",
    "s4_head": "| arXiv id | Title | Status | Section |\n|---|---|---|---|",
    "st_adjacent": "adjacent, pending",
    "st_already_anchored": "anchored ({date})",
    "st_reference_list_only": "reference list only (cited {date})",
    "s5": "## 5. Summary",
    "sum_count": "Increments: {n} ({net_new} NET-new arXiv + {engineering} engineering + {adjacent} adjacent)",
    "sum_ids": "arXiv ids: {n} ({net_new} NET-new + {adjacent} adjacent + {anchored} already anchored + {refs} reference-list only)",
    "sum_top": "Most valuable: {label}: {why}",
    "sum_top_why": "{tag}, {n} sources ({k} independent); {thesis}",
    "sum_nodes": "New nodes in the document: {nodes}",
    "sum_checks": "Contradictions / to verify: {items}",
    "sum_next": "Follow up next: {items}",
    "sum_merge": "Noon merge proposal ({at}): {n} increments ({body} into the body, {refs} into References); diff `{diff}`, whole document `{document}`",
    "sum_merge_none": "Noon merge proposal: nothing to merge in this briefing; no proposal is published.",
    "none": "none",
    "off_topic": "Papers of other topics in the window: {n} (not increments): {ids}",
    "malformed": "Malformed arXiv ids (reported, not repaired): {items}",
    "s6": "## 6. Every source checked (honesty statement)",
    "s6_intro": "Sources checked for {topic} on {date}; net increment density \"{density}\":",
    "s6_head": "| Source | {topic} relevance | Conclusion | Time from |\n|---|---|---|---|",
    "s6_rule": "Density rule: {rule}; score today {score:g}.",
    "s6_end": "Conclusion: {main}Reported as found, not padded.",
    "s6_main_empty": "No increments in this window; every source checked was confirmatory, background or another topic's. ",
    "s6_main": "{n} increments, {net_new} of them NET-new. ",
    "time_mtime": "file mtime (no date in name)",
    "undated": "Undated files (no date that can exist in the name, front matter or header; in no window), {n}: {items}",
    "undated_more": "; and {n} more",
    "footer": "predigest · {cutoff} · {topic} · E1 pre-digest done",
    "sep": "; ",
    "names": " ({names})",
    "list_sep": ", ",
    "paper_label": "{title} (arXiv:{arxiv_id})",
    "follow": "{ref} {title}: {advice}",
    "follow_earlier": "earlier",
    "follow_more": "… ({n} more)",
    "follow_none": "no open verification items",
    "follow_no_advice": "the sources of the {n} open items state no advice",
    "follow_unadvised": "{n} more open items state no advice.",
    "v_item": "T{i} {title} ({status})",
    "paren": " ({text})",
    "vs_pending": "pending",
    "vs_stale": "stale",
    "vs_resolved": "resolved",
    "time_filename": "file name",
    "time_header": "header",
    "time_feed": "feed",
}

ZH.update(ZH_ROWS)
EN.update({**ZH_ROWS, **EN_ROWS})  # as EN = {**ZH, ...}: a key without English wording is shared
LABELS: dict[str, dict[str, str]] = {"zh": ZH, "en": EN}
DENSITY: dict[str, dict[str, str]] = {
    "zh": {"high": "高", "medium": "中", "medium-low": "中低", "low": "低"},
    "en": {"high": "high", "medium": "medium", "medium-low": "medium-low", "low": "low"},
}


def rule_text(numbers: Mapping[str, float], L: Mapping[str, str]) -> str:
    """The density rule in the briefing's language, from its numbers (`DensityRule.numbers()`)."""
    return L["density_rule"].format(**numbers) if numbers else ""


def feed_problem_text(problem: Mapping[str, Any], L: Mapping[str, str]) -> str:
    """One feed problem (tasks.feeds.health's mark on a snapshot) in the briefing's language."""
    usual = problem.get("usual")
    return L[f"fp_{problem['problem']}"].format(**{**problem, "usual": f"{usual:g}" if usual is not None else "?"})


def feed_problems_text(problems: Sequence[Mapping[str, Any]], L: Mapping[str, str]) -> str:
    """The density statement's sentence naming every feed problem; empty when there is none."""
    if not problems:
        return ""
    return L["feed_problems"].format(items=L["sep"].join(feed_problem_text(p, L) for p in problems))


def reason_text(reason: Sequence[Reason], L: Mapping[str, str]) -> str:
    """Why a paper has its status, worded in the briefing's language."""
    return L["reason_sep"].join(L[f"reason_{part.key}"].format(**dict(part.args)) for part in reason)


def short_title(title: str) -> str:
    """A short name for lists: the part before a colon, else the title cut at a word boundary."""
    head = re.split(r"[:：（(?？]", title, maxsplit=1)[0].strip()
    if 2 <= len(head) <= 32:
        return head
    cut = head[:32]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"
