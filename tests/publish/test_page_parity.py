"""Contract: the page and the markdown say the same things (one model, two renderers).

The markdown is rendered by markdown-it (CommonMark with GFM tables), the page by its template;
both are read back as text, section by section (h2), and every list item of the markdown is on the
page, in the same order, with the same words: section 二's key points (with the 「…（另 N 条）」 marker
of a cut), section 五 from the count to the last line, including 最高价值条目 and 下次跟进重点. The
contents are generated (briefing_factory), with a cut list of key points, a highlight, advice to
follow up, other topics' ids and malformed ids, in both languages.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from tasks.common.item_keys import engineering_key
from tasks.model.judged import BriefingContent, Highlight, Paper
from tasks.publish.pages import render_page
from tasks.publish.rendered import rendered
from tasks.render.labels import LABELS
from tests.publish.briefing_factory import make_content

DAY = dt.date(2026, 10, 9)


class _Items(HTMLParser):
    """Per h2 section, the text of each list item (tags dropped, whitespace collapsed)."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, list[str]] = {}
        self.section = ""
        self.heading: list[str] | None = None
        self.item: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self.heading = []
        elif tag == "li":
            self.item = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2" and self.heading is not None:
            self.section = " ".join("".join(self.heading).split()).lstrip("# ")
            self.sections[self.section] = []
            self.heading = None
        elif tag == "li" and self.item is not None:
            self.sections.setdefault(self.section, []).append(" ".join("".join(self.item).split()))
            self.item = None

    def handle_data(self, data: str) -> None:
        for part in (self.heading, self.item):
            if part is not None:
                part.append(data)


def _items(html: str) -> dict[str, list[str]]:
    parser = _Items()
    parser.feed(html)
    return parser.sections


def _link_text(items: list[str]) -> list[str]:
    """A source's markdown link as its text: the markdown shows it literally (no source link is live
    there), the page as a safe link."""
    return [re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", item) for item in items]


def _content(lang: str) -> BriefingContent:
    base = make_content("inference", DAY, net_new=2, text="**注意** x | y")
    first = dataclasses.replace(base.papers[0], key_points=[*base.papers[0].key_points, "third"], key_points_cut=4)
    papers = [first, *base.papers[1:]]
    other = Paper(arxiv_id="2501.10001", title="Other", status="off_topic", reason=(), sources=base.papers[0].sources,
                  entries=[])
    highlight = Highlight(first.title, first.status, 2, 1, "它在 3 个基准上快 2 倍。", "吞吐 +40%", first.arxiv_id)
    return dataclasses.replace(base, papers=[*papers, other], increments=papers, highlight=highlight)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_list_item_of_the_markdown_is_on_the_page(lang: str) -> None:
    out = rendered(_content(lang), lang)
    md = _items(MarkdownIt("commonmark").enable("table").render(out.markdown))
    page = _items(render_page(out.view, lang).decode("utf-8"))
    L = LABELS[lang]
    for label in ("s2", "s5"):
        heading = " ".join(L[label].format(n=len(out.view["increments"])).lstrip("# ").split())
        assert md[heading], heading
        if label == "s5":
            assert page[heading] == md[heading]
        else:  # section 二 on the page is cards of lists: every markdown item is there, in order
            on_page = iter(page[heading])
            assert all(any(item == p for p in on_page) for item in _link_text(md[heading])), (md[heading], page[heading])
    summary = " ".join(md[" ".join(L["s5"].lstrip("# ").split())])
    assert L["sum_top"].split("{")[0] in summary and L["sum_next"].split("{")[0] in summary
    assert L["points_more"].format(n=4) in page[" ".join(L["s2"].format(n=len(out.view["increments"])).lstrip("# ").split())]


def _keyed(lang: str) -> BriefingContent:
    """`_content` with an engineering increment keyed, a contradiction and an earlier open item."""
    base = _content(lang)
    papers = [dataclasses.replace(p, item_key=engineering_key(p.title)) if p.arxiv_id is None else p for p in base.papers]
    (pending,) = base.verifications
    conflict = dataclasses.replace(pending, key="conflict:fooserve|%", kind="conflict", kinds=("conflict",))
    earlier = dataclasses.replace(pending, key="hedge:older", seen_in_window=False, raised_on=DAY - dt.timedelta(days=3))
    return dataclasses.replace(base, papers=papers, increments=[p for p in papers if p.status != "off_topic"],
                               verifications=[pending, conflict], earlier_verifications=[earlier])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_item_offers_its_key_and_feedback_commands_that_parse(lang: str) -> None:
    import html as html_lib
    import shlex

    from predigest.cli import build_parser

    content = _keyed(lang)
    out = rendered(content, lang)
    page = render_page(out.view, lang).decode("utf-8")
    commands = [html_lib.unescape(c) for c in re.findall(r'<p class="muted feedback">[^<]*<code>([^<]+)</code>', page)]
    pending, conflict = content.verifications
    (earlier,) = content.earlier_verifications
    (eng,) = [p for p in content.increments if p.arxiv_id is None]
    wanted = [*((p.arxiv_id, "not-ours") for p in content.increments if p.arxiv_id), (eng.item_key, "not-new"),
              (pending.item_key, "settled"), (conflict.item_key, "settled"), (conflict.item_key, "not-a-contradiction"),
              (earlier.item_key, "settled")]
    assert len({k for k, _ in wanted}) == len(wanted) - 1  # every item its own key; the conflict offers two verdicts
    parsed = []
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "predigest"
        args = build_parser().parse_args(argv[1:])
        assert (args.topic, args.date.isoformat()) == ("inference", DAY.isoformat())
        assert (args.reason != "") == (args.verdict in ("not-ours", "settled"))  # the page asks for a reason
        parsed.append((args.item, args.verdict))
    assert parsed == wanted
    for key, _ in wanted[-5:]:  # item keys (not arXiv ids) are shown beside their item
        assert f"<code>{key}</code>" in page
