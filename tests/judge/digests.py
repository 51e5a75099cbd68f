"""Generated digest notes (one paper among rows about other topics) and the views judging reads.

A digest lists ROWS papers in one of several styles (a table, R- or C-numbered lines, bullets with
nested details, numbered lines), under one of several headings (none, a title, a section), in
Chinese or English. `views` parses a note the way ingest does and builds the entries and mentions
collect would read back, so the judging code can be called without a database.
"""

from __future__ import annotations

import datetime as dt

from tasks.inbox.notes import parse_note
from tasks.inbox.outline_reader import stored_outline
from tasks.inbox.own_parts import paper_outlines
from tasks.ingest.sources import WHOLE_ITEMS, entry_text
from tasks.model.window_views import EntryView, MentionView

ROWS = 15
WHEN = dt.datetime(2026, 11, 3, 2, 0, tzinfo=dt.UTC)
# The paper under test: its name and what its own row says (a thesis with a headline number).
TARGET = {
    "zh": ("PagedFlux", "分页 KV cache 调度在 H100 上把吞吐提高到 2.7×，TTFT 降低 41%", "vLLM 插件形式发布"),
    "en": ("PagedFlux", "paged KV cache scheduling lifts throughput to 2.7× on H100 and cuts TTFT by 41%",
           "ships as a vLLM plugin"),
}
# Rows about other topics: each with its own coined name and words that must not leak.
OTHERS = {
    "zh": [
        ("Vidora{n}", "视频生成模型在 4K 分辨率下保持时序一致性第{n}版"),
        ("AgentPath{n}", "智能体长程任务基准覆盖网页操作场景第{n}组"),
        ("Anchorly{n}", "另一篇论文的锚定说明与引用整理第{n}条"),
    ],
    "en": [
        ("Vidora{n}", "video generation keeps temporal consistency at 4K resolution, release {n}"),
        ("AgentPath{n}", "agents benchmark of long-horizon web tasks, suite {n}"),
        ("Anchorly{n}", "anchoring note of another paper with its citations, item {n}"),
    ],
}
STYLES = ("table", "r_lines", "c_lines", "bullets", "numbered")
HEADINGS = ("none", "title", "section", "title_and_section")
TARGET_ID = "2611.04321"


def other_id(n: int) -> str:
    return f"2611.{10000 + n:05d}"


def rows(lang: str, at: int) -> list[tuple[str, str, str, str]]:
    """(id, name, description, detail) per row; the target at position `at` (0-based)."""
    out = []
    for n in range(ROWS):
        if n == at:
            name, desc, detail = TARGET[lang]
            out.append((TARGET_ID, name, desc, detail))
        else:
            name, desc = OTHERS[lang][n % len(OTHERS[lang])]
            out.append((other_id(n), name.format(n=n), desc.format(n=n), f"{name.format(n=n)} detail {n}"))
    return out


def _line(style: str, n: int, row: tuple[str, str, str, str]) -> list[str]:
    arxiv, name, desc, detail = row
    if style == "table":
        return [f"| R{n} | arXiv:{arxiv} | {name} | {desc} | ⭐⭐⭐ |"]
    if style == "r_lines":
        return [f"R{n} {name}（arXiv:{arxiv}）— {desc}"]
    if style == "c_lines":
        return [f"**C{n}**: {name} (arXiv:{arxiv}): {desc}"]
    if style == "bullets":
        return [f"- **{name}**（arXiv:{arxiv}）：{desc}", f"  - {detail}"]
    return [f"{n}. {name} (arxiv.org/abs/{arxiv}) — {desc}"]


def digest(style: str, heading: str, lang: str, at: int) -> str:
    """A digest note listing ROWS papers, the target at position `at`."""
    head: list[str] = []
    if heading in ("title", "title_and_section"):
        head += ["# Radar · 2026-11-03" if lang == "en" else "# 雷达 · 2026-11-03", ""]
    if heading in ("section", "title_and_section"):
        head += ["## Candidates (15)" if lang == "en" else "## 今日候选（15）", ""]
    body: list[str] = []
    if style == "table":
        body += ["| # | arXiv | name | point | stars |" if lang == "en" else "| # | arXiv | 名称 | 要点 | 可信度 |",
                 "|---|---|---|---|---|"]
    for n, row in enumerate(rows(lang, at), 1):
        body += _line(style, n, row)
    return "\n".join(head + body) + "\n"


def views(path: str, text: str, source_id: int = 1, kind: str = "note"
          ) -> tuple[list[MentionView], dict[tuple[int, int], EntryView]]:
    """The mentions and entries collect would read for this note (as ingest stores it)."""
    parsed = parse_note(text)
    entries: dict[tuple[int, int], EntryView] = {}
    mentions: list[MentionView] = []
    texts = [entry_text(e.heading_path, e.text, (m.canonical for m in e.mentions if not m.malformed))
             for e in parsed.entries]
    papers = paper_outlines(texts, []) if kind not in WHOLE_ITEMS else [None] * len(texts)
    for e, text_, paper in zip(parsed.entries, texts, papers, strict=True):
        entries[(source_id, e.ordinal)] = EntryView(
            source_id, path, kind, e.ordinal, e.label, e.heading_path, e.title, e.text,
            tuple(e.hedges), tuple(e.numbers), WHEN, text_.ids, outline=stored_outline(e.text), paper_outlines=paper)
        mentions += [MentionView(source_id, path, kind, e.ordinal, e.label, e.heading_path, e.title, m.canonical,
                                 m.raw, m.malformed, m.context, WHEN, tuple(e.hedges))
                     for m in e.mentions]
    return mentions, entries
