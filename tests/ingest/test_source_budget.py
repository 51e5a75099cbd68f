"""Contract: a source's time is bounded (Settings.source_budget_seconds). A source whose parse
outlasts the budget is cut short between entries: it keeps what was parsed by then (at least its
first entry), its warnings say it was cut short, where, and what was kept, the briefing names it,
and the run goes on with every other source whole.

No seconds are measured: the budget is made tiny (a microsecond), so any source of more than one
entry runs out of it after its first, while the other sources, generated with one entry each,
cannot be cut. The pathological source is generated with thousands of entries, each naming its own
arXiv id, so "cut short" is visible as ids that never reach the database.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Engine, func, select

from db.engine import session_scope
from db.models import Item, Mention, Source
from tasks.briefing.labels import LABELS
from tasks.briefing.sources import cut_text
from tasks.common.limits import CUT_SHORT, CutShort
from tasks.config.settings import Settings
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
    tight = settings.model_copy(update={"source_budget_seconds": 1e-6})
    _, results = run_evening(tight, workspace, ["inference"], DAY)
    assert [r.error for r in results] == [None]

    stored = sources(clean_db)
    huge = "inbox/amy/2026-10-09-1100-amy-huge.md"
    cut = [CutShort.read(w) for w in stored[huge].warnings if w.startswith(CUT_SHORT)]
    assert len(cut) == 1 and cut[0] is not None, stored[huge].warnings
    assert cut[0].stage == "parsing" and (cut[0].at, cut[0].done) == (2, 1)  # cut before its second entry
    assert stored[huge].error is None
    assert _counts(clean_db, huge) == (1, 1)  # its first entry and that entry's id; the rest never parsed

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
    assert "2609.10002" not in md and "2609.10002" not in twin_text  # the cut entries are not judged


def test_the_same_workspace_within_a_normal_budget_is_read_whole(
    tmp_path: Path, settings: Settings, clean_db: Engine
) -> None:
    workspace = _workspace(tmp_path / "ws")
    run_evening(settings, workspace, ["inference"], DAY)
    huge = "inbox/amy/2026-10-09-1100-amy-huge.md"
    assert not sources(clean_db)[huge].warnings
    assert _counts(clean_db, huge) == (HUGE_ENTRIES, HUGE_ENTRIES)
