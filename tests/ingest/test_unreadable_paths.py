"""Contract: every path of the workspace that cannot be read is a source with its error, named in the
briefing. Run as an ordinary user (a root test process runs the ingest and the briefing as uid 65534
through `setpriv`, since mode 000 does not stop root):
- a folder that cannot be listed (mode 000) is stored with "cannot list directory: …" and named in
  the briefing of every cutoff after it was found so, apart from the undated files (markdown: a
  line in section 六; JSON: `unlistable`); once a scan lists it again, a briefing of a later cutoff
  no longer names it, and its notes are ingested;
- a dated file that cannot be opened is stored with "cannot read: …" and named in its window's
  checked sources, as failed to read.
The scan's own answer for an unlistable folder is also checked in-process, with the listing call
made to raise PermissionError (which holds whoever runs the tests)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from tasks.config.settings import Settings
from tasks.ingest.scan import scan_workspace
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tests.generate.files import local, write_file
from tests.generate.many_small import END, many_small_notes
from tests.helpers import ROOT, ingest_all

LOCKED, SECRET = "inbox/amy/locked", "inbox/amy/2026-10-09-1111-amy-secret.md"
NOBODY = 65534
# What the ordinary user runs: the ingest and the briefing of one date, on the test's database.
_CHILD = """
import datetime as dt, sys
from pathlib import Path
from tasks.config.settings import Settings
from tasks.stages.briefings import brief
from tasks.stages.briefed_topics import topics_for
from tests.helpers import ingest_all
url, home, storage, workspace, day = sys.argv[1:6]
settings = Settings(_env_file=None, home=Path(home), database_url=url, storage_url=storage)
ref = ingest_all(settings, Path(workspace))
(topic,) = topics_for(settings, Path(workspace), ["inference"])
result = brief(settings, ref, topic, dt.date.fromisoformat(day))
assert result.error is None, result.error
"""


def _workspace(root: Path) -> Path:
    many_small_notes(root, 30)
    note = "# secret\n\n## 1. vLLM serving\n\n- arXiv:2610.00007 is faster.\n"
    write_file(root, f"{LOCKED}/2026-10-09-1000-amy-hidden.md", note, local(END, 10))
    write_file(root, SECRET, note, local(END, 11, 11))
    stamp = local(END, 9).timestamp()
    os.utime(root / LOCKED, (stamp, stamp))  # found unlistable before the cutoff of END
    return root


def _brief_as_ordinary_user(settings: Settings, workspace: Path, day: dt.date) -> None:
    if os.geteuid() != 0:
        ref = ingest_all(settings, workspace)
        (topic,) = topics_for(settings, workspace, ["inference"])
        assert brief(settings, ref, topic, day).error is None
        return
    if shutil.which("setpriv") is None:
        pytest.skip("runs as root and has no setpriv to run the check as an ordinary user")
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-c", _CHILD,
            settings.database_url or "", str(settings.home), settings.storage_root_url, str(workspace), day.isoformat()]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(workspace.parent)}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0 and "connection" in done.stderr and "Permission denied" in done.stderr:
        pytest.skip(f"uid {NOBODY} cannot reach the test database: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr


@pytest.fixture
def share(settings: Settings) -> Iterator[Settings]:
    """The test's settings with home and published files in a folder an ordinary user may write (a
    test's tmp_path is its owner's alone); the workspace goes there too."""
    base = Path(tempfile.mkdtemp(prefix="pdu", dir="/tmp"))
    base.chmod(0o777)
    yield settings.model_copy(update={"home": base / "home", "storage_url": (base / "published").as_uri()})
    shutil.rmtree(base, ignore_errors=True)


def _briefing(settings: Settings, day: dt.date) -> tuple[str, dict[str, Any]]:
    folder = settings.home.parent / "published" / "briefings" / "inference"
    return ((folder / f"{day.isoformat()}.md").read_text(encoding="utf-8"),
            json.loads((folder / f"{day.isoformat()}.json").read_text(encoding="utf-8")))


@pytest.mark.other_user
def test_unreadable_folder_and_file_are_sources_named_in_the_briefing(clean_db: Engine, share: Settings) -> None:
    settings = share
    workspace = _workspace(settings.home.parent / "ws")
    (workspace / LOCKED).chmod(0)
    (workspace / SECRET).chmod(0)
    try:
        _brief_as_ordinary_user(settings, workspace, END)
    finally:
        (workspace / LOCKED).chmod(0o755)
        (workspace / SECRET).chmod(0o644)
    with clean_db.connect() as conn:
        errors = dict(conn.execute(text("SELECT path, error FROM sources WHERE error IS NOT NULL")).all())
    assert errors[LOCKED] == "cannot list directory: Permission denied; skipped"
    assert errors[SECRET] == "cannot read: Permission denied"
    assert not any(p.startswith(f"{LOCKED}/") for p in errors)
    markdown, twin = _briefing(settings, END)
    assert twin["unlistable"] == [{"path": LOCKED, "error": errors[LOCKED]}]
    assert LOCKED not in {u["path"] for u in twin["undated"]}  # a folder, not an undated file
    (line,) = [x for x in markdown.splitlines() if x.startswith("无法读取的文件夹")]
    assert f"{LOCKED}（{errors[LOCKED]}）" in line
    (row,) = [s for s in twin["sources"] if s["path"] == SECRET]
    assert row["error"] == errors[SECRET] and row["outcome"] == "error"
    assert f"| {SECRET} | 读取失败：{errors[SECRET]} |" in markdown

    # Listed again: its note is stored, and a briefing of a cutoff after that no longer names it.
    later = dt.datetime.now(tz=dt.UTC).date() + dt.timedelta(days=3)
    ref = ingest_all(settings, workspace)
    (topic,) = topics_for(settings, workspace, ["inference"])
    assert brief(settings, ref, topic, later).error is None
    with clean_db.connect() as conn:
        hidden = conn.execute(text("SELECT error FROM sources WHERE path LIKE :p"), {"p": f"{LOCKED}/%"}).all()
    assert [h.error for h in hidden] == [None]
    markdown, twin = _briefing(settings, later)
    assert "unlistable" not in twin and "无法读取的文件夹" not in markdown
    assert brief(settings, ref, topic, END).error is None
    assert _briefing(settings, END)[1]["unlistable"] == [{"path": LOCKED, "error": errors[LOCKED]}]  # as of its cutoff


def test_the_scan_records_a_folder_whose_listing_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = _workspace(tmp_path / "ws")
    real_scandir = os.scandir

    def refusing(path: Any = ".") -> Any:
        if str(path).endswith(LOCKED):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    found = {f.path: f for f in scan_workspace(workspace)}
    assert found[LOCKED].problem == "cannot list directory: Permission denied; skipped"
    assert not any(p.startswith(f"{LOCKED}/") for p in found)
