"""Contract of tasks.inbox.notes.parse_note.

A note becomes front matter, a title and ordered entries. Entries start at `##`–`####` headings
(section-only parents live on in `heading_path`, a `---` closes sections), at numbered items of a
preamble, or, in notes without headings, at pseudo-headings and then top-level list items; fenced
code never starts one. Each entry carries its label as written, a cleaned title, key points, numbers
with units (not dates, ids, sections or versions), hedges, links and arXiv mentions whose context is
the table row alone for ids in a table row, else heading_path + "\\n" + the text without table rows.
The parser never raises and stays linear on very large input.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tasks.common.decode import decode_bytes
from tasks.inbox.notes import Entry, ParsedNote, parse_note
from tasks.inbox.outline_reader import stored_outline

ROOT = Path(__file__).resolve().parents[2]
R7 = "inbox/jay/2026-10-07-1450-jay-engineering-screening-oct07-r7.md"


def _items(entry: Entry) -> list[str]:
    """The entry's own list items as ingest stores them (its outline's items, `items.outline`)."""
    return [i.head for i in stored_outline(entry.text).items if i.head]


def workspace() -> Path:
    """The sample workspace: the repo's examples copy, else ../shared/corpus/workspace."""
    for candidate in (ROOT / "examples" / "workspace", ROOT.parent / "shared" / "corpus" / "workspace"):
        if (candidate / "inbox").is_dir():
            return candidate
    pytest.skip("sample workspace not found")


def note(rel: str) -> ParsedNote:
    return parse_note(decode_bytes((workspace() / rel).read_bytes()).text)


def by_label(parsed: ParsedNote, label: str) -> Entry:
    return next(e for e in parsed.entries if e.label == label)


def test_r7_entries_labels_and_summary_section() -> None:
    parsed = note(R7)
    assert parsed.title == "Engineering Screening · Oct 07 · R7（14:50）"
    assert [e.label for e in parsed.entries] == ["preamble"] + [f"条目#{n}" for n in range(1, 8)] + [None]
    assert [e.ordinal for e in parsed.entries] == list(range(9))
    summary = parsed.entries[-1]
    # After `---`, the summary is not filed under 条目#7 even though it is a deeper heading.
    assert summary.heading_path == "本轮总结" and summary.title == "本轮总结"
    assert [m.canonical for m in summary.mentions] == ["2605.01280", "2610.04646", "2610.02762"]
    assert all(m.context.startswith("|") and "\n" not in m.context for m in summary.mentions)
    assert by_label(parsed, "条目#7").text.startswith("- [ ] FlashMLA")


def test_r7_entry_4_mentions_hedges_numbers_title() -> None:
    entry = by_label(note(R7), "条目#4")
    assert entry.title == "SEIS: Self-Evolving Inference Systems"
    assert entry.heading == "条目#4 · SEIS: Self-Evolving Inference Systems（https://arxiv.org/abs/2610.04646v2）"
    first = entry.mentions[0]
    assert (first.raw, first.canonical, first.version, first.malformed) == (
        "https://arxiv.org/abs/2610.04646v2", "2610.04646", 2, False,
    )
    assert [m.canonical for m in entry.mentions] == ["2610.04646", "2609.12551"]
    assert "待核实" in [h["marker"] for h in entry.hedges]
    hedge = next(h for h in entry.hedges if h["marker"] == "待核实")
    assert "可迁移性" in hedge["text"]  # a bare "**待核实**" line hedges the bullets under it
    assert {"value": "2.81–3.10×", "unit": "×", "context": "相对人工调参：吞吐 2.81–3.10×"} in entry.numbers
    assert entry.links == ["https://arxiv.org/abs/2610.04646v2"]
    assert _items(entry)[0].startswith("Agent 在三个引擎的配置空间里搜索")
    assert "**" not in "".join(_items(entry))
    assert not entry.text.startswith("##")


