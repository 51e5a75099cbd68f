"""Ingest one workspace file as soon as it appears or changes (run by the inbox event trigger), then
republish the closed briefings it is dated into (a late note reaches the evening it belongs to).

Async only so that the run ends with its work (see `flows/daily.py`); the tasks stay sync, and a
Python caller runs it with `asyncio.run(...)`."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from prefect import flow

from flows import stage_tasks
from flows.runners import shared_task_client
from tasks.config.settings import Lang, Settings, resolve_workspace
from tasks.ingest.scan import scan_one
from tasks.stages.briefings import BriefingResult
from tasks.stages.workspace import WorkspaceRef


@dataclass(frozen=True)
class InboxIngestResult:
    """What happened to one file: `new` or `unchanged` (a source row exists for its bytes),
    `missing` (gone before the run read it) or `ignored` (not a file predigest reads). `refreshed`
    holds the run's briefings republished because a new file is dated into their closed windows."""

    path: str
    status: str
    source_id: int | None = None
    error: str | None = None
    refreshed: tuple[BriefingResult, ...] = ()


def workspace_relative(root: Path, path: str) -> str:
    """`path` (workspace-relative, or absolute inside `root`) as a normalised workspace-relative
    POSIX path; ValueError for anything that leaves the workspace."""
    if not path or "\x00" in path:
        raise ValueError(f"not a path: {path!r}")
    if os.path.isabs(path):
        absolute = Path(os.path.normpath(path))
        if not absolute.is_relative_to(root):
            raise ValueError(f"path is outside the workspace {root}: {path}")
        rel = absolute.relative_to(root).as_posix()
    else:
        rel = PurePosixPath(path.replace(os.sep, "/")).as_posix()
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"path is outside the workspace {root}: {path}")
    return "/".join(parts)


@flow(name="ingest-inbox-file", flow_run_name="ingest {path}")
async def ingest_inbox_file(path: str, workspace: str | None = None,
                            paths: list[str] | None = None, lang: Lang | None = None) -> InboxIngestResult:
    """Store one workspace file (a new or changed inbox note) as a source with its items and mentions,
    then each of `paths` (further files the event names), each on its own; the result is `path`'s.

    `path` is workspace-relative (as the watcher sends it) or absolute inside the workspace; a path
    that leaves the workspace fails the run. Symlinks leading out are recorded, never followed. Only
    the files named are looked at (`scan_one`), so the run costs the same in a workspace of any size.

    Then, per topic, the briefings whose windows a newly stored file is dated into and whose cutoff
    has passed are briefed and published again (in `lang`, default the settings'), as the daily run
    would (unchanged bytes write nothing). A file in a window still open waits for that evening; an
    undated file or a knowledge document refreshes nothing.
    """
    with shared_task_client():
        settings, root_text = resolve_workspace(workspace, lang)
        root = Path(root_text)
        rels = [workspace_relative(root, p) for p in [path, *(paths or [])]]
        ref = stage_tasks.register_workspace(settings, str(root))
        results = [_ingest_one(settings, ref, root, rel) for rel in dict.fromkeys(rels)]
        # Only new versions: an unchanged file changes no briefing.
        new = [r.source_id for r in results if r.status == "new" and r.source_id is not None]
        pairs = stage_tasks.plan_refresh(settings, str(root), new) if new else []
        refreshed = tuple(stage_tasks.brief_topic(settings, ref, topic, day) for topic, day in pairs)
        return replace(results[0], refreshed=refreshed)


def _ingest_one(settings: Settings, ref: WorkspaceRef, root: Path, rel: str) -> InboxIngestResult:
    # `scan_one` decides kind, author and problems exactly as the daily run's scan would (temp
    # files and paths predigest does not read get None).
    found = scan_one(root, rel)
    if found is None or found.path != rel:  # a symlinked folder on the way: the daily run records it
        exists = os.path.lexists(root / rel)
        return InboxIngestResult(rel, "ignored" if exists else "missing")
    outcome = stage_tasks.ingest_source(settings, ref, found)
    return InboxIngestResult(outcome.path, outcome.status, outcome.source_id, outcome.error)
