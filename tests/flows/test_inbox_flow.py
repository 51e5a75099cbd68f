"""Contract of the `ingest-inbox-file` flow (flows/inbox.py) on an ephemeral Prefect API:

- it stores one file given as a workspace-relative or absolute path: `new` once, `unchanged` after,
  and a changed file becomes a new source version; only the files named are stored (`paths` names
  more, each stored once), never the rest of the workspace;
- a path that leaves the workspace (`..`, an absolute path elsewhere) fails the run and stores nothing;
- a file gone before the run reads it is `missing`, a temp file is `ignored`; a symlink leading out
  is recorded with its reason, never followed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from flows.inbox import workspace_relative
from tasks.config.settings import Settings
from tests.helpers import point_flows_at


def _sources(engine: Engine) -> list[tuple[str, str | None, bool]]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(
            "SELECT path, error, superseded_at IS NULL FROM sources ORDER BY id"))]


@pytest.mark.parametrize("given, expected", [
    ("inbox/alice/n.md", "inbox/alice/n.md"),
    ("./inbox//alice/n.md", "inbox/alice/n.md"),
    ("/ws/inbox/alice/n.md", "inbox/alice/n.md"),
])
def test_workspace_relative_accepts_paths_inside(given: str, expected: str) -> None:
    assert workspace_relative(Path("/ws"), given) == expected


@pytest.mark.parametrize("given", ["../etc/passwd", "inbox/../../x.md", "/etc/passwd", "/wsx/inbox/a.md", "", "."])
def test_workspace_relative_rejects_paths_outside(given: str) -> None:
    with pytest.raises(ValueError):
        workspace_relative(Path("/ws"), given)


def test_flow_ingests_one_file(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from flows.inbox import ingest_inbox_file

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    note = ws / "inbox" / "alice" / "2026-10-09T1000-alice-a.md"
    note.parent.mkdir(parents=True)
    note.write_text("# a\n\n## 条目#1 · vLLM\n\n- arXiv:2610.01001 vLLM serving\n", encoding="utf-8")
    (ws / "inbox" / "alice" / "2026-10-09T1100-alice-b.md").write_text("# b\n")

    first = asyncio.run(ingest_inbox_file(path="inbox/alice/2026-10-09T1000-alice-a.md", workspace=str(ws)))
    assert (first.status, first.path, first.error) == ("new", "inbox/alice/2026-10-09T1000-alice-a.md", None)
    assert _sources(clean_db) == [("inbox/alice/2026-10-09T1000-alice-a.md", None, True)]  # only that file
    again = asyncio.run(ingest_inbox_file(path=str(note), workspace=str(ws)))
    assert (again.status, again.source_id) == ("unchanged", first.source_id)

    note.write_text("# a v2\n", encoding="utf-8")
    changed = asyncio.run(ingest_inbox_file(path=str(note), workspace=str(ws)))
    assert changed.status == "new" and changed.source_id != first.source_id
    assert [s[2] for s in _sources(clean_db)] == [False, True]

    # Further files the event names are stored too, each once; the result is the first path's.
    (ws / "inbox" / "alice" / "2026-10-09T1200-alice-c.md").write_text("# c\n")
    more = asyncio.run(ingest_inbox_file(path=str(note), workspace=str(ws), paths=[
        "inbox/alice/2026-10-09T1100-alice-b.md", "inbox/alice/2026-10-09T1200-alice-c.md",
        "inbox/alice/2026-10-09T1100-alice-b.md"]))
    assert (more.status, more.source_id) == ("unchanged", changed.source_id)
    assert sorted(s[0] for s in _sources(clean_db) if s[2]) == [
        "inbox/alice/2026-10-09T1000-alice-a.md", "inbox/alice/2026-10-09T1100-alice-b.md",
        "inbox/alice/2026-10-09T1200-alice-c.md"]


def test_flow_rejects_missing_ignored_and_outside_paths(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from flows.inbox import ingest_inbox_file

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    inbox = ws / "inbox" / "alice"
    inbox.mkdir(parents=True)
    secret = tmp_path / "secret.md"
    secret.write_text("outside")
    (inbox / "link-out.md").symlink_to(secret)
    (inbox / ".n.md.swp").write_text("swap")

    with pytest.raises(ValueError, match="outside the workspace"):
        asyncio.run(ingest_inbox_file(path="../secret.md", workspace=str(ws)))
    with pytest.raises(ValueError, match="outside the workspace"):
        asyncio.run(ingest_inbox_file(path=str(secret), workspace=str(ws)))
    assert _sources(clean_db) == []
    assert asyncio.run(ingest_inbox_file(path="inbox/alice/gone.md", workspace=str(ws))).status == "missing"
    assert asyncio.run(ingest_inbox_file(path="inbox/alice/.n.md.swp", workspace=str(ws))).status == "ignored"
    link = asyncio.run(ingest_inbox_file(path="inbox/alice/link-out.md", workspace=str(ws)))
    assert link.status == "new" and "outside the workspace" in (link.error or "")
    assert "outside" not in str(_sources(clean_db)[0][0])
