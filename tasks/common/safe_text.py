"""Source text made safe to show anywhere: in markdown, on a terminal, in a log line.

Nothing from a workspace is trusted (docs/faults.md, "Hostile inputs"). Two things make text unsafe:
- invisible controls (bidirectional marks, C0/C1 controls, U+2028/U+2029): `visible` shows each as a
  visible escape (`\\u202e`, `\\x1b`); tab and newline only where the caller says (`keep`);
- markup (`<`, `>`, `&`, markdown links and images): `markdown_text` escapes it.
Markdown output passes `markdown_text`; CLI lines carrying workspace names or errors pass `visible`,
and `show_controls_in_logs` applies it to every log record. The HTML page has its own sanitiser
(`tasks.publish.safety`).
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
