"""Contract of the statistics refresh after large ingests (`tasks.stages.workspace.ingest_batch`): an ingest that
stores at least `ANALYZE_AFTER_FILES` new files leaves the planner's statistics of the ingested
tables fresh (ANALYZE has run, whatever autovacuum does); a smaller one, or re-ingesting unchanged
files, does not run it; a role that may not ANALYZE only gets a warning. Runs on real PostgreSQL,
in a database of its own (statistics are per database)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from db.engine import make_engine, refresh_statistics
from tasks.config.settings import Settings
from tasks.ingest.store import IngestOutcome
from tasks.stages import workspace as workspace_stage
from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace


def _note(root: Path, n: int) -> None:
    inbox = root / "inbox" / "jay"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / f"2026-10-0{1 + n % 8}-note-{n}.md").write_text(
        f"# Note {n}\n\n## 条目1 · Paper {n}（arXiv:2610.{n:05d}）\n\nSpeeds up decoding by {n}%.\n", encoding="utf-8"
    )


def _analyzed(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        # Statistics counters reach pg_stat views a moment later; take this backend's own view now.
        conn.execute(text("SELECT pg_stat_clear_snapshot()"))
        rows = conn.execute(text(
            "SELECT relname, analyze_count + autoanalyze_count FROM pg_stat_user_tables "
            "WHERE relname IN ('sources', 'items', 'mentions')"
        )).all()
    return {name: int(count) for name, count in rows}


@pytest.fixture
def fresh(migrated_database: Callable[[str], str], tmp_path: Path) -> tuple[Settings, Engine]:
    url = migrated_database("predigest_stats")
    engine = make_engine(url, pool_size=2)
    settings = Settings(_env_file=None, home=tmp_path / "home", database_url=url,  # type: ignore[call-arg]
                        storage_url=(tmp_path / "published").as_uri())
    return settings, engine


def _ingest(settings: Settings, root: Path) -> list[IngestOutcome]:
    ref = register_workspace(settings, root)
    return ingest_batch(settings, ref, find_changed_files(settings, ref))


def test_large_ingest_refreshes_statistics_small_one_does_not(
    fresh: tuple[Settings, Engine], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, engine = fresh
    monkeypatch.setattr(workspace_stage, "ANALYZE_AFTER_FILES", 5)
    root = tmp_path / "ws"
    for n in range(4):
        _note(root, n)
    assert sum(o.status == "new" for o in _ingest(settings, root)) == 4
    before = _analyzed(engine)
    assert set(before) == {"sources", "items", "mentions"}

    for n in range(4, 9):
        _note(root, n)
    assert sum(o.status == "new" for o in _ingest(settings, root)) == 5
    after = _analyzed(engine)
    assert all(after[t] == before[t] + 1 for t in after), (before, after)
    with engine.connect() as conn:  # the planner's columns of the large tables have statistics
        for table, columns in workspace_stage.PLANNED_COLUMNS.items():
            stats = set(conn.execute(text("SELECT attname FROM pg_stats WHERE tablename = :t"), {"t": table}).scalars())
            assert set(columns) <= stats, (table, stats)

    assert _ingest(settings, root) == []  # nothing changed: nothing stored, no ANALYZE
    assert _analyzed(engine) == after
    engine.dispose()


def test_a_refused_analyze_is_a_warning(fresh: tuple[Settings, Engine], caplog: pytest.LogCaptureFixture) -> None:
    _, engine = fresh
    refresh_statistics(engine, ["no_such_table"])
    assert "could not refresh the planner's statistics of no_such_table" in caplog.text
    engine.dispose()
