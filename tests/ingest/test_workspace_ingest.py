"""Contract of workspace ingest (tasks.ingest.scan/store through the stage functions in tasks.stages.workspace).

- The first ingest stores exactly one source per workspace file; files that cannot be read as
  notes (.DS_Store, a 0-byte HF daily) are recorded with an error, never dropped.
- A source is (workspace, path, content sha256): with nothing changed, `find_changed_files`
  returns [] and ingesting every file again writes no rows in any table.
- An edited file becomes a new source version; the old version is superseded (superseded_at set)
  and the briefing reads only the new content. A file reverted to an earlier version makes that
  version current again.
- A note's time is its file name's date and time in Asia/Shanghai (time_basis "filename"); a name
  with a date only counts from 00:00 local; a name without a date falls back to the file's mtime
  (time_basis "mtime"), which the briefing reports.
- A symlink leading outside the workspace is recorded with an error and never read.
- A GB18030 note with CRLF line endings is decoded to LF text.
- Several workspaces share one database without mixing.
Runs on real PostgreSQL (`clean_db`) against a copy of examples/workspace.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from db.models import Item, Mention, Source
from tasks.config.settings import Settings
from tasks.inbox.outline_reader import stored_outline
from tasks.ingest.scan import scan_workspace
from tasks.stages.workspace import find_changed_files, ingest_one, register_workspace
from tests.db.counts import table_counts
from tests.helpers import SAMPLE_WORKSPACE, briefing_json, ingest_all

UTC = dt.UTC
CST = dt.timezone(dt.timedelta(hours=8))
OCT7 = dt.date(2026, 10, 7)
DS_STORE = "inbox/jay/.DS_Store"
EMPTY_HF = "inbox/tom/2026-10-07-0900-hf-daily-2026-10-07.md"
R3 = "inbox/jay/2026-10-07-1050-jay-engineering-oct07-r3.md"
R7 = "inbox/jay/2026-10-07-1450-jay-engineering-screening-oct07-r7.md"
GB18030_NOTE = "inbox/jay/2026-10-07-0820-jay-csdn-inference-rag-highvalue-oct.md"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A private copy of the sample workspace that a test may edit."""
    root = tmp_path / "workspace"
    shutil.copytree(SAMPLE_WORKSPACE, root)
    return root


def _sources(engine: Engine, workspace_id: int | None = None) -> list[Source]:
    with Session(engine, expire_on_commit=False) as session:
        query = select(Source).order_by(Source.path, Source.id)
        if workspace_id is not None:
            query = query.where(Source.workspace_id == workspace_id)
        return list(session.execute(query).scalars())


def _current(engine: Engine, workspace_id: int) -> dict[str, Source]:
    return {s.path: s for s in _sources(engine, workspace_id) if s.superseded_at is None}


def _item_texts(engine: Engine, source_id: int | None = None) -> list[str]:
    with Session(engine) as session:
        query = select(Item.heading, Item.title, Item.text).order_by(Item.source_id, Item.ordinal)
        if source_id is not None:
            query = query.where(Item.source_id == source_id)
        return [
            "\n".join([heading, title or "", body])
            for heading, title, body in session.execute(query)
        ]


def _files_on_disk(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink())


def _citation(brief: dict[str, Any], arxiv_id: str) -> dict[str, Any] | None:
    return next((c for c in brief["citations"] if c["arxiv_id"] == arxiv_id), None)


# --- first ingest ----------------------------------------------------------------------------------


def test_first_ingest_stores_one_source_per_file(clean_db: Engine, settings: Settings, workspace: Path) -> None:
    files = scan_workspace(workspace)
    assert [f.path for f in files] == _files_on_disk(workspace)  # nothing in the sample is skipped

    ref = ingest_all(settings, workspace)
    rows = _sources(clean_db, ref.id)

    assert [r.path for r in rows] == [f.path for f in files]
    assert all(r.superseded_at is None for r in rows)
    by_path = {r.path: r for r in rows}

    ds_store = by_path[DS_STORE]
    assert ds_store.kind == "other"
    assert ds_store.error

    empty = by_path[EMPTY_HF]
    assert empty.kind == "hf_daily"
    assert empty.error and "empty" in empty.error
    assert empty.size == 0
    assert _item_texts(clean_db, empty.id) == []

    # Everything else in the sample reads cleanly.
    assert sorted(p for p, r in by_path.items() if r.error) == sorted([DS_STORE, EMPTY_HF])


