"""Contract: the markdown and the page say each thing once and never contradict themselves.

- Section 三 with no item of this window but earlier ones still tracked says that none is *new*
  (「本窗口没有新的待核实项」), never that there is none at all, in the markdown and on the page.
- An unreadable source's row states its error once: the summary that already carries it is not
  followed by the error again.
- In CommonMark the markdown's header lines stay lines (one paragraph each) and section 五 is a list.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest

from tasks.publish.pages import render_page
from tasks.render.labels import LABELS
from tasks.render.markdown import render_markdown
from tasks.render.twin import render_json
from tests.publish.briefing_factory import make_content

DAY = dt.date(2026, 10, 9)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_new_pending_item_does_not_read_as_none_at_all(lang: str) -> None:
    base = make_content("inference", DAY, net_new=1)
    (pending,) = base.verifications
    quiet = dataclasses.replace(base, verifications=[])
    tracked = dataclasses.replace(base, verifications=[], earlier_verifications=[pending])
    L = LABELS[lang]
    assert L["s3_none"] in render_markdown(quiet, lang) and L["s3_none_window"] not in render_markdown(quiet, lang)
    md = render_markdown(tracked, lang)
    assert L["s3_none_window"] in md and L["s3_none"] not in md
    page = render_page(json.loads(render_json(tracked, lang)), lang).decode()
    assert L["s3_none_window"] in page and L["s3_none"] not in page


def test_an_unreadable_sources_error_is_stated_once_in_its_row() -> None:
    base = make_content("inference", DAY, net_new=1)
    error = "empty file (0 bytes)"
    broken = dataclasses.replace(base.sources[0], summary=f"读取失败：{error}", error=error, outcome="error")
    content = dataclasses.replace(base, sources=[broken])
    page = render_page(json.loads(render_json(content)), "zh").decode()
    row = next(r.split("</tr>")[0] for r in page.split("<tr>")[1:] if broken.path in r and "读取失败" in r)
    assert row.count(error) == 1, row


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_markdown_renders_as_meant_in_commonmark(lang: str) -> None:
    # Header lines are paragraphs of their own and section 五 is a list, one item per line: in
    # CommonMark consecutive lines would run together into one paragraph.
    from markdown_it import MarkdownIt

    md = render_markdown(make_content("inference", DAY, net_new=2), lang)
    L = LABELS[lang]
    header = md.split(L["s1"], 1)[0]
    tokens = MarkdownIt("commonmark").parse(header)
    paragraphs = [t.content for t in tokens if t.type == "inline"]
    assert len(paragraphs) >= 5 and not [p for p in paragraphs if "\n" in p], paragraphs  # one line each
    five = md.split(L["s5"], 1)[1].split("\n## ", 1)[0]
    html = MarkdownIt("commonmark").render(five)
    items = [line for line in five.splitlines() if line.strip()]
    assert html.count("<li>") == len(items) and all(line.startswith("- ") for line in items)
