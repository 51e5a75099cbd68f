"""Write workspace files as source versions with their items and mentions; unchanged files write nothing.

`ingest_files` takes a batch of files in one transaction: each file is read and hashed once, one
query finds the versions already stored, the new ones are parsed (`tasks.ingest.rows`), and
everything they produce is written in bulk (`tasks.ingest.write`: one INSERT for the sources, COPY
for cards, anchors, items, mentions and queue entries). The rows, and the order ids are handed out
in, are those `ingest_file` wrote one file at a time: ids are taken from each table's sequence in
file order, then entry order. A file whose parse raises part-way is written by the per-file ORM
path (`tasks.ingest.orm`, the original implementation) at its place in the order, so its partial
rows are what they always were.

With worker processes (`tasks.stages.workspace.ingest_batch(workers=2)`) the workers read, hash and parse
(`build_in_worker`) and this process only looks up stored versions and writes (`plan_built`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from sqlalchemy import select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Source, Workspace
from tasks.common.guard import guarded
from tasks.config.judgment import Judgment
from tasks.ingest.orm import ingest_file_orm
from tasks.ingest.reparse import STORED_PARSE
from tasks.ingest.rows import (
    MAX_SOURCE_BYTES,
    BuiltFile,
    FileRows,
    RowBuilder,
    fallback_source,
    init_worker,
    read_file,
    sha256,
)
from tasks.ingest.rows import build_files as build_in_worker
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.write import IngestOutcome, write_new

__all__ = [
    "MAX_SOURCE_BYTES", "BuiltFile", "FileRows", "IngestOutcome", "PlannedFile", "RowBuilder", "build_in_worker",
    "get_workspace_id", "ingest_file", "ingest_files", "init_worker", "plan_built", "plan_files", "read_file",
    "record_refused", "sha256", "write_planned",
]

UTC = dt.UTC


def get_workspace_id(session: Session, root: str) -> int:
    """The id of the workspace row for `root`, created on first use."""
    # A new workspace's rows are all stored by this ingest, so it carries what this ingest stores.
    session.execute(insert(Workspace).values(root=root, stored_parse=STORED_PARSE)
                    .on_conflict_do_nothing(index_elements=["root"]))
    return session.execute(select(Workspace.id).where(Workspace.root == root)).scalar_one()


def ingest_file(
    session: Session, workspace_id: int, wf: WorkspaceFile, timezone: str, judgment: Judgment | None = None,
    budget: int | None = None,
) -> IngestOutcome:
    """Ingest one file; a file whose (path, sha256) is already stored writes nothing. `judgment`:
    the run's (whose words the parsers read; None: the packaged one); `budget`: units of work its parse
    may take before it is cut short (`RowBuilder`)."""
    return ingest_files(session, workspace_id, [wf], timezone, judgment, budget)[0]


def ingest_files(
    session: Session, workspace_id: int, files: Sequence[WorkspaceFile], timezone: str,
    judgment: Judgment | None = None, budget: int | None = None,
) -> list[IngestOutcome]:
    """Ingest files in the session's transaction, in order; what `ingest_file` would do for each in turn."""
    if len({wf.path for wf in files}) != len(files):
        # The same path twice: the second must see what the first wrote, so one at a time.
        return [ingest_files(session, workspace_id, [wf], timezone, judgment, budget)[0] for wf in files]
    builder = RowBuilder(workspace_id, timezone, judgment, budget)
    planned = plan_files(session, workspace_id, files)
    rows = builder.build([p for p in planned if p.existing is None])
    return write_planned(session, workspace_id, planned, rows, builder)


@dataclass(frozen=True)
class _Stored:
    id: int
    error: str | None
    superseded_at: dt.datetime | None


@dataclass(frozen=True)
class PlannedFile:
    """A file read and hashed once, with the stored version of the same bytes if there is one.

    `data` is what was read; a file read in a worker (`plan_built`) carries it only when the
    per-file path needs it (its parse raised part-way), else b""."""

    wf: WorkspaceFile
    data: bytes
    digest: str
    error: str | None
    existing: _Stored | None


def plan_files(session: Session, workspace_id: int, files: Sequence[WorkspaceFile]) -> list[PlannedFile]:
    """Read and hash each file once and find which (path, sha256) are stored already (one query)."""
    read = [(wf, *read_file(wf)) for wf in files]
    stored = _stored_versions(session, workspace_id, [wf.path for wf in files])
    return [PlannedFile(wf, data, digest, error, stored.get((wf.path, digest)))
            for wf, data, error in read for digest in (sha256(data),)]


