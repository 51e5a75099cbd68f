"""Contract of a paper's key points (tasks.judge.points, tasks.inbox.outline_reader):

- they come only from the paper's own entry, table row, list line or card: a paper in one row of a
  15-row digest (a table, R- or C-numbered lines, bullets, numbered lines; under any heading; zh or
  en) gets its row's text and nothing from any other row, in key points and relation lines alike;
- nested items stay under their parent (joined into it); a lead-in's list of fragments is one point
  ("演化路径：Orca；vLLM；…"); the first point kept of a lead-in's group carries the lead-in;
- a table cell alone, a bare id or a bare lead-in is never a key point;
- when more than `[points] max` remain, the cut is counted and the thesis (under a lead-in of
  `[points] thesis`, bold, colon-ended or a sub-heading of the paper's entry; zh or en) and the
  points carrying numbers are kept first, in the entry's order;
- a labelled run ("R1 …", "C2 …", "#3 …", "(4) …", "5、…") opens one entry per line, whatever its
  first number, while "H100 …/H200 …" lines do not; a source lists what it holds.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.config.judgment import default_judgment
from tasks.inbox.notes import parse_note
from tasks.inbox.outline_reader import Point, has_number, listed, parse_outline, points_of, row_point
from tasks.judge.points import choose, key_points
from tests.judge.digests import HEADINGS, OTHERS, ROWS, STYLES, TARGET, TARGET_ID, digest, rows, views

J = default_judgment()
PATH = "inbox/tom/2026-11-03T0900-tom-radar.md"


def outline(text: str, join_below: int = 60) -> tuple[Point, ...]:
    """The points of a text, as judging reads them from the outline ingest stores."""
    return points_of(parse_outline(text), join_below)



def _points_of(style: str, heading: str, lang: str, at: int) -> tuple[list[str], list[str]]:
    mentions, entries = views(PATH, digest(style, heading, lang, at))
    mine = [m for m in mentions if m.arxiv_id == TARGET_ID]
    assert mine, "the target is mentioned"
    got = key_points(TARGET_ID, TARGET[lang][0], mine, entries, "inference", J)
    return got.points, got.relation


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("heading", HEADINGS)
@pytest.mark.parametrize("style", STYLES)
def test_a_digest_row_gives_its_own_text_and_nothing_of_its_neighbours(style: str, heading: str, lang: str) -> None:
    for at in (0, 7, ROWS - 1):
        points, relation = _points_of(style, heading, lang, at)
        text = "\n".join(points + relation)
        _, desc, detail = TARGET[lang]
        assert desc in text, (style, heading, at, points)
        if style == "bullets":
            assert any(desc in p and detail in p for p in points), points  # the nested detail stays with it
        for arxiv, name, other, _ in rows(lang, at):
            if arxiv != TARGET_ID:
                assert name not in text and other not in text and arxiv not in text, (style, heading, at, text)


@settings(max_examples=40, deadline=None)
@given(style=st.sampled_from(STYLES), heading=st.sampled_from(HEADINGS), lang=st.sampled_from(["zh", "en"]),
       at=st.integers(0, ROWS - 1))
def test_no_row_leaks_at_any_position(style: str, heading: str, lang: str, at: int) -> None:
    points, relation = _points_of(style, heading, lang, at)
    words = {w for name, desc in OTHERS[lang] for w in (name.split("{")[0], desc.split("{")[0][:8])}
    assert not any(w in p for p in points + relation for w in words)


def test_r_numbered_digest_is_one_entry_per_line_and_listed() -> None:
    for style in ("r_lines", "c_lines"):
        parsed = parse_note(digest(style, "title", "zh", 3))
        labelled = [e for e in parsed.entries if e.label and e.label[0] in "RC"]
        assert [e.label for e in labelled] == [f"{style[0].upper()}{n}" for n in range(1, ROWS + 1)]
        assert all(len({m.canonical for m in e.mentions}) == 1 for e in labelled)
    assert listed(digest("table", "none", "en", 2)) == [name for _, name, _, _ in rows("en", 2)]
    assert len(listed(digest("bullets", "section", "zh", 2))) == ROWS


def test_h100_lines_are_not_a_labelled_run() -> None:
    parsed = parse_note("# Bench\n\nH100 runs at 700 W.\nH200 runs at 1000 W.\nH800 is export-only.\n")
    assert [e.label for e in parsed.entries] == ["preamble"]


NOTE = """## 条目1 · FooServe: Tiered KV Cache Serving（arXiv:2611.00001）

- 作者：A. Author（Somewhere），2026 年 9 月。
- 类型：系统论文。

**演化路径（文中主线）**
1. Orca 迭代级调度；
2. vLLM：PagedAttention；
3. Chunked Prefill；
4. 长上下文执行。

**核心论点**
- 推理问题已经从单引擎优化演化为跨 fleet 协调状态与 SLO。
- 状态 = KV cache；相位 = prefill / decode。
- 把三代控制平面串成统一叙事。

**生产证据**
- 在四卡 MI300X 上 ~3× 吞吐、2× TTFT 改善。
  - 条件：前缀复用率高。
- 各引擎最优配置：

| 引擎 | 配置 |
|---|---|
| vLLM | 沿用 |

- arXiv:2611.00001

