"""Contract: a pasted briefing is recognised by the renderer's own wording (tasks.judge.echoes).

- The summary a briefing renders (its fields formatted from tasks/config/labels.toml, zh and en),
  pasted as a list or as one paragraph, is a summary block; one field alone, or prose, is not.
- A note is laid out as a briefing when its headings carry three of the renderer's section titles,
  numbered in any style; two, or ordinary headings, are not.
"""

from __future__ import annotations

import pytest

from tasks.judge.echoes import laid_out, summary_spans
from tasks.render.labels import LABELS


def _fields(lang: str) -> list[str]:
    L = LABELS[lang]
    return [L["sum_count"].format(n=3, net_new=1, engineering=2, adjacent=0),
            L["sum_top"].format(label="Harrier", why="x"), L["sum_checks"].format(items="T1"),
            L["sum_next"].format(items="T1")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_rendered_summary_is_found_as_a_list_or_a_paragraph(lang: str) -> None:
    fields = _fields(lang)
    listed = "intro\n\n" + "\n".join(f"- {f}" for f in fields) + "\n\nafter"
    assert summary_spans(listed) == [(2, 6)]
    assert summary_spans("x\n" + " ".join(fields)) == [(0, 2)]
    assert summary_spans(fields[0] + "\n\n" + fields[1]) == []  # one field per block is no summary
    assert summary_spans("增量条数不多，下次跟进。") == []


@pytest.mark.parametrize(("headings", "echo"), [
    (["一、检查过的来源清单", "二、今日该主题最重要的增量（8 条） › 增量 1 · X", "五、摘要"], True),
    (["1. Sources checked", "2. Most important increments today (3)", "5. Summary"], True),
    (["（一）检查过的来源清单", "（四）可引用的 arXiv 号列表"], False),
    (["Summary", "Sources", "条目#1 X"], False),
])
def test_a_note_laid_out_in_the_briefings_sections(headings: list[str], echo: bool) -> None:
    assert laid_out(headings) is echo
