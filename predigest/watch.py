"""`predigest watch`: turn changes in a workspace's inbox into Prefect events.

- Inbox files are every file under `inbox/` and a reader's feedback file,
  `organized/feedback/<topic>.md` (read like a note: `tasks/inbox/feedback_file.py`).
- One event per created or changed inbox file (`inbox.file.created` / `inbox.file.updated`);
  deletions emit nothing. Its payload and labels carry the workspace-relative path and the
  workspace, which the `ingest-inbox-file` deployment passes to `flows/inbox.py:ingest_inbox_file`.
- Editor and download droppings, directories, anything else outside `inbox/` and symlinks leaving the
  workspace are ignored (`is_temp_name`, `inbox_relative_path`).
- On start it rescans, so nothing dropped while it was down is missed.
- The trigger fires once per file per `TRIGGER_WITHIN_SECONDS`, so a second change inside that
  window is held and emitted when the window has passed: the last edit is never lost.
Everything except `watch_inbox` and `emit` is testable without Prefect or a filesystem watcher.
docs/layout.md ("Inbox events") has the rest.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CREATED = "inbox.file.created"
UPDATED = "inbox.file.updated"
RESOURCE_PREFIX = "predigest.inbox."
# Must equal `within` of the ingest-inbox-file trigger in prefect.yaml (a test checks it).
TRIGGER_WITHIN_SECONDS = 10
# Emit a held change this long after the window, so it lands in the trigger's next window.
HOLD_MARGIN_SECONDS = 1.0
# First word of the line `predigest watch` prints once it watches (after the rescan); `up` waits for it.
READY = "watching"

_TEMP_SUFFIXES = (".swp", ".swx", ".swo", "~", ".tmp", ".part", ".crdownload")
_TEMP_PREFIXES = (".#", "~$")
_TEMP_NAMES = frozenset({".DS_Store", "4913", "Thumbs.db"})


@dataclass(frozen=True)
class InboxEvent:
    """One Prefect event, before it is sent."""

    event: str
    resource: dict[str, str] = field(hash=False)
    payload: dict[str, str] = field(hash=False)

    @property
    def path(self) -> str:
        return self.payload["path"]


def is_temp_name(name: str) -> bool:
    """True for editor swap/backup/lock files and partial downloads, which are never notes."""
    return name in _TEMP_NAMES or name.startswith(_TEMP_PREFIXES) or name.endswith(_TEMP_SUFFIXES)


def resource_id(rel_path: str) -> str:
    """`predigest.inbox.<sha1 of the workspace-relative path>`."""
    return RESOURCE_PREFIX + hashlib.sha1(rel_path.encode("utf-8")).hexdigest()


def build_event(kind: str, rel_path: str, workspace: Path | str) -> InboxEvent:
    """The event for one workspace-relative path (`kind` is CREATED or UPDATED)."""
    if kind not in (CREATED, UPDATED):
        raise ValueError(f"unknown inbox event {kind!r}")
    root = str(workspace)
    resource = {
        "prefect.resource.id": resource_id(rel_path),
        "prefect.resource.name": rel_path,
        "predigest.path": rel_path,
        "predigest.workspace": root,
    }
    return InboxEvent(kind, resource, {"path": rel_path, "workspace": root})


def inbox_relative_path(workspace: Path, path: Path | str) -> str | None:
    """The workspace-relative POSIX path of an inbox file worth an event, or None to ignore it.

    `workspace` must be resolved. The check is lexical first (no `..`, under `inbox/`), then on the
    filesystem: the parent directory must resolve to itself (no symlinked directory on the way), the
    file must exist and not be a directory, and a symlink must point inside the workspace.
    """
    candidate = Path(os.path.abspath(path))
    try:
        rel = candidate.relative_to(workspace)
    except ValueError:
        return None
    from tasks.inbox.feedback_file import FEEDBACK_DIR

    parts = rel.parts
    feedback = len(parts) == 3 and parts[:2] == FEEDBACK_DIR
    if (len(parts) < 2 or parts[0] != "inbox") and not feedback or any(p.startswith(".git") for p in parts):
        return None
    if is_temp_name(parts[-1]):
        return None
    try:
        if candidate.parent.resolve() != candidate.parent:
            return None
        if candidate.is_symlink():
            target = candidate.resolve()
            if not target.is_relative_to(workspace) or not target.is_file():
                return None
        elif not candidate.is_file():
            return None  # deleted since, a directory, or a special file
    except OSError:
        return None
    return "/".join(parts)


def events_for_changes(
    changes: Iterable[tuple[Any, str]], workspace: Path
) -> list[InboxEvent]:
    """Events for one batch of watchfiles changes `(Change, path)`; one per path, in path order.

    Within a batch, a path that was added is `created` even if it was modified too; deletions and
    ignored paths yield nothing.
    """
    kinds: dict[str, str] = {}
    for change, raw in changes:
        name = getattr(change, "name", str(change))
        if name == "deleted":
            continue
        rel = inbox_relative_path(workspace, raw)
        if rel is None:
            continue
        kind = CREATED if name == "added" else UPDATED
        if kinds.get(rel) != CREATED:
            kinds[rel] = kind
    return [build_event(kinds[rel], rel, workspace) for rel in sorted(kinds)]


class Throttle:
    """Per-path gate matching the trigger's leading-edge window: at most one event per path per
    `interval` seconds; later changes inside the window are held (merged) and released by `due`."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self._last: dict[str, float] = {}
        self._held: dict[str, InboxEvent] = {}

    def offer(self, event: InboxEvent) -> list[InboxEvent]:
        """Events to send now for this change (the change itself, or nothing when it is held)."""
        now = self.clock()
        last = self._last.get(event.path)
        if last is None or now - last >= self.interval:
            self._held.pop(event.path, None)
            self._last[event.path] = now
            return [event]
        held = self._held.get(event.path)
        self._held[event.path] = held if held is not None and held.event == CREATED else event
        return []

    def due(self) -> list[InboxEvent]:
        """Held events whose window has passed, to send now."""
        now = self.clock()
        ready = [p for p in sorted(self._held) if now - self._last[p] >= self.interval]
        for path in ready:
            self._last[path] = now
        return [self._held.pop(path) for path in ready]

    def pending(self) -> int:
        return len(self._held)


