"""Generators of truth-preserving variants of examples/workspace (used by test_variants.py).

Each generator takes a copy of the sample workspace (a directory) and rewrites or adds files the
way another author, tool or day would, without changing what is true about the papers: which are
NET-new for inference, which are anchored, which are only in the reference list, and the density.
They are programs over the sample's text, not edited copies, so they apply to any workspace laid
out the same way.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path

Variant = Callable[[Path], None]

# An arXiv id as notes write it (not a malformed one: those must stay as they are).
_ID = re.compile(r"(?:arXiv\s*[:：]\s*|https?://arxiv\.org/abs/|arxiv\.org/abs/)?(?<![\w./])(\d{4}\.\d{5})(v\d+)?(?![\d\w])",
                 re.I)
_ENTRY_HEAD = re.compile(r"^## 增量 (\d+) ·", re.M)
_NUMBERED = re.compile(r"^## 条目(\d+) · (.*)$", re.M)

ENGLISH = {
    "承接": "carried over", "卡片": "card", "今天建卡": "card created today", "建议": "Suggested",
    "主": "main", "副": "secondary", "不进 inference": "not for inference", "训练侧": "Training side",
    "保持 References": "keep in References", "昨天已锚": "anchored yesterday", "不新增": "nothing new",
    "卡片扫描": "Card scan", "主分类": "primary", "给 inference？": "for inference?", "是": "yes", "否": "no",
    "其余 8 张": "the other 8", "今天没有主分类 inference 的新卡。": "No new card with primary inference today.",
    "三条进 inference E1": "Three go to the inference E1", "底本": "Baseline", "今天": "today",
}


def _edit(path: Path, change: Callable[[str], str]) -> None:
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


def english_increments(root: Path) -> None:
    """(a) spark's Oct 7 prep note in English, with "Increment N" and "Hand-off HN" headings."""
    def change(text: str) -> str:
        text = _ENTRY_HEAD.sub(lambda m: f"## Increment {m.group(1)} ·", text)
        text = text.replace("## 给 Tom", "## Hand-off H1 · to Tom")
        for zh, en in sorted(ENGLISH.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(zh, en)
        return text
    _edit(root / "inbox/spark/2026-10-07-llm-infra-e1prep.md", change)


def restarting_numbers(root: Path) -> None:
    """(b) the Oct 9 deep-dive with `### 1.` headings that restart in each of two sections."""
    def change(text: str) -> str:
        heads = list(_NUMBERED.finditer(text))
        half = len(heads) // 2
        out, last = [], 0
        for k, m in enumerate(heads):
            out.append(text[last:m.start()])
            section = "" if k not in (0, half) else ("## Part A\n\n" if k == 0 else "## Part B\n\n")
            number = k + 1 if k < half else k - half + 1
            out.append(f"{section}### {number}. {m.group(2)}")
            last = m.end()
        return "".join(out) + text[last:]
    _edit(root / "inbox/jay/2026-10-09T1450-jay-inference-systems-deep-dive.md", change)


def url_ids(root: Path) -> None:
    """(c) every well-formed id in the notes written as an arxiv.org URL (abs, html, pdf; versions)."""
    forms = itertools.cycle(["https://arxiv.org/abs/{id}", "https://arxiv.org/html/{id}v2", "https://arxiv.org/pdf/{id}v1",
                             "arxiv.org/abs/{id}v3"])
    for note in sorted((root / "inbox").rglob("*.md")):
        raw = note.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the GB18030 note stays as it is
        note.write_text(_ID.sub(lambda m: next(forms).format(id=m.group(1)), text), encoding="utf-8")


EVAL_PREP = """# evaluation · E1 prep (2026-10-09)

Notes for the evaluation E1. Several of these look like inference at first glance.

## 增量 1 · LongJudge: Evaluating LLM Judges on 100K-token Inputs (arXiv:2610.09345)

- Long-input judges: inference over 100K tokens, latency per judgment on GPU.
- 已在 evaluation.md 锚定 (§2.1).

## 增量 2 · Self-Refine at Test Time (arXiv:2610.10517)

- Test-time inference loops; evaluation 已锚.

## 增量 3 · Radar table

| arXiv | name | note |
|---|---|---|
| 2610.08674 | JudgeBench-2 Inference Edition | evaluation, 已在 evaluation.md 锚定 |
| 2609.39334 | SpecScale | speculative decoding serving; 转 inference 线 |
| 2610.13101 | InferJudge: Judging Inference Quality | 已在 evaluation.md 锚定 |
"""

RAG_PREP = """# rag · E1 prep (2026-10-07)

下面几篇都已在 rag.md 锚定，inference 那边如果看到不用再收。

## 增量 1 · RAG-PIBench（arXiv:2610.08571）

- prompt injection detection for retrieval; served with vLLM at low latency in the experiments.
- 已在 rag.md 锚定。

## 增量 2 · HybridRetrieve（arXiv:2610.08463）和 QueryRewrite-R1（arXiv:2610.06120）

- late interaction retrieval; rag 已锚。
- QueryRewrite-R1 throughput on GPU reported; 归属 rag。
"""


def other_topic_prep(root: Path) -> None:
    """(d) prep notes of other topics that name window papers, some anchored in their own documents."""
    (root / "inbox/nina").mkdir(exist_ok=True)
    (root / "inbox/nina/2026-10-09-1200-nina-evaluation-e1prep.md").write_text(EVAL_PREP, encoding="utf-8")
    (root / "inbox/nina/2026-10-07-1200-nina-rag-e1prep.md").write_text(RAG_PREP, encoding="utf-8")


INFERENCE_WORDS = ["latency", "GPU", "throughput", "kernel", "scheduler", "decode", "H100", "router", "prefill",
                   "TTFT", "SLO", "KV cache", "FP8", "serving", "vLLM"]
TOPICS = ["agents", "rag", "evaluation", "training", "multimodal", ""]


def mixed_digest(root: Path) -> None:
    """(e) an HF-style digest of 15 mixed-topic papers, one line each, each line with one inference word."""
    for day in ("2026-10-07", "2026-10-09"):
        base = 20000 if day.endswith("07") else 21000
        lines = [f"# HF radar · {day}", "", "## Today's list", ""]
        for k, word in enumerate(INFERENCE_WORDS):
            label = TOPICS[k % len(TOPICS)]
            lines.append(f"- ▲{90 - k} · arXiv:2610.{base + k} · Paper {k} about {word} trade-offs" +
                         (f" · {label}" if label else ""))
        # The Oct 9 radar is even named for the topic: its lines are still each another topic's or nobody's.
        name = f"{day}-1300-hf-radar-{day}.md" if day.endswith("07") else f"{day}-1300-tom-inference-radar.md"
        (root / f"inbox/tom/{name}").write_text("\n".join(lines) + "\n", encoding="utf-8")


def dotted_cards(root: Path) -> None:
    """(g) cards with dotted file names and other-topic primaries, with and without inference as secondary."""
    cards = root / "organized/paper_cards"
    for card in sorted(cards.glob("17*.md")):
        card.rename(card.with_name(card.name.replace("-", ".", 1)))
    extra = {
        # An inference NET-new paper gets a card whose primary is another topic: still NET-new (主分类邻接).
        "1801.2609.39334.md": ("2609.39334", "SpecScale", "evaluation", "[inference, speculative-decoding]", "2026-10-09"),
        "1802.2610.04646.md": ("2610.04646", "SEIS: Self-Evolving Inference Systems", "llm-infra", "[inference]",
                               "2026-10-07"),
        # Other topics' papers amid inference prose, without inference as secondary: not NET-new.
        "1803.2610.09977.md": ("2610.09977", "RAGCache-Bench: caching retrieval for faster serving", "rag",
                               "[evaluation]", "2026-10-09"),
        "1804.2610.13555.md": ("2610.13555", "ClusterCkpt: Fast GPU Cluster Checkpoints", "llm-infra", "[storage]",
                               "2026-10-09"),
    }
    for name, (arxiv, title, primary, secondary, created) in extra.items():
        (cards / name).write_text(
            f'---\narxiv: "{arxiv}"\ntitle: "{title}"\nprimary: {primary}\nsecondary: {secondary}\ncreated: {created}\n---\n\n'
            f"**TL;DR** {title}: GPU throughput, latency and KV cache numbers, vLLM and SGLang baselines.\n",
            encoding="utf-8")
    _edit(root / "inbox/jay/2026-10-09T1450-jay-inference-systems-deep-dive.md", lambda t: t.replace(
        "### 小结",
        "## 条目6 · ClusterCkpt（arXiv:2610.13555）\n\n- GPU 集群 checkpoint：和 vLLM serving、KV cache 吞吐同一批机器，"
        "latency 数字很亮眼。\n\n### 小结", 1))


QUEUE_ROW = "| 16 | 2610.13101 | InferJudge: Judging Inference Quality | evaluation | inference | 新入队；inference latency 相关 |\n"


def queue_secondary_taken(root: Path) -> None:
    """Failure class 2: a queue row with primary evaluation, secondary inference, for a paper the
    evaluation prep note says it has anchored (not NET-new for inference)."""
    other_topic_prep(root)
    _edit(root / "organized/queue/work-queue.md",
          lambda t: t.replace("\n\n无主分类 inference 新增。", "\n" + QUEUE_ROW.rstrip("\n") + "\n\n无主分类 inference 新增。", 1))


def prose_around_llm_infra_card(root: Path) -> None:
    """Failure class 4: a card with primary llm-infra and no inference secondary, in a note whose
    neighbouring entries and rows are all inference."""
    cards = root / "organized/paper_cards"
    (cards / "1805-2610-13777.md").write_text(
        '---\narxiv: "2610.13777"\ntitle: "FabricNet: RDMA Fabrics for Training Clusters"\nprimary: llm-infra\n'
        'secondary: [networking]\ncreated: 2026-10-09\n---\n\n**TL;DR** RDMA fabric design for training clusters.\n',
        encoding="utf-8")
    _edit(root / "inbox/jay/2026-10-09T1450-jay-inference-systems-deep-dive.md", lambda t: t.replace(
        "- SpecScale：轻量级 LLM serving 框架",
        "- 相关：FabricNet（arXiv:2610.13777）的 RDMA 互联。\n- SpecScale：轻量级 LLM serving 框架", 1))


REVERSE_CARD = ('---\narxiv: "2610.13888"\ntitle: "KVSwap: Offloading KV Cache for Long-Context Serving"\n'
                'primary: {primary}\nsecondary: [inference, memory]\ncreated: 2026-10-09\n---\n\n'
                "**TL;DR** KV cache offload to host memory.\n")


def reverse_secondary_card(primary: str) -> Variant:
    """The reverse case: a card with primary `primary` and secondary inference, anchored nowhere,
    is NET-new for inference (主分类邻接). This adds one NET-new id: 2610.13888."""
    def make(root: Path) -> None:
        (root / "organized/paper_cards/1806-2610-13888.md").write_text(REVERSE_CARD.format(primary=primary),
                                                                       encoding="utf-8")
    return make
