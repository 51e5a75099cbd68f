"""A deterministic workspace generator for replaying consecutive days.

`write_day(root, day_index)` writes what the team wrote on day `day_index` (1-based, from START):
one note per day naming the paper PAPER (so it is in every window), hedges, a settling note, a
promise and its fulfilment, and the knowledge document as it stood after that day's noon update
(PAPER is anchored from day ANCHOR_DAY on). Nothing depends on the clock or on randomness (mtimes
are the write time: tests/generate/files.py).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.generate.documents import KNOWLEDGE, anchored, cited
from tests.generate.files import write_file

START = dt.date(2026, 11, 1)
TOPIC = "inference"
PAPER = "2611.00010"  # anchored in the knowledge document on day ANCHOR_DAY
ANCHOR_DAY = 3
SETTLED = "2611.00020"  # hedged on day 1, settled on SETTLE_DAY
SETTLE_DAY = 5
STALE_NAME = "QuokkaServe 调度器"  # a named subject hedged on day 1 (and again on day 4), never settled
PROMISE_NAME = "KVPipe 发布计划"  # promised for PROMISE_DUE on day 2, kept on PROMISE_KEPT_DAY
PROMISE_DUE = dt.date(2026, 11, 5)
PROMISE_KEPT_DAY = 9
EVIDENCE = "作者仓库的 benchmark 表与正文一致"


def day_of(index: int) -> dt.date:
    """The calendar date of day `index` (day 1 is START)."""
    return START + dt.timedelta(days=index - 1)


def _knowledge(index: int) -> str:
    day = day_of(index)
    july = dt.date(2026, 7, 14)
    paper = (anchored("PagedFoo", day_of(ANCHOR_DAY), [PAPER], "：KV cache 分页调度，吞吐提升。") + "\n"
             if index >= ANCHOR_DAY else "")
    return (
        f"# {TOPIC} · 知识活文档\n\nversion: v{index} · updated: {day.isoformat()} 12:00 · citations: {10 + index}\n\n"
        "## §1 现状\n\n### §1.1 框架格局\n\n"
        + anchored("vLLM", july, ["2309.06180"], "：PagedAttention，开源 serving 事实标准。") + "\n"
        + anchored("Dynamo", dt.date(2026, 9, 1), text="：数据中心级编排。") + "\n\n"
        "### §3.2 KV Cache 驱逐策略\n\n"
        + anchored("H2O", july, ["2306.14048"], "：注意力质量驱逐。") + "\n" + paper + "\n"
        "### §4.1 投机解码\n\n"
        + anchored("EAGLE", july, ["2401.15077"], "：draft 头。") + "\n\n"
        "## References\n\n" + cited("2401.08671", july, "DeepSpeed-FastGen") + "\n"
    )


def _note(index: int) -> str:
    day = day_of(index)
    parts = [f"# Inference 笔记 · {day.isoformat()}\n",
             f"## 条目1 · PagedFoo: Paging KV Cache for Serving（arXiv:{PAPER}）\n\n"
             f"- KV cache 分页调度，vLLM 上吞吐提升；第 {index} 天继续跟进。\n"]
    if index == 1:
        parts.append(f"## 条目2 · SpecBar: Speculative Decoding at Scale（arXiv:{SETTLED}）\n\n"
                     "- 投机解码吞吐 2.5×。\n- 待核实：2.5× 只在单卡上测过，多卡 serving 未验证。\n")
        parts.append(f"## 条目3 · {STALE_NAME}\n\n- 新的推理调度器，P99 延迟很低。\n"
                     "- **待核实**：延迟数字只给了 P99，没有测试条件。\n")
    if index == 2:
        parts.append(f"## 条目2 · {PROMISE_NAME}\n\n- KVPipe：KV cache 跨节点传输库，"
                     f"计划 {PROMISE_DUE.year}-{PROMISE_DUE.month:02d}-{PROMISE_DUE.day:02d} 开源。\n")
    if index == 4:
        parts.append(f"## 条目2 · {STALE_NAME}（复测）\n\n- 推理调度器复测：待核实，P99 仍无测试条件。\n")
    if index == SETTLE_DAY:
        parts.append(f"## 条目2 · SpecBar 复核（arXiv:{SETTLED}）\n\n"
                     f"- SpecBar 的 2.5× 投机解码吞吐已核实：{EVIDENCE}。\n")
    if index == PROMISE_KEPT_DAY:
        parts.append(f"## 条目2 · {PROMISE_NAME}\n\n- KVPipe 已开源，KV cache 传输库 v0.1 发布在 GitHub。\n")
    return "\n".join(parts)


def write_day(root: Path, index: int) -> list[Path]:
    """Write day `index`'s files under `root` (the knowledge document is rewritten); returns them."""
    day = day_of(index)
    note = write_file(root, f"inbox/jay/{day.isoformat()}T1000-jay-inference-notes.md", _note(index))
    doc = write_file(root, f"{KNOWLEDGE}/{TOPIC}.md", _knowledge(index))
    return [note, doc]


def write_conflict(root: Path, day: dt.date, paper: str = "2611.00030") -> tuple[str, str]:
    """Two notes on `day` giving conflicting throughput gaps for the same paper; returns their paths."""
    first, second = f"inbox/jay/{day.isoformat()}T0900-jay-bench.md", f"inbox/spark/{day.isoformat()}T1500-spark-bench.md"
    write_file(root, first, f"# Bench\n\n## 条目1 · FastGap: SGLang vs vLLM（arXiv:{paper}）\n\n"
               "- H100 上 SGLang 吞吐比 vLLM 高 29%。\n")
    write_file(root, second, f"# Bench 复测\n\n## 增量 1 · FastGap 复测（arXiv:{paper}）\n\n"
               "- 同一对比复测：SGLang 与 vLLM 吞吐差距只有 1–4%。\n")
    return first, second


# One engineering release written up in English on day 1 and in Chinese, under another name, on day 2.
KESTREL_EN = ("# Links\n\n## Kestrel 2.0: disaggregated prefill goes GA\n"
              "- Official announcement: https://kestrel-serve.dev/blog/kestrel-2-0\n"
              "- Prefill and decode pools split across nodes, KV blocks over RDMA; TTFT p99 down 38% at 256 "
              "concurrent requests.\n")
KESTREL_ZH = ("# 下午阅读\n\n### Kestrel 2.0 正式发布\n"
              "- 官方工程博客：prefill 与 decode 拆成两个池（PD 分离），KV cache 走 RDMA；70B 模型 TTFT p99 降 38%。\n")


def write_items_days(root: Path) -> Path:
    """Days 1 to 3, a contradiction on day 1, and the Kestrel release on days 1 (en) and 2 (zh): a
    pending item, a contradiction and an engineering increment for readers to give verdicts on."""
    for index in (1, 2, 3):
        write_day(root, index)
    write_conflict(root, day_of(1))
    write_file(root, f"inbox/olu/{day_of(1).isoformat()}T1400-olu-links.md", KESTREL_EN)
    write_file(root, f"inbox/mara/{day_of(2).isoformat()}T1600-mara-reading-zh.md", KESTREL_ZH)
    return root
