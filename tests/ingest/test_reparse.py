"""Contract of what ingest stores of an item's text for judging (tasks.ingest.sources,
tasks.ingest.reparse):

- a queue row whose title column is not recognised is stored with its cells that can name its
  paper (`items.cells`, tasks.inbox.outline_reader.naming_cells); any other row with SQL NULL there;
- a row stored before ingest stored outlines, cells or its papers' own outlines (SQL NULL) in a
  workspace stored by that older ingest (`workspaces.stored_parse` behind `STORED_PARSE`) gets them at the next look for
  changed files, equal to what a fresh ingest stores, superseded versions too; and the briefing
  judged from those rows is the one judged before they were lost, so judging needs no parse;
- a workspace already up to date is not scanned: the look reads one column of one row.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, select, text
from sqlalchemy.orm import Session

from db.models import Item, Source
from tasks.config.settings import Settings
from tasks.inbox.outline_reader import naming_cells, stored_outline
from tasks.ingest import reparse
from tasks.ingest.reparse import STORED_PARSE, fill_unparsed
from tasks.stages.workspace import find_changed_files, register_workspace
from tests.helpers import SAMPLE_WORKSPACE, briefing_json, ingest_all

OCT9 = dt.date(2026, 10, 9)
QUEUE = "organized/queue/work-queue.md"
# A snapshot whose table names no title column ("论文标题" is not one of them): its rows' titles
# come from their cells (a category of the paper aside, when judged).
UNTITLED = """## 2026-10-10 22:00

| # | arXiv | 主分类 | 论文标题 | 备注 |
|---|---|---|---|---|
| 1 | 2610.11959 | multimodal | MiMo-V2.6 Technical Report | 新卡 1707 |
| 2 | arXiv:2610.08571 | rag | — | 承接 |

"""

# A paper's own entry with sub-sections, one naming another paper: its stored outlines read the
# entries after it.
OWN_ENTRY = """# FooServe

## FooServe: Tiered KV Cache（arXiv:2610.00001）

FooServe 把 KV cache 分层放到 CPU 内存。

### 核心观点
- 分层卸载让长上下文吞吐提升 2.1×。
- 只在 H100 上测过。

### 和 BarKV 的对比（arXiv:2610.00002）
- BarKV 更省显存。

### 结论
- 值得跟进。
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    shutil.copytree(SAMPLE_WORKSPACE, root)
    queue = root / QUEUE
    head, rest = queue.read_text(encoding="utf-8").split("## ", 1)
    queue.write_text(head + UNTITLED + "## " + rest, encoding="utf-8")
    return root


def _stored(engine: Engine) -> list[tuple[str, str, str | None, object, object, object]]:
    with Session(engine) as session:
        return [tuple(r) for r in session.execute(
            select(Source.kind, Item.text, Item.title, Item.outline, Item.cells, Item.paper_outlines)
            .join(Source, Source.id == Item.source_id).order_by(Item.id))]


def test_a_queue_row_without_a_title_column_is_stored_with_its_cells(
    clean_db: Engine, settings: Settings, workspace: Path
) -> None:
    ingest_all(settings, workspace)
    rows = _stored(clean_db)
    untitled = [(body, cells) for kind, body, title, _, cells, _ in rows if kind == "work_queue" and title is None]
    assert [cells for _, cells in untitled] == [["multimodal", "MiMo-V2.6 Technical Report", "新卡 1707"], ["rag", "承接"]]
    assert all(cells == list(naming_cells(body)) for body, cells in untitled)
    with clean_db.connect() as conn:  # SQL NULL, not a JSON null, for every other row
        titled = conn.execute(text("SELECT count(*) FROM items WHERE title IS NOT NULL AND cells IS NOT NULL")).scalar()
        notes = conn.execute(text("SELECT count(*) FROM items JOIN sources s ON s.id = items.source_id "
                                  "WHERE s.kind <> 'work_queue' AND (cells IS NOT NULL OR outline IS NULL)")).scalar()
        json_null = conn.execute(text("SELECT count(*) FROM items WHERE paper_outlines = 'null'::jsonb")).scalar()
    assert titled == 0 and notes == 0 and json_null == 0


def test_rows_stored_before_outlines_cells_and_paper_outlines_get_them_and_judge_alike(
    clean_db: Engine, settings: Settings, workspace: Path
) -> None:
    before = briefing_json(settings, workspace, "inference", OCT9)
    fresh = _stored(clean_db)
    # Digests' entries name several papers, each with its own units' outline.
    assert sum(bool(papers) for *_, papers in fresh) >= 5
    with clean_db.begin() as conn:  # as rows stored before 0011, 0012 and 0014 are, in a workspace stored then
        conn.execute(text("UPDATE items SET outline = NULL, cells = NULL, paper_outlines = NULL"))
        conn.execute(text("UPDATE workspaces SET stored_parse = 0"))
    ref = register_workspace(settings, workspace)
    assert find_changed_files(settings, ref) == []  # nothing to ingest; the rows are filled in
    assert _stored(clean_db) == fresh
    for kind, body, title, outline, cells, _ in fresh:
        assert outline == (None if kind == "work_queue" else stored_outline(body).to_json())
        assert cells == (list(naming_cells(body)) if kind == "work_queue" and title is None else None)
    with clean_db.begin() as conn:
        conn.execute(text("UPDATE items SET outline = NULL, cells = NULL, paper_outlines = NULL"))
        conn.execute(text("UPDATE workspaces SET stored_parse = 0"))
    assert briefing_json(settings, workspace, "inference", OCT9) == before
    assert _stored(clean_db) == fresh


def test_a_workspace_up_to_date_is_not_scanned(clean_db: Engine, settings: Settings, workspace: Path) -> None:
    ingest_all(settings, workspace)
    with clean_db.connect() as conn:
        assert conn.execute(text("SELECT stored_parse FROM workspaces")).scalars().all() == [STORED_PARSE]
    statements: list[str] = []

    def count(conn: object, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement)

    ref = register_workspace(settings, workspace)
    with Session(clean_db) as session, session.begin():
        event.listen(session.connection().engine, "before_cursor_execute", count)
        try:
            assert fill_unparsed(session, ref.id) == 0
        finally:
            event.remove(session.connection().engine, "before_cursor_execute", count)
    assert len(statements) == 1 and "FROM workspaces" in statements[0] and "items" not in statements[0]


def test_a_refill_read_in_small_chunks_computes_whole_sources(
    clean_db: Engine, settings: Settings, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "inbox" / "tom" / "2026-10-09T0900-tom-foo.md").write_text(OWN_ENTRY, encoding="utf-8")
    ingest_all(settings, workspace)
    fresh = _stored(clean_db)
    assert any(isinstance(papers, dict) and "by_subsections" in papers for *_, papers in fresh)
    with clean_db.begin() as conn:
        conn.execute(text("UPDATE items SET outline = NULL, cells = NULL, paper_outlines = NULL"))
        conn.execute(text("UPDATE workspaces SET stored_parse = 0"))
    # Chunks end inside sources: an entry's sub-sections and ids are read with the rest of its source.
    monkeypatch.setattr(reparse, "FILL_CHUNK_ROWS", 3)
    ref = register_workspace(settings, workspace)
    with Session(clean_db) as session, session.begin():
        assert reparse.fill_unparsed(session, ref.id) == sum(
            1 for *_, outline, cells, papers in fresh if (outline, cells, papers) != (None, None, None))
    assert _stored(clean_db) == fresh
