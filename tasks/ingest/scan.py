"""Find the files of a workspace and say what kind of source each one is."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from tasks.common.guard import describe, guarded
from tasks.common.text import display_name
from tasks.config.topics import KNOWLEDGE_DIR, is_safe_topic_name

NOTE_SUFFIXES = (".md", ".markdown", ".txt")
# How the error of a folder that cannot be listed starts: the briefing names such folders apart
# (their files, of any date, are missing from every window while it stays so).
UNLISTABLE = "cannot list directory"
# Editor droppings that are never notes and are not worth an error row.
_TEMP_PATTERNS = ("~", ".swp", ".swx", ".tmp", ".part", ".crdownload")


@dataclass(frozen=True)
class WorkspaceFile:
    """One file found in the workspace; `problem` is set when it cannot be read as its kind."""

    path: str  # workspace-relative, POSIX separators
    kind: str  # note, hf_daily, paper_card, work_queue, knowledge, feedback, other
    author: str | None
    location: str  # the absolute path as the OS gave it (`absolute` is its Path, made when asked)
    problem: str | None = None
    # The scan's lstat of a regular file that is no link (None for links, problems, and files not
    # found by a scan): what `tasks.ingest.changes` compares with the stored version, and the mtime
    # the version is stored with (taken before its bytes are read, so a later write shows).
    # Observations, not identity: two scans of one file compare equal.
    size: int | None = field(default=None, compare=False)
    mtime: float | None = field(default=None, compare=False)

    @property
    def absolute(self) -> Path:
        return Path(self.location)

    @property
    def topic(self) -> str | None:
        return Path(self.path).stem if self.kind in ("knowledge", "feedback") else None


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
    if parts[:2] == ("organized", "feedback") and len(parts) == 3:
        return ("feedback", None) if name.endswith(".md") else ("other", None)
    if parts[0] == "inbox" and len(parts) == 2:
        return "other", None  # a file dropped directly in inbox/, outside any author folder
    return None


def scan_workspace(root: Path) -> list[WorkspaceFile]:
    """Every file predigest reads or must report, sorted by path; symlinks are never followed out.

    Each directory entry is looked at in its own guarded step: whatever goes wrong with one
    (a symlink loop, a name that is not UTF-8, a folder that cannot be listed) becomes that
    entry's `problem`, recorded as its source's error, and the scan goes on. Paths are stored
    as `display_name`s: bytes that are not UTF-8 and control characters are escaped.
    """
    root = root.resolve()
    found: list[WorkspaceFile] = []
    prefix = len(str(root)) + 1
    for top in ("inbox", "organized"):
        base = root / top
        if base.is_symlink():  # inbox/ or organized/ itself a link: nothing under it is the workspace's
            found.append(WorkspaceFile(top, "other", None, str(base), "symlinked folder; not followed"))
            continue
        if not base.is_dir():
            continue

        def unlistable(exc: OSError, base: Path = base, top: str = top) -> None:
            where = str(exc.filename or base)
            rel = "/".join(display_name(p) for p in where[prefix:].split(os.sep)) if len(where) >= prefix else top
            found.append(WorkspaceFile(rel, "other", None, where,
                                       f"{UNLISTABLE}: {exc.strerror or describe(exc)}; skipped"))

        for dirpath, dirnames, filenames in os.walk(base, followlinks=False, onerror=unlistable):
            # Workspace-relative parts and absolute paths from the strings os.walk gives: a Path
            # per file cost more than the rest of the scan (a file's Path is made when asked).
            raw_parts = tuple(dirpath[prefix:].split(os.sep))
            dir_parts = tuple(display_name(p) for p in raw_parts)
            kept = []
            for d in sorted(dirnames):
                if d.startswith(".git"):
                    continue
                if os.path.islink(os.path.join(dirpath, d)):
                    if _kind_of((*raw_parts, d, "x.md")) is not None:
                        found.append(WorkspaceFile("/".join((*dir_parts, display_name(d))), "other", None,
                                                   os.path.join(dirpath, d), "symlinked directory; not followed"))
                    continue
                kept.append(d)
            dirnames[:] = kept
            for name in sorted(filenames):
                if _is_temp(name):
                    continue
                rel = "/".join((*dir_parts, display_name(name)))
                where = os.path.join(dirpath, name)
                step = guarded(rel, _classify, root, where, (*raw_parts, name), rel)
                if step.failure is not None:
                    found.append(WorkspaceFile(rel, "other", None, where,
                                               f"scan failed: {step.failure.error}"))
                elif step.value is not None:
                    found.append(step.value)
    found.sort(key=lambda f: f.path)
    return found


def _classify(root: Path, where: str, raw_parts: tuple[str, ...], rel: str) -> WorkspaceFile | None:
    kind_author = _kind_of(raw_parts)
    if kind_author is None:
        return None
    kind, author = kind_author
    return _check(root, where, rel, kind, display_name(author) if author is not None else None)


def _check(root: Path, where: str, rel: str, kind: str, author: str | None) -> WorkspaceFile:
    """The file as its kind, with the problem that keeps it from being read (`where`: its absolute path)."""
    problem = None
    info = None
    try:
        info = os.lstat(where)  # one lstat says both whether it is a link and what it is
        mode = info.st_mode
        if stat.S_ISLNK(mode):
            try:
                target = Path(where).resolve(strict=True)
            except (OSError, RuntimeError):  # a loop is RuntimeError before Python 3.13
                target = None
            if target is None:
                problem = "symlink loop or broken link; not followed"
            elif not target.is_relative_to(root):
                problem = "symlink leads outside the workspace; not followed"
            elif not target.is_file():
                problem = "symlink does not point to a regular file"
        elif not stat.S_ISREG(mode):
            problem = "not a regular file (device, fifo or socket); skipped"
    except OSError as exc:
        problem = f"cannot stat: {exc.strerror or exc}"
    if problem is None and kind == "knowledge" and info is not None and stat.S_ISLNK(info.st_mode):
        problem = "knowledge document is a symlink; a topic needs a regular file; quarantined"
    if problem is None and kind == "knowledge" and not is_safe_topic_name(Path(rel).stem):
        problem = ("knowledge file name is not a safe topic name (ASCII letters, digits, '-' and '_', "
                   "starting with a letter or digit); quarantined")
    if problem is None and kind == "feedback" and not is_safe_topic_name(Path(rel).stem):
        problem = "feedback file name is not a safe topic name; skipped"
    if problem is None and kind == "feedback" and not root.joinpath(*KNOWLEDGE_DIR, Path(rel).name).is_file():
        # Feedback answers a topic's briefings, and a topic is briefed only with its knowledge document.
        problem = f"feedback for no topic: {'/'.join(KNOWLEDGE_DIR)}/{Path(rel).name} does not exist; skipped"
    if problem is None and kind == "other":
        if rel.count("/") == 1 and rel.lower().endswith(NOTE_SUFFIXES):
            problem = "note outside an author folder (expected inbox/<author>/); skipped"
        else:
            problem = "not a markdown note; skipped"
    if problem is None and info is not None and stat.S_ISREG(info.st_mode):
        return WorkspaceFile(rel, kind, author, where, None, info.st_size, info.st_mtime)
    return WorkspaceFile(rel, kind, author, where, problem)


def scan_one(root: Path, rel: str) -> WorkspaceFile | None:
    """What `scan_workspace(root)` says about the one workspace-relative path `rel`, without walking
    the workspace: the same record (kind, author, problem), or None where the scan lists nothing
    (a path predigest does not read, an editor dropping, a `.git*` folder, a file that is gone).

    A symlinked folder on the way is reported as the scan reports it: one record for the folder."""
    root = root.resolve()
    raw_parts = tuple(p for p in rel.split("/") if p)
    if not raw_parts or _is_temp(raw_parts[-1]) or any(p.startswith(".git") for p in raw_parts[1:-1]):
        return None
    if raw_parts[0] not in ("inbox", "organized"):
        return None
    dir_parts = tuple(display_name(p) for p in raw_parts)
    for depth in range(1, len(raw_parts) + 1):
        where = os.path.join(root, *raw_parts[:depth])
        # A link to a folder is a folder to os.walk (not followed, one record); a link to a file is a file.
        if os.path.islink(where) and (depth < len(raw_parts) or os.path.isdir(where)):
            if depth == 1:
                return WorkspaceFile(raw_parts[0], "other", None, where, "symlinked folder; not followed")
            if _kind_of((*raw_parts[:depth], "x.md")) is None:
                return None
            return WorkspaceFile("/".join(dir_parts[:depth]), "other", None, where, "symlinked directory; not followed")
    if not os.path.lexists(where) or (os.path.isdir(where) and not os.path.islink(where)):
        return None
    rel_display = "/".join(dir_parts)
    step = guarded(rel_display, _classify, root, where, raw_parts, rel_display)
    if step.failure is not None:
        return WorkspaceFile(rel_display, "other", None, where, f"scan failed: {step.failure.error}")
    return step.value
