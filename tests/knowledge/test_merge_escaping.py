"""Contract: what the noon merge writes into the team's knowledge document holds no live markup
from a source (tasks.merge.propose.propose, through tasks.common.safe_text.markdown_text, the
one escaping rule the briefing's markdown passes too).

Hostile titles and statements (raw HTML, an image, a javascript: link, bidi and C0 controls) in
entries, References lines and the change-log row: rendered as CommonMark with raw HTML on, the
merged document has no element and no link that the source text made, and no bidi or control
character; the source's words stay readable; ids still parse, and merging again changes nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest
from markdown_it import MarkdownIt

from tasks.knowledge.parse import parse_knowledge
from tasks.merge.proposal import proposal_text
from tasks.merge.propose import propose
from tasks.model.noon_merge import MergeIncrement

TZ = ZoneInfo("Asia/Shanghai")
MERGE_AT = dt.datetime(2026, 10, 10, 12, 0, tzinfo=TZ)
DOC = ("# 主题 · living doc\n\nversion: v7 · updated: 2026-10-01 12:00 · citations: 1\n\n"
       "## 更新记录（近 5 次）\n\n| 午间更新 | 合入内容 | 引用数 |\n|---|---|---|\n| 2026-10-01 12:00 | Beta | 1 |\n\n"
       "## §1 Serving\n\n### §1.1 Engines\n\n- **Alpha**（arXiv:2401.00002）：fast engine。[anchored 2026-09-30]\n\n"
       "## References\n\n- arXiv:2309.00004 — Eta (cited 2026-09-29)\n")

HOSTILE = [
    "<script>alert(1)</script>Kestrel",
    "Kestrel <img src=x onerror=alert(1)>",
    "[Kestrel](javascript:alert(1))",
    "![Kestrel](https://evil.example/x.png)",
    "Kestrel\u202egnp.exe\u202c \x1b[31mred",
    "<a href='https://evil.example'>Kestrel</a> &amp; co",
]


# What CommonMark makes of the document's own markdown; any other element or attribute came from a source.
_OWN = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "table", "thead", "tbody", "tr",
        "th", "td", "hr", "br"}
_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9]*)([^>]*)>")


def _elements(text: str) -> list[tuple[str, str]]:
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    return [(name, attrs) for name, attrs in _TAG.findall(html)
            if name.lower() not in _OWN or (attrs.strip() and not attrs.strip().startswith('style="text-align'))]


@pytest.mark.parametrize("title", HOSTILE)
@pytest.mark.parametrize("status", ["net_new", "engineering", "adjacent"])
def test_a_hostile_title_makes_no_element_in_the_merged_document(title: str, status: str) -> None:
    assert _elements(DOC) == []  # the document itself renders with its own elements only
    arxiv_id = None if status == "engineering" else "2402.00010"
    inc = MergeIncrement(arxiv_id, title, status, f"{title} speeds up decoding", "§1.1 Engines", "text")
    proposal = propose(DOC, [inc], MERGE_AT, briefing_date=dt.date(2026, 10, 9), path="k.md")
    new = proposal.document
    assert _elements(new) == [], new
    assert not any(ch in new for ch in "\u202e\u202c\x1b"), new
    assert "Kestrel" in new  # the source's words stay readable
    if arxiv_id:
        anchors = {a.arxiv_id for a in parse_knowledge(new, TZ).anchors}
        assert arxiv_id in anchors
    again = propose(new, [inc], MERGE_AT, briefing_date=dt.date(2026, 10, 9), path="k.md")
    assert not again.changed


@pytest.mark.parametrize("title", HOSTILE)
def test_the_proposal_object_shows_controls_and_its_diff_adds_no_markup(title: str) -> None:
    kept = MergeIncrement(None, title, "engineering", "ships a scheduler", "§1.1 Engines", "text")
    skipped = MergeIncrement("2402.00011", title, "net_new", "", None, "")
    proposal = propose(DOC, [kept, skipped], MERGE_AT, briefing_date=dt.date(2026, 10, 9), path="k.md",
                       skip=["2402.00011"])
    text = proposal_text("inference", dt.date(2026, 10, 9), proposal)
    assert not any(ch in text for ch in "\u202e\u202c\x1b"), text
    added = "\n".join(line[1:] for line in proposal.diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    assert _elements(added) == [], added
