"""Contract of the judgment pieces: engineering increments, suggested sections, ranking and density.

- engineering: a no-id entry of the topic, not confirmatory, whose signals reach the threshold (here
  a recommendation for E1, in itself or by a summary referring to its number, with a named release)
  becomes one increment, merged across sources by name, with its earlier mentions counted in
  days_seen; confirmatory, weakly signalled (a bare launch line) or already-documented ones do not
  (flooding is the failure to avoid); tests/briefing/test_engineering_variants.py covers other
  phrasings;
- sections: BM25 over the document as of the day, narrowed by an explicit hint (legacy §1.(n)
  mapped through the document's own table), naming the anchored neighbours;
- ranking: NET-new, engineering, adjacent; then independent sources, credibility, votes, primary;
- density: the documented rule, configurable per topic.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.judge.density import DensityRule, density_of, density_report
from tasks.judge.rank import rank_increments
from tasks.judge.sections import SectionIndex, doc_names, doc_sections, hinted_numbers, legacy_map
from tasks.model.judged import Paper
from tasks.stages.briefed_topics import density_rule_for, topics_for, window_of
from tasks.stages.briefings import render_briefing
from tests.helpers import ingest_all

DENSITY = DensityRule.of(default_judgment())

DAY = dt.date(2026, 11, 3)
DOC = """# inference · 知识活文档

version: v1 · updated: 2026-11-03 12:00 · citations: 3

## §0 旧编号对照

| 旧编号 | 主题 | 现节 |
|---|---|---|
| §1.(3) | KV Cache | §3 KV Cache 纪元 |

## §1 现状

### §1.1 框架格局

- **vLLM**（arXiv:2309.06180）：PagedAttention，serving 事实标准。[anchored 2026-07-14]
- **QuxServe 正式版**：多模型托管 serving 平台。[anchored 2026-10-01]
- **NanoFlow**：调度器新作。[anchored 2026-12-01]

## §3 KV Cache 纪元

### §3.2 驱逐策略

- **H2O**（arXiv:2306.14048）：注意力质量驱逐 KV cache。[anchored 2026-07-14]
- **SnapKV**（arXiv:2404.14469）：按窗口注意力选择 KV。[anchored 2026-07-20]

### §3.3 持久化

- **galahad-kv**：KV cache NVMe 持久化。[anchored 2026-10-09]
"""

NOTE_A = """# Engineering · 2026-11-03 R1

## 条目#1 · FooCache 发布：跨实例 KV cache 共享

- vLLM 插件，prefix cache 跨实例共享，TTFT 降低。
- 可信度：⭐⭐⭐⭐

## 条目#2 · BarTool 教程

- vLLM 部署教程，不进 inference.md 正文。

## 条目#3 · BazRouter 上线

- 新的 serving router，吞吐数据还没看。

## 条目#4 · QuxServe 正式版

- serving 平台 GA，建议进 E1。

### 本轮总结

| 条目 | arXiv | 建议 |
|---|---|---|
| #1 FooCache | — | E1 工程新增 |
| #2 BarTool | — | E1 |
"""

NOTE_B = """# llm-infra 预备 · 2026-11-03

## 增量 1 · FooCache 发布（KV cache 共享）

- 和 Jay 上午那条是同一个东西：vLLM 上 KV cache 跨实例共享；建议进 E1。
"""

EARLIER = """# 杂记 · 2026-11-01

## 条目#1 · FooCache 预告

- 听说有个 vLLM 的 KV cache 共享插件要出。
"""


def _workspace(root: Path) -> None:
    files = {
        "organized/knowledge/inference.md": DOC,
        "inbox/jay/2026-11-03T1000-jay-engineering.md": NOTE_A,
        "inbox/spark/2026-11-03-llm-infra-e1prep.md": NOTE_B,
        "inbox/jay/2026-11-01T1000-jay-misc.md": EARLIER,
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def _brief(settings: Settings, root: Path) -> tuple[str, dict[str, Any]]:
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    markdown, json_text = render_briefing(settings, ref, topic, window_of(topic, DAY))
    return markdown, json.loads(json_text)


def test_engineering_increments_need_a_recommendation_and_are_merged(
    clean_db: Engine, settings: Settings, tmp_path: Path
) -> None:
    _workspace(tmp_path)
    markdown, brief = _brief(settings, tmp_path)
    engineering = [i for i in brief["increments"] if i["status"] == "engineering"]
    assert [i["title"] for i in engineering] == ["FooCache 发布：跨实例 KV cache 共享"]
    (foo,) = engineering
    assert foo["primary_sources"] == ["inbox/jay/2026-11-03T1000-jay-engineering.md",
                                      "inbox/spark/2026-11-03-llm-infra-e1prep.md"]
    assert foo["earlier_sources"] == ["inbox/jay/2026-11-01T1000-jay-misc.md"]
    assert foo["first_seen"] == "2026-11-01" and foo["days_seen"] == 2
    assert foo["independent_sources"] == 2 and foo["credibility"] == 4
    assert foo["suggested_section"].startswith("§")
    assert "🟠 工程新增 · FooCache" in markdown
    assert brief["counts"]["engineering"] == 1  # BarTool (不进), BazRouter (a bare launch line), QuxServe (in the doc) are not


ADJACENT_ONLY = """# Radar · 2026-11-03

