"""Contract of the inbox watcher's plain parts (predigest/watch.py), without Prefect or a watcher:

- an event per inbox file: `inbox.file.created`/`updated`, resource id `predigest.inbox.<sha1 of the
  workspace-relative path>` with `predigest.path` and `predigest.workspace` labels, the relative
  path and workspace in the payload;
- editor temp files, directories, files outside `inbox/`, symlinks leading outside the workspace and
  paths through symlinked directories give no event; deletions give none;
- a batch of changes gives one event per path (added wins over modified);
- the throttle lets the first change of a file through, holds later ones until the trigger's window
  has passed, and then releases the latest (created wins);
- the rescan on start emits for exactly the inbox files whose bytes are not stored yet: `created` for
  a path never stored, `updated` for a changed one, nothing for stored ones.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from sqlalchemy import Engine
from watchfiles import Change

from predigest import watch
from tasks.config.settings import Settings
from tests.helpers import ingest_all


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "inbox" / "alice").mkdir(parents=True)
    (root / "organized" / "knowledge").mkdir(parents=True)
    (root / "inbox" / "alice" / "2026-10-09T1000-alice-a.md").write_text("# a\n\n- arXiv:2610.01001 vLLM\n")
    return root.resolve()


def test_build_event_shape() -> None:
    rel = "inbox/alice/2026-10-09T1000-alice-a.md"
    event = watch.build_event(watch.CREATED, rel, Path("/srv/ws"))
    digest = hashlib.sha1(rel.encode()).hexdigest()
    assert event.event == "inbox.file.created"
    assert event.resource == {
        "prefect.resource.id": f"predigest.inbox.{digest}",
        "prefect.resource.name": rel,
        "predigest.path": rel,
        "predigest.workspace": "/srv/ws",
    }
    assert event.payload == {"path": rel, "workspace": "/srv/ws"}
    assert watch.build_event(watch.UPDATED, rel, "/srv/ws").event == "inbox.file.updated"
    with pytest.raises(ValueError):
        watch.build_event("inbox.file.deleted", rel, "/srv/ws")


@pytest.mark.parametrize("name", [".note.md.swp", "note.md.swx", "note.md~", ".#note.md", ".DS_Store",
                                  "note.tmp", "~$note.md", "4913", "download.md.part"])
def test_temp_names_are_ignored(workspace: Path, name: str) -> None:
    path = workspace / "inbox" / "alice" / name
    path.write_text("x")
    assert watch.is_temp_name(name)
    assert watch.inbox_relative_path(workspace, path) is None


def test_notes_under_inbox_are_kept(workspace: Path) -> None:
    note = workspace / "inbox" / "alice" / "2026-10-09T1000-alice-a.md"
    assert watch.inbox_relative_path(workspace, note) == "inbox/alice/2026-10-09T1000-alice-a.md"
    assert watch.inbox_relative_path(workspace, str(note)) == "inbox/alice/2026-10-09T1000-alice-a.md"
    # A file dropped directly in inbox/ is still reported (the ingest records why it is skipped).
    loose = workspace / "inbox" / "loose.md"
    loose.write_text("x")
    assert watch.inbox_relative_path(workspace, loose) == "inbox/loose.md"


def test_a_feedback_file_is_kept_like_a_note(workspace: Path) -> None:
    feedback = workspace / "organized" / "feedback" / "inference.md"
    feedback.parent.mkdir(parents=True)
    feedback.write_text("# Feedback\n")
    assert watch.inbox_relative_path(workspace, feedback) == "organized/feedback/inference.md"
    deeper = workspace / "organized" / "feedback" / "old" / "inference.md"
    deeper.parent.mkdir()
    deeper.write_text("# Feedback\n")
    assert watch.inbox_relative_path(workspace, deeper) is None  # only organized/feedback/<topic>.md


def test_outside_inbox_directories_and_missing_files_are_ignored(workspace: Path, tmp_path: Path) -> None:
    knowledge = workspace / "organized" / "knowledge" / "inference.md"
    knowledge.write_text("# k\n")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("x")
    assert watch.inbox_relative_path(workspace, knowledge) is None
    assert watch.inbox_relative_path(workspace, outside) is None
    assert watch.inbox_relative_path(workspace, workspace / "inbox" / "alice") is None
    assert watch.inbox_relative_path(workspace, workspace / "inbox" / "alice" / "gone.md") is None
    assert watch.inbox_relative_path(workspace, workspace / "inbox" / ".." / ".." / "elsewhere.md") is None


def test_symlinks_leading_outside_are_ignored(workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("outside")
    inbox = workspace / "inbox" / "alice"
    (inbox / "link-out.md").symlink_to(secret)
    (inbox / "link-in.md").symlink_to(inbox / "2026-10-09T1000-alice-a.md")
    outside_dir = tmp_path / "outside_dir"
    outside_dir.mkdir()
    (outside_dir / "n.md").write_text("x")
    (workspace / "inbox" / "mallory").symlink_to(outside_dir, target_is_directory=True)
    assert watch.inbox_relative_path(workspace, inbox / "link-out.md") is None
    assert watch.inbox_relative_path(workspace, inbox / "link-in.md") == "inbox/alice/link-in.md"
    assert watch.inbox_relative_path(workspace, workspace / "inbox" / "mallory" / "n.md") is None


def test_events_for_a_batch_of_changes(workspace: Path) -> None:
    inbox = workspace / "inbox" / "alice"
    new = inbox / "2026-10-09T1100-alice-b.md"
    new.write_text("b")
    (inbox / ".b.md.swp").write_text("swap")
    changes = {
        (Change.added, str(new)),
        (Change.modified, str(new)),
        (Change.modified, str(inbox / "2026-10-09T1000-alice-a.md")),
        (Change.added, str(inbox / ".b.md.swp")),
        (Change.deleted, str(inbox / "2026-10-08T1000-alice-old.md")),
        (Change.added, str(inbox)),
    }
    events = watch.events_for_changes(changes, workspace)
    assert [(e.event, e.path) for e in events] == [
        ("inbox.file.updated", "inbox/alice/2026-10-09T1000-alice-a.md"),
        ("inbox.file.created", "inbox/alice/2026-10-09T1100-alice-b.md"),
    ]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_throttle_holds_repeats_and_releases_the_latest_after_the_window() -> None:
    clock = FakeClock()
    throttle = watch.Throttle(11, clock)
    created = watch.build_event(watch.CREATED, "inbox/a/x.md", "/ws")
    updated = watch.build_event(watch.UPDATED, "inbox/a/x.md", "/ws")
    other = watch.build_event(watch.CREATED, "inbox/a/y.md", "/ws")
    assert throttle.offer(created) == [created]
    assert throttle.offer(other) == [other]  # per file
    clock.now += 3
    assert throttle.offer(updated) == []
    assert throttle.due() == [] and throttle.pending() == 1
    clock.now += 8
    assert throttle.due() == [updated] and throttle.pending() == 0
    clock.now += 1
    assert throttle.offer(updated) == []  # the released one opened a new window
    clock.now += 11
    assert throttle.offer(updated) == [updated] and throttle.pending() == 0


def test_throttle_keeps_created_over_a_later_update() -> None:
    clock = FakeClock()
    throttle = watch.Throttle(11, clock)
    first = watch.build_event(watch.UPDATED, "inbox/a/x.md", "/ws")
    created = watch.build_event(watch.CREATED, "inbox/a/x.md", "/ws")
    assert throttle.offer(first) == [first]
    assert throttle.offer(created) == [] and throttle.offer(first) == []
    clock.now += 11
    assert throttle.due() == [created]


def test_rescan_emits_for_files_not_yet_stored(
    clean_db: Engine, settings: Settings, workspace: Path, tmp_path: Path
) -> None:
    inbox = workspace / "inbox" / "alice"
    stored = inbox / "2026-10-09T1000-alice-a.md"
    changed = inbox / "2026-10-09T1200-alice-c.md"
    changed.write_text("# c v1\n")
    ingest_all(settings, workspace)
    assert watch.rescan_events(settings, workspace) == []

    changed.write_text("# c v2\n")
    new = inbox / "2026-10-09T1300-alice-d.md"
    new.write_text("# d\n")
    (inbox / ".d.md.swp").write_text("swap")
    secret = tmp_path / "secret.md"
    secret.write_text("outside")
    (inbox / "link-out.md").symlink_to(secret)
    (workspace / "organized" / "knowledge" / "inference.md").write_text("# inference\n")
    events = watch.rescan_events(settings, workspace)
    assert [(e.event, e.path) for e in events] == [
        ("inbox.file.updated", "inbox/alice/2026-10-09T1200-alice-c.md"),
        ("inbox.file.created", "inbox/alice/2026-10-09T1300-alice-d.md"),
    ]
    assert all(e.payload["workspace"] == str(workspace) for e in events)
    assert os.path.exists(stored)


def test_without_api_url_the_watcher_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: None}), pytest.raises(ValueError, match="PREFECT_API_URL"):
        watch.require_api_url()
