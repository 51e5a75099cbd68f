"""Contract: engineering increments (no arXiv id) are found by their signals, not by one phrasing.

Each style adds notes in English (headed, numbered with bare domains) or in Chinese (pseudo-headings
一、二、), written unlike the sample, to the 2026-10-09 window of the generated ten-day workspace
(tests/generate/ten_days.py: its notes name papers only, so no engineering increment of its own),
whose inference.md also holds the releases of HELD as of the cutoff. Found, in every style, and
nothing else:
- an official engineering blog post reported by two notes: one increment naming both sources;
- a measured engine-against-engine comparison whose lead holds under one traffic condition only;
- a preprint hosted somewhere other than arXiv (OpenReview, SSRN).
Not found: a release the knowledge document already holds as of the cutoff; a release owned by
another topic (a note written for that topic, in its vocabulary); a background re-read or explainer.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from rapidfuzz import fuzz
from sqlalchemy import Engine

from db.engine import get_engine, session_scope
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.increments.engineering import engineering_increments
from tasks.judge.evidence import decide, gather_entries
from tasks.judge.relevance import Verdict
from tasks.judge.sections import doc_names, doc_sections
from tasks.model.judged import Paper
from tasks.model.window_views import WindowData
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.verify.names import normalise
from tasks.window.collect import collect_window
from tasks.window.papers import judge_window
from tests.generate.files import write_file
from tests.generate.ten_days import make_workspace
from tests.helpers import ingest_all

DAY = "2026-10-09"

# style -> (notes: path -> text, expected increments: name -> the paths that must be its sources)
# The releases the knowledge document's body holds (arXiv id, name, day anchored), before the cutoff.
HELD = [("2607.09701", "SlimWise", dt.date(2026, 10, 8)),
        ("2407.00079", "Mooncake Transfer Engine", dt.date(2026, 7, 21)),
        ("2610.10845", "galahad-kv", dt.date(2026, 10, 8))]
# style -> (the release the knowledge document holds, the other topic's release, the background re-read)
NEGATIVES = {
    "headed_with_links": ("SlimWise 0.4 release", "Quarry 3.0 released", "Re-reading the vLLM PagedAttention docs"),
    "numbered_bare_domains": ("Mooncake Transfer Engine 0.3 release", "TaskLoom 1.0 launched",
                              "Primer on continuous batching"),
    "zh_pseudo_headings": ("galahad-kv 0.2 发布", "智能体框架 TaskLoom 1.0 发布", "重读 vLLM PagedAttention 文档"),
}
STYLES: dict[str, tuple[dict[str, str], dict[str, set[str]]]] = {
    "headed_with_links": (
        {
            "inbox/mara/2026-10-09T1130-mara-serving-notes.md": """# Serving notes, Oct 9

## Kestrel 2.0: disaggregated prefill goes GA
Source: Kestrel engineering blog, https://kestrel-serve.dev/blog/kestrel-2-0
- The Kestrel team released 2.0 today: prefill and decode pools are split across nodes, KV blocks move over RDMA.
- Their numbers: TTFT p99 down 38% on a 70B model at 256 concurrent requests.

## Hydra vs vLLM vs SGLang on H200
- Our benchmark on 8×H200, Llama-3.3-70B, three runs each.
- Hydra leads vLLM by 22% throughput under bursty traffic; under steady traffic the three are within 3%.
- So the lead is real only for bursty arrivals.

## A Taxonomy of KV-Cache Eviction Policies (preprint)
- https://openreview.net/forum?id=Xk3vQ9aB2c, a workshop preprint, not on arXiv.
- Sorts forty eviction policies for serving by the signal they use: attention, recency, learned scores.

## SlimWise 0.4 release
- Official blog: https://slimwise.dev/blog/0-4, the PD disaggregation scheduler for vLLM gets a new admission
  rule: prefill requests wait while the decode pool's KV cache is above 90%; TTFT p99 down 12%.

## Re-reading the vLLM PagedAttention docs (not a paper)
- Background for the new hire: vLLM block tables, KV cache copy-on-write, block size 16; prefix caching
  reuses blocks across requests.
""",
            "inbox/ravi/2026-10-09T1620-ravi-links.md": """# Links I read today

## Kestrel 2.0 is out
- The official announcement: https://kestrel-serve.dev/blog/kestrel-2-0
- Disaggregated prefill by default, decode pools scale on their own; KV transfer over RDMA.
""",
            "inbox/ravi/2026-10-09-rag-e1prep.md": """# RAG prep, Oct 9

