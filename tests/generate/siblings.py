"""Generated notes whose pending claims sit beside bullets that name other things.

Each entry raises one claim about its own thing, and a sibling bullet names another system: as a
contrast ("not to be confused with"), as a comparison baseline ("compares with X's setup"), in
passing (a list of benchmarks), or as the lead-in label of the bullet before ("作者在 README 里写：").
One appendix bullet points back at a claim above (「就是上面待核实的那一点」) and raises nothing.
`SUBJECTS` maps each entry's own name to a word of its claim; `SIBLINGS` are the names no item may
be listed under. Names are made up, so nothing but the notes' structure can tell them apart.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.generate.documents import KNOWLEDGE, anchored
from tests.generate.files import write_file

DAY = dt.date(2026, 11, 17)
TOPIC = "inference"
EN = f"inbox/spark/{DAY}-llm-infra-e1prep.md"
ZH = f"inbox/jay/{DAY}T2100-jay-evening-briefing.md"

SUBJECTS = {"Zephyr": "benchmark numbers", "Marlin Wave": "computable form", "K9X": "跳票",
            "BenchQuark": "分母不一致", "Tiered Spill Cache": "triggers demotion"}
SIBLINGS = ("Zephyrus", "Tortuga", "MLPerf", "Spheron", "作者在 README 里写", "eviction_policy", "spill-tiers")


def _doc() -> str:
    july = dt.date(2026, 7, 14)
    return (f"# {TOPIC} · 知识活文档\n\nversion: v1 · updated: {DAY - dt.timedelta(days=1)} 12:00 · citations: 10\n\n"
            "## §1 现状\n\n" + anchored("vLLM", july, ["2309.06180"], "：PagedAttention，开源 serving 事实标准。") + "\n")


def english(sep: str) -> str:
    """spark's prep, its hand-offs labelled "Hand-off H1 <sep> …" (a label no word list knows)."""
    return f"""# spark · llm-infra E1 prep · {DAY}

Written 18:40. Two increments, two hand-offs to the inference E1.

## Increment 1 - Tiered Spill Cache (vendor blog, 2026-11-02)

- The inference engine now spills KV cache from GPU HBM to CPU DRAM and local NVMe at runtime.
- Needs verification: the post does not say what triggers demotion between tiers (LRU, token
  importance or prefix sharing). There is an `eviction_policy` knob with only its default documented.

## Hand-off H1 {sep} Zephyr: Phase-Aware Attention for LLM inference serving

- Card created today; primary llm-infra, secondary inference (KV cache, long-context serving).
- Not to be confused with Zephyrus (the lossy speculative-decoding warning already in §4.1).
- Unverified: the card gives no benchmark numbers at all (no throughput, memory or context length).

## Hand-off H2 {sep} Marlin Wave: drafter feature selection for speculative decoding

- Where it would sit: §4.1 speculative decoding, as a method-level complement to
  Tortuga, EAGLE-3 and DFlash2 for inference.
- Needs verification: the computable form of its two criteria, its cost, and how it compares with
  Tortuga's setup (A100, Qwen2.5, GSM8K) are open.
"""


def chinese() -> str:
    """jay's evening briefing: 条目 headings, a label heading inside a paper's section, an appendix."""
    return f"""# Jay · 晚间五类简报 · {DAY}

## 一、KV 跨模型

### 条目#3 K9X：LLM 之间直接传 KV cache（推理 serving）

- 作者在 README 里写：**团队计划于 2026-10 发布 agent-managed KV cache 的推理 serving 实现**
- ⚠ 待核实：已经 11 月了，repo 里还看不到 release 分支；这个承诺有跳票的可能。

## 二、基准

## 条目#1 BenchQuark 推理基准完整 leaderboard

### 1.3 口径问题（重要）

- 和活文档里那些推理吞吐量基准（MLPerf、Spheron、各种 tok/s 表）不是一个维度的东西
- ⚠ 口径待核实：leaderboard 写"相对默认配置"，论文附录写"相对人工调优基线"，两处分母不一致。

## 附：顺手核对的配置项（给 e1prep 用）

- `spill-tiers`：取值 `gpu,cpu` 或 `gpu,cpu,nvme`
- `eviction_policy`：文档只写了默认值，没写可选值（就是上面待核实的那一点）
"""


def write_workspace(root: Path, sep: str = "-") -> None:
    files = {f"{KNOWLEDGE}/{TOPIC}.md": _doc(), EN: english(sep), ZH: chinese()}
    for rel, text in files.items():
        write_file(root, rel, text)
