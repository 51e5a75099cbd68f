"""Contract: the same workspace, date and topic give byte-identical briefings, whatever the
ingest order, database ids or number of re-renders; the markdown keeps the seeds' six sections."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Engine

from predigest.settings import Settings
from tasks import run
from tests.helpers import SAMPLE_WORKSPACE, truncate_all


def _render(settings: Settings, reverse: bool) -> tuple[str, str]:
    ref = run.register_workspace(settings, SAMPLE_WORKSPACE)
    files = run.find_changed_files(settings, ref)
    for wf in reversed(files) if reverse else files:
        run.ingest_one(settings, ref, wf)
    (topic,) = run.topics_for(settings, SAMPLE_WORKSPACE, ["inference"])
    return run.render_briefing(settings, ref, topic, run.window_of(topic, dt.date(2026, 10, 7)))


def test_same_inputs_give_identical_bytes(clean_db: Engine, settings: Settings) -> None:
    first = _render(settings, reverse=False)
    assert _render(settings, reverse=False) == first  # re-render on the same rows
    truncate_all(clean_db)
    assert _render(settings, reverse=True) == first  # other ids, other insertion order


def test_markdown_has_the_seed_sections(clean_db: Engine, settings: Settings) -> None:
    markdown, _ = _render(settings, reverse=False)
    headings = [line for line in markdown.splitlines() if line.startswith("## ")]
    assert [h[3:5] for h in headings] == ["一、", "二、", "三、", "四、", "五、", "六、"]
    assert "本轮增量密度为「高」" in markdown
    assert "inbox/tom/2026-10-07-0900-hf-daily-2026-10-07.md" in markdown  # the empty file is named
