"""A generated workspace whose notes raise pending items the way the team writes them, in any heading style.

`write_workspace(root, style)` writes one evening (DAY) of notes in Chinese, English and both, with
the entries headed in `style` (one of STYLES: `##`, `###`, a `**bold**` line, a numbered "1." line,
a 「一、」 line) and with the markers notes put on headings (条目#2, "Increment 1 -", "[Nov 10]",
「附：」, "A1.", "（给 11:20 的 e1prep 用）"), section labels (「口径问题（重要）」, "Summary") and
source names (CSDN, a person). `EXPECTED` says, for each subject the notes raise, the name it must be
listed under, a word of its claim and the notes that raise it; `SETTLED` what a later note settles
and `UNSETTLED` what a settling line about another thing must leave pending.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.generate.documents import KNOWLEDGE, anchored, cited
from tests.generate.files import write_file

DAY = dt.date(2026, 11, 10)
TOPIC = "inference"
STYLES = ("##", "###", "bold", "numbered", "cjk")
_CJK_NUMBERS = "一二三四五六七八九十"

ZH = f"inbox/jay/{DAY}T1050-jay-inference-engineering-screening.md"
EN = f"inbox/lena/{DAY}T1400-lena-inference-reading.md"
MIXED = f"inbox/spark/{DAY}T1600-spark-inference-e1prep.md"
LATER = f"inbox/tom/{DAY}T1800-tom-inference-followup.md"

# name the item is listed under -> (a word of its claim, the notes raising it)
EXPECTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "vLLM Tiered KV Cache Offloading": ("40%", (ZH, EN, MIXED)),  # MIXED names it in Chinese
    "InferenceBench": ("62", (ZH,)),
    "SpecBench": ("2.1", (ZH,)),  # the hedged item names no thing: the item it is nested in does
    "FlashMLA": ("3000", (ZH,)),
    "DeepSeek": ("85%", (EN,)),
    "kv-offload-backend": ("main", (ZH,)),
    "ZedServe": ("P99", (MIXED,)),
    "QuokkaRoute": ("2.4", (MIXED,)),
}
SETTLED = ("QuokkaRoute",)  # a later note names it and says it is confirmed
UNSETTLED = ("kv-offload-backend",)  # a later confirmed line is about SGLang's issues, not this
# What no subject may be (or start with): labels, sources, templates and entry markers of the notes.
NOT_SUBJECTS = ("口径问题", "CSDN", "Summary", "附", "Increment", "条目", "[Nov", "A1", "Jay", "Action items",
                "Open questions", "给 11:20")


def heading(style: str, n: int, title: str) -> str:
    """An entry heading in `style`; the n-th entry of its note."""
    if style == "bold":
        return f"**{title}**"
    if style == "numbered":
        return f"{n}. {title}"
    if style == "cjk":
        return f"{_CJK_NUMBERS[n - 1]}、{title}"
    return f"{style} {title}"


def _note(title: str, style: str, entries: list[tuple[str, str]]) -> str:
    body = "\n\n".join(f"{heading(style, n, head)}\n\n{text.strip()}" for n, (head, text) in enumerate(entries, 1))
    return f"# {title}\n\n{body}\n"


def _doc() -> str:
    july = dt.date(2026, 7, 14)
    return (f"# {TOPIC} · 知识活文档\n\nversion: v1 · updated: {DAY - dt.timedelta(days=1)} 12:00 · citations: 10\n\n"
            "## §1 现状\n\n### §1.1 框架格局\n\n"
            + anchored("vLLM", july, ["2309.06180"], "：PagedAttention，开源 serving 事实标准。") + "\n"
            "\n## References\n\n" + cited("2401.08671", july, "DeepSpeed-FastGen") + "\n")


def write_workspace(root: Path, style: str) -> None:
    """The evening's notes, every entry headed in `style`."""
    files = {
        f"{KNOWLEDGE}/{TOPIC}.md": _doc(),
        ZH: _note("推理工程筛选", style, [
            ("条目#1 · Increment 1 - vLLM Tiered KV Cache Offloading",
             "- vLLM 的 tiered KV cache offloading 把冷 KV 分层放到 CPU 内存和本地 SSD，长上下文推理更省显存。\n"
             "- 官方博客称长上下文 TTFT 降低 40%，这个数字待核实：博客没有给测试负载。\n"
             "- 先不要当成已发生的事实写进文档。"),
            ("口径问题（重要）",
             "- InferenceBench 的 vLLM baseline：论文表 3 写 62 tok/s，官方 leaderboard 写 71 tok/s，口径不一致，待核实。\n"
             "- SpecBench 的 EAGLE-3 加速比：论文写 2.8×。\n"
             "  - 我们复现只有 2.1×，两处对不上，待核实。"),
            ("条目#2 · CSDN",
             "- CSDN 博客称 FlashMLA 在 H800 上有 ~3000 GB/s 内存带宽，这个带宽数字待核实，要对照官方 repo。"),
            ("附：筛选时顺手核对的几个 vLLM 配置项（给 11:20 的 e1prep 用）",
             "- `--kv-offload-backend` 在 vLLM 0.12 是否已合入 main，待核实。"),
        ]),
        EN: _note("Inference reading", style, [
            ("[Nov 10] Tiered KV Cache Offloading in vLLM (blog)",
             "- The vLLM blog post says tiered KV cache offloading cuts long-context TTFT by 40%.\n"
             "- Needs verification: the post gives no workload for the 40% number."),
            ("Summary",
             "- DeepSeek claims an 85% decode speed-up for its inference kernels (arXiv:160622148); "
             "unverified, the id does not parse."),
        ]),
        MIXED: _note("Spark inference prep（给 Jay）", style, [
            ("A1. ZedServe 推理调度器 (for the 18:00 briefing)",
             "- ZedServe 的 P99 TTFT 只有 120 ms，serving 压测没有给并发数，待核实。"),
            ("Action items",
             "- QuokkaRoute 路由器的 2.4× serving 吞吐 needs verification: only the vendor's blog reports it."),
            ("vLLM 分层 KV 卸载", "- vLLM 分层 KV 卸载：官方博客说长上下文 TTFT 降低 40%，没有给负载，待核实。"),
        ]),
        LATER: _note("推理跟进", style, [
            ("QuokkaRoute 路由器",
             "- QuokkaRoute 的 2.4× 吞吐已核实：作者仓库的 benchmark 表与博客一致。"),
            ("SGLang GitHub issues",
             "| 项目 | 结论 |\n|---|---|\n"
             "| SGLang GitHub issues | SGLang 的 `--kv-offload-backend` 回归已确认修复（与 vLLM 的 main 分支无关） |"),
        ]),
    }
    for rel, text in files.items():
        write_file(root, rel, text)
