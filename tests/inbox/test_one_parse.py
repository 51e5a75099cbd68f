"""Contract: each note is parsed once, at ingest, by the one parser (tasks.inbox.document), as are
the knowledge document and the paper cards, and judging parses none: the verifications and the
briefing read the tree ingest stored.

The parser is counted where it is called (pyromark's event iterator), so a second parse of a note
anywhere (an outline of the entry again, a tree for a hedge's subject) shows up as a text seen twice.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tests.generate.siblings import DAY, TOPIC, write_workspace
from tests.helpers import empty_tables, ingest_all


def test_a_note_is_parsed_once_and_judging_parses_nothing(
        parsed: Counter[str], engine: Engine, module_settings: Settings, tmp_path: Path) -> None:
    empty_tables(engine)
    write_workspace(tmp_path)
    notes = sorted((tmp_path / "inbox").rglob("*.md"))
    assert len(notes) >= 2
    organized = [*(tmp_path / "organized/knowledge").glob("*.md"), *(tmp_path / "organized/paper_cards").glob("*.md")]
    ref = ingest_all(module_settings, tmp_path)
    assert sum(parsed.values()) == len(notes) + len(organized), parsed.most_common(3)
    assert max(parsed.values()) == 1  # no text read twice: no entry re-parsed apart from its note
    parsed.clear()
    (topic,) = topics_for(module_settings, tmp_path, [TOPIC])
    window = window_of(topic, DAY)
    derive_verifications(module_settings, ref, topic, window.date)
    markdown, _ = render_briefing(module_settings, ref, topic, window)
    assert markdown.strip()  # the briefing was made
    assert sum(parsed.values()) == 0, parsed.most_common(3)
