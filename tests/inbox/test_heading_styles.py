"""Contract: heading style does not change a note's entries.

The same note content (tests/inbox/heading_styles.py), with its entries headed by `##`–`####`,
whole-line bold (with or without a colon inside or after), numbered lines ("1.", "1)", "(1)"),
「一、」/「（一）」 (stacked on "条目#1" too), "条目#1 ·", "Increment 1 -", bold "条目#1 ·" or bold "1.", parses to the same
entries: the same titles (no marker left on them), the same bodies and the same arXiv ids, and in
the numbered styles each entry's label carries its number. Bold label lines inside an entry
("**核心论点**"), bold phrases inside a line, bullets under a numbered heading and the summary
after `---` stay what they are in the `###` note, and an unnumbered section after the numbered
entries is their sibling, not a child. Checked on a fixed Chinese and English note and
on generated ones.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.inbox.notes import parse_note
from tasks.verify.markers import label_number
from tests.inbox.heading_styles import NUMBERED_STYLES, STYLES, Item, Note, expected, render

NOTE = Note(
    title="Serving notes · 2026-10-09",
    preamble=("范围：推理引擎与 KV cache，近 48h。",),
    items=(
        Item("Kimi K3 on vLLM", ("- vLLM 0.12 supports Kimi K3 from day 0, MoE layers use the new fused kernel.",
                                 "- Decode is 1.3× faster than on 0.11 according to the post.")),
        Item("Tiered KV cache offloading in vLLM", (
            "**核心论点**",
            "The KV cache spills to CPU memory and then to NVMe; the **hit rate** stays above 90% on long chats.",
            "- 待核实：官方只给了 Llama-3.1-70B 的数字。",
        )),
        Item("SpecScale: System Optimizations for Speculative Decoding", (
            "投机解码在 test-time scaling 下的系统优化，吞吐提升 2.1×。",
            "- 对比：EAGLE-3、DFlash2（arXiv:2610.04646）。",
        ), tail="（arXiv:2609.39334）", ids=("2609.39334", "2610.04646")),
        Item("Hydra 与 SGLang 在 H200 上的吞吐实测", (
            "- 突发流量下 Hydra 吞吐比 SGLang 高 22%；平稳流量下差距在 3% 以内。",
            "- 1. 先测突发，2. 再测平稳（同一行里的编号不是标题）。",
        )),
    ),
    summary=Item("小结", ("- 条目#1、条目#2 建议进 E1；SpecScale 待读原文。",)),
    closing=Item("给 Tom", ("明早先对 Hydra 的数字。",)),
)


def _trees(text: str) -> list[tuple[tuple[tuple[str, int], ...], tuple[str, ...]]]:
    """Per entry: its list items (own text, parent) and its blocks, as text: the part of the note's
    one parse (tasks.inbox.document) that judging reads."""
    out = []
    for e in parse_note(text).entries:
        lines = e.text.split("\n")
        items = tuple(("\n".join(lines[i.start:i.own_end]), -1 if i.parent is None else i.parent) for i in e.tree.items)
        out.append((items, tuple("\n".join(lines[a:b]) for a, b in e.tree.blocks)))
    return out


def _entries(text: str) -> list[tuple[str | None, str, list[str], int]]:
    """Per entry: title, body, ids, and how many sections its heading path holds above it."""
    return [(e.title, e.text, [m.canonical for m in e.mentions if m.canonical], e.heading_path.count(" › "))
            for e in parse_note(text).entries]


@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_style_gives_the_entries_of_the_note(style: str) -> None:
    text = render(NOTE, style)
    assert _entries(text) == expected(NOTE), text
    assert _trees(text) == _trees(render(NOTE, "h3")), text
    entries = parse_note(text).entries
    if style in NUMBERED_STYLES:
        numbers = [label_number(e.label) or e.label for e in entries[1 : len(NOTE.items) + 1]]
        assert numbers in ([str(n) for n in range(1, len(NOTE.items) + 1)], list("一二三四"), [f"（{c}）" for c in "一二三四"])


def test_a_bold_phrase_or_line_inside_a_headed_note_is_text() -> None:
    text = render(NOTE, "h3")
    entry = parse_note(text).entries[2]
    assert entry.title == "Tiered KV cache offloading in vLLM"
    assert entry.text.startswith("**核心论点**\n") and "the **hit rate** stays" in entry.text


def test_bullets_under_a_numbered_heading_are_its_body() -> None:
    entries = parse_note(render(NOTE, "numbered_dot")).entries
    assert [e.label for e in entries] == ["preamble", "1", "2", "3", "4", None, None]
    assert entries[1].text.count("\n- ") == 1 and entries[1].text.startswith("- vLLM 0.12")


def test_a_numbered_list_without_text_between_items_is_still_a_list() -> None:
    text = "# T\n\n1. Kestrel 2.0\n   released today\n2. Hydra 1.1\n\nA closing remark after the list.\n"
    entries = parse_note(text).entries
    assert [(e.label, e.title) for e in entries] == [("1", "Kestrel 2.0"), ("2", "Hydra 1.1"), (None, None)]
    assert entries[2].text == "A closing remark after the list."


WORDS = ("Kestrel", "Hydra", "Qorvex", "TernServe", "prefill", "decode", "pools", "release", "调度器", "发布",
         "吞吐", "实测", "KV", "cache", "2.0", "v3", "on", "H200")
# A title starts with a word: one led by a number ("2.0 …") is a numbered heading in every style.
TITLE = st.tuples(st.sampled_from(WORDS[:4] + WORDS[8:11]), st.lists(st.sampled_from(WORDS), max_size=3)).map(
    lambda t: " ".join((t[0], *t[1])))
LINE = st.sampled_from((
    "- Decode is 1.8× faster on Qwen3-32B according to the post.",
    "- 待核实：只给了一个模型的数字。",
    "TTFT p99 down 38% at 256 concurrent requests; the **lead** holds only for bursty traffic.",
    "官方博客 https://kestrel-serve.dev/blog/kestrel-2-0 给了数字。",
    "**核心论点**",
    "**Key points:**",
    "  - an indented sub-point",
    "- 待核实：Kestrel 的 P99 数字来自作者 README，\n  未复现；不要和 Hydra 的数字混在一起。",
    "- A claim that wraps\n  onto its second line\n  - and a nested point under it",
    "- 对照 arXiv:2610.04646 的设置。",
))
ID_LINE = "- 对照 arXiv:2610.04646 的设置。"


@st.composite
def notes(draw: st.DrawFn) -> Note:
    titles = draw(st.lists(TITLE, min_size=2, max_size=6, unique=True))
    items = []
    for k, title in enumerate(titles):
        body = tuple(draw(st.lists(LINE, min_size=1, max_size=4)))
        # An entry's first body line is at the margin (so numbered headings have text between them).
        if body[0].startswith(" "):
            body = ("- first point", *body)
        tail = "（arXiv:2609.39334）" if k == 0 and draw(st.booleans()) else ""
        ids = (("2609.39334",) if tail else ()) + ("2610.04646",) * body.count(ID_LINE)  # one per mention
        items.append(Item(title, body, tail, ids))
    summary = Item("小结", ("- 都建议进 E1。",)) if draw(st.booleans()) else None
    closing = Item("给 Tom", ("- 明早先看数字。",)) if draw(st.booleans()) else None
    return Note("Generated notes", ("Scope: serving engines, last 48h.",), tuple(items), summary, closing)


@settings(max_examples=60, deadline=None)
@given(note=notes(), style=st.sampled_from(sorted(STYLES)))
def test_generated_notes_parse_alike_in_every_style(note: Note, style: str) -> None:
    text = render(note, style)
    assert _entries(text) == expected(note), text
    assert _trees(text) == _trees(render(note, "h3")), text


def test_marked_lines_head_entries_beside_hashed_headings() -> None:
    text = "# Notes\n\n条目#1 · Larkspur router 1.0\n- released\n\n条目#2 · Larkspur numbers\n- TTFT -41%\n\n### 小结\n- 合成一条\n"
    entries = parse_note(text).entries
    assert [(e.label, e.title, e.text) for e in entries] == [
        ("条目#1", "Larkspur router 1.0", "- released"), ("条目#2", "Larkspur numbers", "- TTFT -41%"), (None, "小结", "- 合成一条")]


def test_sub_chapter_lines_head_entries_under_hashed_chapters() -> None:
    """「（一）」 lines under `## 一、…` chapters head entries as they do in a note without `#` headings,
    a stacked entry label ("（二）条目#2") included."""
    text = ("# 周记\n\n## 一、新论文\n\n（一）Larkspur router 1.0\n- released\n\n"
            "（二）条目#2 Larkspur numbers\n- TTFT -41%\n\n## 二、工程\n\n- 无\n")
    entries = parse_note(text).entries
    assert [(e.label, e.title, e.text) for e in entries] == [
        ("（一）", "Larkspur router 1.0", "- released"), ("条目#2", "Larkspur numbers", "- TTFT -41%"), ("二", "工程", "- 无")]


@pytest.mark.parametrize("style", ["h2", "h3"])
def test_bold_closing_sections_after_a_break_head_entries_beside_hashed_headings(style: str) -> None:
    text = re.sub(r"(?m)^#+ 小结$", "**小结**", render(NOTE, style)) + "**给 Lena**\n- 明早先看 SpecScale。\n"
    rows = _entries(text)
    assert rows[:-1] == expected(NOTE) and rows[-1] == ("给 Lena", "- 明早先看 SpecScale。", [], 0)
    # Before the break a bold label line is the entry's text, as in the `###` note.
    assert "**核心论点**" in rows[2][1]


def test_a_bold_section_laid_out_like_the_numbered_headings_is_a_section() -> None:
    """Between "**条目#N · …**" headings each followed by a blank line, a bold line followed by a blank
    line is a section as in the `##` note; one followed by its text is a lead-in of the entry."""
    parts = [("条目#1 · QuuxCache 调度器", "- 吞吐 2.1×。\n**核心论点**\n- 冷 KV 放 CPU。"), ("口径问题（重要）", "- 论文写 62，榜单写 71，待核实。"),
             ("条目#2 · FooServe", "- P99 120 ms。")]
    hashed = "# N\n\n" + "".join(f"## {h}\n\n{t}\n\n" for h, t in parts)
    bold = "# N\n\n" + "".join(f"**{h}**\n\n{t}\n\n" for h, t in parts)
    assert _entries(bold) == _entries(hashed)
    assert [e.title for e in parse_note(bold).entries] == ["QuuxCache 调度器", "口径问题（重要）", "FooServe"]


@pytest.mark.parametrize(("bold", "label", "title"), [
    ("**条目#3 C2C：Cache-to-Cache，LLM 之间直接传 KV**", "条目#3", "C2C：Cache-to-Cache，LLM 之间直接传 KV"),
    ("**1. SGLang 的 29% 领先只在 prefix-heavy 流量下成立**", "1", "SGLang 的 29% 领先只在 prefix-heavy 流量下成立"),
    ("**A1. Ember-1：思考 token 压缩**", "A1", "Ember-1：思考 token 压缩"),
])
def test_a_bold_numbered_or_marked_line_heads_an_entry_under_hashed_headings(bold: str, label: str, title: str) -> None:
    # The `###` heading written as a bold line: "条目#3" needs no separator, "1." and "A1." are numbers.
    text = f"# Notes\n\n## 二、KV\n\n{bold}\n\n- 思路：直接传 KV。\n- ⚠ 待核实：还没有 release。\n\n## 三、其他\n\n- 无\n"
    entries = parse_note(text).entries
    (entry,) = [e for e in entries if e.title == title]
    assert entry.label == label and "待核实" in entry.text and entry.heading_path.startswith("二、KV › ")
