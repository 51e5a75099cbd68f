"""Contract: a briefing stays readable at any input size (tasks.render.shown).

Every list that grows with the input (other topics' ids, malformed ids, the sources tables, the
citable-id table, the paths named on one line) shows at most its bound from `shown.toml` in the
markdown and on the page, the same items in both, then how many it left out; the JSON twin keeps
every item. A cut sources table keeps the most telling rows first (an unreadable source, one that
gave an increment). Below the bounds nothing changes. Contents are generated (briefing_factory).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re

import pytest

from tasks.model.judged import BriefingContent, Paper
from tasks.publish.pages import render_page
from tasks.publish.rendered import rendered
from tasks.render.labels import LABELS
from tasks.render.shown import SHOWN, first, source_rows
from tests.publish.briefing_factory import make_content

DAY = dt.date(2026, 10, 9)


def _flood(n_sources: int, n_other: int, n_malformed: int, errors_at_end: int = 3) -> BriefingContent:
    """A day of `n_sources` notes (the last `errors_at_end` unreadable), `n_other` other topics'
    papers, `n_malformed` malformed ids, and one paper named by every note."""
    paths = [f"inbox/p{k % 7}/{DAY.isoformat()}-note-{k:05d}.md" for k in range(n_sources)]
    base = make_content("inference", DAY, net_new=1, paths=paths)
    sources = [dataclasses.replace(s, outcome="confirmatory") for s in base.sources]
    for k in range(n_sources - errors_at_end, n_sources):
        sources[k] = dataclasses.replace(sources[k], outcome="error", error="unreadable: permission denied")
    sources[n_sources // 2] = dataclasses.replace(sources[n_sources // 2], outcome="increments")
    wide = dataclasses.replace(base.papers[0], sources=list(paths))
    other = [Paper(arxiv_id=f"2501.{10000 + k:05d}", title=f"Other {k}", status="off_topic", reason=(), sources=[paths[0]], entries=[])
             for k in range(n_other)]
    papers = [wide, *base.papers[1:], *other]
    return dataclasses.replace(base, sources=sources, papers=papers, increments=[wide, *base.increments[1:]],
                               malformed=[(f"arXiv:12.{k}", paths[0]) for k in range(n_malformed)])


def _table_paths(markdown: str, section: str) -> list[str]:
    """The first cell of each table row of the section whose heading starts with `section`."""
    part = markdown.split("\n## " + section, 1)[1].split("\n## ", 1)[0]
    return [line.split(" | ")[0][2:] for line in part.splitlines() if line.startswith("| inbox/")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_flood_is_cut_in_the_markdown_and_kept_in_the_twin(lang: str) -> None:
    content = _flood(n_sources=SHOWN.sources + 150, n_other=SHOWN.off_topic * 20, n_malformed=SHOWN.malformed + 9)
    out = rendered(content, lang)
    L = LABELS[lang]
    for section in ("一", "六") if lang == "zh" else ("1", "6"):
        rows = _table_paths(out.markdown, section)
        assert len(rows) == SHOWN.sources
        errored = [s.path for s in content.sources if s.outcome in ("error", "increments")]
        assert set(errored) <= set(rows)  # the most telling rows survive the cut
        assert rows == [s.path for s in content.sources if s.path in set(rows)]  # and keep their order
    assert out.markdown.count(L["table_more"].format(shown=SHOWN.sources, n=150)) == 2
    assert L["list_more"].format(n=SHOWN.off_topic * 19) in out.markdown
    assert L["list_more"].format(n=9) in out.markdown
    assert "2501.10000" in out.markdown and f"2501.{10000 + SHOWN.off_topic:05d}" not in out.markdown
    twin = json.loads(out.json_text)
    assert len(twin["off_topic"]) == SHOWN.off_topic * 20
    assert len(twin["sources"]) == SHOWN.sources + 150
    assert len(twin["malformed"]) == SHOWN.malformed + 9
    assert len(twin["increments"][0]["primary_sources"]) == SHOWN.sources + 150


def test_the_page_cuts_the_same_items_as_the_markdown() -> None:
    content = _flood(n_sources=SHOWN.sources + 40, n_other=SHOWN.off_topic + 5, n_malformed=3)
    out = rendered(content, "zh")
    page = render_page(out.view, "zh").decode("utf-8")
    shown_md = _table_paths(out.markdown, "一")
    shown_page = re.findall(r'<span class="src" title="([^"]+)"', page)
    assert list(dict.fromkeys(shown_page)) == shown_md
    assert page.count(LABELS["zh"]["table_more"].format(shown=SHOWN.sources, n=40)) == 2
    assert LABELS["zh"]["list_more"].format(n=5) in page
    assert f"2501.{10000 + SHOWN.off_topic:05d}" not in page


def test_output_size_does_not_grow_with_the_flood() -> None:
    small = rendered(_flood(n_sources=SHOWN.sources + 1, n_other=SHOWN.off_topic + 1, n_malformed=1), "zh")
    large = rendered(_flood(n_sources=SHOWN.sources * 10, n_other=SHOWN.off_topic * 100, n_malformed=1), "zh")
    assert max(map(len, large.markdown.splitlines())) <= max(map(len, small.markdown.splitlines())) + 20
    assert len(large.markdown) < 1.2 * len(small.markdown)
    # The twin keeps everything, and an other topic's paper with nothing judged costs a few fields.
    per_id = (len(large.json_text) - len(small.json_text)) / (SHOWN.off_topic * 99 + SHOWN.sources * 9)
    assert per_id < 400


def test_within_the_bounds_nothing_is_cut() -> None:
    content = _flood(n_sources=SHOWN.sources, n_other=SHOWN.off_topic, n_malformed=SHOWN.malformed)
    markdown = rendered(content, "en").markdown
    assert "more, all in the JSON twin" not in markdown and "more are not listed" not in markdown
    assert len(_table_paths(markdown, "1")) == SHOWN.sources


def test_source_rows_prefer_the_telling_and_keep_order() -> None:
    outcomes = ["off_topic", "confirmatory", "error", "increments", "confirmatory", "error"]
    assert source_rows(outcomes, 3) == ([2, 3, 5], 3)
    assert source_rows(outcomes, 6) == (list(range(6)), 0)
    assert first([1, 2, 3], 2) == ([1, 2], 1)