def test_entries_are_stored_with_the_outline_their_text_parses_to(
    clean_db: Engine, settings: Settings, workspace: Path
) -> None:
    """Judging reads `items.outline` instead of parsing an entry's text again; a queue row has none."""
    ingest_all(settings, workspace)
    with Session(clean_db) as session:
        rows = session.execute(select(Source.kind, Item.text, Item.outline).join(Source, Source.id == Item.source_id)).all()
    assert {kind for kind, _, _ in rows} >= {"note", "work_queue"}
    for kind, body, stored in rows:
        assert stored == (None if kind == "work_queue" else stored_outline(body).to_json()), (kind, body[:80])


def test_empty_hf_daily_is_reported_in_its_briefing(clean_db: Engine, settings: Settings, workspace: Path) -> None:
    brief = briefing_json(settings, workspace, "inference", OCT7)
    sources = {s["path"]: s for s in brief["sources"]}
    assert EMPTY_HF in sources
    assert sources[EMPTY_HF]["error"]


# --- idempotency -----------------------------------------------------------------------------------


def test_unchanged_workspace_writes_nothing(clean_db: Engine, settings: Settings, workspace: Path) -> None:
    ref = ingest_all(settings, workspace)
    counts = table_counts(clean_db)
    snapshot = [(s.id, s.path, s.sha256, s.superseded_at, s.error) for s in _sources(clean_db)]
    assert counts["sources"] > 0 and counts["items"] > 0 and counts["mentions"] > 0

    assert find_changed_files(settings, ref) == []

    # Registering again and ingesting every file anyway (not just the changed ones) writes nothing.
    assert register_workspace(settings, workspace) == ref
    outcomes = [ingest_one(settings, ref, wf) for wf in scan_workspace(workspace)]
    assert {o.status for o in outcomes} == {"unchanged"}
    assert {o.path: o.error is not None for o in outcomes}[DS_STORE]

    assert table_counts(clean_db) == counts
    assert [(s.id, s.path, s.sha256, s.superseded_at, s.error) for s in _sources(clean_db)] == snapshot


# --- edits -----------------------------------------------------------------------------------------


def _r3_seis_headings(brief: dict[str, Any]) -> list[str]:
    """Headings of the R3 note's entries behind the SEIS (2610.04646) increment."""
    seis = next(i for i in brief["increments"] if i.get("arxiv_id") == "2610.04646")
    return [e["heading"] for e in seis["entries"] if e["path"] == R3]


OLD_HEADING = "SEIS: Self-Evolving Inference Systems — 找到了"
NEW_HEADING = "SEIS: Self-Evolving Inference Systems — 复核完毕"
NEW_ENTRY = (
    "\n## 条目#9 · KV-Offload：vLLM 的 KV cache 分层卸载（arXiv:2610.09876）\n\n"
    "- 在 vLLM 上把 KV cache 卸载到 CPU，serving 吞吐提升 1.4×。\n"
)


def test_edited_note_is_a_new_version_and_supersedes_the_old(
    clean_db: Engine, settings: Settings, workspace: Path
) -> None:
    ref = ingest_all(settings, workspace)
    old = _current(clean_db, ref.id)[R3]
    before = _r3_seis_headings(briefing_json(settings, workspace, "inference", OCT7))
    assert any(OLD_HEADING in h for h in before)
    note = workspace / R3
    original = note.read_text(encoding="utf-8")
    assert OLD_HEADING in original and "2610.09876" not in original
    edited = original.replace(OLD_HEADING, NEW_HEADING) + NEW_ENTRY
    note.write_text(edited, encoding="utf-8")
    # Edited that evening, before the cutoff: the Oct 7 briefing reads this version (by first-seen time).
    edited_at = dt.datetime(2026, 10, 7, 21, 0, tzinfo=dt.timezone(dt.timedelta(hours=8))).timestamp()
    os.utime(note, (edited_at, edited_at))

    changed = find_changed_files(settings, ref)
    assert [wf.path for wf in changed] == [R3]
    outcome = ingest_one(settings, ref, changed[0])
    assert outcome.status == "new"
    assert find_changed_files(settings, ref) == []

    versions = [s for s in _sources(clean_db, ref.id) if s.path == R3]
    assert len(versions) == 2
    old_row = next(s for s in versions if s.id == old.id)
    new_row = next(s for s in versions if s.id != old.id)
    assert old_row.superseded_at is not None
    assert new_row.superseded_at is None
    assert new_row.sha256 == hashlib.sha256(edited.encode("utf-8")).hexdigest()
    assert new_row.observed_at == old_row.observed_at  # same file name, same time
    # Every other file still has exactly one current version.
    assert len(_current(clean_db, ref.id)) == len(scan_workspace(workspace))

    brief = briefing_json(settings, workspace, "inference", OCT7)
    assert [s["path"] for s in brief["sources"]].count(R3) == 1

    added = _citation(brief, "2610.09876")
    assert added is not None, "the new entry of the edited note is in the briefing"
    assert added["status"] == "net_new"
    assert R3 in added["sources"]

    r3_entries = _r3_seis_headings(brief)
    assert len(r3_entries) == len(before), "the old version's entries are superseded, not duplicated"
    assert any(NEW_HEADING in h for h in r3_entries)
    assert OLD_HEADING not in str(brief)