**和现有脉络的关系**
- §1.1 框架格局缺一篇系统性综述，这篇补上。
- 和 galahad-kv 同属突破显存边界。
"""


def test_outline_keeps_parents_leads_and_no_cells() -> None:
    points = outline(NOTE.split("\n", 1)[1])
    texts = [p.text for p in points]
    # The items' own "；" and the last one's "。" are the source's: kept, none added.
    assert "演化路径（文中主线）：Orca 迭代级调度；vLLM：PagedAttention；Chunked Prefill；长上下文执行。" in texts
    assert any(t.startswith("在四卡 MI300X 上 ~3× 吞吐") and "条件：前缀复用率高" in t for t in texts)
    assert not any(t in ("沿用", "vLLM", "arXiv:2611.00001") or t.endswith("：") for t in texts), texts
    assert not any(t.startswith(("条件", "1.", "Orca")) for t in texts)  # nested and listed items are inside their parent
    assert {p.lead for p in points if "统一叙事" in p.text} == {"核心论点"}


def test_cut_is_marked_and_keeps_thesis_and_numbers() -> None:
    mentions, entries = views(PATH, NOTE)
    got = key_points("2611.00001", "FooServe: Tiered KV Cache Serving", mentions, entries, "inference", J)
    assert len(got.points) == 6 and got.cut == 1
    assert any(p.startswith("核心论点：推理问题") for p in got.points)  # the thesis with its lead-in
    assert any("~3× 吞吐" in p for p in got.points)  # the headline number survives the cut
    assert got.relation and all("galahad-kv" in r or "§1.1" in r for r in got.relation)  # the whole group
    assert got.thesis.startswith("推理问题已经从") and "3×" in got.headline


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(1, 80)), min_size=1, max_size=14),
       st.integers(1, 8))
def test_choose_keeps_thesis_then_numbers_in_order(specs: list[tuple[bool, bool, int]], limit: int) -> None:
    points = [Point(("x" * size) + (f" {k}.5×" if numbered else "")) for k, (_, numbered, size) in enumerate(specs)]
    thesis = [t for t, _, _ in specs]
    kept = choose(points, limit, thesis)
    assert kept == sorted(kept) and len(kept) == min(limit, len(points))
    numbered = [k for k, p in enumerate(points) if has_number(p.text)]
    first = next((k for k, t in enumerate(thesis) if t), None)
    if first is not None:
        assert first in kept or all(thesis[k] and k in numbered for k in kept)
    must = [k for k in numbered if thesis[k]][:limit]
    assert set(must) <= set(kept)
    if len(numbered) <= limit - (first is not None):
        assert set(numbered) <= set(kept)


@pytest.mark.parametrize(("row", "point"), [
    ("| 8 | 2610.08571 | RAG-PIBench | rag | security | 承接 |", None),
    ("| 3 | 2610.12085 | Is Memorization Context-Sensitive? | rag | engineering | 沿用 |", None),
    ("| 1 | 2611.00001 | FooServe | 2.1× on H100 | ⭐⭐⭐ |", "2.1× on H100"),
    ("| 3 | 2610.12085 | Memo | rag | 新入队；前缀提取攻击视角研究记忆化 |", "新入队；前缀提取攻击视角研究记忆化"),
    ("| R2 | arXiv:2611.00002 | BarKV | eviction by behaviour, not attention mass |", "eviction by behaviour, not attention mass"),
])
def test_a_row_is_one_point_only_when_a_cell_says_something(row: str, point: str | None) -> None:
    assert row_point(row, ("2610.08571", "2610.12085", "2611.00001", "arXiv:2611.00002", "FooServe", "BarKV",
                           "Is Memorization Context-Sensitive?", "Memo")) == point


def test_queue_row_is_never_a_lone_cell() -> None:
    text = "| 8 | 2610.08571 | RAG-PIBench | rag | security | 沿用 |"
    mentions, entries = views("organized/queue/work-queue.md", "## 2026-11-03 22:00\n\n" + text, kind="work_queue")
    got = key_points("2610.08571", "RAG-PIBench", [m for m in mentions if m.arxiv_id], entries, "inference", J)
    assert got.points == []


THESIS_LEADS = {"zh": ["核心观点", "核心结论", "主要结论"], "en": ["Key idea", "Takeaway", "Main result"]}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("style", ["bold", "colon", "heading"])
def test_thesis_and_numbers_survive_any_cut(lang: str, style: str) -> None:
    for lead in THESIS_LEADS[lang]:
        filler = "\n".join(f"- {'背景说明' if lang == 'zh' else 'background note'} {k} " + "x" * (40 + k) for k in range(8))
        head = {"bold": f"**{lead}**", "colon": f"{lead}:", "heading": f"### {lead}"}[style]
        claim = "分页调度让长上下文推理更省显存。" if lang == "zh" else "Paged scheduling makes long-context serving cheaper."
        text = f"## FooServe (arXiv:2611.00001)\n\n{filler}\n- measured 2.4× throughput on A100\n\n{head}\n- {claim}\n"
        mentions, entries = views(PATH, text)
        got = key_points("2611.00001", "FooServe", mentions, entries, "inference", J)
        assert got.cut == 4 and len(got.points) == 6
        colon = "：" if lang == "zh" else ": "  # an English lead-in is followed as English is written
        assert f"{lead}{colon}{claim}" in got.points and any("2.4×" in p for p in got.points)
        assert got.thesis == claim


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["R", "C", "P", "#", "(", "、"]), st.integers(1, 30), st.integers(2, 12))
def test_labelled_runs_open_entries_in_any_label_style(prefix: str, start: int, count: int) -> None:
    def label(n: int) -> str:
        return {"(": f"({n}) ", "、": f"{n}、"}.get(prefix, f"{prefix}{n} ")
    text = "\n".join(f"{label(start + k)}Item{k} arXiv:2611.{20000 + k}" for k in range(count)) + "\n"
    entries = [e for e in parse_note(text).entries if e.label != "preamble"]
    if count >= (2 if start <= 2 else 3):
        assert [e.title for e in entries] == [f"Item{k}" for k in range(count)]
    else:
        assert not entries
