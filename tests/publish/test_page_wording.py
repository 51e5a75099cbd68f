"""Contract: the markdown and the page say each thing once and never contradict themselves.

- Section 三 with no item of this window but earlier ones still tracked says that none is *new*
  (「本窗口没有新的待核实项」), never that there is none at all, in the markdown and on the page.
- An unreadable source's row states its error once: the summary that already carries it is not
  followed by the error again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest

from tasks.briefing.labels import LABELS
from tasks.briefing.render_json import render_json
from tasks.briefing.render_md import render_markdown
from tasks.publish.pages import render_page
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
