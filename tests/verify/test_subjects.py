"""Contract of a pending item's subject (issue 22, parts 1 and 3), on notes the tests write themselves
(tests/generate/subjects.py: Chinese, English and mixed notes, five heading styles):

- a heading becomes text without its entry markers ("条目#2 ·", "Increment 1 -", "1.", "A1.", "一、",
  "[Sep 10]", 「附：」) and without a trailing aside about the note ("（给 11:20 的 e1prep 用）");
- a heading is a subject only when it names a thing: a section label (「口径问题（重要）」, "Summary",
  "Action items"), a source's name (CSDN, a blog, one of the workspace's people), template words and
  an appendix heading never are; the subject is then the thing the hedged line names;
- no listed subject or title is a label, a source's name or carries an entry marker, in any style;
- the same thing raised by an English and a Chinese note is one item with both sources, also when
  the Chinese note names it in Chinese (the same coined name questioned for the same figure);
  items stored with entry markers merge with the same thing;
- a claim next to a malformed id is listed under the thing it names; a questioned number under the
  benchmark's name;
- a settling line about another thing (SGLang's GitHub issues) leaves a vLLM question pending; one
  that names the subject resolves it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.inbox.notes import parse_note
from tasks.model.judged import StatusAsOf
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tasks.verify.items import figures, one_per_subject
from tasks.verify.markers import markers_of
from tasks.verify.subjects import entry_heading, heading_thing, line_thing, only_scaffolding
from tests.generate.subjects import (
    DAY,
    EN,
    EXPECTED,
    MIXED,
    NOT_SUBJECTS,
    SETTLED,
    STYLES,
    TOPIC,
    UNSETTLED,
    ZH,
    heading,
    write_workspace,
)
from tests.helpers import empty_tables, ingest_all

M = markers_of(default_judgment())

PEOPLE = ("jay", "lena")

# --- pure pieces ---------------------------------------------------------------------------------

MARKERS = ["条目#2 · ", "Increment 1 - ", "1. ", "2.3 ", "A1. ", "一、", "[Sep 10] ", "[2026-10-09] ", "【10/09】",
           "#4 · ", "(3) ", "⚠️ T2 待核实 · ", "条目#1 · Increment 1 - "]
NAMES = ["FooServe 推理调度器", "Tiered KV Cache Offloading in vLLM", "BarKV: Compressing KV", "QuuxCache"]


@pytest.mark.parametrize("marker", MARKERS)
@pytest.mark.parametrize("name", NAMES)
def test_entry_markers_are_stripped(marker: str, name: str) -> None:
    assert entry_heading(M, marker + name) == name
    assert heading_thing(M, marker + name) == name


@given(st.lists(st.sampled_from(MARKERS), min_size=1, max_size=3), st.sampled_from(NAMES),
       st.sampled_from(["", "（给 11:20 的 e1prep 用）", " (for the 18:00 briefing)", " (blog)", "（CSDN）"]))
def test_markers_and_asides_in_any_number_leave_the_name(markers: list[str], name: str, aside: str) -> None:
    assert entry_heading(M, "".join(markers) + name + aside) == name


SCAFFOLDING = ["口径问题（重要）", "Summary", "Action items", "Open questions", "条目#2 · CSDN", "CSDN 博客", "Jay",
               "附：筛选时顺手核对的几个 vLLM 配置项（给 11:20 的 e1prep 用）", "Appendix: FooServe numbers",
               "附录 B：QuuxCache", "一、背景", "TL;DR", "### 小结", "Numbers", "Results", "数字", "结果",
               "Evaluation", "Experiments", "Metrics", "Measurements", "Ablations", "Method", "Key numbers",
               # a note's title that says when it was written names no thing a claim could be about
               "Papers this week", "Serving notes, Thursday", "Evening pick-up, Nov 5", "Finding 3", "Key findings",
               # headings asked as questions, and an agent's "Overnight reading digest", name no thing either
               "Anything else on the list?", "What did we measure today?", "Overnight reading digest"]
THINGS = {
    "CSDN：DeepSeek 开源周组件回顾": "DeepSeek 开源周组件回顾",
    "GoodServe: Agentic LLM Inference Serving（arXiv:2605.16867）": "GoodServe: Agentic LLM Inference Serving（arXiv:2605.16867）",
    "SGLang GitHub issues": "SGLang GitHub issues",
    "FooServe numbers": "FooServe numbers",
    "Evening: FlashDecode-3 notes": "FlashDecode-3 notes",
    "DeepSeek claims an 85% speed-up (arXiv:160622148); unverified.": "DeepSeek",
    # a note-taking agent's "### Finding N — …" sections: the label is the note's, the rest the thing
    "Finding 3 — FooServe v0.15 release": "FooServe v0.15 release",
    "Findings 2: BarKV (arXiv:2612.02222)": "BarKV (arXiv:2612.02222)",
    # a label is known by its shape (a short word, its number, a separator), whatever the word
    "Case 4 — QuxServe prefix cache": "QuxServe prefix cache",
    "Probe #2: ZetaKV eviction": "ZetaKV eviction",
    "实验 3：FooServe 吞吐": "FooServe 吞吐",
    "N1 - BazRouter v2 release": "BazRouter v2 release",
    # ... and a name's own number is no label: no separator after it, or no space before it
    "Llama 3 70B decode on FooServe": "Llama 3 70B decode on FooServe",
    "FooServe2: paged decode": "FooServe2: paged decode",
}


@pytest.mark.parametrize("heading", SCAFFOLDING + list(THINGS))
def test_a_heading_names_a_thing_or_nothing(heading: str) -> None:
    """Labels, sources, templates and appendices name nothing; a heading naming a thing is it."""
    assert heading_thing(M, heading, PEOPLE) == THINGS.get(heading)


@pytest.mark.parametrize(("line", "thing"), [
    ("CSDN 博客称 FlashMLA 在 H800 上有 ~3000 GB/s 内存带宽，待核实", "FlashMLA"),
    ("Jay 说 DeepSeek 的 85% 加速待核实", "DeepSeek"),
    ("SGLang v0.5.31, Llama-3.1-70B, FP8, batch 64: 4,100 tok/s", "SGLang v0.5.31"),  # a release, with its version
    ("InferenceBench 的 vLLM baseline：论文写 62，leaderboard 写 71", "InferenceBench 的 vLLM baseline"),
    ("`--kv-offload-backend` 在 vLLM 0.12 是否已合入 main，待核实", "vLLM --kv-offload-backend"),
    ("SGLang GitHub issues | SGLang 的 KV offload 回归已确认修复", "SGLang GitHub issues"),
    ("官方博客称 TTFT 降低 40%，待核实", None),
    ("`kv_cache_dtype`：待核实", None),
])
def test_a_line_names_its_own_thing(line: str, thing: str | None) -> None:
    assert line_thing(M, line, PEOPLE) == thing


def test_sources_and_people_are_scaffolding() -> None:
    assert only_scaffolding(M, "CSDN 博客", PEOPLE) and only_scaffolding(M, "Lena", PEOPLE)
    assert not only_scaffolding(M, "SGLang GitHub issues", PEOPLE)


def _view(subject: str, key: str, source: str, claim: str = "") -> StatusAsOf:
    return StatusAsOf(key, "hedge", subject, subject, claim or f"claim of {key}", "待核实", (source,), DAY, DAY, "pending", 0,
                      None, None, None, "", seen_in_window=True, keys=(key,), kinds=("hedge",))


def test_one_claim_named_in_two_languages_is_one_item() -> None:
    views = [_view("Tiered KV Cache Offloading in vLLM", "hedge:a", "en.md", "the post says TTFT drops 40%"),
             _view("vLLM 分层 KV 卸载", "hedge:b", "zh.md", "官方博客说 TTFT 降低 40 %"),
             _view("vLLM 前缀缓存", "hedge:c", "zh2.md", "官方博客说吞吐 2 倍"),  # same system, another figure
             _view("SGLang tiered offloading", "hedge:d", "zh3.md", "TTFT 降低 40%")]  # same figure, another system
    assert [v.sources for v in one_per_subject(views, M)] == [("en.md", "zh.md"), ("zh2.md",), ("zh3.md",)]
    assert figures("2.10x、2.1 倍、40 %") == {"2.1×", "40%"}


def test_items_stored_with_markers_merge_with_the_same_thing() -> None:
    views = [_view("[Sep 10] FooServe", "hedge:a", "en.md"), _view("条目#2 · FooServe: Serving at Scale", "hedge:b", "zh.md"),
             _view("Increment 1 - BarKV", "hedge:c", "x.md")]
    merged = one_per_subject(views, M)
    assert [v.sources for v in merged] == [("en.md", "zh.md"), ("x.md",)]


# --- through the stages, in every heading style -------------------------------------------------


def _parser_reads_headings(style: str) -> bool:
    """Whether the note parser reads `style` as entry headings today (issue 22 part 6 makes every
    style do so): a subject that only a heading names needs it."""
    note = f"# N\n\n{heading(style, 1, 'FooServe')}\n\n- 吞吐 2.1×。\n"
    return any(e.title == "FooServe" and "2.1" in e.text for e in parse_note(note).entries)


@pytest.fixture(scope="module")
def briefs(engine: Engine, module_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = {}
    for style in STYLES:
        empty_tables(engine)
        root = tmp_path_factory.mktemp(f"subjects-{STYLES.index(style)}")
        write_workspace(root, style)
        ref = ingest_all(module_settings, root)
        (topic,) = topics_for(module_settings, root, [TOPIC])
        window = window_of(topic, DAY)
        derive_verifications(module_settings, ref, topic, window.date)
        _, js = render_briefing(module_settings, ref, topic, window)
        out[style] = json.loads(js)
    return out


def _items(brief: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [v for v in brief["verifications"] if name.lower() in (v["subject"] + " " + v["title"]).lower()]


def _needs_heading(name: str) -> bool:
    """The tiered-offloading claim is named only by its entries' headings, SpecBench's only by the
    line before the hedge in the same entry."""
    return name in ("vLLM Tiered KV Cache Offloading", "SpecBench")


@pytest.mark.parametrize("style", STYLES)
def test_no_subject_is_a_label_a_source_or_carries_a_marker(briefs: dict[str, dict[str, Any]], style: str) -> None:
    for v in briefs[style]["verifications"]:
        for text in (v["subject"], v["title"]):
            assert not any(text.startswith(bad) or text == bad for bad in NOT_SUBJECTS), v
            assert entry_heading(M, text, ("jay", "lena", "spark", "tom")) == text, v
            assert "口径问题" not in text and "给 11:20" not in text and not text.startswith("附"), v


@pytest.mark.parametrize("style", STYLES)
def test_each_subject_is_found_once_under_its_name(briefs: dict[str, dict[str, Any]], style: str) -> None:
    brief = briefs[style]
    for name, (word, sources) in EXPECTED.items():
        if _needs_heading(name) and not _parser_reads_headings(style):
            continue
        items = _items(brief, name)
        assert len(items) == 1, (name, [(v["subject"], v["sources"]) for v in brief["verifications"]])
        (item,) = items
        assert word in item["claim"], item
        assert set(sources) <= set(item["sources"]), item


@pytest.mark.parametrize("style", [s for s in STYLES if s in ("##", "###", "cjk")])
def test_the_same_blog_post_in_two_notes_and_languages_is_one_item(briefs: dict[str, dict[str, Any]], style: str) -> None:
    (item,) = [v for v in briefs[style]["verifications"] if "40%" in v["claim"]]
    assert {ZH, EN, MIXED} <= set(item["sources"]) and item["status"] == "pending"
    assert "Tiered KV Cache Offloading" in item["subject"]


@pytest.mark.parametrize("style", STYLES)
def test_evidence_must_be_about_the_subject(briefs: dict[str, dict[str, Any]], style: str) -> None:
    brief = briefs[style]
    for name in UNSETTLED:
        (item,) = _items(brief, name)
        assert item["status"] == "pending" and not item.get("evidence"), item
    for name in SETTLED:
        (item,) = _items(brief, name)
        assert item["status"] == "resolved" and name in item["evidence"], item


def test_answers_do_not_depend_on_heading_style(briefs: dict[str, dict[str, Any]]) -> None:
    def found(brief: dict[str, Any]) -> set[str]:
        return {n for n in EXPECTED if not _needs_heading(n) and len(_items(brief, n)) == 1}

    assert all(found(b) == set(EXPECTED) - {n for n in EXPECTED if _needs_heading(n)} for b in briefs.values())

