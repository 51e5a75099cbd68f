"""Topics as the stages need them: which to brief, every known one, their windows and density rules."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from tasks.config.settings import Settings
from tasks.config.topics import (
    Topic,
    all_topic_names,
    discover_topics,
    judgment_for,
    load_topic_config,
    resolve_topic,
)
from tasks.judge.density import DensityRule
from tasks.model.windows import ScheduleError, Window, window_for


def topics_for(settings: Settings, workspace: Path, requested: list[str] | None) -> list[Topic]:
    """The topics to brief: as requested, else configured, else every knowledge document found."""
    config = load_topic_config(settings, workspace)
    names = list(requested or settings.topics or discover_topics(workspace))
    return _resolved(names, settings, workspace, config)


def all_topics(settings: Settings, workspace: Path) -> list[Topic]:
    """Every configured or discovered topic, for classifying entries at ingest."""
    config = load_topic_config(settings, workspace)
    return _resolved(known_topic_names(settings, workspace, config), settings, workspace, config)


def _resolved(names: list[str], settings: Settings, workspace: Path, config: dict[str, Any]) -> list[Topic]:
    # One judgment for all: it knows every topic, so it is the same for each (and ingest asks per file).
    judgment = judgment_for(settings, workspace, config) if names else None
    return [resolve_topic(name, settings, workspace, config, judgment) for name in names]


def known_topic_names(settings: Settings, workspace: Path, config: dict[str, Any] | None = None) -> list[str]:
    config = config if config is not None else load_topic_config(settings, workspace)
    return sorted(set(all_topic_names(config)) | set(discover_topics(workspace)) | set(settings.topics))


def window_of(topic: Topic, day: dt.date, since: dt.datetime | None = None) -> Window:
    """The window of a briefing asked for by date (run, score, explain): a day the topic's
    schedule skips still has one, from the schedule's last firing to that day's time."""
    return window_for(day, topic.schedule, topic.timezone, since, off_schedule=True)


def density_rule_for(settings: Settings, workspace: Path, topic: str) -> DensityRule:
    """The topic's density thresholds: `density` under the topic, else `[defaults.density]`, else the defaults."""
    config = load_topic_config(settings, workspace)
    entry = config.get("topics", {}).get(topic, {}).get("density") or config.get("defaults", {}).get("density")
    return DensityRule.from_mapping(entry, judgment_for(settings, workspace, config).density)


def scheduled_window(topic: Topic, day: dt.date) -> Window | None:
    """The topic's window for `day`, or None when its schedule has no briefing that day."""
    try:
        return window_for(day, topic.schedule, topic.timezone)
    except ScheduleError:
        return None
