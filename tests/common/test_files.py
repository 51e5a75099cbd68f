"""write_atomically replaces a file whole, with the mode it is asked for or the one it replaces, and
leaves nothing behind when it fails: the one implementation the folder store, the knowledge
document's merge and the local API's CA file share."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tasks.common import files
from tasks.common.files import NEW_FILE_MODE, write_atomically


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_is_readable_by_others(tmp_path: Path) -> None:
    target = tmp_path / "new.md"
    write_atomically(target, b"text")
    assert target.read_bytes() == b"text"
    assert _mode(target) == NEW_FILE_MODE  # not mkstemp's 0600
    assert os.listdir(tmp_path) == ["new.md"]


def test_a_replaced_file_keeps_its_mode_unless_one_is_given(tmp_path: Path) -> None:
    target = tmp_path / "doc.md"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_atomically(target, b"new")
    assert (target.read_bytes(), _mode(target)) == (b"new", 0o600)
    write_atomically(target, b"newer", mode=0o640)
    assert (target.read_bytes(), _mode(target)) == (b"newer", 0o640)


def test_a_failed_write_leaves_the_old_bytes_and_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "doc.md"
    target.write_bytes(b"old")

    def no_disk(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "fsync", no_disk)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, b"new", suffix=".predigest-tmp")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["doc.md"]


def test_the_temp_file_is_hidden_and_named_by_its_suffix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    replace = os.replace

    def spy(src: str, dst: Path) -> None:
        seen.append(Path(src).name)
        replace(src, dst)

    monkeypatch.setattr(files.os, "replace", spy)
    write_atomically(tmp_path / "a.md", b"x", suffix=".predigest-tmp")
    (name,) = seen
    assert name.startswith(".a.md.") and name.endswith(".predigest-tmp")  # what scans and list() skip