def test_r7_entry_1_hedges_one_per_marker_line() -> None:
    entry = by_label(note(R7), "条目#1")
    assert [h["marker"] for h in entry.hedges] == ["存疑", "不能直接信"]
    assert entry.hedges[1]["text"] == "所以「TRT-LLM 比 vLLM 慢 18%」这个对比不能直接信。"


def test_non_table_mention_context_is_path_and_text_without_tables() -> None:
    entry = by_label(note(R7), "条目#4")
    context = entry.mentions[0].context
    untabled = "\n".join(line for line in entry.text.split("\n") if not line.lstrip().startswith("|"))
    assert context == entry.heading_path + "\n" + untabled
    assert "| vLLM | BF16" not in context and "**待核实**" in context


def test_deep_dive_url_form_mention() -> None:
    entry = by_label(note("inbox/jay/2026-10-09T1450-jay-inference-systems-deep-dive.md"), "条目2")
    assert entry.title == "Cascadia: Serving a 975B MoE on Consumer AI PCs"
    assert [(m.raw, m.canonical, m.version) for m in entry.mentions] == [
        ("arxiv.org/abs/2610.07219", "2610.07219", None)
    ]


@pytest.mark.parametrize(
    ("rel", "raw"),
    [
        ("inbox/jay/2026-10-07-inference-engineering-agentic-ai-screening.md", "arXiv:160622148"),
        ("inbox/jay/2026-10-09T1735-jay-evening-briefing-hf-security-agents-glossary-stack2026.md", "arXiv:2610.0998"),
    ],
)
def test_malformed_ids_are_reported_not_repaired(rel: str, raw: str) -> None:
    found = [m for e in note(rel).entries for m in e.mentions if m.raw == raw]
    assert len(found) == 1
    assert found[0].malformed and found[0].canonical is None and found[0].version is None


def test_table_row_mention_context_is_the_row_only() -> None:
    parsed = note("inbox/spark/2026-10-07-llm-infra-e1prep.md")
    assert parsed.front_matter == {"author": "spark", "topic": "llm-infra", "date": "2026-10-07", "round": "e1prep"}
    row = [m for e in parsed.entries for m in e.mentions if m.canonical == "2610.08571"]
    assert [m.context for m in row] == ["| 1700 | 2610.08571 RAG-PIBench | rag | 否（rag；prompt injection 检测） |"]
    seis = by_label(parsed, "增量 1")
    assert seis.mentions[0].context.startswith("增量 1 · SEIS 承接（arXiv:2610.04646）\n- 承接 Jay R3")


def test_nested_heading_path_in_github_trending_note() -> None:
    parsed = note("inbox/jay/2026-10-07-1735-jay-github-trending-hf-inference-vecdb-substack-oct07.md")
    first = by_label(parsed, "条目#1")
    assert first.heading_path == "A. GitHub Trending（周榜，AI 相关） › 条目#1 · deepseek-ai/DeepGEMM — 8,820★"
    assert first.title == "deepseek-ai/DeepGEMM — 8,820★"
    assert {"8,820★", "~1.1k★"} <= {n["value"] for n in first.numbers}
    assert by_label(parsed, "条目#9").heading_path.startswith("D. 向量库 › ")
    assert not any(e.heading and e.heading.startswith(("A. ", "E. ")) for e in parsed.entries)  # sections only
    assert parsed.entries[-1].heading_path == "小结"  # `---` closed section E
    assert [e.label for e in parsed.entries[1:13]] == [f"条目#{n}" for n in range(1, 13)]


def test_lena_english_note() -> None:
    parsed = note("inbox/lena/2026-10-07T2250-lena-mori-io-first-read.md")
    assert parsed.title == "MORI-IO — first read (late night)"
    assert [e.title for e in parsed.entries] == [
        None, "What MORI-IO is", "Read vs Write — the part that matters",
        "How it relates to what we already have", "Open questions I have (for myself)", "Plan for tomorrow (Oct 8)",
    ]
    numbers = parsed.entries[2].numbers
    assert {"value": "190 ms", "unit": "ms", "context": "WRITE | 12 ms | 190 ms | decode at 95% load (buffer contention)"} in numbers
    # A wrapped bullet is one key point.
    assert _items(parsed.entries[1])[0].endswith("(PD disaggregation).")


