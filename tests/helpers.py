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
from tasks.config.settings import Settings, get_settings
from tasks.model.keys import briefing_keys
from tasks.publish.storage import ObjectStore, store_for
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import BriefingResult, brief, render_briefing
from tasks.stages.workspace import WorkspaceRef, find_changed_files, ingest_batch, register_workspace

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


_sequences: dict[str, list[str]] = {}  # per database: the sequences that number its tables' ids


def _id_sequences(engine: Engine) -> list[str]:
    """The sequences that number the tables' ids (serial or identity columns), looked up once per database."""
    key = engine.url.render_as_string(hide_password=False)
    if key not in _sequences:
        columns = [(t.name, c.name) for t in Base.metadata.sorted_tables for c in t.primary_key.columns]
        with engine.connect() as conn:
            found = [conn.execute(text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": f'"{t}"', "c": c}).scalar()
                     for t, c in columns]
        _sequences[key] = [s for s in found if s is not None]  # None: a key no sequence numbers (an arXiv id)
    return _sequences[key]


def empty_tables(engine: Engine) -> None:
    """Empty every table, ids restarting at 1 (what TRUNCATE … RESTART IDENTITY leaves).

    DELETE, children first, and each id sequence set back: a test leaves a few rows, and TRUNCATE
    (new files for every table) took 27 ms a call against 1 ms, about 250 times a run. Rows inserted
    afterwards may then be stored out of insertion order: a test reads them with ORDER BY."""
    with engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())
        for sequence in _id_sequences(engine):
            conn.execute(text("SELECT setval(CAST(:s AS regclass), 1, false)"), {"s": sequence})


def published_store(settings: Settings, workspace: Path | None = None) -> ObjectStore:
    """The store a run of `workspace` (default: the settings' own) publishes to, opened as runs open
    it: the configured one, else the workspace's folder under home (`Settings.storage_root_url`)."""
    return store_for(settings.model_copy(update={"workspace": workspace}) if workspace is not None else settings)


def expected(day: str) -> dict[str, Any]:
    return json.loads((EXPECTED / f"{day}.json").read_text(encoding="utf-8"))


def ingest_all(settings: Settings, workspace: Path) -> WorkspaceRef:
    """Run the ingest stages directly, without Prefect: every changed file, in batches as the daily
    flow ingests them (`ingest_batch`; the file-by-file path, `ingest_one`, stores the same rows,
    tests/ingest/test_bulk_write.py, and took a transaction per file: 9 of the 20 s of the window
    scaling test)."""
    ref = register_workspace(settings, workspace)
    ingest_batch(settings, ref, find_changed_files(settings, ref))
    return ref


def briefing_json(settings: Settings, workspace: Path, topic: str, day: dt.date) -> dict[str, Any]:
    """Ingest and render one briefing's JSON twin directly."""
    ref = ingest_all(settings, workspace)
    (topic_cfg,) = topics_for(settings, workspace, [topic])
    _, json_text = render_briefing(settings, ref, topic_cfg, window_of(topic_cfg, day))
    return json.loads(json_text)


def brief_day(settings: Settings, workspace: Path, topic: str, day: dt.date) -> BriefingResult:
    """Ingest, then brief and publish (topic, day) directly, as the daily run would."""
    ref = ingest_all(settings, workspace)
    (topic_cfg,) = topics_for(settings, workspace, [topic])
    return brief(settings, ref, topic_cfg, day)


def published_briefing(settings: Settings, topic: str, day: dt.date) -> tuple[bytes, dict[str, Any]]:
    """The published markdown (bytes) and JSON twin of (topic, day) in the settings' language."""
    md, twin = briefing_keys(topic, day, settings.lang)
    store = published_store(settings)
    return store.get(md) or b"", json.loads(store.get(twin) or b"{}")


def briefed_days(days: list[dt.date]) -> list[dt.date]:
    """The days of `days` on which the settings' schedule briefs (Settings.briefing_days)."""
    from tasks.model.windows import ScheduleError, window_for

    schedule = Settings(_env_file=None).default_schedule  # type: ignore[call-arg]
    out = []
    for day in days:
        try:
            window_for(day, schedule, "Asia/Shanghai")
        except ScheduleError:
            continue
        out.append(day)
    return out
