"""Contract: an engineering increment is one thing.

On notes this test writes into the 2026-10-09 window of the generated ten-day workspace
(tests/generate/ten_days.py, whose notes name papers only; Chinese and English, numbered and headed):
- two numbered entries of one note that share only their platform (vLLM: its name, its docs and
  repository links) are two increments;
- two numbered entries of one note are one increment when the note says so: "条目#1 + #2 合成一条"
  in its summary, or "same item as #1" in the second entry;
- the same system written up by two notes (one English, one Chinese, one with the announcement's
  link) is one increment naming both notes.
And the rules underneath (tasks.increments.identity), on names and links made up here: a shared
platform word or platform link is no identity, a shared coined name or page link is; two names
stating different versions are two releases (in the window and against the knowledge document).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.inbox.notes import parse_note
from tasks.increments.candidates import Judged, note_candidates
from tasks.increments.engineering import other_release
from tasks.increments.identity import context_words, identifying_links, same_name
from tasks.model.window_views import EntryView
from tasks.verify.names import names_of
from tests.generate.files import write_file
from tests.generate.ten_days import make_workspace
from tests.helpers import briefing_json

DAY = dt.date(2026, 10, 9)
J = default_judgment()
CONTEXT = context_words(("vLLM", "SGLang", "KV cache", "inference"), J)
N = names_of(J)

NOTES = {
    # Two things on one platform.
    "inbox/mara/2026-10-09T0930-mara-vllm-notes.md": """# vLLM 跟踪 · 10/09

条目#1 · Kimi K3 on vLLM
- 官方博客 https://blog.vllm.ai/2026/10/09/kimi-k3-day-0.html ，仓库 https://github.com/vllm-project/vllm
- vLLM 0.12 首发支持 Kimi K3；我们实测 8×H200 上 decode 比 vLLM 0.11 快 1.3×。

条目#2 · Tiered KV cache offloading in vLLM
- 官方文档 https://docs.vllm.ai/en/latest/ ，仓库 https://github.com/vllm-project/vllm
- vLLM 0.12 发布，新增分层 KV cache offloading：先落 CPU 内存再落 NVMe，长对话 TTFT p99 降 30%。
""",
    # One thing in two entries, joined by the note's summary.
    "inbox/ravi/2026-10-09T1015-ravi-sglang.md": """# SGLang notes

条目#1 · Larkspur router 1.0 released
- Official blog: https://larkspur.dev/blog/router-1-0, a cache-aware router for SGLang fleets.

条目#2 · Larkspur prefix-affinity numbers
- Our benchmark on 16×H100: TTFT p99 down 41% against round-robin routing, throughput up 1.5×.

---

### 小结
- 条目#1 + #2 合成一条，建议进 E1。
""",
    # One thing in two entries, joined by the second entry itself.
    "inbox/ines/2026-10-09T1100-ines-reading.md": """# Morning reading

1. Falconet 3.0 generally available
Where: https://falconet.io/blog/3-0-ga, the project's own engineering blog.
Speculative decoding on by default; decode 1.8× faster than Falconet 2.4 on Qwen3-32B.

2. Falconet 3.0 paged allocator
Same item as #1: the release also ships a paged KV allocator, 20% less KV cache memory at 128k context.
""",
    # One system in two notes.
    "inbox/olu/2026-10-09T1400-olu-links.md": """# Links

## Kestrel 2.0: disaggregated prefill goes GA
- Official announcement: https://kestrel-serve.dev/blog/kestrel-2-0
- Prefill and decode pools split across nodes, KV blocks over RDMA; TTFT p99 down 38% at 256 concurrent requests.
""",
    "inbox/mara/2026-10-09T1600-mara-reading-zh.md": """# 下午阅读