def test_reverted_note_makes_the_earlier_version_current_again(
    clean_db: Engine, settings: Settings, workspace: Path
) -> None:
    ref = ingest_all(settings, workspace)
    first = _current(clean_db, ref.id)[R3]
    note = workspace / R3
    original = note.read_bytes()

    note.write_bytes(original + NEW_ENTRY.encode("utf-8"))
    ingest_all(settings, workspace)
    assert _current(clean_db, ref.id)[R3].id != first.id

    note.write_bytes(original)  # undo the edit
    ingest_all(settings, workspace)

    current = _current(clean_db, ref.id)[R3]
    assert current.sha256 == hashlib.sha256(original).hexdigest()
    assert current.id == first.id  # the stored version is reused, not written again
    assert [s.superseded_at is None for s in _sources(clean_db, ref.id) if s.path == R3].count(True) == 1
    assert find_changed_files(settings, ref) == []

    brief = briefing_json(settings, workspace, "inference", OCT7)
    assert _citation(brief, "2610.09876") is None


# --- time of a note --------------------------------------------------------------------------------


def test_observed_at_comes_from_the_file_name_in_shanghai(
    clean_db: Engine, settings: Settings, workspace: Path
) -> None:
    ref = ingest_all(settings, workspace)
    current = _current(clean_db, ref.id)

    r7 = current[R7]
    assert r7.time_basis == "filename"
    assert r7.observed_at == dt.datetime(2026, 10, 7, 6, 50, tzinfo=UTC)

    t_form = current["inbox/jay/2026-10-09T1450-jay-inference-systems-deep-dive.md"]
    assert t_form.time_basis == "filename"
    assert t_form.observed_at == dt.datetime(2026, 10, 9, 14, 50, tzinfo=CST)

    date_only = current["inbox/jay/2026-10-07-inference-engineering-agentic-ai-screening.md"]
    assert date_only.time_basis == "filename"
    assert date_only.observed_at == dt.datetime(2026, 10, 7, 0, 0, tzinfo=CST)
    assert date_only.observed_at == dt.datetime(2026, 10, 6, 16, 0, tzinfo=UTC)


def test_note_without_a_date_is_undated_whatever_its_mtime(clean_db: Engine, settings: Settings, workspace: Path) -> None:
    """No date in its name, front matter or header: its mtime (inside the window) never dates it."""
    note = workspace / "inbox" / "jay" / "reading-list.md"
    note.write_text(
        "# Reading list\n\n## 条目#1 · Undated：vLLM 的 KV cache 预取（arXiv:2610.09877）\n\n- serving 侧的小技巧。\n",
        encoding="utf-8",
    )
    mtime = dt.datetime(2026, 10, 7, 12, 0, tzinfo=CST)
    os.utime(note, (mtime.timestamp(), mtime.timestamp()))

    ref = ingest_all(settings, workspace)
    row = _current(clean_db, ref.id)["inbox/jay/reading-list.md"]
    assert row.time_basis == "undated"
    assert row.error is None

    brief = briefing_json(settings, workspace, "inference", OCT7)
    assert "inbox/jay/reading-list.md" not in {s["path"] for s in brief["sources"]}
    assert "inbox/jay/reading-list.md" in {u["path"] for u in brief["undated"]}
    assert _citation(brief, "2610.09877") is None


# --- untrusted files -------------------------------------------------------------------------------

CANARY = "OUTSIDE-CANARY-7f3a"


