"""Contract of the bulk ingest path (tasks.ingest.rows and tasks.ingest.write, through
tasks.stages.workspace.ingest_batch): it stores exactly the rows, ids included, that the original per-file ORM
path (tasks.ingest.orm) stores one file per transaction, for the sample workspace plus the hostile
inputs of tests/ingest/bad_inputs.py, then after edits, a new note and a revert; in batches of any
size, in this process and with worker processes that read, parse and encode. Timestamps set to
now() are compared by whether they are set. Runs on real PostgreSQL (two databases per case)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from db.engine import make_engine, session_scope
from db.models import Base
from tasks.config.settings import Settings
from tasks.config.topics import judgment_for
from tasks.ingest import orm
from tasks.ingest import rows as row_builder
from tasks.ingest.orm import ingest_file_orm
from tasks.ingest.rows import RowBuilder
from tasks.ingest.store import IngestOutcome, _unchanged, plan_files
from tasks.stages.workspace import WorkspaceRef, find_changed_files, ingest_batch, register_workspace
from tests.helpers import SAMPLE_WORKSPACE
from tests.ingest.bad_inputs import write_cases

NOW_COLUMNS = {"ingested_at", "created_at", "superseded_at", "looked_up_at", "published_at", "modified_at", "derived_at"}
Ingest = Callable[[Settings, WorkspaceRef, list[Any]], list[IngestOutcome]]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample workspace plus the hostile inputs; each run leaves it as it found it."""
    root = tmp_path_factory.mktemp("bulk") / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
    outside = root.parent / "outside"
    outside.mkdir()
    write_cases(root, outside)
    for big in root.glob("inbox/amy/*-amy-huge.md"):
        big.write_text(big.read_text(encoding="utf-8")[:200_000], encoding="utf-8")  # 20 MB: slow, says nothing new
    return root


def _per_file(settings: Settings, ref: WorkspaceRef, files: list[Any]) -> list[IngestOutcome]:
    """The reference: what `ingest_file` did before the bulk path, one transaction per file."""
    builder = RowBuilder(ref.id, settings.timezone, judgment_for(settings, Path(ref.root)))
    engine = make_engine(settings.database_url or "", pool_size=1)
    out = []
    try:
        for wf in files:
            with session_scope(engine) as session:
                (p,) = plan_files(session, ref.id, [wf])
                if p.existing is not None:
                    out.append(_unchanged(session, ref.id, wf, p.existing))
                else:
                    out.append(ingest_file_orm(session, ref.id, wf, p.data, p.digest, p.error, builder.tz, builder.words))
    finally:
        engine.dispose()
    return out


def _run(settings: Settings, workspace: Path, ingest: Ingest) -> tuple[list[Any], list[Any]]:
    """Ingest, edit three notes and add one, ingest, revert one, ingest; outcomes and every table."""
    outcomes = []

    def step() -> None:
        ref = register_workspace(settings, workspace)
        outcomes.append([(o.path, o.source_id, o.status, o.error) for o in ingest(settings, ref,
                                                                              find_changed_files(settings, ref))])

    notes = sorted(p for p in (workspace / "inbox" / "jay").glob("*.md"))[:3]
    saved = {p: (p.read_bytes(), p.stat()) for p in notes}
    step()
    new_note = workspace / "inbox" / "jay" / "2026-10-09-0900-jay-new.md"
    try:
        for i, p in enumerate(notes):
            p.write_bytes(saved[p][0] + f"\n\n## 99. Added on vLLM KV cache (arXiv:2609.0000{i})\n- 2.{i}x\n".encode())
        new_note.write_text("## 1. New vLLM note arXiv:2609.12345\n", encoding="utf-8")
        step()
        notes[0].write_bytes(saved[notes[0]][0])
        step()
    finally:
        for p, (data, st) in saved.items():
            p.write_bytes(data)
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
        new_note.unlink(missing_ok=True)
    return outcomes, _dump(settings.database_url or "")


def _dump(url: str) -> list[Any]:
    engine = make_engine(url, pool_size=1)
    try:
        with engine.connect() as conn:
            tables = []
            for table in Base.metadata.sorted_tables:
                columns = ", ".join(f'("{c.name}" IS NULL)' if c.name in NOW_COLUMNS else f'"{c.name}"'
                                    for c in table.columns)
                order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
                tables.append((table.name, conn.execute(text(f'SELECT {columns} FROM "{table.name}" ORDER BY {order}'))
                               .all()))
            for (name,) in conn.execute(text("SELECT sequencename FROM pg_sequences ORDER BY 1")):
                tables.append((name, conn.execute(text(f'SELECT last_value FROM "{name}"')).all()))
            return tables
    finally:
        engine.dispose()


def _settings(home: Path, migrated_database: Callable[[str], str]) -> Settings:
    url = migrated_database("predigest_bulk")
    return Settings(_env_file=None, home=home / "home", database_url=url,  # type: ignore[call-arg]
                    storage_url=(home / "published").as_uri())


@pytest.fixture(scope="module")
def expected(
    tmp_path_factory: pytest.TempPathFactory, migrated_database: Callable[[str], str], workspace: Path
) -> tuple[list[Any], list[Any]]:
    return _run(_settings(tmp_path_factory.mktemp("reference"), migrated_database), workspace, _per_file)


