"""Contract: `predigest run` prints a topic whose briefing failed as failed, with its error, next to
the topics that published; it exits non-zero only when every topic failed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from predigest import cli
from tasks.config.settings import get_settings
from tasks.stages.briefings import BriefingResult


def test_a_failed_topic_is_printed_failed(tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import flows.daily

    day = dt.date(2026, 10, 9)
    results = [BriefingResult("agents", day, "", "", "", False, error="ValueError: bad anchor"),
               BriefingResult("inference", day, "file:///m.md", "file:///j.json", "h", True)]
    knowledge = tmp_path / "organized" / "knowledge"  # a workspace the CLI accepts, with both topics
    knowledge.mkdir(parents=True)
    for topic in ("agents", "inference"):
        (knowledge / f"{topic}.md").write_text(f"# {topic}\n", encoding="utf-8")
    async def finished(**_: object) -> list[BriefingResult]:  # the flow is async, as the CLI awaits it
        return shown

    shown = results
    monkeypatch.setattr(flows.daily, "daily_briefing", finished)
    monkeypatch.setenv("PREDIGEST_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PREDIGEST_DATABASE_URL", database_url)  # the test database, not a new embedded one
    get_settings.cache_clear()  # the CLI reads the environment's settings once per process, as the flows do
    assert cli.main(["run", "--workspace", str(tmp_path), "--date", "2026-10-09"]) == 0
    out = capsys.readouterr().out
    assert "'agents' 2026-10-09 failed: ValueError: bad anchor" in out
    assert "inference 2026-10-09 published" in out
    shown = results[:1]
    assert cli.main(["run", "--workspace", str(tmp_path), "--date", "2026-10-09"]) == 1
