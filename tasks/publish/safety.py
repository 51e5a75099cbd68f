"""What text from a workspace may become in a page or a feed: plain text, or a small sanitised subset of markup.

Nothing from a note is trusted (DESIGN.md, "Edges of the system"). Text is cleaned of characters that
break XML or reorder what a reader sees, note text goes through markdown-it-py with raw HTML off and
then nh3 with an allow-list of tags, attributes and URL schemes, and every link we build ourselves
passes `safe_url` (tasks.common.urls, the one test of a URL). Autoescaping in the templates does the rest.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import quote

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

from tasks.common.urls import MAIL_SCHEMES, arxiv_abs_url, safe_url

# Bidirectional embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069) can make a link
# or a claim read backwards ("Trojan Source"); marks (U+200E, U+200F, U+061C) likewise. Stripped, and
# every note-derived text is also rendered in its own dir="auto" element (<bdi>).
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Characters XML 1.0 does not allow at all (C0 controls other than tab/newline/CR, surrogates,
# U+FFFE/U+FFFF); lxml refuses them, so a single one would make the whole feed unwritable.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# C1 controls are legal XML but render as nothing useful and can confuse terminals and mail clients.
_C1 = re.compile("[\x7f-\x9f]")

_ARXIV_ID = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Za-z-]+)?/\d{7})")

NOTE_CACHE_SIZE = 8192  # note texts rendered to markup kept in memory (`note_html`)

_INLINE_TAGS = {"a", "code", "em", "strong", "del", "br"}
_ATTRIBUTES = {"a": {"href", "title"}}

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
# Block structure (headings, lists, tables) is the briefing's own; a note line is shown inline.
_MARKDOWN.disable(["image", "html_inline", "html_block"], ignoreInvalid=True)


def clean_text(text: str | None) -> str:
    """`text` without XML-invalid characters, C1 controls and bidirectional controls; None becomes ""."""
    if not text:
        return ""
    return _BIDI_CONTROLS.sub("", _C1.sub("", _XML_INVALID.sub("", text)))


def arxiv_url(arxiv_id: str | None) -> str | None:
    """The arXiv abstract page of a canonical id, or None when `arxiv_id` is not one."""
    if not arxiv_id or not _ARXIV_ID.fullmatch(arxiv_id):
        return None
    return arxiv_abs_url(quote(arxiv_id, safe="/."))


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:  # noqa: ARG001 - nh3's attribute_filter signature
    if attribute == "href":
        return safe_url(value, MAIL_SCHEMES)  # a note may link to an address
    return value


def sanitise(html: str) -> str:
    """`html` reduced to inline text markup with safe links only (nh3, an allow-list)."""
    return nh3.clean(
        html,
        tags=_INLINE_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes=set(MAIL_SCHEMES),
        attribute_filter=_filter_attribute,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


# Memoised: a pure function of its one (hashable) argument (the renderer and the allow-list are fixed
# at import, and Markup is immutable), and the same note texts recur on every page of a window's
# dates (a backfill year rendered ~170k of them with markdown-it and nh3). `typed`: a Markup argument
# is not served a str's entry. Bounded, for long-running workers.
@functools.lru_cache(maxsize=NOTE_CACHE_SIZE, typed=True)
def note_html(text: str | None) -> Markup:
    """One line of note text as inline markup: markdown emphasis, code and safe links; everything else as text."""
    cleaned = clean_text(text)
    if not cleaned:
        return Markup("")
    return Markup(sanitise(_MARKDOWN.renderInline(cleaned)).strip())
