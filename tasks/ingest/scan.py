"""Find the files of a workspace and say what kind of source each one is."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

NOTE_SUFFIXES = (".md", ".markdown", ".txt")
# Editor droppings that are never notes and are not worth an error row.
_TEMP_PATTERNS = ("~", ".swp", ".swx", ".tmp", ".part", ".crdownload")


@dataclass(frozen=True)
class WorkspaceFile:
    """One file found in the workspace; `problem` is set when it cannot be read as its kind."""

    path: str  # workspace-relative, POSIX separators
    kind: str  # note, hf_daily, paper_card, work_queue, knowledge, other
    author: str | None
    absolute: Path
    problem: str | None = None

    @property
    def topic(self) -> str | None:
        return Path(self.path).stem if self.kind == "knowledge" else None


def _is_temp(name: str) -> bool:
    return name.startswith(".#") or name.startswith("~$") or name.endswith(_TEMP_PATTERNS)


def _kind_of(parts: tuple[str, ...]) -> tuple[str, str | None] | None:
    """Kind and author of a workspace-relative path, or None when predigest does not read it."""
    name = parts[-1]
    if parts[0] == "inbox" and len(parts) >= 3:
        author = parts[1]
        if not name.lower().endswith(NOTE_SUFFIXES):
            return "other", author
        return ("hf_daily" if "hf-daily" in name.lower() else "note"), author
    if parts[:2] == ("organized", "paper_cards") and len(parts) == 3:
        return ("paper_card", None) if name.endswith(".md") else ("other", None)
    if parts[:2] == ("organized", "queue") and len(parts) == 3:
        return ("work_queue", None) if name.endswith(".md") else ("other", None)
    if parts[:2] == ("organized", "knowledge") and len(parts) == 3:
        return ("knowledge", None) if name.endswith(".md") else ("other", None)
    if parts[0] == "inbox" and len(parts) == 2:
        return "other", None  # a file dropped directly in inbox/, outside any author folder
    return None


def scan_workspace(root: Path) -> list[WorkspaceFile]:
    """Every file predigest reads or must report, sorted by path; symlinks are never followed out."""
    root = root.resolve()
    found: list[WorkspaceFile] = []
    for top in ("inbox", "organized"):
        base = root / top
        if not base.is_dir():
            continue
        prefix = len(str(root)) + 1
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".git"))
            # Workspace-relative parts from the strings os.walk gives (a Path per file cost more
            # than the rest of the scan).
            dir_parts = tuple(dirpath[prefix:].split(os.sep))
            for name in sorted(filenames):
                if _is_temp(name):
                    continue
                rel_parts = (*dir_parts, name)
                kind_author = _kind_of(rel_parts)
                if kind_author is None:
                    continue
                kind, author = kind_author
                found.append(_check(root, Path(dirpath, name), "/".join(rel_parts), kind, author))
    found.sort(key=lambda f: f.path)
    return found


def _check(root: Path, absolute: Path, rel: str, kind: str, author: str | None) -> WorkspaceFile:
    problem = None
    try:
        mode = os.lstat(absolute).st_mode  # one lstat says both whether it is a link and what it is
        if stat.S_ISLNK(mode):
            target = absolute.resolve()
            if not target.is_relative_to(root):
                problem = "symlink leads outside the workspace; not followed"
            elif not target.is_file():
                problem = "symlink does not point to a regular file"
        elif not stat.S_ISREG(mode):
            problem = "not a regular file (device, fifo or socket); skipped"
    except OSError as exc:
        problem = f"cannot stat: {exc.strerror or exc}"
    if problem is None and kind == "other":
        if rel.count("/") == 1 and rel.lower().endswith(NOTE_SUFFIXES):
            problem = "note outside an author folder (expected inbox/<author>/); skipped"
        else:
            problem = "not a markdown note; skipped"
    return WorkspaceFile(rel, kind, author, absolute, problem)
