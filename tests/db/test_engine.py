"""Engine layer: URL resolution (configured or embedded), sessions, and safe self-migration."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, func, select, text

from db.engine import (
    DatabaseError,
    current_revision,
    ensure_schema,
    get_engine,
    head_revision,
    make_engine,
    resolve_database_url,
    session_scope,
    upgrade_database,
)
from db.models import Base, Workspace
from tasks.config.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def _settings(**fields: Any) -> Settings:
    """Settings from `fields` only: no `.env` file (PREDIGEST_* variables still apply)."""
    return Settings(_env_file=None, **fields)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("configured", "expected"),
    [
        ("postgresql://u:p@db:5432/x", "postgresql+psycopg://u:p@db:5432/x"),
        ("postgres://u@db/x", "postgresql+psycopg://u@db/x"),
        ("postgresql+psycopg2://u@db/x", "postgresql+psycopg://u@db/x"),
        ("postgresql+psycopg://u@db/x?sslmode=require", "postgresql+psycopg://u@db/x?sslmode=require"),
    ],
)
def test_configured_url_is_normalised_to_psycopg3(configured: str, expected: str) -> None:
    settings = _settings(database_url=configured)
    assert resolve_database_url(settings) == expected


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A temp dir with a short absolute path, so the embedded server's socket fits in its data dir."""
    path = Path(tempfile.mkdtemp(prefix="pdg", dir="/tmp" if Path("/tmp").is_dir() else None))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _resolve_in_subprocess(home: Path) -> str:
    """Resolve the URL as a CLI command would: in its own process, with only PREDIGEST_HOME set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREDIGEST_")}
    env |= {"PREDIGEST_HOME": str(home), "PYTHONPATH": str(ROOT)}
    code = "from db.engine import resolve_database_url as r; from tasks.config.settings import Settings as S; print(r(S(_env_file=None)))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=home.parent, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.slow
@pytest.mark.parametrize("deep", [False, True], ids=["short-home", "home-too-deep-for-socket"])
def test_embedded_server_starts_under_home_and_is_reused(short_dir: Path, deep: bool) -> None:
    home = short_dir / ("h" * 100 if deep else "home")
    pgdata = home / "pg"
    try:
        url = _resolve_in_subprocess(home)
        assert url.startswith("postgresql+psycopg://postgres:@/predigest?host=/")
        assert (pgdata / "PG_VERSION").exists()
        # The first process has exited; the server must still be up and be reused, not restarted.
        assert _resolve_in_subprocess(home) == url
        with psycopg.connect(url.replace("+psycopg", "")) as conn:
            assert conn.execute("SELECT current_database()").fetchone() == ("predigest",)
        if not deep:
            assert url.endswith(f"host={pgdata}")
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver
        if (pgdata / "PG_VERSION").exists():
            pgserver.get_server(pgdata, cleanup_mode="delete").cleanup()


def test_concurrent_upgrades_do_not_fail(database_factory: Callable[[str], str]) -> None:
    url = database_factory("predigest_race")
    engines = [make_engine(url, pool_size=1) for _ in range(4)]
    barrier = threading.Barrier(len(engines))
    errors: list[BaseException] = []

    def upgrade(engine: Engine) -> None:
        try:
            barrier.wait()
            upgrade_database(engine)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=upgrade, args=(engine,)) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        assert errors == []
        assert current_revision(engines[0]) == head_revision()
    finally:
        for engine in engines:
            engine.dispose()


@pytest.mark.slow
def test_concurrent_upgrades_from_separate_processes_do_not_fail(
    database_factory: Callable[[str], str],
) -> None:
    # Threads in one process are serialised in-process; only processes exercise the advisory lock.
    url = database_factory("predigest_race_procs")
    start_at = time.time() + 3  # after every interpreter has imported, so the upgrades overlap
    code = (
        "import sys, time; from db.engine import make_engine, upgrade_database; "
        "e = make_engine(sys.argv[1], pool_size=1); "
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time())); upgrade_database(e)"
    )
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, url, str(start_at)], env=env, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    failures = [err for proc in procs if (err := proc.communicate(timeout=120)[1]) and proc.returncode]
    assert failures == []
    engine = make_engine(url, pool_size=1)
    try:
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_ensure_schema_migrates_a_fresh_database_and_caches_the_engine(
    database_factory: Callable[[str], str], tmp_path: Path
) -> None:
    settings = _settings(home=tmp_path, database_url=database_factory("predigest_ensure"))
    engine = ensure_schema(settings)
    try:
        assert current_revision(engine) == head_revision()
        assert ensure_schema(settings) is engine
        assert get_engine(settings) is engine
    finally:
        engine.dispose()


def test_ensure_schema_refuses_an_unknown_revision(
    database_factory: Callable[[str], str], tmp_path: Path
) -> None:
    settings = _settings(home=tmp_path, database_url=database_factory("predigest_newer"))
    engine = get_engine(settings)
    try:
        upgrade_database(engine)
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = 'from_the_future'"))
        with pytest.raises(DatabaseError, match="from_the_future"):
            ensure_schema(settings)
    finally:
        engine.dispose()


def test_session_scope_commits_or_rolls_back(clean_db: Engine) -> None:
    with session_scope(clean_db) as session:
        session.add(Workspace(root="/a"))
    with pytest.raises(RuntimeError), session_scope(clean_db) as session:
        session.add(Workspace(root="/b"))
        session.flush()
        raise RuntimeError("boom")
    with session_scope(clean_db) as session:
        assert session.scalars(select(Workspace.root)).all() == ["/a"]


def test_clean_db_empties_tables_and_restarts_ids(clean_db: Engine) -> None:
    with session_scope(clean_db) as session:
        workspace = Workspace(root="/first")
        session.add(workspace)
        session.flush()
        assert workspace.id == 1
    with clean_db.connect() as conn:
        for table in Base.metadata.sorted_tables:
            assert conn.scalar(select(func.count()).select_from(table)) == (
                1 if table.name == "workspaces" else 0
            )
