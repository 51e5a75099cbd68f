"""A workspace file read, and the source row it is stored as: bytes (bounded, never blocking),
decoded text (whole: the parse caps its lines, `tasks.ingest.rows.parse_by_kind`), time (from the name, front matter or
header, `tasks.ingest.dating`; "undated" when none gives a date that can exist, never the mtime),
and the warnings that go with it (lossy decoding, out-of-range values). CPU only."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import replace
from typing import Any
from zoneinfo import ZoneInfo

from tasks.common.decode import decode_bytes
from tasks.common.guard import describe
from tasks.common.limits import CAPPED, MAX_ENTRIES_PER_SOURCE
from tasks.common.text import clamp_text, clean_text
from tasks.ingest.dating import note_date
from tasks.ingest.scan import WorkspaceFile
from tasks.ingest.sources import ExtractedItem

MAX_SOURCE_BYTES = 64 * 1024 * 1024
# VARCHAR widths of db.models columns that workspace text fills.
AUTHOR_CHARS, CATEGORY_CHARS = 128, 64
UTC = dt.UTC


def read_file(wf: WorkspaceFile) -> tuple[bytes, str | None]:
    """The file's bytes, or what stands in for them and why it cannot be read.

    Opened without blocking (a file swapped for a FIFO since the scan cannot hang the run), checked
    to be a regular file on the open handle, and read up to MAX_SOURCE_BYTES + 1 bytes at most."""
    if wf.problem:
        return wf.problem.encode(), wf.problem
    try:
        fd = os.open(wf.location, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return b"", f"cannot read: {exc.strerror or exc}"
    try:
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                problem = "not a regular file (device, fifo or socket); skipped"
                return problem.encode(), problem
            size = info.st_size
            if size > MAX_SOURCE_BYTES:
                return f"{size}".encode(), f"file too large ({size} bytes > {MAX_SOURCE_BYTES}); skipped"
            data = handle.read(MAX_SOURCE_BYTES + 1)
            if len(data) > MAX_SOURCE_BYTES:
                return f"{len(data)}+".encode(), f"file too large (> {MAX_SOURCE_BYTES} bytes); skipped"
            return data, None
    except Exception as exc:  # noqa: BLE001 - whatever reading does, it costs this file only
        return b"", f"cannot read: {describe(exc)}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def recorded_mtime(st_mtime: float) -> dt.datetime | None:
    """An mtime as `sources.modified_at` holds it (aware UTC, to the microsecond), or None when it
    has no datetime (out of range). `tasks.ingest.changes` compares with it: one conversion for both."""
    try:
        return dt.datetime.fromtimestamp(st_mtime, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _mtime(wf: WorkspaceFile) -> dt.datetime:
    """The mtime the version is stored with: the scan's (taken before the bytes were read, so a
    write after the read leaves a different mtime on disk than on the row), else an lstat now
    (links, and files that did not come from a scan); the epoch when there is none."""
    try:
        st_mtime = wf.mtime if wf.mtime is not None else os.lstat(wf.location).st_mtime
    except OSError:
        st_mtime = None
    stamp = recorded_mtime(st_mtime) if st_mtime is not None else None
    return stamp if stamp is not None else dt.datetime.fromtimestamp(0, tz=UTC)


# Kinds whose time is the note's own date (`note_date`); cards and the queue take theirs from their
# content as they are parsed (`tasks.ingest.rows`). A knowledge document is in force by when it
# was first seen when its header gives no update time (docs/work-budget.md, "Dates"), so it alone keeps the mtime.
NOTE_DATED = ("note", "hf_daily", "other")
MTIME_DATED = ("knowledge",)


def _dating(wf: WorkspaceFile, text_: str | None, tz: ZoneInfo, modified_at: dt.datetime) -> tuple[dt.datetime, str, str | None]:
    """(observed_at, time_basis, warning) of a new version. An undated one is stored with its mtime,
    which no window reads (`tasks.window.collect` places no "undated" source)."""
    if wf.kind in MTIME_DATED:
        return modified_at, "mtime", None
    if wf.kind not in NOTE_DATED:
        return modified_at, "undated", None  # until its content dates it (card, queue)
    found = note_date(wf.path.rsplit("/", 1)[-1], text_, tz)
    if found.at is None:
        return modified_at, "undated", f"undated: {found.problem}; listed as undated, in no window"
    return found.at, found.basis, None


def source_header(
    workspace_id: int, wf: WorkspaceFile, data: bytes, digest: str, error: str | None, tz: ZoneInfo
) -> tuple[dict[str, Any], str | None]:
    """The source row as first inserted, and the text if readable. Its time is the note's own date
    (`tasks.ingest.dating`); without one that can exist it is "undated", and a warning says why."""
    text_, encoding = None, None
    warnings: list[str] = []
    if error is None:
        try:
            decoded = decode_bytes(data)
            text_, encoding = decoded.text, decoded.encoding
            warnings += decoded.warnings
        except ValueError as exc:
            error = str(exc)
    modified_at = _mtime(wf)  # with the ingest time, when this version was first seen
    observed_at, basis, undated = _dating(wf, text_, tz, modified_at)
    if undated is not None:
        warnings.append(undated)
    source = dict(
        workspace_id=workspace_id, path=clean_text(wf.path), kind=wf.kind,
        author=clamp_text(wf.author, AUTHOR_CHARS), sha256=digest,
        size=len(data) if wf.problem is None else 0, encoding=encoding, observed_at=observed_at,
        time_basis=basis, error=clean_text(error) if error else error, warnings=warnings,
        modified_at=modified_at,
    )
    return source, text_


def fallback_source(workspace_id: int, wf: WorkspaceFile, digest: str, error: str, tz: ZoneInfo) -> dict[str, Any]:
    """A source row that needs nothing but the scan: for a file whose header could not even be read
    (dated by its name alone)."""
    modified_at = _mtime(wf)
    observed_at, basis, _ = _dating(wf, None, tz, modified_at)
    return dict(
        workspace_id=workspace_id, path=clean_text(wf.path), kind=wf.kind,
        author=clamp_text(wf.author, AUTHOR_CHARS), sha256=digest, size=0, encoding=None,
        observed_at=observed_at, time_basis=basis, error=clean_text(error, 2000), warnings=[],
        modified_at=modified_at,
    )


# Warnings kept per source, and characters per warning: a file full of problems is not a log.
MAX_WARNINGS, WARNING_CHARS = 50, 300


def add_warnings(source: dict[str, Any], found: Iterable[str]) -> None:
    """Append `found` to the source row's warnings, within MAX_WARNINGS (the overflow counted)."""
    warnings: list[str] = source["warnings"]
    extra = 0
    for w in found:
        if len(warnings) < MAX_WARNINGS:
            warnings.append(clean_text(w, WARNING_CHARS))
        else:
            extra += 1
    if extra:
        warnings.append(f"... and {extra} more warnings")


# Characters of context kept per mention: an entry of a megabyte is not the context of each of its ids
# (copied per mention, it was gigabytes for one note naming thousands of ids).
MAX_CONTEXT_CHARS = 4000


def cap_contexts(items: list[ExtractedItem]) -> list[ExtractedItem]:
    """`items` with each mention's context cut to MAX_CONTEXT_CHARS (every mention kept)."""
    if not any(len(m.context) > MAX_CONTEXT_CHARS for x in items for m in x.mentions):
        return items
    out = []
    for x in items:
        cut: dict[str, str] = {}  # one cut per distinct context
        mentions = [m if len(m.context) <= MAX_CONTEXT_CHARS
                    else replace(m, context=cut.setdefault(m.context, m.context[:MAX_CONTEXT_CHARS]))
                    for m in x.mentions]
        out.append(replace(x, mentions=mentions) if cut else x)
    return out


def cap_entries(items: list[ExtractedItem], warnings: list[str], cap: int = MAX_ENTRIES_PER_SOURCE) -> list[ExtractedItem]:
    """`items` within `cap` entries (the later ones dropped, with a warning)."""
    if len(items) <= cap:
        return items
    warnings.append(f"{CAPPED}{len(items)} entries; only the first {cap} are kept")
    return items[:cap]
