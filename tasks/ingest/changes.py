"""Which scanned files changed since their current stored version: the one place that decides it.

A file whose current version (`superseded_at IS NULL`) was stored with its present size and mtime
(`sources.size`, `sources.modified_at`) is unchanged without being read. Any
other stored path is read and hashed as ingest reads it (`read_file`) and is unchanged only if that
sha256 is a current version's; a path with no current version is new without being read. Links and
rows without an mtime are always read.
The assumption is rsync's and make's: same path, size and mtime, same bytes. What it misses, and
`Settings.rehash` (PREDIGEST_REHASH=1, `--rehash`) catches, is in docs/judgment.md ("Change
detection").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from db.models import Source
from tasks.ingest.scan import UNLISTABLE, WorkspaceFile
from tasks.ingest.source_row import read_file, recorded_mtime, sha256


@dataclass(frozen=True)
class CurrentVersion:
    """What a current stored version says about the file it was read from."""

    sha256: str
    size: int
    modified_at: dt.datetime | None


def current_versions(session: Session, workspace_id: int) -> dict[str, list[CurrentVersion]]:
    """The current versions of the workspace's paths (one each, unless a run was interrupted)."""
    rows = session.execute(
        select(Source.path, Source.sha256, Source.size, Source.modified_at)
        .where(Source.workspace_id == workspace_id, Source.superseded_at.is_(None))
    )
    current: dict[str, list[CurrentVersion]] = {}
    for path, digest, size, modified_at in rows:
        current.setdefault(path, []).append(CurrentVersion(digest, size, modified_at))
    return current


def same_stat(wf: WorkspaceFile, versions: Iterable[CurrentVersion]) -> bool:
    """Whether a current version has the file's size and mtime as this scan saw them."""
    if wf.size is None or wf.mtime is None or wf.problem is not None:
        return False
    mtime = recorded_mtime(wf.mtime)
    if mtime is None:  # out of range: stored as the epoch, which other mtimes map to as well
        return False
    return any(v.size == wf.size and v.modified_at == mtime for v in versions)


def stored_digest(wf: WorkspaceFile) -> str:
    """The sha256 the file's source would be stored with: of its bytes as `read_file` reads them
    (without blocking on a FIFO, bounded), or of what stands in for them."""
    return sha256(read_file(wf)[0])


def changed_files(
    files: Sequence[WorkspaceFile], current: dict[str, list[CurrentVersion]], rehash: bool = False
) -> list[WorkspaceFile]:
    """The files whose current bytes are not a current stored version (new or changed), in order.

    A path with no current version is new without being read; a stored path is read and hashed
    only when `same_stat` does not vouch for it, or always with `rehash`."""
    changed = []
    for wf in files:
        versions = current.get(wf.path)
        if not versions:
            changed.append(wf)  # no stored version of this path: new, whatever its bytes
        elif not rehash and same_stat(wf, versions):
            continue
        elif stored_digest(wf) not in {v.sha256 for v in versions}:
            changed.append(wf)
    return changed


def supersede_relisted(session: Session, workspace_id: int, files: Sequence[WorkspaceFile]) -> int:
    """Mark superseded (now) the current record of each folder an earlier scan could not list and
    this scan (`files`) lists again, so that briefings of later cutoffs no longer name it; its files
    are new to the ingest that follows. Returns how many."""
    still = sorted({wf.path for wf in files if wf.problem is not None and wf.problem.startswith(UNLISTABLE)})
    done = session.execute(
        update(Source)
        .where(Source.workspace_id == workspace_id, Source.superseded_at.is_(None),
               Source.error.startswith(UNLISTABLE, autoescape=True), Source.path.not_in(still))
        .values(superseded_at=dt.datetime.now(tz=dt.UTC))
    )
    return int(getattr(done, "rowcount", 0) or 0)