def test_gb18030_note_parses_and_code_block_does_not_split() -> None:
    parsed = note("inbox/jay/2026-10-07-0820-jay-csdn-inference-rag-highvalue-oct.md")
    assert [e.label for e in parsed.entries] == ["preamble"] + [f"条目#{n}" for n in range(1, 7)] + [None]
    assert "├─ 是 → SGLang" in by_label(parsed, "条目#2").text


def test_setext_headings_and_numbered_labels() -> None:
    parsed = note("inbox/jay/2026-10-09-inference-agents-olap-mlops.md")
    assert parsed.title == "Inference / Agents / OLAP / MLOps — 周四合集（2026-10-09）"
    assert [e.label for e in parsed.entries] == ["preamble", "1", "2", "3", "4", "5", "6", None]
    assert parsed.entries[1].title == "推理：三大引擎全面对比（三篇放一起读）"


def test_numbered_preamble_items_become_entries() -> None:
    parsed = note("inbox/tom/2026-10-08-0900-hf-daily-2026-10-08.md")
    items = [e for e in parsed.entries if e.label and e.label.isdigit()]
    assert [e.label for e in items] == [str(n) for n in range(1, 13)]
    assert items[0].title == "SlimWise: Pre-Distilled Expert Pruning for MoE Prefill"
    assert items[0].mentions[0].canonical == "2607.09701"
    assert {k: items[0].numbers[0][k] for k in ("value", "unit")} == {"value": "▲92", "unit": "▲"}
    assert _items(items[0])[0] == "主题：llm-infra / inference（MoE）"


def test_note_without_headings_uses_pseudo_headings() -> None:
    parsed = note("inbox/tom/2026-10-06-inference-e1prep.md")
    assert parsed.title is None
    assert [e.label for e in parsed.entries if e.label and e.label.startswith("增量")] == [f"增量 {n}" for n in range(1, 9)]
    assert by_label(parsed, "增量 1").heading_path.startswith("二、今日该主题最重要的增量（8 条） › 增量 1 · ")


def test_bullet_only_note_gives_one_entry_per_top_level_bullet() -> None:
    text = "- SEIS arXiv:2610.04646 2.81–3.10×\n  - sub point\n- JIL (arXiv:2610.03430) 27-46%\n* third, unverified\n"
    parsed = parse_note(text)
    assert [e.heading for e in parsed.entries] == ["SEIS arXiv:2610.04646 2.81–3.10×", "JIL (arXiv:2610.03430) 27-46%",
                                                   "third, unverified"]
    assert parsed.entries[0].text == "  - sub point"
    assert [[m.canonical for m in e.mentions] for e in parsed.entries] == [["2610.04646"], ["2610.03430"], []]
    assert parsed.entries[0].mentions[0].context == "SEIS arXiv:2610.04646 2.81–3.10×\n  - sub point"
    assert parsed.entries[1].numbers[0]["value"] == "27-46%"
    assert parsed.entries[2].hedges == [{"marker": "unverified", "text": "third, unverified", "line": -1}]  # its heading


def test_numbered_note_and_fenced_code() -> None:
    parsed = parse_note("intro\n\n1. first\n```\n## not a heading\n- not an item\n```\n2) second\n")
    # Text at the margin between the numbered lines: they head entries, and keep their numbers as written.
    assert [(e.label, e.heading, e.title) for e in parsed.entries] == [
        ("preamble", None, None), ("1", "1. first", "first"), ("2", "2) second", "second")]
    assert "## not a heading" in parsed.entries[1].text
    parsed = parse_note("# T\n\n## A\n```\n## B\n```\n## C\n")
    assert [e.heading for e in parsed.entries] == ["A", "C"]