## A1. Ember-9：思考 token 压缩（官方博客 + 技术报告）

- 来源：官方博客，附技术报告 PDF（不在 arXiv）；首个在长思考模式下压缩思考 token 的方案。
- 思考 token 总量 -40%，decode 成本下降 35%。
- 归属：模型侧压缩；inference 只算邻接，不是推理引擎的 KV cache 压缩。
"""


def test_an_engineering_thing_only_adjacent_to_the_topic_is_no_increment(
    clean_db: Engine, settings: Settings, tmp_path: Path
) -> None:
    # Engineering increments are the topic's own (DESIGN: "owned by T"); an adjacent one is not one.
    (tmp_path / "organized/knowledge").mkdir(parents=True)
    (tmp_path / "organized/knowledge/inference.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "inbox/tom").mkdir(parents=True)
    (tmp_path / "inbox/tom/2026-11-03T2040-tom-radar.md").write_text(ADJACENT_ONLY, encoding="utf-8")
    _, brief = _brief(settings, tmp_path)
    assert [i["title"] for i in brief["increments"] if i["status"] == "engineering"] == []


def test_a_pasted_briefing_in_a_papers_entry_does_not_place_it(clean_db: Engine, settings: Settings,
                                                                 tmp_path: Path) -> None:
    """A paper's section comes from what the notes say of it, never from an earlier briefing pasted
    into the same entry (its summary block names another paper of another section)."""
    day = DAY.isoformat()
    files = {
        "organized/knowledge/inference.md":
            f"# inference\n\nversion: v9 · updated: {day} 12:00 · citations: 2\n\n## §1 Mixture of experts\n\n"
            "- **DeepMoE (arXiv:2201.05596)**: expert-parallel MoE inference. [anchored 2026-06-02]\n\n"
            "## §2 KV cache\n\n- **TileKV (arXiv:2610.09999)**: tile-granular KV cache eviction. [anchored 2026-06-03]\n",
        f"inbox/raj/{day}T1900-raj-evening.md":
            "# Evening\n\n## PagedMoE (arXiv:2611.02222)\n\n- Expert paging for MoE decode on H100: decode throughput up.\n\n"
            "---\n\nPasted below: last night's briefing.\n\n"
            "Increments: 2 (1 NET-new arXiv + 1 engineering)\n"
            "Most valuable: TileKV (arXiv:2610.09999): tile-granular KV cache eviction\n"
            "Contradictions / to verify: TileKV KV cache eviction is only tested on LongBench\n"
            "Follow up next: read TileKV KV cache eviction in full\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    _, brief = _brief(settings, tmp_path)
    (paged,) = [i for i in brief["increments"] if i.get("arxiv_id") == "2611.02222"]
    assert paged["suggested_section"].startswith("§1"), paged["suggested_section"]


def test_sections_bm25_hints_legacy_map_and_neighbours() -> None:
    raw = [
        {"number": "§0", "title": "旧编号对照", "level": 2,
         "text": "| 旧编号 | 主题 | 现节 |\n|---|---|---|\n| §1.(3) | KV Cache | §3 KV Cache 纪元 |"},
        {"number": "§1.1", "title": "框架格局", "level": 3,
         "text": "- **vLLM**：serving。[anchored 2026-07-14]\n- **NanoFlow**：调度器。[anchored 2026-12-01]"},
        {"number": "", "title": "Router 选型（子节，2026-10-08 新开）", "level": 4,
         "text": "- **Dynamic Routers**：路由失败模式。[anchored 2026-10-08]"},
        {"number": "§3.2", "title": "驱逐策略", "level": 3,
         "text": "- **H2O**：注意力质量驱逐 KV cache。[anchored 2026-07-14]\n- **SnapKV**：窗口注意力。[anchored 2026-07-20]"},
        {"number": "§3.3", "title": "持久化", "level": 3, "text": "- **galahad-kv**：KV cache NVMe 持久化。[anchored 2026-10-09]"},
    ]
    mapping = legacy_map(raw)
    assert mapping == {"§1.(3)": "§3"}
    assert hinted_numbers(["建议：§1.(3) KV Cache（主）；§1.(12)（副）"], mapping, default_judgment()) == ["§3"]
    sections = doc_sections(raw, dt.date(2026, 11, 3), True, default_judgment())
    assert [s.label for s in sections] == ["§1.1 框架格局", "§1.1 框架格局 › Router 选型", "§3.2 驱逐策略", "§3.3 持久化"]
    assert "NanoFlow" not in doc_names(sections)  # anchored after the day: not in the document yet
    index = SectionIndex(sections, mapping, default_judgment())
    found = index.suggest("行为保持的 KV cache 驱逐：注意力质量之外", ["建议：§1.(3) KV Cache（主）"])
    assert found is not None and found.section == "§3.2 驱逐策略" and found.basis == "hint"
    assert found.neighbours[0] == "H2O"
    by_text = index.suggest("KV cache 持久化到 NVMe")
    assert by_text is not None and by_text.section == "§3.3 持久化" and by_text.basis == "text"


def test_stop_words_place_nothing() -> None:
    """A query that shares only "of" and "with" with a short section and a content word with a long
    one goes to the long one (BM25 would otherwise favour the short section's stop words)."""
    raw = [
        {"number": "§1", "title": "Engines and serving", "level": 2,
         "text": "- **vLLM v0.14**: automatic prefix caching. [anchored 2026-10-14]\n"
                 "- **TensorRT-LLM v1.2**: FP8 KV cache, in-flight batching. [anchored 2026-10-02]\n"
                 "- **SGLang v0.5.40**: RadixAttention prefix sharing, FP8 decode kernels. [anchored 2026-10-26]"},
        {"number": "§2", "title": "Mixture of experts", "level": 2,
         "text": "- **DeepMoE**: expert-parallel inference with all experts resident. [anchored 2026-06-02]"},
    ]
    index = SectionIndex(doc_sections(raw, dt.date(2026, 11, 3), True, default_judgment()), {}, default_judgment())
    found = index.suggest("BatchWeave: SLO-aware batching of requests, with a scheduler on top of vLLM")
    assert found is not None and found.section == "§1 Engines and serving"


def _paper(key: str, status: str, **fields: Any) -> Paper:
    return Paper(arxiv_id=key if status != "engineering" else None, title=key, status=status, reason=(),
                 sources=[f"{key}.md"], entries=[], **fields)


def test_ranking_rule() -> None:
    papers = [
        _paper("adj", "adjacent", independent=5),
        _paper("eng", "engineering", independent=3),
        _paper("one", "net_new", independent=1, credibility=5),
        _paper("two", "net_new", independent=2),
        _paper("votes", "net_new", independent=1, credibility=5, votes=90),
        _paper("card", "net_new", independent=1, credibility=5, votes=90, primary="inference"),
        _paper("old", "already_anchored", independent=9),
    ]
    assert [p.title for p in rank_increments(papers, "inference")] == ["two", "card", "votes", "one", "eng", "adj"]


def test_density_rule_is_documented_and_configurable(tmp_path: Path, settings: Settings) -> None:
    assert [density_of(DENSITY, n) for n in (6, 3, 2, 1)] == ["high", "medium", "medium-low", "low"]
    # The extras together weigh less than one more NET-new paper: 5 NET-new stay below high.
    assert density_of(DENSITY, 5, engineering=7) == "medium" and density_of(DENSITY, 2, adjacent=6) == "medium-low"
    strict = DensityRule.from_mapping({"high": 8, "medium": 4, "engineering_weight": 0}, default_judgment().density)
    assert density_of(strict, 6, engineering=4) == "medium"
    report = density_report({"net_new": 3, "adjacent": 2}, [("a.md", "increments"), ("b.md", "confirmatory"),
                                                           ("c.md", "error")], DENSITY)
    assert report.level == "medium" and report.empty == ("b.md",) and report.errors == ("c.md",)
    assert "≥6 high" in report.rule
    (tmp_path / "organized" / "knowledge").mkdir(parents=True)
    (tmp_path / "predigest-topics.toml").write_text("[topics.inference.density]\nhigh = 8\n", encoding="utf-8")
    assert density_rule_for(settings, tmp_path, "inference").high == 8
    assert density_rule_for(settings, tmp_path, "rag") == DENSITY
