"""The text of the large generated workspaces (tests/generate/large.py): the pool of papers per
day, the vocabulary, and the five note styles taken from the sample workspace (Jay's screening
notes, Tom's HF Daily lists, Spark's e1prep with front matter, Tom's E1 briefings with
pseudo-headings, Lena's English reading notes). `note_file` picks a style, an author, a name and an
encoding for one note; every choice comes from the caller's seeded `random.Random`.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from tests.generate.files import local

PAPERS_PER_DAY = 40

TOPICS = ["inference", "llm-infra", "rag", "agents", "training", "evaluation", "multimodal"]
TOPIC_WEIGHTS = [35, 10, 15, 15, 10, 8, 7]

_NAME_A = ["KV", "Spec", "Flash", "Radix", "Paged", "Serve", "Route", "Quant", "Prefill", "Decode", "Sparse",
           "Agent", "Retro", "Judge", "Vision", "Tool", "Mem", "Graph", "Stream", "Edge", "Slim", "Hyper",
           "Turbo", "Orca", "Lumen", "Nexus", "Delta", "Tensor", "Cache", "Shard"]
_NAME_B = ["Flow", "Scale", "Bench", "Net", "Cache", "Pilot", "Forge", "Lens", "Mix", "Shard", "Wise", "Tune",
           "Guard", "Trace", "Fuse", "Pack", "Swap", "Gate", "Loop", "Sched"]
_PHRASES = {
    "inference": ["Prefix-Aware KV Cache Routing for vLLM Serving", "Speculative Decoding under Test-Time Scaling",
                  "Chunked Prefill Scheduling with SLO Guarantees", "PD Disaggregation over RDMA Transfer Engines",
                  "FP8 KV Cache Quantization on H100 and B200", "Expert Parallel MoE Inference at Scale",
                  "Latency-Aware Router for Heterogeneous GPU Fleets", "Continuous Batching with Length Prediction"],
    "llm-infra": ["Checkpoint Storage for Trillion-Parameter Training", "RDMA Cluster Scheduling for LLM Jobs",
                  "NCCL Collectives on Multi-Rail Infrastructure", "GPU Cluster Failure Recovery"],
    "rag": ["Retrieval with Temporal Awareness", "Reranker Distillation for Long Documents",
            "Vector Database Sharding for RAG", "Graph Retrieval with Incremental Index Updates"],
    "agents": ["Long-Horizon Tool Use with Typed Plans", "Multi-Agent Debugging from Execution Logs",
               "MCP Tool Calling under Partial Failure", "Planner-Executor Agents with Memory"],
    "training": ["Reward Models Are Secretly Length Predictors", "RLHF with Ensemble Critics",
                 "Sparse Upcycling for MoE Pretraining", "Synthetic Data Scaling Laws for Math"],
    "evaluation": ["Calibrating LLM-as-a-Judge under Shift", "A Benchmark for 100K-token Judges",
                   "Leaderboard Contamination Audits", "Evaluation of Chain-of-Thought Faithfulness"],
    "multimodal": ["Video Tokenizers at 1/64 Compression", "Multi-page Document VQA",
                   "Vision-Language-Action Inference Workloads", "Image Grounding with Spatial Memory"],
}
_FACTS = {
    "inference": ["在 H100 上 TTFT 降低 {p}%，decode 吞吐 {x}×", "vLLM 与 SGLang 对比：prefix overlap >60% 时 {r} req/s vs {r2} req/s",
                  "KV cache 占用下降 {p}%，P99 延迟 {ms} ms", "投机解码接受率 {p}%，端到端 {x}× 加速",
                  "PD 分离下 prefill 节点显存 −{p}%，EP 通信 −{p2}%", "B200 单卡 {tok} tok/s（bs=1，官方数字）",
                  "chunked prefill 让 TPOT 抖动收敛到 {ms} ms 以内", "router 按前缀命中 + 负载打分，SLO 违约率降 {p}%"],
    "llm-infra": ["checkpoint 写入 {gb} GB/s，恢复时间缩短 {p}%", "RDMA 多轨下 NCCL all-reduce 带宽 {gb} GB/s",
                  "集群故障恢复平均 {s} s，GPU 利用率 +{p}%"],
    "rag": ["recall@10 +{p}%，检索延迟 {ms} ms", "reranker 蒸馏保留 {p}% NDCG@10", "向量库分片后 QPS {r}"],
    "agents": ["工具调用成功率 +{p} 点", "multi-agent 失败定位准确率 {p}%", "长程任务完成率 {p}%，平均 {s} 步"],
    "training": ["奖励模型分数与长度相关 0.{p}", "RLHF 奖励欺骗下降 {p}%", "预训练 token 效率 +{p}%"],
    "evaluation": ["judge 一致性 {p}%，比基线 +{p2} 点", "benchmark 污染率 {p}%", "长输入评测 {x}× 成本"],
    "multimodal": ["视频 tokenizer 压缩比 1/{r}，重建 PSNR +{x}", "文档 VQA 准确率 {p}%", "视觉前缀 {tok} tokens"],
}
_RELATIONS = [
    "§{sec} 已有相近条目，这篇补的是「{name} 在生产流量下的条件」。",
    "和 §{sec} 的现有脉络互补：一个讲机制，一个讲系统开销。",
    "与上周 {name} 的结论方向一致，但实验条件更窄（单卡、单模型）。",
    "§{sec} 缺一篇系统性综述，这篇可以补上，但数字来自自选任务。",
]
_HEDGES = [
    "**待核实**：这组数字来自社媒转述，没有找到原文实验设置。",
    "⚠ 待核实：arXiv 号是从 HF 页面抄的，arXiv 页还没打开对过。",
    "- 待验证：只有摘要级结论，正文还没读。",
    "- 存疑：作者自测，条件受限（流量构成、前缀复用率都没披露）。",
]
SECTIONS = ["1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9", "2.2", "2.3", "2.5", "3.2", "3.3", "4.1", "4.2"]
KNOWLEDGE_SECTIONS = [
    ("§1 现状全景", [("§1.1", "框架格局"), ("§1.2", "传输与互联"), ("§1.3", "llm-d 与 K8s 推理编排"),
                   ("§1.4", "量化"), ("§1.5", "推理可靠性与可观测性"), ("§1.6", "长上下文"), ("§1.9", "安全")]),
    ("§2 关键工作脉络", [("§2.1", "批处理与调度演化"), ("§2.2", "调度理论"), ("§2.3", "PD Disaggregation"),
                     ("§2.4", "MoE Serving"), ("§2.5", "AI-for-Systems 闭环")]),
    ("§3 KV Cache 纪元", [("§3.1", "叙事与体系"), ("§3.2", "驱逐策略"), ("§3.3", "Cache Compression 与持久化"),
                        ("§3.4", "卸载与跨实例共享")]),
    ("§4 方法前沿与开放问题", [("§4.1", "投机解码"), ("§4.2", "蒸馏新范式 · 量化训练"), ("§4.3", "开放问题")]),
    ("§5 Agent 负载、记忆与框架", [("§5.1", "Agent 失败模式"), ("§5.2", "Agent 记忆三层架构")]),
    ("§6 成本工程与基准测试", [("§6.1", "第三方实测"), ("§6.2", "官方赛场")]),
]
_STYLES = ["screening", "hf_daily", "e1prep_fm", "e1prep_pseudo", "reading"]
_STYLE_WEIGHTS = [40, 15, 15, 15, 15]
_STYLE_AUTHORS = {
    "screening": ["jay", "mia", "raj"], "hf_daily": ["tom"], "e1prep_fm": ["spark"],
    "e1prep_pseudo": ["tom", "kai"], "reading": ["lena", "olga"],
}


@dataclass(frozen=True)
class Paper:
    arxiv_id: str
    name: str
    title: str
    topic: str
    day: dt.date


class Pool:
    """Papers per day, deterministic from the seed and the day alone (any range gives the same papers):
    ids `YYMM.NNNNN`, numbered by day of month so they never collide."""

    def __init__(self, seed: int, first: dt.date, last: dt.date, per_day: int = PAPERS_PER_DAY):
        self.by_day: dict[dt.date, list[Paper]] = {}
        day = first
        while day <= last:
            rng = random.Random(seed * 1_000_003 + day.toordinal())
            yymm = day.strftime("%y%m")
            papers = []
            for k in range(per_day):
                n = 1000 + (day.day - 1) * per_day * 2 + k * 2 + rng.randrange(2)
                topic = rng.choices(TOPICS, TOPIC_WEIGHTS)[0]
                name = rng.choice(_NAME_A) + rng.choice(_NAME_B) + rng.choice(["", "", "-2", "-3", "X"])
                title = f"{name}: {rng.choice(_PHRASES[topic])}"
                papers.append(Paper(f"{yymm}.{n:05d}", name, title, topic, day))
            self.by_day[day] = papers
            day += dt.timedelta(days=1)
        self.first, self.last = first, last

    def recent(self, rng: random.Random, day: dt.date, k: int) -> list[Paper]:
        """k papers for a note on `day`: mostly from its last week, some older ones."""
        out = []
        for _ in range(k):
            back = rng.randrange(7) if rng.random() < 0.8 else rng.randrange(7, 120)
            d = max(self.first, min(self.last, day - dt.timedelta(days=back)))
            out.append(rng.choice(self.by_day[d]))
        return out


def _fill(rng: random.Random, template: str, paper: Paper | None = None) -> str:
    return template.format(
        p=rng.randrange(3, 90), p2=rng.randrange(3, 60), x=f"{rng.uniform(1.1, 5.0):.1f}", r=rng.randrange(20, 400),
        r2=rng.randrange(10, 200), ms=rng.randrange(5, 400), tok=rng.randrange(50, 20000), gb=rng.randrange(5, 400),
        s=rng.randrange(2, 90), sec=rng.choice(SECTIONS), name=paper.name if paper else "SlimWise",
    )


def fact(rng: random.Random, paper: Paper) -> str:
    topic = paper.topic if rng.random() < 0.8 else rng.choice(TOPICS)
    return _fill(rng, rng.choice(_FACTS[topic]), paper)


_DISCUSSION = [
    "{name} 的核心论点是：推理问题已经从「让单个模型高效处理请求」演化为「跨 fleet 协调状态、相位、加速器和 SLO」。",
    "状态 = KV cache / 前缀；相位 = prefill / decode；加速器 = 异构 GPU；SLO = 按租户或任务区分。",
    "实验只在单一模型族上做，流量构成和前缀复用率都没披露，进知识文档时要标「条件受限，建议独立验证」。",
    "作者给了完整 artifact（代码 + 数据 + 复现说明），复现步骤逐条映射到 commit，这点比大多数部署博客强。",
    "和 {name} 同期的几篇都在讲同一件事：调度器需要知道请求的长度分布，否则 continuous batching 的收益会被尾延迟吃掉。",
    "The evaluation covers four generator-verifier pairs on GSM8K, MATH-500 and OlympiadBench, on a single A100.",
    "Numbers are from the authors' own cluster; the blog post does not say which model revision or batch size.",
    "如果只看吞吐会高估收益：在 decode 95% 负载下 P99 反而变差，作者在附录里承认了这一点。",
    "这篇把 {name} 放进了 vLLM → llm-d → Dynamo 的演进叙事，适合作为框架格局一节的背景材料。",
    "对 RAG 负载意义有限：检索侧缓存命中和 KV cache 复用不是一回事，转 rag 线处理。",
]


def _discussion(rng: random.Random, paper: Paper, sentences: int) -> str:
    return "".join(_fill(rng, rng.choice(_DISCUSSION), paper) for _ in range(sentences))


def _ref(rng: random.Random, paper: Paper) -> str:
    """How a note writes the id: mostly `arXiv:ID`, sometimes a URL, a version, a full-width colon."""
    r = rng.random()
    if r < 0.55:
        return f"arXiv:{paper.arxiv_id}"
    if r < 0.7:
        return f"arxiv.org/abs/{paper.arxiv_id}"
    if r < 0.8:
        return f"https://arxiv.org/abs/{paper.arxiv_id}v{rng.randrange(1, 4)}"
    if r < 0.9:
        return f"arXiv：{paper.arxiv_id}"
    if r < 0.995:
        return f"arXiv {paper.arxiv_id}"
    return f"arXiv:{paper.arxiv_id[:-1]}"  # a dropped digit: a malformed id, reported, never repaired


# --- note styles -----------------------------------------------------------------------------------


def _screening(rng: random.Random, pool: Pool, day: dt.date, when: str, author: str) -> str:
    papers = pool.recent(rng, day, rng.randrange(7, 13))
    out = [f"# {author.capitalize()} · 工程筛选 · {day.isoformat()} {when}", "",
           f"> 本轮 {len(papers)} 条：先扫 HF Daily 和 arXiv 新挂出的 serving / KV cache 相关论文，再看社区博客。",
           "> 背景：inference.md 今天 12:00 的版本为基线；下面的「和现有脉络的关系」都按这个版本写。", "", "---", ""]
    rows = []
    for i, paper in enumerate(papers, 1):
        out += [f"## 条目{i} · {paper.title}（{_ref(rng, paper)}）", "",
                f"- 作者：{rng.choice(['Chen et al.', 'Wang et al.', 'Li et al.', 'Kumar et al.'])}，{paper.day.year} 年 {paper.day.month} 月。",
                f"- 类型：{rng.choice(['系统论文', '综述 + 生产证据', '工程报告', 'preprint'])}。", "",
                "**做了什么**"]
        out += [f"- {fact(rng, paper)}。" for _ in range(rng.randrange(2, 5))]
        out += ["", "**讨论**", _discussion(rng, paper, rng.randrange(3, 7))]
        if rng.random() < 0.2:
            out += ["", rng.choice(_HEDGES)]
        out += ["", "**和现有脉络的关系**", f"- {_fill(rng, rng.choice(_RELATIONS), paper)}"]
        if rng.random() < 0.3:
            other = pool.recent(rng, day, 1)[0]
            out.append(f"- 与 {other.name}（{_ref(rng, other)}）同属一条线：{fact(rng, other)}。")
        section = rng.choice(SECTIONS)
        out += ["", f"**建议**：§{section}（新增 {paper.name}）。", "", "---", ""]
        rows.append(f"| {i} | {paper.arxiv_id} | §{section} |")
    out += ["### 小结", "| 条目 | arXiv | 建议 |", "|---|---|---|", *rows, ""]
    return "\n".join(out)


def _hf_daily(rng: random.Random, pool: Pool, day: dt.date, when: str, author: str) -> str:
    papers = sorted(set(rng.sample(pool.by_day[day], min(len(pool.by_day[day]), rng.randrange(18, 30)))),
                    key=lambda p: p.arxiv_id)
    votes = sorted((rng.randrange(3, 120) for _ in papers), reverse=True)
    out = [f"# HF Daily Papers · {day.isoformat()}", "",
           f"抓取：huggingface.co/papers?date={day.isoformat()} · {when} CST · 共 {len(papers)} 条 · 按 ▲ 排序",
           f"整理：{author.capitalize()}", "", "---", ""]
    for i, (paper, vote) in enumerate(zip(papers, votes, strict=True), 1):
        out += [f"## 条目{i} · ▲{vote} · {paper.title}", "",
                f"- arXiv：{paper.arxiv_id} · {paper.topic} / {rng.choice(TOPICS)}",
                f"- 内容：{fact(rng, paper)}；{fact(rng, paper)}。", f"- 备注：{_discussion(rng, paper, rng.randrange(1, 4))}"]
        if rng.random() < 0.1:
            out.append(f"- ⚠ **待核实**：{paper.name} 的 arXiv 号要到 arXiv 页核对。")
        out.append("")
    counts: dict[str, int] = {}
    for paper in papers:
        counts[paper.topic] = counts.get(paper.topic, 0) + 1
    out += ["---", "", "### 今日小结", f"- inference 主轴：{counts.get('inference', 0)} 条。",
            "- 其余：" + "、".join(f"{t} ×{n}" for t, n in sorted(counts.items()) if t != "inference") + "。", ""]
    return "\n".join(out)


def _e1prep_fm(rng: random.Random, pool: Pool, day: dt.date, when: str, author: str) -> str:
    papers = pool.recent(rng, day, rng.randrange(6, 11))
    out = ["---", f"author: {author}", "topic: llm-infra", f"date: {day.isoformat()}", "round: e1prep", "---", "",
           f"# llm-infra · E1 预备（{day.isoformat()}）", "",
           f"底本：inference.md v{300 + day.timetuple().tm_yday % 200} · llm-infra.md v{100 + day.day}", ""]
    for i, paper in enumerate(papers, 1):
        out += [f"## 增量 {i} · {paper.name} 承接（{_ref(rng, paper)}）", "",
                f"- 来源：{rng.choice(['官方技术博客', 'Jay R6 条目#3', 'HF Daily', 'paper card'])}。"]
        out += [f"- {fact(rng, paper)}。" for _ in range(rng.randrange(2, 5))]
        out += [f"- 解读：{_discussion(rng, paper, rng.randrange(3, 7))}"]
        if rng.random() < 0.15:
            out.append(f"- 待核实：{paper.name} 的数字只在摘要里出现。")
        out += [f"- 建议：inference §{rng.choice(SECTIONS)}。", ""]
    cards = pool.recent(rng, day, 4)
    out += [f"## 卡片扫描（{day.isoformat()} 新卡）", "", "| 卡 | arXiv | 主分类 | 给 inference？ |", "|---|---|---|---|"]
    out += [f"| {1700 + k} | {c.arxiv_id} {c.name} | {c.topic} | {'是' if c.topic == 'inference' else '否'} |"
            for k, c in enumerate(cards)]
    out += ["", "## 给 Tom", "", f"- E1 候选：{'、'.join(p.name for p in papers[:3])}。", ""]
    return "\n".join(out)


_CN_NUM = "一二三四五六七八九十"


def _e1prep_pseudo(rng: random.Random, pool: Pool, day: dt.date, when: str, author: str) -> str:
    papers = pool.recent(rng, day, rng.randrange(5, 9))
    out = [f"inference · E1 预消化简报({day.isoformat()})",
           f"执行体：{author.capitalize()} · E1 日间预消化轮(inference) · {day.isoformat()} 22:20 CST 基线：inference.md。",
           f"诚实度声明：本轮增量密度为「中」——{len(papers)} 条增量，不硬凑字数。", "",
           "一、检查过的来源清单", "| 来源 | 内容摘要 | 可信度 |", "|---|---|---|"]
    out += [f"| inbox/jay/{day.isoformat()}-note-{k}.md | {p.name}：{fact(rng, p)} | ⭐⭐⭐⭐ |"
            for k, p in enumerate(papers[:4])]
    out += ["", f"二、今日该主题最重要的增量（{len(papers)} 条）", ""]
    for i, paper in enumerate(papers, 1):
        tag = rng.choice(["🟢 NET-new", "🟠 工程新增", "🟠 叙事新增"])
        out += [f"增量 {i} · {tag} · {paper.title}（{_ref(rng, paper)}）",
                f"来源：jay R{rng.randrange(1, 8)} 条目#{rng.randrange(1, 9)}",
                f"要点：{fact(rng, paper)}；{fact(rng, paper)}。{_discussion(rng, paper, rng.randrange(3, 7))}",
                f"建议归入：§{rng.choice(SECTIONS)}", ""]
    hedged = pool.recent(rng, day, 2)
    out += ["三、值得警惕的矛盾或待核实说法"]
    out += [f"⚠️ T{k} 待核实 · {p.name}（arXiv:{p.arxiv_id}）只有摘要级「{fact(rng, p)}」，本轮不入增量。"
            for k, p in enumerate(hedged, 1)]
    out += ["四、可引用的 arXiv 号列表", "| arXiv 号 | 标题 | 关联节 |", "|---|---|---|"]
    out += [f"| {p.arxiv_id} | {p.name} | §{rng.choice(SECTIONS)} |" for p in papers]
    out += ["五、摘要", f"增量条数：{len(papers)} 条。", "六、检查过但无增量", "| 来源 | 结论 |", "|---|---|",
            f"| HF Daily {day.isoformat()} | 除 {papers[0].name} 外无 inference 相关 |",
            f"{author.capitalize()} · {day.isoformat()} 22:20 CST · inference · E1 预消化轮完成", ""]
    return "\n".join(out)


def _reading(rng: random.Random, pool: Pool, day: dt.date, when: str, author: str) -> str:
    papers = pool.recent(rng, day, rng.randrange(4, 8))
    out = [f"# {papers[0].name} — first read", "",
           f"{author.capitalize()} · {day.isoformat()} {when} (Shanghai) · reading notes, not a recommendation yet.", ""]
    for paper in papers:
        out += [f"## What {paper.name} is", "",
                f"- {paper.title} ({'https://' + _ref(rng, paper) if rng.random() < 0.3 else _ref(rng, paper)}).",
                f"- It plays the same role for {paper.topic} serving that NIXL plays on the NVIDIA side: a transfer",
                "  agent with pluggable backends, a registration API for GPU memory, and async completion handles.",
                f"- Integration status: an SGLang PR wires it in; vLLM support is \"in progress\" ({paper.day.isoformat()}).",
                "", "## Numbers", "", "| mode | median | p99 | note |", "|------|-------:|----:|------|"]
        for mode in ("WRITE", "READ"):
            out.append(f"| {mode} | {rng.randrange(5, 40)} ms | {rng.randrange(20, 300)} ms | decode at {rng.randrange(40, 99)}% load |")
        out += ["", f"So {rng.choice(['WRITE', 'READ'])} wins once decode is busy; throughput {rng.uniform(1.1, 4):.1f}× "
                f"with prefix caching, TTFT {rng.randrange(10, 60)}% lower on H100.", "",
                _discussion(rng, paper, rng.randrange(3, 7)), ""]
        if rng.random() < 0.2:
            out += ["## Open questions", "", f"- Unverified: the {paper.name} numbers come from a vendor blog.", ""]
    out += ["— " + author[0].upper() + ".", ""]
    return "\n".join(out)


_WRITERS = {"screening": _screening, "hf_daily": _hf_daily, "e1prep_fm": _e1prep_fm,
            "e1prep_pseudo": _e1prep_pseudo, "reading": _reading}


def note_file(rng: random.Random, pool: Pool, day: dt.date, serial: int) -> tuple[str, bytes, dt.datetime]:
    """(workspace-relative path, bytes, local time) of one note."""
    style = rng.choices(_STYLES, _STYLE_WEIGHTS)[0]
    author = rng.choice(_STYLE_AUTHORS[style])
    minutes = rng.randrange(7 * 60, 24 * 60)
    hhmm = f"{minutes // 60:02d}{minutes % 60:02d}"
    when = f"{hhmm[:2]}:{hhmm[2:]}"
    text = _WRITERS[style](rng, pool, day, when, author)
    stamp = day.isoformat()
    written = local(day, minutes // 60, minutes % 60)
    if style == "hf_daily":
        name = f"{stamp}-{hhmm}-hf-daily-{stamp}-{serial}.md"
    elif style == "e1prep_pseudo":
        name, written = f"{stamp}-inference-e1prep-{serial}.md", local(day)
    elif style == "e1prep_fm":
        name = f"{stamp}-{hhmm}-{author}-llm-infra-e1prep-{serial}.md"
    else:
        sep = rng.choice(["T", "-"])
        name = f"{stamp}{sep}{hhmm}-{author}-{style}-{serial}.md"
    r = rng.random()
    if r < 0.005:
        name = f"{author}-misc-notes-{serial}.md"  # no date in the name: the file's mtime counts
    data = text.encode("utf-8")
    r = rng.random()
    if r < 0.01:
        data = text.encode("gb18030")
    elif r < 0.03:
        data = text.replace("\n", "\r\n").encode("utf-8")
    elif r < 0.031:
        data = b""  # an empty file: an error row
    elif r < 0.0315:
        data = bytes(rng.randrange(256) for _ in range(2048))  # binary garbage: an error row
    return f"inbox/{author}/{name}", data, written
