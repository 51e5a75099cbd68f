"""Ingest stage over ids and settings: register the workspace, find what changed, store it.

Each function opens its own session from the settings' engine, so it can run in any thread or
worker; nothing here holds a Session across stages.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from db.engine import ensure_schema, get_engine, refresh_statistics, session_scope
from db.retry import is_disconnect
from tasks.common.guard import describe
from tasks.config.judgment import Judgment
from tasks.config.settings import Settings
from tasks.config.topics import judgment_for
from tasks.ingest.changes import changed_files, current_versions, supersede_relisted
from tasks.ingest.reparse import fill_unparsed
from tasks.ingest.scan import WorkspaceFile, scan_workspace
from tasks.ingest.store import (
    BuiltFile,
    IngestOutcome,
    RowBuilder,
    build_in_worker,
    get_workspace_id,
    ingest_file,
    ingest_files,
    init_worker,
    plan_built,
    record_refused,
    write_planned,
)


@dataclass(frozen=True)
class WorkspaceRef:
    id: int
    root: str


def register_workspace(settings: Settings, workspace: Path) -> WorkspaceRef:
    """Bring the schema up to date and return the workspace row for this root."""
    if not workspace.is_dir():
        raise FileNotFoundError(f"workspace not found: {workspace}")
    engine = ensure_schema(settings)
    root = str(workspace.resolve())
    with session_scope(engine) as session:
        return WorkspaceRef(get_workspace_id(session, root), root)


# Files per transaction in `ingest_batch`: enough to amortise the bulk writes, small enough to hold.
INGEST_BATCH_FILES = 500


def find_changed_files(settings: Settings, ref: WorkspaceRef) -> list[WorkspaceFile]:
    """Workspace files whose current bytes are not stored yet (new or changed).

    A stored file whose size and mtime are those of its current version is taken as unchanged
    without being read (the assumption rsync and make rely on; `tasks.ingest.changes` says what it
    misses); the others whose path is stored are read and hashed. `settings.rehash` hashes them all.
    Rows stored before ingest stored what judging reads of their text get it first (`fill_unparsed`).
    """
    files = scan_workspace(Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        fill_unparsed(session, ref.id)  # rows stored before ingest stored what judging reads of them
        supersede_relisted(session, ref.id, files)  # a folder listed again is no longer named
        current = current_versions(session, ref.id)
    return changed_files(files, current, rehash=settings.rehash)


def ingest_one(settings: Settings, ref: WorkspaceRef, wf: WorkspaceFile) -> IngestOutcome:
    """Ingest one file in its own transaction."""
    judgment = judgment_for(settings, Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        return ingest_file(session, ref.id, wf, settings.timezone, judgment, settings.source_budget_units)


def ingest_batch(
    settings: Settings, ref: WorkspaceRef, files: Sequence[WorkspaceFile], batch_size: int = INGEST_BATCH_FILES,
    workers: int = 1,
) -> list[IngestOutcome]:
    """Ingest files `batch_size` at a time, one transaction and one bulk write per batch.

    The rows, and the order ids are taken in, are those `ingest_one` writes file by file. With
    `workers` > 1, that many worker processes parse the next batches while this process writes the
    current one (worth it from a few thousand files: each worker takes a second or two to start).
    A batch the database refuses (a value it rejects in one file) is rolled back and redone one
    file per transaction, so the other files are stored and the bad file fails alone: it is stored
    with the error (`record_refused`) and no entries. Only an error that even that cannot store is
    raised, once every file has been tried.
    """
    judgment = judgment_for(settings, Path(ref.root))  # the words every file is parsed with, resolved once
    engine = get_engine(settings)
    batches = [list(files[start : start + batch_size]) for start in range(0, len(files), batch_size)]
    outcomes: list[IngestOutcome] = []
    failures: list[BaseException] = []

    def one_by_one(batch: list[WorkspaceFile]) -> None:
        for wf in batch:
            try:
                with session_scope(engine) as session:
                    outcomes.append(ingest_file(session, ref.id, wf, settings.timezone, judgment,
                                                settings.source_budget_units))
            except Exception as exc:  # noqa: BLE001 - refused by the database, or anything else: this file only
                if is_disconnect(exc):
                    raise  # not this file's fault: the batch is redone (db.retry)
                outcomes.append(_record_refused(engine, ref, wf, exc, failures, ZoneInfo(settings.timezone)))

    if workers <= 1 or len(batches) < 2 or len({wf.path for wf in files}) != len(files):
        for batch in batches:
            try:
                with session_scope(engine) as session:
                    outcomes += ingest_files(session, ref.id, batch, settings.timezone, judgment,
                                             settings.source_budget_units)
            except Exception as exc:  # noqa: BLE001 - redone file by file: the bad file fails alone
                if is_disconnect(exc):
                    raise
                one_by_one(batch)
    else:
        _ingest_pipelined(settings, ref, batches, workers, judgment, outcomes, one_by_one)
    if sum(o.status == "new" for o in outcomes) >= ANALYZE_AFTER_FILES:
        refresh_statistics(engine, INGESTED_TABLES, PLANNED_COLUMNS)
    if failures:
        raise failures[0]
    return outcomes


def _record_refused(
    engine: Any, ref: WorkspaceRef, wf: WorkspaceFile, exc: Exception, failures: list[BaseException], tz: ZoneInfo
) -> IngestOutcome:
    """The file stored with the error its ingest raised (`tasks.ingest.store.record_refused`); only if
    even that fails is the error kept for the caller."""
    try:
        with session_scope(engine) as session:
            return record_refused(session, ref.id, wf, describe(exc), tz)
    except Exception as again:  # noqa: BLE001
        if is_disconnect(again):
            raise
        failures.append(again)
        return IngestOutcome(wf.path, 0, "failed", describe(exc))


# New files in one ingest after which the planner's statistics are refreshed at once: until
# autovacuum gets to it (and on servers where it is off) a freshly filled table has none, and the
# planner reads a window's items by scanning every source's.
ANALYZE_AFTER_FILES = 500
INGESTED_TABLES = ("sources", "items", "mentions", "paper_cards", "queue_entries", "knowledge_snapshots", "anchors")
# The columns the planner estimates with (the ones queries filter, join and sort on) of the two large
# tables. Statistics of their texts and JSON (sorting sampled jsonb values, detoasting texts) were
# most of the ANALYZE, which no worker overlaps: it runs after the last batch is written.
PLANNED_COLUMNS = {"items": ("id", "source_id", "ordinal", "observed_at"),
                   "mentions": ("id", "item_id", "arxiv_id", "malformed")}


def _ingest_pipelined(
    settings: Settings, ref: WorkspaceRef, batches: list[list[WorkspaceFile]], workers: int, judgment: Judgment,
    outcomes: list[IngestOutcome], one_by_one: Callable[[list[WorkspaceFile]], None],
) -> None:
    """Read, hash and parse each batch in the worker processes; look up and write it here, in order.

    The workers also turn rows into COPY text, so this process (which shares the machine with
    PostgreSQL) only looks up stored versions, takes ids and streams bytes.
    """
    engine = get_engine(settings)
    builder = RowBuilder(ref.id, settings.timezone, judgment, settings.source_budget_units)
    context = multiprocessing.get_context("spawn")  # never fork a process that runs threads
    with ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker,
                             initargs=(ref.id, settings.timezone, judgment, settings.source_budget_units)) as pool:

        def submit(batch: list[WorkspaceFile]) -> list[Future[list[BuiltFile]]]:
            step = max(1, -(-len(batch) // (4 * workers)))  # a few chunks per worker per batch
            return [pool.submit(build_in_worker, batch[i : i + step]) for i in range(0, len(batch), step)]

        ahead = [submit(batches[0])]
        for k, batch in enumerate(batches):
            if k + 1 < len(batches):
                ahead.append(submit(batches[k + 1]))  # parsed while this batch is written
            try:
                built = [b for future in ahead.pop(0) for b in future.result()]
                with session_scope(engine) as session:
                    planned, rows = plan_built(session, ref.id, batch, built)
                    outcomes.extend(write_planned(session, ref.id, planned, rows, builder))
            except Exception as exc:  # noqa: BLE001 - redone file by file: the bad file fails alone
                if is_disconnect(exc):
                    raise
                one_by_one(batch)