def test_symlink_leading_outside_is_recorded_and_never_read(
    clean_db: Engine, settings: Settings, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text(
        f"# {CANARY}\n\n## 条目#1 · {CANARY} vLLM serving（arXiv:2610.09878）\n\n- {CANARY} KV cache\n",
        encoding="utf-8",
    )
    link = workspace / "inbox" / "jay" / "2026-10-07-1200-jay-linked.md"
    link.symlink_to(secret)
    (outside / "2026-10-07-1300-evil-dir-note.md").write_text(f"# {CANARY} arXiv:2610.09878\n", encoding="utf-8")
    (workspace / "inbox" / "evil").symlink_to(outside, target_is_directory=True)

    ref = ingest_all(settings, workspace)
    current = _current(clean_db, ref.id)

    row = current["inbox/jay/2026-10-07-1200-jay-linked.md"]
    assert row.error and "symlink" in row.error
    assert row.size == 0
    assert row.sha256 != hashlib.sha256(secret.read_bytes()).hexdigest()
    assert not any(path.startswith("inbox/evil/") for path in current), "a symlinked directory is not walked"

    assert not any(CANARY in t for t in _item_texts(clean_db))
    with Session(clean_db) as session:
        assert session.execute(select(func.count()).where(Mention.arxiv_id == "2610.09878")).scalar_one() == 0
        assert session.execute(
            select(func.count()).where(Mention.raw.contains(CANARY) | Mention.context.contains(CANARY))
        ).scalar_one() == 0

    brief = briefing_json(settings, workspace, "inference", OCT7)
    assert CANARY not in str(brief)
    assert _citation(brief, "2610.09878") is None


def test_gb18030_crlf_note_decodes_to_lf_text(clean_db: Engine, settings: Settings, workspace: Path) -> None:
    raw = (workspace / GB18030_NOTE).read_bytes()
    assert b"\r\n" in raw
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    decoded = raw.decode("gb18030").replace("\r\n", "\n")

    ref = ingest_all(settings, workspace)
    row = _current(clean_db, ref.id)[GB18030_NOTE]
    assert row.error is None
    assert row.encoding == "gb18030"

    texts = _item_texts(clean_db, row.id)
    assert texts
    assert not any("\r" in t for t in texts)
    assert any("腾讯云" in t for t in texts)
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts)
    with Session(clean_db) as session:
        headings = session.execute(select(Item.heading).where(Item.source_id == row.id)).scalars().all()
    assert any(h.split(" · ")[-1] in decoded for h in headings)


# --- several workspaces ----------------------------------------------------------------------------


def test_two_workspaces_in_one_database_do_not_mix(
    clean_db: Engine, settings: Settings, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-workspace"
    b_only = "inbox/zoe/2026-10-07-1200-zoe-b-only.md"
    (other / "inbox" / "zoe").mkdir(parents=True)
    (other / b_only).write_text(
        "# Zoe\n\n## 条目#1 · B-Only：vLLM 的 KV cache 复用（arXiv:2610.09879）\n\n- serving 侧，只在 B 里。\n",
        encoding="utf-8",
    )
    # A byte-identical copy of one of A's notes, at the same relative path.
    (other / R7).parent.mkdir(parents=True)
    shutil.copy2(workspace / R7, other / R7)
    # B's own knowledge document (a topic without one is never briefed), anchoring nothing of A's.
    b_doc = "organized/knowledge/inference.md"
    (other / b_doc).parent.mkdir(parents=True)
    (other / b_doc).write_text("# inference\n\nversion: v7 · updated: 2026-10-01 12:00\n", encoding="utf-8")

    ref_a = ingest_all(settings, workspace)
    ref_b = ingest_all(settings, other)
    assert ref_a.id != ref_b.id

    b_sources = _sources(clean_db, ref_b.id)
    assert sorted(s.path for s in b_sources) == sorted([b_only, R7, b_doc])
    a_r7 = _current(clean_db, ref_a.id)[R7]
    b_r7 = next(s for s in b_sources if s.path == R7)
    assert b_r7.id != a_r7.id and b_r7.sha256 == a_r7.sha256
    assert _item_texts(clean_db, b_r7.id) == _item_texts(clean_db, a_r7.id)

    brief_b = briefing_json(settings, other, "inference", OCT7)
    b_paths = {b_only, R7}
    assert {s["path"] for s in brief_b["sources"]} == b_paths | {b_doc}  # its baseline is a source checked
    assert all(set(c["sources"]) <= b_paths for c in brief_b["citations"])
    assert _citation(brief_b, "2610.09879") is not None
    assert brief_b["knowledge"]["version"] == "v7", "A's knowledge document is not B's"
    assert brief_b["knowledge"]["citations"] is None
    assert brief_b["counts"]["already_anchored"] == 0 and brief_b["counts"]["reference_list_only"] == 0

    brief_a = briefing_json(settings, workspace, "inference", OCT7)
    # A's header (v310) is newer than Oct 7 and its change log has no version column: the version
    # in force then is unknown, the citation count is the change log's.
    assert brief_a["knowledge"]["version"] is None and brief_a["knowledge"]["citations"] is not None
    assert b_only not in {s["path"] for s in brief_a["sources"]}
    assert _citation(brief_a, "2610.09879") is None
    # A's own briefing is unaffected by B sharing a file: R7 is listed once.
    assert [s["path"] for s in brief_a["sources"]].count(R7) == 1
    # Ids R7 names that A's knowledge document anchors are not anchored for B.
    anchored_in_a = {c["arxiv_id"] for c in brief_a["citations"] if c["status"] == "already_anchored" and R7 in c["sources"]}
    assert anchored_in_a
    assert all((_citation(brief_b, i) or {}).get("status") != "already_anchored" for i in anchored_in_a)