### Kestrel 2.0 正式发布
- 官方工程博客：prefill 与 decode 拆成两个池（PD 分离），KV cache 走 RDMA；70B 模型 TTFT p99 降 38%。
""",
}


def _engineering(settings: Settings, tmp_path: Path) -> list[dict[str, Any]]:
    root = tmp_path / "ws"
    make_workspace(root)
    for path, text in NOTES.items():
        write_file(root, path, text)
    data = briefing_json(settings, root, "inference", DAY)
    return [i for i in data["increments"] if i["status"] == "engineering" and set(i["sources"]) & set(NOTES)]


def _labels(increment: dict[str, Any], path: str) -> list[str | None]:
    return sorted(e["label"] for e in increment["entries"] if e["path"] == path)


def test_each_increment_is_one_thing(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    found = _engineering(settings, tmp_path)
    by_title = {i["title"]: i for i in found}
    vllm, sglang, reading = list(NOTES)[:3]
    # Two things on one platform: two increments, each holding its own entry only.
    kimi, tiered = by_title.get("Kimi K3 on vLLM"), by_title.get("Tiered KV cache offloading in vLLM")
    assert kimi and tiered, sorted(by_title)
    assert _labels(kimi, vllm) == ["条目#1"] and _labels(tiered, vllm) == ["条目#2"]
    # Joined by the note: one increment with both entries.
    (larkspur,) = [i for i in found if i["title"].startswith("Larkspur")]
    assert _labels(larkspur, sglang) == ["条目#1", "条目#2"]
    (falconet,) = [i for i in found if i["title"].startswith("Falconet")]
    assert _labels(falconet, reading) == ["1", "2"]
    # One system in two notes: one increment naming both.
    (kestrel,) = [i for i in found if i["title"].startswith("Kestrel")]
    assert set(kestrel["primary_sources"]) == set(list(NOTES)[3:]), kestrel
    assert len(found) == 5, sorted(by_title)


def test_a_shared_platform_name_is_context_a_shared_coined_name_is_identity() -> None:
    assert not same_name("Kimi K3 on vLLM", "vLLM", CONTEXT, N)  # one names more than the platform
    assert not same_name("PyTorch 2.9", "PyTorch 2.9 FlexAttention decode", CONTEXT, N)  # a platform of the judgment
    assert same_name("vLLM 0.12", "vLLM 0.12 release", CONTEXT, N)  # both are about the platform itself
    assert same_name("Tiered KV cache offloading in vLLM", "vLLM tiered KV cache offloading", CONTEXT, N)
    assert same_name("QuuxCache", "QuuxCache 调度器 on SGLang", CONTEXT, N)
    assert same_name("Kimi K3 on vLLM", "vLLM", frozenset(), N)  # without context the name match stands


def test_a_platform_home_is_no_identity_a_page_is() -> None:
    links = ["github.com/vllm-project/vllm", "github.com/vllm-project/vllm/releases", "docs.vllm.ai/en/latest/",
             "vllm.ai", "github.com/vllm-project/vllm/pull/31337", "blog.vllm.ai/2026/10/09/kimi-k3-day-0.html",
             "github.com/acme/kestrel", "kestrel-serve.dev/blog/kestrel-2-0"]
    assert identifying_links(links, CONTEXT, J) == set(links[4:])



SECTIONED = """# 工程方向 e1prep · 10/09

## 条目#1 Wrenfall tiered KV offloading（承接 10:50 索引）

### 机制
- Wrenfall 0.4 把 KV cache 从 GPU 显存分层下沉到 CPU 内存和本地 NVMe，运行时动态调度。

### 数字（官方博文）
- 128K 多轮对话 trace 上可服务会话数 3.4×；TTFT P50 基本持平，P99 +12%。

### 未解决
- 博文没说三层之间的调度触发条件。

## 条目#2 Kimi K3 on vLLM 2.8×
- vLLM 博客：比首个支持 K3 的 nightly 快 2.8×。
"""


def test_label_sub_headings_are_parts_of_the_thing_their_section_names() -> None:
    # "### 机制 / 数字 / 未解决" name nothing: they are parts of what "## 条目#1 Wrenfall …" names.
    views = [EntryView(1, "inbox/mara/n.md", "note", k, e.label, e.heading_path, e.title, e.text, ())
             for k, e in enumerate(parse_note(SECTIONED).entries)]
    cands = note_candidates(views, Judged(frozenset(), {}), CONTEXT, J)
    assert [(c.title, [e.title for e in c.entries]) for c in cands] == [
        ("Wrenfall tiered KV offloading", ["机制", "数字（官方博文）", "未解决"]),
        ("Kimi K3 on vLLM 2.8×", ["Kimi K3 on vLLM 2.8×"]),
    ]


def test_another_version_is_another_release() -> None:
    assert other_release("SGLang v0.6", "SGLang v0.5.30")
    assert other_release("Kestrel 2.0 is out", "Kestrel 3.1")
    assert not other_release("SGLang v0.6", "SGLang 0.6 release notes")
    assert not other_release("SGLang v0.6", "SGLang")  # a name without a version says nothing of it
