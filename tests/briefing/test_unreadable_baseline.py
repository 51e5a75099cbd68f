"""Contract (issue 47, point 2): a knowledge document that cannot be read stops its topic's briefing.

A binary `organized/knowledge/inference.md` is recorded as unreadable at ingest; briefing the topic
then raises `BaselineUnreadable` naming the file and the reason, and nothing is published for it:
never a briefing that judges every paper NET-new against no baseline. Through the evening flow
the topic's result is failed with that error (what `predigest run` prints as its one line).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.model.keys import briefing_keys
from tasks.publish.storage import open_store
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tasks.window.anchors import BaselineUnreadable
from tests.helpers import ingest_all, point_flows_at, sample_copy

DAY = dt.date(2026, 10, 9)
BINARY = bytes(range(256)) * 8


def test_an_unreadable_baseline_stops_the_briefing_and_publishes_nothing(
        clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    workspace, _ = sample_copy(tmp_path)
    (workspace / "organized" / "knowledge" / "inference.md").write_bytes(BINARY)
    ref = ingest_all(settings, workspace)
    (topic,) = topics_for(settings, workspace, ["inference"])
    with pytest.raises(BaselineUnreadable, match=r"organized/knowledge/inference\.md: .*binary"):
        brief(settings, ref, topic, DAY)
    store = open_store(settings.storage_root_url)
    assert all(store.get(key) is None for key in briefing_keys("inference", DAY))


def test_the_evening_flow_reports_the_topic_failed_with_the_file_named(
        prefect_harness: None, clean_db: Engine, settings: Settings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # What `predigest run` prints as "'inference' <date> failed: …" (and exits 1 for a one-topic run).
    from flows.daily import daily_briefing

    workspace, _ = sample_copy(tmp_path)
    (workspace / "organized" / "knowledge" / "inference.md").write_bytes(BINARY)
    point_flows_at(monkeypatch, settings)
    (result,) = asyncio.run(daily_briefing(date=DAY, topics=["inference"], workspace=str(workspace)))
    assert result.error is not None and not result.written
    assert "cannot read the knowledge document organized/knowledge/inference.md" in result.error
