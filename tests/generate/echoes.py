"""Generated evenings for three mistakes of reading a claim's context (issue 46, points 5 and 6).

- An earlier briefing's summary block pasted into an ordinary note, as one paragraph or a list
  ("增量条数：… 最高价值条目：… 矛盾/待核实：…", "Increments: … Most valuable: …"), with no briefing
  marker words: it raises no pending item and no increment; the rest of the note still counts.
- A note laid out as a briefing (一、检查过的来源清单 … 五、摘要, or "## 1. Sources checked" …) with no
  marker words: an echo, whose increments are not the window's.
- A release promised for a date that has passed, raised in one Chinese and one English note: one
  item with both sources.
- Two comparisons of the same engines under different conditions (three engines on independent
  requests; two engines after a weight change): no 矛盾. The same comparison under the same
  conditions with different figures: one.

Names are made up; `lang` picks the language of the notes that have one of each.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.generate.documents import KNOWLEDGE, anchored
from tests.generate.files import write_file

DAY = dt.date(2026, 11, 18)
TOPIC = "inference"
OWN = "Quokka Serve"  # the ordinary note's own pending claim
ECHOED = "vLLM prefix caching"  # named only in a pasted summary block's 矛盾/待核实 field
ECHOED_ID = "2611.04417"  # named only in a pasted summary block
LAID_OUT = "Vortex Router"  # an increment of a note laid out as a briefing
LAID_OUT_ID = "2611.05521"
RELEASE = "Kestrel"  # promised for a month that has passed, in both languages


def _doc() -> str:
    july = dt.date(2026, 7, 14)
    return (f"# {TOPIC} · 知识活文档\n\nversion: v1 · updated: {DAY - dt.timedelta(days=1)} 12:00 · citations: 10\n\n"
            "## §1 现状\n\n" + anchored("vLLM", july, ["2309.06180"], "：PagedAttention，开源 serving 事实标准。") + "\n")


_FIELDS = {
    "zh": ["增量条数：3 条（1 条 NET-new arXiv + 2 条工程新增）",
           f"最高价值条目：Harrier Cache（arXiv:{ECHOED_ID}）——板级 KV offload",
           f"矛盾/待核实：{ECHOED} 前缀缓存命中率异常（T1）；口径待核实",
           f"下次跟进重点：{ECHOED} issue 结论"],
    "en": ["Increments: 3 (1 NET-new arXiv + 2 engineering)",
           f"Most valuable: Harrier Cache (arXiv:{ECHOED_ID}): board-level KV offload",
           f"Contradictions / to verify: {ECHOED} prefix-cache hit rate drop (T1), unverified",
           f"Follow up next: the {ECHOED} issue"],
}


def _summary(lang: str, listed: bool) -> str:
    """An earlier briefing's summary block, as a list or as one paragraph."""
    fields = _FIELDS[lang]
    return "\n".join(f"- {f}" for f in fields) if listed else " ".join(fields)


def pasted(lang: str, listed: bool) -> str:
    """An ordinary note (no briefing marker anywhere) with its own hedged claim and a pasted summary."""
    if lang == "zh":
        return f"""# Jay · 推理工程笔记 · {DAY}

## 条目#1 {OWN}：推理 serving 的分层 KV 调度

- 新版本把 KV cache 在 HBM 和 DRAM 之间按热度迁移，推理 serving 吞吐提升。
- ⚠ 待核实：博文没写迁移的触发条件，热度阈值是否可调不清楚。

## 条目#2 顺手记一下

昨天那份简报的摘要贴在这里备查：

{_summary("zh", listed)}
"""
    return f"""# Jay · inference engineering notes · {DAY}

## Entry 1 - {OWN}: tiered KV scheduling for inference serving

- The new version moves KV cache between HBM and DRAM by heat; inference serving throughput goes up.
- Needs verification: the post does not say what triggers a move, or whether the heat threshold can be set.

## Entry 2 - kept for reference

Yesterday's briefing summary, pasted for reference:

{_summary("en", listed)}
"""


