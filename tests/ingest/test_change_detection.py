"""Contract of finding what changed (`tasks.stages.workspace.find_changed_files`, `tasks.ingest.changes`).

- A file whose size and mtime are those its current version was stored with is unchanged without
  being read: re-running an unchanged workspace opens no workspace file.
- A file whose size or mtime differs is read and hashed: an edit in place that keeps the size but
  moves the mtime is found, and so is a rewrite to another size even when the old mtime is put back;
  a `touch`ed file (same bytes, new mtime) is read and writes nothing.
- The stored mtime is the scan's, taken before the bytes are read: a write landing between the
  ingest's read and its row is found on the next run, not taken for the stored bytes.
- Links are always read: their target can change under an unchanged link.
- The known limit: an edit that keeps the size and restores the old mtime is not found. With the
  `rehash` setting (PREDIGEST_REHASH, `--rehash`) every stored file is read and hashed, which finds it.
Runs on real PostgreSQL (`clean_db`) against a copy of examples/workspace; opens are counted by
wrapping `os.open` and `open`, whatever reads the file.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from db.models import Base
from tasks.config.settings import Settings
from tasks.ingest.scan import scan_workspace
from tasks.stages.workspace import WorkspaceRef, find_changed_files, ingest_batch, register_workspace
from tests.helpers import SAMPLE_WORKSPACE

HOUR_NS = 3600 * 10**9


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    shutil.copytree(SAMPLE_WORKSPACE, root)  # mtimes kept: they are the checkout's, in the past
    return root


@pytest.fixture
def ingested(clean_db: Engine, settings: Settings, workspace: Path) -> WorkspaceRef:
    ref = register_workspace(settings, workspace)
    ingest_batch(settings, ref, find_changed_files(settings, ref))
    return ref


@contextmanager
def opened_under(root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The workspace files opened while the block runs, in order (by `os.open` or `open`)."""
    seen: list[str] = []
    prefix = str(root.resolve()) + os.sep

    def counting(real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(file: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(file, str | os.PathLike) and os.fspath(file).startswith(prefix):
                seen.append(os.fspath(file)[len(prefix):])
            return real(file, *args, **kwargs)

        return wrapper

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", counting(os.open))
        patch.setattr(builtins, "open", counting(builtins.open))
        patch.setattr(io, "open", counting(io.open))
        yield seen


def _counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t.name: conn.execute(text(f'SELECT count(*) FROM "{t.name}"')).scalar_one()
                for t in Base.metadata.sorted_tables}


def _a_note(workspace: Path) -> Path:
    return sorted((workspace / "inbox" / "jay").glob("*.md"))[0]


def _same_size_edit(path: Path) -> bytes:
    """Change one ASCII letter of the file in place (same size); returns the new bytes."""
    data = bytearray(path.read_bytes())
    at = next(i for i, b in enumerate(data) if chr(b).isalpha() and b < 128)
    data[at] = ord("X") if data[at] != ord("X") else ord("Y")
    with open(path, "r+b") as f:  # in place: same inode, as an editor that rewrites the file
        f.write(data)
    return bytes(data)


def _rel(workspace: Path, path: Path) -> str:
    return path.relative_to(workspace).as_posix()


def test_an_unchanged_workspace_opens_no_file(
    clean_db: Engine, settings: Settings, workspace: Path, ingested: WorkspaceRef, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _counts(clean_db)
    with opened_under(workspace, monkeypatch) as seen:
        ref = register_workspace(settings, workspace)
        changed = find_changed_files(settings, ref)
        ingest_batch(settings, ref, changed)
    assert changed == []
    assert seen == []
    assert _counts(clean_db) == before


def test_a_same_size_edit_with_a_new_mtime_is_found(
    clean_db: Engine, settings: Settings, workspace: Path, ingested: WorkspaceRef, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = _a_note(workspace)
    old = note.stat()
    _same_size_edit(note)
    os.utime(note, ns=(old.st_atime_ns, old.st_mtime_ns + HOUR_NS))  # a later save, whatever the clock's tick
    assert note.stat().st_size == old.st_size
    with opened_under(workspace, monkeypatch) as seen:
        changed = find_changed_files(settings, ingested)
    assert [wf.path for wf in changed] == [_rel(workspace, note)]
    assert seen == [_rel(workspace, note)]  # only the file whose stat moved was read
    (outcome,) = ingest_batch(settings, ingested, changed)
    assert outcome.status == "new"
    assert find_changed_files(settings, ingested) == []


def test_a_rewrite_to_another_size_is_found_even_with_its_old_mtime(
    clean_db: Engine, settings: Settings, workspace: Path, ingested: WorkspaceRef
) -> None:
    note = _a_note(workspace)
    old = note.stat()
    note.write_bytes(note.read_bytes() + b"\n## 99. Added (arXiv:2610.09999)\n")
    os.utime(note, ns=(old.st_atime_ns, old.st_mtime_ns))  # the size alone gives it away
    changed = find_changed_files(settings, ingested)
    assert [wf.path for wf in changed] == [_rel(workspace, note)]
    (outcome,) = ingest_batch(settings, ingested, changed)
    assert outcome.status == "new"


def test_a_touched_file_is_read_and_writes_nothing(
    clean_db: Engine, settings: Settings, workspace: Path, ingested: WorkspaceRef, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = _a_note(workspace)
    old = note.stat()
    os.utime(note, ns=(old.st_atime_ns, old.st_mtime_ns + HOUR_NS))
    before = _counts(clean_db)
    for _ in range(2):  # read on every run until its bytes change: its row is not rewritten
        with opened_under(workspace, monkeypatch) as seen:
            changed = find_changed_files(settings, ingested)
            ingest_batch(settings, ingested, changed)
        assert changed == []
        assert seen == [_rel(workspace, note)]
    assert _counts(clean_db) == before


def test_a_write_between_the_read_and_the_row_is_found_next_run(
    clean_db: Engine, settings: Settings, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tasks.ingest.store as store

    note = _a_note(workspace)
    ref = register_workspace(settings, workspace)
    files = find_changed_files(settings, ref)
    real_read = store.read_file

    def read_then_someone_saves(wf: Any) -> tuple[bytes, str | None]:
        result = real_read(wf)
        if wf.location == str(note):  # an editor saves the same size right after the ingest read it
            old = note.stat()
            _same_size_edit(note)
            os.utime(note, ns=(old.st_atime_ns, old.st_mtime_ns + HOUR_NS))
        return result

    with monkeypatch.context() as patch:
        patch.setattr(store, "read_file", read_then_someone_saves)
        ingest_batch(settings, ref, files)
    assert [wf.path for wf in find_changed_files(settings, ref)] == [_rel(workspace, note)]


def test_a_link_is_always_read(
    clean_db: Engine, settings: Settings, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _a_note(workspace)
    link = target.with_name("linked-note.md")
    link.symlink_to(target.name)
    ref = register_workspace(settings, workspace)
    ingest_batch(settings, ref, find_changed_files(settings, ref))
    with opened_under(workspace, monkeypatch) as seen:
        assert find_changed_files(settings, ref) == []
    assert seen == [_rel(workspace, link)]
    old = target.stat()
    _same_size_edit(target)
    os.utime(target, ns=(old.st_atime_ns, old.st_mtime_ns + HOUR_NS))  # the link's own lstat is as it was
    assert sorted(wf.path for wf in find_changed_files(settings, ref)) == sorted(
        [_rel(workspace, link), _rel(workspace, target)])


def test_rehash_reads_every_stored_file(
    clean_db: Engine, settings: Settings, workspace: Path, ingested: WorkspaceRef, monkeypatch: pytest.MonkeyPatch
) -> None:
    rehash = settings.model_copy(update={"rehash": True})
    with opened_under(workspace, monkeypatch) as seen:
        assert find_changed_files(rehash, ingested) == []
    # Every file that has bytes to read (those the scan found a problem with have none: their
    # stand-in text is hashed either way).
    readable = [wf.path for wf in scan_workspace(workspace) if wf.problem is None]
    assert len(readable) > 10
    assert sorted(seen) == sorted(readable)


def test_known_limit_a_same_size_edit_with_its_old_mtime_is_missed_and_rehash_finds_it(
    clean_db: Engine, settings: Settings, workspace: Path, ingested: WorkspaceRef
) -> None:
    note = _a_note(workspace)
    old = note.stat()
    _same_size_edit(note)
    os.utime(note, ns=(old.st_atime_ns, old.st_mtime_ns))  # `touch -r`, `cp -p`, `rsync -t`, a restore
    assert find_changed_files(settings, ingested) == []  # the documented limit
    rehash = settings.model_copy(update={"rehash": True})
    changed = find_changed_files(rehash, ingested)
    assert [wf.path for wf in changed] == [_rel(workspace, note)]
    (outcome,) = ingest_batch(rehash, ingested, changed)
    assert outcome.status == "new"


def test_the_rehash_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    from predigest import cli
    from tasks.config.settings import get_settings

    monkeypatch.delenv("PREDIGEST_REHASH", raising=False)
    assert Settings(_env_file=None).rehash is False  # type: ignore[call-arg]
    monkeypatch.setenv("PREDIGEST_REHASH", "1")
    assert Settings(_env_file=None).rehash is True  # type: ignore[call-arg]
    try:
        for command in (["run"], ["backfill", "--from", "2026-10-01", "--to", "2026-10-02"]):
            monkeypatch.setenv("PREDIGEST_REHASH", "0")  # undone after the test, whatever the CLI sets
            args = cli.build_parser().parse_args([*command, "--rehash"])
            assert cli._settings(args).rehash is True
    finally:
        get_settings.cache_clear()
