"""The briefing as markdown, in the seeds' structure (sections 一 to 六); Chinese by default."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from tasks.briefing.model import BriefingContent, Paper

LABELS = {
    "zh": {
        "title": "{topic} · E1 预消化简报({date})",
        "runner": "执行体：predigest · E1 日间预消化轮({topic}) · {cutoff}",
        "window": "窗口：{start} → {end}（{tz}）",
        "baseline": "基线：{path} {version}（更新于 {updated}；引→{citations}）",
        "no_baseline": "基线：未找到 {topic} 的知识文档，全部 arXiv 号按未锚定处理",
        "honesty": "诚实度声明：本轮增量密度为「{density}」——{counts}。{empty}诚实报告，不硬凑字数。",
        "s1": "## 一、检查过的来源清单",
        "s1_head": "| 来源 | 内容摘要 | 可信度 |\n|---|---|---|",
        "s2": "## 二、今日该主题最重要的增量（{n} 条）",
        "s2_none": "本窗口没有 NET-new 或邻接增量。",
        "net_new": "🟢 NET-new",
        "adjacent": "🟡 邻接",
        "from": "来源",
        "points": "要点",
        "relation": "与 knowledge/{topic}.md 的关系",
        "relation_new": "知识文档截至 {date} 未锚定此号。",
        "relation_adj": "来源登记为本主题邻接（{reason}），不计入 NET-new。",
        "s3": "## 三、值得警惕的矛盾或待核实说法（{n} 条）",
        "s3_none": "本窗口没有与本主题相关的待核实标注。",
        "s4": "## 四、可引用的 arXiv 号列表",
        "s4_head": "| arXiv 号 | 标题 | 状态 | 关联节 |\n|---|---|---|---|",
        "st_net_new": "NET-new",
        "st_adjacent": "邻接·待定",
        "st_already_anchored": "已锚定（{date}）",
        "st_reference_list_only": "仅在引用列表（cited {date}）",
        "s5": "## 五、摘要",
        "s6": "## 六、检查过的来源完整清单（诚实度声明）",
        "s6_head": "| 来源 | 类型 | 时间依据 | 结论 |\n|---|---|---|---|",
        "malformed": "格式错误的 arXiv 号（未解析、未改写）：{items}",
        "off_topic": "窗口内其他主题论文 {n} 篇（未计入增量）：{ids}",
        "footer": "predigest · {cutoff} · {topic} · E1 预消化轮完成",
        "counts": "{net_new} 条 NET-new arXiv + {adjacent} 条邻接；延续锚定 {anchored} 件；仅引用列表 {refs} 件",
        "empty": "检查 {n} 个来源，其中 {errors} 个读取失败。",
    },
    "en": {
        "title": "{topic} · E1 pre-digest briefing ({date})",
        "runner": "Run by: predigest · E1 daytime pre-digest ({topic}) · {cutoff}",
        "window": "Window: {start} → {end} ({tz})",
        "baseline": "Baseline: {path} {version} (updated {updated}; citations {citations})",
        "no_baseline": "Baseline: no knowledge document for {topic}; every arXiv id is treated as unanchored",
        "honesty": "Honesty statement: increment density is \"{density}\": {counts}. {empty}Reported as found, not padded.",
        "s1": "## 1. Sources checked",
        "s1_head": "| Source | Summary | Credibility |\n|---|---|---|",
        "s2": "## 2. Most important increments today ({n})",
        "s2_none": "No NET-new or adjacent increments in this window.",
        "net_new": "🟢 NET-new",
        "adjacent": "🟡 adjacent",
        "from": "Sources",
        "points": "Key points",
        "relation": "Relation to knowledge/{topic}.md",
        "relation_new": "Not anchored in the knowledge document as of {date}.",
        "relation_adj": "Registered by its source as adjacent ({reason}); not counted as NET-new.",
        "s3": "## 3. Contradictions and claims pending verification ({n})",
        "s3_none": "No hedged claims about this topic in the window.",
        "s4": "## 4. Citable arXiv ids",
        "s4_head": "| arXiv id | Title | Status | Section |\n|---|---|---|---|",
        "st_net_new": "NET-new",
        "st_adjacent": "adjacent, pending",
        "st_already_anchored": "anchored ({date})",
        "st_reference_list_only": "reference list only (cited {date})",
        "s5": "## 5. Summary",
        "s6": "## 6. Every source checked (honesty statement)",
        "s6_head": "| Source | Kind | Time from | Conclusion |\n|---|---|---|---|",
        "malformed": "Malformed arXiv ids (reported, not repaired): {items}",
        "off_topic": "Papers of other topics in the window: {n} (not increments): {ids}",
        "footer": "predigest · {cutoff} · {topic} · E1 pre-digest done",
        "counts": "{net_new} NET-new arXiv + {adjacent} adjacent; {anchored} already anchored; {refs} reference-list only",
        "empty": "{n} sources checked, {errors} unreadable. ",
    },
}
DENSITY_ZH = {"high": "高", "medium": "中", "medium-low": "中低", "low": "低"}


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _paper_block(index: int, p: Paper, c: BriefingContent, L: dict[str, str]) -> list[str]:
    tag = L["net_new"] if p.status == "net_new" else L["adjacent"]
    lines = [f"### 增量 {index} · {tag} · {p.title}（arXiv:{p.arxiv_id}）" if L is LABELS["zh"]
             else f"### Increment {index} · {tag} · {p.title} (arXiv:{p.arxiv_id})"]
    labels: dict[str, list[str]] = {}
    for e in p.entries:
        labels.setdefault(e.path, [])
        if e.label and e.label != "preamble" and e.label not in labels[e.path]:
            labels[e.path].append(e.label)
    refs = "；".join(f"{path} {'、'.join(ls)}".rstrip() for path, ls in labels.items())
    lines.append(f"{L['from']}：{refs}")
    if p.key_points:
        lines.append(f"{L['points']}：")
        lines += [f"- {point}" for point in p.key_points[:8]]
    relation = L["relation_new"].format(date=c.date.isoformat()) if p.status == "net_new" else L["relation_adj"].format(reason=p.reason)
    lines.append(f"{L['relation'].format(topic=c.topic)}：{relation}")
    return lines


def render_markdown(content: BriefingContent, lang: str = "zh") -> str:
    """Markdown text of the briefing; deterministic for the same content."""
    L = LABELS.get(lang, LABELS["zh"])
    c = content
    tz = ZoneInfo(c.timezone)
    cutoff = c.cutoff.astimezone(tz).strftime("%Y-%m-%d %H:%M %Z").replace("CST", "CST")
    count = {s: len(c.with_status(s)) for s in ("net_new", "adjacent", "already_anchored", "reference_list_only", "off_topic")}
    density = DENSITY_ZH[c.density] if lang == "zh" else c.density
    errors = sum(1 for s in c.sources if s.error)
    out = [f"# {L['title'].format(topic=c.topic, date=c.date.isoformat())}", ""]
    out.append(L["runner"].format(topic=c.topic, cutoff=cutoff))
    out.append(L["window"].format(start=c.window_start.astimezone(tz).strftime("%Y-%m-%d %H:%M"),
                                  end=c.cutoff.astimezone(tz).strftime("%Y-%m-%d %H:%M"), tz=c.timezone))
    if c.knowledge_path:
        updated = c.knowledge_updated.astimezone(tz).strftime("%Y-%m-%d %H:%M") if c.knowledge_updated else "?"
        out.append(L["baseline"].format(path=c.knowledge_path, version=c.knowledge_version or "",
                                        updated=updated, citations=c.knowledge_citations or "?"))
    else:
        out.append(L["no_baseline"].format(topic=c.topic))
    counts = L["counts"].format(net_new=count["net_new"], adjacent=count["adjacent"],
                                anchored=count["already_anchored"], refs=count["reference_list_only"])
    out.append(L["honesty"].format(density=density, counts=counts,
                                   empty=L["empty"].format(n=len(c.sources), errors=errors)))
    out += ["", L["s1"], "", L["s1_head"]]
    out += [f"| {s.path} | {_cell(s.summary)} | {s.credibility} |" for s in c.sources]
    increments = c.with_status("net_new", "adjacent")
    out += ["", L["s2"].format(n=len(increments)), ""]
    if not increments:
        out.append(L["s2_none"])
    for i, paper in enumerate(increments, 1):
        out += _paper_block(i, paper, c, L) + [""]
    out += ["", L["s3"].format(n=len(c.verifications)), ""]
    if not c.verifications:
        out.append(L["s3_none"])
    for i, v in enumerate(c.verifications, 1):
        out.append(f"- ⚠️ T{i} {v.marker} · {v.subject}：{_cell(v.claim)}（{'；'.join(v.sources)}）")
    out += ["", L["s4"], "", L["s4_head"]]
    for p in c.with_status("net_new", "adjacent", "already_anchored", "reference_list_only"):
        status = L[f"st_{p.status}"].format(date=(p.anchored_on or p.cited_on or c.date).isoformat())
        section = "；".join(p.sections) if p.sections else "—"
        out.append(f"| {p.arxiv_id} | {_cell(p.title)} | {status} | {_cell(section)} |")
    out += ["", L["s5"], "", counts + "。"]
    if count["off_topic"]:
        out.append(L["off_topic"].format(n=count["off_topic"], ids="、".join(p.arxiv_id for p in c.with_status("off_topic"))))
    if c.malformed:
        out.append(L["malformed"].format(items="；".join(f"`{raw}`（{path}）" for raw, path in c.malformed)))
    out += ["", L["s6"], "", L["s6_head"]]
    out += [f"| {s.path} | {s.kind} | {s.time_basis} | {_cell(s.conclusion)} |" for s in c.sources]
    out += ["", L["footer"].format(cutoff=cutoff, topic=c.topic), ""]
    return "\n".join(out)
