"""Contract: a source's work is bounded, in counted units (Settings.source_budget_units). A source
whose parse needs more entries than its budget has units is cut short between entries: it keeps
the entries parsed by then (at least its first), its warnings say it was cut short, where, and
what was kept, the briefing names it, and the run goes on with every other source whole. The cut
bounds the work, not which ids are seen: every arXiv id of the part left unparsed is still stored,
on one last entry of the source, and a warning says so.

The budget is made one unit, so any source of more than one entry runs out of it after its first,
while the other sources, generated with one entry each, cannot be cut. The pathological source is
generated with thousands of entries, each naming its own arXiv id.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Engine, func, select

from db.engine import session_scope
from db.models import Item, Mention, Source
from tasks.common.limits import CAPPED, CUT_SHORT, CutShort
from tasks.config.settings import Settings
from tasks.render.labels import LABELS
from tasks.render.sources_table import cut_text
from tests.ingest.hostile import DAY, published, run_evening, sources

HUGE_ENTRIES = 3000
NORMAL = [f"2610.{90001 + k}" for k in range(4)]


def _workspace(root: Path) -> Path:
    knowledge = root / "organized" / "knowledge"
    knowledge.mkdir(parents=True)
    (knowledge / "inference.md").write_text(
        "# inference\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 0\n\n## §1 Serving\n\n"
        "- KV cache paging for vLLM (arXiv:2601.00001) [anchored 2026-10-01]\n", encoding="utf-8")
    inbox = root / "inbox" / "amy"
    inbox.mkdir(parents=True)
    for k, arxiv_id in enumerate(NORMAL):
        (inbox / f"2026-10-09-10{k:02d}-amy-note{k}.md").write_text(
            f"## 1. Speculative decoding for vLLM inference serving (arXiv:{arxiv_id})\n\n"
            "- throughput 1.8× on H100 for LLM inference\n", encoding="utf-8")
    huge = "\n\n".join(f"## {k}. KV cache scheduler {k} for inference (arXiv:2609.{10000 + k})\n\n- {k}% fewer stalls"
                       for k in range(1, HUGE_ENTRIES + 1))
    (inbox / "2026-10-09-1100-amy-huge.md").write_text(huge + "\n", encoding="utf-8")
    return root


def _counts(engine: Engine, path: str) -> tuple[int, int]:
    with session_scope(engine) as session:
        source_id = select(Source.id).where(Source.path == path, Source.superseded_at.is_(None)).scalar_subquery()
        items = session.execute(select(func.count()).select_from(Item).where(Item.source_id == source_id)).scalar_one()
        mentions = session.execute(select(func.count()).select_from(Mention).join(Item, Item.id == Mention.item_id)
                                   .where(Item.source_id == source_id)).scalar_one()
    return items, mentions


def test_a_source_over_its_budget_is_cut_short_and_named_and_the_run_goes_on(
    tmp_path: Path, settings: Settings, clean_db: Engine
) -> None:
    workspace = _workspace(tmp_path / "ws")
    tight = settings.model_copy(update={"source_budget_units": 1})
    _, results = run_evening(tight, workspace, ["inference"], DAY)
    assert [r.error for r in results] == [None]

    stored = sources(clean_db)
    huge = "inbox/amy/2026-10-09-1100-amy-huge.md"
    cut = [CutShort.read(w) for w in stored[huge].warnings if w.startswith(CUT_SHORT)]
    assert len(cut) == 1 and cut[0] is not None, stored[huge].warnings
    assert cut[0].stage == "parsing" and (cut[0].at, cut[0].done) == (2, 1)  # cut before its second entry
    assert stored[huge].error is None
    # Its first entry, then one entry holding the ids of the rest, never parsed: every id is stored.
    assert _counts(clean_db, huge) == (2, HUGE_ENTRIES)
    assert _ids(clean_db, huge) == [f"2609.{10000 + k}" for k in range(1, HUGE_ENTRIES + 1)]
    assert any(w.startswith(f"{CAPPED}{HUGE_ENTRIES - 1} arXiv references from line 5 on") for w in stored[huge].warnings)

    for k in range(len(NORMAL)):
        path = f"inbox/amy/2026-10-09-10{k:02d}-amy-note{k}.md"
        assert not any(w.startswith(CUT_SHORT) for w in stored[path].warnings)
        assert _counts(clean_db, path) == (1, 1)

    md, twin = published(tight, "inference", DAY)
    twin_text = json.dumps(twin, ensure_ascii=False)
    # The briefing names the source and why it is partial, in its own language (zh).
    assert huge in md and cut_text(cut[0], LABELS["zh"]) in md and CUT_SHORT not in md
    for arxiv_id in NORMAL:
        assert arxiv_id in md and arxiv_id in twin_text, arxiv_id
    # Judged within the same one unit: its first paper only.
    assert "2609.10001" in twin_text and "2609.10002" not in md and "2609.10002" not in twin_text


def _ids(engine: Engine, path: str) -> list[str]:
    with session_scope(engine) as session:
        return list(session.execute(
            select(Mention.arxiv_id).join(Item, Item.id == Mention.item_id).join(Source, Source.id == Item.source_id)
            .where(Source.path == path, Source.superseded_at.is_(None)).order_by(Item.ordinal, Mention.id)).scalars())


def test_the_same_workspace_within_a_normal_budget_is_read_whole(
    tmp_path: Path, settings: Settings, clean_db: Engine
) -> None:
    workspace = _workspace(tmp_path / "ws")
    run_evening(settings, workspace, ["inference"], DAY)
    huge = "inbox/amy/2026-10-09-1100-amy-huge.md"
    assert not sources(clean_db)[huge].warnings
    assert _counts(clean_db, huge) == (HUGE_ENTRIES, HUGE_ENTRIES)