## Quarry 3.0 released: hybrid retrieval with a built-in reranker
- Official blog: https://quarry.dev/blog/3-0
- New embedding cache and chunking presets; retrieval recall up 7% on BEIR.
- Works with vLLM as the generator.
""",
        },
        {
            "Kestrel 2.0: disaggregated prefill goes GA": {
                "inbox/mara/2026-10-09T1130-mara-serving-notes.md", "inbox/ravi/2026-10-09T1620-ravi-links.md"},
            "Hydra vs vLLM vs SGLang on H200": {"inbox/mara/2026-10-09T1130-mara-serving-notes.md"},
            "A Taxonomy of KV-Cache Eviction Policies": {"inbox/mara/2026-10-09T1130-mara-serving-notes.md"},
        },
    ),
    "zh_pseudo_headings": (
        {
            "inbox/mara/2026-10-09T1130-mara-reading-zh.md": """# 周三阅读 · 10/09

一、Kestrel 2.0 正式发布（官方工程博客）
来源：https://kestrel-serve.dev/blog/kestrel-2-0
- prefill 与 decode 拆成两个池（PD 分离），KV cache 通过 RDMA 传输；70B 模型 256 并发下 TTFT p99 降 38%。

二、Hydra 与 vLLM、SGLang 在 H200 上的吞吐实测
- 突发流量下 Hydra 吞吐比 vLLM 高 22%；平稳流量下三者差距在 3% 以内，领先只在突发流量成立。

三、KV Cache 驱逐策略分类法（OpenReview 预印本）
- https://openreview.net/forum?id=Xk3vQ9aB2c ，按信号类型（注意力、时间、学习）整理 40 种 KV cache 驱逐策略，面向推理服务。

四、重读 vLLM PagedAttention 文档（不是论文）
- 给新同学的入门材料：vLLM block table、KV cache 写时复制、block size 16。

五、galahad-kv 0.2 发布
- 官方博客 https://galahad-kv.dev/blog/0-2 ：KV cache NVMe 持久化接入 vLLM，prefill 阶段复用命中的前缀块。
""",
            "inbox/ravi/2026-10-09T1620-ravi-links-zh.md": """# 链接

### Kestrel 2.0 上线了
- 官方公告 https://kestrel-serve.dev/blog/kestrel-2-0 ：decode 池可以独立扩缩，KV cache 走 RDMA。
""",
            "inbox/ravi/2026-10-09-agents-e1prep.md": """# agents 预备

### 智能体框架 TaskLoom 1.0 发布
- 官方博客 taskloom.ai/blog/1-0：多智能体 planner，工具调用，MCP 接入；推理后端用 vLLM。
""",
        },
        {
            "Kestrel 2.0 正式发布": {
                "inbox/mara/2026-10-09T1130-mara-reading-zh.md", "inbox/ravi/2026-10-09T1620-ravi-links-zh.md"},
            "Hydra 与 vLLM、SGLang 在 H200 上的吞吐实测": {"inbox/mara/2026-10-09T1130-mara-reading-zh.md"},
            "KV Cache 驱逐策略分类法": {"inbox/mara/2026-10-09T1130-mara-reading-zh.md"},
        },
    ),
    "numbered_bare_domains": (
        {
            "inbox/ines/2026-10-09T0930-ines-reading.md": """# Morning reading