def laid_out(lang: str) -> str:
    """A note with a briefing's section numbering and no briefing marker."""
    if lang == "zh":
        return f"""# Tom · inference · {DAY - dt.timedelta(days=1)}

一、检查过的来源清单
| 来源 | 内容摘要 | 可信度 |
|---|---|---|
| 外部：Vortex 博客 | 路由层 | ⭐⭐⭐⭐ |

二、今日该主题最重要的增量（1 条）

增量 1 · 🟢 NET-new arXiv · {LAID_OUT}：推理 serving 的 KV 感知路由（arXiv:{LAID_OUT_ID}）
来源：arXiv listing
要点： - 按前缀命中率把请求路由到推理实例，TTFT -30% - 已开源，官方 release v1.0
建议归入：§1.1 框架格局

三、值得警惕的矛盾或待核实说法（0 条）

四、可引用的 arXiv 号列表
| arXiv 号 | 标题 | 关联节 |
|---|---|---|
| {LAID_OUT_ID} | {LAID_OUT} | §1.1 |
"""
    return f"""# Tom · inference · {DAY - dt.timedelta(days=1)}

## 1. Sources checked
| Source | Summary | Credibility |
|---|---|---|
| external: Vortex blog | routing layer | ⭐⭐⭐⭐ |

## 2. Most important increments today (1)

### Increment 1 · 🟢 NET-new arXiv · {LAID_OUT}: KV-aware routing for inference serving (arXiv:{LAID_OUT_ID})
- Routes requests to inference instances by prefix hit rate; TTFT -30%. Open-sourced, official release v1.0.

## 3. Contradictions and claims pending verification (0)

## 4. Citable arXiv ids
| arXiv id | Title | Section |
|---|---|---|
| {LAID_OUT_ID} | {LAID_OUT} | §1.1 |
"""


def promised_zh() -> str:
    return f"""# Jay · 晚间推理简报 · {DAY}

## 条目#2 {RELEASE}：推理 serving 的投机解码引擎

- 作者在 README 里写：**团队计划于 2026-10-20 发布 {RELEASE} v1 的开源实现**
- 已经 11 月了，repo 里还没有 release 分支。
"""


def promised_en() -> str:
    return f"""# spark · llm-infra E1 prep · {DAY}

## Carry-over C1 - {RELEASE}: a speculative-decoding engine for inference serving

- Per its README, {RELEASE} v1 (speculative decoding for inference serving) is expected to be released by Oct 20, 2026.
- No release branch yet as of today.
"""


_SETUPS = {
    "zh": ("vLLM vs LMDeploy vs SGLang 三个引擎，H100，50 并发独立请求：SGLang 吞吐领先 vLLM {v}。",
           "换成 FP8 权重后只比 SGLang 和 vLLM 两个引擎：SGLang 吞吐领先 vLLM {v}。"),
    "en": ("Three engines, vLLM vs LMDeploy vs SGLang, H100, 50 concurrent independent requests: SGLang throughput "
           "leads vLLM by {v}.",
           "After switching to FP8 weights, only SGLang and vLLM: SGLang throughput leads vLLM by {v}."),
}


def measured(lang: str, same_conditions: bool) -> tuple[str, str]:
    """Two notes comparing SGLang with vLLM (3% and 29%): under different conditions (three engines on
    independent requests; two engines after a weight change), or both under the first."""
    first_setup, other_setup = _SETUPS[lang]
    second_setup = first_setup if same_conditions else other_setup
    head = "条目#1 SGLang vs vLLM" if lang == "zh" else "Entry 1 - SGLang vs vLLM"
    return (f"# Jay · {DAY}\n\n## {head}（Medium）\n\n- {first_setup.format(v='3%')}\n",
            f"# Tom · {DAY}\n\n## {head}（blog）\n\n- {second_setup.format(v='29%')}\n")


def write_workspace(root: Path, lang: str, listed: bool = False, same_conditions: bool = False) -> None:
    first, second = measured(lang, same_conditions)
    files = {
        f"{KNOWLEDGE}/{TOPIC}.md": _doc(),
        f"inbox/jay/{DAY}T1500-jay-notes.md": pasted(lang, listed),
        f"inbox/tom/{DAY}T1000-tom-inference.md": laid_out(lang),
        f"inbox/jay/{DAY}T2000-jay-evening.md": promised_zh(),
        f"inbox/spark/{DAY}-llm-infra-e1prep.md": promised_en(),
        f"inbox/jay/{DAY}T1600-jay-compare.md": first,
        f"inbox/tom/{DAY}T1700-tom-compare.md": second,
    }
    for rel, text in files.items():
        write_file(root, rel, text)
