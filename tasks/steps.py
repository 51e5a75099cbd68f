"""Prefect tasks: thin, verb-noun wrappers over the stage functions in tasks.run (no retries: no network)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from prefect import task

from predigest.settings import Settings
from predigest.topics import Topic
from predigest.windows import Window
from tasks import run
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.store import IngestOutcome


@task(name="register-workspace")
def register_workspace(settings: Settings, workspace: str) -> run.WorkspaceRef:
    """Migrate the schema if behind and return the workspace's id."""
    return run.register_workspace(settings, Path(workspace))


@task(name="find-changed-files")
def find_changed_files(settings: Settings, ref: run.WorkspaceRef) -> list[WorkspaceFile]:
    """List workspace files whose bytes are not stored yet."""
    return run.find_changed_files(settings, ref)


@task(name="ingest-source", task_run_name="ingest {wf.path}")
def ingest_source(settings: Settings, ref: run.WorkspaceRef, wf: WorkspaceFile) -> IngestOutcome:
    """Store one file as a source with its items and mentions."""
    return run.ingest_one(settings, ref, wf)


@task(name="resolve-topics")
def resolve_topics(settings: Settings, workspace: str, topics: list[str] | None) -> list[Topic]:
    """Decide which topics to brief and load their configuration."""
    return run.topics_for(settings, Path(workspace), topics)


@task(name="compute-window")
def compute_window(topic: Topic, day: dt.date, since: dt.datetime | None) -> Window:
    """Compute the briefing window of a topic for a date."""
    return run.window_of(topic, day, since)


@task(name="publish-briefing", task_run_name="brief {topic.name} {window.date}")
def publish_briefing(settings: Settings, ref: run.WorkspaceRef, topic: Topic, window: Window) -> run.BriefingResult:
    """Assemble one topic's briefing as of its cutoff and publish it."""
    return run.assemble_and_publish(settings, ref, topic, window)


@task(name="record-verifications", task_run_name="verify {topic.name} {day}")
def record_verifications(
    settings: Settings, ref: run.WorkspaceRef, topic: Topic, day: dt.date, since: dt.datetime | None = None
) -> list[dict[str, Any]]:
    """Record pending verifications raised or resolved by the recent windows, up to `day`'s (idempotent)."""
    return run.record_recent_verifications(settings, ref, topic, day, run.VERIFY_CATCH_UP_DAYS, since)
