"""Helpers shared by tests: where the sample workspace and expectations live, and a direct pipeline run."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from db.models import Base
from tasks import run
from tasks.config.settings import Settings, get_settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_WORKSPACE = ROOT / "examples" / "workspace"
FIXTURES = ROOT / "tests" / "fixtures"
EXPECTED = FIXTURES / "expected"
# No such folder: a workspace in which only the packaged topic and judgment configuration applies.
NO_WORKSPACE = ROOT / "tests" / "no-workspace"


def point_flows_at(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    """Make a flow's get_settings() return the test's database, home and storage (no workspace or
    topics from the environment; flows get them as parameters)."""
    monkeypatch.setenv("PREDIGEST_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("PREDIGEST_HOME", str(settings.home))
    monkeypatch.setenv("PREDIGEST_STORAGE_URL", settings.storage_root_url)
    monkeypatch.delenv("PREDIGEST_WORKSPACE", raising=False)
    monkeypatch.delenv("PREDIGEST_TOPICS", raising=False)
    get_settings.cache_clear()


def sample_copy(tmp_path: Path) -> tuple[Path, Path]:
    """A writable copy of the sample workspace at tmp_path/ws and an empty folder beside it,
    tmp_path/outside, for what lies outside the workspace; returns both."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    shutil.copytree(SAMPLE_WORKSPACE, workspace, symlinks=True)
    outside.mkdir()
    return workspace, outside


def truncate_all(engine: Engine) -> None:
    """Empty every table, restarting ids."""
    tables = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE TABLE {tables} RESTART IDENTITY CASCADE"))


def expected(day: str) -> dict[str, Any]:
    return json.loads((EXPECTED / f"{day}.json").read_text(encoding="utf-8"))


def ingest_all(settings: Settings, workspace: Path) -> run.WorkspaceRef:
    """Run the ingest stages directly, without Prefect."""
    ref = run.register_workspace(settings, workspace)
    for wf in run.find_changed_files(settings, ref):
        run.ingest_one(settings, ref, wf)
    return ref


def briefing_json(settings: Settings, workspace: Path, topic: str, day: dt.date) -> dict[str, Any]:
    """Ingest and render one briefing's JSON twin directly."""
    ref = ingest_all(settings, workspace)
    (topic_cfg,) = run.topics_for(settings, workspace, [topic])
    _, json_text = run.render_briefing(settings, ref, topic_cfg, run.window_of(topic_cfg, day))
    return json.loads(json_text)