def rescan_events(settings: Any, workspace: Path) -> list[InboxEvent]:
    """Events for inbox files whose current bytes the database does not store yet.

    `created` when no version of the path is stored, `updated` when an older version is.
    """
    from tasks.stages.queries import stored_paths
    from tasks.stages.workspace import find_changed_files, register_workspace

    root = workspace.resolve()
    ref = register_workspace(settings, root)
    changed = [
        rel for wf in find_changed_files(settings, ref)
        if (rel := inbox_relative_path(root, root / wf.path)) is not None
    ]
    stored = stored_paths(settings, ref.id, changed)
    return [build_event(UPDATED if rel in stored else CREATED, rel, root) for rel in sorted(changed)]


def emit(event: InboxEvent) -> None:
    """Send one event to the Prefect API named by PREFECT_API_URL."""
    from prefect.events import emit_event

    emit_event(event=event.event, resource=event.resource, payload=event.payload)


def flush() -> None:
    """Wait until queued events have been sent (before the process exits)."""
    from prefect.events.worker import EventsWorker

    EventsWorker.drain_all(timeout=30)


def require_api_url() -> str:
    """The configured Prefect API URL; without one, events would go to a throwaway ephemeral server."""
    from prefect.settings import get_current_settings

    url = get_current_settings().api.url
    if not url:
        raise ValueError(
            "PREFECT_API_URL is not set: events would go to a throwaway ephemeral server. "
            "Start one with `predigest up` or point PREFECT_API_URL at your Prefect server."
        )
    return str(url)


def watch_inbox(
    settings: Any,
    workspace: Path,
    *,
    send: Callable[[InboxEvent], None] = emit,
    rescan: bool = True,
    stop_event: threading.Event | None = None,
    on_ready: Callable[[], None] | None = None,
    interval: float = TRIGGER_WITHIN_SECONDS + HOLD_MARGIN_SECONDS,
) -> int:
    """Rescan, then watch `workspace/inbox` and `workspace/organized` (for feedback files) until
    stopped; return how many events were sent."""
    import watchfiles

    root = workspace.resolve()
    sent = 0
    throttle = Throttle(interval)

    def deliver(events: Iterable[InboxEvent]) -> None:
        nonlocal sent
        for event in events:
            send(event)
            sent += 1

    if rescan:
        deliver(e for ev in rescan_events(settings, root) for e in throttle.offer(ev))
    from tasks.inbox.feedback_file import FEEDBACK_DIR

    # organized/, not organized/feedback/: the folder appears with the first verdict recorded.
    targets = [d for d in (root / "inbox", root / FEEDBACK_DIR[0]) if d.is_dir()] or [root]
    if on_ready is not None:
        on_ready()
    for changes in watchfiles.watch(
        *targets, stop_event=stop_event, rust_timeout=1000, yield_on_timeout=True,
        watch_filter=lambda _change, path: not is_temp_name(Path(path).name),
    ):
        deliver(e for ev in events_for_changes(changes, root) for e in throttle.offer(ev))
        deliver(throttle.due())
    return sent