@pytest.mark.parametrize(("workers", "batch_size"), [(1, 500), (1, 7), pytest.param(2, 9, marks=pytest.mark.slow)])
def test_bulk_ingest_stores_what_the_per_file_path_stores(
    tmp_path: Path, migrated_database: Callable[[str], str], workspace: Path, expected: tuple[list[Any], list[Any]],
    workers: int, batch_size: int,
) -> None:
    def bulk(settings: Settings, ref: WorkspaceRef, files: list[Any]) -> list[IngestOutcome]:
        return ingest_batch(settings, ref, files, batch_size=batch_size, workers=workers)

    outcomes, tables = _run(_settings(tmp_path, migrated_database), workspace, bulk)
    assert outcomes == expected[0]
    assert batch_size > len(outcomes[0]) or len(outcomes[0]) > 2 * batch_size  # one batch, or several (pipelined)
    for (name, rows), (expected_name, expected_rows) in zip(tables, expected[1], strict=True):
        assert (name, len(rows)) == (expected_name, len(expected_rows))
        assert rows == expected_rows, name


def test_a_parse_that_raises_part_way_keeps_the_rows_it_made(
    tmp_path: Path, migrated_database: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Such a file goes through the per-file path inside the batch: entries before the failure
    are stored, the source records the error, and the files after it are written in bulk."""
    root = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
    (root / "inbox" / "jay" / "2026-10-07-1200-jay-partway.md").write_text(
        "## 1. PARTWAY-FIRST vLLM serving (arXiv:2609.01111)\n- fine\n\n## 2. BOOM-PARTWAY KV cache (arXiv:2609.02222)\n",
        encoding="utf-8")

    # A bug while storing the second entry, on both paths (the bulk rows and the ORM per-file path).
    add, item = row_builder._Lines.add, orm.Item

    def add_raising(self: row_builder._Lines, ordinal: int, x: Any) -> None:
        if "BOOM-PARTWAY" in x.heading:  # the second entry's heading: the first entry is made by then
            raise RuntimeError("parser bug")
        add(self, ordinal, x)

    def item_raising(**fields: Any) -> Any:
        if "BOOM-PARTWAY" in fields["heading"]:
            raise RuntimeError("parser bug")
        return item(**fields)

    monkeypatch.setattr(row_builder._Lines, "add", add_raising)
    monkeypatch.setattr(orm, "Item", item_raising)
    expected = _run(_settings(tmp_path / "reference", migrated_database), root, _per_file)

    def bulk(settings: Settings, ref: WorkspaceRef, files: list[Any]) -> list[IngestOutcome]:
        return ingest_batch(settings, ref, files, batch_size=7)

    outcomes, tables = _run(_settings(tmp_path / "bulk", migrated_database), root, bulk)
    assert [o for o in outcomes[0] if o[0].endswith("-partway.md")][0][3] == "parse failed: RuntimeError: parser bug"
    items = dict(tables)["items"]
    assert any("PARTWAY-FIRST" in str(row) for row in items)  # the first entry is kept
    assert (outcomes, tables) == expected


@pytest.mark.parametrize("workers", [1])
def test_a_value_the_database_refuses_fails_its_file_alone(
    tmp_path: Path, migrated_database: Callable[[str], str], workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch is rolled back and redone one file per transaction: every other file is stored,
    and the refused file is stored with the database's error and no entries (nothing is raised)."""
    import tasks.cards.parse

    # Categories are cut to their column's width; without the cut, the database refuses the value.
    monkeypatch.setattr(tasks.cards.parse, "MAX_CATEGORY_CHARS", 1000)
    root = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
    (root / "organized" / "paper_cards" / "9003-2609-35555.md").write_text(
        f'---\narxiv: "2609.35555"\ntitle: "Too long"\nprimary: {"x" * 80}\n---\n\nTL;DR vLLM\n', encoding="utf-8")
    settings = _settings(tmp_path, migrated_database)
    ref = register_workspace(settings, root)
    files = find_changed_files(settings, ref)
    # (Worker processes would not see the monkeypatch: this runs in this process only.)
    outcomes = ingest_batch(settings, ref, files, batch_size=20, workers=workers)
    assert {o.path for o in outcomes} == {wf.path for wf in files}
    refused = [o for o in outcomes if o.path.endswith("9003-2609-35555.md")]
    assert refused and refused[0].error and "ingest failed" in refused[0].error
    assert "value too long" in refused[0].error
    stored = {path for (path,) in _query(settings, "SELECT path FROM sources")}
    assert stored == {wf.path for wf in files}
    assert _query(settings, "SELECT count(*) FROM items i JOIN sources s ON s.id = i.source_id "
                            "WHERE s.path LIKE '%9003-2609-35555.md'")[0][0] == 0
    assert find_changed_files(settings, register_workspace(settings, root)) == []


def _query(settings: Settings, sql: str) -> list[Any]:
    engine = make_engine(settings.database_url or "", pool_size=1)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql)))
    finally:
        engine.dispose()
