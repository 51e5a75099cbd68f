"""Contract of a paper's title (tasks.window.titles):

- it comes from the best source that gives one: card, arXiv metadata, feed, queue (its title
  column, else the row's first cell that is not a rank, an id or a category), then the cleaned
  heading of an entry headed by it (a fuller heading wins over a queue's short name);
- note markers (emoji, "NET-new", 承接级, 邻接, status words, in any language listed in
  `[titles] markers`) before or after the name, split off by "·", "|", a dash, a colon or in
  brackets, are stripped; a name that merely contains such a word is kept whole.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasks.config.judgment import default_judgment
from tasks.inbox.outline_reader import naming_cells
from tasks.model.window_views import CardView, MentionView, PaperLookup, WindowData
from tasks.window.titles import clean_title, strip_markers, title_for

J = default_judgment()
NAMES = [
    "SpecScale: System Optimizations for Speculative Decoding in Test-Time Scaling",
    "Cascadia: Serving a 975B MoE on Consumer AI PCs",
    "vLLM→llm-d→分布式推理控制平面演化综述",
    "分页调度：长上下文推理的 KV 管理",
    "推論サーバの新設計",
]
LEADS = ["🟢 NET-new arXiv", "🟡 承接级", "🟢 NET-new 主分类邻接", "🟠 工程新增", "⭐ must-read", "🔥 hot · P0",
         "NET-new", "邻接待核实", "新規", "Adjacent"]
SEPS = [" · ", " | ", " — ", "：", ": "]
BRACKETS = ["[NEW] {name}", "【邻接】{name}", "{name}（待核实）", "{name} (adjacent)", "{name} 【承接】"]
KEPT = ["Adjacent-Token Pruning for KV Cache", "邻接矩阵压缩的推理加速", "NewSQL Serving at Scale",
        "Top-k Attention: Sparse Decoding", "Update Rules: Online Adaptation for Serving"]


@pytest.mark.parametrize(("lead", "sep", "name"), list(itertools.product(LEADS, SEPS, NAMES)))
def test_leading_markers_are_stripped(lead: str, sep: str, name: str) -> None:
    assert strip_markers(f"{lead}{sep}{name}", J) == name


@pytest.mark.parametrize(("tail", "name"), list(itertools.product(["🟡 承接级", "NET-new", "待核实", "✅ verified"], NAMES)))
def test_trailing_markers_are_stripped(tail: str, name: str) -> None:
    assert strip_markers(f"{name} · {tail}", J) == name


@pytest.mark.parametrize(("form", "name"), list(itertools.product(BRACKETS, NAMES)))
def test_bracketed_markers_are_stripped(form: str, name: str) -> None:
    assert strip_markers(form.format(name=name), J) == name


@pytest.mark.parametrize("name", KEPT + NAMES)
def test_names_with_marker_words_inside_are_kept(name: str) -> None:
    assert strip_markers(name, J) == name and clean_title(name, J) == name


@given(st.lists(st.sampled_from(LEADS), min_size=1, max_size=3), st.sampled_from(SEPS), st.sampled_from(NAMES))
def test_any_stack_of_markers_goes(leads: list[str], sep: str, name: str) -> None:
    assert strip_markers(sep.join([*leads, name]), J) == name


def _mention(kind: str, path: str, title: str | None, heading: str, raw: str = "2611.00001") -> MentionView:
    when = dt.datetime(2026, 11, 3, tzinfo=dt.UTC)
    return MentionView(1, path, kind, 1, "1", heading, title, "2611.00001", raw, False, heading, when)


def _data(cards: bool = False, lookup: bool = False) -> WindowData:
    data = WindowData(window=None)  # type: ignore[arg-type]  # titles read no window
    if cards:
        data.cards["2611.00001"] = [CardView("2611.00001", "organized/paper_cards/1.md", "Card Title: From The Card",
                                             "inference", (), None, None)]
    if lookup:
        data.lookups["2611.00001"] = PaperLookup("2611.00001", "found", "ArXiv Title: From Metadata",
                                                 dt.datetime(2026, 11, 3, tzinfo=dt.UTC))
    return data


HEADED = _mention("note", "inbox/a/n.md", "🟢 NET-new arXiv · PagedFlux: Paged KV Scheduling for Long Prompts",
                  "条目1 · 🟢 NET-new arXiv · PagedFlux: Paged KV Scheduling for Long Prompts（arXiv:2611.00001）",
                  raw="arXiv:2611.00001")
QUEUE = _mention("work_queue", "organized/queue/work-queue.md", "PagedFlux", "2026-11-03 22:00")
FEED = _mention("hf_daily", "https://huggingface.co/api/daily_papers", "Feed Title: From HF", "Feed Title")


def test_title_sources_in_order() -> None:
    per_item = {(1, 1): {"2611.00001"}}
    assert title_for("2611.00001", [HEADED, QUEUE, FEED], _data(cards=True, lookup=True), per_item, J) == \
        "Card Title: From The Card"
    assert title_for("2611.00001", [HEADED, QUEUE, FEED], _data(lookup=True), per_item, J) == "ArXiv Title: From Metadata"
    assert title_for("2611.00001", [HEADED, FEED], _data(), per_item, J) == "Feed Title: From HF"
    # The queue's short name, spelled out in full by a heading that names it alike.
    assert title_for("2611.00001", [HEADED, QUEUE], _data(), per_item, J) == "PagedFlux: Paged KV Scheduling for Long Prompts"
    assert title_for("2611.00001", [QUEUE], _data(), per_item, J) == "PagedFlux"
    assert title_for("2611.00001", [HEADED], _data(), per_item, J) == "PagedFlux: Paged KV Scheduling for Long Prompts"
    assert title_for("2611.00001", [], _data(), per_item, J) == "2611.00001"


def test_a_question_heading_never_names_the_paper_under_it() -> None:
    """An entry about one paper alone, headed by a question (a table row under 「哪些数字对不上？」)."""
    asked = _mention("note", "inbox/mei/n.md", "哪些数字对不上？", "哪些数字对不上？")
    assert title_for("2611.00001", [asked], _data(), {(1, 1): {"2611.00001"}}, J) == "2611.00001"
    titled = _mention("note", "inbox/mei/n.md", "Is Memorization Context-Sensitive?", "Is Memorization Context-Sensitive?")
    assert title_for("2611.00001", [titled], _data(), {(1, 1): {"2611.00001"}}, J) == "Is Memorization Context-Sensitive?"


def test_a_queue_row_with_unrecognised_columns_still_names_the_paper() -> None:
    row = "| 3 | arXiv:2611.00001 | rag | PagedFlux: Paged KV Scheduling | 新入队 |"
    queue = MentionView(1, "organized/queue/work-queue.md", "work_queue", 1, "#3", "2026-11-03 22:00", None,
                        "2611.00001", "arXiv:2611.00001", False, row, dt.datetime(2026, 11, 3, tzinfo=dt.UTC),
                        cells=naming_cells(row))  # as ingest stores them
    data = _data()
    data.queue_categories["2611.00001"] = [("rag", None)]
    assert title_for("2611.00001", [queue], data, {}, J) == "PagedFlux: Paged KV Scheduling"


@pytest.mark.parametrize("name", NAMES)
def test_an_agents_finding_label_leaves_the_name(name: str) -> None:
    """"### Finding 2 — Name": the label before the spaced dash is the note's, not trailing commentary after "Finding 2"."""
    assert clean_title(f"Finding 2 — {name}", J) == name