def plan_built(
    session: Session, workspace_id: int, files: Sequence[WorkspaceFile], built: Sequence[BuiltFile]
) -> tuple[list[PlannedFile], list[FileRows | None]]:
    """`plan_files` for files a worker read and built (`build_in_worker(files)`): the plan, and the
    rows of the new ones (rows built for bytes that turn out to be stored already are dropped)."""
    stored = _stored_versions(session, workspace_id, [wf.path for wf in files])
    planned = [PlannedFile(wf, b.data, b.digest, b.error, stored.get((wf.path, b.digest)))
               for wf, b in zip(files, built, strict=True)]
    return planned, [b.rows for b, p in zip(built, planned, strict=True) if p.existing is None]


def write_planned(
    session: Session, workspace_id: int, planned: Sequence[PlannedFile], rows: Sequence[FileRows | None],
    builder: RowBuilder,
) -> list[IngestOutcome]:
    """Write planned files in order: unchanged ones touch nothing (a reverted one becomes current
    again), new ones are written in bulk from `rows` (one per new file, in order)."""
    outcomes: dict[int, IngestOutcome] = {}
    pending: list[tuple[int, FileRows]] = []
    new_rows = iter(rows)
    for index, p in enumerate(planned):
        if p.existing is not None:
            outcomes[index] = _unchanged(session, workspace_id, p.wf, p.existing)
            continue
        built = next(new_rows)
        if built is None:  # its parse raised part-way: the per-file path writes what it always wrote
            outcomes.update(write_new(session, workspace_id, pending))
            pending = []
            outcomes[index] = ingest_file_orm(session, workspace_id, p.wf, p.data, p.digest, p.error,
                                              builder.tz, builder.words)
            continue
        pending.append((index, built))
    outcomes.update(write_new(session, workspace_id, pending))
    return [outcomes[i] for i in range(len(planned))]


def record_refused(session: Session, workspace_id: int, wf: WorkspaceFile, error: str, tz: ZoneInfo) -> IngestOutcome:
    """Store a file whose ingest raised (a value the database rejects, say) as a source with that error and no
    entries: the file is named in the briefing, and its next run does not try the same bytes again."""
    read = guarded(wf.path, read_file, wf)
    data, _ = read.value if read.value is not None else (b"", None)
    digest = sha256(data)
    source = fallback_source(workspace_id, wf, digest, f"ingest failed: {error}", tz)
    source_id = session.execute(
        insert(Source).values(**source).on_conflict_do_nothing(constraint="uq_sources_path_sha256").returning(Source.id)
    ).scalar_one_or_none()
    if source_id is None:
        stored = session.execute(select(Source.id, Source.error).where(
            Source.workspace_id == workspace_id, Source.path == source["path"], Source.sha256 == digest)).one()
        return IngestOutcome(wf.path, stored.id, "unchanged", stored.error)
    session.execute(
        update(Source)
        .where(Source.workspace_id == workspace_id, Source.path == source["path"], Source.id != source_id,
               Source.superseded_at.is_(None))
        .values(superseded_at=dt.datetime.now(tz=UTC))
    )
    return IngestOutcome(wf.path, source_id, "new", source["error"])


def _stored_versions(session: Session, workspace_id: int, paths: list[str]) -> dict[tuple[str, str], _Stored]:
    """Every stored version of these paths, by (path, sha256)."""
    if not paths:
        return {}
    rows = session.execute(
        text("SELECT id, path, sha256, error, superseded_at FROM sources "
             "WHERE workspace_id = :w AND path = ANY(:paths)"),
        {"w": workspace_id, "paths": paths},
    )
    return {(r.path, r.sha256): _Stored(r.id, r.error, r.superseded_at) for r in rows}


def _unchanged(session: Session, workspace_id: int, wf: WorkspaceFile, existing: _Stored) -> IngestOutcome:
    if existing.superseded_at is not None:
        # The file went back to a version stored earlier (an undone edit): that version is current again.
        session.execute(
            update(Source)
            .where(Source.workspace_id == workspace_id, Source.path == wf.path, Source.id != existing.id,
                   Source.superseded_at.is_(None))
            .values(superseded_at=dt.datetime.now(tz=UTC))
        )
        session.execute(update(Source).where(Source.id == existing.id).values(superseded_at=None))
    return IngestOutcome(wf.path, existing.id, "unchanged", existing.error)
