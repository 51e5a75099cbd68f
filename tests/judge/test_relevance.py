"""Contract of topic relevance (tasks.judge.relevance).

`judge_context` gives one verdict per context (a table row or an entry) for a topic:
- excluded when the source says the paper is not for this topic ("不进 inference",
  "非inference主轴", "不归 inference"), declares another known topic as its owner ("归属：agents",
  "主题 rag，转 rag 线"), or says it is unrelated ("…无关"); declaring this topic as owner
  ("归属：inference §1.11") is not an exclusion;
- adjacent when the source registers it as an adjacency (邻接 / adjacent) and names the topic's
  vocabulary;
- relevant when the context uses the topic's vocabulary (ASCII terms on word boundaries, so
  "serving" is not found in "observing");
- none otherwise.
Papers are judged by ownership instead (tests/judge/test_ownership.py); this verdict is for entries
that name no paper. The words come from tasks/config/judgment.toml.
"""

from __future__ import annotations

import pytest

from tasks.config.topics import Topic
from tasks.judge.relevance import ContextVerdict, Verdict, judge_context

TOPIC = Topic(
    name="inference", timezone="Asia/Shanghai", schedule="20 22 * * *",
    terms=("vLLM", "KV cache", "serving"), aliases=("inference",),
)
KNOWN = ["inference", "rag", "agents", "training"]


def judge(text: str) -> ContextVerdict:
    return judge_context(text, TOPIC, KNOWN)


# --- judge_context ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hit"),
    [
        ("在 vLLM 上实现，吞吐损失 <2%", "vLLM"),
        ("BP-KV: Behavior-Preserving KV Cache Compression", "KV cache"),
        ("Distributed LLM serving 的离散事件模拟器", "serving"),
        ("prefill/decode 分离的 serving 调度", "serving"),
        ("Inference-time compute 的调度", "inference"),
    ],
)
def test_relevant_by_term(text: str, hit: str) -> None:
    verdict = judge(text)
    assert verdict.verdict is Verdict.RELEVANT
    assert hit in verdict.hits


def test_terms_match_case_insensitively_and_across_spacing() -> None:
    assert judge("VLLM 0.11 发布").verdict is Verdict.RELEVANT
    assert judge("kv  cache 压缩").hits == ("KV cache",)


@pytest.mark.parametrize(
    "text",
    [
        "备注：agents 主题，不进 inference。",
        "Colibri：纯 C 实现的 MoE（不进 inference.md）",
        "归属：安全邻接，非 inference 主轴。",
        "ORCAGen 视频生成，非inference主轴",
        "无inference主轴，vLLM 只是实验平台",
        "这篇不归 inference，虽然用了 vLLM 做 serving",
        "与 inference 无关",
    ],
)
def test_excluded_when_source_says_not_this_topic(text: str) -> None:
    verdict = judge(text)
    assert verdict.verdict is Verdict.EXCLUDED
    assert verdict.hits == ()


@pytest.mark.parametrize(
    ("text", "owners"),
    [
        ("归属：agents（主）", "agents"),
        ("归属：agents（主），在 vLLM 上跑 tool calling", "agents"),
        ("归属：agents主线，vLLM 只是后端", "agents"),
        ("主题 rag，转 rag 线", "rag"),
        ("topic: training；用 vLLM 生成 rollout", "training"),
    ],
)
def test_excluded_when_another_known_topic_is_declared_owner(text: str, owners: str) -> None:
    verdict = judge(text)
    assert verdict.verdict is Verdict.EXCLUDED
    # the declared owner decides: the same words declaring this topic the owner are not excluded
    assert judge(text.replace(owners, "inference")).verdict is not Verdict.EXCLUDED


def test_unknown_owner_is_not_an_exclusion() -> None:
    # "归属：security" names no known topic, so the vocabulary still decides.
    assert judge("归属：security，vLLM 侧信道").verdict is Verdict.RELEVANT


def test_excluded_when_source_says_unrelated() -> None:
    verdict = judge("vLLM 插件生态调研，与本主题无关")
    assert verdict.verdict is Verdict.EXCLUDED
    assert judge("RAG 向量库选型，不收").verdict is Verdict.EXCLUDED


def test_declaring_this_topic_as_owner_is_not_excluded() -> None:
    verdict = judge("归属：inference §1.11")
    assert verdict.verdict is Verdict.RELEVANT
    assert "inference" in verdict.hits
    assert judge("归属：inference（主），rag 不收").verdict is Verdict.RELEVANT


def test_adjacent_with_adjacency_marker_and_a_term() -> None:
    verdict = judge("邻接：vLLM 调度侧的安全问题")
    assert verdict.verdict is Verdict.ADJACENT
    assert verdict.hits == ("vLLM",)
    assert judge("adjacent to KV cache work").verdict is Verdict.ADJACENT


def test_adjacency_marker_without_anything_tying_it_to_the_topic_is_none() -> None:
    assert judge("邻接：多模态检索").verdict is Verdict.NONE


@pytest.mark.parametrize(
    "text",
    [
        "GraphRAG 增量索引：图谱检索",
        "observing the system under load",  # "serving" inside "observing"
        "preserving semantics of the index",  # "serving" inside "preserving"
        "vLLMs-like naming without the term",  # "vLLM" followed by a letter
        "",
    ],
)
def test_none_when_nothing_ties_it_to_the_topic(text: str) -> None:
    verdict = judge(text)
    assert verdict.verdict is Verdict.NONE
    assert verdict.hits == ()


def test_negation_words_must_stand_alone() -> None:
    # "Nano"/"Piano" end in "no" but say nothing against the topic.
    assert judge("Nano inference engine on vLLM").verdict is Verdict.RELEVANT
    assert judge("not inference: a retrieval paper").verdict is Verdict.EXCLUDED
    assert judge("no inference content here").verdict is Verdict.EXCLUDED


