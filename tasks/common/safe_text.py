"""Source text made safe to show anywhere: in markdown, on a terminal, in a log line.

Nothing from a workspace is trusted (DESIGN.md, "Edges of the system"). Two things make text
unsafe to show, whatever renders it:

- invisible controls: bidirectional embeddings, overrides, isolates and marks (U+202A..U+202E,
  U+2066..U+2069, U+200E, U+200F, U+061C) make a name or a claim read backwards ("Trojan
  Source"); C0 and C1 control characters (ESC starts terminal escape sequences) and U+2028/U+2029
  break lines. `visible` shows each as a visible escape (`\\u202e`, `\\x1b`), so what a reader
  sees is what is there. Tab and newline are kept only where the caller says so (`keep`).
- markup: `<`, `>` and `&` are HTML to any renderer that allows raw HTML, and `[text](url)`,
  `![alt](src)`, `[label]: url` and `<scheme:…>` are links and images in markdown. `markdown_text`
  escapes them: `&lt;`, `&gt;`, `&amp;`, and a backslash that keeps link and image syntax literal.

Markdown output passes `markdown_text` (the briefing, `tasks.briefing.render_md`, whose own template
holds none of these characters); CLI lines that carry names or errors from a workspace pass
`visible`, and `show_controls_in_logs` (installed by the CLI) applies it to every log record.
The HTML page has its own sanitiser (`tasks.publish.safety`), which removes these controls.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

# Bidirectional controls, then C0 and C1 controls and the Unicode line/paragraph separators.
_INVISIBLE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\x00-\x1f\x7f-\x9f\u2028\u2029]")
# The markdown that would make an element from source text: an image's "![", a link's "](", a
# reference definition's "]:" and any bracket that could start one; raw HTML and entities.
_MARKUP = re.compile(r"[<>&\[\]]")
_MARKUP_ESCAPES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "[": "\\[", "]": "\\]"}


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, keep: str = "") -> str:
    """`text` with every bidi control and C0/C1 control shown as an escape (`\\u202e`, `\\x1b`),
    except the characters in `keep` (e.g. "\\n" for a multi-line text)."""
    if not _INVISIBLE.search(text):
        return text
    return _INVISIBLE.sub(lambda m: m.group(0) if m.group(0) in keep else _escape(m.group(0)), text)


def markdown_text(text: str, keep: str = "\n") -> str:
    """`text` as literal markdown: controls visible (`visible`), `<`, `>`, `&` as HTML references
    and brackets escaped, so no renderer makes an element, attribute, link or image of it."""
    text = visible(text, keep)
    if not _MARKUP.search(text):
        return text
    return _MARKUP.sub(lambda m: _MARKUP_ESCAPES[m.group(0)], text)


def _visible_record_factory(base: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = base(*args, **kwargs)
        message = record.getMessage()
        shown = visible(message, "\n\t")  # a multi-line message (a traceback) keeps its lines
        if shown != message:  # the arguments (a path, an error) carried controls: log what they show
            record.msg, record.args = shown, None
        return record

    make.shows_controls = True  # type: ignore[attr-defined]
    return make


def show_controls_in_logs() -> None:
    """Make every log record of this process show bidi and control characters as escapes
    (`visible`), whoever logs it and whatever handler writes it. Idempotent."""
    base = logging.getLogRecordFactory()
    if not getattr(base, "shows_controls", False):
        logging.setLogRecordFactory(_visible_record_factory(base))