### 1. TernServe v3 now generally available
Where: ternserve.io/blog/v3-ga (the project's own engineering blog).
Speculative decoding is on by default; decode is 1.8× faster on Qwen3-32B according to the post.

### 2. Throughput shoot-out: LMDeploy against TensorRT-LLM
On chat traffic with long shared prefixes LMDeploy is 1.4× faster than TensorRT-LLM.
With short independent prompts TensorRT-LLM is ahead by 9%, so the result depends on the traffic.

### 3. Serving-system taxonomy (SSRN working paper)
papers.ssrn.com/sol3/papers.cfm?abstract_id=4812345 sorts LLM inference engines (vLLM, SGLang, TensorRT-LLM)
by batching, KV-cache placement and scheduling policy.

### 4. Mooncake Transfer Engine 0.3 release
The KV cache transfer engine for prefill/decode disaggregation adds a TCP fallback for vLLM and SGLang
clusters without RDMA; see github.com/kvcache-ai/Mooncake/releases.

### 5. Primer on continuous batching (re-read for the team)
An explainer we keep for onboarding: iteration-level scheduling in vLLM and SGLang, why padding wastes GPU
compute, where chunked prefill fits in.
""",
            "inbox/olu/2026-10-09T1610-olu-links.md": """# Links

### TernServe v3 announcement
- ternserve.io/blog/v3-ga: v3 ships a paged KV allocator and turns speculative decoding on by default.
""",
            "inbox/olu/2026-10-09-agents-e1prep.md": """# Agents prep

### TaskLoom 1.0 launched: a multi-agent planner with tool use
- Official blog: taskloom.ai/blog/1-0. The planner schedules agent tool calls; MCP servers plug in.
- It runs its agents on vLLM.
""",
        },
        {
            "TernServe v3 now generally available": {
                "inbox/ines/2026-10-09T0930-ines-reading.md", "inbox/olu/2026-10-09T1610-olu-links.md"},
            "Throughput shoot-out: LMDeploy against TensorRT-LLM": {"inbox/ines/2026-10-09T0930-ines-reading.md"},
            "Serving-system taxonomy": {"inbox/ines/2026-10-09T0930-ines-reading.md"},
        },
    ),
}


def _workspace(tmp_path: Path, style: str) -> Path:
    root = tmp_path / "ws"
    make_workspace(root, also_anchored=HELD)
    for path, text in STYLES[style][0].items():
        write_file(root, path, text)
    return root


def _brief(settings: Settings, root: Path) -> dict[str, Any]:
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    window = window_of(topic, dt.date.fromisoformat(DAY))
    return json.loads(render_briefing(settings, ref, topic, window)[1])


def _increments(settings: Settings, root: Path, held: list[str] | None) -> tuple[list[Paper], WindowData, Topic]:
    """The window's engineering increments, the document's names as of the cutoff replaced by `held`
    when given."""
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    window = window_of(topic, dt.date.fromisoformat(DAY))
    with session_scope(get_engine(settings)) as session:
        data = collect_window(session, ref.id, topic.name, window, topic.schedule)
    assert data.knowledge is not None
    names = doc_names(doc_sections(data.knowledge.sections, window.date, True, topic.judgment)) if held is None else held
    return engineering_increments(data, topic, names, judge_window(data, topic)), data, topic


def _match(ours: str, theirs: str) -> bool:
    return fuzz.token_set_ratio(normalise(ours), normalise(theirs)) >= 80


@pytest.mark.parametrize("style", sorted(STYLES))
def test_engineering_increments_by_signal(style: str, clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    wanted = STYLES[style][1]
    found = [i for i in _brief(settings, _workspace(tmp_path, style))["increments"] if i["status"] == "engineering"]
    titles = [i["title"] for i in found]
    for name, sources in wanted.items():
        (match,) = [i for i in found if _match(i["title"], name)] or [None]
        assert match is not None, (name, titles)
        assert match["arxiv_id"] is None and set(match["primary_sources"]) == sources, (name, match, titles)
    # Nothing else: the held, other-topic and background entries are not increments.
    assert len(found) == len(wanted), titles


@pytest.mark.parametrize("style", sorted(STYLES))
def test_negatives_are_dropped_for_their_reason(style: str, clean_db: Engine, settings: Settings,
                                                tmp_path: Path) -> None:
    held, foreign, background = NEGATIVES[style]
    root = _workspace(tmp_path, style)
    as_of_cutoff, data, topic = _increments(settings, root, None)
    nothing_held, _, _ = _increments(settings, root, [])
    titles = [p.title for p in as_of_cutoff]
    # The document's body holds it as of the cutoff: dropped; with a document that does not, it is found.
    assert not [t for t in titles if _match(t, held)], titles
    assert [p for p in nothing_held if _match(p.title, held)], [p.title for p in nothing_held]
    # Another topic's release and a background re-read are never increments, whatever the document holds.
    for name in (foreign, background):
        assert not [p for p in nothing_held if _match(p.title, name)], name
    # Each is dropped for its own reason: the held and background ones are the topic's own.
    for name in (held, foreign, background):
        entries = [e for e in data.entries if e.title and _match(e.title, name)]
        decision = decide(gather_entries(entries, data, topic), topic)
        assert entries, name
        if name == foreign:  # another topic's evidence, and not this topic's
            assert decision.verdict is Verdict.NONE and max(decision.scores.values()) > decision.scores.get(topic.name, 0)
        else:
            assert decision.owner == topic.name, name
