"""Contract: the caps and the work budget bound how much of a note is parsed into entries, never
which arXiv ids are seen (issue 47, item 8). Generated notes: one of more lines than the line cap
(several MB), one of a single multi-MB line, each with ids spread along it and one more on its
last line. Every id is stored as a mention, those past what was parsed on one last entry of the
source; the source's warnings say from which line ids alone were kept, and how many; the briefing
names that in the source's row, and its id accounting holds the last id.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Engine, select

from db.engine import session_scope
from db.models import Item, Mention, Source
from tasks.common.limits import CAPPED, MAX_LINE_CHARS, MAX_LINES_PER_SOURCE
from tasks.config.settings import Settings
from tests.ingest.hostile import DAY, published, run_evening, sources

KNOWLEDGE = ("# inference\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 0\n\n## §1 Serving\n\n"
             "- KV cache paging for vLLM (arXiv:2601.00001) [anchored 2026-10-01]\n")
LONG = "inbox/amy/2026-10-09-1000-amy-long.md"
WIDE = "inbox/amy/2026-10-09-1100-amy-wide.md"
SPREAD = 40  # ids along each note, past its first screen


def _ids(base: int) -> list[str]:
    return [f"2609.{base + k:05d}" for k in range(SPREAD)]


def _workspace(root: Path) -> tuple[Path, dict[str, list[str]]]:
    (root / "organized" / "knowledge").mkdir(parents=True)
    (root / "organized" / "knowledge" / "inference.md").write_text(KNOWLEDGE, encoding="utf-8")
    (root / "inbox" / "amy").mkdir(parents=True)
    lines = MAX_LINES_PER_SOURCE + 10_000
    every = lines // SPREAD
    long_ids, wide_ids = _ids(20000), _ids(30000)
    # One id every `every` lines, the last on the note's last line (past the line cap).
    body = [f"vLLM serving note line {k}" for k in range(lines)]
    for j, arxiv_id in enumerate(long_ids[:-1]):
        body[(j + 1) * every - 1] += f", see arXiv:{arxiv_id}"
    body[-1] = f"the last one: arXiv:{long_ids[-1]}"
    (root / LONG).write_text("## 1. Serving log\n\n" + "\n".join(body) + "\n", encoding="utf-8")
    # One line of about 5 MB, an id every ~125 kB, the last at its very end (past the character cap).
    filler = "vLLM serving one long line " * 4600
    wide = "## 1. One line\n\n" + "".join(f"{filler} arXiv:{i} " for i in wide_ids[:-1]) + f"{filler} arXiv:{wide_ids[-1]}"
    (root / WIDE).write_text(wide + "\n", encoding="utf-8")
    assert len(wide) > 20 * MAX_LINE_CHARS
    return root, {LONG: long_ids, WIDE: wide_ids}


def _stored_ids(engine: Engine, path: str) -> list[tuple[int, str | None]]:
    """(item ordinal, id) of each mention of `path`'s current version, in order."""
    with session_scope(engine) as session:
        return [(o, i) for o, i in session.execute(
            select(Item.ordinal, Mention.arxiv_id).join(Item, Item.id == Mention.item_id)
            .join(Source, Source.id == Item.source_id)
            .where(Source.path == path, Source.superseded_at.is_(None)).order_by(Item.ordinal, Mention.id))]


def test_every_id_of_a_note_past_the_caps_is_stored_and_its_briefing_says_where_parsing_stopped(
    tmp_path: Path, settings: Settings, clean_db: Engine
) -> None:
    workspace, written = _workspace(tmp_path / "ws")
    _, results = run_evening(settings, workspace, ["inference"], DAY)
    assert [r.error for r in results] == [None]
    stored = sources(clean_db)
    md, twin = published(settings, "inference", DAY)
    twin_text = json.dumps(twin, ensure_ascii=False)
    for path, ids in written.items():
        mentions = _stored_ids(clean_db, path)
        assert [i for _, i in mentions if i] == ids, path  # each id once, in order, the last included
        rest = [i for o, i in mentions if o == mentions[-1][0]]
        assert ids[-1] in rest and len(rest) < len(ids)  # the rest's entry holds those past the caps, only
        said = [w for w in stored[path].warnings if w.startswith(CAPPED) and "arXiv references from line" in w]
        assert len(said) == 1 and said[0].startswith(f"{CAPPED}{len(rest)} arXiv references"), stored[path].warnings
        row = next(s for s in twin["sources"] if s["path"] == path)
        assert said[0] in row["summary"] and said[0] in md
        assert ids[-1] in twin_text  # judged, and accounted for in the briefing: named in the markdown, or
        off = [p["arxiv_id"] for p in twin["off_topic"]]  # counted there when a long list of them is cut
        assert ids[-1] in md or (ids[-1] in off and f"窗口内其他主题论文 {len(off)} 篇" in md)