def test_numbers_ignore_dates_ids_sections_and_versions() -> None:
    entry = parse_note("## X\nv1.5.0 §1.1 on 2026-10-05, arXiv:2610.04646, H100×8, 8x7B, P99\n").entries[0]
    assert entry.numbers == []
    line = "16,200 tok/s；27-46%；3 ms；580 TFLOPS；~3000 GB/s；1.4x；72 req/s；80GB；8,820★；<4%"
    entry = parse_note(f"## X\n{line}\n").entries[0]
    assert [(n["value"], n["unit"]) for n in entry.numbers] == [
        ("16,200 tok/s", "tok/s"), ("27-46%", "%"), ("3 ms", "ms"), ("580 TFLOPS", "TFLOPS"),
        ("~3000 GB/s", "GB/s"), ("1.4x", "×"), ("72 req/s", "req/s"), ("80GB", "GB"), ("8,820★", "★"), ("<4%", "%"),
    ]
    assert all(len(n["context"]) <= 80 for n in entry.numbers)


def test_hedge_markers_are_case_insensitive_and_not_double_counted() -> None:
    text = "## X\n- Needs Verification before use\n- 结论未经验证。另一句。\n- TBD-verify 和 待确认 同一行\n"
    hedges = parse_note(text).entries[0].hedges
    assert [h["marker"] for h in hedges] == ["needs verification", "未经验证", "TBD-verify", "待确认"]
    assert hedges[1]["text"] == "结论未经验证。另一句。"  # a bullet is hedged whole


def test_front_matter_only_when_it_looks_like_yaml() -> None:
    parsed = parse_note("---\nauthor: spark\ntags: [a, b]\n---\n# T\n\n## A\nx\n")
    assert parsed.front_matter == {"author": "spark", "tags": "a, b"}
    assert parsed.entries[0].line == 7
    parsed = parse_note("---\nJust a rule, then prose.\n\n---\n## A\nx\n")
    assert parsed.front_matter == {}
    assert [(e.label, e.text) for e in parsed.entries] == [("preamble", "Just a rule, then prose."), (None, "x")]


def test_every_sample_note_parses() -> None:
    for path in sorted((workspace() / "inbox").rglob("*.md")):
        if path.stat().st_size == 0:
            continue
        parsed = parse_note(decode_bytes(path.read_bytes()).text)
        assert parsed.entries, path.name
        assert [e.ordinal for e in parsed.entries] == list(range(len(parsed.entries)))


def test_garbage_never_raises() -> None:
    rng = random.Random(20261007)
    alphabet = ["#", "## ", "\n", "-", "- ", "1. ", "|", "```", "---", "=", " ", "（", "）", "(", ")", "*", "**",
                "arXiv:", "2610.04646", "v2", "×", "%", "待核实", "▲", "·", "：", "\r", "\x00", "\ufeff", "a", "中"]
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 120)))
        parsed = parse_note(text)
        assert [e.ordinal for e in parsed.entries] == list(range(len(parsed.entries)))


@pytest.mark.slow
def test_twenty_megabyte_note_parses() -> None:
    base = (workspace() / R7).read_text(encoding="utf-8") + "\n"
    copies = 20_000_000 // len(base.encode())
    parsed = parse_note(base * copies)
    # Later copies' "# …" lines are plain level-1 sections with text, so each copy yields 9 entries.
    assert len(parsed.entries) == 9 * copies
    assert parsed.entries[-1].mentions[-1].canonical == "2610.02762"


@pytest.mark.parametrize(
    "text",
    [
        "x " * 500_000,
        "# " + " " * 500_000 + "x",
        "1" * 1_000_000,
        "待核实\n" * 200_000,
        "## A\n" + "- arXiv:2610.04646 2.5× 待核实 https://x.org/a\n" * 50_000,
        "## " + "（arXiv:2610.04646）(" * 50_000,
    ],
)
def test_pathological_input_stays_linear(text: str) -> None:
    assert isinstance(parse_note(text), ParsedNote)
