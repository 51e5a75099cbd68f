"""One briefing rendered once from its content model, for every output a run publishes or announces.

`rendered(content, lang)` is the one place a briefing's outputs get their input: the markdown from
the content model itself, and the view (`tasks.render.twin.briefing_view`, the value the
JSON twin is written from) for everything else: the JSON twin, its page, the merge proposal, and
its summary (`date_summary`) for the topic's index page, feed, the site index, the run-page artifact
and the notifications. The twin is an output only: nothing this run publishes reads it back.

A topic's site spans every date, most of them published by earlier runs (or by other lanes of a
backfill); their summaries are read from the store by `tasks.publish.site.stored_summaries`, the
only reader of published briefings.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tasks.model.judged import BriefingContent
from tasks.publish.pages import date_summary
from tasks.render.markdown import render_markdown
from tasks.render.twin import briefing_view, twin_text


@dataclass(frozen=True)
class RenderedBriefing:
    """A briefing's published texts and the view its other outputs render from."""

    topic: str
    date: dt.date
    markdown: str
    json_text: str  # the JSON twin: `view` written out
    view: Mapping[str, Any]  # equal to the twin parsed back (order included)
    summary: dict[str, Any]  # `date_summary(view)`: what the site, feed, artifact and notifications need


def rendered(content: BriefingContent, lang: str) -> RenderedBriefing:
    """Render `content` in `lang` once: markdown, view, JSON twin and summary."""
    view = briefing_view(content, lang)
    markdown = render_markdown(content, lang, view)
    return RenderedBriefing(content.topic, content.date, markdown, twin_text(view), view, date_summary(view))
