"""Contract: the published markdown is safe in any renderer, terminal or chat (tasks.common.safe_text).

Notes carrying arbitrary markup (raw HTML with event-handler attributes, scripts, comments, links,
images, autolinks, reference definitions, character references) and invisible controls (bidi
embeddings/overrides/isolates/marks, C0 and C1 controls, ESC sequences) are put into every place of
a briefing a workspace can fill (titles, key points, relations, sections, summaries, claims,
advice, malformed ids). The markdown, in both languages, rendered by markdown-it-py with raw HTML
*allowed*, holds no HTML token, no link, no image and no attribute at all (the template has none),
and no bidi or control character: each is shown as a visible escape (`\\u202e`, `\\x1b`), and the
markup is shown as text (`&lt;img …`), not lost. The same escapes apply to CLI and log text
(`visible`).
"""

from __future__ import annotations

import datetime as dt
import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from tasks.common.safe_text import markdown_text, visible
from tasks.render.markdown import render_markdown
from tests.publish.briefing_factory import make_content

MARKUP = [
    "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>", "<script>alert(1)</script>",
    "<a href='javascript:x'>y</a>", "<div\nonclick=x>z</div>", "<!-- c -->", "<?php x ?>", "<![CDATA[x]]>",
    "[x](https://evil.example/)", "![i](https://evil.example/p.png)", "[2610.04646](https://evil.example/)",
    "<https://evil.example>", "<mailto:a@evil.example>", "[r]: https://evil.example", "[r]", "&#60;img src=x onerror=y&#62;",
    "&lt;b&gt;", "&amp;", "javascript:alert(1)", "`", "``", "*", "_", "\\", "|", "#", "> ", "\n", "\n\n", "    ",
]
CONTROLS = ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\x1b[31m", "\x9b", "\x07", "\x00",
            "\x85", "\u2028", "\t", "\r"]
_INVISIBLE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")

texts = st.lists(st.one_of(st.sampled_from(MARKUP + CONTROLS), st.text(max_size=8)), max_size=12).map("".join)


def _tokens(markdown: str) -> list[Token]:
    out: list[Token] = []
    stack = MarkdownIt("commonmark", {"html": True}).parse(markdown)
    while stack:
        token = stack.pop()
        out.append(token)
        stack.extend(token.children or ())
    return out


@settings(max_examples=150, deadline=None)
@given(texts, st.sampled_from(["zh", "en"]))
def test_no_element_or_attribute_comes_from_a_source(text: str, lang: str) -> None:
    markdown = render_markdown(make_content("inference", dt.date(2026, 10, 9), text=text), lang)
    tokens = _tokens(markdown)
    assert not [t for t in tokens if t.type in ("html_inline", "html_block")]
    assert not [t for t in tokens if t.type in ("link_open", "image") or t.tag in ("a", "img")]
    assert not [t for t in tokens if t.attrs]
    assert _INVISIBLE.search(markdown) is None
    rendered = MarkdownIt("commonmark", {"html": True}).render(markdown)
    for tag in ("<img", "<svg", "<script", "<a ", "<div", "<iframe"):
        assert tag not in rendered.lower()


@given(texts)
def test_markup_is_shown_not_lost(text: str) -> None:
    """What the escapes show reads back as the source's text (controls as their escapes)."""
    shown = markdown_text(text)
    assert html.unescape(shown.replace("\\[", "[").replace("\\]", "]")) == visible(text, "\n")
    assert "<" not in shown and ">" not in shown


@given(st.text())
def test_visible_leaves_no_control(text: str) -> None:
    out = visible(text)
    assert _INVISIBLE.search(out) is None and "\n" not in out
    assert visible(out) == out  # escaping is idempotent: a shown escape is plain text
