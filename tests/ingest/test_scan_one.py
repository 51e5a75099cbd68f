"""Contract: `scan_one(root, rel)` says about one path exactly what the full scan says about it.

On the sample workspace plus the hostile inputs of tests/ingest/bad_inputs.py (links out, loops,
links to folders, fifos, undecodable names, notes outside an author folder, …), editor droppings,
a `.git` folder, a knowledge file with an unsafe name and folders: for every record of
`scan_workspace(root)`, `scan_one(root, record.path)` is the same record; for every other path
under the workspace (and paths that do not exist) it is None. The full scan is the expected answer.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tasks.ingest.scan import scan_one, scan_workspace
from tests.helpers import SAMPLE_WORKSPACE
from tests.ingest.bad_inputs import write_cases


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    write_cases(root, outside)
    for rel in ("inbox/amy/.#draft.md", "inbox/amy/note.md~", "inbox/amy/x.swp", "inbox/amy/.git/HEAD.md",
                "organized/knowledge/bad name.md", "organized/paper_cards/notes.txt", "inbox/stray.md",
                "inbox/amy/sub/deeper.md", "elsewhere/readme.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n", encoding="utf-8")
    os.symlink(outside, root / "inbox" / "linked-author")
    return root


def test_scan_one_agrees_with_the_full_scan(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    records = scan_workspace(root)
    by_path = {r.path: r for r in records}
    assert len(by_path) == len(records) > 60
    for record in records:
        assert scan_one(root, record.path) == record, record.path
    others = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            if rel not in by_path:
                others += 1
                assert scan_one(root, rel) is None, rel
    assert others > 10  # the droppings, .git, folders and unread paths were really asked about
    for missing in ("inbox/amy/gone.md", "organized/knowledge/gone.md", "", "inbox"):
        assert scan_one(root, missing) is None
