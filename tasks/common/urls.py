"""Links that may leave the system in an output: only http(s), and arXiv ids point at arXiv.

Workspace text is untrusted markup. A link copied from a note into a briefing must never run
anything where the briefing is rendered: `javascript:`, `vbscript:`, `data:` (in any case, with
entities, control characters or whitespace inside the scheme) are refused. `safe_url` is the one
test of a URL; `defang_markdown` applies it to every link, autolink and raw HTML tag of a
markdown text (the whole rendered briefing passes through it), and a link whose text names an
arXiv id is rewritten to `https://arxiv.org/abs/<canonical id>` whatever it pointed at.
"""

from __future__ import annotations

import html
import re
import urllib.parse

from tasks.common.arxiv_ids import find_ids

ARXIV_ABS = "https://arxiv.org/abs/"
SAFE_SCHEMES = frozenset({"http", "https"})
MAIL_SCHEMES = frozenset({"http", "https", "mailto"})  # where a reader may also write to an address
# Inside a URL: whitespace, C0/C1 controls, and bidirectional embeddings, overrides, isolates and marks.
_HIDDEN = re.compile("[\x00-\x20\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Browsers drop ASCII tab/newline anywhere in a URL and C0 controls/space at its ends.
_URL_JUNK = re.compile(r"[\x00-\x20\x7f]+")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def arxiv_abs_url(canonical_id: str) -> str:
    """The one link a briefing gives for an arXiv id."""
    return ARXIV_ABS + canonical_id


def safe_url(url: str | None, schemes: frozenset[str] = SAFE_SCHEMES) -> str | None:
    """`url` when following it can only fetch a web page (an absolute http or https URL; `mailto:`
    too where the caller passes it in `schemes`), else None. The one test of a URL in an output.

    An allow-list, not a block-list. Entities are decoded and whitespace/control characters removed
    before the scheme is read, as a browser would, so `&#106;avascript:`, `java\\tscript:` and
    `JaVaScRiPt:` are all refused; so are relative and scheme-less URLs (their meaning depends on
    where the output is served) and URLs holding whitespace, control characters or bidirectional
    controls (which hide what the link is, or make it read backwards).
    """
    url = (url or "").strip()
    if not url or _HIDDEN.search(url):
        return None
    decoded = _URL_JUNK.sub("", html.unescape(html.unescape(url)))
    m = _SCHEME.match(decoded)
    if m is None or m.group(1).lower() not in schemes or _HIDDEN.search(decoded):
        return None
    try:
        parts = urllib.parse.urlsplit(decoded)
    except ValueError:
        return None
    if not (parts.path if m.group(1).lower() == "mailto" else parts.netloc):
        return None
    return url


# [text](target "title") and ![alt](target); the target may be <bracketed>.
_MD_LINK = re.compile(r"(!?)\[([^\]\n]{0,2000})\]\(\s*(<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)([^)\n]*)\)")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^<>\s]*)>")
# A reference definition: [label]: target
_REF_DEF = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(\S+)", re.M)
# Raw HTML tags (and comments/declarations): shown as text, never rendered.
_TAG = re.compile(r"<(?=[A-Za-z/!?])")
# A character reference: kept as text (`&amp;...`), so no renderer decodes it into a scheme or tag.
_ENTITY = re.compile(r"&(?=#[0-9]{1,8};?|#[xX][0-9A-Fa-f]{1,8};?|[A-Za-z][A-Za-z0-9]{1,31};)")
# A dangerous scheme written out in plain text: its colon is escaped so it is not a scheme any more.
# (`data:` is left alone in plain text: it is a common word before a colon, and only a link target
# can make it a scheme, which `safe_url` refuses.)
_BARE_SCHEME = re.compile(r"(?i)\b(javascript|vbscript|livescript|mocha)(\s*):")


def _link(m: re.Match[str]) -> str:
    bang, text, target, rest = m.groups()
    ids = [x.canonical for x in find_ids(text) if x.canonical]
    if ids:
        return f"{bang}[{text}]({arxiv_abs_url(ids[0])})"
    url = target[1:-1] if target.startswith("<") else target
    if safe_url(url) is not None:
        return m.group(0)
    return text  # the link text stays, the link goes


def _autolink(m: re.Match[str]) -> str:
    url = m.group(1)
    return m.group(0) if safe_url(url) is not None else url


def _ref_def(m: re.Match[str]) -> str:
    return m.group(0) if safe_url(m.group(2).strip("<>")) is not None else m.group(1) + "#"


def defang_markdown(text: str) -> str:
    """Markdown with every link, image, autolink and reference target either a safe http(s) URL or
    gone (links naming an arXiv id point at its abs page), raw HTML tags escaped (`&lt;script>`),
    character references escaped, and dangerous schemes in plain text broken (`javascript\\:`)."""
    if "&" in text:
        text = _ENTITY.sub("&amp;", text)
    if "](" in text:
        text = _MD_LINK.sub(_link, text)
    if "<" in text:
        text = _AUTOLINK.sub(_autolink, text)
        text = _TAG.sub("&lt;", text)
    if "]:" in text:
        text = _REF_DEF.sub(_ref_def, text)
    return break_schemes(text)


def defang_plain(text: str) -> str:
    """A plain-text value (a JSON field) with dangerous schemes broken (`javascript\\:`) and
    markdown links to them reduced to their text; nothing else changes."""
    if "](" in text:
        text = _MD_LINK.sub(_link, text)
    return break_schemes(text)


def break_schemes(text: str) -> str:
    """`text` with every dangerous scheme written out in it broken (`javascript\\:`)."""
    if ":" in text:
        text = _BARE_SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}\\:", text)
    return text
