"""Contract of the default schedule as the briefing stage reads it (tasks.stages.briefed_topics).

- By default a topic briefs Monday to Saturday at the cutoff: Monday's window reaches back to
  Saturday's cutoff (48 hours), as the team's hand-written Monday briefings do.
- A Sunday asked for by date (run, score, explain) still briefs: Saturday's cutoff to Sunday's.
- `PREDIGEST_BRIEFING_DAYS=*` briefs daily; a workspace's topics file may set a topic's schedule.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tasks.config.settings import Settings
from tasks.stages.briefed_topics import scheduled_window, topics_for, window_of

MONDAY, SUNDAY = dt.date(2026, 10, 12), dt.date(2026, 10, 11)


@pytest.fixture(autouse=True)
def _default_days(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREDIGEST_BRIEFING_DAYS", raising=False)  # the suite briefs daily (tests/conftest.py)


def _inference(tmp_path: Path, **env: str) -> tuple[Settings, Path]:
    (tmp_path / "organized" / "knowledge").mkdir(parents=True)
    (tmp_path / "organized" / "knowledge" / "inference.md").write_text("# inference\n", encoding="utf-8")
    return Settings(_env_file=None, home=tmp_path / "home", **env), tmp_path  # type: ignore[call-arg, arg-type]


def test_default_monday_window_reaches_back_to_saturdays_cutoff(tmp_path: Path) -> None:
    settings, ws = _inference(tmp_path)
    (topic,) = topics_for(settings, ws, ["inference"])

    monday = window_of(topic, MONDAY)
    assert monday.start_local.isoformat() == "2026-10-10T22:20:00+08:00"
    assert monday.cutoff_local.isoformat() == "2026-10-12T22:20:00+08:00"
    assert scheduled_window(topic, MONDAY) == monday


def test_a_sunday_asked_for_by_date_briefs_from_saturdays_cutoff(tmp_path: Path) -> None:
    settings, ws = _inference(tmp_path)
    (topic,) = topics_for(settings, ws, ["inference"])

    sunday = window_of(topic, SUNDAY)
    assert (sunday.start_local.isoformat(), sunday.cutoff_local.isoformat()) == (
        "2026-10-10T22:20:00+08:00", "2026-10-11T22:20:00+08:00")
    assert scheduled_window(topic, SUNDAY) is None  # no scheduled evening: deployments and backfill skip it


@pytest.mark.parametrize(("days", "hours"), [("*", 24), ("1-6", 48), ("0-6", 24)])
def test_briefing_days_setting_decides_mondays_window(tmp_path: Path, days: str, hours: int) -> None:
    settings, ws = _inference(tmp_path, briefing_days=days)
    (topic,) = topics_for(settings, ws, ["inference"])

    monday = window_of(topic, MONDAY)
    assert monday.end - monday.start == dt.timedelta(hours=hours)


def test_a_topics_file_schedule_wins_over_the_setting(tmp_path: Path) -> None:
    settings, ws = _inference(tmp_path)
    (ws / "predigest-topics.toml").write_text('[topics.inference]\nschedule = "20 22 * * *"\n', encoding="utf-8")
    (topic,) = topics_for(settings, ws, ["inference"])

    assert window_of(topic, MONDAY).end - window_of(topic, MONDAY).start == dt.timedelta(hours=24)
